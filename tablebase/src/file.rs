//! The on-disk format of a sector, writing it safely and opening it in layers.
//!
//! One file per variant and sector, named `<variant>-<us>-<them>.tb` (for example
//! `standard-8-9.tb`). Little-endian throughout:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `MORRISTB` |
//! | 8 | 4 | format version (1) |
//! | 12 | 1 | variant: 0 standard, 1 no-flying |
//! | 13 | 1 | pieces of the side to move |
//! | 14 | 1 | pieces of the opponent |
//! | 15 | 1 | value encoding: 1 = `u16`, 0 draw, `n` decided with DTM `n - 1` |
//! | 16 | 8 | entry count (positions up to symmetry, in [`crate::index`] order) |
//! | 24 | 8 | xxh3-64 of the payload |
//! | 32 | 8, 8, 8 | wins, draws, losses |
//! | 56 | 2, 2 | longest win, longest loss (plies) |
//! | 60 | 4 | zero |
//! | 64 | 8 | xxh3-64 of bytes 0..64 |
//! | 72 | 56 | zero |
//! | 128 | 2 * count | payload: one `u16` per entry |
//!
//! Writing goes to `<name>.tmp`, is synced, then renamed: a file with the final name
//! is always complete. Opening checks, in order and before mapping or reading the
//! payload: that the name is a regular file (opened without blocking, so a FIFO
//! cannot hang the program), that it holds at least a header, the header's magic,
//! checksum, version, encoding, variant and sector against the name, the entry count
//! against the sector's size, then that the length is exactly header plus payload.
//! The payload checksum is checked on the first use of the values, and no value is
//! handed out before (see [`SectorFile`]).

use crate::generate::SectorStats;
use crate::index::SectorIndex;
use crate::mmap::MappedFile;
use crate::sector::Sector;
use morris_engine::Variant;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use thiserror::Error;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

#[cfg(target_endian = "big")]
compile_error!("tablebase files are little-endian and mapped as native u16");

/// Magic bytes at the start of every file.
pub const MAGIC: [u8; 8] = *b"MORRISTB";
/// The format version this code reads and writes.
pub const VERSION: u32 = 1;
/// Bytes before the payload.
pub const HEADER_LEN: usize = 128;
/// The only value encoding so far.
pub const ENCODING_DTM16: u8 = 1;

/// What is wrong with a tablebase file.
#[derive(Debug, Error)]
pub enum Problem {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// Shorter than a header.
    #[error("truncated: {0} bytes, shorter than the {HEADER_LEN}-byte header")]
    Truncated(u64),
    /// A reserved header byte is not zero.
    #[error("corrupt header (reserved byte {0} is not zero)")]
    Reserved(usize),
    /// Not a tablebase file.
    #[error("not a morris tablebase file (bad magic bytes)")]
    Magic,
    /// The header checksum does not match.
    #[error("corrupt header (checksum mismatch)")]
    HeaderChecksum,
    /// A format version this code does not know.
    #[error("format version {0}, this program reads version {VERSION}")]
    Version(u32),
    /// An unknown value encoding.
    #[error("unknown value encoding {0}")]
    Encoding(u8),
    /// The header's variant differs from the name's.
    #[error("holds the {found} variant, but the name says {expected}")]
    Variant {
        /// From the name.
        expected: Variant,
        /// From the header.
        found: String,
    },
    /// The header's sector differs from the name's.
    #[error("holds sector {found}, but the name says {expected}")]
    Sector {
        /// From the name.
        expected: Sector,
        /// From the header.
        found: String,
    },
    /// The entry count is not the sector's size.
    #[error("has {found} entries, sector {sector} has {expected}")]
    Entries {
        /// The sector.
        sector: Sector,
        /// From the header.
        found: u64,
        /// The sector's size.
        expected: u64,
    },
    /// The length is not header plus payload.
    #[error("is {found} bytes, expected {expected} (truncated or padded)")]
    Length {
        /// Actual length.
        found: u64,
        /// Header plus payload.
        expected: u64,
    },
    /// The payload checksum does not match.
    #[error("corrupt payload (checksum mismatch)")]
    Checksum,
    /// Not a regular file (a directory, a FIFO, a device).
    #[error("not a regular file")]
    NotRegular,
    /// A stored value the header rules out, or an index beyond the sector: the file
    /// changed after its checksum was checked, or was written wrongly.
    #[error("corrupt: entry {index} (of {entries}) is out of range or contradicts the header")]
    Implausible {
        /// The entry read.
        index: u64,
        /// Entries in the file.
        entries: u64,
    },
}

