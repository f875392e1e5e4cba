//! `morris pack`: the compact form of a tablebase set, for download.

use crate::tb::{games_name, human_bytes, TbDir, Variants};
use anyhow::Context as _;
use morris_builder::pack::{
    default_level, estimate_sector, overhead, pack_as, packed_from, Distances,
};
use morris_tablebase::compact::{compact_name, Kind};
use morris_tablebase::sector::SectorId;
use std::path::PathBuf;
use std::time::Instant;

/// Which compact files to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Kinds {
    /// Win/draw/loss files only (`.wdl`).
    Wdl,
    /// DTM files only (`.dtm`).
    Dtm,
    /// Both.
    Both,
}

impl Kinds {
    fn list(self) -> Vec<Kind> {
        match self {
            Kinds::Wdl => vec![Kind::Wdl],
            Kinds::Dtm => vec![Kind::Dtm],
            Kinds::Both => Kind::ALL.to_vec(),
        }
    }
}

/// Which sectors keep their distances (`.dtm` files) in a compact set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DistancesArg {
    /// All but those whose distances a probe finds by a one-ply search over their
    /// successors: the side to move with fewer pieces of each unequal movement pair,
    /// and placement with White to move (about half the bytes).
    OneSide,
    /// As one-side, and those sectors' .wdl files hold no values either (the header
    /// alone): a probe finds their whole value by the one-ply search (the smallest
    /// set).
    Sparse,
    /// Every sector.
    All,
}

impl From<DistancesArg> for Distances {
    fn from(d: DistancesArg) -> Distances {
        match d {
            DistancesArg::OneSide => Distances::OneSide,
            DistancesArg::Sparse => Distances::Sparse,
            DistancesArg::All => Distances::All,
        }
    }
}

/// Make compact tables (.wdl and .dtm files) from a generated set.
#[derive(clap::Args)]
#[command(
    after_help = "Each raw sector file (NAME.tb) of --tb gives NAME.wdl (win, draw or loss: all that a\n\
position's value and the moves keeping it need) and NAME.dtm (the full value with its distance),\n\
both in independently compressed blocks with a checksum each. Every command reads them through\n\
--tb, alone or mixed with raw files; a sector with only its .wdl file answers values without\n\
distances. Packing resumes: a file already in --out is kept when it was packed from the same\n\
raw file and every block of it checks; a damaged one, or one packed from another raw file or by\n\
an older morris, is packed again (each is written under a temporary name and renamed when\n\
complete).\n\n\
By default the set is one-sided (--distances one-side): the sectors whose distances follow from\n\
their successors' by a one-ply search get no .dtm file (in each unequal movement pair the side to\n\
move with fewer pieces, and the placement sectors with White to move), and a probe there plays\n\
each move and reads the distances of the positions it reaches. --distances all writes them too;\n\
--distances sparse also leaves those sectors' values to the one-ply search (their .wdl files hold\n\
their header alone: about 40% fewer .wdl bytes).\n\n\
With --estimate N nothing is written: every N-th block is compressed and the sizes of the whole\n\
files are extrapolated from them.\n\n\
Examples:\n  morris pack --tb tablebases --out compact\n  \
morris pack --tb /data/tb --out /data/tb-wdl --kind wdl\n  morris pack --tb /data/tb --estimate 100"
)]
pub struct Args {
    #[command(flatten)]
    tb: TbDir,

    /// Directory of the compact files (created if absent; may be --tb itself).
    #[arg(long, value_name = "DIR", required_unless_present = "estimate")]
    out: Option<PathBuf>,

    /// Which files to make.
    #[arg(long, value_enum, default_value_t = Kinds::Both)]
    kind: Kinds,

    /// Which sectors keep a .dtm file.
    #[arg(long, value_enum, default_value_t = DistancesArg::OneSide)]
    distances: DistancesArg,

    /// Which game(s).
    #[arg(long, value_enum, default_value_t = Variants::Both)]
    variant: Variants,

    /// The tables of house rules instead of --variant, e.g. "standard,captures=per-mill".
    #[arg(long, value_name = "SPEC", conflicts_with = "variant")]
    rules: Option<String>,

    /// zstd compression level, 1 (fast) to 22 (smallest) [default: 7; level 12 packs
    /// .dtm files 3% to 8% smaller and .wdl files 2% to 3% smaller in about three
    /// times the time; level 13 is within 1% of level 16's .wdl size and 0.5% of level
    /// 19's .dtm size].
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..=22))]
    level: Option<i32>,

    /// Write nothing; estimate the sizes from every N-th block.
    #[arg(long, value_name = "N", conflicts_with = "out", value_parser = clap::value_parser!(u32).range(1..))]
    estimate: Option<u32>,

    /// Worker threads [default: one per core].
    #[arg(long)]
    threads: Option<u16>,
}

