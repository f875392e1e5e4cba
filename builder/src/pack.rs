//! Packing: the compact files (`morris_tablebase::compact`) of a raw sector file,
//! each block compressed alone with zstd, estimates of their sizes, and which files
//! a resumed run may keep ([`packed_from`]).

use crate::write::{write_at, write_safely};
use morris_engine::Rules;
use morris_tablebase::compact::{
    compact_name, pack_codes, CompactFile, CompactHeader, CompactId, Kind, HEADER_LEN, INDEX_ENTRY,
};
use morris_tablebase::file::Problem;
use morris_tablebase::{FileError, SectorFile, SectorId};
use rayon::prelude::*;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_64;

/// log2 of the positions of a block of a compact file of `kind` and `sector`, as
/// [`pack_sector`] writes them. A
/// probe that misses the cache decompresses a whole block. DTM files of movement
/// sectors, which searches read, have blocks of 4 Ki positions (6% larger than of
/// 16 Ki, sector 8-8, level 19, sampled; the 7+7 empty-board proof ran at 72% of
/// the raw tables' speed, against 60% with 16 Ki). DTM files of placement sectors
/// have blocks of 16 Ki: a complete set answers a position with pieces in hand by
/// a lookup, not a search, and the larger blocks are 6% smaller (every 200th block
/// of each game's placement set at level 13: Standard 2.926 against 2.753 bits a
/// position, No-flying 3.133 against 2.951; blocks of 64 Ki gained only 0.3% more).
/// Win/draw/loss files, read for single answers, have blocks of 64 Ki (blocks of
/// 16 Ki came out 10% larger).
pub fn block_log2(kind: Kind, sector: SectorId) -> u8 {
    match (kind, sector) {
        (Kind::Wdl, _) => 16,
        (Kind::Dtm, SectorId::Movement(_)) => 12,
        (Kind::Dtm, SectorId::Placement(_)) => 14,
    }
}

/// Blocks compressed in parallel before they are written in order.
const BATCH: usize = 64;

/// The zstd level `morris pack` (and `generate --compact`) uses for a kind unless
/// told otherwise: 7 for both, chosen for the time a whole game takes to build.
/// Measured on the Standard set (every 10th block of the finished files, one thread,
/// `level_sweep` example): `.dtm` blocks take 0.042 to 0.055 us of CPU a position at
/// level 7 against 0.130 to 0.158 at level 12 (8-8+1-0, 7-7+2-1, 8-9+1-0, 5-6+3-2,
/// 9-9), for files 2.7% to 7.6% larger; `.wdl` blocks 0.006 to 0.009 us against 0.022
/// to 0.027, 1.8% to 3.4% larger. Over the files a sparse Standard set keeps (every
/// 20th block), packing takes about 984 s of CPU instead of 3,445 s, for `.dtm`
/// files 5.4% and `.wdl` files 3.0% larger (docs/COMPACT.md). Levels 8 to 10 pack
/// no smaller than 7 (within 0.5%) and more slowly; level 11 is within about 1% of
/// 12's size at three quarters of its time; 3 packs about four times as fast as 7,
/// 2% to 6% larger again.
pub const fn default_level(kind: Kind) -> i32 {
    match kind {
        Kind::Wdl => 7,
        Kind::Dtm => 7,
    }
}

/// Which sectors of a compact set get a `.dtm` file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Distances {
    /// Every sector.
    All,
    /// All but the sectors whose distances a probe finds from their successors' by a
    /// one-ply search ([`SectorId::distances_derived`]): about half the bytes.
    #[default]
    OneSide,
    /// As [`Distances::OneSide`], and those sectors' `.wdl` files hold no values
    /// either (the header alone, see `morris_tablebase::compact`): a probe finds
    /// their whole value by the one-ply search.
    Sparse,
}

impl Distances {
    /// Whether the set keeps the `.dtm` file of `sector` under `rules`.
    pub fn keeps(self, rules: impl Into<Rules>, sector: SectorId) -> bool {
        self == Distances::All || !sector.distances_derived(rules)
    }

    /// Whether the set keeps the compact file of `kind` of `sector` under `rules`:
    /// every `.wdl` file (one without values where [`Distances::keeps_values`]
    /// says so), and the `.dtm` files [`Distances::keeps`] says.
    pub fn keeps_kind(self, rules: impl Into<Rules>, sector: SectorId, kind: Kind) -> bool {
        kind == Kind::Wdl || self.keeps(rules, sector)
    }

