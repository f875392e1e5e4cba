//! Compact tables: a sector's values compressed in independent blocks, for
//! download and for probing in place.
//!
//! Two files a sector, each usable alone, named like the raw file with another
//! extension: `<rules>-<sector>.wdl` holds win, draw or loss only (all that a
//! position's value and the moves keeping it need), `<rules>-<sector>.dtm` holds
//! the full value with its distance (the one-byte codes of [`crate::file`]). A
//! probe reads the `.dtm` file when present, else the `.wdl` file, whose decided
//! values come without distance ([`Value::wdl_only`]).
//!
//! Both are made from a raw file by the builder's `pack` (crate `morris-builder`),
//! which chooses the block size of each kind. Entries are cut into blocks of `2^k`
//! positions (the last may be shorter; `k` in the header); each block is compressed alone
//! with zstd and checked by the xxh3-64 of its compressed bytes before it is
//! decompressed. Win/draw/loss codes are `0` loss, `1` draw, `2` win, packed four a
//! byte (the first position in the lowest two bits: codec 2). One code a byte (codec
//! 1, which `.wdl` files of earlier versions have and which is still read) compresses
//! better at zstd's slowest levels (Standard 8-8 at level 19: 0.87 against 0.92 bits
//! a position), but only there: packed codes at level 13 come within 4-13% of one
//! code a byte at level 16 in a seventh to a ninth of the time, which is what a
//! rebuild of a whole game spends.
//!
//! Format version 2, little-endian (`n` entries, `b = ceil(n / 2^k)` blocks):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `MORRISTZ` |
//! | 8 | 4 | format version: 2 |
//! | 12 | 1 | rules: 0 standard, 1 no-flying |
//! | 13 | 1 | pieces of the side to move on the board |
//! | 14 | 1 | pieces of the opponent on the board |
//! | 15 | 1 | content: 1 win/draw/loss, 2 DTM (encoding 2 of [`crate::file`]) |
//! | 16 | 8 | entry count `n` |
//! | 24 | 8 | xxh3-64 of the block index (bytes `128` to `128 + 16 b`) |
//! | 32 | 8, 8, 8 | wins, draws, losses |
//! | 56 | 2, 2 | longest win, longest loss (plies) |
//! | 60 | 1, 1 | pieces in hand of the side to move, of the opponent |
//! | 62 | 1 | `k`, log2 of the positions of a block: 10 to 20 |
//! | 63 | 1 | codec: 1 zstd, one code a byte; 2 zstd, codes packed four a byte (`.wdl` files only); 0 none (a `.wdl` file of a sector whose values follow from its successors', see below) |
//! | 64 | 8 | length of the compressed data `d` |
//! | 72 | 1 | the compression level used (for information) |
//! | 73 | 7 | zero |
//! | 80 | 8 | the checksum of the raw file packed (bytes 24..32 of its header) |
//! | 88 | 32 | zero |
//! | 120 | 8 | xxh3-64 of bytes 0..120 |
//! | 128 | 16 b | per block: end offset of its data (from `128 + 16 b`), xxh3-64 of it |
//! | 128 + 16 b | d | the compressed blocks, in order |
//!
//! A `.wdl` file with codec 0 holds its header alone (`b = 0`, `d = 0`, the index
//! checksum that of no bytes): the counts and the raw file's checksum of a sector
//! whose values a one-sided set leaves out (`morris pack --distances sparse`), since
//! every one of them follows from its successors' by a one-ply search. It never
//! answers a value itself ([`CompactTable::answering`] skips it); the tablebase
//! derives its positions' values ([`crate::Tablebase::probe`]).
//!
//! Version 1 was the same without the raw file's checksum (bytes 73..120 zero): such
//! files are read as they are; `morris pack` makes them again when it resumes, since
//! nothing says which raw file they came from.
//!
//! Writing goes to `<name>.tmp`, synced, then renamed, as for raw files. Opening
//! checks the name, the kind of file, the header and the length; the block index is
//! read and checked against the header on first use; a block is checked before it
//! is decompressed, and its decompressed length against the header. Decompressed
//! blocks are kept in a [`BlockCache`] of bounded size, shared by a tablebase's files.

