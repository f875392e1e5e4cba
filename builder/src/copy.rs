//! A copy of a sector's values, decoded, in anonymous memory with huge pages: the
//! generator and the verifier read the sectors that captures and placements reach at
//! random, which is cheaper there than through the 4 KiB pages of a file mapping.

use morris_sys::HugePages;
use morris_tablebase::file::decode_byte;
use rayon::prelude::*;
use std::io;

/// The raw values of a sector (one `u16` a position), in huge pages.
pub struct ValueCopy {
    pages: HugePages,
    len: usize,
}

impl ValueCopy {
    /// Decode the codes of a file (one byte a value) into raw values.
    ///
    /// # Errors
    /// The mapping's error (out of memory).
    pub fn decode(codes: &[u8]) -> io::Result<ValueCopy> {
        let mut pages = HugePages::zeroed(codes.len() * 2)?;
        let values = bytemuck::cast_slice_mut::<u8, u16>(&mut pages[..codes.len() * 2]);
        let table: [u16; 256] = std::array::from_fn(|c| decode_byte(c as u8).0);
        values
            .par_chunks_mut(1 << 16)
            .zip(codes.par_chunks(1 << 16))
            .for_each(|(values, codes)| {
                for (v, &c) in values.iter_mut().zip(codes) {
                    *v = table[usize::from(c)];
                }
            });
        Ok(ValueCopy {
            pages,
            len: codes.len(),
        })
    }

    /// The values.
    pub fn values(&self) -> &[u16] {
        bytemuck::cast_slice::<u8, u16>(&self.pages[..self.len * 2])
    }
}
