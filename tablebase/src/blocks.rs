//! Files of independently compressed blocks: the container of the compact value
//! files ([`crate::compact`]) and of the class files ([`crate::classes`]).
//!
//! Such a file starts with a header of [`HEADER_LEN`] bytes (its owner's), then the
//! block index, `16 b` bytes for `b` blocks: per block the end offset of its data
//! (from the end of the index) and the xxh3-64 of its compressed bytes; then the
//! blocks, each compressed alone with zstd. A block holds `2^k` entries of one or two
//! bytes (little-endian), the last block fewer. The index is read and checked
//! against the header's checksum of it on first use; a block is checked before it is
//! decompressed, and its decompressed length against the layout. Decompressed blocks
//! are kept in a [`BlockCache`] of bounded size, shared by a tablebase's files.

use crate::file::{FileError, Problem, HEADER_LEN};
use morris_sys::{MappedFile, Mapper};
use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasherDefault, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};
use xxhash_rust::xxh3::xxh3_64;

/// Bytes of one block's entry in the index.
pub const INDEX_ENTRY: usize = 16;

/// Where a block file's parts lie, from its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Entries of the file.
    pub entries: u64,
    /// Bytes of one entry: 1 or 2.
    pub width: u8,
    /// log2 of the entries of a block.
    pub block_log2: u8,
    /// xxh3-64 of the block index.
    pub index_sum: u64,
    /// Bytes of compressed data.
    pub data_len: u64,
}

impl Layout {
    /// Entries of a block (the last may have fewer).
    pub fn block(&self) -> u64 {
        1 << self.block_log2
    }

    /// Number of blocks.
    pub fn blocks(&self) -> u64 {
        self.entries.div_ceil(self.block())
    }

    /// Where the compressed data starts.
    pub fn data_start(&self) -> u64 {
        HEADER_LEN as u64 + INDEX_ENTRY as u64 * self.blocks()
    }

    /// The length of the file.
    pub fn file_len(&self) -> u64 {
        self.data_start() + self.data_len
    }

    /// Entries of block `b`.
    pub fn block_len(&self, b: u64) -> usize {
        let start = b * self.block();
        usize::try_from(self.entries.saturating_sub(start).min(self.block())).unwrap_or(0)
    }
}

/// Entry `offset` of a block of `width`-byte entries.
fn read_entry(block: &[u8], offset: usize, width: usize) -> Option<u16> {
    match width {
        1 => block.get(offset).map(|&b| u16::from(b)),
        _ => {
            let at = offset.checked_mul(2)?;
            let b = block.get(at..at + 2)?;
            Some(u16::from_le_bytes([b[0], b[1]]))
        }
    }
}

/// Decompressed blocks kept for reuse, bounded in bytes, shared by the files of a
/// tablebase; a full shard drops blocks by the clock (second-chance) rule.
#[derive(Debug)]
pub struct BlockCache {
    shards: Box<[Mutex<Shard>]>,
    /// Bytes a shard holds at most (but always its newest block).
    per_shard: usize,
}

/// A block in the cache: its file's id and its number.
type BlockKey = (u64, u64);

/// A cached block and whether it was used since the clock hand last passed it.
type Cached = (Box<[u8]>, bool);

/// One shard: its blocks, and their keys in a ring that the clock hand walks to
/// find a block to drop (second chance: a block used since the hand last passed it
/// is kept once more), so that inserting into a full shard costs O(1) on average.
#[derive(Debug, Default)]
struct Shard {
    blocks: HashMap<BlockKey, Cached, BuildHasherDefault<KeyHasher>>,
    ring: std::collections::VecDeque<BlockKey>,
    bytes: usize,
}

/// Hashes a block's key (two numbers this process chose, nothing an adversary can
/// pick) by one multiplication a word, far cheaper than the default SipHash on the
/// path of every probe.
#[derive(Debug, Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        // The product's high bits are its well-mixed ones; the table picks buckets by
        // the low bits (and the shard was picked by the block number's low bits).
        self.0 ^ (self.0 >> 32)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Shards of the cache: enough that threads probing at once seldom wait on each
/// other.
const SHARDS: usize = 16;

/// The cache size in MiB unless the caller chooses another
/// ([`crate::tablebase::OpenOptions`]).
pub const DEFAULT_CACHE_MB: usize = 512;