    /// Whether the `.wdl` file of `sector` holds its values: all but the sectors
    /// a sparse set leaves to the one-ply search.
    pub fn keeps_values(self, rules: impl Into<Rules>, sector: SectorId) -> bool {
        self != Distances::Sparse || !sector.distances_derived(rules)
    }
}

/// The sizes [`pack_sector`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Packed {
    /// What the file holds.
    pub kind: Kind,
    /// Positions.
    pub entries: u64,
    /// Bytes of the file.
    pub bytes: u64,
}

impl Packed {
    /// Bits of file a position.
    pub fn bits_per_position(&self) -> f64 {
        self.bytes as f64 * 8.0 / self.entries.max(1) as f64
    }
}

/// Write the compact file of `kind` of a raw sector file into `dir`, compressing at
/// zstd `level` (1 to 22) on the threads of the current rayon pool. Every block of
/// the raw file is checked against its checksum first.
///
/// # Errors
/// A [`FileError`] naming the raw file (damaged or unreadable) or the file written
/// (a failure to write: no file with the final name is left behind).
pub fn pack_sector(
    raw: &SectorFile,
    dir: &Path,
    kind: Kind,
    level: i32,
) -> Result<Packed, FileError> {
    let codes = raw.entries()?;
    let header = raw.header();
    let name = compact_name(header.rules, header.sector, kind);
    let bytes = write_safely(dir, &name, |file| {
        let block_log2 = block_log2(kind, header.sector);
        let blocks: Vec<&[u8]> = codes.chunks(1 << block_log2).collect();
        let (index_sum, end) =
            write_blocks(file, blocks.len(), level, |b| stored_block(kind, blocks[b]))?;
        let compact = CompactHeader {
            kind,
            rules: header.rules,
            sector: header.sector,
            entries: header.entries,
            index_sum,
            stats: header.stats,
            data_len: end,
            level: u8::try_from(level).unwrap_or(0),
            block_log2,
            source: Some(header.checksum),
            derived: false,
            packed: kind == Kind::Wdl,
        };
        write_at(file, &compact.encode(), 0)?;
        Ok(compact.file_len())
    })?;
    Ok(Packed {
        kind,
        entries: header.entries,
        bytes,
    })
}

/// Write the `.wdl` file without values of a raw sector file into `dir` (the header
/// alone: its counts and the raw file's checksum; see `morris_tablebase::compact`),
/// for a sector whose values follow from its successors'.
///
/// # Errors
/// A [`FileError`] naming the file when it cannot be written.
pub fn pack_derived(raw: &SectorFile, dir: &Path) -> Result<Packed, FileError> {
    let h = raw.header();
    let header = CompactHeader {
        kind: Kind::Wdl,
        rules: h.rules,
        sector: h.sector,
        entries: h.entries,
        index_sum: 0,
        stats: h.stats,
        data_len: 0,
        level: 0,
        block_log2: block_log2(Kind::Wdl, h.sector),
        source: Some(h.checksum),
        derived: true,
        packed: false,
    };
    write_derived(dir, &header)
}

/// Write the `.wdl` file without values of the sector of `header` (the header of
/// its `.wdl` or `.dtm` file) into `dir`.
fn write_derived(dir: &Path, header: &CompactHeader) -> Result<Packed, FileError> {
    let header = CompactHeader {
        kind: Kind::Wdl,
        index_sum: xxh3_64(&[]),
        data_len: 0,
        level: 0,
        derived: true,
        packed: false,
        ..*header
    };
    let name = compact_name(header.rules, header.sector, Kind::Wdl);
    let bytes = write_safely(dir, &name, |file| {
        write_at(file, &header.encode(), 0)?;
        Ok(header.file_len())
    })?;
    Ok(Packed {
        kind: Kind::Wdl,
        entries: header.entries,
        bytes,
    })
}