impl Problem {
    /// Whether the file itself is bad (wrong content, length or kind), as opposed to
    /// a failure to read a file that may well be good (out of memory, permissions, an
    /// I/O error): only a bad file may be replaced by generating it again.
    pub fn is_bad_file(&self) -> bool {
        !matches!(self, Problem::Io(_) | Problem::NotRegular)
    }

    /// Whether the file does not exist.
    pub fn is_missing(&self) -> bool {
        matches!(self, Problem::Io(e) if e.kind() == io::ErrorKind::NotFound)
    }
}

/// A problem with a named file.
#[derive(Debug, Error)]
#[error("{}: {problem}", path.display())]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub problem: Problem,
}

impl FileError {
    fn new(path: &Path, problem: impl Into<Problem>) -> FileError {
        FileError {
            path: path.to_path_buf(),
            problem: problem.into(),
        }
    }
}

/// The file name of a sector.
pub fn file_name(variant: Variant, sector: Sector) -> String {
    format!("{}-{}-{}.tb", variant.name(), sector.us, sector.them)
}

/// The variant and sector a file name stands for, if it is a tablebase name.
pub fn parse_file_name(name: &str) -> Option<(Variant, Sector)> {
    let stem = name.strip_suffix(".tb")?;
    let (rest, them) = stem.rsplit_once('-')?;
    let (variant, us) = rest.rsplit_once('-')?;
    let variant = Variant::ALL.into_iter().find(|v| v.name() == variant)?;
    let sector = Sector::new(us.parse().ok()?, them.parse().ok()?)?;
    // Only the canonical spelling: `standard-03-3.tb` is not a sector file.
    (file_name(variant, sector) == name).then_some((variant, sector))
}

/// The decoded header of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The variant.
    pub variant: Variant,
    /// The sector.
    pub sector: Sector,
    /// Number of entries.
    pub entries: u64,
    /// xxh3-64 of the payload.
    pub checksum: u64,
    /// Counts of the values.
    pub stats: SectorStats,
}

impl Header {
    fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12] = match self.variant {
            Variant::Standard => 0,
            Variant::NoFlying => 1,
        };
        h[13] = self.sector.us;
        h[14] = self.sector.them;
        h[15] = ENCODING_DTM16;
        h[16..24].copy_from_slice(&self.entries.to_le_bytes());
        h[24..32].copy_from_slice(&self.checksum.to_le_bytes());
        h[32..40].copy_from_slice(&self.stats.wins.to_le_bytes());
        h[40..48].copy_from_slice(&self.stats.draws.to_le_bytes());
        h[48..56].copy_from_slice(&self.stats.losses.to_le_bytes());
        h[56..58].copy_from_slice(&self.stats.longest_win.to_le_bytes());
        h[58..60].copy_from_slice(&self.stats.longest_loss.to_le_bytes());
        let sum = xxh3_64(&h[0..64]);
        h[64..72].copy_from_slice(&sum.to_le_bytes());
        h
    }

    fn decode(h: &[u8; HEADER_LEN], expected: (Variant, Sector)) -> Result<Header, Problem> {
        let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().unwrap_or_default());
        let u16_at = |i: usize| u16::from_le_bytes([h[i], h[i + 1]]);
        if h[0..8] != MAGIC {
            return Err(Problem::Magic);
        }
        if xxh3_64(&h[0..64]) != u64_at(64) {
            return Err(Problem::HeaderChecksum);
        }
        // The reserved bytes after the checksum are not covered by it: they must be
        // zero, so that no byte of a file goes unchecked.
        if let Some(at) = h[72..].iter().position(|&b| b != 0) {
            return Err(Problem::Reserved(72 + at));
        }
        let version = u32::from_le_bytes([h[8], h[9], h[10], h[11]]);
        if version != VERSION {
            return Err(Problem::Version(version));
        }
        if h[15] != ENCODING_DTM16 {
            return Err(Problem::Encoding(h[15]));
        }
        let variant = match h[12] {
            0 => Variant::Standard,
            1 => Variant::NoFlying,
            n => {
                return Err(Problem::Variant {
                    expected: expected.0,
                    found: format!("unknown ({n})"),
                })
            }
        };
        if variant != expected.0 {
            return Err(Problem::Variant {
                expected: expected.0,
                found: variant.name().to_string(),
            });
        }
        if (h[13], h[14]) != (expected.1.us, expected.1.them) {
            return Err(Problem::Sector {
                expected: expected.1,
                found: format!("{}-{}", h[13], h[14]),
            });
        }
        let entries = u64_at(16);
        Ok(Header {
            variant,
            sector: expected.1,
            entries,
            checksum: u64_at(24),
            stats: SectorStats {
                positions: entries,
                wins: u64_at(32),
                draws: u64_at(40),
                losses: u64_at(48),
                longest_win: u16_at(56),
                longest_loss: u16_at(58),
            },
        })
    }
}

