//! Generating a set of sectors into a directory, resumably.
//!
//! The movement sectors asked for are extended by everything their captures reach and
//! solved pair by pair in dependency order. A pair whose files are already present and
//! valid (header, size and payload checksum) is skipped, so a run that was cut resumes
//! with the pair it was working on; any other file with a sector's name (stale,
//! truncated, corrupt, of another rules or version) is reported and regenerated.
//!
//! A whole game ([`generate_game_into`]) adds its placement sectors after its
//! movement sectors, one at a time in the order of [`PlacementSector::all`], each
//! solved from the files of its successors (read back and checked whole) and skipped
//! alike when its file is already finished.

use crate::convert::{convert_file, Converted};
use crate::copy::ValueCopy;
use crate::generate::{solve_pair, GenerateError};
use crate::pack::{default_level, pack_sector, packed_from, Distances};
use crate::placement::{solve_placement, PlacementError};
use crate::progress::{Observer, Silent};
use crate::verify::{derive_codes, Source};
use crate::write::write_sector;
use morris_engine::{Board, Rules, PIECES_PER_PLAYER};
use morris_tablebase::compact::{compact_name, BlockCache, CompactFile, Kind};
use morris_tablebase::file::{file_name, FileError, SectorFile};
use morris_tablebase::tablebase::table_names;
use morris_tablebase::{PlacementSector, Sector, SectorId, SectorStats, SuccessorSector};
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use thiserror::Error;

/// Why a generation run stopped.
#[derive(Debug, Error)]
pub enum DriverError {
    /// A file could not be written or read back.
    #[error(transparent)]
    File(#[from] FileError),
    /// The retrograde analysis failed.
    #[error(transparent)]
    Generate(#[from] GenerateError),
    /// A placement sector could not be solved.
    #[error(transparent)]
    Placement(#[from] PlacementError),
    /// The directory could not be created.
    #[error("cannot create tablebase directory {0}: {1}")]
    Dir(String, std::io::Error),
    /// The lock file could not be made or locked.
    #[error("cannot lock {0}: {1}")]
    Lock(String, std::io::Error),
    /// A finished file could not be read, for a reason that says nothing about its
    /// content (memory, permissions, I/O): it is not regenerated.
    #[error("{0} (the file is left as it is; fix the cause and run again)")]
    Unreadable(FileError),
    /// Another process is generating into the same directory.
    #[error(
        "another `morris generate` is writing to {0}; wait for it or use another --tb directory"
    )]
    Busy(String),
}

/// What happened to one sector.
#[derive(Clone, Debug)]
pub struct SectorReport {
    /// The rules.
    pub rules: Rules,
    /// The sector.
    pub sector: SectorId,
    /// Counts of its values.
    pub stats: SectorStats,
    /// Time to solve it (for a movement sector, its pair, shared with its swapped
    /// sector), zero when skipped.
    pub time: Duration,
    /// Peak resident memory of the process so far, in bytes, if known.
    pub peak_memory: Option<u64>,
    /// Whether it was already finished.
    pub skipped: bool,
}

/// What a run leaves in the directory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Output {
    /// Raw files (`.tb`), one byte a position.
    #[default]
    Raw,
    /// Compact files (`.wdl` and `.dtm`, as `morris pack` writes them at zstd level
    /// `level`, `None` for its default levels, the `.dtm` files of the sectors
    /// `distances` keeps): a sector's raw file stays only while sectors still to be
    /// solved read it, then it is packed and removed. The `.dtm` files a one-sided
    /// set leaves out are written too while later sectors read them, and removed at
    /// the end of the run; they, and the values a sparse set leaves out, are packed at
    /// [`SCRATCH_LEVEL`].
    Compact {
        /// Which sectors keep their `.dtm` files and values.
        distances: Distances,
        /// The zstd level of the files the set keeps (`None`: [`default_level`]).
        level: Option<i32>,
    },
}

