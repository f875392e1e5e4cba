//! Generating a set of sectors into a directory, resumably.
//!
//! The sectors asked for are extended by everything their captures reach and solved
//! pair by pair in dependency order. A pair whose files are already present and valid
//! (header, size and payload checksum) is skipped, so a run that was cut resumes with
//! the pair it was working on; any other file with a sector's name (stale, truncated,
//! corrupt, of another variant or version) is reported and regenerated.

use crate::file::{file_name, write_sector, FileError, SectorFile};
use crate::generate::{solve_pair, GenerateError, Observer, SectorStats};
use crate::mmap::ValueCopy;
use crate::sector::Sector;
use morris_engine::Variant;
use std::collections::{HashMap, HashSet};
use std::path::Path;
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
    /// The directory could not be created.
    #[error("cannot create tablebase directory {0}: {1}")]
    Dir(String, std::io::Error),
    /// The lock file could not be made or locked.
    #[error("cannot lock {0}: {1}")]
    Lock(String, std::io::Error),
    /// Another process is generating into the same directory.
    #[error(
        "another `morris generate` is writing to {0}; wait for it or use another --tb directory"
    )]
    Busy(String),
}

/// What happened to one sector.
#[derive(Clone, Debug)]
pub struct SectorReport {
    /// The variant.
    pub variant: Variant,
    /// The sector.
    pub sector: Sector,
    /// Counts of its values.
    pub stats: SectorStats,
    /// Time to solve its pair (shared with the mirror), zero when skipped.
    pub time: Duration,
    /// Peak resident memory of the process so far, in bytes, if known.
    pub peak_memory: Option<u64>,
    /// Whether it was already finished.
    pub skipped: bool,
}

/// Receives the events of a run; all methods default to nothing.
pub trait Reporter: Observer {
    /// A line for the log.
    fn log(&self, _line: &str) {}
    /// A pair of sectors starts, with its number of positions.
    fn pair_started(&self, _variant: Variant, _sectors: &[Sector], _positions: u64) {}
    /// A sector is finished (or found finished).
    fn sector_done(&self, _report: &SectorReport) {}
}

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

/// Number of positions (up to symmetry) in these sectors.
pub fn positions(sectors: &[Sector]) -> u64 {
    sectors
        .iter()
        .map(|s| crate::index::orbit_count(s.us as usize, s.them as usize))
        .sum()
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
fn finished(dir: &Path, variant: Variant, sector: Sector) -> Result<SectorFile, FileError> {
    let f = SectorFile::open(&dir.join(file_name(variant, sector)), variant, sector)?;
    f.check_payload()?;
    Ok(f)
}

/// Generate `targets` (and what they need) for `variant` into `dir`.
///
/// # Errors
/// [`DriverError`] when a file cannot be written or the analysis fails; finished
/// files stay valid and a later run resumes from them.
pub fn generate(
    dir: &Path,
    variant: Variant,
    targets: &[Sector],
    reporter: &dyn Reporter,
) -> Result<Vec<SectorReport>, DriverError> {
    std::fs::create_dir_all(dir).map_err(|e| DriverError::Dir(dir.display().to_string(), e))?;
    // One writer per directory: the lock is released when the process ends, however
    // it ends.
    let lock_path = dir.join(".generate.lock");
    let lock = std::fs::File::create(&lock_path)
        .map_err(|e| DriverError::Lock(lock_path.display().to_string(), e))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(DriverError::Busy(dir.display().to_string()))
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(DriverError::Lock(lock_path.display().to_string(), e))
        }
    }
    let order = plan(targets);
    // Sectors found valid or written (and read back) in this run.
    let mut finished_here: HashSet<Sector> = HashSet::new();
    let mut reports = Vec::new();
    for &sector in &order {
        if finished_here.contains(&sector) {
            continue;
        }
        let pair: Vec<Sector> = if sector.mirror() == sector {
            vec![sector]
        } else {
            vec![sector, sector.mirror()]
        };
        let mut present = Vec::new();
        for &s in &pair {
            match finished(dir, variant, s) {
                Ok(f) => present.push(f),
                Err(e) if matches!(e.problem, crate::file::Problem::Io(ref io) if io.kind() == std::io::ErrorKind::NotFound) =>
                    {}
                Err(e) => reporter.log(&format!("{e}; regenerating")),
            }
        }
        if present.len() == pair.len() {
            for f in present {
                let report = SectorReport {
                    variant,
                    sector: f.header().sector,
                    stats: f.header().stats,
                    time: Duration::ZERO,
                    peak_memory: None,
                    skipped: true,
                };
                reporter.sector_done(&report);
                finished_here.insert(report.sector);
                reports.push(report);
            }
            continue;
        }
        // Load only what this pair's captures reach (files checked whole earlier in
        // this run) into memory with huge pages.
        let mut deps: HashMap<Sector, ValueCopy> = HashMap::new();
        for t in pair.iter().filter_map(|s| s.after_capture()) {
            let path = dir.join(file_name(variant, t));
            let f = SectorFile::open(&path, variant, t)?;
            let copy = ValueCopy::of(f.values()).map_err(|e| FileError {
                path,
                problem: e.into(),
            })?;
            deps.insert(t, copy);
        }
        reporter.pair_started(variant, &pair, positions(&pair));
        reset_peak_memory();
        let clock = Instant::now();
        let solved = solve_pair(
            variant,
            sector,
            &|s| deps.get(&s).map(ValueCopy::values),
            reporter,
        )?;
        let time = clock.elapsed();
        reporter.phase("write", 0);
        for (s, values) in solved {
            let header = write_sector(dir, variant, s, &values)?;
            drop(values);
            let report = SectorReport {
                variant,
                sector: s,
                stats: header.stats,
                time,
                peak_memory: peak_memory(),
                skipped: false,
            };
            // Read the file back whole before anything builds on it.
            finished(dir, variant, s)?;
            reporter.sector_done(&report);
            finished_here.insert(s);
            reports.push(report);
        }
    }
    Ok(reports)
}