/// Write a sector's values to `dir`, safely (temporary file, sync, rename).
///
/// # Errors
/// A [`FileError`] naming the file; no file with the final name is left behind
/// unless it is complete.
pub fn write_sector(
    dir: &Path,
    variant: Variant,
    sector: Sector,
    values: &[u16],
) -> Result<Header, FileError> {
    let path = dir.join(file_name(variant, sector));
    let tmp = dir.join(format!("{}.tmp", file_name(variant, sector)));
    let payload: &[u8] = bytemuck::cast_slice(values);
    let header = Header {
        variant,
        sector,
        entries: values.len() as u64,
        checksum: xxh3_64(payload),
        stats: SectorStats::of(values),
    };
    let write = || -> io::Result<()> {
        // A stale temporary file (or a link planted under its name) is removed, not
        // written through.
        match fs::remove_file(&tmp) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(&header.encode())?;
        f.write_all(payload)?;
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, &path)?;
        // Make the rename itself durable.
        File::open(dir)?.sync_all()
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        FileError::new(&path, e)
    })?;
    Ok(header)
}

/// Where an opened file's payload is read from.
#[derive(Debug)]
enum Payload {
    /// Mapped at open.
    Mapped(MappedFile),
    /// Read into memory on first use, from this handle on the file opened (so a file
    /// renamed over it later does not mix with it).
    Read(File),
}

/// Why the first use of a payload failed, kept so every later use fails alike.
#[derive(Debug, Clone)]
enum Failure {
    Checksum,
    Io(io::ErrorKind, String),
}

impl Failure {
    fn problem(&self) -> Problem {
        match self {
            Failure::Checksum => Problem::Checksum,
            Failure::Io(kind, message) => Problem::Io(io::Error::new(*kind, message.clone())),
        }
    }
}

/// An opened, header-checked sector file whose payload is checked against its checksum
/// the first time it is used.
///
/// The policy: no value is ever read from a payload that has not been checked whole
/// in this process. [`SectorFile::values`] hashes the payload on its first call (and,
/// for a file opened with [`SectorFile::open`], reads it into memory then) and keeps
/// the verdict, so a damaged file is an error naming it from the first use on, never
/// an answer. The cost is one pass over each file a process uses.
#[derive(Debug)]
pub struct SectorFile {
    path: PathBuf,
    header: Header,
    index: OnceLock<Arc<SectorIndex>>,
    payload: Payload,
    /// The verdict of the first use: for a file read into memory, the values read.
    checked: OnceLock<Result<Option<Box<[u16]>>, Failure>>,
}

