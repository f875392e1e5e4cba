//! The on-disk format of a sector (the raw file), its header, and opening it in layers.
//!
//! One file per rules and sector. A movement sector (both hands empty) is named
//! `<rules>-<us>-<them>.tb` (for example `standard-8-9.tb`); a placement sector is
//! named `<rules>-<us>-<them>+<us_hand>-<them_hand>.tb` (for example
//! `standard-3-4+5-4.tb`, as [`crate::PlacementSector`] prints). Format version 3, the same
//! for both kinds, little-endian throughout (`n` entries, `b = ceil(n / 4096)` blocks):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `MORRISTB` |
//! | 8 | 4 | format version: 3 |
//! | 12 | 1 | rules: 0 standard, 1 no-flying |
//! | 13 | 1 | pieces of the side to move on the board |
//! | 14 | 1 | pieces of the opponent on the board |
//! | 15 | 1 | value encoding: 2, below |
//! | 16 | 8 | entry count `n` (positions up to symmetry, in [`crate::index`] order) |
//! | 24 | 8 | xxh3-64 of the block checksums (the bytes from `128 + n` to the end) |
//! | 32 | 8, 8, 8 | wins, draws, losses |
//! | 56 | 2, 2 | longest win, longest loss (plies) |
//! | 60 | 1, 1 | pieces in hand of the side to move, of the opponent (0, 0: movement) |
//! | 62 | 1 | log2 of the block size: 12 |
//! | 63 | 1 | zero |
//! | 64 | 8 | xxh3-64 of bytes 0..64 |
//! | 72 | 56 | zero |
//! | 128 | n | payload: one byte an entry |
//! | 128 + n | 8 b | xxh3-64 of each block of 4096 entries (the last may be shorter) |
//!
//! Encoding 2: 0 draw, 1 to 236 decided with DTM `code - 1` and the usual parity (won
//! exactly when the DTM is odd), 237 to 255 decided with DTM `code - 237` (0 to 18) and
//! the inverted result (see [`Value`]). A value that does not fit is an error at write
//! time, never stored wrongly. The longest movement DTM of either game is 203 plies,
//! of a placement position 17 plies more at most.
//!
//! Versions 1 (movement, one `u16` a value) and 2 (placement, one byte, one checksum
//! over the payload) were written by earlier versions; they are refused with
//! [`Problem::OldVersion`], and the builder's `convert` rewrites them in version 3.
//!
//! Files are written by the builder (`morris-builder`), which encodes the header with
//! [`Header::encode`]: to `<name>.tmp`, synced, then renamed, so that a file with the
//! final name is always complete. Opening checks, in order and before mapping or
//! reading the payload: that the name is a regular file (opened without blocking, so a
//! FIFO cannot hang the program), that it holds at least a header, the header's magic,
//! checksum, version, encoding, rules and sector against the name, the entry count
//! against the sector's size, then that the length is exactly what the header says.
//! The block checksums are checked against the header on the first use of the file,
//! and each block against its checksum before the first value is read from it: no
//! value is handed out from bytes that were not checked (see [`SectorFile`]).

use crate::index::SectorIndex;
use crate::sector::{Sector, SectorId};
use crate::value::{SectorStats, Value, Wdl};
use morris_engine::Rules;
use morris_sys::{MappedFile, Mapper};
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};
use thiserror::Error;
use xxhash_rust::xxh3::xxh3_64;

