//! `morris verify`: check tablebase files.

use crate::tb::{TbDir, Variants};
use indicatif::{ProgressBar, ProgressStyle};
use morris_engine::Variant;
use morris_tablebase::sector::SectorId;
use morris_tablebase::verify::{verify_placement, verify_sector};
use morris_tablebase::{SectorFile, SectorIndex};
use std::collections::HashMap;
use std::time::Instant;

/// `n` things, with the plural for any `n` but one.
fn plural(n: u64, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

/// Check every tablebase file: header, size and checksum; with --full, every value.
#[derive(clap::Args)]
#[command(
    after_help = "With --full every stored value is recomputed from the values of its successors by\n\
the engine's move generator, a code path separate from the generator's propagation.\n\n\
A full check of every sector takes hours; --sector splits it into parts (run them one by one\n\
to resume an interrupted check). Each sector's time and rate is printed.\n\n\
Examples:\n  morris verify\n  morris verify --full --tb /data/tb\n  \
morris verify --full --variant no-flying --sector 8-9 --sector 9-8\n  \
morris verify --full --variant standard --sector 0-0+9-9"
)]
pub struct Args {
    #[command(flatten)]
    tb: TbDir,

    /// Recompute every value from its successors.
    #[arg(long)]
    full: bool,

    /// Which game(s).
    #[arg(long, value_enum, default_value_t = Variants::Both)]
    variant: Variants,

    /// With --full, recompute only these sectors' values, e.g. --sector 8-9 or
    /// --sector 6-5+1-1; only the files that check reads (the sector, its swapped sector
    /// and the sector its captures reach; for a placement sector, the sectors its
    /// placements reach) are checksummed.
    #[arg(long, value_name = "SECTOR", requires = "full")]
    sector: Vec<SectorId>,

    /// Compare every value of the compact files (.wdl, .dtm) with the raw files of
    /// this directory.
    #[arg(long, value_name = "RAW_DIR")]
    against: Option<std::path::PathBuf>,
}

/// The sectors whose files the full check of `sector` reads.
fn reads(sector: SectorId) -> Vec<SectorId> {
    match sector {
        SectorId::Movement(m) => [Some(m), Some(m.swapped()), m.after_capture()]
            .into_iter()
            .flatten()
            .map(SectorId::Movement)
            .collect(),
        SectorId::Placement(p) => std::iter::once(sector)
            .chain(p.successors().into_iter().map(SectorId::from))
            .collect(),
    }
}

/// Run the command; any bad file or mismatch is a failure (exit status 1).
///
/// # Errors
/// The number of bad files and mismatches.
pub fn run(args: &Args) -> anyhow::Result<()> {
    crate::tb::start_threads(None)?;
    let dir = args.tb.path();
    let mut bad = 0u64;
    let mut files = HashMap::new();
    let scanned = args.tb.scan()?;
    let (compact, compact_bad) =
        crate::pack::verify_compact(&dir, &args.variant.list(), args.against.as_deref())?;
    bad += compact_bad;
    if scanned.is_empty() && compact + compact_bad == 0 {
        anyhow::bail!("no tablebase files in {}", dir.display());
    }
    let variants = args.variant.list();
    // With --sector, only the files those sectors' check reads.
    let needed =
        |s: SectorId| args.sector.is_empty() || args.sector.iter().any(|&t| reads(t).contains(&s));
    for (variant, sector, file) in scanned {
        if !variants.contains(&variant) || !needed(sector) {
            continue;
        }
        match file.and_then(|f| f.check_payload().map(|()| f)) {
            Ok(f) => {
                outln!(
                    "{variant} {sector}: checksum ok ({} positions)",
                    f.header().entries
                );
                files.insert((variant, sector), f);
            }
            Err(e) => {
                outln!("{variant} {sector}: BAD: {e}");
                bad += 1;
            }
        }
    }
    if files.is_empty() && compact == 0 && bad == 0 && args.sector.is_empty() {
        anyhow::bail!(
            "no {} tablebase files in {}",
            args.variant.name(),
            dir.display()
        );
    }
    let (mut mismatches, mut verified) = (0u64, 0u64);
    if args.full {
        // Movement sectors first, then placement sectors.
        let mut keys: Vec<(Variant, SectorId)> = files
            .keys()
            .copied()
            .filter(|(_, s)| args.sector.is_empty() || args.sector.contains(s))
            .collect();
        keys.sort();
        for s in &args.sector {
            if !keys.iter().any(|k| k.1 == *s) {
                outln!("sector {s}: no good file to check");
                bad += 1;
            }
        }
        for (variant, sector) in keys {
            let (us, them) = sector.board();
            let size = SectorIndex::get(usize::from(us), usize::from(them)).size();
            let bar = ProgressBar::new(size).with_message(format!("{variant} {sector}"));
            bar.set_style(
                ProgressStyle::with_template(
                    "{msg:20} [{bar:30}] {human_pos}/{human_len} {per_sec} ETA {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            // Every file in `files` passed its checksum above.
            let entries = |s| {
                files
                    .get(&(variant, s))
                    .and_then(|f: &SectorFile| f.entries().ok())
            };
            let lookup = |s| entries(SectorId::Movement(s));
            let start = Instant::now();
            let result = match sector {
                SectorId::Movement(m) => verify_sector(variant, m, &lookup, &|n| bar.inc(n)),
                SectorId::Placement(p) => verify_placement(variant, p, &entries, &|n| bar.inc(n)),
            };
            match result {
                Ok(m) => {
                    bar.finish_and_clear();
                    verified += 1;
                    mismatches += m.count;
                    let secs = start.elapsed().as_secs_f64();
                    match m.example {
                        None => outln!(
                            "{variant} {sector}: all {size} values agree with their successors ({secs:.1} s, {:.2} M positions/s)",
                            size as f64 / secs.max(1e-9) / 1e6
                        ),
                        Some((i, stored, computed)) => outln!(
                            "{variant} {sector}: {} MISMATCHES, e.g. index {i}: stored {stored}, successors give {computed}",
                            m.count
                        ),
                    }
                }
                Err(e) => {
                    bar.finish_and_clear();
                    outln!("{variant} {sector}: cannot check values: {e}");
                    bad += 1;
                }
            }
        }
    }
    if bad > 0 || mismatches > 0 {
        anyhow::bail!("{bad} bad or uncheckable files, {mismatches} mismatched values");
    }
    if !args.full {
        outln!("all {} files ok", files.len() as u64 + compact);
    } else if args.sector.is_empty() {
        outln!("all {} files ok, every value verified", files.len());
    } else {
        outln!(
            "all {} files ok, every value of {} verified",
            files.len(),
            plural(verified, "sector")
        );
    }
    Ok(())
}
