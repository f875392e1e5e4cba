//! `morris verify`: check tablebase files.

use crate::tb::TbDir;
use indicatif::{ProgressBar, ProgressStyle};
use morris_tablebase::verify::verify_sector;
use morris_tablebase::{SectorFile, SectorIndex, Tablebase};
use std::collections::HashMap;

/// Check every tablebase file: header, size and checksum; with --full, every value.
#[derive(clap::Args)]
#[command(
    after_help = "With --full every stored value is recomputed from the values of its successors by\n\
the engine's move generator, a code path separate from the generator's propagation.\n\n\
Examples:\n  morris verify\n  morris verify --full --tb /data/tb"
)]
pub struct Args {
    #[command(flatten)]
    tb: TbDir,

    /// Recompute every value from its successors.
    #[arg(long)]
    full: bool,
}

/// Run the command; any bad file or mismatch is a failure (exit status 1).
///
/// # Errors
/// The number of bad files and mismatches.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let dir = args.tb.path();
    let mut bad = 0u64;
    let mut files = HashMap::new();
    let scanned = Tablebase::scan(&dir)?;
    if scanned.is_empty() {
        anyhow::bail!("no tablebase files in {}", dir.display());
    }
    for (variant, sector, file) in scanned {
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
    let mut mismatches = 0u64;
    if args.full {
        let mut keys: Vec<_> = files.keys().copied().collect();
        keys.sort();
        for (variant, sector) in keys {
            let size = SectorIndex::get(sector.us as usize, sector.them as usize).size();
            let bar = ProgressBar::new(size).with_message(format!("{variant} {sector}"));
            bar.set_style(
                ProgressStyle::with_template(
                    "{msg:20} [{bar:30}] {human_pos}/{human_len} {per_sec} ETA {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            let lookup = |s| files.get(&(variant, s)).map(SectorFile::values);
            match verify_sector(variant, sector, &lookup, &|n| bar.inc(n)) {
                Ok(m) => {
                    bar.finish_and_clear();
                    mismatches += m.count;
                    match m.example {
                        None => outln!("{variant} {sector}: all {size} values agree with their successors"),
                        Some((i, stored, computed)) => outln!(
                            "{variant} {sector}: {} MISMATCHES, e.g. index {i}: stored {stored}, successors give {computed}",
                            m.count
                        ),
                    }
                }
                Err(missing) => {
                    bar.finish_and_clear();
                    outln!("{variant} {sector}: cannot check values: sector {missing} is missing or bad");
                    bad += 1;
                }
            }
        }
    }
    if bad > 0 || mismatches > 0 {
        anyhow::bail!("{bad} bad or uncheckable files, {mismatches} mismatched values");
    }
    outln!(
        "all {} files ok{}",
        files.len(),
        if args.full {
            ", every value verified"
        } else {
            ""
        }
    );
    Ok(())
}