impl Default for BlockCache {
    fn default() -> BlockCache {
        BlockCache::new(DEFAULT_CACHE_MB << 20)
    }
}

impl BlockCache {
    /// A cache of at most `bytes` of decompressed blocks (but at least one block a
    /// shard).
    pub fn new(bytes: usize) -> BlockCache {
        BlockCache {
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            per_shard: bytes / SHARDS,
        }
    }

    fn shard(&self, key: BlockKey) -> std::sync::MutexGuard<'_, Shard> {
        let h = key.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ key.1;
        self.shards[(h as usize) % SHARDS]
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Entry `offset` (of `width` bytes, little-endian) of a cached block, read under
    /// its shard's lock (the cache owns its blocks: nothing is counted or copied on
    /// the path of every probe); `None` when the block is not cached or shorter.
    fn entry(&self, key: BlockKey, offset: usize, width: usize) -> Option<u16> {
        let mut shard = self.shard(key);
        let (block, used) = shard.blocks.get_mut(&key)?;
        *used = true;
        read_entry(block, offset, width)
    }

    fn insert(&self, key: BlockKey, block: Box<[u8]>) {
        let mut shard = self.shard(key);
        // Each turn drops a block or takes a second chance away: at most two turns
        // a block.
        while shard.bytes + block.len() > self.per_shard {
            let Some(old) = shard.ring.pop_front() else {
                break;
            };
            match shard.blocks.get_mut(&old) {
                Some((_, used)) if *used => {
                    *used = false;
                    shard.ring.push_back(old);
                }
                Some(_) => {
                    if let Some((gone, _)) = shard.blocks.remove(&old) {
                        shard.bytes -= gone.len();
                    }
                }
                None => {}
            }
        }
        shard.bytes += block.len();
        match shard.blocks.insert(key, (block, false)) {
            // Loaded by two threads at once: the ring holds it already.
            Some((old, _)) => shard.bytes -= old.len(),
            None => shard.ring.push_back(key),
        }
    }
}

/// Gives each opened block file its own key in the shared cache.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// Why the block index could not be had, kept so every later use fails alike.
#[derive(Debug)]
enum IndexFailure {
    /// It does not match the header's checksum.
    Damaged,
    /// It could not be read.
    Io(String),
}

/// One block's place in the data and its checksum.
#[derive(Clone, Copy, Debug)]
struct BlockEntry {
    start: u64,
    end: u64,
    sum: u64,
}

/// An opened block file (its header checked by its owner): the index read and
/// checked on first use, blocks checked, decompressed and cached as they are read.
#[derive(Debug)]
pub struct BlockFile {
    path: PathBuf,
    layout: Layout,
    file: File,
    /// The whole file mapped, when [`BlockFile::map`] was called: a block is then
    /// checked and decompressed straight from the mapping, without a system call.
    map: Option<MappedFile>,
    id: u64,
    index: OnceLock<Result<Box<[BlockEntry]>, IndexFailure>>,
    cache: Arc<BlockCache>,
    /// Blocks decompressed, for the statistics of a run.
    misses: AtomicU64,
}

impl BlockFile {
    /// The block file `file` at `path`, laid out as `layout` says (its length checked
    /// by the caller), its blocks kept in `cache`.
    pub fn new(path: &Path, file: File, layout: Layout, cache: Arc<BlockCache>) -> BlockFile {
        BlockFile {
            path: path.to_path_buf(),
            layout,
            file,
            map: None,
            id: NEXT_ID.fetch_add(1, Relaxed),
            index: OnceLock::new(),
            cache,
            misses: AtomicU64::new(0),
        }
    }