/// Run the command.
///
/// # Errors
/// A bad raw file or a failure to write, named.
pub fn run(args: &Args) -> anyhow::Result<()> {
    crate::tb::start_threads(args.threads)?;
    let dir = args.tb.path();
    let tb = args.tb.open()?;
    let variants = args
        .variant
        .with_rules(args.rules.as_deref())
        .map_err(|e| anyhow::anyhow!(e))?;
    let raw: Vec<_> = tb
        .sectors()
        .map(|(v, s, f)| (v, SectorId::from(s), f))
        .chain(
            tb.placement_sectors()
                .map(|(v, s, f)| (v, SectorId::from(s), f)),
        )
        .filter(|(v, _, _)| variants.contains(v))
        .collect();
    if raw.is_empty() {
        anyhow::bail!(
            "no raw tablebase files of {} in {}",
            games_name(args.variant, args.rules.as_deref()),
            dir.display()
        );
    }
    let kinds = args.kind.list();
    let distances = Distances::from(args.distances);
    if let Some(every) = args.estimate {
        return estimate(&raw, &kinds, distances, args.level, every as usize);
    }
    let out = args.out.clone().unwrap_or_default();
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    outln!(
        "{:<10} {:>12} {:>4} {:>12} {:>10} {:>8}",
        "variant",
        "sector",
        "kind",
        "bytes",
        "bits/pos",
        "seconds"
    );
    let started = Instant::now();
    let (mut raw_bytes, mut written, mut kept, mut derived) = (0u64, [0u64; 2], 0u32, 0u32);
    for (variant, sector, file) in raw {
        raw_bytes += file.header().file_len();
        for (k, &kind) in kinds.iter().enumerate() {
            if !distances.keeps_kind(variant, sector, kind) {
                derived += 1;
                continue;
            }
            let path = out.join(compact_name(variant, sector, kind));
            match packed_from(&path, (variant, sector, kind), file, distances) {
                Ok(Some(header)) => {
                    written[k] += header.file_len();
                    kept += 1;
                    continue;
                }
                Ok(None) => {}
                Err(why) => outln!(
                    "{variant} {sector} {}: {why}; packing it again",
                    kind.extension()
                ),
            }
            let t = Instant::now();
            let level = args.level.unwrap_or(default_level(kind));
            let packed = pack_as(file, &out, kind, level, distances)?;
            written[k] += packed.bytes;
            outln!(
                "{:<10} {:>12} {:>4} {:>12} {:>10.3} {:>8.1}",
                variant.table_name(),
                sector.to_string(),
                kind.extension(),
                packed.bytes,
                packed.bits_per_position(),
                t.elapsed().as_secs_f64()
            );
        }
    }
    if derived > 0 {
        let what = if distances == Distances::Sparse {
            "no .dtm file and a .wdl file without values: a probe finds their values"
        } else {
            "no .dtm file: a probe finds their distances"
        };
        outln!(
            "{derived} sectors get {what} from their successors' (--distances all writes them){}",
            if kinds.contains(&Kind::Wdl) {
                ""
            } else {
                "; their .wdl files (--kind wdl) must be there to answer them"
            }
        );
    }
    if kept > 0 {
        outln!("{kept} files already in {} were kept", out.display());
    }
    for (k, kind) in kinds.iter().enumerate() {
        outln!(
            "{} files: {} ({:.1}% of the raw {})",
            kind.extension(),
            human_bytes(written[k]),
            100.0 * written[k] as f64 / raw_bytes.max(1) as f64,
            human_bytes(raw_bytes)
        );
    }
    outln!("packed in {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// Print the estimated sizes.
fn estimate(
    raw: &[(
        morris_engine::Rules,
        SectorId,
        &morris_tablebase::SectorFile,
    )],
    kinds: &[Kind],
    distances: Distances,
    level: Option<i32>,
    every: usize,
) -> anyhow::Result<()> {
    outln!(
        "{:<10} {:>12} {:>4} {:>14} {:>14} {:>10}",
        "variant",
        "sector",
        "kind",
        "positions",
        "est. bytes",
        "bits/pos"
    );
    let mut totals = vec![(0u64, 0u64); kinds.len()];
    for (variant, sector, file) in raw {
        let entries = file.header().entries;
        for (k, &kind) in kinds.iter().enumerate() {
            let values = kind == Kind::Dtm || distances.keeps_values(*variant, *sector);
            if !distances.keeps_kind(*variant, *sector, kind) || !values {
                // Positions of the set, answered from their successors' values.
                totals[k].0 += entries;
                continue;
            }
            let (sampled, bytes) =
                estimate_sector(file, kind, level.unwrap_or(default_level(kind)), every)?;
            let bits = bytes as f64 * 8.0 / sampled.max(1) as f64;
            let est = (bits * entries as f64 / 8.0) as u64 + overhead(kind, *sector, entries);
            totals[k].0 += entries;
            totals[k].1 += est;
            outln!(
                "{:<10} {:>12} {:>4} {entries:>14} {est:>14} {:>10.3}",
                variant.table_name(),
                sector.to_string(),
                kind.extension(),
                est as f64 * 8.0 / entries.max(1) as f64
            );
        }
    }
    for (k, kind) in kinds.iter().enumerate() {
        let (entries, bytes) = totals[k];
        outln!(
            "{} files (estimated from every {every}th block): {} for {entries} positions, {:.3} bits a position of the set",
            kind.extension(),
            human_bytes(bytes),
            bytes as f64 * 8.0 / entries.max(1) as f64
        );
    }
    Ok(())
}