pub use crate::blocks::{BlockCache, DEFAULT_CACHE_MB, INDEX_ENTRY};
use crate::blocks::{BlockFile, Layout};
use crate::file::{check_size, decode_byte, open_header, FileError, Problem};
use crate::index::SectorIndex;
use crate::sector::SectorId;
use crate::value::{SectorStats, Value, Wdl};
use morris_engine::Rules;
use morris_sys::Mapper;
use rayon::prelude::*;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use xxhash_rust::xxh3::xxh3_64;

/// Magic bytes at the start of every compact file.
pub const MAGIC: [u8; 8] = *b"MORRISTZ";
/// The format version written (version 1, without the raw file's checksum, is read too).
pub const VERSION: u32 = 2;
/// The format version before the raw file's checksum was stored.
const VERSION_WITHOUT_SOURCE: u32 = 1;
/// Bytes before the block index: a header as long as a raw file's, read by the same code.
pub const HEADER_LEN: usize = crate::file::HEADER_LEN;
/// The block sizes a file may have (log2 of its positions).
const BLOCK_LOG2_RANGE: std::ops::RangeInclusive<u8> = 10..=20;
/// Codec byte of zstd over one code a byte.
const CODEC_ZSTD: u8 = 1;
/// Codec byte of zstd over win/draw/loss codes packed four a byte (a `.wdl` file).
const CODEC_ZSTD_PACKED: u8 = 2;
/// Codec byte of a file without blocks: its values follow from its successors'.
const CODEC_NONE: u8 = 0;
/// What a compact file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// Win, draw or loss.
    Wdl,
    /// The full value, with its distance.
    Dtm,
}

impl Kind {
    /// Both kinds.
    pub const ALL: [Kind; 2] = [Kind::Wdl, Kind::Dtm];

    /// The file name extension.
    pub fn extension(self) -> &'static str {
        match self {
            Kind::Wdl => "wdl",
            Kind::Dtm => "dtm",
        }
    }

    fn code(self) -> u8 {
        match self {
            Kind::Wdl => 1,
            Kind::Dtm => 2,
        }
    }

    /// The byte a file of this kind stores for a raw code (encoding 2 of
    /// [`crate::file`]).
    pub fn map(self, raw: u8) -> u8 {
        match self {
            Kind::Wdl => wdl_code(decode_byte(raw).wdl()),
            Kind::Dtm => raw,
        }
    }
}

fn wdl_code(w: Wdl) -> u8 {
    match w {
        Wdl::Loss => 0,
        Wdl::Draw => 1,
        Wdl::Win => 2,
    }
}

/// What names a compact file: its rules, sector and kind.
pub type CompactId = (Rules, SectorId, Kind);

/// The name of a sector's compact file of `kind`.
pub fn compact_name(rules: impl Into<Rules>, sector: impl Into<SectorId>, kind: Kind) -> String {
    let rules: Rules = rules.into();
    format!(
        "{}-{}.{}",
        rules.table_name(),
        sector.into(),
        kind.extension()
    )
}

/// The rules, sector and kind a compact file name stands for, if it is one.
pub fn parse_compact_name(name: &str) -> Option<CompactId> {
    Kind::ALL.into_iter().find_map(|kind| {
        let stem = name.strip_suffix(kind.extension())?.strip_suffix('.')?;
        let (rules, sector) = crate::file::parse_file_name(&format!("{stem}.tb"))?;
        Some((rules, sector, kind))
    })
}

/// The decoded header of a compact file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactHeader {
    /// What the file holds.
    pub kind: Kind,
    /// The rules.
    pub rules: Rules,
    /// The sector.
    pub sector: SectorId,
    /// Number of entries.
    pub entries: u64,
    /// xxh3-64 of the block index.
    pub index_sum: u64,
    /// Counts of the values (those of the raw file it was made from).
    pub stats: SectorStats,
    /// Bytes of compressed data.
    pub data_len: u64,
    /// The zstd level it was written with.
    pub level: u8,
    /// log2 of the positions of a block.
    pub block_log2: u8,
    /// The checksum of the raw file it was packed from (its header's checksum of the
    /// block checksums); `None` in a file of format version 1, which did not store it.
    pub source: Option<u64>,
    /// It holds no blocks (codec 0, a `.wdl` file alone): the sector's values follow
    /// from its successors' by a one-ply search.
    pub derived: bool,
    /// Its blocks hold win/draw/loss codes packed four a byte before compression
    /// (codec 2, a `.wdl` file; see [`pack_codes`]), rather than one a byte.
    pub packed: bool,
}

