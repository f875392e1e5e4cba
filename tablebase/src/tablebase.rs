//! A directory of sector files, opened for probing.
//!
//! `Tablebase::open` lists the directory, ignores names that are not sector files
//! (temporary files included), and opens every sector file in layers (see
//! [`crate::file`]). A bad file is an error naming it: a tablebase is never trusted
//! in part.

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
    /// The first file a probe found a value in that its header rules out.
    damaged: std::sync::Mutex<Option<PathBuf>>,
}

impl Tablebase {
    /// Open every sector file in `dir`. A missing directory is an empty tablebase.
    ///
    /// # Errors
    /// The first [`FileError`] met, naming the file.
    pub fn open(dir: &Path) -> Result<Tablebase, FileError> {
        let mut tb = Tablebase::default();
        for (variant, sector, file) in Tablebase::scan(dir)? {
            tb.files.insert((variant, sector), file?);
        }
        Ok(tb)
    }

    /// Try to open every sector file in `dir`, in name order, keeping each result.
    /// A missing directory holds no files.
    ///
    /// # Errors
    /// A [`FileError`] when the directory cannot be read.
    #[allow(clippy::type_complexity)]
    pub fn scan(
        dir: &Path,
    ) -> Result<Vec<(Variant, Sector, Result<SectorFile, FileError>)>, FileError> {
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
        let mut names: Vec<(Variant, Sector, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_string();
                let (variant, sector) = parse_file_name(&name)?;
                Some((variant, sector, e.path()))
            })
            .collect();
        names.sort();
        Ok(names
            .into_iter()
            .map(|(v, s, path)| (v, s, SectorFile::open(&path, v, s)))
            .collect())
    }

    /// A file whose payload a probe found damaged (a value outside the range its
    /// checked header records), if any. Such values are never returned.
    ///
    /// # Errors
    /// The [`FileError`] naming the damaged file.
    pub fn damage(&self) -> Result<(), FileError> {
        match self.damaged.lock().ok().and_then(|d| d.clone()) {
            None => Ok(()),
            Some(path) => Err(FileError {
                path,
                problem: crate::file::Problem::Checksum,
            }),
        }
    }

    /// The sectors present, by variant.
    pub fn sectors(&self) -> impl Iterator<Item = (Variant, Sector, &SectorFile)> {
        self.files.iter().map(|(&(v, s), f)| (v, s, f))
    }

    /// The file of a sector, if present.
    pub fn file(&self, variant: Variant, sector: Sector) -> Option<&SectorFile> {
        self.files.get(&(variant, sector))
    }

    /// The stored values of a sector, if present.
    pub fn values(&self, variant: Variant, sector: Sector) -> Option<&[u16]> {
        self.file(variant, sector).map(SectorFile::values)
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
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        let sector = Tablebase::sector_of(pos)?;
        let file = self.file(pos.variant(), sector)?;
        let i = file.index().index(pos.us(), pos.them());
        let v = Value(*file.values().get(i as usize)?);
        if file.plausible(v) {
            Some(v)
        } else {
            // A damaged payload: never use the value, and remember the file so the
            // caller can report it (`Tablebase::damage`).
            if let Ok(mut d) = self.damaged.lock() {
                d.get_or_insert_with(|| file.path().to_path_buf());
            }
            None
        }
    }
}
