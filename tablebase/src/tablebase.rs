//! A directory of sector files, opened for probing.
//!
//! `Tablebase::open` lists the directory, ignores names that are not sector files
//! (temporary files included), and opens every sector file, movement or placement,
//! keyed by [`SectorId`], in layers (see
//! [`crate::file`]). A bad file is an error naming it: a tablebase is never trusted
//! in part. A file's payload is checked against its checksum the first time a probe
//! reads it, so a damaged payload is an error on the spot, never a value.
//!
//! Compact files (`.wdl`, `.dtm`, see [`crate::compact`]) are opened alongside, and
//! answer for the sectors that have no raw file: a set may mix both forms, sector by
//! sector, and callers of [`Tablebase::probe`] never know which answered. Their
//! decompressed blocks share one bounded [`BlockCache`].
//!
//! Two ways to hold the values: [`Tablebase::open`] reads each file into memory on
//! first use (safe whatever happens to the files later; memory as large as the files
//! used), [`Tablebase::open_mapped`] maps them (no copy; the caller promises that
//! nobody rewrites a file in place meanwhile). Both take [`OpenOptions`] in their
//! `_with` forms; the library reads no environment variable (the command line does).

use crate::compact::{
    compact_names, BlockCache, CompactFile, CompactId, CompactTable, Kind, DEFAULT_CACHE_MB,
};
use crate::file::{parse_file_name, FileError, SectorFile};
use crate::placement::PlacementSector;
use crate::sector::{Sector, SectorId, Value};
use morris_engine::{Position, Variant};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The tablebase directory of a program that is told none.
pub const DEFAULT_DIR: &str = "tablebases";

/// How a tablebase directory is opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenOptions {
    /// Bytes of decompressed blocks of compact files kept for reuse, shared by the
    /// files of the tablebase (at least one block a shard is kept whatever the size).
    pub cache_bytes: usize,
}

impl Default for OpenOptions {
    /// A cache of [`DEFAULT_CACHE_MB`] MiB.
    fn default() -> OpenOptions {
        OpenOptions {
            cache_bytes: DEFAULT_CACHE_MB << 20,
        }
    }
}

/// The sector files of a directory.
#[derive(Debug, Default)]
pub struct Tablebase {
    files: BTreeMap<(Variant, SectorId), SectorFile>,
    compact: BTreeMap<(Variant, SectorId), CompactTable>,
    cache: Arc<BlockCache>,
}

/// One scanned file: its variant, its sector, and the file or why it cannot be used.
pub type Scanned = (Variant, SectorId, Result<SectorFile, FileError>);

/// One scanned compact file: its variant, sector and kind, and the file or why it
/// cannot be used.
pub type ScannedCompact = (Variant, SectorId, Kind, Result<CompactFile, FileError>);

impl Tablebase {
    /// Open every sector file in `dir`, reading each file's values into memory when
    /// first used (see [`SectorFile::open`]). A missing directory is an empty
    /// tablebase.
    ///
    /// # Errors
    /// The first [`FileError`] met, naming the file.
    pub fn open(dir: &Path) -> Result<Tablebase, FileError> {
        Tablebase::open_with(dir, OpenOptions::default())
    }

    /// [`Tablebase::open`] with these options.
    ///
    /// # Errors
    /// The first [`FileError`] met, naming the file.
    pub fn open_with(dir: &Path, options: OpenOptions) -> Result<Tablebase, FileError> {
        Tablebase::collect(dir, Tablebase::scan(dir)?, options, CompactFile::open)
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
        unsafe { Tablebase::open_mapped_with(dir, OpenOptions::default()) }
    }

    /// [`Tablebase::open_mapped`] with these options.
    ///
    /// # Safety
    /// As for [`Tablebase::open_mapped`].
    ///
    /// # Errors
    /// The first [`FileError`] met, naming the file.
    // Only passes the mapping contract of `crate::mmap` on to the caller.
    #[allow(unsafe_code)]
    pub unsafe fn open_mapped_with(
        dir: &Path,
        options: OpenOptions,
    ) -> Result<Tablebase, FileError> {
        let compact = |path: &Path, id, cache| {
            // SAFETY: the caller's promise, passed on.
            unsafe { CompactFile::open_mapped(path, id, cache) }
        };
        // SAFETY: the caller's promise, passed on.
        let scanned = unsafe { Tablebase::scan_mapped(dir) }?;
        Tablebase::collect(dir, scanned, options, compact)
    }