    /// Memory-map the file with `mapper`: a block that misses the cache is then
    /// checked and decompressed from the mapping (still checked before any entry is
    /// used).
    ///
    /// # Errors
    /// A [`FileError`] naming the file when it cannot be mapped.
    pub fn map(&mut self, mapper: Mapper) -> Result<(), FileError> {
        let map = mapper
            .map(&self.file, self.layout.file_len())
            .map_err(|e| FileError::new(&self.path, e))?;
        self.map = Some(map);
        Ok(())
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Blocks decompressed so far (cache misses).
    pub fn blocks_read(&self) -> u64 {
        self.misses.load(Relaxed)
    }

    fn error(&self, p: Problem) -> FileError {
        FileError::new(&self.path, p)
    }

    /// The block index, read and checked on first use (the verdict is kept).
    fn block_index(&self) -> Result<&[BlockEntry], FileError> {
        let index = self.index.get_or_init(|| {
            let n = usize::try_from(self.layout.blocks())
                .map_err(|e| IndexFailure::Io(e.to_string()))?;
            let bytes = self
                .bytes_at(HEADER_LEN as u64, n * INDEX_ENTRY)
                .map_err(|e| IndexFailure::Io(e.to_string()))?;
            if xxh3_64(&bytes) != self.layout.index_sum {
                return Err(IndexFailure::Damaged);
            }
            let mut start = 0;
            let mut out = Vec::with_capacity(n);
            for e in bytes.chunks_exact(INDEX_ENTRY) {
                let end = u64::from_le_bytes(e[0..8].try_into().unwrap_or_default());
                let sum = u64::from_le_bytes(e[8..16].try_into().unwrap_or_default());
                out.push(BlockEntry { start, end, sum });
                start = end;
            }
            Ok(out.into_boxed_slice())
        });
        match index {
            Ok(i) => Ok(i),
            Err(IndexFailure::Damaged) => Err(self.error(Problem::BlockSums)),
            Err(IndexFailure::Io(message)) => {
                Err(self.error(Problem::Io(io::Error::other(message.clone()))))
            }
        }
    }

    /// `len` bytes of the file from `offset`: borrowed from the mapping when the file is
    /// mapped, else read by a positional read.
    fn bytes_at(&self, offset: u64, len: usize) -> io::Result<Cow<'_, [u8]>> {
        match &self.map {
            // The owner checked the file's length against the header's, so a range
            // beyond the mapping comes only from a damaged index.
            Some(map) => usize::try_from(offset)
                .ok()
                .and_then(|start| map.bytes().get(start..start.checked_add(len)?))
                .map(Cow::Borrowed)
                .ok_or_else(|| io::Error::from(io::ErrorKind::UnexpectedEof)),
            None => {
                let mut bytes = vec![0u8; len];
                read_at(&self.file, &mut bytes, offset)?;
                Ok(Cow::Owned(bytes))
            }
        }
    }

    /// Read, check and decompress block `b`, without the cache: its entries' bytes.
    ///
    /// # Errors
    /// A [`FileError`] naming the file and the block's entries when it is damaged,
    /// or the failure to read it.
    pub fn load_block(&self, b: u64) -> Result<Vec<u8>, FileError> {
        self.load(b, true)
    }

    /// Read, check and decompress block `b`, without the cache, for a file whose
    /// blocks hold a selection of their entries: at most the block's bytes (its
    /// owner checks the length).
    ///
    /// # Errors
    /// As [`BlockFile::load_block`].
    pub fn load_selected(&self, b: u64) -> Result<Vec<u8>, FileError> {
        self.load(b, false)
    }

    /// The error of a damaged block `b`.
    pub fn damaged(&self, b: u64) -> FileError {
        let first = b * self.layout.block();
        let len = self.layout.block_len(b) as u64;
        self.error(Problem::Checksum {
            first,
            last: first + len.max(1) - 1,
        })
    }

    fn load(&self, b: u64, exact: bool) -> Result<Vec<u8>, FileError> {
        let index = self.block_index()?;
        let len = self.layout.block_len(b);
        let damaged = || self.damaged(b);
        let entry = usize::try_from(b)
            .ok()
            .and_then(|b| index.get(b))
            .ok_or_else(damaged)?;
        if entry.start > entry.end || entry.end > self.layout.data_len {
            return Err(damaged());
        }
        let size = usize::try_from(entry.end - entry.start).map_err(|_| damaged())?;
        let data = self
            .bytes_at(self.layout.data_start() + entry.start, size)
            .map_err(|e| self.error(e.into()))?;
        if xxh3_64(&data) != entry.sum {
            return Err(damaged());
        }
        // Checked bytes that do not decompress to the block's length were written
        // wrongly: corruption all the same.
        let bytes = len * usize::from(self.layout.width);
        let block = decompress(&data, bytes).map_err(|_| damaged())?;
        if block.len() > bytes || (exact && block.len() != bytes) {
            return Err(damaged());
        }
        self.misses.fetch_add(1, Relaxed);
        Ok(block)
    }