/// Receives the events of a run; all methods default to nothing.
pub trait Reporter: Observer {
    /// A line for the log.
    fn log(&self, _line: &str) {}
    /// A pair of movement sectors, or one placement sector, starts, with its number of
    /// positions.
    fn pair_started(&self, _variant: Rules, _sectors: &[SectorId], _positions: u64) {}
    /// A sector is finished (or found finished).
    fn sector_done(&self, _report: &SectorReport) {}
}

impl Reporter for Silent {}

/// The sectors needed for `targets`, in generation order.
pub fn plan(targets: &[Sector]) -> Vec<Sector> {
    let mut need: Vec<Sector> = targets.iter().flat_map(|s| s.closure()).collect();
    need.sort();
    need.dedup();
    Sector::all()
        .into_iter()
        .filter(|s| need.contains(s))
        .collect()
}

/// Whether every movement sector that `targets` need ([`plan`]) has a finished file in
/// `dir`, checked whole: a run of [`generate_into`] would then solve nothing.
pub fn is_finished(dir: &Path, rules: impl Into<Rules>, targets: &[Sector]) -> bool {
    let rules: Rules = rules.into();
    plan(targets)
        .into_iter()
        .all(|s| finished(dir, rules, s).is_ok())
}

/// Number of positions (up to symmetry) in these sectors on `board`.
pub fn positions(board: Board, sectors: &[Sector]) -> u64 {
    sectors.iter().map(|&s| SectorId::from(s).size(board)).sum()
}

/// Peak resident memory of this process (Linux `VmHWM`), in bytes.
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Start a new peak for [`peak_memory`] (Linux: `/proc/self/clear_refs`), so each
/// pair reports its own peak. Best effort.
fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// Open a finished file and check it whole; `Err` says why it cannot be used.
fn finished(
    dir: &Path,
    rules: Rules,
    sector: impl Into<SectorId>,
) -> Result<SectorFile, FileError> {
    let sector = sector.into();
    let f = SectorFile::open(&dir.join(file_name(rules, sector)), rules, sector)?;
    f.check_payload()?;
    Ok(f)
}

/// A sector's file as found at the start of its pair.
#[derive(Debug)]
enum Found {
    /// Finished and good: keep it.
    Good(SectorFile),
    /// Packed (a compact run) and good: keep it; its counts.
    Packed(SectorStats),
    /// Not there: generate it.
    Missing,
    /// Present but bad (damaged, truncated, of another version): generate it again.
    Bad(FileError),
    /// Could not be read for a reason that says nothing about its content (out of
    /// memory, permissions, an I/O error, not a regular file): stop the run, since
    /// regenerating could replace a good file or hide a fault the user must see.
    Unreadable(FileError),
}

impl Found {
    fn of(result: Result<SectorFile, FileError>) -> Found {
        match result {
            Ok(f) => Found::Good(f),
            Err(e) if e.problem.is_missing() => Found::Missing,
            Err(e) if e.problem.is_bad_file() => Found::Bad(e),
            Err(e) => Found::Unreadable(e),
        }
    }
}

/// Open (creating it if needed) and lock the directory's lock file. The lock file is
/// never truncated, and a symbolic link or anything but a regular file under its name
/// is refused, so a link planted there cannot make this program empty another file;
/// it is opened without blocking, so a FIFO there cannot hang it.
fn lock(dir: &Path) -> Result<std::fs::File, DriverError> {
    let lock_path = dir.join(".generate.lock");
    let err = |e: std::io::Error| DriverError::Lock(lock_path.display().to_string(), e);
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let lock = options.open(&lock_path).map_err(|e| {
        #[cfg(unix)]
        if e.raw_os_error() == Some(libc::ELOOP) {
            return err(std::io::Error::other(
                "it is a symbolic link; remove it (morris creates the lock file itself)",
            ));
        }
        err(e)
    })?;
    if !lock.metadata().map_err(err)?.is_file() {
        return Err(err(std::io::Error::other(
            "not a regular file; remove it (morris creates the lock file itself)",
        )));
    }
    match lock.try_lock() {
        Ok(()) => Ok(lock),
        Err(std::fs::TryLockError::WouldBlock) => Err(DriverError::Busy(dir.display().to_string())),
        Err(std::fs::TryLockError::Error(e)) => Err(err(e)),
    }
}

