//! The one crate of the workspace with `unsafe`: read-only maps of finished tablebase
//! files, the zeroed anonymous mappings with huge pages that hold the generator's
//! working state and the solver's transposition table, and the prefetch hint used on
//! both. Every other crate forbids `unsafe`.
//!
//! Contract of a file mapping. The bytes of a mapped file change under the reader, or
//! the reader is killed by SIGBUS, if anyone modifies or truncates the file while it
//! is mapped; no check inside this process can rule that out. So mappings are made by
//! a [`Mapper`], and the one way to have one is the `unsafe fn` [`Mapper::new`], whose
//! caller promises that nobody changes a file while a mapping of it lives. The promise
//! is made once, by the program, and the mapper travels down to everything that maps
//! (the tablebase's open options), which then needs no `unsafe` of its own.
//! What this crate adds on its side:
//! - it maps only a regular file whose length it has just checked against the length
//!   its caller expects (from the header), so no page of the mapping lies beyond the
//!   end of the file;
//! - the mapping is read-only and exposed only as `&[u8]`.
//!
//! The generator keeps its side of the bargain by never writing a finished file in
//! place: it writes a temporary file and renames it over the old one, which leaves
//! existing mappings on the old inode. Users are told to do the same (copy to a
//! temporary name, then rename). The safe alternative to mapping is reading a file
//! into memory (a tablebase opened without a mapper).
//!
//! Every pointer is derived from the mapping itself (`MmapRaw`), never from a shared
//! `&[u8]` view of it, so writes through the atomics of [`AtomicWords`] have the
//! provenance of the writable mapping.
//!
//! ```
//! use morris_sys::{AtomicWords, Mapper};
//! use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
//!
//! // A zeroed array of atomics, as the transposition table holds its slots.
//! let words = AtomicWords::<AtomicU64>::zeroed(1024)?;
//! words.as_slice()[3].store(7, Relaxed);
//! assert_eq!(words.as_slice()[3].load(Relaxed), 7);
//!
//! // A file mapped read-only.
//! let path = std::env::temp_dir().join(format!("morris-sys-doc-{}", std::process::id()));
//! std::fs::write(&path, b"MORRIS")?;
//! // SAFETY: this example owns the file and leaves it alone while it is mapped.
//! let mapper = unsafe { Mapper::new() };
//! let map = mapper.map(&std::fs::File::open(&path)?, 6)?;
//! assert_eq!(map.bytes(), b"MORRIS");
//! drop(map);
//! std::fs::remove_file(&path)?;
//! # Ok::<(), std::io::Error>(())
//! ```

#![warn(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

use memmap2::{Mmap, MmapMut, MmapRaw};
use std::fs::File;
use std::io;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU32, AtomicU64};

/// Ask the processor to start loading the cache line of `slice[i]` into its caches; an
/// index out of range is ignored. A hint only: it changes no value and no result.
///
/// The generator and the verifier read gigabytes at random; computing a batch of
/// indices, prefetching each as it is computed and reading them afterwards lets the
/// cache misses overlap with the index arithmetic instead of following it.
#[inline]
pub fn prefetch<T>(slice: &[T], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(x) = slice.get(i) {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 processor has (it is in
        // the target's baseline features); a prefetch never faults and writes nothing,
        // and the address is that of a live element of `slice` in any case.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(x).cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, i);
}

/// The maker of read-only file mappings: holding one is the promise of the crate's
/// contract (nobody changes a mapped file while it is mapped).
#[derive(Clone, Copy, Debug)]
pub struct Mapper {
    _promise: (),
}

impl Mapper {
    /// A mapper, on the caller's promise.
    ///
    /// # Safety
    /// Nobody may modify or truncate a file mapped by this mapper (or a copy of it)
    /// while the mapping lives: its bytes would change under the reader, or the
    /// process be killed by SIGBUS. Replacing a file by renaming another over it is
    /// fine.
    pub const unsafe fn new() -> Mapper {
        Mapper { _promise: () }
    }

    /// Map `file`, after checking that it is a regular file of exactly `expected_len`
    /// bytes.
    ///
    /// # Errors
    /// An `InvalidData` error when the file is not a regular file or its length
    /// differs, or the mapping's own error (for example out of memory).
    pub fn map(self, file: &File, expected_len: u64) -> io::Result<MappedFile> {
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "not a regular file",
            ));
        }
        let len = meta.len();
        if len != expected_len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("file is {len} bytes, expected {expected_len}"),
            ));
        }
        // SAFETY: the length was checked just above, so the mapping covers only bytes
        // that exist, and whoever made this mapper promised that the file stays
        // unchanged while the mapping lives.
        let map = unsafe { Mmap::map(file)? };
        Ok(MappedFile { map })
    }
}

/// A read-only mapping of a whole file of known length.
#[derive(Debug)]
pub struct MappedFile {
    map: Mmap,
}

impl MappedFile {
    /// The mapped bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }
}

/// The atomics an [`AtomicWords`] array may hold: `AtomicU32` and `AtomicU64`, for
/// which all-zero bytes are a valid zero.
pub trait AtomicWord: sealed::Sealed {}
impl AtomicWord for AtomicU32 {}
impl AtomicWord for AtomicU64 {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::AtomicU32 {}
    impl Sealed for super::AtomicU64 {}
}

