//! A directory of table files, opened for probing.
//!
//! [`Tablebase::open`] lists the directory, ignores names that are not table files
//! (temporary files included), and opens every sector file, movement or placement,
//! raw or compact, in layers (see [`crate::file`]). A bad file is an error naming it:
//! a tablebase is never trusted in part. A file's payload is checked against its
//! checksum the first time a probe reads it, so a damaged payload is an error on the
//! spot, never a value.
//!
//! Compact files (`.wdl`, `.dtm`, see [`crate::compact`]) answer for the sectors that
//! have no raw file: a set may mix both forms, sector by sector, and callers of
//! [`Tablebase::probe`] never need to know which answered, though the answer names it
//! ([`Probe::file`]). Their decompressed blocks share one bounded [`BlockCache`].
//!
//! Every sector's files are found by array index, not by name: a search probes at
//! every node that may leave the placing phase, where a lookup by name cost more
//! than the read.
//!
//! Two ways to hold the values, chosen by [`OpenOptions::mapper`]: without a mapper
//! each file is read into memory on first use (safe whatever happens to the files
//! later; memory as large as the files used); with one, the files are mapped (no
//! copy; whoever made the mapper promised that nobody rewrites a file in place
//! meanwhile). The library reads no environment variable (the command line does).

use crate::classes::{self, Class, ClassFile};
use crate::compact::{
    compact_names, BlockCache, CompactFile, CompactId, CompactTable, Kind, DEFAULT_CACHE_MB,
};
use crate::file::{parse_file_name, FileError, Problem, SectorFile};
use crate::sector::{PlacementSector, Sector, SectorId};
use crate::value::{SectorStats, Value, Wdl};
use morris_engine::{Position, Rules};
use morris_sys::Mapper;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The tablebase directory of a program that is told none.
pub const DEFAULT_DIR: &str = "tablebases";

/// How a tablebase directory is opened.
#[derive(Clone, Copy, Debug)]
pub struct OpenOptions {
    /// Bytes of decompressed blocks of compact files kept for reuse, shared by the
    /// files of the tablebase (at least one block a shard is kept whatever the size).
    pub cache_bytes: usize,
    /// Map the files with this mapper (no copy, only the pages used are loaded);
    /// `None` reads each file into memory when first used.
    pub mapper: Option<Mapper>,
}

impl Default for OpenOptions {
    /// A cache of [`DEFAULT_CACHE_MB`] MiB, files read into memory.
    fn default() -> OpenOptions {
        OpenOptions {
            cache_bytes: DEFAULT_CACHE_MB << 20,
            mapper: None,
        }
    }
}

impl OpenOptions {
    fn open_raw(&self, path: &Path, v: Rules, s: SectorId) -> Result<SectorFile, FileError> {
        match self.mapper {
            Some(mapper) => SectorFile::open_mapped(path, v, s, mapper),
            None => SectorFile::open(path, v, s),
        }
    }

    fn open_compact(
        &self,
        path: &Path,
        id: CompactId,
        cache: &Arc<BlockCache>,
    ) -> Result<CompactFile, FileError> {
        let cache = Arc::clone(cache);
        match self.mapper {
            Some(mapper) => CompactFile::open_mapped(path, id, cache, mapper),
            None => CompactFile::open(path, id, cache),
        }
    }
}

/// What a probe found: the value, the most plies it can take to the end of the game,
/// and the file that answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe<'a> {
    /// The value for the side to move. From a sector that has only a compact
    /// win/draw/loss file, a decided value comes without its distance
    /// ([`Value::wdl_only`]).
    pub value: Value,
    /// The most plies the game lasts from here under optimal play: the value's own
    /// distance when the file stores it, else the longest win (of a won value) or
    /// loss (of a lost one) of its sector, as the file's header records it; `None`
    /// for a draw.
    pub longest: Option<u16>,
    /// The file that answered.
    pub file: &'a Path,
}