/// Magic bytes at the start of every file.
pub const MAGIC: [u8; 8] = *b"MORRISTB";
/// The format version written and read.
pub const VERSION: u32 = 3;
/// Bytes before the payload.
pub const HEADER_LEN: usize = 128;
/// The value encoding: one byte an entry.
pub const ENCODING_DTM8: u8 = 2;
/// log2 of the entries of a checksummed block.
pub const BLOCK_LOG2: u8 = 12;
/// Entries of a checksummed block: small enough that checking the block of a single
/// probe costs well under a microsecond.
pub const BLOCK: usize = 1 << BLOCK_LOG2;
/// The version of old movement files (one `u16` a value), converted by the builder's
/// `convert`.
const OLD_MOVEMENT: u32 = 1;
/// The version of old placement files (one byte, one payload checksum).
const OLD_PLACEMENT: u32 = 2;
/// The value encoding of old movement files: one `u16` an entry.
const ENCODING_DTM16: u8 = 1;
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
    #[error("format version {0}, this program reads version {VERSION}")]
    Version(u32),
    /// A file of an older format version, whose values are good: it is converted, not
    /// generated again.
    #[error("format version {0}, written by an older morris: `morris convert` rewrites it in version {VERSION} without solving it again")]
    OldVersion(u32),
    /// An unknown value encoding, or one its version does not use.
    #[error("value encoding {0}, which its format version does not use")]
    Encoding(u8),
    /// A block size this code does not use.
    #[error("corrupt header (block size 2^{0}, expected 2^{BLOCK_LOG2})")]
    BlockSize(u8),
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
    /// The header's rules differs from the name's.
    #[error("holds the tables of {found}, but the name says {expected}")]
    Rules {
        /// From the name.
        expected: Rules,
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
    /// The length is not what the header says.
    #[error("is {found} bytes, expected {expected} (truncated or padded)")]
    Length {
        /// Actual length.
        found: u64,
        /// What the header says.
        expected: u64,
    },
    /// The checksums of the blocks do not match the header.
    #[error("corrupt block checksums (checksum mismatch)")]
    BlockSums,
    /// A block of the payload does not match its checksum (for an old file: the
    /// payload does not match the header's checksum).
    #[error("corrupt payload (checksum mismatch in entries {first} to {last})")]
    Checksum {
        /// First entry of the damaged block.
        first: u64,
        /// Last entry of the damaged block.
        last: u64,
    },
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
    /// Converting an old file found counts different from its header's.
    #[error("corrupt: its values do not add up to the counts in its header")]
    Counts,
    /// A compact file's header names a compression codec this code does not know.
    #[error("compression codec {0}, which this program does not know")]
    Codec(u8),
    /// A compact file of a format version this code does not know.
    #[error("compact format version {found}, this program reads versions 1 to {newest}")]
    CompactVersion {
        /// The version in the header.
        found: u32,
        /// The newest version this program reads.
        newest: u32,
    },
    /// A class file of a format version this code does not read.
    #[error("class file format version {found}, this program reads version {newest} (`morris generate` builds it again)")]
    ClassVersion {
        /// The version in the header.
        found: u32,
        /// The version this program reads.
        newest: u32,
    },
    /// A value of a sector without distances disagrees with the values of its
    /// successors, from which its distance is found.
    #[error("entry {index} is a {stored} here, but the values of its successors make it a {successors} (this file or a successor's is damaged)")]
    Contradicts {
        /// The entry.
        index: u64,
        /// The result the file holds.
        stored: Wdl,
        /// The result its successors give.
        successors: Wdl,
    },
    /// A value differs from the one another file of the same sector holds.
    #[error("entry {index} differs from {}", other.display())]
    Differs {
        /// The entry.
        index: u64,
        /// The file compared with.
        other: PathBuf,
    },
    /// The counts and longest distances of the header differ from those of another
    /// file of the same sector.
    #[error("its counts of wins, draws and losses or its longest distances differ from those of {}", other.display())]
    CountsDiffer {
        /// The file compared with.
        other: PathBuf,
    },
}

