//! `morris bench`: a fixed search workload whose node count is the binary's signature.

use morris_engine::{notation, Variant};
use morris_solver::{Limits, Searcher};
use std::time::Instant;

/// The built-in positions: opening, middlegame and endgame, both variants.
const POSITIONS: [(&str, Variant); 10] = [
    (".../.../.../....../.../.../... w 9 9", Variant::Standard),
    ("W../.B./.../....../.../.../... w 8 8", Variant::Standard),
    ("W.B/.W./B../W.B..W/.B./.../... w 5 5", Variant::Standard),
    ("WB./.W./BW./B.W.B./.B./W../... b 2 3", Variant::Standard),
    ("WB./W../.../.....W/.../.../BB. w 0 0", Variant::Standard),
    ("W.W/.B./W.B/B...BW/.B./W.W/B.. w 0 0", Variant::Standard),
    (".../.../.../....../.../.../... w 9 9", Variant::NoFlying),
    ("W.B/.W./B../W.B..W/.B./.../... w 5 5", Variant::NoFlying),
    ("W.W/.B./W.B/B...BW/.B./W.W/B.. w 0 0", Variant::NoFlying),
    (".../.BW/W../W....W/.BB/.../... w 0 0", Variant::NoFlying),
];

/// Search a fixed list of positions on one thread: nodes, time and nodes per second.
///
/// The search runs to a fixed depth, without tablebases. The node count is
/// deterministic for a given binary (each position gets a fresh table, the move order
/// is static): it is the bench signature recorded in README. The default depth makes
/// the run last 1-3 s on one core of a current machine.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  morris bench\n  morris bench --depth 6")]
pub struct Args {
    /// Search depth in plies.
    #[arg(long, default_value_t = 11, value_parser = clap::value_parser!(u32).range(1..=64))]
    depth: u32,

    /// Transposition table size in MiB (part of the signature).
    #[arg(long, value_name = "MB", default_value_t = 16, value_parser = crate::args::hash_mb)]
    hash: usize,
}

/// Run the command.
///
/// # Errors
/// A table that cannot be allocated; never a parse error for the built-in list.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let limits = Limits {
        depth: Some(args.depth),
        ..Limits::default()
    };
    let (mut total, mut probes, mut hits) = (0u64, 0u64, 0u64);
    let clock = Instant::now();
    for (i, (fen, variant)) in POSITIONS.iter().enumerate() {
        let pos = notation::parse_position(fen, *variant)?;
        let mut searcher = Searcher::new(None, args.hash)?;
        let r = searcher.search(&pos, limits, &[])?;
        total += r.stats.nodes;
        probes += r.stats.tt_probes;
        hits += r.stats.tt_hits;
        outln!(
            "{:>2} {:<9} {:<40} {:>10} nodes  best {}",
            i + 1,
            variant.name(),
            fen,
            r.stats.nodes,
            r.best.map_or("-".to_string(), |m| m.to_string())
        );
    }
    let secs = clock.elapsed().as_secs_f64();
    outln!("total nodes: {total}");
    outln!("time:        {secs:.3} s");
    outln!("nodes/s:     {:.0}", total as f64 / secs.max(1e-9));
    outln!(
        "hash hits:   {:.1}%",
        100.0 * hits as f64 / probes.max(1) as f64
    );
    Ok(())
}