/// Open `path` for reading without blocking (a FIFO under a table's name must not hang
/// the program) and check that it is a regular file.
fn open_regular(path: &Path) -> Result<File, Problem> {
    // Checked before opening, because opening some special files has effects of its
    // own; checked again on the handle, because the name may have changed meanwhile.
    if !fs::metadata(path)?.is_file() {
        return Err(Problem::NotRegular);
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(Problem::NotRegular);
    }
    Ok(file)
}

impl SectorFile {
    /// Open the file of `variant` and `sector` at `path`, checking its header and
    /// length; the payload is read into memory and checked on first use. Safe whatever
    /// happens to the file afterwards.
    ///
    /// # Errors
    /// A [`FileError`] naming the file and the first problem found.
    pub fn open(path: &Path, variant: Variant, sector: Sector) -> Result<SectorFile, FileError> {
        let (file, header) = SectorFile::open_header(path, variant, sector)?;
        Ok(SectorFile::new(path, header, Payload::Read(file)))
    }

    /// Open the file of `variant` and `sector` at `path` like [`SectorFile::open`], but
    /// memory-map the payload instead of reading it: no copy, and pages load on demand.
    ///
    /// # Safety
    /// Nobody may modify or truncate the file while the returned value lives (the
    /// bytes would change under the reader, or the process be killed by SIGBUS).
    /// Replacing the file by renaming another over it is fine.
    ///
    /// # Errors
    /// A [`FileError`] naming the file and the first problem found.
    // Only passes the mapping contract of `crate::mmap` on to the caller.
    #[allow(unsafe_code)]
    pub unsafe fn open_mapped(
        path: &Path,
        variant: Variant,
        sector: Sector,
    ) -> Result<SectorFile, FileError> {
        let (file, header) = SectorFile::open_header(path, variant, sector)?;
        // SAFETY: the caller's promise, passed on.
        let map = unsafe { MappedFile::map(&file, payload_end(&header)) }
            .map_err(|e| FileError::new(path, e))?;
        Ok(SectorFile::new(path, header, Payload::Mapped(map)))
    }

    fn new(path: &Path, header: Header, payload: Payload) -> SectorFile {
        SectorFile {
            path: path.to_path_buf(),
            header,
            index: OnceLock::new(),
            payload,
            checked: OnceLock::new(),
        }
    }