/// Make a compact set in `dir` sparse for `sectors` of `rules`: the `.wdl` file of
/// each sector whose values follow from its successors'
/// ([`SectorId::distances_derived`]) that still holds values is replaced by one
/// without (its header alone). Returns the sectors thinned.
///
/// # Errors
/// A [`FileError`] naming a `.wdl` file that cannot be read or written.
pub fn thin(dir: &Path, rules: Rules, sectors: &[SectorId]) -> Result<Vec<SectorId>, FileError> {
    let mut thinned = Vec::new();
    for &s in sectors {
        if Distances::Sparse.keeps_values(rules, s) {
            continue;
        }
        let path = dir.join(compact_name(rules, s, Kind::Wdl));
        let file = match CompactFile::open(&path, (rules, s, Kind::Wdl), Arc::default()) {
            Ok(f) => f,
            Err(e) if e.problem.is_missing() => continue,
            Err(e) => return Err(e),
        };
        if !file.is_derived() {
            write_derived(dir, file.header())?;
            thinned.push(s);
        }
    }
    Ok(thinned)
}

/// Pack the compact file of `kind` of a raw sector file into `dir` as a set made
/// with `distances` has it: [`pack_derived`] for a `.wdl` file without values, else
/// [`pack_sector`] at `level`.
///
/// # Errors
/// As those two.
pub fn pack_as(
    raw: &SectorFile,
    dir: &Path,
    kind: Kind,
    level: i32,
    distances: Distances,
) -> Result<Packed, FileError> {
    let h = raw.header();
    if kind == Kind::Wdl && !distances.keeps_values(h.rules, h.sector) {
        pack_derived(raw, dir)
    } else {
        pack_sector(raw, dir, kind, level)
    }
}

/// Write the index and the `count` blocks of a block file (see
/// `morris_tablebase::blocks`) into `file`, block `b`'s bytes made by `block(b)` and
/// compressed at zstd `level`, in batches on the threads of the current rayon pool;
/// the header's place (the first `HEADER_LEN` bytes) is left zero for the caller.
/// Returns the index's checksum and the length of the compressed data.
///
/// # Errors
/// A failure to compress or to write.
pub(crate) fn write_blocks(
    file: &std::fs::File,
    count: usize,
    level: i32,
    block: impl Fn(usize) -> Vec<u8> + Sync,
) -> Result<(u64, u64), Problem> {
    let index_len = INDEX_ENTRY * count;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    // The header and index are known at the end; they are written last, in place.
    out.write_all(&vec![0; HEADER_LEN + index_len])?;
    let mut index = Vec::with_capacity(index_len);
    let mut end = 0u64;
    for first in (0..count).step_by(BATCH) {
        let compressed: Vec<io::Result<Vec<u8>>> = (first..(first + BATCH).min(count))
            .into_par_iter()
            .map(|b| compress(&block(b), level))
            .collect();
        for data in compressed {
            let data = data?;
            out.write_all(&data)?;
            end += data.len() as u64;
            index.extend_from_slice(&end.to_le_bytes());
            index.extend_from_slice(&xxh3_64(&data).to_le_bytes());
        }
    }
    out.flush()?;
    drop(out);
    write_at(file, &index, HEADER_LEN as u64)?;
    Ok((xxh3_64(&index), end))
}