impl<'a> Probe<'a> {
    /// The answer of `file`, whose header counts `stats`, for a value read from it.
    fn new(value: Value, stats: &SectorStats, file: &'a Path) -> Probe<'a> {
        let longest = match value.wdl() {
            Wdl::Draw => None,
            _ if value.dtm().is_some() => value.dtm(),
            Wdl::Win => Some(stats.longest_win),
            Wdl::Loss => Some(stats.longest_loss),
        };
        Probe {
            value,
            longest,
            file,
        }
    }
}

/// The files of one sector.
#[derive(Debug)]
struct Tables {
    rules: Rules,
    sector: SectorId,
    raw: Option<SectorFile>,
    compact: CompactTable,
    /// The draw classes, or why its class file cannot be used.
    classes: Option<Result<ClassFile, FileError>>,
    /// Its distances are not stored (a `.wdl` file alone) but every sector its turns
    /// reach has them: a probe finds a decided position's distance by a one-ply
    /// search.
    derived: bool,
    /// Its values are not stored either (its `.wdl` file holds none, a sparse set),
    /// but every sector its turns reach has them: a probe finds a position's result
    /// by a one-ply search too.
    values_derived: bool,
    /// It has no class file but every sector its turns reach has one: a class probe
    /// finds a drawn position's class by a one-ply search.
    classes_derived: bool,
}

impl Tables {
    /// Which of the entries `first..first + len` are drawn, by the values (the raw
    /// file, else the compact file that answers).
    fn drawn(&self, first: u64, len: usize) -> Result<Vec<bool>, FileError> {
        if let Some(f) = &self.raw {
            return (first..first + len as u64)
                .map(|i| f.value(i).map(|v| v.wdl() == Wdl::Draw))
                .collect();
        }
        match self.compact.answering() {
            Some(c) => c.drawn(first, len),
            None => Err(FileError::new(
                Path::new(&crate::file::file_name(self.rules, self.sector)),
                Problem::Io(std::io::Error::other("no value file of the sector")),
            )),
        }
    }

