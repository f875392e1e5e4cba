//! The on-disk format of a sector, writing it safely and opening it in layers.
//!
//! One file per variant and sector. A movement sector (both hands empty) is named
//! `<variant>-<us>-<them>.tb` (for example `standard-8-9.tb`) and has format version 1;
//! a placement sector is named `<variant>-<us>-<them>+<us_hand>-<them_hand>.tb` (for
//! example `standard-3-4+5-4.tb`, as [`PlacementSector`] prints) and has format
//! version 2. Little-endian throughout:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `MORRISTB` |
//! | 8 | 4 | format version: 1 movement, 2 placement |
//! | 12 | 1 | variant: 0 standard, 1 no-flying |
//! | 13 | 1 | pieces of the side to move on the board |
//! | 14 | 1 | pieces of the opponent on the board |
//! | 15 | 1 | value encoding: 1 (version 1) or 2 (version 2), below |
//! | 16 | 8 | entry count (positions up to symmetry, in [`crate::index`] order) |
//! | 24 | 8 | xxh3-64 of the payload |
//! | 32 | 8, 8, 8 | wins, draws, losses |
//! | 56 | 2, 2 | longest win, longest loss (plies) |
//! | 60 | 1, 1 | pieces in hand of the side to move, of the opponent (zero in version 1) |
//! | 62 | 2 | zero |
//! | 64 | 8 | xxh3-64 of bytes 0..64 |
//! | 72 | 56 | zero |
//! | 128 | count or 2 * count | payload: one entry per position |
//!
//! Encoding 1: one `u16` per entry, the raw [`Value`] (0 draw, `n` decided with DTM
//! `n - 1`). Encoding 2: one byte per entry, 0 draw, 1 to 236 decided with DTM
//! `code - 1` and the usual parity (won exactly when the DTM is odd), 237 to 255
//! decided with DTM `code - 237` (0 to 18) and the inverted result (see [`Value`]).
//! A value that does not fit is an error at write time, never stored wrongly.
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
use crate::placement::PlacementSector;
use crate::sector::{Sector, SectorId, Value};
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
/// The format version of movement sectors.
pub const VERSION: u32 = 1;
/// The format version of placement sectors.
pub const VERSION_PLACEMENT: u32 = 2;
/// Bytes before the payload.
pub const HEADER_LEN: usize = 128;
/// The value encoding of movement sectors: one `u16` an entry.
pub const ENCODING_DTM16: u8 = 1;
/// The value encoding of placement sectors: one byte an entry.
pub const ENCODING_DTM8: u8 = 2;
/// Largest code of a plain value in encoding 2 (DTM 235).
const BYTE_PLAIN_MAX: u8 = 236;
/// First code of an inverted value in encoding 2 (DTM 0).
const BYTE_INVERTED: u8 = 237;

/// The byte of a value in encoding 2, or `None` when it does not fit.
pub fn encode_byte(v: Value) -> Option<u8> {
    let plain = v.0 & 0x7FFF;
    if !v.is_well_formed() {
        None
    } else if v.is_inverted() {
        u8::try_from(plain - 1)
            .ok()
            .and_then(|d| d.checked_add(BYTE_INVERTED))
    } else {
        u8::try_from(plain).ok().filter(|&b| b <= BYTE_PLAIN_MAX)
    }
}