    fn collect(
        dir: &Path,
        scanned: Vec<Scanned>,
        options: OpenOptions,
        compact: impl Fn(&Path, CompactId, Arc<BlockCache>) -> Result<CompactFile, FileError>,
    ) -> Result<Tablebase, FileError> {
        let mut tb = Tablebase {
            cache: Arc::new(BlockCache::new(options.cache_bytes)),
            ..Tablebase::default()
        };
        for (variant, sector, file) in scanned {
            tb.files.insert((variant, sector), file?);
        }
        for (variant, sector, kind, file) in Tablebase::scan_compact_with(dir, &tb.cache, compact)?
        {
            let table = tb.compact.entry((variant, sector)).or_default();
            match kind {
                Kind::Wdl => table.wdl = Some(file?),
                Kind::Dtm => table.dtm = Some(file?),
            }
        }
        Ok(tb)
    }

    /// Try to open every compact file in `dir`, in name order, keeping each result;
    /// their blocks share one new cache. A missing directory holds no files.
    ///
    /// # Errors
    /// A [`FileError`] when the directory cannot be read.
    pub fn scan_compact(dir: &Path) -> Result<Vec<ScannedCompact>, FileError> {
        Tablebase::scan_compact_with(dir, &Arc::default(), CompactFile::open)
    }

    fn scan_compact_with(
        dir: &Path,
        cache: &Arc<BlockCache>,
        open: impl Fn(&Path, CompactId, Arc<BlockCache>) -> Result<CompactFile, FileError>,
    ) -> Result<Vec<ScannedCompact>, FileError> {
        Ok(compact_names(dir)?
            .into_iter()
            .map(|(v, s, k, path)| (v, s, k, open(&path, (v, s, k), Arc::clone(cache))))
            .collect())
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
        open: impl Fn(&Path, Variant, SectorId) -> Result<SectorFile, FileError>,
    ) -> Result<Vec<Scanned>, FileError> {
        Ok(table_names(dir)?
            .into_iter()
            .map(|(v, s, path)| (v, s, open(&path, v, s)))
            .collect())
    }

    /// The movement sectors present, by variant.
    pub fn sectors(&self) -> impl Iterator<Item = (Variant, Sector, &SectorFile)> {
        self.files.iter().filter_map(|(&(v, s), f)| match s {
            SectorId::Movement(m) => Some((v, m, f)),
            SectorId::Placement(_) => None,
        })
    }

    /// The placement sectors present, by variant.
    pub fn placement_sectors(
        &self,
    ) -> impl Iterator<Item = (Variant, PlacementSector, &SectorFile)> {
        self.files.iter().filter_map(|(&(v, s), f)| match s {
            SectorId::Placement(p) => Some((v, p, f)),
            SectorId::Movement(_) => None,
        })
    }

    /// The compact files of every sector that has them, by variant and sector.
    pub fn compact_tables(&self) -> impl Iterator<Item = (Variant, SectorId, &CompactTable)> {
        self.compact.iter().map(|(&(v, s), t)| (v, s, t))
    }

    /// The compact files of a sector, if any.
    pub fn compact(&self, variant: Variant, sector: impl Into<SectorId>) -> Option<&CompactTable> {
        self.compact.get(&(variant, sector.into()))
    }

    /// Whether a probe of this sector answers distances: a raw file or a compact DTM
    /// file is present. `None` when the sector is absent.
    pub fn has_dtm(&self, variant: Variant, sector: impl Into<SectorId>) -> Option<bool> {
        let sector = sector.into();
        if self.file(variant, sector).is_some() {
            return Some(true);
        }
        self.compact(variant, sector).map(CompactTable::has_dtm)
    }

    /// The raw file of a sector (movement or placement), if present.
    pub fn file(&self, variant: Variant, sector: impl Into<SectorId>) -> Option<&SectorFile> {
        self.files.get(&(variant, sector.into()))
    }