    fn new(rules: Rules, sector: SectorId) -> Tables {
        Tables {
            rules,
            sector,
            raw: None,
            compact: CompactTable::default(),
            classes: None,
            derived: false,
            values_derived: false,
            classes_derived: false,
        }
    }
}

/// Slots of one table game: movement sectors by their two counts, then placement sectors
/// by their two counts, the hand of the side to move and whether the opponent's is one
/// less (counts and hands at most 9).
const MOVEMENT_SLOTS: usize = 10 * 10;
const GAME_SLOTS: usize = MOVEMENT_SLOTS + 10 * 10 * 10 * 2;

/// Where the files of `sector` are found among a tablebase's slots.
fn slot(rules: Rules, sector: SectorId) -> usize {
    let within = match sector {
        SectorId::Movement(s) => usize::from(s.us) * 10 + usize::from(s.them),
        SectorId::Placement(p) => {
            let board = usize::from(p.us) * 10 + usize::from(p.them);
            let hands = usize::from(p.us_hand) * 2 + usize::from(p.us_hand - p.them_hand);
            MOVEMENT_SLOTS + board * 20 + hands
        }
    };
    rules.table_index() * GAME_SLOTS + within
}

/// The table files of a directory.
#[derive(Debug)]
pub struct Tablebase {
    /// The files of each sector present, by rules and sector.
    tables: Vec<Tables>,
    /// For every rules and sector ([`slot`]): its place in `tables` plus one, 0 when
    /// it is absent.
    slots: Box<[u16]>,
}

impl Default for Tablebase {
    /// No files.
    fn default() -> Tablebase {
        Tablebase {
            tables: Vec::new(),
            slots: vec![0; Rules::TABLE_GAMES * GAME_SLOTS].into(),
        }
    }
}

/// One scanned file: its rules, its sector, and the file or why it cannot be used.
pub type Scanned = (Rules, SectorId, Result<SectorFile, FileError>);

/// One scanned compact file: its rules, sector and kind, and the file or why it
/// cannot be used.
pub type ScannedCompact = (Rules, SectorId, Kind, Result<CompactFile, FileError>);

impl Tablebase {
    /// Open every table file in `dir`, raw and compact, as `options` say. A missing
    /// directory is an empty tablebase.
    ///
    /// # Errors
    /// The first [`FileError`] met, naming the file.
    pub fn open(dir: &Path, options: OpenOptions) -> Result<Tablebase, FileError> {
        let cache = Arc::new(BlockCache::new(options.cache_bytes));
        let mut tables: BTreeMap<(Rules, SectorId), Tables> = BTreeMap::new();
        for (rules, sector, file) in Tablebase::scan(dir, options)? {
            let t = tables.entry((rules, sector));
            t.or_insert_with(|| Tables::new(rules, sector)).raw = Some(file?);
        }
        for (rules, sector, kind, file) in Tablebase::scan_compact_with(dir, options, &cache)? {
            let t = tables.entry((rules, sector));
            let compact = &mut t.or_insert_with(|| Tables::new(rules, sector)).compact;
            match kind {
                Kind::Wdl => compact.wdl = Some(file?),
                Kind::Dtm => compact.dtm = Some(file?),
            }
        }
        for (rules, sector, path) in classes::class_names(dir)? {
            let t = tables.entry((rules, sector));
            let file = ClassFile::open(&path, rules, sector, Arc::clone(&cache));
            t.or_insert_with(|| Tables::new(rules, sector)).classes = Some(file);
        }
        // A class file belongs to the values it was built from: one built from other
        // values is refused, naming both.
        for t in tables.values_mut() {
            // (A `.wdl` file without values records the raw file's checksum too.)
            let compact = t.compact.answering().or(t.compact.wdl.as_ref());
            let values = match (&t.raw, compact) {
                (Some(f), _) => Some((f.header().checksum, f.path().to_path_buf())),
                (None, Some(c)) => c.header().source.map(|s| (s, c.path().to_path_buf())),
                (None, None) => None,
            };
            if let Some(Ok(c)) = &t.classes {
                let problem = match &values {
                    None => Some("has no value file of its sector beside it".to_string()),
                    Some((sum, path)) if *sum != c.header().values => Some(format!(
                        "was built from other values than {} holds",
                        path.display()
                    )),
                    Some(_) => None,
                };
                if let Some(p) = problem {
                    let path = c.path().to_path_buf();
                    t.classes = Some(Err(FileError::new(&path, std::io::Error::other(p))));
                }
            }
        }
        // A sector without distances whose successors all have them gets them from
        // its successors.
        let distances = |rules: Rules, s: SectorId| {
            tables
                .get(&(rules, s))
                .is_some_and(|t| t.raw.is_some() || t.compact.has_dtm())
        };
        let derived: Vec<(Rules, SectorId)> = tables
            .values()
            .filter(|t| t.raw.is_none() && !t.compact.has_dtm() && t.compact.wdl.is_some())
            .filter(|t| {
                // (None at all: every turn ends the game.)
                let mut next = t.sector.successors(t.rules).into_iter();
                next.all(|s| distances(t.rules, s))
            })
            .map(|t| (t.rules, t.sector))
            .collect();
        for key in derived {
            if let Some(t) = tables.get_mut(&key) {
                t.derived = true;
            }
        }
        // A sector whose `.wdl` file holds no values gets its results from its
        // successors' values (a set of `.wdl` files alone included), and its
        // distances too where they have them.
        let values = |rules: Rules, s: SectorId| {
            tables
                .get(&(rules, s))
                .is_some_and(|t| t.raw.is_some() || t.compact.answering().is_some())
        };
        let derived: Vec<(Rules, SectorId)> = tables
            .values()
            .filter(|t| t.raw.is_none() && t.compact.derived())
            .filter(|t| {
                let mut next = t.sector.successors(t.rules).into_iter();
                next.all(|s| values(t.rules, s))
            })
            .map(|t| (t.rules, t.sector))
            .collect();
        for key in derived {
            if let Some(t) = tables.get_mut(&key) {
                t.values_derived = true;
            }
        }
        // A sector without a class file whose classes follow from its successors'
        // (as [`SectorId::distances_derived`] chooses them), all of which have good
        // class files, gets its classes by a one-ply search.
        let classes = |rules: Rules, s: SectorId| {
            tables
                .get(&(rules, s))
                .is_some_and(|t| matches!(t.classes, Some(Ok(_))))
        };
        let derived: Vec<(Rules, SectorId)> = tables
            .values()
            .filter(|t| t.classes.is_none() && t.sector.distances_derived(t.rules))
            .filter(|t| t.raw.is_some() || t.compact.answering().is_some() || t.values_derived)
            .filter(|t| {
                let next = t.sector.successors(t.rules);
                !next.is_empty() && next.into_iter().all(|s| classes(t.rules, s))
            })
            .map(|t| (t.rules, t.sector))
            .collect();
        for key in derived {
            if let Some(t) = tables.get_mut(&key) {
                t.classes_derived = true;
            }
        }
        let mut tb = Tablebase {
            tables: tables.into_values().collect(),
            ..Tablebase::default()
        };
        for (i, t) in tb.tables.iter().enumerate() {
            // Fewer tables than slots, and far fewer than 2^16.
            tb.slots[slot(t.rules, t.sector)] = u16::try_from(i + 1).unwrap_or(0);
        }
        Ok(tb)
    }