impl CompactHeader {
    /// Where the file's index and blocks lie.
    pub fn layout(&self) -> Layout {
        Layout {
            // A file of derived values has no blocks.
            entries: if self.derived { 0 } else { self.entries },
            width: 1,
            block_log2: self.block_log2,
            index_sum: self.index_sum,
            data_len: self.data_len,
        }
    }

    /// Positions of a block (the last may have fewer).
    pub fn block(&self) -> u64 {
        self.layout().block()
    }

    /// Number of blocks.
    pub fn blocks(&self) -> u64 {
        self.layout().blocks()
    }

    /// The length of the file.
    pub fn file_len(&self) -> u64 {
        self.layout().file_len()
    }

    /// The header's bytes, with their checksum (in version 1 when `source` is
    /// `None`).
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&VERSION.to_le_bytes());
        h[12] = self.rules.table_index() as u8;
        (h[13], h[14]) = self.sector.board();
        h[15] = self.kind.code();
        h[16..24].copy_from_slice(&self.entries.to_le_bytes());
        h[24..32].copy_from_slice(&self.index_sum.to_le_bytes());
        h[32..40].copy_from_slice(&self.stats.wins.to_le_bytes());
        h[40..48].copy_from_slice(&self.stats.draws.to_le_bytes());
        h[48..56].copy_from_slice(&self.stats.losses.to_le_bytes());
        h[56..58].copy_from_slice(&self.stats.longest_win.to_le_bytes());
        h[58..60].copy_from_slice(&self.stats.longest_loss.to_le_bytes());
        if let SectorId::Placement(p) = self.sector {
            (h[60], h[61]) = (p.us_hand, p.them_hand);
        }
        h[62] = self.block_log2;
        h[63] = match (self.derived, self.packed) {
            (true, _) => CODEC_NONE,
            (false, true) => CODEC_ZSTD_PACKED,
            (false, false) => CODEC_ZSTD,
        };
        h[64..72].copy_from_slice(&self.data_len.to_le_bytes());
        h[72] = self.level;
        match self.source {
            Some(sum) => h[80..88].copy_from_slice(&sum.to_le_bytes()),
            None => h[8..12].copy_from_slice(&VERSION_WITHOUT_SOURCE.to_le_bytes()),
        }
        let sum = xxh3_64(&h[0..120]);
        h[120..128].copy_from_slice(&sum.to_le_bytes());
        h
    }

    fn decode(h: &[u8; HEADER_LEN], expected: CompactId) -> Result<CompactHeader, Problem> {
        let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().unwrap_or_default());
        let u16_at = |i: usize| u16::from_le_bytes([h[i], h[i + 1]]);
        if h[0..8] != MAGIC {
            return Err(Problem::Magic);
        }
        if xxh3_64(&h[0..120]) != u64_at(120) {
            return Err(Problem::HeaderChecksum);
        }
        let version = u32::from_le_bytes([h[8], h[9], h[10], h[11]]);
        let source = match version {
            VERSION => Some(u64_at(80)),
            VERSION_WITHOUT_SOURCE => None,
            _ => {
                return Err(Problem::CompactVersion {
                    found: version,
                    newest: VERSION,
                })
            }
        };
        let stored = if source.is_some() { 80..88 } else { 0..0 };
        if let Some(at) = (73..120).find(|&i| h[i] != 0 && !stored.contains(&i)) {
            return Err(Problem::Reserved(at));
        }
        if h[15] != expected.2.code() {
            return Err(Problem::Encoding(h[15]));
        }
        let derived = h[63] == CODEC_NONE;
        let packed = h[63] == CODEC_ZSTD_PACKED;
        let empty = u64_at(64) == 0 && u64_at(24) == xxh3_64(&[]);
        let wdl = expected.2 == Kind::Wdl;
        if !(h[63] == CODEC_ZSTD || packed && wdl || derived && wdl && empty) {
            return Err(Problem::Codec(h[63]));
        }
        if !BLOCK_LOG2_RANGE.contains(&h[62]) {
            return Err(Problem::BlockSize(h[62]));
        }
        if usize::from(h[12]) != expected.0.table_index() {
            return Err(Problem::Rules {
                expected: expected.0,
                found: format!("code {}", h[12]),
            });
        }
        let found = if (h[60], h[61]) == (0, 0) {
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
        Ok(CompactHeader {
            kind: expected.2,
            rules: expected.0,
            sector: expected.1,
            entries,
            index_sum: u64_at(24),
            stats: SectorStats {
                positions: entries,
                wins: u64_at(32),
                draws: u64_at(40),
                losses: u64_at(48),
                longest_win: u16_at(56),
                longest_loss: u16_at(58),
            },
            data_len: u64_at(64),
            level: h[72],
            block_log2: h[62],
            source,
            derived,
            packed,
        })
    }
}