/// Generate `targets` (and what they need) for `rules` into `dir`: movement
/// sectors with everything their captures reach, placement sectors with every sector
/// their placements reach, placing phase and movement alike.
///
/// # Errors
/// [`DriverError`] when a file cannot be written or the analysis fails; finished
/// files stay valid and a later run resumes from them.
pub fn generate_into<S: Into<SectorId> + Copy>(
    dir: &Path,
    rules: impl Into<Rules>,
    targets: &[S],
    reporter: &dyn Reporter,
) -> Result<Vec<SectorReport>, DriverError> {
    let rules: Rules = rules.into();
    generate_into_as(dir, rules, targets, Output::Raw, reporter)
}

/// [`generate_into`], leaving `output`'s files.
///
/// # Errors
/// As [`generate_into`].
pub fn generate_into_as<S: Into<SectorId> + Copy>(
    dir: &Path,
    rules: impl Into<Rules>,
    targets: &[S],
    output: Output,
    reporter: &dyn Reporter,
) -> Result<Vec<SectorReport>, DriverError> {
    let rules: Rules = rules.into();
    let _lock = lock_dir(dir)?;
    let targets: Vec<SectorId> = targets.iter().map(|&t| t.into()).collect();
    let (movement, placement) = plan_sectors(rules, &targets);
    let run = Run::new(dir, rules, output, &plan(&movement), &placement);
    let mut reports = movement_into(&run, &movement, reporter)?;
    reports.extend(placement_into(&run, &placement, reporter)?);
    run.retire_all(reporter)?;
    Ok(reports)
}

/// Everything `targets` need, in generation order: the movement sectors (see
/// [`plan`]), then the placement sectors (see [`placement_plan`]).
pub fn plan_sectors(rules: Rules, targets: &[SectorId]) -> (Vec<Sector>, Vec<PlacementSector>) {
    let (mut movement, mut placement) = (Vec::new(), Vec::new());
    for &t in targets {
        match t {
            SectorId::Movement(m) => movement.push(m),
            SectorId::Placement(p) => placement.push(p),
        }
    }
    let placement = placement_plan(rules, &placement);
    movement.extend(
        placement
            .iter()
            .flat_map(|p| p.successors(rules))
            .filter_map(|s| match s {
                SuccessorSector::Movement(m) => Some(m),
                SuccessorSector::Placement(_) => None,
            }),
    );
    (plan(&movement), placement)
}

/// The placement sectors needed for `targets` (their successors, and theirs), in
/// solving order.
pub fn placement_plan(rules: Rules, targets: &[PlacementSector]) -> Vec<PlacementSector> {
    let mut need: HashSet<PlacementSector> = HashSet::new();
    let mut stack = targets.to_vec();
    while let Some(p) = stack.pop() {
        if need.insert(p) {
            stack.extend(p.successors(rules).into_iter().filter_map(|s| match s {
                SuccessorSector::Placement(q) => Some(q),
                SuccessorSector::Movement(_) => None,
            }));
        }
    }
    PlacementSector::all(PIECES_PER_PLAYER)
        .into_iter()
        .filter(|p| need.contains(p))
        .collect()
}

/// Generate every sector of a game of `max_pieces` pieces a side (on the board and in
/// hand, 3 to 9) for `rules` into `dir`: the movement sectors with both counts up
/// to `max_pieces`, then every placement sector of [`PlacementSector::all`].
///
/// # Errors
/// [`DriverError`] when a file cannot be written or read back or a sector cannot be
/// solved; finished files stay valid and a later run resumes from them.
pub fn generate_game_into(
    dir: &Path,
    rules: impl Into<Rules>,
    max_pieces: u8,
    reporter: &dyn Reporter,
) -> Result<Vec<SectorReport>, DriverError> {
    let rules: Rules = rules.into();
    generate_game_as(dir, rules, max_pieces, Output::Raw, reporter)
}

