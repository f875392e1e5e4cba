//! Arguments and helpers shared by the tablebase commands.

use crate::args::VariantArg;
use clap::{Args, ValueEnum};
use morris_engine::Variant;
use morris_tablebase::tablebase::Scanned;
use morris_tablebase::{FileError, Tablebase};
use std::path::PathBuf;

/// Where the tablebases live, and how to read them.
#[derive(Args, Debug, Clone)]
pub struct TbDir {
    /// Tablebase directory [default: $MORRIS_TB_DIR, else ./tablebases].
    #[arg(long = "tb", value_name = "DIR")]
    pub dir: Option<PathBuf>,

    /// Read each table into memory when first used instead of memory-mapping it:
    /// safe even if table files are rewritten in place while the command runs, but
    /// takes as much memory as the tables used.
    #[arg(long)]
    pub no_mmap: bool,
}

impl TbDir {
    /// The directory to use.
    pub fn path(&self) -> PathBuf {
        self.dir
            .clone()
            .unwrap_or_else(morris_tablebase::tablebase::default_dir)
    }

    /// Open the tablebase, mapped unless `--no-mmap`.
    ///
    /// # Errors
    /// The first bad file, named.
    pub fn open(&self) -> Result<Tablebase, FileError> {
        if self.no_mmap {
            Tablebase::open(&self.path())
        } else {
            // SAFETY: mapping needs the promise that nobody rewrites a table file in
            // place while this process runs. It is this program's documented condition
            // of use (README, docs/TABLEBASES.md "Using the files safely"): tables are
            // replaced by renaming a new file over the old one, which `morris generate`
            // itself always does; whoever cannot promise it passes --no-mmap.
            unsafe { Tablebase::open_mapped(&self.path()) }
        }
    }

    /// Try to open every table file, keeping each result (see [`TbDir::open`]).
    ///
    /// # Errors
    /// The directory cannot be read.
    pub fn scan(&self) -> Result<Vec<Scanned>, FileError> {
        if self.no_mmap {
            Tablebase::scan(&self.path())
        } else {
            // SAFETY: as in `TbDir::open`.
            unsafe { Tablebase::scan_mapped(&self.path()) }
        }
    }
}

/// The most worker threads a command starts: far more than any machine has cores,
/// and few enough that a mistyped number fails at once instead of spawning threads
/// for minutes.
pub const MAX_THREADS: i64 = 1024;

/// Start the pool of worker threads (`threads`, or one per core), so that a thread
/// that cannot be created is an error here rather than a panic in the middle of the
/// work.
///
/// # Errors
/// The system refused a thread.
pub fn start_threads(threads: Option<u16>) -> anyhow::Result<()> {
    let n = threads.map_or(0, usize::from);
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global()
        .map_err(|e| {
            anyhow::anyhow!(
                "cannot start {} worker threads: {e}",
                if n == 0 {
                    "the".to_string()
                } else {
                    n.to_string()
                }
            )
        })
}

/// One variant or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Variants {
    /// The Standard game only.
    Standard,
    /// The No-flying game only.
    NoFlying,
    /// Both games.
    Both,
}

impl Variants {
    /// The name for people ("Standard", "No-flying" or "Standard or No-flying").
    pub fn name(self) -> &'static str {
        match self {
            Variants::Standard => "Standard",
            Variants::NoFlying => "No-flying",
            Variants::Both => "Standard or No-flying",
        }
    }

    /// The variants named.
    pub fn list(self) -> Vec<Variant> {
        match self {
            Variants::Standard => vec![Variant::Standard],
            Variants::NoFlying => vec![Variant::NoFlying],
            Variants::Both => Variant::ALL.to_vec(),
        }
    }
}

impl From<VariantArg> for Variants {
    fn from(v: VariantArg) -> Variants {
        match v {
            VariantArg::Standard => Variants::Standard,
            VariantArg::NoFlying => Variants::NoFlying,
        }
    }
}

/// Bytes as MiB or GiB, for people.
pub fn human_bytes(b: u64) -> String {
    if b >= 1 << 30 {
        format!("{:.2} GiB", b as f64 / f64::from(1u32 << 30))
    } else {
        format!("{:.0} MiB", b as f64 / f64::from(1u32 << 20))
    }
}

/// `n` plies, in words: "1 ply", "25 plies".
pub fn plies(n: impl Into<u64>) -> String {
    match n.into() {
        1 => "1 ply".to_string(),
        n => format!("{n} plies"),
    }
}