/// An opened, header-checked compact file. No value is read from a block before the
/// block's compressed bytes have matched their checksum and its decompressed length
/// the header's.
#[derive(Debug)]
pub struct CompactFile {
    header: CompactHeader,
    blocks: BlockFile,
    board: OnceLock<Arc<SectorIndex>>,
    /// Every code's value as the header allows it, [`NOT_ALLOWED`] where it does not
    /// (looked up for every entry a file decodes or checks).
    values: [u16; 256],
}

/// In [`CompactFile`]'s table of codes, a code the header rules out: the one raw
/// value the encoding leaves undefined.
const NOT_ALLOWED: u16 = 0x8000;

impl CompactFile {
    /// Open the compact file of `rules`, `sector` and `kind` at `path`, checking its
    /// header and length, with decompressed blocks kept in `cache`.
    ///
    /// # Errors
    /// A [`FileError`] naming the file and the first problem found.
    pub fn open(
        path: &Path,
        (rules, sector, kind): CompactId,
        cache: Arc<BlockCache>,
    ) -> Result<CompactFile, FileError> {
        let err = |p: Problem| FileError::new(path, p);
        let (file, len, raw) = open_header(path)?;
        let header = CompactHeader::decode(&raw, (rules, sector, kind)).map_err(err)?;
        check_size((rules, sector), header.entries, header.file_len(), len).map_err(err)?;
        Ok(CompactFile {
            header,
            blocks: BlockFile::new(path, file, header.layout(), cache),
            board: OnceLock::new(),
            values: code_values(&header),
        })
    }

    /// Open the file like [`CompactFile::open`], but memory-map it with `mapper`: a
    /// block that misses the cache is then checked and decompressed from the mapping,
    /// without a read into a buffer (the blocks are still checked before any value is
    /// used).
    ///
    /// # Errors
    /// A [`FileError`] naming the file and the first problem found.
    pub fn open_mapped(
        path: &Path,
        id: CompactId,
        cache: Arc<BlockCache>,
        mapper: Mapper,
    ) -> Result<CompactFile, FileError> {
        let mut file = CompactFile::open(path, id, cache)?;
        // `open` has checked the length.
        file.blocks.map(mapper)?;
        Ok(file)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.blocks.path()
    }

    /// The decoded header.
    pub fn header(&self) -> &CompactHeader {
        &self.header
    }

    /// The index of the file's board, built on first use.
    pub fn index(&self) -> &SectorIndex {
        self.board
            .get_or_init(|| self.header.sector.index(self.header.rules.board()))
    }

    /// Whether it holds no values: a `.wdl` file whose sector's values follow from
    /// its successors' (codec 0, the header alone).
    pub fn is_derived(&self) -> bool {
        self.header.derived
    }

    /// The error of reading a value from a file that holds none.
    fn no_values(&self) -> FileError {
        self.error(Problem::Io(io::Error::other(
            "holds no values: they follow from its successors' (a sparse set)",
        )))
    }

    /// Blocks decompressed so far (cache misses).
    pub fn blocks_read(&self) -> u64 {
        self.blocks.blocks_read()
    }

    fn error(&self, p: Problem) -> FileError {
        FileError::new(self.path(), p)
    }

    /// Read, check and decompress block `b`, without the cache: one code a position.
    fn load_block(&self, b: u64) -> Result<Vec<u8>, FileError> {
        if self.header.packed {
            self.unpacked(b, self.blocks.load_selected(b)?)
        } else {
            self.blocks.load_block(b)
        }
    }

    /// The codes of block `b` of a file of packed codes, from its stored bytes.
    fn unpacked(&self, b: u64, stored: Vec<u8>) -> Result<Vec<u8>, FileError> {
        unpack_codes(&stored, self.blocks.layout().block_len(b))
            .ok_or_else(|| self.blocks.damaged(b))
    }

