//! The one place with `unsafe`: read-only memory maps of finished tablebase files, the
//! anonymous mapping that holds the generator's working state as atomics, and the
//! prefetch hint used on both.
//!
//! Contract of a mapping. `memmap2::Mmap::map` is unsafe because the mapped bytes
//! change, or the process is killed by SIGBUS, if the file is modified or truncated
//! while mapped. This module upholds what it can:
//! - it maps only a file whose length it has just checked against the length the
//!   header promises, so no page of the mapping lies beyond the end of the file;
//! - the generator never writes a finished file in place: it writes a temporary file
//!   and renames it over the old one, which leaves existing mappings on the old inode;
//! - the mapping is read-only and exposed only as `&[u8]`.
//!
//! What it cannot rule out is another process truncating or rewriting a file in the
//! tablebase directory while it is mapped; the directory belongs to this program.

#![allow(unsafe_code)]

use memmap2::Mmap;
use std::fs::File;
use std::io;
use std::sync::atomic::AtomicU32;

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
    /// Map `file`, after checking that its length is exactly `expected_len`.
    ///
    /// # Errors
    /// An `InvalidData` error when the length differs, or the mapping's own error.
    pub fn map(file: &File, expected_len: u64) -> io::Result<MappedFile> {
        let len = file.metadata()?.len();
        if len != expected_len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("file is {len} bytes, expected {expected_len}"),
            ));
        }
        // SAFETY: the length was checked just above, so the mapping covers only bytes
        // that exist; finished files are replaced by rename, never written in place
        // (see the module contract), so the mapped bytes stay valid and unchanged.
        let map = unsafe { Mmap::map(file)? };
        Ok(MappedFile { map })
    }

    /// The mapped bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.map
    }
}

/// A zeroed array of `AtomicU32` in an anonymous mapping, with transparent huge pages
/// requested: the generator's working state is gigabytes read at random, where 4 KiB
/// pages make every access a TLB miss.
pub struct AtomicWords {
    map: memmap2::MmapMut,
    len: usize,
}

impl AtomicWords {
    /// `len` zeroed words.
    ///
    /// # Errors
    /// The mapping's error (out of memory).
    pub fn zeroed(len: usize) -> io::Result<AtomicWords> {
        let bytes = len
            .checked_mul(4)
            .ok_or_else(|| io::Error::other("array too large"))?;
        let map = memmap2::MmapOptions::new().len(bytes.max(4)).map_anon()?;
        #[cfg(target_os = "linux")]
        {
            // Only a hint: without huge pages the array works the same, slower.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Ok(AtomicWords { map, len })
    }

    /// The words.
    pub fn as_slice(&self) -> &[AtomicU32] {
        // SAFETY: the anonymous mapping is at least `4 * len` bytes, zero-filled,
        // page-aligned (so aligned for `AtomicU32`), owned by `self` and never
        // unmapped or resized while borrowed; `AtomicU32` has the size and alignment
        // of `u32`, every bit pattern is a valid `u32`, and all access goes through
        // the atomics, so shared references are sound.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast::<AtomicU32>(), self.len) }
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
    /// Copy `values`.
    ///
    /// # Errors
    /// The mapping's error (out of memory).
    pub fn of(values: &[u16]) -> io::Result<ValueCopy> {
        let mut map = huge_anonymous(values.len() * 2)?;
        bytemuck::cast_slice_mut::<u8, u16>(&mut map[..values.len() * 2]).copy_from_slice(values);
        Ok(ValueCopy {
            map,
            len: values.len(),
        })
    }

    /// The values.
    pub fn values(&self) -> &[u16] {
        &bytemuck::cast_slice::<u8, u16>(&self.map[..self.len * 2])[..self.len]
    }
}