    /// Try to open every compact file in `dir` as `options` say, in name order,
    /// keeping each result; their blocks share one new cache. A missing directory
    /// holds no files.
    ///
    /// # Errors
    /// A [`FileError`] when the directory cannot be read.
    pub fn scan_compact(
        dir: &Path,
        options: OpenOptions,
    ) -> Result<Vec<ScannedCompact>, FileError> {
        let cache = Arc::new(BlockCache::new(options.cache_bytes));
        Tablebase::scan_compact_with(dir, options, &cache)
    }

    fn scan_compact_with(
        dir: &Path,
        options: OpenOptions,
        cache: &Arc<BlockCache>,
    ) -> Result<Vec<ScannedCompact>, FileError> {
        Ok(compact_names(dir)?
            .into_iter()
            .map(|(v, s, k, path)| (v, s, k, options.open_compact(&path, (v, s, k), cache)))
            .collect())
    }

    /// Try to open every raw sector file in `dir` as `options` say, in name order,
    /// keeping each result. A missing directory holds no files.
    ///
    /// # Errors
    /// A [`FileError`] when the directory cannot be read.
    pub fn scan(dir: &Path, options: OpenOptions) -> Result<Vec<Scanned>, FileError> {
        Ok(table_names(dir)?
            .into_iter()
            .map(|(v, s, path)| (v, s, options.open_raw(&path, v, s)))
            .collect())
    }

    /// The files of a sector, if any.
    fn tables(&self, rules: Rules, sector: SectorId) -> Option<&Tables> {
        let i = usize::from(self.slots[slot(rules, sector)]).checked_sub(1)?;
        self.tables.get(i)
    }

    /// The movement sectors present, by rules.
    pub fn sectors(&self) -> impl Iterator<Item = (Rules, Sector, &SectorFile)> {
        self.tables.iter().filter_map(|t| match (t.sector, &t.raw) {
            (SectorId::Movement(m), Some(f)) => Some((t.rules, m, f)),
            _ => None,
        })
    }

    /// The placement sectors present, by rules.
    pub fn placement_sectors(&self) -> impl Iterator<Item = (Rules, PlacementSector, &SectorFile)> {
        self.tables.iter().filter_map(|t| match (t.sector, &t.raw) {
            (SectorId::Placement(p), Some(f)) => Some((t.rules, p, f)),
            _ => None,
        })
    }

