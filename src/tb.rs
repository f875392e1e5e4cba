//! Arguments and helpers shared by the tablebase commands, and the environment they
//! read: `MORRIS_TB_DIR` (the directory) and `MORRIS_TB_CACHE_MB` (the cache of
//! compact blocks), read here and passed down, never by the libraries. Here too the
//! program makes the promise that lets the tables be mapped ([`Mapper::new`]).

use crate::args::InputError;
use crate::args::VariantArg;
use clap::{ArgMatches, Args, FromArgMatches, ValueEnum};
use morris_engine::{Board, Rules};
use morris_tablebase::compact::DEFAULT_CACHE_MB;
use morris_tablebase::sector::MAX_PIECES as MAX_TABLE_PIECES;
use morris_tablebase::tablebase::{Scanned, ScannedCompact, DEFAULT_DIR};
use morris_tablebase::{FileError, Mapper, OpenOptions, Tablebase};
use std::ffi::OsString;
use std::path::PathBuf;

/// Environment variable naming the tablebase directory used when `--tb` is not given.
pub const DIR_ENV: &str = "MORRIS_TB_DIR";

/// Environment variable setting the size of the cache of decompressed compact blocks,
/// in MiB.
pub const CACHE_ENV: &str = "MORRIS_TB_CACHE_MB";

/// The sizes [`CACHE_ENV`] may set, in MiB: from one MiB to one TiB.
pub const CACHE_MB: std::ops::RangeInclusive<usize> = 1..=1 << 20;

/// The tablebase directory when `--tb` is not given: `$MORRIS_TB_DIR`, or
/// `./tablebases`.
pub fn default_dir() -> PathBuf {
    std::env::var_os(DIR_ENV).map_or_else(|| PathBuf::from(DEFAULT_DIR), PathBuf::from)
}

/// The cache size in bytes that a value of [`CACHE_ENV`] sets (`None`: not set).
///
/// # Errors
/// A message naming the variable and its value, when the value is not a whole number
/// of MiB in [`CACHE_MB`].
pub fn cache_bytes(value: Option<OsString>) -> Result<usize, String> {
    let Some(value) = value else {
        return Ok(DEFAULT_CACHE_MB << 20);
    };
    value
        .to_str()
        .and_then(|s| s.parse::<usize>().ok())
        .filter(|mb| CACHE_MB.contains(mb))
        .and_then(|mb| mb.checked_mul(1 << 20))
        .ok_or_else(|| {
            format!(
                "{CACHE_ENV}={value:?}: the cache size must be a whole number of MiB from {} to {}",
                CACHE_MB.start(),
                CACHE_MB.end()
            )
        })
}

/// Where `generate` writes its tablebase files: `--tb` alone. The generator reads the
/// sectors it builds on into memory, never through a mapping, so `--no-mmap` is no
/// choice it has (and is refused as an unknown argument, not taken and ignored).
#[derive(Args, Debug, Clone)]
pub struct TbOut {
    /// Tablebase directory [default: $MORRIS_TB_DIR, else ./tablebases].
    #[arg(long = "tb", value_name = "DIR")]
    dir: Option<PathBuf>,
}

impl TbOut {
    /// The directory to use.
    pub fn path(&self) -> PathBuf {
        self.dir.clone().unwrap_or_else(default_dir)
    }

    /// Open the tables written there, mapped, to read what later steps build on
    /// (the draw classes read the values).
    ///
    /// # Errors
    /// The first bad file, named.
    pub fn open(&self) -> Result<Tablebase, FileError> {
        let cache_bytes = cache_bytes(std::env::var_os(CACHE_ENV)).map_err(|m| {
            FileError::new(
                &self.path(),
                std::io::Error::new(std::io::ErrorKind::InvalidInput, m),
            )
        })?;
        let options = OpenOptions {
            cache_bytes,
            mapper: Some(mapper()),
        };
        Tablebase::open(&self.path(), options)
    }
}

/// The mapper of the program's table files.
fn mapper() -> Mapper {
    // SAFETY: mapping needs the promise that nobody rewrites a table file in place
    // while this process runs. It is this program's documented condition of use
    // (README, docs/TABLEBASES.md "Using the files safely"): tables are replaced by
    // renaming a new file over the old one, which `morris generate` itself always
    // does; whoever cannot promise it passes --no-mmap.
    #[allow(unsafe_code)]
    unsafe {
        Mapper::new()
    }
}

/// Where the tablebases live, and how to read them.
#[derive(Args, Debug, Clone)]
struct TbDirArgs {
    /// Tablebase directory [default: $MORRIS_TB_DIR, else ./tablebases]. Decompressed
    /// blocks of compact files are cached in $MORRIS_TB_CACHE_MB MiB [default: 512].
    #[arg(long = "tb", value_name = "DIR")]
    dir: Option<PathBuf>,

    /// Read each table into memory when first used instead of memory-mapping it:
    /// safe even if table files are rewritten in place while the command runs, but
    /// takes as much memory as the tables used.
    #[arg(long)]
    no_mmap: bool,
}

/// Where the tablebases live, and how to read them: the arguments `--tb` and
/// `--no-mmap`, and the cache size of [`CACHE_ENV`], checked when the arguments are
/// (a bad value is bad input, like a bad argument).
#[derive(Debug, Clone)]
pub struct TbDir {
    /// The directory given by `--tb`.
    pub dir: Option<PathBuf>,
    /// How the tablebase is opened: the cache size, and a mapper unless `--no-mmap`.
    options: OpenOptions,
}

