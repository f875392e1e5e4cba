//! The one place with `unsafe`: read-only memory maps of finished tablebase files, the
//! anonymous mappings that hold the generator's working state and the solver's
//! transposition table as atomics, and the prefetch hint used on both.
//!
//! Contract of a file mapping. The bytes of a mapped file change under the reader, or
//! the reader is killed by SIGBUS, if anyone modifies or truncates the file while it
//! is mapped; no check inside this process can rule that out. So mapping is an
//! `unsafe fn` ([`MappedFile::map`]) whose caller promises that nobody changes the file
//! while the mapping lives, and the promise travels up to every public constructor
//! that maps ([`crate::SectorFile::open_mapped`], [`crate::compact::CompactFile::open_mapped`],
//! [`crate::Tablebase::open_mapped`]).
//! What this module adds on its side:
//! - it maps only a regular file whose length it has just checked against the length
//!   the header promises, so no page of the mapping lies beyond the end of the file;
//! - the mapping is read-only and exposed only as `&[u8]`.
//!
//! The generator keeps its side of the bargain by never writing a finished file in
//! place: it writes a temporary file and renames it over the old one, which leaves
//! existing mappings on the old inode. Users are told to do the same (copy to a
//! temporary name, then rename). The safe alternative to mapping is reading a file
//! into memory ([`crate::SectorFile::open`]).
//!
//! Every pointer is derived from the mapping itself (`MmapRaw`), never from a shared
//! `&[u8]` view of it, so writes through the generator's atomics have the provenance
//! of the writable mapping.

#![allow(unsafe_code)]

use memmap2::{Mmap, MmapRaw};
use std::fs::File;
use std::io;
use std::marker::PhantomData;
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

/// A read-only mapping of a whole file of known length.
#[derive(Debug)]
pub struct MappedFile {
    map: Mmap,
}

impl MappedFile {
    /// Map `file`, after checking that it is a regular file of exactly `expected_len`
    /// bytes.
    ///
    /// # Safety
    /// Nobody may modify or truncate the file while the returned mapping lives (see
    /// the module contract); replacing it by a rename is fine.
    ///
    /// # Errors
    /// An `InvalidData` error when the file is not a regular file or its length
    /// differs, or the mapping's own error (for example out of memory).
    pub unsafe fn map(file: &File, expected_len: u64) -> io::Result<MappedFile> {
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
        // that exist, and the caller promises that the file stays unchanged while the
        // mapping lives.
        let map = unsafe { Mmap::map(file)? };
        Ok(MappedFile { map })
    }

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
        let map = MmapRaw::from(huge_anonymous(bytes)?);
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

/// A zeroed anonymous mapping of at least `bytes` bytes (and at least 4), with
/// transparent huge pages requested.
///
/// # Errors
/// The mapping's error (out of memory).
pub fn huge_anonymous(bytes: usize) -> io::Result<memmap2::MmapMut> {
    let map = memmap2::MmapOptions::new().len(bytes.max(4)).map_anon()?;
    #[cfg(target_os = "linux")]
    {
        // Only a hint: without huge pages the memory works the same, slower.
        let _ = map.advise(memmap2::Advice::HugePage);
    }
    Ok(map)
}

/// A copy of a sector's values in anonymous memory with huge pages: the generator
/// reads the sectors its captures reach at random, which is cheaper there than through
/// the 4 KiB pages of a file mapping.
pub struct ValueCopy {
    map: memmap2::MmapMut,
    len: usize,
}

impl ValueCopy {
    /// Decode the codes of a file (one byte a value) into raw values.
    ///
    /// # Errors
    /// The mapping's error (out of memory).
    pub fn decode(codes: &[u8]) -> io::Result<ValueCopy> {
        let mut map = huge_anonymous(codes.len() * 2)?;
        let values = bytemuck::cast_slice_mut::<u8, u16>(&mut map[..codes.len() * 2]);
        for (v, &c) in values.iter_mut().zip(codes) {
            *v = crate::file::decode_byte(c).0;
        }
        Ok(ValueCopy {
            map,
            len: codes.len(),
        })
    }

    /// The values.
    pub fn values(&self) -> &[u16] {
        bytemuck::cast_slice::<u8, u16>(&self.map[..self.len * 2])
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
    fn only_a_regular_file_of_the_promised_length_is_mapped() {
        let dir = std::env::temp_dir();
        let path = dir.join(format!("morris-mmap-test-{}", std::process::id()));
        std::fs::write(&path, [7u8; 256]).expect("write");
        let file = File::open(&path).expect("open");
        // SAFETY: the test owns the file and changes it only after the mapping is gone.
        let map = unsafe { MappedFile::map(&file, 256) }.expect("maps");
        assert_eq!(map.bytes(), &[7u8; 256][..]);
        drop(map);
        // SAFETY: as above.
        let short = unsafe { MappedFile::map(&file, 257) };
        assert_eq!(
            short.map(|_| ()).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        std::fs::remove_file(&path).expect("remove");
        let dir_file = File::open(&dir).expect("a directory opens");
        // SAFETY: a directory is refused before anything is mapped.
        let not_regular = unsafe { MappedFile::map(&dir_file, 0) };
        assert!(not_regular.is_err());
    }
}