    /// The compact files of every sector that has them, by rules and sector.
    pub fn compact_tables(&self) -> impl Iterator<Item = (Rules, SectorId, &CompactTable)> {
        self.tables
            .iter()
            .filter(|t| t.compact.answering().is_some() || t.compact.derived())
            .map(|t| (t.rules, t.sector, &t.compact))
    }

    /// The compact files of a sector, if any.
    pub fn compact(
        &self,
        rules: impl Into<Rules>,
        sector: impl Into<SectorId>,
    ) -> Option<&CompactTable> {
        let rules: Rules = rules.into();
        self.tables(rules, sector.into())
            .map(|t| &t.compact)
            .filter(|c| c.answering().is_some() || c.derived())
    }

    /// Whether a file of this sector is present, raw or compact.
    pub fn contains(&self, rules: impl Into<Rules>, sector: impl Into<SectorId>) -> bool {
        let rules: Rules = rules.into();
        self.tables(rules, sector.into()).is_some()
    }

    /// Whether a probe of this sector answers distances: a raw file or a compact DTM
    /// file is present, or its distances follow from its successors' (see
    /// [`Tablebase::derives`]). `None` when the sector is absent.
    pub fn has_dtm(&self, rules: impl Into<Rules>, sector: impl Into<SectorId>) -> Option<bool> {
        let rules: Rules = rules.into();
        let t = self.tables(rules, sector.into())?;
        Some(t.raw.is_some() || t.compact.has_dtm() || t.derived)
    }

    /// The `.wdl` file without values of a sector whose values a probe finds from
    /// its successors' by a one-ply search (a sparse compact set), if that is how
    /// this sector is answered.
    pub fn derived_values(
        &self,
        rules: impl Into<Rules>,
        sector: impl Into<SectorId>,
    ) -> Option<&CompactFile> {
        let rules: Rules = rules.into();
        let t = self.tables(rules, sector.into())?;
        t.values_derived.then_some(t.compact.wdl.as_ref()).flatten()
    }

    /// Whether a probe finds this sector's distances by a one-ply search: it has a
    /// `.wdl` file alone, and every sector its turns reach has its distances stored
    /// (a one-sided compact set, see [`SectorId::distances_derived`]).
    pub fn derives(&self, rules: impl Into<Rules>, sector: impl Into<SectorId>) -> bool {
        let rules: Rules = rules.into();
        self.tables(rules, sector.into()).is_some_and(|t| t.derived)
    }

    /// The raw file of a sector (movement or placement), if present.
    pub fn file(
        &self,
        rules: impl Into<Rules>,
        sector: impl Into<SectorId>,
    ) -> Option<&SectorFile> {
        let rules: Rules = rules.into();
        self.tables(rules, sector.into())?.raw.as_ref()
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

    /// What the tables say of a position for the side to move: its value, the most
    /// plies it can take, and the file that answered (the raw file of its sector when
    /// present, else the compact `.dtm` file, else the `.wdl` file, whose decided
    /// values get their distance by a one-ply search where the successors' sectors
    /// store theirs, see [`Tablebase::derive`]; a `.wdl` file without values has
    /// its whole value found so); `None` when no
    /// loaded sector covers it (hands no game produces, fewer than three pieces with
    /// both hands empty, sector missing, or a house rule: tables exist only for the
    /// two classic games).
    ///
    /// The board is looked up as it stands: whether the game is already over (a
    /// repetition, a blocked side) is the caller's question.
    ///
    /// # Errors
    /// A [`FileError`] naming the file when the sector's file is damaged (its
    /// payload checksum fails on first use, or the value read contradicts its
    /// header): a damaged file never answers.
    pub fn probe(&self, pos: &Position) -> Result<Option<Probe<'_>>, FileError> {
        match self.probe_stored(pos)? {
            Some(p) if p.value.is_distance_unknown() => self.derive(pos, p).map(Some),
            found => Ok(found),
        }
    }