    /// The value stored at `index`: with its distance from a `.dtm` file, without it
    /// from a `.wdl` file.
    ///
    /// # Errors
    /// A [`FileError`] naming the file: a damaged block, an index beyond the sector,
    /// or a value that the header rules out.
    pub fn value(&self, index: u64) -> Result<Value, FileError> {
        if self.is_derived() {
            return Err(self.no_values());
        }
        let code = if self.header.packed {
            self.blocks
                .entry_expanded(index, |b, stored| self.unpacked(b, stored))?
        } else {
            self.blocks.entry(index)?
        } as u8;
        self.decode(code).ok_or_else(|| {
            self.error(Problem::Implausible {
                index,
                entries: self.header.entries,
            })
        })
    }

    /// Which of the entries `first..first + len` are drawn, from the blocks that
    /// hold them (read, checked and decompressed without the cache).
    ///
    /// # Errors
    /// A [`FileError`] naming the file: a damaged block, a range beyond the sector,
    /// or a code the header rules out.
    pub fn drawn(&self, first: u64, len: usize) -> Result<Vec<bool>, FileError> {
        if self.is_derived() {
            return Err(self.no_values());
        }
        let end = first + len as u64;
        if end > self.header.entries {
            return Err(self.error(Problem::Implausible {
                index: end.saturating_sub(1),
                entries: self.header.entries,
            }));
        }
        let block = self.header.block();
        let mut out = Vec::with_capacity(len);
        let mut at = first;
        while at < end {
            let b = at / block;
            let codes = self.load_block(b)?;
            let start = (at - b * block) as usize;
            let stop = ((end - b * block).min(block)) as usize;
            for (i, &c) in codes
                .get(start..stop)
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let v = self.decode(c).ok_or_else(|| {
                    self.error(Problem::Implausible {
                        index: at + i as u64,
                        entries: self.header.entries,
                    })
                })?;
                out.push(v.wdl() == Wdl::Draw);
            }
            at = b * block + stop as u64;
        }
        if out.len() != len {
            return Err(self.error(Problem::Implausible {
                index: first,
                entries: self.header.entries,
            }));
        }
        Ok(out)
    }

    /// The value of a stored code, if the header allows it.
    #[inline]
    fn decode(&self, code: u8) -> Option<Value> {
        let v = self.values[usize::from(code)];
        (v != NOT_ALLOWED).then_some(Value(v))
    }

    /// The error of the first code of `codes` (entries from `first` on) that the
    /// header rules out, if there is one.
    fn first_implausible(&self, first: u64, codes: &[u8]) -> Result<(), FileError> {
        // Every code looked up without a branch; the one found, if any, located after.
        let bad = codes.iter().fold(false, |bad, &c| {
            bad | (self.values[usize::from(c)] == NOT_ALLOWED)
        });
        if !bad {
            return Ok(());
        }
        let i = codes
            .iter()
            .position(|&c| self.decode(c).is_none())
            .unwrap_or_default();
        Err(self.error(Problem::Implausible {
            index: first + i as u64,
            entries: self.header.entries,
        }))
    }

    /// Every block's stored codes in turn, checked, handed to `each` with the first
    /// entry of the block; the cache is left alone.
    ///
    /// # Errors
    /// The first damaged block or unreadable part, naming the file, or what `each`
    /// returns.
    pub fn for_each_block(
        &self,
        mut each: impl FnMut(u64, &[u8]) -> Result<(), FileError>,
    ) -> Result<(), FileError> {
        for b in 0..self.header.blocks() {
            let block = self.load_block(b)?;
            each(b * self.header.block(), &block)?;
        }
        Ok(())
    }

    /// Check every block against its checksum and length, and every code against
    /// the header, and count the values against the header's counts; the blocks are
    /// checked on the threads of the current rayon pool.
    ///
    /// # Errors
    /// A [`FileError`] naming the file and a problem found (of a damaged block, any).
    pub fn check(&self) -> Result<(), FileError> {
        if self.is_derived() {
            // The header, checked when opened, is all it holds.
            return Ok(());
        }
        let stats = (0..self.header.blocks())
            .into_par_iter()
            .map(|b| {
                let first = b * self.header.block();
                let codes = self.load_block(b)?;
                self.first_implausible(first, &codes)?;
                // Counted by code, then each code's count added once.
                let mut counts = [0u64; 256];
                for &c in &codes {
                    counts[usize::from(c)] += 1;
                }
                let mut stats = SectorStats::default();
                for (c, &n) in counts.iter().enumerate().filter(|(_, &n)| n > 0) {
                    stats.add_many(Value(self.values[c]), n);
                }
                Ok(stats)
            })
            .try_reduce(SectorStats::default, |mut a, b| {
                a.merge(&b);
                Ok(a)
            })?;
        let s = &self.header.stats;
        // A `.wdl` file's values carry no distance to find its longest ones by.
        let longest_ok = self.header.kind == Kind::Wdl
            || (stats.longest_win, stats.longest_loss) == (s.longest_win, s.longest_loss);
        if (stats.wins, stats.draws, stats.losses) != (s.wins, s.draws, s.losses) || !longest_ok {
            return Err(self.error(Problem::Counts));
        }
        Ok(())
    }

    /// Every value as the code a raw file stores for it (encoding 2 of
    /// [`crate::file`]), one byte a position in index order, every block checked
    /// against its checksum and every code against the header, decompressed on the
    /// threads of the current rayon pool; the cache is left alone. A `.dtm` file's codes
    /// are its values; a `.wdl` file's stand for its results with a distance of 0 for
    /// a loss and 1 for a win (a draw has none): what a position's result is computed
    /// from, its successors' results, reads the same from them, but the distances are
    /// not the position's.
    ///
    /// # Errors
    /// A [`FileError`] naming the file: the first damaged block, a code the header
    /// rules out, or no memory for the codes.
    pub fn raw_codes(&self) -> Result<Vec<u8>, FileError> {
        if self.is_derived() {
            return Err(self.no_values());
        }
        let n = usize::try_from(self.header.entries)
            .map_err(|_| self.error(Problem::Io(io::Error::other("sector too large"))))?;
        let mut codes = Vec::new();
        codes.try_reserve_exact(n).map_err(|_| {
            self.error(Problem::Io(io::Error::new(
                io::ErrorKind::OutOfMemory,
                "cannot allocate memory to decode the file",
            )))
        })?;
        codes.resize(n, 0);
        let block = usize::try_from(self.header.block()).unwrap_or(usize::MAX);
        codes
            .par_chunks_mut(block)
            .enumerate()
            .try_for_each(|(b, out)| {
                let first = (b * block) as u64;
                let stored = self.load_block(b as u64)?;
                self.first_implausible(first, &stored)?;
                if stored.len() != out.len() {
                    return Err(self.blocks.damaged(b as u64));
                }
                match self.header.kind {
                    Kind::Dtm => out.copy_from_slice(&stored),
                    Kind::Wdl => {
                        for (code, &c) in out.iter_mut().zip(stored.iter()) {
                            *code = STAND_INS[usize::from(c & 3)];
                        }
                    }
                }
                Ok(())
            })?;
        Ok(codes)
    }
}