impl Problem {
    /// Whether the file itself is bad (wrong content, length or kind), as opposed to
    /// a failure to read a file that may well be good (out of memory, permissions, an
    /// I/O error) or a good file of an older format: only a bad file may be replaced
    /// by generating it again.
    pub fn is_bad_file(&self) -> bool {
        !matches!(
            self,
            Problem::Io(_) | Problem::NotRegular | Problem::OldVersion(_)
        )
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
    /// The error of `path`.
    pub fn new(path: &Path, problem: impl Into<Problem>) -> FileError {
        FileError {
            path: path.to_path_buf(),
            problem: problem.into(),
        }
    }
}

/// The file name of a sector (movement or placement).
pub fn file_name(rules: impl Into<Rules>, sector: impl Into<SectorId>) -> String {
    let rules: Rules = rules.into();
    format!("{}-{}.tb", rules.table_name(), sector.into())
}

/// The rules and sector a file name stands for, if it is a tablebase name.
pub fn parse_file_name(name: &str) -> Option<(Rules, SectorId)> {
    let stem = name.strip_suffix(".tb")?;
    let (board, hands) = match stem.split_once('+') {
        Some((board, hands)) => (board, Some(hands)),
        None => (stem, None),
    };
    let (rest, them) = board.rsplit_once('-')?;
    let (rules, us) = rest.rsplit_once('-')?;
    let rules = Rules::from_table_name(rules)?;
    let sector = match hands {
        None => SectorId::Movement(Sector::new(us.parse().ok()?, them.parse().ok()?)?),
        Some(hands) => SectorId::Placement(format!("{us}-{them}+{hands}").parse().ok()?),
    };
    // Only the canonical spelling: `standard-03-3.tb` is not a sector file.
    (file_name(rules, sector) == name).then_some((rules, sector))
}

/// Number of checksummed blocks of `entries` entries.
fn blocks(entries: u64) -> u64 {
    entries.div_ceil(BLOCK as u64)
}

/// The decoded header of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The format version (always [`VERSION`] for a file opened as a [`SectorFile`]).
    pub version: u32,
    /// The rules.
    pub rules: Rules,
    /// The sector.
    pub sector: SectorId,
    /// Number of entries.
    pub entries: u64,
    /// xxh3-64 of the block checksums (of the payload in versions 1 and 2).
    pub checksum: u64,
    /// Counts of the values.
    pub stats: SectorStats,
}

impl Header {
    /// Bytes of one entry of the payload.
    pub fn entry_width(&self) -> u64 {
        match self.version {
            OLD_MOVEMENT => 2,
            _ => 1,
        }
    }

    /// The length of the file: header, payload and (version 3) block checksums.
    pub fn file_len(&self) -> u64 {
        let sums = match self.version {
            VERSION => 8 * blocks(self.entries),
            _ => 0,
        };
        HEADER_LEN as u64 + self.entry_width() * self.entries + sums
    }

