//! `morris perft`: count move sequences, to test and time move generation.

use crate::args::PositionArgs;
use std::time::Instant;

/// Count the move sequences of DEPTH plies (a capture is part of its move).
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  morris perft 5            # 5140800 from the start\n  morris perft 3 --divide --moves \"d6 d2\""
)]
pub struct Args {
    /// Plies to count (at least 1).
    #[arg(value_parser = clap::value_parser!(u32).range(1..))]
    depth: u32,

    /// Print the count below each first move.
    #[arg(long)]
    divide: bool,

    #[command(flatten)]
    position: PositionArgs,
}

/// Run the command.
///
/// # Errors
/// An input error for a bad position.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let game = args.position.game()?;
    let pos = game.position();
    let clock = Instant::now();
    // A game that has ended (threefold included) has no moves, as `moves` says; inside
    // the counted tree only the position's own end counts, as perft counts sequences
    // of moves from a position.
    let total = if game.end().is_some() {
        0
    } else if args.divide {
        let mut lines = morris_engine::perft_divide(pos, args.depth);
        lines.sort_by_key(|(m, _)| m.to_string());
        for (m, n) in &lines {
            outln!("{m}: {n}");
        }
        lines.iter().map(|(_, n)| n).sum()
    } else {
        morris_engine::perft(pos, args.depth)
    };
    let secs = clock.elapsed().as_secs_f64();
    outln!("perft {}: {total}", args.depth);
    eprintln!(
        "{total} leaves in {secs:.3} s ({:.1} M leaves/s)",
        total as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}