/// [`generate_game_into`], leaving `output`'s files.
///
/// # Errors
/// As [`generate_game_into`].
pub fn generate_game_as(
    dir: &Path,
    rules: impl Into<Rules>,
    max_pieces: u8,
    output: Output,
    reporter: &dyn Reporter,
) -> Result<Vec<SectorReport>, DriverError> {
    let rules: Rules = rules.into();
    let _lock = lock_dir(dir)?;
    let targets: Vec<Sector> = Sector::all()
        .into_iter()
        .filter(|s| s.us <= max_pieces && s.them <= max_pieces)
        .collect();
    let placement = PlacementSector::all(max_pieces);
    let run = Run::new(dir, rules, output, &plan(&targets), &placement);
    let mut reports = movement_into(&run, &targets, reporter)?;
    reports.extend(placement_into(&run, &placement, reporter)?);
    run.retire_all(reporter)?;
    Ok(reports)
}

/// One run of the driver: where it writes, and in compact output, when each
/// sector's raw file is read for the last time.
struct Run<'a> {
    dir: &'a Path,
    rules: Rules,
    output: Output,
    /// Per sector, the work items (movement pairs in plan order, then placement
    /// sectors) that read its raw values: its raw file goes once the last is done.
    /// Movement sectors are read so by later pairs, placement sectors by later
    /// placement sectors; the rest read compact files.
    readers: HashMap<SectorId, Vec<usize>>,
    /// Work items done so far, by their number.
    done: std::cell::RefCell<HashSet<usize>>,
    /// Each work item's number.
    items: HashMap<SectorId, usize>,
}