    /// The header's bytes, in the current version (whatever `version` says), with
    /// their checksum.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12] = self.rules.table_index() as u8;
        (h[13], h[14]) = self.sector.board();
        if let SectorId::Placement(p) = self.sector {
            (h[60], h[61]) = (p.us_hand, p.them_hand);
        }
        h[15] = ENCODING_DTM8;
        h[16..24].copy_from_slice(&self.entries.to_le_bytes());
        h[24..32].copy_from_slice(&self.checksum.to_le_bytes());
        h[32..40].copy_from_slice(&self.stats.wins.to_le_bytes());
        h[40..48].copy_from_slice(&self.stats.draws.to_le_bytes());
        h[48..56].copy_from_slice(&self.stats.losses.to_le_bytes());
        h[56..58].copy_from_slice(&self.stats.longest_win.to_le_bytes());
        h[58..60].copy_from_slice(&self.stats.longest_loss.to_le_bytes());
        h[62] = BLOCK_LOG2;
        let sum = xxh3_64(&h[0..64]);
        h[64..72].copy_from_slice(&sum.to_le_bytes());
        h
    }

    /// Decode and check a header of any version this code can read or convert.
    fn decode(h: &[u8; HEADER_LEN], expected: (Rules, SectorId)) -> Result<Header, Problem> {
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
            OLD_MOVEMENT => ENCODING_DTM16,
            OLD_PLACEMENT | VERSION => ENCODING_DTM8,
            _ => return Err(Problem::Version(version)),
        };
        if h[15] != encoding {
            return Err(Problem::Encoding(h[15]));
        }
        if version == VERSION && h[62] != BLOCK_LOG2 {
            return Err(Problem::BlockSize(h[62]));
        }
        let rules = match Rules::from_table_index(usize::from(h[12])) {
            Some(v) => v,
            None => {
                let n = h[12];
                return Err(Problem::Rules {
                    expected: expected.0,
                    found: format!("unknown ({n})"),
                });
            }
        };
        // Every piece count of a board shares its preset's tables.
        if rules != expected.0.tables() {
            return Err(Problem::Rules {
                expected: expected.0.tables(),
                found: rules.to_string(),
            });
        }
        // A movement sector has no hands; a placement sector's side to move always
        // has one, and old versions hold one kind each.
        let found = if (h[60], h[61]) == (0, 0) && version != OLD_PLACEMENT {
            format!("{}-{}", h[13], h[14])
        } else if version != OLD_MOVEMENT {
            format!("{}-{}+{}-{}", h[13], h[14], h[60], h[61])
        } else {
            return Err(Problem::Encoding(h[15]));
        };
        if found != expected.1.to_string() {
            return Err(Problem::Sector {
                expected: expected.1,
                found,
            });
        }
        let entries = u64_at(16);
        Ok(Header {
            version,
            rules,
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

/// Where an opened file's payload is read from.
#[derive(Debug)]
enum Payload {
    /// Mapped at open.
    Mapped(MappedFile),
    /// Read into memory on first use, from this handle on the file opened (so a file
    /// renamed over it later does not mix with it).
    Read(File),
}

/// Why the first use of a file failed, kept so every later use fails alike.
#[derive(Debug, Clone)]
enum Failure {
    BlockSums,
    Io(io::ErrorKind, String),
}

impl Failure {
    fn problem(&self) -> Problem {
        match self {
            Failure::BlockSums => Problem::BlockSums,
            Failure::Io(kind, message) => Problem::Io(io::Error::new(*kind, message.clone())),
        }
    }
}

/// What the first use of a file established: the block checksums, checked against
/// the header, and which blocks have been checked against them.
#[derive(Debug)]
struct Checked {
    /// For a file read into memory: its bytes after the header.
    read: Option<Box<[u8]>>,
    /// The checksum of each block.
    sums: Box<[u64]>,
    /// One bit a block: checked and good.
    good: Box<[AtomicU64]>,
}

/// An opened, header-checked sector file whose bytes are checked before any value is
/// read from them.
///
/// The policy: no value is ever read from bytes that have not been checked in this
/// process. The first use reads the block checksums and checks them against the
/// header (for a file opened with [`SectorFile::open`], it reads the whole file into
/// memory then); [`SectorFile::value`] checks the block of 4096 entries it reads from
/// on its first read there, and [`SectorFile::entries`] checks every block. A damaged
/// file is an error naming it, never an answer; the cost is one pass over the bytes a
/// process actually uses.
#[derive(Debug)]
pub struct SectorFile {
    path: PathBuf,
    header: Header,
    index: OnceLock<Arc<SectorIndex>>,
    payload: Payload,
    checked: OnceLock<Result<Checked, Failure>>,
}

/// Open `path` for reading without blocking (a FIFO under a table's name must not hang
/// the program) and check that it is a regular file.
pub(crate) fn open_regular(path: &Path) -> Result<File, Problem> {
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

/// Open `path` as a regular file and read its first [`HEADER_LEN`] bytes (the raw and
/// the compact files' headers alike): the file, its length and the header's bytes.
pub(crate) fn open_header(path: &Path) -> Result<(File, u64, [u8; HEADER_LEN]), FileError> {
    let err = |p: Problem| FileError::new(path, p);
    let mut file = open_regular(path).map_err(err)?;
    let len = file.metadata().map_err(|e| err(e.into()))?.len();
    if len < HEADER_LEN as u64 {
        return Err(err(Problem::Truncated(len)));
    }
    let mut raw = [0u8; HEADER_LEN];
    file.read_exact(&mut raw).map_err(|e| err(e.into()))?;
    Ok((file, len, raw))
}

/// Check a decoded header's count of entries against the size of `sector`'s index,
/// and the file's length `len` against the length the header implies.
pub(crate) fn check_size(
    (rules, sector): (Rules, SectorId),
    entries: u64,
    implied_len: u64,
    len: u64,
) -> Result<(), Problem> {
    let expected = sector.size(rules.board());
    if entries != expected {
        return Err(Problem::Entries {
            sector,
            found: entries,
            expected,
        });
    }
    if len != implied_len {
        return Err(Problem::Length {
            found: len,
            expected: implied_len,
        });
    }
    Ok(())
}

/// Open the file and check everything but the payload, for any version this code
/// can read or convert.
///
/// # Errors
/// A [`FileError`] naming the file and the first problem found.
pub fn read_header(
    path: &Path,
    rules: impl Into<Rules>,
    sector: SectorId,
) -> Result<(File, Header), FileError> {
    let rules: Rules = rules.into();
    let err = |p: Problem| FileError::new(path, p);
    let (file, len, raw) = open_header(path)?;
    let header = Header::decode(&raw, (rules, sector)).map_err(err)?;
    check_size((rules, sector), header.entries, header.file_len(), len).map_err(err)?;
    Ok((file, header))
}

impl SectorFile {
    /// Open the file of `rules` and `sector` at `path`, checking its header and
    /// length; the file is read into memory and checked on first use. Safe whatever
    /// happens to the file afterwards.
    ///
    /// # Errors
    /// A [`FileError`] naming the file and the first problem found.
    pub fn open(
        path: &Path,
        rules: impl Into<Rules>,
        sector: impl Into<SectorId>,
    ) -> Result<SectorFile, FileError> {
        let rules: Rules = rules.into();
        let (file, header) = SectorFile::open_header(path, rules, sector.into())?;
        Ok(SectorFile::new(path, header, Payload::Read(file)))
    }

    /// Open the file of `rules` and `sector` at `path` like [`SectorFile::open`], but
    /// memory-map it with `mapper` instead of reading it: no copy, and pages load on
    /// demand.
    ///
    /// # Errors
    /// A [`FileError`] naming the file and the first problem found.
    pub fn open_mapped(
        path: &Path,
        rules: impl Into<Rules>,
        sector: impl Into<SectorId>,
        mapper: Mapper,
    ) -> Result<SectorFile, FileError> {
        let rules: Rules = rules.into();
        let (file, header) = SectorFile::open_header(path, rules, sector.into())?;
        let map = mapper
            .map(&file, header.file_len())
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

    /// Open the file and check everything but the payload; an old version is refused.
    fn open_header(
        path: &Path,
        rules: Rules,
        sector: SectorId,
    ) -> Result<(File, Header), FileError> {
        let (file, header) = read_header(path, rules, sector)?;
        if header.version != VERSION {
            return Err(FileError::new(path, Problem::OldVersion(header.version)));
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
        self.index
            .get_or_init(|| self.header.sector.index(self.header.rules.board()))
    }

    /// The file's payload (its codes), and what its first use established.
    fn payload(&self) -> Result<(&[u8], &Checked), FileError> {
        let checked = self.checked.get_or_init(|| self.first_use());
        let (body, checked) = match (checked, &self.payload) {
            (Err(failure), _) => return Err(FileError::new(&self.path, failure.problem())),
            (
                Ok(
                    c @ Checked {
                        read: Some(bytes), ..
                    },
                ),
                _,
            ) => (&bytes[..], c),
            (Ok(c), Payload::Mapped(map)) => (&map.bytes()[HEADER_LEN..], c),
            (Ok(_), Payload::Read(_)) => {
                return Err(FileError::new(
                    &self.path,
                    Problem::Io(io::Error::other("internal error: file never read")),
                ))
            }
        };
        // The length was checked at open: the block checksums follow the payload.
        Ok((&body[..body.len() - 8 * checked.sums.len()], checked))
    }

    /// Read the file when it is not mapped, and check its block checksums against
    /// the header.
    fn first_use(&self) -> Result<Checked, Failure> {
        let io = |e: io::Error| Failure::Io(e.kind(), e.to_string());
        let read = match &self.payload {
            Payload::Mapped(_) => None,
            Payload::Read(file) => Some(read_body(file, &self.header).map_err(io)?),
        };
        let body = match (&read, &self.payload) {
            (Some(bytes), _) => &bytes[..],
            (None, Payload::Mapped(map)) => &map.bytes()[HEADER_LEN..],
            (None, Payload::Read(_)) => return Err(io(io::Error::other("file never read"))),
        };
        let n = usize::try_from(self.header.entries)
            .map_err(|_| io(io::Error::other("sector too large")))?;
        let sum_bytes = body.get(n..).unwrap_or_default();
        if xxh3_64(sum_bytes) != self.header.checksum {
            return Err(Failure::BlockSums);
        }
        let sums: Box<[u64]> = sum_bytes
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap_or_default()))
            .collect();
        let good = (0..sums.len().div_ceil(64))
            .map(|_| AtomicU64::new(0))
            .collect();
        Ok(Checked { read, sums, good })
    }

    /// Check block `b` of `payload` against its checksum, once.
    fn check_block(&self, payload: &[u8], checked: &Checked, b: usize) -> Result<(), FileError> {
        let (word, bit) = (&checked.good[b / 64], 1u64 << (b % 64));
        if word.load(Relaxed) & bit != 0 {
            return Ok(());
        }
        let start = b * BLOCK;
        let end = (start + BLOCK).min(payload.len());
        if xxh3_64(&payload[start..end]) != checked.sums[b] {
            return Err(FileError::new(
                &self.path,
                Problem::Checksum {
                    first: start as u64,
                    last: end as u64 - 1,
                },
            ));
        }
        word.fetch_or(bit, Relaxed);
        Ok(())
    }

    /// The stored codes (encoding 2), one per index, after every block has been
    /// checked against its checksum (the first time; the verdict is kept).
    ///
    /// # Errors
    /// A damaged or unreadable file, naming it and, for a damaged block, its entries.
    pub fn entries(&self) -> Result<&[u8], FileError> {
        let (payload, checked) = self.payload()?;
        for b in 0..checked.sums.len() {
            self.check_block(payload, checked, b)?;
        }
        Ok(payload)
    }

    /// Every stored value decoded to its raw `u16`, in a new vector, checked as by
    /// [`SectorFile::entries`].
    ///
    /// # Errors
    /// As [`SectorFile::entries`], and an out-of-memory error when the vector cannot
    /// be had.
    pub fn values(&self) -> Result<Vec<u16>, FileError> {
        let codes = self.entries()?;
        let mut out = Vec::new();
        out.try_reserve_exact(codes.len()).map_err(|_| {
            FileError::new(
                &self.path,
                io::Error::new(
                    io::ErrorKind::OutOfMemory,
                    "cannot allocate memory to decode the file",
                ),
            )
        })?;
        out.extend(codes.iter().map(|&b| decode_byte(b).0));
        Ok(out)
    }

    /// The value stored at `index`, checked: its block against the block's checksum
    /// (on the first read there) and the value against the header (a win no longer
    /// than the longest win, a loss no longer than the longest loss).
    ///
    /// # Errors
    /// A [`FileError`] naming the file: a damaged block, an index beyond the sector,
    /// or a value that the header rules out.
    pub fn value(&self, index: u64) -> Result<Value, FileError> {
        let (payload, checked) = self.payload()?;
        let implausible = || {
            FileError::new(
                &self.path,
                Problem::Implausible {
                    index,
                    entries: self.header.entries,
                },
            )
        };
        let i = usize::try_from(index)
            .ok()
            .filter(|&i| (i as u64) < self.header.entries)
            .ok_or_else(implausible)?;
        self.check_block(payload, checked, i / BLOCK)?;
        let v = decode_byte(payload[i]);
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
                (Wdl::Win, Some(d)) => d <= s.longest_win,
                (Wdl::Loss, Some(d)) => d <= s.longest_loss,
                _ => true,
            }
    }

    /// Check the whole file against its checksums (on the first use of the file; the
    /// verdict is kept).
    ///
    /// # Errors
    /// A damaged block or block checksums, naming the file, or the error reading it.
    pub fn check_payload(&self) -> Result<(), FileError> {
        self.entries().map(|_| ())
    }
}

/// Read a file's bytes after the header into memory.
fn read_body(file: &File, header: &Header) -> io::Result<Box<[u8]>> {
    let n = usize::try_from(header.file_len() - HEADER_LEN as u64)
        .map_err(|_| io::Error::other("sector too large"))?;
    let mut bytes: Vec<u8> = Vec::new();
    bytes.try_reserve_exact(n).map_err(|_| {
        io::Error::new(
            io::ErrorKind::OutOfMemory,
            "cannot allocate memory to read the file",
        )
    })?;
    bytes.resize(n, 0);
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut bytes, HEADER_LEN as u64)?;
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(HEADER_LEN as u64))?;
        f.read_exact(&mut bytes)?;
    }
    Ok(bytes.into_boxed_slice())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sector::PlacementSector;

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
        assert_eq!(file_name(Rules::STANDARD, p), "standard-3-4+5-4.tb");
        assert_eq!(
            parse_file_name("no-flying-0-0+9-9.tb"),
            Some((
                Rules::NO_FLYING,
                SectorId::Placement("0-0+9-9".parse().expect("a sector"))
            ))
        );
        assert_eq!(
            parse_file_name("standard-8-9.tb"),
            Some((
                Rules::STANDARD,
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
}