    /// What the files say of a position, as [`Tablebase::probe`] but without the
    /// one-ply search for the distance of a sector that does not store them: a
    /// decided value of such a sector comes without its distance
    /// ([`Value::wdl_only`]), as from a `.wdl` file alone. Enough for whoever needs
    /// the result only, and the cheapest probe. In a sector whose `.wdl` file holds
    /// no values (a sparse set) the result is found from the successors' files, the
    /// first winning move ending the search.
    ///
    /// # Errors
    /// As [`Tablebase::probe`].
    pub fn probe_stored(&self, pos: &Position) -> Result<Option<Probe<'_>>, FileError> {
        let Some(tables) =
            Tablebase::sector_id_of(pos).and_then(|s| self.tables(pos.rules().tables(), s))
        else {
            return Ok(None);
        };
        let (us, them) = (pos.us(), pos.them());
        if let Some(f) = &tables.raw {
            let value = f.value(f.index().index(us, them))?;
            return Ok(Some(Probe::new(value, &f.header().stats, f.path())));
        }
        if tables.values_derived {
            if let Some(f) = &tables.compact.wdl {
                let found = self.derived_result(pos)?;
                return Ok(
                    found.map(|wdl| Probe::new(Value::wdl_only(wdl), &f.header().stats, f.path()))
                );
            }
        }
        let Some(f) = tables.compact.answering() else {
            return Ok(None);
        };
        let value = f.value(f.index().index(us, them))?;
        Ok(Some(Probe::new(value, &f.header().stats, f.path())))
    }

    /// The result of a position of a sector whose values are not stored but follow
    /// from its successors' (its `.wdl` file holds none): the best of the results
    /// its moves reach, from the files of their sectors (which store their values),
    /// the first winning move ending the search; `None` when a successor is not
    /// covered.
    fn derived_result(&self, pos: &Position) -> Result<Option<Wdl>, FileError> {
        if let Some(end) = pos.end() {
            return Ok(Some(Value::finished(pos, end).wdl()));
        }
        let mut best = Wdl::Loss;
        for &m in pos.legal_moves().iter() {
            let next = pos.play_unchecked(m);
            let theirs = match next.end() {
                Some(end) => Value::finished(&next, end).wdl(),
                None => match self.probe_stored(&next)? {
                    Some(p) => p.value.wdl(),
                    None => return Ok(None),
                },
            };
            match theirs.opposite() {
                Wdl::Win => return Ok(Some(Wdl::Win)),
                Wdl::Draw => best = Wdl::Draw,
                Wdl::Loss => {}
            }
        }
        Ok(Some(best))
    }

    /// The probe `found` of `pos` (a decided value without its distance) with its
    /// distance, when its sector's distances follow from its successors' (see
    /// [`Tablebase::derives`]): one more than the quickest lost successor's for a
    /// win, than the slowest won successor's for a loss. Otherwise `found` as it is.
    ///
    /// # Errors
    /// A [`FileError`] naming the file that answered `found` when the successors'
    /// values give another result ([`Problem::Contradicts`]: this file or a
    /// successor's is damaged), or the error of a successor's file.
    pub fn derive<'a>(&'a self, pos: &Position, found: Probe<'a>) -> Result<Probe<'a>, FileError> {
        let derived = Tablebase::sector_id_of(pos)
            .and_then(|s| self.tables(pos.rules().tables(), s))
            .is_some_and(|t| t.derived);
        if !derived || !found.value.is_distance_unknown() {
            return Ok(found);
        }
        let value = match pos.end() {
            Some(end) => Value::finished(pos, end),
            None => {
                let moves = pos.legal_moves();
                let mut children = Vec::with_capacity(moves.len());
                for &m in moves.iter() {
                    let next = pos.play_unchecked(m);
                    children.push(match next.end() {
                        Some(end) => Value::finished(&next, end),
                        None => match self.probe_stored(&next)? {
                            Some(p) => p.value,
                            None => return Ok(found),
                        },
                    });
                }
                match Value::best_of(children) {
                    Some(v) => v,
                    None => return Ok(found),
                }
            }
        };
        if value.wdl() != found.value.wdl() {
            let index = Tablebase::sector_id_of(pos).map_or(0, |s| {
                s.index(pos.rules().board()).index(pos.us(), pos.them())
            });
            return Err(FileError::new(
                found.file,
                Problem::Contradicts {
                    index,
                    stored: found.value.wdl(),
                    successors: value.wdl(),
                },
            ));
        }
        Ok(Probe {
            value,
            longest: value.dtm(),
            file: found.file,
        })
    }