/// A zeroed array of atomics (`AtomicU32` by default) in an anonymous mapping, with
/// transparent huge pages requested: the generator's working state and the solver's
/// transposition table are gigabytes read at random, where 4 KiB pages make every
/// access a TLB miss. The kernel zeroes the pages on first touch, so a large array
/// costs nothing until used.
pub struct AtomicWords<T: AtomicWord = AtomicU32> {
    map: MmapRaw,
    len: usize,
    word: PhantomData<T>,
}

impl<T: AtomicWord> AtomicWords<T> {
    /// `len` zeroed words.
    ///
    /// # Errors
    /// The mapping's error (out of memory).
    pub fn zeroed(len: usize) -> io::Result<AtomicWords<T>> {
        let bytes = len
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| io::Error::other("array too large"))?;
        let map = MmapRaw::from(HugePages::zeroed(bytes)?.map);
        Ok(AtomicWords {
            map,
            len,
            word: PhantomData,
        })
    }

    /// The words.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: the pointer comes from `MmapRaw::as_mut_ptr`, the writable anonymous
        // mapping's own address (not a shared `&[u8]` view of it), so writing through
        // the atomics is allowed. The mapping is at least `len` words long, zero-filled,
        // page-aligned (so aligned for `T`), owned by `self` and never unmapped or
        // resized while borrowed; `T` is `AtomicU32` or `AtomicU64` (sealed), which
        // have the size and alignment of their integer, for which every bit pattern is
        // valid, and no access bypasses the atomics, so handing out shared references
        // is sound.
        unsafe { std::slice::from_raw_parts(self.map.as_mut_ptr().cast::<T>(), self.len) }
    }
}

/// Zeroed anonymous memory of at least the bytes asked for (and at least 4), with
/// transparent huge pages requested, page-aligned: for the copies of sector values
/// that the generator and the verifier read at random, cheaper there than through the
/// 4 KiB pages of a file mapping.
pub struct HugePages {
    map: MmapMut,
}

impl HugePages {
    /// At least `bytes` zeroed bytes.
    ///
    /// # Errors
    /// The mapping's error (out of memory).
    pub fn zeroed(bytes: usize) -> io::Result<HugePages> {
        let map = memmap2::MmapOptions::new().len(bytes.max(4)).map_anon()?;
        #[cfg(target_os = "linux")]
        {
            // Only a hint: without huge pages the memory works the same, slower.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Ok(HugePages { map })
    }
}

impl Deref for HugePages {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl DerefMut for HugePages {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.map
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::Relaxed;

    #[test]
    fn atomic_words_start_zeroed_and_keep_what_is_written() {
        let words = AtomicWords::<AtomicU32>::zeroed(100_000).expect("memory");
        let w = words.as_slice();
        assert_eq!(w.len(), 100_000);
        assert!(w.iter().all(|x| x.load(Relaxed) == 0));
        for (i, x) in w.iter().enumerate() {
            x.store(i as u32 ^ 0xA5A5_0000, Relaxed);
        }
        assert!(w
            .iter()
            .enumerate()
            .all(|(i, x)| x.load(Relaxed) == i as u32 ^ 0xA5A5_0000));
        assert!(AtomicWords::<AtomicU32>::zeroed(usize::MAX / 2).is_err());
        let wide = AtomicWords::<AtomicU64>::zeroed(1000).expect("memory");
        assert!(wide.as_slice().iter().all(|x| x.load(Relaxed) == 0));
        wide.as_slice()[999].store(u64::MAX, Relaxed);
        assert_eq!(wide.as_slice()[999].load(Relaxed), u64::MAX);
        assert!(AtomicWords::<AtomicU64>::zeroed(usize::MAX / 4).is_err());
    }

    #[test]
    fn huge_pages_start_zeroed_and_are_aligned() {
        let mut pages = HugePages::zeroed(10_000).expect("memory");
        assert!(pages.len() >= 10_000);
        assert!(pages.iter().all(|&b| b == 0));
        assert_eq!(pages.as_ptr() as usize % 4096, 0);
        pages[9_999] = 7;
        assert_eq!(pages[9_999], 7);
        assert!(HugePages::zeroed(0).expect("memory").len() >= 4);
    }

    #[test]
    fn only_a_regular_file_of_the_promised_length_is_mapped() {
        let dir = std::env::temp_dir();
        let path = dir.join(format!("morris-mmap-test-{}", std::process::id()));
        std::fs::write(&path, [7u8; 256]).expect("write");
        let file = File::open(&path).expect("open");
        // SAFETY: the test owns the file and changes it only after the mappings are gone.
        let mapper = unsafe { Mapper::new() };
        let map = mapper.map(&file, 256).expect("maps");
        assert_eq!(map.bytes(), &[7u8; 256][..]);
        drop(map);
        let short = mapper.map(&file, 257);
        assert_eq!(
            short.map(|_| ()).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        std::fs::remove_file(&path).expect("remove");
        let dir_file = File::open(&dir).expect("a directory opens");
        // A directory is refused before anything is mapped.
        assert!(mapper.map(&dir_file, 0).is_err());
    }
}