impl FromArgMatches for TbDir {
    fn from_arg_matches(matches: &ArgMatches) -> Result<TbDir, clap::Error> {
        let args = TbDirArgs::from_arg_matches(matches)?;
        let cache_bytes = cache_bytes(std::env::var_os(CACHE_ENV))
            .map_err(|message| clap::Error::raw(clap::error::ErrorKind::InvalidValue, message))?;
        let mapper = (!args.no_mmap).then(mapper);
        Ok(TbDir {
            dir: args.dir,
            options: OpenOptions {
                cache_bytes,
                mapper,
            },
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = TbDir::from_arg_matches(matches)?;
        Ok(())
    }
}

impl Args for TbDir {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        TbDirArgs::augment_args(cmd)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        TbDirArgs::augment_args_for_update(cmd)
    }
}

impl TbDir {
    /// The directory to use.
    pub fn path(&self) -> PathBuf {
        self.dir.clone().unwrap_or_else(default_dir)
    }

    /// The same reading options over another directory (an engine's
    /// `PerfectDatabasePath`).
    pub fn with_dir(&self, dir: PathBuf) -> TbDir {
        TbDir {
            dir: Some(dir),
            options: self.options,
        }
    }

    /// Open the tablebase, mapped unless `--no-mmap`.
    ///
    /// # Errors
    /// The first bad file, named.
    pub fn open(&self) -> Result<Tablebase, FileError> {
        Tablebase::open(&self.path(), self.options)
    }

    /// Try to open every raw table file, keeping each result (see [`TbDir::open`]).
    ///
    /// # Errors
    /// The directory cannot be read.
    pub fn scan(&self) -> Result<Vec<Scanned>, FileError> {
        Tablebase::scan(&self.path(), self.options)
    }

    /// Try to open every compact table file, keeping each result (see
    /// [`TbDir::open`]).
    ///
    /// # Errors
    /// The directory cannot be read.
    pub fn scan_compact(&self) -> Result<Vec<ScannedCompact>, FileError> {
        Tablebase::scan_compact(&self.path(), self.options)
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

    /// The table games named.
    pub fn list(self) -> Vec<Rules> {
        match self {
            Variants::Standard => vec![Rules::STANDARD],
            Variants::NoFlying => vec![Rules::NO_FLYING],
            Variants::Both => vec![Rules::STANDARD, Rules::NO_FLYING],
        }
    }

    /// The table games of `--rules SPEC` if given (the table game of the spec), else
    /// of `--variant`.
    ///
    /// # Errors
    /// [`InputError`] for a bad spec.
    pub fn with_rules(self, rules: Option<&str>) -> Result<Vec<Rules>, InputError> {
        let Some(spec) = rules else {
            return Ok(self.list());
        };
        let rules = Rules::parse(spec).map_err(|e| InputError(e.to_string()))?;
        Ok(vec![rules.tables()])
    }
}

/// The most pieces a side the tables of a board hold: nine, or on the six board eight
/// (both sides' pieces must fit on its 16 points).
pub fn table_pieces(board: Board) -> u8 {
    let fit = board.geometry().point_count() / 2;
    MAX_TABLE_PIECES.min(fit as u8)
}

/// The pieces a side of the game `generate` builds: `--max-pieces` if given, else the
/// rules' own (nine for `--variant`), which must fit the tables.
///
/// # Errors
/// [`InputError`] when the rules have more pieces than the tables hold and no
/// `--max-pieces` says which smaller game to build.
pub fn game_pieces(rules: Option<&str>, max_pieces: Option<u8>) -> Result<u8, InputError> {
    let Some(spec) = rules else {
        return Ok(max_pieces.unwrap_or(MAX_TABLE_PIECES));
    };
    let rules = Rules::parse(spec).map_err(|e| InputError(e.to_string()))?;
    let most = table_pieces(rules.board());
    match max_pieces {
        Some(n) if n > most => Err(InputError(format!(
            "--max-pieces {n}: the {} board's tablebases hold at most {most} pieces a side (both sides must fit on its {} points)",
            rules.board(),
            rules.board().geometry().point_count()
        ))),
        Some(n) => Ok(n),
        None if rules.pieces() > most => Err(InputError(format!(
            "rules {rules}: the game has {} pieces a side and tablebases of the {} board hold at most {most}: give --max-pieces N (3 to {most}) for the game of N",
            rules.pieces(),
            rules.board()
        ))),
        None => Ok(rules.pieces()),
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

/// The games of `--variant` or `--rules`, for people.
pub fn games_name(variant: Variants, rules: Option<&str>) -> String {
    match rules {
        Some(spec) => format!("rules {spec}"),
        None => variant.name().to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_size_is_a_whole_number_of_mib_in_range() {
        assert_eq!(cache_bytes(None), Ok(DEFAULT_CACHE_MB << 20));
        assert_eq!(cache_bytes(Some("1".into())), Ok(1 << 20));
        assert_eq!(cache_bytes(Some("1048576".into())), Ok(1 << 40));
        for bad in ["0", "1048577", "", "x", "-3", "2.0", "18446744073709551616"] {
            let e = cache_bytes(Some(bad.into())).expect_err(bad);
            assert!(e.starts_with(&format!("{CACHE_ENV}={bad:?}: ")), "{e}");
        }
    }

    /// The help states the default the library uses.
    #[test]
    fn the_help_names_the_default_cache_size() {
        let help = TbDir::augment_args(clap::Command::new("t"))
            .render_long_help()
            .to_string();
        assert!(
            help.contains(&format!(
                "$MORRIS_TB_CACHE_MB MiB [default: {DEFAULT_CACHE_MB}]"
            )),
            "{help}"
        );
    }
}