    /// The sector of a position's table: a movement sector when both hands are empty
    /// and each side has at least three pieces, a placement sector for hands a game
    /// produces; `None` otherwise.
    pub fn sector_id_of(pos: &Position) -> Option<SectorId> {
        if pos.pieces_in_hand() {
            PlacementSector::of(pos).map(SectorId::Placement)
        } else {
            Tablebase::sector_of(pos).map(SectorId::Movement)
        }
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
    /// covers it (hands no game produces, fewer than three pieces with both hands
    /// empty, or sector missing). From a sector that has only a compact win/draw/loss
    /// file, a decided value comes without its distance ([`Value::wdl_only`]).
    ///
    /// The board is looked up as it stands: whether the game is already over (a
    /// repetition, a blocked side) is the caller's question.
    ///
    /// # Errors
    /// A [`FileError`] naming the file when the sector's file is damaged (its
    /// payload checksum fails on first use, or the value read contradicts its
    /// header): a damaged file never answers.
    pub fn probe(&self, pos: &Position) -> Result<Option<Value>, FileError> {
        let Some(sector) = Tablebase::sector_id_of(pos) else {
            return Ok(None);
        };
        if let Some(file) = self.file(pos.variant(), sector) {
            return file
                .value(file.index().index(pos.us(), pos.them()))
                .map(Some);
        }
        let Some(file) = self
            .compact(pos.variant(), sector)
            .and_then(CompactTable::answering)
        else {
            return Ok(None);
        };
        file.value(file.index().index(pos.us(), pos.them()))
            .map(Some)
    }
}

/// The tablebase files in `dir` (by name: variant, sector, path), sorted; an absent
/// directory has none.
///
/// # Errors
/// A [`FileError`] naming the directory when it cannot be read.
pub fn table_names(dir: &Path) -> Result<Vec<(Variant, SectorId, PathBuf)>, FileError> {
    let err = |e: std::io::Error| FileError {
        path: dir.to_path_buf(),
        problem: e.into(),
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(err(e)),
    };
    let mut names: Vec<(Variant, SectorId, PathBuf)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(err)?;
        if let Some((variant, sector)) = entry.file_name().to_str().and_then(parse_file_name) {
            names.push((variant, sector, entry.path()));
        }
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file::write_sector;
    use crate::generate::{solve_pair, Silent};
    use crate::index::SectorIndex;
    use crate::placement::solve_game;
    use morris_engine::{Bitboard, Color, Setup};

    /// Every position of every placement sector of the games of up to three pieces a
    /// side, probed from files, in the colours a game gives it, answers the value the
    /// placement solver computed; hands no game produces are not answered.
    #[test]
    fn probe_answers_placement_positions_as_solved() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let variant = Variant::NoFlying;
        let three = Sector::new(3, 3).expect("a sector");
        let (_, movement) = solve_pair(variant, three, &|_| None, &Silent)
            .expect("solved")
            .remove(0);
        write_sector(dir.path(), variant, three, &movement).expect("written");
        let lookup = |s: Sector| (s == three).then_some(movement.as_slice());
        let game = solve_game(variant, 3, &lookup, &Silent).expect("solved");
        for (sector, values) in &game {
            write_sector(dir.path(), variant, *sector, values).expect("written");
        }
        let tb = Tablebase::open(dir.path()).expect("opens");
        assert_eq!(tb.placement_sectors().count(), game.len());
        let mut probed = 0;
        for (sector, values) in &game {
            let index = SectorIndex::get(usize::from(sector.us), usize::from(sector.them));
            for (i, &raw) in values.iter().enumerate() {
                let (us, them) = index.position(i as u64);
                let setup = sector.game_setup(us, them);
                let pos = Position::from_setup(&setup, variant).expect("a position");
                assert_eq!(
                    tb.probe(&pos).expect("a good file"),
                    Some(Value(raw)),
                    "{sector} entry {i}"
                );
                probed += 1;
            }
        }
        assert!(probed > 1000, "{probed}");
        let odd = Setup {
            pieces: [Bitboard::EMPTY, Bitboard::EMPTY],
            hand: [1, 3],
            side_to_move: Color::White,
        };
        let odd = Position::from_setup(&odd, variant).expect("a position");
        assert_eq!(tb.probe(&odd).expect("no file read"), None);
    }
}