/// The value of a byte of encoding 2 (every byte is one).
pub fn decode_byte(b: u8) -> Value {
    if b >= BYTE_INVERTED {
        Value(0x8000 | u16::from(b - BYTE_INVERTED + 1))
    } else {
        Value(u16::from(b))
    }
}

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
    #[error("format version {0}, this program reads versions {VERSION} (movement) and {VERSION_PLACEMENT} (placement)")]
    Version(u32),
    /// An unknown value encoding, or one its version does not use.
    #[error("value encoding {0}, which its format version does not use")]
    Encoding(u8),
    /// A placement file's bytes asked for as the `u16` values of a movement file.
    #[error("holds one byte a value (a placement sector), not the u16 values asked for")]
    Narrow,
    /// A value the file's encoding cannot hold (refused at write time).
    #[error("entry {index} holds {value}, which value encoding {encoding} cannot store")]
    Unencodable {
        /// The entry.
        index: u64,
        /// The value.
        value: Value,
        /// The encoding.
        encoding: u8,
    },
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
        expected: SectorId,
        /// From the header.
        found: String,
    },
    /// The entry count is not the sector's size.
    #[error("has {found} entries, sector {sector} has {expected}")]
    Entries {
        /// The sector.
        sector: SectorId,
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

/// The file name of a sector (movement or placement).
pub fn file_name(variant: Variant, sector: impl Into<SectorId>) -> String {
    format!("{}-{}.tb", variant.name(), sector.into())
}

/// The variant and sector a file name stands for, if it is a tablebase name.
pub fn parse_file_name(name: &str) -> Option<(Variant, SectorId)> {
    let stem = name.strip_suffix(".tb")?;
    let (board, hands) = match stem.split_once('+') {
        Some((board, hands)) => (board, Some(hands)),
        None => (stem, None),
    };
    let (rest, them) = board.rsplit_once('-')?;
    let (variant, us) = rest.rsplit_once('-')?;
    let variant = Variant::ALL.into_iter().find(|v| v.name() == variant)?;
    let sector = match hands {
        None => SectorId::Movement(Sector::new(us.parse().ok()?, them.parse().ok()?)?),
        Some(hands) => SectorId::Placement(format!("{us}-{them}+{hands}").parse().ok()?),
    };
    // Only the canonical spelling: `standard-03-3.tb` is not a sector file.
    (file_name(variant, sector) == name).then_some((variant, sector))
}

/// The decoded header of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The variant.
    pub variant: Variant,
    /// The sector.
    pub sector: SectorId,
    /// Number of entries.
    pub entries: u64,
    /// xxh3-64 of the payload.
    pub checksum: u64,
    /// Counts of the values.
    pub stats: SectorStats,
}

impl Header {
    /// The format version and value encoding of the header's kind of sector.
    fn format(&self) -> (u32, u8) {
        match self.sector {
            SectorId::Movement(_) => (VERSION, ENCODING_DTM16),
            SectorId::Placement(_) => (VERSION_PLACEMENT, ENCODING_DTM8),
        }
    }

    /// Bytes of one entry of the payload.
    pub fn entry_width(&self) -> u64 {
        match self.sector {
            SectorId::Movement(_) => 2,
            SectorId::Placement(_) => 1,
        }
    }

    fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        let (version, encoding) = self.format();
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&version.to_le_bytes());
        h[12] = match self.variant {
            Variant::Standard => 0,
            Variant::NoFlying => 1,
        };
        (h[13], h[14]) = self.sector.board();
        if let SectorId::Placement(p) = self.sector {
            (h[60], h[61]) = (p.us_hand, p.them_hand);
        }
        h[15] = encoding;
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

    fn decode(h: &[u8; HEADER_LEN], expected: (Variant, SectorId)) -> Result<Header, Problem> {
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
        let encoding = match version {
            VERSION => ENCODING_DTM16,
            VERSION_PLACEMENT => ENCODING_DTM8,
            _ => return Err(Problem::Version(version)),
        };
        if h[15] != encoding {
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
        // Version 1 has no hands (bytes 60 and 61 are zero, under the checksum).
        let found = if version == VERSION {
            format!("{}-{}", h[13], h[14])
        } else {
            format!("{}-{}+{}-{}", h[13], h[14], h[60], h[61])
        };
        if found != expected.1.to_string() {
            return Err(Problem::Sector {
                expected: expected.1,
                found,
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
    write_file(
        dir,
        variant,
        sector.into(),
        values,
        bytemuck::cast_slice(values),
    )
}

/// Write a placement sector's values (raw [`Value`]s) to `dir` in encoding 2, one byte
/// an entry, safely (temporary file, sync, rename).
///
/// # Errors
/// A [`FileError`] naming the file: [`Problem::Unencodable`] for a value one byte
/// cannot hold (nothing is written then), or a failure to write; no file with the
/// final name is left behind unless it is complete.
pub fn write_placement(
    dir: &Path,
    variant: Variant,
    sector: PlacementSector,
    values: &[u16],
) -> Result<Header, FileError> {
    let path = dir.join(file_name(variant, sector));
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(values.len())
        .map_err(|_| FileError::new(&path, io::Error::from(io::ErrorKind::OutOfMemory)))?;
    for (i, &raw) in values.iter().enumerate() {
        let code = encode_byte(Value(raw)).ok_or_else(|| {
            FileError::new(
                &path,
                Problem::Unencodable {
                    index: i as u64,
                    value: Value(raw),
                    encoding: ENCODING_DTM8,
                },
            )
        })?;
        bytes.push(code);
    }
    write_file(dir, variant, sector.into(), values, &bytes)
}

/// Write `payload`, the encoding of `values`, under the sector's name.
fn write_file(
    dir: &Path,
    variant: Variant,
    sector: SectorId,
    values: &[u16],
    payload: &[u8],
) -> Result<Header, FileError> {
    let path = dir.join(file_name(variant, sector));
    let tmp = dir.join(format!("{}.tmp", file_name(variant, sector)));
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

/// A payload read into memory.
#[derive(Debug)]
enum Owned {
    Wide(Box<[u16]>),
    Narrow(Box<[u8]>),
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

/// The checked entries of a file, in its encoding.
#[derive(Clone, Copy, Debug)]
pub enum Values<'a> {
    /// Encoding 1: raw [`Value`]s.
    Wide(&'a [u16]),
    /// Encoding 2: one code a position (see the module documentation).
    Narrow(&'a [u8]),
}

impl Values<'_> {
    /// Number of entries.
    pub fn len(&self) -> usize {
        match self {
            Values::Wide(v) => v.len(),
            Values::Narrow(v) => v.len(),
        }
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of entry `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<Value> {
        match self {
            Values::Wide(v) => v.get(i).map(|&raw| Value(raw)),
            Values::Narrow(v) => v.get(i).map(|&b| decode_byte(b)),
        }
    }

    /// Every value decoded to its raw `u16`, in a new vector.
    ///
    /// # Errors
    /// An out-of-memory error when the vector cannot be had.
    pub fn to_raw(&self) -> io::Result<Vec<u16>> {
        let mut out = Vec::new();
        out.try_reserve_exact(self.len()).map_err(|_| {
            io::Error::new(
                io::ErrorKind::OutOfMemory,
                "cannot allocate memory to decode the file",
            )
        })?;
        match self {
            Values::Wide(v) => out.extend_from_slice(v),
            Values::Narrow(v) => out.extend(v.iter().map(|&b| decode_byte(b).0)),
        }
        Ok(out)
    }
}

/// An opened, header-checked sector file whose payload is checked against its checksum
/// the first time it is used.
///
/// The policy: no value is ever read from a payload that has not been checked whole
/// in this process. [`SectorFile::entries`] hashes the payload on its first call (and,
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
    checked: OnceLock<Result<Option<Owned>, Failure>>,
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
    pub fn open(
        path: &Path,
        variant: Variant,
        sector: impl Into<SectorId>,
    ) -> Result<SectorFile, FileError> {
        let (file, header) = SectorFile::open_header(path, variant, sector.into())?;
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
        sector: impl Into<SectorId>,
    ) -> Result<SectorFile, FileError> {
        let (file, header) = SectorFile::open_header(path, variant, sector.into())?;
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
        sector: SectorId,
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
        let (us, them) = sector.board();
        let expected = crate::index::orbit_count(usize::from(us), usize::from(them));
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

    /// The index of the file's board, built on first use.
    pub fn index(&self) -> &SectorIndex {
        let (us, them) = self.header.sector.board();
        self.index
            .get_or_init(|| SectorIndex::get(usize::from(us), usize::from(them)))
    }

    /// The stored entries, one per index, in the file's encoding, after the payload
    /// has been checked whole against the header's checksum (on the first call; the
    /// verdict is kept).
    ///
    /// # Errors
    /// [`Problem::Checksum`] for a damaged payload, or the error reading it, naming
    /// the file; every later call fails the same way.
    pub fn entries(&self) -> Result<Values<'_>, FileError> {
        let verdict = self.checked.get_or_init(|| self.check());
        match (verdict, &self.payload) {
            (Err(failure), _) => Err(FileError::new(&self.path, failure.problem())),
            (Ok(Some(Owned::Wide(read))), _) => Ok(Values::Wide(read)),
            (Ok(Some(Owned::Narrow(read))), _) => Ok(Values::Narrow(read)),
            (Ok(None), Payload::Mapped(map)) => Ok(self.mapped(map)),
            (Ok(None), Payload::Read(_)) => Err(FileError::new(
                &self.path,
                Problem::Io(io::Error::other("internal error: payload never read")),
            )),
        }
    }

    /// The stored values of a movement file (encoding 1), checked as by
    /// [`SectorFile::entries`].
    ///
    /// # Errors
    /// As [`SectorFile::entries`], and [`Problem::Narrow`] for a placement file,
    /// whose entries are bytes (use [`SectorFile::entries`]).
    pub fn values(&self) -> Result<&[u16], FileError> {
        match self.entries()? {
            Values::Wide(v) => Ok(v),
            Values::Narrow(_) => Err(FileError::new(&self.path, Problem::Encoding(ENCODING_DTM8))),
        }
    }

    /// The value stored at `index`, checked: the payload's checksum (on first use)
    /// and the value against the header (a win no longer than the longest win, a loss
    /// no longer than the longest loss).
    ///
    /// # Errors
    /// A [`FileError`] naming the file: a damaged payload, an index beyond the sector,
    /// or a value that the header rules out.
    pub fn value(&self, index: u64) -> Result<Value, FileError> {
        let values = self.entries()?;
        let implausible = || {
            FileError::new(
                &self.path,
                Problem::Implausible {
                    index,
                    entries: self.header.entries,
                },
            )
        };
        let v = usize::try_from(index)
            .ok()
            .and_then(|i| values.get(i))
            .ok_or_else(implausible)?;
        if self.plausible(v) {
            Ok(v)
        } else {
            Err(implausible())
        }
    }

    /// Whether a stored value fits the header (checked by its own checksum): a
    /// well-formed value, a win no longer than the longest win, a loss no longer than
    /// the longest loss.
    pub fn plausible(&self, v: Value) -> bool {
        let s = &self.header.stats;
        v.is_well_formed()
            && match (v.wdl(), v.dtm()) {
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
        self.entries().map(|_| ())
    }

    /// The entries of a mapped file (its length was checked against the header at
    /// open).
    fn mapped<'a>(&self, map: &'a MappedFile) -> Values<'a> {
        let bytes = &map.bytes()[HEADER_LEN..];
        match self.header.sector {
            // The mapping is page-aligned and the header 128 bytes, so the payload is
            // aligned for `u16`, and its length is even: the cast cannot fail.
            SectorId::Movement(_) => Values::Wide(bytemuck::cast_slice(bytes)),
            SectorId::Placement(_) => Values::Narrow(bytes),
        }
    }

    /// Read (when not mapped) and hash the payload.
    fn check(&self) -> Result<Option<Owned>, Failure> {
        let good = |bytes: &[u8]| payload_sum(bytes) == self.header.checksum;
        match &self.payload {
            Payload::Mapped(map) => match good(&map.bytes()[HEADER_LEN..]) {
                true => Ok(None),
                false => Err(Failure::Checksum),
            },
            Payload::Read(file) => {
                let read = read_payload(file, &self.header)
                    .map_err(|e| Failure::Io(e.kind(), e.to_string()))?;
                let bytes = match &read {
                    Owned::Wide(v) => bytemuck::cast_slice::<u16, u8>(v),
                    Owned::Narrow(v) => v,
                };
                match good(bytes) {
                    true => Ok(Some(read)),
                    false => Err(Failure::Checksum),
                }
            }
        }
    }
}

/// The length of a file: header plus payload.
fn payload_end(header: &Header) -> u64 {
    HEADER_LEN as u64 + header.entry_width() * header.entries
}

/// xxh3-64 of a payload, hashed in chunks.
fn payload_sum(bytes: &[u8]) -> u64 {
    let mut h = Xxh3::new();
    for chunk in bytes.chunks(1 << 24) {
        h.update(chunk);
    }
    h.digest()
}

/// Read a payload into memory.
fn read_payload(file: &File, header: &Header) -> io::Result<Owned> {
    let n = usize::try_from(header.entries).map_err(|_| io::Error::other("sector too large"))?;
    let memory = || {
        io::Error::new(
            io::ErrorKind::OutOfMemory,
            "cannot allocate memory to read the file",
        )
    };
    match header.sector {
        SectorId::Movement(_) => {
            let mut values: Vec<u16> = Vec::new();
            values.try_reserve_exact(n).map_err(|_| memory())?;
            values.resize(n, 0);
            read_at(file, bytemuck::cast_slice_mut::<u16, u8>(&mut values))?;
            Ok(Owned::Wide(values.into_boxed_slice()))
        }
        SectorId::Placement(_) => {
            let mut values: Vec<u8> = Vec::new();
            values.try_reserve_exact(n).map_err(|_| memory())?;
            values.resize(n, 0);
            read_at(file, &mut values)?;
            Ok(Owned::Narrow(values.into_boxed_slice()))
        }
    }
}

/// Fill `bytes` from the payload's start.
fn read_at(file: &File, bytes: &mut [u8]) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(bytes, HEADER_LEN as u64)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(HEADER_LEN as u64))?;
        f.read_exact(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_decodes_to_a_value_that_encodes_back() {
        for b in 0..=255u8 {
            let v = decode_byte(b);
            assert!(v.is_well_formed());
            assert_eq!(encode_byte(v), Some(b), "{b}");
        }
        assert_eq!(decode_byte(0), Value::DRAW);
        assert_eq!(decode_byte(1), Value::loss(0));
        assert_eq!(decode_byte(236), Value::win(235));
        assert_eq!(decode_byte(237), Value::win(0));
        assert_eq!(decode_byte(238), Value::loss(1));
        assert_eq!(decode_byte(255), Value::win(18));
    }

    #[test]
    fn values_one_byte_cannot_hold_are_refused() {
        assert_eq!(encode_byte(Value::decided(236)), None);
        assert_eq!(encode_byte(Value::loss(19)), None);
        assert_eq!(encode_byte(Value::win(20)), None);
        assert_eq!(encode_byte(Value(0x8000)), None);
        assert_eq!(encode_byte(Value(0xFFFF)), None);
    }

    #[test]
    fn placement_names_round_trip_and_only_canonical_ones_parse() {
        let p: PlacementSector = "3-4+5-4".parse().expect("a sector");
        assert_eq!(file_name(Variant::Standard, p), "standard-3-4+5-4.tb");
        assert_eq!(
            parse_file_name("no-flying-0-0+9-9.tb"),
            Some((
                Variant::NoFlying,
                SectorId::Placement("0-0+9-9".parse().expect("a sector"))
            ))
        );
        assert_eq!(
            parse_file_name("standard-8-9.tb"),
            Some((
                Variant::Standard,
                SectorId::Movement(Sector::new(8, 9).expect("a sector"))
            ))
        );
        for bad in [
            "standard-3-4+4-5.tb",
            "standard-03-4+5-4.tb",
            "standard-3-4+5-4.tb.tmp",
            "standard-3-4+5.tb",
            "standard-2-2.tb",
            "chess-3-4+5-4.tb",
        ] {
            assert_eq!(parse_file_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_placement_file_round_trips_and_refuses_what_one_byte_cannot_hold() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let p: PlacementSector = "2-1+1-1".parse().expect("a sector");
        let n = p.size() as usize;
        let values: Vec<u16> = (0..n)
            .map(|i| {
                [
                    Value::DRAW,
                    Value::win(0),
                    Value::loss(1),
                    Value::decided(235),
                ][i % 4]
                    .0
            })
            .collect();
        let header = write_placement(dir.path(), Variant::Standard, p, &values).expect("written");
        assert_eq!(
            (header.stats.longest_win, header.stats.longest_loss),
            (235, 1)
        );
        let path = dir.path().join("standard-2-1+1-1.tb");
        let len = std::fs::metadata(&path).expect("written").len();
        assert_eq!(len, HEADER_LEN as u64 + n as u64);
        for file in [
            SectorFile::open(&path, Variant::Standard, p).expect("opens"),
            // SAFETY: the test changes no file while it is mapped.
            #[allow(unsafe_code)]
            unsafe { SectorFile::open_mapped(&path, Variant::Standard, p) }.expect("opens"),
        ] {
            assert_eq!(file.header().sector, SectorId::Placement(p));
            assert_eq!(
                file.entries().expect("checked").to_raw().expect("memory"),
                values
            );
            for (i, &raw) in values.iter().enumerate() {
                assert_eq!(file.value(i as u64).expect("a value"), Value(raw));
            }
            assert!(file.value(n as u64).is_err());
            assert!(file.values().is_err());
        }
        // A movement name does not open a placement file, nor the other way round.
        let moved = dir.path().join("standard-3-3.tb");
        std::fs::copy(&path, &moved).expect("copied");
        let err = SectorFile::open(
            &moved,
            Variant::Standard,
            Sector::new(3, 3).expect("a sector"),
        )
        .expect_err("refused");
        assert!(matches!(err.problem, Problem::Sector { .. }), "{err}");
        let mut bad = values.clone();
        bad[n - 1] = Value::decided(300).0;
        std::fs::remove_file(&path).expect("removed");
        let err = write_placement(dir.path(), Variant::Standard, p, &bad).expect_err("refused");
        assert!(
            matches!(err.problem, Problem::Unencodable { index, .. } if index == n as u64 - 1),
            "{err}"
        );
        assert!(!path.exists());
        assert!(!dir.path().join("standard-2-1+1-1.tb.tmp").exists());
    }

    /// Every layer of the opening refuses a damaged placement file, naming it.
    #[test]
    fn each_damage_to_a_placement_file_is_refused() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let p: PlacementSector = "2-2+2-1".parse().expect("a sector");
        let values: Vec<u16> = (0..p.size()).map(|i| (i % 3) as u16).collect();
        write_placement(dir.path(), Variant::NoFlying, p, &values).expect("written");
        let path = dir.path().join(file_name(Variant::NoFlying, p));
        let good = std::fs::read(&path).expect("read");
        // Patch header bytes, then make the header checksum match again so that the
        // check after it is the one that fires.
        let resum = |b: &mut Vec<u8>| {
            let sum = xxh3_64(&b[0..64]);
            b[64..72].copy_from_slice(&sum.to_le_bytes());
        };
        type Damage = Box<dyn Fn(&mut Vec<u8>)>;
        type Case = (&'static str, Damage, fn(&Problem) -> bool);
        let cases: Vec<Case> = vec![
            ("short", Box::new(|b| b.truncate(100)), |p| {
                matches!(p, Problem::Truncated(100))
            }),
            ("magic", Box::new(|b| b[0] ^= 1), |p| {
                matches!(p, Problem::Magic)
            }),
            ("header sum", Box::new(|b| b[61] ^= 1), |p| {
                matches!(p, Problem::HeaderChecksum)
            }),
            ("reserved", Box::new(|b| b[100] = 1), |p| {
                matches!(p, Problem::Reserved(100))
            }),
            (
                "version",
                Box::new(move |b| {
                    b[8] = 3;
                    resum(b)
                }),
                |p| matches!(p, Problem::Version(3)),
            ),
            (
                "old version",
                Box::new(move |b| {
                    b[8] = 1;
                    resum(b)
                }),
                |p| matches!(p, Problem::Encoding(2)),
            ),
            (
                "encoding",
                Box::new(move |b| {
                    b[15] = 1;
                    resum(b)
                }),
                |p| matches!(p, Problem::Encoding(1)),
            ),
            (
                "variant",
                Box::new(move |b| {
                    b[12] = 0;
                    resum(b)
                }),
                |p| matches!(p, Problem::Variant { .. }),
            ),
            (
                "board",
                Box::new(move |b| {
                    b[13] = 3;
                    resum(b)
                }),
                |p| matches!(p, Problem::Sector { .. }),
            ),
            (
                "hand",
                Box::new(move |b| {
                    b[60] = 3;
                    resum(b)
                }),
                |p| matches!(p, Problem::Sector { .. }),
            ),
            (
                "entries",
                Box::new(move |b| {
                    b[16] ^= 1;
                    resum(b)
                }),
                |p| matches!(p, Problem::Entries { .. }),
            ),
            ("padded", Box::new(|b| b.push(0)), |p| {
                matches!(p, Problem::Length { .. })
            }),
            (
                "cut",
                Box::new(|b| {
                    b.pop();
                }),
                |p| matches!(p, Problem::Length { .. }),
            ),
            ("payload", Box::new(|b| b[HEADER_LEN + 7] ^= 0x40), |p| {
                matches!(p, Problem::Checksum)
            }),
        ];
        for (name, damage, expected) in cases {
            let mut bytes = good.clone();
            damage(&mut bytes);
            std::fs::write(&path, &bytes).expect("written");
            let err = SectorFile::open(&path, Variant::NoFlying, p)
                .and_then(|f| f.check_payload())
                .expect_err(name);
            assert!(expected(&err.problem), "{name}: {err}");
            assert!(err.to_string().contains("no-flying-2-2+2-1.tb"), "{err}");
        }
        std::fs::remove_file(&path).expect("removed");
        std::fs::create_dir(&path).expect("a directory");
        let err = SectorFile::open(&path, Variant::NoFlying, p).expect_err("a directory");
        assert!(matches!(err.problem, Problem::NotRegular), "{err}");
    }
}