    /// The draw class of a position for the side to move (see [`crate::classes`]):
    /// `None` when its sector has no class file (and its classes do not follow from
    /// its successors', [`Tablebase::derives_classes`]: then a one-ply search finds
    /// it) or the position is not a draw (by the values: a class file says nothing
    /// about decided positions).
    ///
    /// # Errors
    /// A [`FileError`] naming the class file when it is damaged or belongs to other
    /// values, or the value file when it is damaged.
    pub fn class(&self, pos: &Position) -> Result<Option<Class>, FileError> {
        let Some(tables) =
            Tablebase::sector_id_of(pos).and_then(|s| self.tables(pos.rules().tables(), s))
        else {
            return Ok(None);
        };
        match &tables.classes {
            None if tables.classes_derived => self.derive_class(pos, tables),
            None => Ok(None),
            Some(Err(e)) => Err(FileError::new(
                &e.path,
                std::io::Error::other(e.problem.to_string()),
            )),
            Some(Ok(f)) => {
                let (us, them) = (pos.us(), pos.them());
                if self.probe_stored(pos)?.map(|p| p.value.wdl()) != Some(Wdl::Draw) {
                    return Ok(None);
                }
                let index = tables.sector.index(pos.rules().board());
                f.class(index.index(us, them), |first, len| tables.drawn(first, len))
                    .map(Some)
            }
        }
    }

    /// The class of a drawn position of a sector whose classes follow from its
    /// successors' ([`classes::combine`] over its drawing moves); `None` when it is
    /// not drawn.
    fn derive_class(&self, pos: &Position, tables: &Tables) -> Result<Option<Class>, FileError> {
        if pos.end().is_some() || self.probe_stored(pos)?.map(|p| p.value.wdl()) != Some(Wdl::Draw)
        {
            return Ok(None);
        }
        let own = Tablebase::sector_of(pos);
        let mut children = Vec::new();
        for &m in pos.legal_moves().iter() {
            let next = pos.play_unchecked(m);
            if next.end().is_some() {
                continue;
            }
            let Some(c) = self.class(&next)? else {
                continue;
            };
            let same_pair = matches!(
                (own, Tablebase::sector_of(&next)),
                (Some(o), Some(n)) if n == o.swapped()
            );
            children.push((-c.class, if same_pair { c.distance } else { 0 }));
        }
        let stay = own.and_then(|s| self.sector_stay_class(pos.rules().tables(), s));
        if own.is_some() && stay.is_none() {
            return Ok(None);
        }
        match classes::combine(&children, stay) {
            Some(c) => Ok(Some(c)),
            None => {
                let path = match (&tables.raw, tables.compact.answering()) {
                    (Some(f), _) => f.path().to_path_buf(),
                    (None, Some(c)) => c.path().to_path_buf(),
                    (None, None) => PathBuf::new(),
                };
                Err(FileError::new(
                    &path,
                    std::io::Error::other(format!(
                        "says {} is drawn, but no move keeps the draw by its successors' files",
                        morris_engine::notation::setup_to_string(&pos.to_setup())
                    )),
                ))
            }
        }
    }

    /// Whether a sector's classes are found from its successors' by a one-ply
    /// search (it has no class file of its own; see [`SectorId::distances_derived`]).
    pub fn derives_classes(&self, rules: impl Into<Rules>, sector: impl Into<SectorId>) -> bool {
        let rules: Rules = rules.into();
        self.tables(rules, sector.into())
            .is_some_and(|t| t.classes_derived)
    }