    /// The entry at `index`, from the cache or its block (checked, decompressed and
    /// cached now).
    ///
    /// # Errors
    /// A [`FileError`] naming the file: a damaged block, or an index beyond the file
    /// ([`Problem::Implausible`]).
    pub fn entry(&self, index: u64) -> Result<u16, FileError> {
        self.cached_entry(index, |b| self.load_block(b))
    }

    /// The entry at `index` of a file whose blocks hold a selection of their entries:
    /// on a miss, `expand` turns the block's stored bytes ([`BlockFile::load_selected`])
    /// into all its entries (`width` bytes each), which the cache keeps.
    ///
    /// # Errors
    /// A [`FileError`] naming the file: a damaged block, an index beyond the file,
    /// or what `expand` returns.
    pub fn entry_expanded(
        &self,
        index: u64,
        expand: impl FnOnce(u64, Vec<u8>) -> Result<Vec<u8>, FileError>,
    ) -> Result<u16, FileError> {
        self.cached_entry(index, |b| expand(b, self.load_selected(b)?))
    }

    /// The entry at `index`, from the cache or from block `b` as `load` gives all its
    /// entries (cached then).
    fn cached_entry(
        &self,
        index: u64,
        load: impl FnOnce(u64) -> Result<Vec<u8>, FileError>,
    ) -> Result<u16, FileError> {
        let implausible = || {
            self.error(Problem::Implausible {
                index,
                entries: self.layout.entries,
            })
        };
        if index >= self.layout.entries {
            return Err(implausible());
        }
        let b = index >> self.layout.block_log2;
        let offset = (index & (self.layout.block() - 1)) as usize;
        let key = (self.id, b);
        let width = usize::from(self.layout.width);
        if let Some(e) = self.cache.entry(key, offset, width) {
            return Ok(e);
        }
        let block = load(b)?.into_boxed_slice();
        if block.len() != self.layout.block_len(b) * width {
            return Err(self.damaged(b));
        }
        let e = read_entry(&block, offset, width).ok_or_else(implausible)?;
        self.cache.insert(key, block);
        Ok(e)
    }
}

/// Decompress one block of `len` bytes, with this thread's decompression context
/// (making one costs more than decompressing a small block).
fn decompress(data: &[u8], len: usize) -> io::Result<Vec<u8>> {
    thread_local! {
        static CONTEXT: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { std::cell::RefCell::new(None) };
    }
    CONTEXT.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_none() {
            *c = Some(zstd::bulk::Decompressor::new()?);
        }
        match c.as_mut() {
            Some(d) => d.decompress(data, len),
            None => Err(io::Error::other("no decompression context")),
        }
    })
}

/// Read all of `bytes` at `offset` of `file`.
fn read_at(file: &File, bytes: &mut [u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(bytes, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Read, Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(offset))?;
        f.read_exact(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_keeps_its_bound() {
        let cache = BlockCache::new(SHARDS * 2000);
        for b in 0..1000 {
            cache.insert((1, b), vec![0u8; 1000].into());
        }
        let held: usize = cache
            .shards
            .iter()
            .map(|s| s.lock().expect("not poisoned").blocks.len())
            .sum();
        assert!(held <= SHARDS * 2, "{held}");
        assert!(cache.entry((1, 999), 0, 1).is_some(), "the newest stays");
    }

    /// A block used between insertions keeps its place while the others come and go.
    #[test]
    fn a_block_in_use_stays_in_the_cache() {
        let cache = BlockCache::new(SHARDS * 3000);
        cache.insert((7, 0), vec![1u8; 1000].into());
        for b in 1..5000 {
            cache.insert((7, b), vec![0u8; 1000].into());
            assert_eq!(
                cache.entry((7, 0), 999, 1),
                Some(1),
                "dropped after {b} insertions"
            );
        }
        let bytes: usize = cache
            .shards
            .iter()
            .map(|s| s.lock().expect("not poisoned").bytes)
            .sum();
        assert!(bytes <= SHARDS * 3000, "{bytes}");
    }
}