    /// Open the file and check everything but the payload.
    fn open_header(
        path: &Path,
        variant: Variant,
        sector: Sector,
    ) -> Result<(File, Header), FileError> {
        let err = |p: Problem| FileError::new(path, p);
        let mut file = open_regular(path).map_err(err)?;
        let len = file.metadata().map_err(|e| err(e.into()))?.len();
        if len < HEADER_LEN as u64 {
            return Err(err(Problem::Truncated(len)));
        }
        let mut raw = [0u8; HEADER_LEN];
        file.read_exact(&mut raw).map_err(|e| err(e.into()))?;
        let header = Header::decode(&raw, (variant, sector)).map_err(err)?;
        let expected = crate::index::orbit_count(sector.us as usize, sector.them as usize);
        if header.entries != expected {
            return Err(err(Problem::Entries {
                sector,
                found: header.entries,
                expected,
            }));
        }
        let want = payload_end(&header);
        if len != want {
            return Err(err(Problem::Length {
                found: len,
                expected: want,
            }));
        }
        Ok((file, header))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The decoded header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The index of the file's sector, built on first use.
    pub fn index(&self) -> &SectorIndex {
        let s = self.header.sector;
        self.index
            .get_or_init(|| SectorIndex::get(s.us as usize, s.them as usize))
    }

    /// The stored values, one per index, after the payload has been checked whole
    /// against the header's checksum (on the first call; the verdict is kept).
    ///
    /// # Errors
    /// [`Problem::Checksum`] for a damaged payload, or the error reading it, naming
    /// the file; every later call fails the same way.
    pub fn values(&self) -> Result<&[u16], FileError> {
        let verdict = self.checked.get_or_init(|| self.check());
        match (verdict, &self.payload) {
            (Err(failure), _) => Err(FileError::new(&self.path, failure.problem())),
            (Ok(Some(read)), _) => Ok(read),
            (Ok(None), Payload::Mapped(map)) => Ok(mapped_values(map)),
            (Ok(None), Payload::Read(_)) => Err(FileError::new(
                &self.path,
                Problem::Io(io::Error::other("internal error: payload never read")),
            )),
        }
    }

    /// The value stored at `index`, checked: the payload's checksum (on first use)
    /// and the value against the header (a win no longer than the longest win, a loss
    /// no longer than the longest loss).
    ///
    /// # Errors
    /// A [`FileError`] naming the file: a damaged payload, an index beyond the sector,
    /// or a value that the header rules out.
    pub fn value(&self, index: u64) -> Result<crate::sector::Value, FileError> {
        let values = self.values()?;
        let implausible = || {
            FileError::new(
                &self.path,
                Problem::Implausible {
                    index,
                    entries: self.header.entries,
                },
            )
        };
        let raw = usize::try_from(index)
            .ok()
            .and_then(|i| values.get(i))
            .ok_or_else(implausible)?;
        let v = crate::sector::Value(*raw);
        if v.is_well_formed() && self.plausible(v) {
            Ok(v)
        } else {
            Err(implausible())
        }
    }

    /// Whether a stored value fits the header (checked by its own checksum): a win no
    /// longer than the longest win, a loss no longer than the longest loss.
    pub fn plausible(&self, v: crate::sector::Value) -> bool {
        let s = &self.header.stats;
        match (v.wdl(), v.dtm()) {
            (crate::sector::Wdl::Win, Some(d)) => d <= s.longest_win,
            (crate::sector::Wdl::Loss, Some(d)) => d <= s.longest_loss,
            _ => true,
        }
    }

    /// Check the payload checksum (on the first use of the file; the verdict is kept).
    ///
    /// # Errors
    /// [`Problem::Checksum`] naming the file, or the error reading it.
    pub fn check_payload(&self) -> Result<(), FileError> {
        self.values().map(|_| ())
    }

    /// Read (when not mapped) and hash the payload.
    fn check(&self) -> Result<Option<Box<[u16]>>, Failure> {
        let good = |values: &[u16]| payload_sum(values) == self.header.checksum;
        match &self.payload {
            Payload::Mapped(map) => match good(mapped_values(map)) {
                true => Ok(None),
                false => Err(Failure::Checksum),
            },
            Payload::Read(file) => {
                let read = read_payload(file, &self.header)
                    .map_err(|e| Failure::Io(e.kind(), e.to_string()))?;
                match good(&read) {
                    true => Ok(Some(read)),
                    false => Err(Failure::Checksum),
                }
            }
        }
    }
}

/// The length of a file: header plus payload.
fn payload_end(header: &Header) -> u64 {
    HEADER_LEN as u64 + 2 * header.entries
}

/// The values of a mapped file (its length was checked against the header at open).
fn mapped_values(map: &MappedFile) -> &[u16] {
    // The mapping is page-aligned and the header 128 bytes, so the payload is aligned
    // for `u16`, and its length is even: the cast cannot fail.
    bytemuck::cast_slice(&map.bytes()[HEADER_LEN..])
}

/// xxh3-64 of a payload, hashed in chunks.
fn payload_sum(values: &[u16]) -> u64 {
    let mut h = Xxh3::new();
    for chunk in bytemuck::cast_slice::<u16, u8>(values).chunks(1 << 24) {
        h.update(chunk);
    }
    h.digest()
}

/// Read a payload into memory.
fn read_payload(file: &File, header: &Header) -> io::Result<Box<[u16]>> {
    let n = usize::try_from(header.entries).map_err(|_| io::Error::other("sector too large"))?;
    let mut values: Vec<u16> = Vec::new();
    values.try_reserve_exact(n).map_err(|_| {
        io::Error::new(
            io::ErrorKind::OutOfMemory,
            "cannot allocate memory to read the file",
        )
    })?;
    values.resize(n, 0);
    let bytes = bytemuck::cast_slice_mut::<u16, u8>(&mut values);
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(bytes, HEADER_LEN as u64)?;
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(HEADER_LEN as u64))?;
        f.read_exact(bytes)?;
    }
    Ok(values.into_boxed_slice())
}
