//! The one place with `unsafe`: read-only memory maps of finished tablebase files.
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