/// Win/draw/loss codes (each below 4) packed four a byte, the first in the lowest
/// two bits, as the blocks of a file of codec 2 hold them before compression.
/// Measured on Standard 6-6, 6-7 and 7-6 (zstd level 13 against the one-code-a-byte
/// blocks at level 16, every 40th block): 4-13% more bytes in a seventh to a ninth
/// of the time (`docs/COMPACT.md`, "Packing time").
pub fn pack_codes(codes: &[u8]) -> Vec<u8> {
    codes
        .chunks(4)
        .map(|q| {
            q.iter()
                .enumerate()
                .fold(0u8, |b, (i, &c)| b | (c & 3) << (2 * i))
        })
        .collect()
}

/// The `len` codes packed by [`pack_codes`] into `packed`; `None` when it holds
/// another number of bytes.
fn unpack_codes(packed: &[u8], len: usize) -> Option<Vec<u8>> {
    if packed.len() != len.div_ceil(4) {
        return None;
    }
    let mut codes = Vec::with_capacity(len);
    for &b in packed {
        codes.extend_from_slice(&[b & 3, (b >> 2) & 3, (b >> 4) & 3, b >> 6]);
    }
    codes.truncate(len);
    Some(codes)
}

/// The code of a raw file (encoding 2) that stands for a result without its distance
/// in [`CompactFile::raw_codes`], by the code of a `.wdl` file (loss, draw, win): a
/// loss in 0, a draw, a win in 1 (the fourth code is no result).
const STAND_INS: [u8; 4] = [1, 0, 2, 0];

