//! A directory of sector files, opened for probing.
//!
//! `Tablebase::open` lists the directory, ignores names that are not sector files
//! (temporary files included), and opens every sector file in layers (see
//! [`crate::file`]). A bad file is an error naming it: a tablebase is never trusted
//! in part. A file's payload is checked against its checksum the first time a probe
//! reads it, so a damaged payload is an error on the spot, never a value.
//!
//! Two ways to hold the values: [`Tablebase::open`] reads each file into memory on
//! first use (safe whatever happens to the files later; memory as large as the files
//! used), [`Tablebase::open_mapped`] maps them (no copy; the caller promises that
//! nobody rewrites a file in place meanwhile).

use crate::file::{parse_file_name, FileError, SectorFile};
use crate::sector::{Sector, Value};
use morris_engine::{Position, Variant};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Environment variable naming the default tablebase directory.
pub const DIR_ENV: &str = "MORRIS_TB_DIR";
/// The default tablebase directory when [`DIR_ENV`] is not set.
pub const DEFAULT_DIR: &str = "tablebases";

/// The tablebase directory: `$MORRIS_TB_DIR`, or `./tablebases`.
pub fn default_dir() -> PathBuf {
    std::env::var_os(DIR_ENV).map_or_else(|| PathBuf::from(DEFAULT_DIR), PathBuf::from)
}

/// The sector files of a directory.
#[derive(Debug, Default)]
pub struct Tablebase {
    files: BTreeMap<(Variant, Sector), SectorFile>,
}

/// One scanned file: its variant, its sector, and the file or why it cannot be used.
pub type Scanned = (Variant, Sector, Result<SectorFile, FileError>);

impl Tablebase {
    /// Open every sector file in `dir`, reading each file's values into memory when
    /// first used (see [`SectorFile::open`]). A missing directory is an empty
    /// tablebase.
    ///
    /// # Errors
    /// The first [`FileError`] met, naming the file.
    pub fn open(dir: &Path) -> Result<Tablebase, FileError> {
        Tablebase::collect(Tablebase::scan(dir)?)
    }

    /// Open every sector file in `dir` like [`Tablebase::open`], but memory-mapped:
    /// no copy, and only the pages used are loaded.
    ///
    /// # Safety
    /// Nobody may modify or truncate a file of `dir` while the tablebase lives;
    /// replacing one by renaming another over it is fine (see
    /// [`SectorFile::open_mapped`]).
    ///
    /// # Errors
    /// The first [`FileError`] met, naming the file.
    // Only passes the mapping contract of `crate::mmap` on to the caller.
    #[allow(unsafe_code)]
    pub unsafe fn open_mapped(dir: &Path) -> Result<Tablebase, FileError> {
        // SAFETY: the caller's promise, passed on.
        Tablebase::collect(unsafe { Tablebase::scan_mapped(dir) }?)
    }

    fn collect(scanned: Vec<Scanned>) -> Result<Tablebase, FileError> {
        let mut tb = Tablebase::default();
        for (variant, sector, file) in scanned {
            tb.files.insert((variant, sector), file?);
        }
        Ok(tb)
    }

    /// Try to open every sector file in `dir` (values read into memory on first use),
    /// in name order, keeping each result. A missing directory holds no files.
    ///
    /// # Errors
    /// A [`FileError`] when the directory cannot be read.
    pub fn scan(dir: &Path) -> Result<Vec<Scanned>, FileError> {
        Tablebase::scan_with(dir, SectorFile::open)
    }

    /// [`Tablebase::scan`] with every file memory-mapped.
    ///
    /// # Safety
    /// As for [`Tablebase::open_mapped`].
    ///
    /// # Errors
    /// A [`FileError`] when the directory cannot be read.
    // Only passes the mapping contract of `crate::mmap` on to the caller.
    #[allow(unsafe_code)]
    pub unsafe fn scan_mapped(dir: &Path) -> Result<Vec<Scanned>, FileError> {
        Tablebase::scan_with(dir, |path, v, s| {
            // SAFETY: the caller's promise, passed on.
            unsafe { SectorFile::open_mapped(path, v, s) }
        })
    }

    fn scan_with(
        dir: &Path,
        open: impl Fn(&Path, Variant, Sector) -> Result<SectorFile, FileError>,
    ) -> Result<Vec<Scanned>, FileError> {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => {
                return Err(FileError {
                    path: dir.to_path_buf(),
                    problem: e.into(),
                })
            }
        };
        let mut names: Vec<(Variant, Sector, PathBuf)> = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| FileError {
                path: dir.to_path_buf(),
                problem: e.into(),
            })?;
            if let Some((variant, sector)) = entry.file_name().to_str().and_then(parse_file_name) {
                names.push((variant, sector, entry.path()));
            }
        }
        names.sort();
        Ok(names
            .into_iter()
            .map(|(v, s, path)| (v, s, open(&path, v, s)))
            .collect())
    }

    /// The sectors present, by variant.
    pub fn sectors(&self) -> impl Iterator<Item = (Variant, Sector, &SectorFile)> {
        self.files.iter().map(|(&(v, s), f)| (v, s, f))
    }

    /// The file of a sector, if present.
    pub fn file(&self, variant: Variant, sector: Sector) -> Option<&SectorFile> {
        self.files.get(&(variant, sector))
    }

    /// The sector a position belongs to, if it is a movement-phase position with at
    /// least three pieces a side.
    pub fn sector_of(pos: &Position) -> Option<Sector> {
        if pos.pieces_in_hand() {
            return None;
        }
        Sector::new(pos.us().count() as u8, pos.them().count() as u8)
    }

    /// The value of a position for the side to move, or `None` when no loaded sector
    /// covers it (pieces in hand, fewer than three pieces, or sector missing).
    ///
    /// The board is looked up as it stands: whether the game is already over (a
    /// repetition, a blocked side) is the caller's question.
    ///
    /// # Errors
    /// A [`FileError`] naming the file when the sector's file is damaged (its
    /// payload checksum fails on first use, or the value read contradicts its
    /// header): a damaged file never answers.
    pub fn probe(&self, pos: &Position) -> Result<Option<Value>, FileError> {
        let Some(sector) = Tablebase::sector_of(pos) else {
            return Ok(None);
        };
        let Some(file) = self.file(pos.variant(), sector) else {
            return Ok(None);
        };
        file.value(file.index().index(pos.us(), pos.them()))
            .map(Some)
    }
}