    /// The stay class of a movement position's sector (see [`crate::classes`]), from
    /// its class file; `None` without a usable one, and for a placement position.
    pub fn stay_class(&self, pos: &Position) -> Option<i8> {
        self.sector_stay_class(pos.rules().tables(), Tablebase::sector_of(pos)?)
    }

    /// The stay class of a movement sector (for its side to move), from its class
    /// file's header; `None` without a usable class file.
    pub fn sector_stay_class(&self, rules: impl Into<Rules>, sector: Sector) -> Option<i8> {
        let rules: Rules = rules.into();
        let t = self.tables(rules, sector.into())?;
        match &t.classes {
            Some(Ok(f)) => Some(f.header().stay),
            // A pair's two sectors have opposite stay classes.
            None if t.classes_derived && sector.swapped() != sector => {
                match &self.tables(rules, sector.swapped().into())?.classes {
                    Some(Ok(f)) => Some(-f.header().stay),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Whether a sector has a class file (good or not) or finds its classes from its
    /// successors' ([`Tablebase::derives_classes`]).
    pub fn has_classes(&self, rules: impl Into<Rules>, sector: impl Into<SectorId>) -> bool {
        let rules: Rules = rules.into();
        self.tables(rules, sector.into())
            .is_some_and(|t| t.classes.is_some() || t.classes_derived)
    }

    /// The class files that cannot be used, and why.
    pub fn class_problems(&self) -> impl Iterator<Item = &FileError> {
        self.tables.iter().filter_map(|t| match &t.classes {
            Some(Err(e)) => Some(e),
            _ => None,
        })
    }

    /// The value of a position for the side to move, as [`Tablebase::probe`] finds it.
    ///
    /// # Errors
    /// As [`Tablebase::probe`].
    pub fn value(&self, pos: &Position) -> Result<Option<Value>, FileError> {
        Ok(self.probe(pos)?.map(|p| p.value))
    }
}

/// The tablebase files in `dir` (by name: rules, sector, path), sorted; an absent
/// directory has none.
///
/// # Errors
/// A [`FileError`] naming the directory when it cannot be read.
pub fn table_names(dir: &Path) -> Result<Vec<(Rules, SectorId, PathBuf)>, FileError> {
    let err = |e: std::io::Error| FileError {
        path: dir.to_path_buf(),
        problem: e.into(),
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(err(e)),
    };
    let mut names: Vec<(Rules, SectorId, PathBuf)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(err)?;
        if let Some((rules, sector)) = entry.file_name().to_str().and_then(parse_file_name) {
            names.push((rules, sector, entry.path()));
        }
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every sector has a slot of its own, within the table.
    #[test]
    fn every_sector_has_its_own_slot() {
        let mut seen = vec![false; Rules::TABLE_GAMES * GAME_SLOTS];
        for rules in Rules::table_games() {
            let movement = Sector::all().into_iter().map(SectorId::Movement);
            let placement = PlacementSector::all(9).into_iter().map(SectorId::Placement);
            for sector in movement.chain(placement) {
                let s = slot(rules, sector);
                assert!(!seen[s], "{rules} {sector}");
                seen[s] = true;
            }
        }
        assert_eq!(
            seen.iter().filter(|&&s| s).count(),
            Rules::table_games().count() * (49 + 615)
        );
    }

    /// A missing directory is an empty tablebase, which covers nothing.
    #[test]
    fn an_empty_tablebase_answers_nothing() {
        let tb = Tablebase::open(Path::new("/nonexistent/morris"), OpenOptions::default())
            .expect("an empty tablebase");
        let start = Position::start(Rules::STANDARD);
        assert_eq!(tb.probe(&start).expect("no file read"), None);
        assert!(!tb.contains(Rules::STANDARD, Sector::new(3, 3).expect("a sector")));
        assert_eq!(tb.sectors().count() + tb.compact_tables().count(), 0);
    }
}
