//! `morris convert`: rewrite tablebase files of an older format version in the current
//! one, without solving anything again.

use crate::tb::{human_bytes, Variants};
use morris_builder::convert::Converted;
use morris_builder::driver;
use std::path::PathBuf;
use std::time::Instant;

/// Rewrite tablebase files written by older versions of morris in the current format.
#[derive(clap::Args)]
#[command(
    after_help = "Files of format version 1 (movement sectors, two bytes a position) and 2 (placement\n\
sectors, one checksum over the whole file) become version 3: one byte a position and a\n\
checksum for every block of 4096 positions, so a probe checks only the block it reads.\n\
Each old file is checked against its checksum and the counts of its header while it is\n\
read; a damaged one is reported and kept as it is. Each file is written to a temporary\n\
name and renamed over the old one: an interrupted run loses nothing, and running again\n\
resumes (files of the current version are left as they are). Needs free space for the\n\
largest file.\n\n\
Examples:\n  morris convert --tb /data/tb\n  morris convert --tb /data/tb --variant no-flying"
)]
pub struct Args {
    /// Tablebase directory [default: $MORRIS_TB_DIR, else ./tablebases].
    #[arg(long = "tb", value_name = "DIR")]
    dir: Option<PathBuf>,

    /// Which game(s).
    #[arg(long, value_enum, default_value_t = Variants::Both)]
    variant: Variants,
}

/// Run the command; a file that could not be converted is a failure (exit status 1).
///
/// # Errors
/// The directory cannot be read or locked, or some file was not converted.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let dir = args.dir.clone().unwrap_or_else(crate::tb::default_dir);
    let (mut converted, mut current, mut failed) = (0u64, 0u64, 0u64);
    let (mut before, mut after) = (0u64, 0u64);
    let start = Instant::now();
    driver::convert_dir(&dir, &args.variant.list(), &mut |path, result| {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        match result {
            Ok(Converted::Current) => current += 1,
            Ok(Converted::From { version, old_len }) => {
                converted += 1;
                let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
                (before, after) = (before + old_len, after + size);
                outln!(
                    "{name}: converted from version {version} ({})",
                    human_bytes(size)
                );
            }
            Err(e) => {
                failed += 1;
                outln!("{name}: NOT CONVERTED: {e}");
            }
        }
    })?;
    outln!(
        "{converted} converted ({} -> {}), {current} already current, {failed} failed, in {:.1} s",
        human_bytes(before),
        human_bytes(after),
        start.elapsed().as_secs_f64()
    );
    if failed > 0 {
        anyhow::bail!("{failed} file(s) not converted (see above)");
    }
    if converted + current == 0 {
        anyhow::bail!("no tablebase files in {}", dir.display());
    }
    Ok(())
}