/// The value each code of a file of `header` stands for, [`NOT_ALLOWED`] where the
/// header rules the code out (a result the sector does not hold, a distance beyond
/// its longest, or a code of no value).
fn code_values(header: &CompactHeader) -> [u16; 256] {
    let s = &header.stats;
    let mut table = [NOT_ALLOWED; 256];
    for (code, slot) in table.iter_mut().enumerate() {
        let (value, dtm_limit) = match header.kind {
            Kind::Wdl => {
                let wdl = match code {
                    0 => Wdl::Loss,
                    1 => Wdl::Draw,
                    2 => Wdl::Win,
                    _ => continue,
                };
                (Value::wdl_only(wdl), None)
            }
            Kind::Dtm => {
                let v = decode_byte(code as u8);
                (v, v.dtm())
            }
        };
        let fits = match (value.wdl(), dtm_limit) {
            (Wdl::Win, d) => s.wins > 0 && d.is_none_or(|d| d <= s.longest_win),
            (Wdl::Loss, d) => s.losses > 0 && d.is_none_or(|d| d <= s.longest_loss),
            (Wdl::Draw, _) => s.draws > 0,
        };
        if fits && value.is_well_formed() {
            *slot = value.0;
        }
    }
    table
}

/// A sector's compact files: either or both.
#[derive(Debug, Default)]
pub struct CompactTable {
    /// The win/draw/loss file.
    pub wdl: Option<CompactFile>,
    /// The DTM file.
    pub dtm: Option<CompactFile>,
}

impl CompactTable {
    /// The file that answers probes: the DTM file when present, else a `.wdl` file
    /// that holds values.
    pub fn answering(&self) -> Option<&CompactFile> {
        self.dtm
            .as_ref()
            .or(self.wdl.as_ref().filter(|f| !f.is_derived()))
    }

    /// Whether its values follow from its successors': a `.wdl` file without
    /// values, and no `.dtm` file.
    pub fn derived(&self) -> bool {
        self.dtm.is_none() && self.wdl.as_ref().is_some_and(CompactFile::is_derived)
    }

    /// Both files, those present.
    pub fn files(&self) -> impl Iterator<Item = &CompactFile> {
        self.wdl.iter().chain(self.dtm.iter())
    }

    /// Whether the values come with their distances.
    pub fn has_dtm(&self) -> bool {
        self.dtm.is_some()
    }
}

/// The compact files in `dir` (by name: rules, sector, kind, path), sorted; an
/// absent directory has none.
///
/// # Errors
/// A [`FileError`] naming the directory when it cannot be read.
pub fn compact_names(dir: &Path) -> Result<Vec<(Rules, SectorId, Kind, PathBuf)>, FileError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(FileError::new(dir, e)),
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| FileError::new(dir, e))?;
        if let Some((v, s, k)) = entry.file_name().to_str().and_then(parse_compact_name) {
            names.push((v, s, k, entry.path()));
        }
    }
    names.sort();
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sector::Sector;

    /// Codes packed four a byte unpack to themselves at every length, and a block
    /// of another length is refused.
    #[test]
    fn packed_codes_round_trip() {
        let mut state = 0x9E37_79B9u32;
        for len in 0..40usize {
            let codes: Vec<u8> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 17;
                    state ^= state << 5;
                    (state % 3) as u8
                })
                .collect();
            let packed = pack_codes(&codes);
            assert_eq!(packed.len(), len.div_ceil(4));
            assert_eq!(unpack_codes(&packed, len), Some(codes), "length {len}");
            assert_eq!(unpack_codes(&packed, len + 4), None);
            if len >= 4 {
                assert_eq!(unpack_codes(&packed, len - 4), None);
            }
        }
        assert_eq!(pack_codes(&[2, 1, 0, 2, 1]), vec![0b1000_0110, 0b01]);
    }

    #[test]
    fn names_round_trip() {
        let s = SectorId::Movement(Sector::new(8, 9).expect("a sector"));
        assert_eq!(
            compact_name(Rules::NO_FLYING, s, Kind::Wdl),
            "no-flying-8-9.wdl"
        );
        for kind in Kind::ALL {
            let name = compact_name(Rules::STANDARD, s, kind);
            assert_eq!(parse_compact_name(&name), Some((Rules::STANDARD, s, kind)));
        }
        assert_eq!(parse_compact_name("standard-8-9.tb"), None);
        assert_eq!(parse_compact_name("standard-8-9.wdl.tmp"), None);
        assert_eq!(parse_compact_name("standard-08-9.dtm"), None);
    }
}