impl<'a> Run<'a> {
    fn new(
        dir: &'a Path,
        rules: Rules,
        output: Output,
        movement: &[Sector],
        placement: &[PlacementSector],
    ) -> Run<'a> {
        let mut items: HashMap<SectorId, usize> = HashMap::new();
        let mut readers: HashMap<SectorId, Vec<usize>> = HashMap::new();
        let mut next = 0;
        for &s in movement {
            if items.contains_key(&s.into()) {
                continue;
            }
            for t in [s, s.swapped()] {
                items.insert(t.into(), next);
                if let Some(c) = t.after_capture() {
                    readers.entry(c.into()).or_default().push(next);
                }
            }
            next += 1;
        }
        // Placement sectors read the movement sectors where placing ends from their
        // compact files (decoded once each, a small cost), so that no raw movement
        // file waits for the placement pass.
        for &p in placement {
            items.insert(p.into(), next);
            for t in p.successors(rules) {
                if let SuccessorSector::Placement(_) = t {
                    readers.entry(t.into()).or_default().push(next);
                }
            }
            next += 1;
        }
        Run {
            dir,
            rules,
            output,
            readers,
            done: std::cell::RefCell::new(HashSet::new()),
            items,
        }
    }

    /// The values of a finished sector, decoded: from its raw file, else (in a
    /// compact run) from its `.dtm` file.
    fn decoded(&self, sector: SectorId) -> Result<ValueCopy, FileError> {
        let path = self.dir.join(file_name(self.rules, sector));
        if matches!(self.output, Output::Compact { .. }) && !path.exists() {
            let path = self.dir.join(compact_name(self.rules, sector, Kind::Dtm));
            let codes = match self.compact(sector, Kind::Dtm) {
                Ok(f) => f.raw_codes()?,
                // Left out of a finished one-sided set: found from the successors.
                Err(e) if e.problem.is_missing() && sector.distances_derived(self.rules) => {
                    self.derived(sector)?
                }
                Err(e) => return Err(e),
            };
            return ValueCopy::decode(&codes).map_err(|e| FileError {
                path,
                problem: e.into(),
            });
        }
        decoded(self.dir, self.rules, sector)
    }

    /// The compact file of `kind` of a finished sector.
    fn compact(&self, sector: SectorId, kind: Kind) -> Result<CompactFile, FileError> {
        let path = self.dir.join(compact_name(self.rules, sector, kind));
        CompactFile::open(
            &path,
            (self.rules, sector, kind),
            Arc::new(BlockCache::new(0)),
        )
    }

    /// The values of a finished sector whose `.dtm` file a one-sided set left out,
    /// with the distances its successors' `.dtm` files give them.
    fn derived(&self, sector: SectorId) -> Result<Vec<u8>, FileError> {
        let wdl = self.compact(sector, Kind::Wdl)?;
        let mut next = Vec::new();
        for s in sector.successors(self.rules) {
            next.push((s, self.compact(s, Kind::Dtm)?));
        }
        let source = |s: SectorId| {
            next.iter()
                .find(|(t, _)| *t == s)
                .map(|(_, f)| Source::Compact(f))
        };
        derive_codes(self.rules, sector, Source::Compact(&wdl), source)
            .map_err(|e| FileError::new(wdl.path(), std::io::Error::other(e.to_string())))
    }

    /// A sector's files as found: its raw file, else (in a compact run) its two
    /// compact files, each checked whole.
    fn found(&self, sector: SectorId) -> Found {
        let raw = Found::of(finished(self.dir, self.rules, sector));
        let distances = match self.output {
            Output::Compact { distances, .. } if matches!(raw, Found::Missing) => distances,
            _ => return raw,
        };
        let mut stats = None;
        for kind in Kind::ALL {
            if !distances.keeps_kind(self.rules, sector, kind)
                && !self
                    .dir
                    .join(compact_name(self.rules, sector, kind))
                    .exists()
            {
                continue;
            }
            let path = self.dir.join(compact_name(self.rules, sector, kind));
            let checked = CompactFile::open(
                &path,
                (self.rules, sector, kind),
                Arc::new(BlockCache::new(0)),
            )
            .and_then(|f| {
                f.check()?;
                Ok(f.header().stats)
            });
            match checked {
                Ok(s) => stats = Some(s),
                Err(e) if e.problem.is_missing() => return Found::Missing,
                Err(e) if e.problem.is_bad_file() => return Found::Bad(e),
                Err(e) => return Found::Unreadable(e),
            }
        }
        stats.map_or(Found::Missing, Found::Packed)
    }

    /// Note that the work item of `sector` is done, and in a compact run pack and
    /// remove the raw files no work left reads.
    fn finish(&self, sector: SectorId, reporter: &dyn Reporter) -> Result<(), DriverError> {
        if let Some(&item) = self.items.get(&sector) {
            self.done.borrow_mut().insert(item);
        }
        if self.output == Output::Raw {
            return Ok(());
        }
        let done = self.done.borrow();
        let retired: Vec<SectorId> = self
            .items
            .iter()
            .filter(|(_, i)| done.contains(i))
            .map(|(&s, _)| s)
            .filter(|s| {
                self.readers
                    .get(s)
                    .is_none_or(|r| r.iter().all(|i| done.contains(i)))
            })
            .collect();
        drop(done);
        for s in retired {
            self.retire(s, reporter)?;
        }
        Ok(())
    }

    /// Pack every raw file of the run left (a compact run), then remove the `.dtm`
    /// files a one-sided set leaves out.
    fn retire_all(&self, reporter: &dyn Reporter) -> Result<(), DriverError> {
        let Output::Compact { distances, .. } = self.output else {
            return Ok(());
        };
        let mut sectors: Vec<SectorId> = self.items.keys().copied().collect();
        sectors.sort();
        for &s in &sectors {
            self.retire(s, reporter)?;
        }
        reporter.phase("remove scratch files", 0);
        for s in sectors {
            if !distances.keeps(self.rules, s) {
                let path = self.dir.join(compact_name(self.rules, s, Kind::Dtm));
                match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(FileError::new(&path, e).into())
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// Pack a sector's raw file into its compact files, unless they are there and
    /// packed from it, and remove it.
    fn retire(&self, sector: SectorId, reporter: &dyn Reporter) -> Result<(), DriverError> {
        let path = self.dir.join(file_name(self.rules, sector));
        if !path.exists() {
            return Ok(());
        }
        let Output::Compact { distances, level } = self.output else {
            return Ok(());
        };
        reporter.phase(&format!("pack {sector}"), 0);
        let raw = finished(self.dir, self.rules, sector)?;
        for kind in Kind::ALL {
            let out = self.dir.join(compact_name(self.rules, sector, kind));
            // Bytes the finished set keeps are packed at the run's level; the rest
            // only serve the run (see `SCRATCH_LEVEL`).
            let kept = match kind {
                Kind::Wdl => distances.keeps_values(self.rules, sector),
                Kind::Dtm => distances.keeps(self.rules, sector),
            };
            let level = if kept {
                level.unwrap_or(default_level(kind))
            } else {
                SCRATCH_LEVEL
            };
            // The `.wdl` files keep their values while the run lasts (the classes are
            // built from them); a sparse set is thinned at the end (`pack::thin`).
            match packed_from(&out, (self.rules, sector, kind), &raw, Distances::OneSide) {
                Ok(Some(found)) if !kept || i32::from(found.level) == level => continue,
                // Kept, but packed for speed by a run that left it out (another
                // `--distances`): packed again as the finished set has it.
                Ok(Some(_)) => {}
                Ok(None) => {}
                Err(why) => reporter.log(&format!("{why}; packing it again")),
            }
            pack_sector(&raw, self.dir, kind, level)?;
        }
        drop(raw);
        std::fs::remove_file(&path).map_err(|e| FileError::new(&path, e))?;
        Ok(())
    }
}

/// The zstd level of the compact files a compact run writes for its own use alone:
/// the `.dtm` files a one-sided set leaves out (the placement pass reads the
/// movement sectors' ones, and the run removes them at its end) and the values of
/// the `.wdl` files a sparse set thins at its end (the classes are built from them).
/// None of their bytes reaches the finished set, so they are packed for speed:
/// measured on Standard 6-6 (every 10th block, one thread), level 3 packs `.dtm`
/// blocks in 0.11 s against 1.8 s at level 13, 1.1 times as large (and `.wdl`
/// codes, packed four a byte, at about a thirtieth of level 13's cost).
pub const SCRATCH_LEVEL: i32 = 3;

/// Rewrite every file of `variants` in `dir` that an older version of morris wrote in
/// the current format (see [`convert_file`]), under the directory's lock; `each` hears
/// of every file: converted, current already, or why not (a damaged old file is kept
/// as it is and the others are still converted).
///
/// # Errors
/// [`DriverError`] when the directory cannot be read or locked.
pub fn convert_dir(
    dir: &Path,
    variants: &[Rules],
    each: &mut dyn FnMut(&Path, Result<Converted, FileError>),
) -> Result<(), DriverError> {
    let _lock = lock_dir(dir)?;
    for (rules, sector, path) in table_names(dir)? {
        if variants.contains(&rules) {
            each(&path, convert_file(dir, rules, sector));
        }
    }
    Ok(())
}

/// Create `dir` and take its lock: one writer per directory, released when the
/// process ends, however it ends.
fn lock_dir(dir: &Path) -> Result<std::fs::File, DriverError> {
    std::fs::create_dir_all(dir).map_err(|e| DriverError::Dir(dir.display().to_string(), e))?;
    lock(dir)
}

/// The values of a finished file, decoded to raw `u16`s in memory with huge pages
/// (read at random by the sectors solved from it).
fn decoded(dir: &Path, rules: Rules, sector: SectorId) -> Result<ValueCopy, FileError> {
    let path = dir.join(file_name(rules, sector));
    let f = SectorFile::open(&path, rules, sector)?;
    ValueCopy::decode(f.entries()?).map_err(|e| FileError {
        path,
        problem: e.into(),
    })
}

/// Generate placement sectors `sectors`, given in solving order, whose movement
/// successors are finished in the run's directory.
fn placement_into(
    run: &Run,
    sectors: &[PlacementSector],
    reporter: &dyn Reporter,
) -> Result<Vec<SectorReport>, DriverError> {
    let (dir, rules) = (run.dir, run.rules);
    let mut reports = Vec::new();
    // The successors decoded for the last sector solved. In the solving order a
    // sector shares one of its two successors with the one before (`u-t` reaches
    // `t-(u+1)`, and `u-(t+1)` reaches it by a capture), so that one is kept instead
    // of being decoded again.
    let mut deps: Vec<(SuccessorSector, ValueCopy)> = Vec::new();
    for &sector in sectors {
        let stats = match run.found(sector.into()) {
            Found::Good(f) => Some(f.header().stats),
            Found::Packed(stats) => Some(stats),
            Found::Missing => None,
            Found::Bad(e) => {
                reporter.log(&format!("{e}; regenerating"));
                None
            }
            Found::Unreadable(e) => return Err(DriverError::Unreadable(e)),
        };
        if let Some(stats) = stats {
            let report = SectorReport {
                rules,
                sector: sector.into(),
                stats,
                time: Duration::ZERO,
                peak_memory: None,
                skipped: true,
            };
            reporter.sector_done(&report);
            reports.push(report);
            run.finish(sector.into(), reporter)?;
            continue;
        }
        // Every successor's file was written (or found good) earlier in this run.
        // Those of the last sector it does not need go first, so that no more than
        // one sector's successors are in memory.
        let successors = sector.successors(run.rules);
        reporter.pair_started(rules, &[sector.into()], sector.size(rules.board()));
        reporter.phase("load successors", 0);
        deps.retain(|(t, _)| successors.contains(t));
        for next in successors {
            if !deps.iter().any(|(t, _)| *t == next) {
                deps.push((next, run.decoded(next.into())?));
            }
        }
        reset_peak_memory();
        let clock = Instant::now();
        let lookup =
            |s: SuccessorSector| deps.iter().find(|(t, _)| *t == s).map(|(_, v)| v.values());
        let values = solve_placement(rules, sector, &lookup, reporter)?;
        let time = clock.elapsed();
        reporter.phase("write", 0);
        let header = write_sector(dir, rules, sector, &values)?;
        drop(values);
        reports.push(written(dir, rules, sector, header.stats, time, reporter)?);
        run.finish(sector.into(), reporter)?;
    }
    Ok(reports)
}

/// The report of a sector just written, after reading its file back whole (nothing
/// builds on a file that does not read back).
fn written(
    dir: &Path,
    rules: Rules,
    sector: impl Into<SectorId> + Copy,
    stats: SectorStats,
    time: Duration,
    reporter: &dyn Reporter,
) -> Result<SectorReport, DriverError> {
    // The peak is taken before the read-back, which is not part of the solving.
    let report = SectorReport {
        rules,
        sector: sector.into(),
        stats,
        time,
        peak_memory: peak_memory(),
        skipped: false,
    };
    reporter.phase("read back", 0);
    finished(dir, rules, sector)?;
    reporter.sector_done(&report);
    Ok(report)
}

/// Generate the movement sectors `targets` and what they need; the caller holds the
/// directory's lock.
fn movement_into(
    run: &Run,
    targets: &[Sector],
    reporter: &dyn Reporter,
) -> Result<Vec<SectorReport>, DriverError> {
    let (dir, rules) = (run.dir, run.rules);
    let order = plan(targets);
    // Sectors found valid or written (and read back) in this run.
    let mut finished_here: HashSet<Sector> = HashSet::new();
    let mut reports = Vec::new();
    for &sector in &order {
        if finished_here.contains(&sector) {
            continue;
        }
        let pair: Vec<Sector> = if sector.swapped() == sector {
            vec![sector]
        } else {
            vec![sector, sector.swapped()]
        };
        let mut present = Vec::new();
        for &s in &pair {
            match run.found(s.into()) {
                Found::Good(f) => present.push(f.header().stats),
                Found::Packed(stats) => present.push(stats),
                Found::Missing => {}
                Found::Bad(e) => reporter.log(&format!("{e}; regenerating")),
                Found::Unreadable(e) => return Err(DriverError::Unreadable(e)),
            }
        }
        if present.len() == pair.len() {
            for (&s, stats) in pair.iter().zip(present) {
                let report = SectorReport {
                    rules,
                    sector: s.into(),
                    stats,
                    time: Duration::ZERO,
                    peak_memory: None,
                    skipped: true,
                };
                reporter.sector_done(&report);
                finished_here.insert(s);
                reports.push(report);
            }
            run.finish(sector.into(), reporter)?;
            continue;
        }
        // Load only what this pair's captures reach (files checked whole earlier in
        // this run) into memory with huge pages.
        let ids: Vec<SectorId> = pair.iter().map(|&s| s.into()).collect();
        reporter.pair_started(rules, &ids, positions(rules.board(), &pair));
        reporter.phase("load successors", 0);
        let mut deps: HashMap<Sector, ValueCopy> = HashMap::new();
        for t in pair.iter().filter_map(|s| s.after_capture()) {
            deps.insert(t, run.decoded(t.into())?);
        }
        reset_peak_memory();
        let clock = Instant::now();
        let solved = solve_pair(
            rules,
            sector,
            &|s| deps.get(&s).map(ValueCopy::values),
            reporter,
        )?;
        drop(deps);
        let time = clock.elapsed();
        reporter.phase("write", 0);
        for (s, values) in solved {
            let header = write_sector(dir, rules, s, &values)?;
            drop(values);
            reports.push(written(dir, rules, s, header.stats, time, reporter)?);
            finished_here.insert(s);
        }
        run.finish(sector.into(), reporter)?;
    }
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use super::*;
    use morris_tablebase::file::Problem;
    use std::io;

    fn error(problem: Problem) -> Result<SectorFile, FileError> {
        Err(FileError {
            path: "standard-3-3.tb".into(),
            problem,
        })
    }

    /// Only a file whose content is wrong is regenerated: a file that could not be
    /// read for lack of memory, permissions or an I/O error stops the run.
    #[test]
    fn only_bad_content_is_regenerated() {
        let io = |kind: io::ErrorKind| Problem::Io(io::Error::new(kind, "x"));
        assert!(matches!(
            Found::of(error(io(io::ErrorKind::NotFound))),
            Found::Missing
        ));
        for p in [
            Problem::Checksum { first: 0, last: 9 },
            Problem::BlockSums,
            Problem::Truncated(3),
            Problem::Magic,
            Problem::HeaderChecksum,
            Problem::Reserved(80),
            Problem::Version(9),
            Problem::Length {
                found: 1,
                expected: 2,
            },
        ] {
            assert!(matches!(Found::of(error(p)), Found::Bad(_)));
        }
        for p in [
            io(io::ErrorKind::OutOfMemory),
            io(io::ErrorKind::PermissionDenied),
            io(io::ErrorKind::Other),
            Problem::NotRegular,
            Problem::OldVersion(1),
        ] {
            assert!(matches!(Found::of(error(p)), Found::Unreadable(_)));
        }
    }

    /// A set is finished once every sector it needs has a good file: not before it is
    /// generated, and not once one of them is damaged.
    #[test]
    fn a_set_is_finished_when_every_file_it_needs_is_good() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let four = Sector::new(4, 3).expect("a sector");
        let rules = Rules::NO_FLYING;
        assert!(!is_finished(dir.path(), rules, &[four]));
        generate_into(dir.path(), rules, &[four], &Silent).expect("generated");
        assert!(is_finished(dir.path(), rules, &[four]));
        assert!(!is_finished(dir.path(), Rules::STANDARD, &[four]));
        let three = dir
            .path()
            .join(file_name(rules, Sector::new(3, 3).expect("a sector")));
        let mut bytes = std::fs::read(&three).expect("written");
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&three, bytes).expect("damaged");
        assert!(!is_finished(dir.path(), rules, &[four]));
    }
}