/// Why a compact file found where packing resumes is not kept.
#[derive(Debug, thiserror::Error)]
pub enum Stale {
    /// It is damaged or cannot be read.
    #[error(transparent)]
    Bad(#[from] FileError),
    /// It does not say which raw file it was packed from (format version 1).
    #[error("{}: packed by an older morris, which did not record the raw file it came from", .0.display())]
    NoSource(PathBuf),
    /// It was packed from another raw file.
    #[error("{}: packed from another raw file than {}", path.display(), raw.display())]
    OtherSource {
        /// The compact file.
        path: PathBuf,
        /// The raw file being packed.
        raw: PathBuf,
    },
    /// It holds values where the set wants none, or none where it wants them.
    #[error("{}: {}", .0.display(), if *.1 { "holds no values, and this set keeps them" } else { "holds values, and this set leaves them to the one-ply search" })]
    OtherForm(PathBuf, bool),
}

/// Whether the compact file `id` at `path` may be kept when packing resumes: its
/// header when it was packed from `raw` (by the raw file's checksum in its header),
/// every block and count of it checks, and it holds values as a set made with
/// `distances` wants ([`Distances::keeps_values`]); `None` when there is none.
///
/// # Errors
/// [`Stale`]: why it is packed again.
pub fn packed_from(
    path: &Path,
    id: CompactId,
    raw: &SectorFile,
    distances: Distances,
) -> Result<Option<CompactHeader>, Stale> {
    // A file with the final name was complete when written (under a temporary name);
    // its header says whether it is the file wanted, and its blocks whether it still is.
    let done = match CompactFile::open(path, id, Arc::default()) {
        Ok(done) => done,
        Err(e) if e.problem.is_missing() => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    match done.header().source {
        None => return Err(Stale::NoSource(path.to_path_buf())),
        Some(sum) if sum != raw.header().checksum => {
            return Err(Stale::OtherSource {
                path: path.to_path_buf(),
                raw: raw.path().to_path_buf(),
            })
        }
        Some(_) => {}
    }
    let derived = id.2 == Kind::Wdl && !distances.keeps_values(id.0, id.1);
    if done.is_derived() != derived {
        return Err(Stale::OtherForm(path.to_path_buf(), done.is_derived()));
    }
    done.check()?;
    Ok(Some(*done.header()))
}

/// The bytes a compact file of `kind` stores (before compression) for a block of
/// raw codes: a `.dtm` file the codes, a `.wdl` file their results packed four a
/// byte (codec 2 of `morris_tablebase::compact`).
pub fn stored_block(kind: Kind, raw: &[u8]) -> Vec<u8> {
    let codes: Vec<u8> = raw.iter().map(|&c| kind.map(c)).collect();
    match kind {
        Kind::Wdl => pack_codes(&codes),
        Kind::Dtm => codes,
    }
}

/// Estimate the size of the compact file of `kind` of a raw sector file without
/// writing it: every `every`-th block is compressed as [`pack_sector`] would.
/// Returns the positions sampled and their compressed bytes.
///
/// # Errors
/// A [`FileError`] naming the raw file when it is damaged or unreadable.
pub fn estimate_sector(
    raw: &SectorFile,
    kind: Kind,
    level: i32,
    every: usize,
) -> Result<(u64, u64), FileError> {
    let codes = raw.entries()?;
    let sampled: Vec<&[u8]> = codes
        .chunks(1 << block_log2(kind, raw.header().sector))
        .step_by(every.max(1))
        .collect();
    let sizes: Vec<io::Result<usize>> = sampled
        .par_iter()
        .map(|block| compress(&stored_block(kind, block), level).map(|d| d.len()))
        .collect();
    let mut bytes = 0u64;
    for size in sizes {
        bytes += size.map_err(|e| FileError::new(raw.path(), e))? as u64;
    }
    let positions = sampled.iter().map(|b| b.len() as u64).sum();
    Ok((positions, bytes))
}

/// Bytes of a compact file of `kind` and `sector` besides its compressed data (header
/// and block index).
pub fn overhead(kind: Kind, sector: SectorId, entries: u64) -> u64 {
    HEADER_LEN as u64 + INDEX_ENTRY as u64 * entries.div_ceil(1 << block_log2(kind, sector))
}

/// Compress one block at `level`, with this thread's compression context (kept from
/// block to block: making one for every block allocated and set up its tables anew).
fn compress(data: &[u8], level: i32) -> io::Result<Vec<u8>> {
    thread_local! {
        static CONTEXT: std::cell::RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> =
            const { std::cell::RefCell::new(None) };
    }
    CONTEXT.with(|c| {
        let mut c = c.borrow_mut();
        if c.as_ref().is_none_or(|(l, _)| *l != level) {
            *c = Some((level, zstd::bulk::Compressor::new(level)?));
        }
        match c.as_mut() {
            Some((_, z)) => z.compress(data),
            None => Err(io::Error::other("no compression context")),
        }
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::generate::solve_pair;
    use crate::progress::Silent;
    use crate::write::write_sector;
    use morris_engine::Rules;
    use morris_tablebase::compact::BlockCache;
    use morris_tablebase::file::Problem;
    use morris_tablebase::{Sector, Value};
    use std::fs;

    pub(crate) fn packed_3_3() -> (tempfile::TempDir, SectorFile, Vec<u16>) {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let three = Sector::new(3, 3).expect("a sector");
        let (_, values) = solve_pair(Rules::STANDARD, three, &|_| None, &Silent)
            .expect("solved")
            .remove(0);
        write_sector(dir.path(), Rules::STANDARD, three, &values).expect("written");
        let raw = SectorFile::open(&dir.path().join("standard-3-3.tb"), Rules::STANDARD, three)
            .expect("opens");
        for kind in Kind::ALL {
            pack_sector(&raw, dir.path(), kind, 3).expect("packed");
        }
        (dir, raw, values)
    }

    pub(crate) fn open(dir: &Path, kind: Kind, cache: usize) -> CompactFile {
        let three = SectorId::Movement(Sector::new(3, 3).expect("a sector"));
        let path = dir.join(compact_name(Rules::STANDARD, three, kind));
        CompactFile::open(
            &path,
            (Rules::STANDARD, three, kind),
            Arc::new(BlockCache::new(cache)),
        )
        .expect("opens")
    }

    /// Every value of a sector reads back from both kinds, through a cache of one
    /// block a shard (so blocks are evicted and read again), and both files pass
    /// their own check and the comparison with the raw file.
    #[test]
    fn every_value_reads_back() {
        let (dir, raw, values) = packed_3_3();
        let wdl = open(dir.path(), Kind::Wdl, 0);
        let dtm = open(dir.path(), Kind::Dtm, 0);
        assert!(wdl.header().blocks() > 1, "several blocks");
        for (i, &v) in values.iter().enumerate() {
            let v = Value(v);
            assert_eq!(dtm.value(i as u64).expect("good"), v, "entry {i}");
            assert_eq!(wdl.value(i as u64).expect("good"), Value::wdl_only(v.wdl()));
        }
        for f in [&wdl, &dtm] {
            f.check().expect("checks");
            crate::verify::compare(f, &raw).expect("same values");
            assert!(f.header().file_len() < raw.header().file_len() / 2);
        }
        assert!(wdl.value(values.len() as u64).is_err());
    }

    /// A flipped byte in any block's data is an error naming the file and the block's
    /// entries, on probe and on check; a flipped byte in the index is one too.
    #[test]
    fn a_damaged_block_is_named_and_never_answers() {
        let (dir, _, values) = packed_3_3();
        let path = dir.path().join("standard-3-3.wdl");
        let good = fs::read(&path).expect("read");
        let header = *open(dir.path(), Kind::Wdl, 1 << 20).header();
        let data_start = header.layout().data_start() as usize;
        let mut bad = good.clone();
        bad[data_start + 5] ^= 0x40;
        fs::write(&path, &bad).expect("written");
        let f = open(dir.path(), Kind::Wdl, 1 << 20);
        let e = f.value(3).expect_err("damaged");
        assert!(e.to_string().contains("standard-3-3.wdl"), "{e}");
        assert!(
            matches!(e.problem, Problem::Checksum { first: 0, last } if last == (1 << 16) - 1),
            "{e}"
        );
        assert!(f.check().is_err());
        // The other blocks still answer.
        let last = values.len() as u64 - 1;
        assert_eq!(
            f.value(last).expect("good").wdl(),
            Value(values[last as usize]).wdl()
        );

        let mut bad = good.clone();
        bad[HEADER_LEN + 3] ^= 1;
        fs::write(&path, &bad).expect("written");
        let f = open(dir.path(), Kind::Wdl, 1 << 20);
        assert!(matches!(
            f.value(0).expect_err("damaged").problem,
            Problem::BlockSums
        ));

        let mut bad = good;
        bad[20] ^= 1;
        fs::write(&path, &bad).expect("written");
        let three = SectorId::Movement(Sector::new(3, 3).expect("a sector"));
        let e = CompactFile::open(&path, (Rules::STANDARD, three, Kind::Wdl), Arc::default())
            .expect_err("bad header");
        assert!(matches!(e.problem, Problem::HeaderChecksum), "{e}");
    }

    /// A file of format version 1 (no raw file's checksum) still reads, with no
    /// source; a version to come and an unknown codec are refused as such.
    #[test]
    fn older_versions_read_and_unknown_ones_are_named() {
        let (dir, raw, values) = packed_3_3();
        let three = SectorId::Movement(Sector::new(3, 3).expect("a sector"));
        let path = dir.path().join("standard-3-3.dtm");
        let current = open(dir.path(), Kind::Dtm, 0);
        assert_eq!(current.header().source, Some(raw.header().checksum));
        let good = fs::read(&path).expect("read");
        let reseal = |bytes: &mut Vec<u8>| {
            let sum = xxh3_64(&bytes[0..120]);
            bytes[120..128].copy_from_slice(&sum.to_le_bytes());
        };
        let mut old = good.clone();
        old[8..12].copy_from_slice(&1u32.to_le_bytes());
        old[80..88].fill(0);
        reseal(&mut old);
        fs::write(&path, &old).expect("written");
        let f = open(dir.path(), Kind::Dtm, 0);
        assert_eq!(f.header().source, None);
        assert_eq!(f.value(7).expect("good"), Value(values[7]));
        f.check().expect("good");
        // Version 1 had no source: a byte there is a damaged header.
        let mut odd = old.clone();
        odd[81] = 1;
        reseal(&mut odd);
        fs::write(&path, &odd).expect("written");
        let opened = |bytes: &[u8]| {
            fs::write(&path, bytes).expect("written");
            CompactFile::open(&path, (Rules::STANDARD, three, Kind::Dtm), Arc::default())
        };
        assert!(matches!(
            opened(&odd).expect_err("bad").problem,
            Problem::Reserved(81)
        ));
        let mut newer = good.clone();
        newer[8..12].copy_from_slice(&3u32.to_le_bytes());
        reseal(&mut newer);
        let e = opened(&newer).expect_err("unknown");
        assert!(
            matches!(
                e.problem,
                Problem::CompactVersion {
                    found: 3,
                    newest: 2
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains("compact format version 3"), "{e}");
        let mut codec = good;
        codec[63] = 9;
        reseal(&mut codec);
        let e = opened(&codec).expect_err("unknown");
        assert!(matches!(e.problem, Problem::Codec(9)), "{e}");
    }

    /// A `.wdl` file of codec 1 (one code a byte, as `pack` wrote them before the
    /// codes were packed four a byte) reads the same values and checks; codec 2 in
    /// a `.dtm` file is refused.
    #[test]
    fn wdl_files_of_one_code_a_byte_still_read() {
        let (dir, raw, values) = packed_3_3();
        let three = SectorId::Movement(Sector::new(3, 3).expect("a sector"));
        let packed = open(dir.path(), Kind::Wdl, 0);
        assert!(packed.header().packed);
        let codes = raw.entries().expect("good");
        let name = compact_name(Rules::STANDARD, three, Kind::Wdl);
        write_safely(dir.path(), &name, |file| {
            let blocks: Vec<&[u8]> = codes.chunks(1 << block_log2(Kind::Wdl, three)).collect();
            let (index_sum, end) = write_blocks(file, blocks.len(), 3, |b| {
                blocks[b].iter().map(|&c| Kind::Wdl.map(c)).collect()
            })?;
            let header = CompactHeader {
                index_sum,
                data_len: end,
                packed: false,
                ..*packed.header()
            };
            write_at(file, &header.encode(), 0)?;
            Ok(())
        })
        .expect("written");
        let plain = open(dir.path(), Kind::Wdl, 0);
        assert!(!plain.header().packed);
        assert_ne!(
            plain.header().file_len(),
            packed.header().file_len(),
            "another file"
        );
        for i in 0..values.len() as u64 {
            assert_eq!(
                plain.value(i).expect("good"),
                packed.value(i).expect("good"),
                "entry {i}"
            );
        }
        plain.check().expect("checks");
        crate::verify::compare(&plain, &raw).expect("same values");

        let path = dir.path().join("standard-3-3.dtm");
        let mut bytes = fs::read(&path).expect("read");
        bytes[63] = 2;
        let sum = xxh3_64(&bytes[0..120]);
        bytes[120..128].copy_from_slice(&sum.to_le_bytes());
        fs::write(&path, &bytes).expect("written");
        let e = CompactFile::open(&path, (Rules::STANDARD, three, Kind::Dtm), Arc::default())
            .expect_err("no packed distances");
        assert!(matches!(e.problem, Problem::Codec(2)), "{e}");
    }

    #[test]
    fn a_truncated_file_is_refused_at_open() {
        let (dir, _, _) = packed_3_3();
        let path = dir.path().join("standard-3-3.dtm");
        let len = fs::metadata(&path).expect("there").len();
        let f = fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("opens");
        f.set_len(len - 1).expect("truncated");
        let three = SectorId::Movement(Sector::new(3, 3).expect("a sector"));
        let e = CompactFile::open(&path, (Rules::STANDARD, three, Kind::Dtm), Arc::default())
            .expect_err("short");
        assert!(matches!(e.problem, Problem::Length { .. }), "{e}");
    }
}
