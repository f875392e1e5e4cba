//! How the codes of a raw tablebase file compress and decode in zstd blocks, as `morris
//! pack` stores a `.dtm` file, against a static order-1 range coder (rANS) over short
//! blocks, which a probe could decode alone: bits a position (header, block index and
//! tables included) and the time to decode a block, the best of three passes.
//!
//! ```sh
//! cargo run --release -p morris-builder --example codec_study -- tablebases/standard-7-7.tb
//! ```
//!
//! A study, not part of any file format: `docs/COMPACT.md` ("A coding a probe could
//! decode alone") gives its results.

use morris_builder::pack::{block_log2, default_level, overhead, stored_block};
use morris_tablebase::compact::{Kind, INDEX_ENTRY};
use morris_tablebase::file::{parse_file_name, HEADER_LEN};
use morris_tablebase::SectorFile;
use rans::Model;
use std::error::Error;
use std::path::Path;
use std::time::Instant;

/// Shorter blocks than `pack`'s, for comparison.
const ZSTD_SHORT_BLOCK: usize = 1024;
/// Block sizes of the range coder; those shorter than `pack`'s are counted as parts of
/// its blocks: one index entry per `pack` block, a 2-byte offset per part.
const RANS_BLOCKS: [usize; 4] = [256, 512, 1024, 4096];

fn main() -> Result<(), Box<dyn Error>> {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        return Err("usage: codec_study FILE.tb...  (raw tablebase files)".into());
    }
    for arg in &paths {
        study(Path::new(arg))?;
    }
    Ok(())
}

/// Microseconds a block of the best of three passes of `decode` over the blocks, after
/// an untimed pass has checked that each decodes to its `stored` codes.
fn per_block_us(
    stored: &[Vec<u8>],
    mut decode: impl FnMut(usize) -> Option<Vec<u8>>,
) -> Result<f64, String> {
    if (0..stored.len()).any(|b| decode(b).as_ref() != Some(&stored[b])) {
        return Err("a block did not decode to itself".into());
    }
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = Instant::now();
        for b in 0..stored.len() {
            std::hint::black_box(decode(b));
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok(best * 1e6 / stored.len() as f64)
}

fn study(path: &Path) -> Result<(), Box<dyn Error>> {
    let name = path
        .file_name()
        .and_then(|s| s.to_str())
        .ok_or("a file name")?;
    let (rules, sector) = parse_file_name(name).ok_or("the name of a raw file (.tb)")?;
    let raw = SectorFile::open(path, rules, sector)?;
    let codes = raw.entries()?;
    let n = codes.len() as u64;
    let bits = |bytes: u64| bytes as f64 * 8.0 / n as f64;
    let kind = Kind::Dtm;
    let (pack_block, level) = (1usize << block_log2(kind, sector), default_level(kind));
    println!("{name}: {n} positions");
    for block in [pack_block, ZSTD_SHORT_BLOCK] {
        // As `morris pack` stores them before compression.
        let stored: Vec<Vec<u8>> = codes.chunks(block).map(|c| stored_block(kind, c)).collect();
        let packed: Vec<Vec<u8>> = stored
            .iter()
            .map(|b| zstd::bulk::compress(b, level))
            .collect::<Result<_, _>>()?;
        let size = (HEADER_LEN + INDEX_ENTRY * packed.len()) as u64
            + packed.iter().map(|b| b.len() as u64).sum::<u64>();
        let mut d = zstd::bulk::Decompressor::new()?;
        let us = per_block_us(&stored, |b| d.decompress(&packed[b], block).ok())?;
        println!(
            "  zstd level {level}, {block:4} a block: {:.3} bits a position, {us:5.2} us a block",
            bits(size)
        );
    }
    for block in RANS_BLOCKS {
        let stored: Vec<Vec<u8>> = codes.chunks(block).map(|c| stored_block(kind, c)).collect();
        let model = Model::count(stored.iter().map(Vec::as_slice)).ok_or("no positions")?;
        let coded: Vec<Vec<u8>> = stored
            .iter()
            .map(|b| model.encode(b).ok_or("a code outside the model"))
            .collect::<Result<_, _>>()?;
        let table = (model.freqs().len() * 2 + model.symbols().len()) as u64;
        let offsets = if block < pack_block {
            2 * coded.len() as u64
        } else {
            0
        };
        let size = overhead(kind, sector, n)
            + offsets
            + table
            + coded.iter().map(|b| b.len() as u64).sum::<u64>();
        let us = per_block_us(&stored, |b| {
            let mut out = vec![0u8; stored[b].len()];
            model.decode(&coded[b], &mut out, true).ok().map(|()| out)
        })?;
        println!(
            "  rANS order 1,   {block:4} a block: {:.3} bits a position, {us:5.2} us a block ({table} bytes of table)",
            bits(size)
        );
    }
    Ok(())
}

/// A static order-1 range coder (rANS) for the byte codes of a compact file: each code
/// coded with the frequencies of the codes that follow the one before it in its
/// block, counted over the whole file, so that a block needs no tables of its own and
/// a short block decodes as fast as a long one per code.
///
/// The coder is the byte-wise 32-bit rANS of Duda and Giesen: the state stays in
/// `[2^23, 2^31)`, frequencies sum to `2^PROB_BITS`, the coder works backwards
/// through a block and the decoder forwards. A coded block is the four bytes of the
/// final state (big-endian), then the bytes the coder shifted out, in decoding order.
/// Decoding ends in the coder's initial state, having read every byte: both are
/// checked, so a block cut short, or one that another model made, seldom decodes
/// (the compact files check a block's bytes by their checksum before this).
mod rans {
    /// log2 of the sum of a context's frequencies.
    pub const PROB_BITS: u32 = 12;
    /// The sum of a context's frequencies.
    const M: u32 = 1 << PROB_BITS;
    /// The lower bound of the state.
    const L: u32 = 1 << 23;

    /// Frequencies of the codes of a file, by the code before them (or none, at the
    /// start of a block): what the coder and the decoder share.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Model {
        /// The codes that occur, in increasing order (dense index -> code).
        symbols: Vec<u8>,
        /// Code -> dense index, `NONE` for a code that does not occur.
        dense: [u16; 256],
        /// Per context (a dense index, then the start of a block), the frequency of
        /// every dense code; a context that never occurs has all zero.
        freqs: Vec<u16>,
        /// Cumulative frequencies, as `freqs`.
        cums: Vec<u16>,
        /// Per context, the dense code of every slot of `[0, M)` (built for decoding).
        slots: Vec<u8>,
    }

    const NONE: u16 = u16::MAX;

    /// Why a coded block does not decode.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Undecodable;

    impl Model {
        /// The model of `blocks` (the file's codes cut into its blocks): every code's
        /// count after each code, normalised to `2^PROB_BITS` a context. None when a file
        /// holds no code.
        pub fn count<'a>(blocks: impl IntoIterator<Item = &'a [u8]>) -> Option<Model> {
            let mut counts = vec![0u64; 257 * 256];
            for block in blocks {
                let mut ctx = 256usize;
                for &b in block {
                    counts[ctx * 256 + usize::from(b)] += 1;
                    ctx = usize::from(b);
                }
            }
            let mut seen = [false; 256];
            for ctx in 0..257 {
                for (s, seen) in seen.iter_mut().enumerate() {
                    *seen |= counts[ctx * 256 + s] > 0;
                }
            }
            let symbols: Vec<u8> = (0..=255u8).filter(|&s| seen[usize::from(s)]).collect();
            if symbols.is_empty() {
                return None;
            }
            let a = symbols.len();
            let mut freqs = vec![0u16; (a + 1) * a];
            let contexts = symbols
                .iter()
                .map(|&s| usize::from(s))
                .chain(std::iter::once(256));
            for (c, ctx) in contexts.enumerate() {
                let row: Vec<u64> = symbols
                    .iter()
                    .map(|&s| counts[ctx * 256 + usize::from(s)])
                    .collect();
                if let Some(f) = normalise(&row) {
                    freqs[c * a..(c + 1) * a].copy_from_slice(&f);
                }
            }
            Model::from_freqs(symbols, freqs)
        }

        /// The model of `symbols` (increasing) with `freqs` (per context, then the start
        /// context, a row of `symbols.len()` each, summing to `2^PROB_BITS` or all zero):
        /// `None` if they are not so.
        pub fn from_freqs(symbols: Vec<u8>, freqs: Vec<u16>) -> Option<Model> {
            let a = symbols.len();
            if a == 0 || freqs.len() != (a + 1) * a || symbols.windows(2).any(|w| w[0] >= w[1]) {
                return None;
            }
            let mut dense = [NONE; 256];
            for (i, &s) in symbols.iter().enumerate() {
                dense[usize::from(s)] = i as u16;
            }
            let mut cums = vec![0u16; freqs.len()];
            let mut slots = vec![0u8; (a + 1) * M as usize];
            for c in 0..=a {
                let row = &freqs[c * a..(c + 1) * a];
                let sum: u32 = row.iter().map(|&f| u32::from(f)).sum();
                if sum != 0 && sum != M {
                    return None;
                }
                let mut cum = 0u32;
                for (s, &f) in row.iter().enumerate() {
                    cums[c * a + s] = cum as u16;
                    let start = c * M as usize + cum as usize;
                    slots[start..start + usize::from(f)].fill(s as u8);
                    cum += u32::from(f);
                }
            }
            Some(Model {
                symbols,
                dense,
                freqs,
                cums,
                slots,
            })
        }

        /// The codes that occur.
        pub fn symbols(&self) -> &[u8] {
            &self.symbols
        }

        /// The frequencies, per context (a row of `symbols().len()` each).
        pub fn freqs(&self) -> &[u16] {
            &self.freqs
        }

        /// `block` coded, or `None` when it holds a code (after a code) the model gives
        /// no frequency.
        pub fn encode(&self, block: &[u8]) -> Option<Vec<u8>> {
            let a = self.symbols.len();
            let mut out = Vec::with_capacity(block.len() / 2 + 8);
            let mut x = L;
            for i in (0..block.len()).rev() {
                let ctx = match i {
                    0 => a,
                    _ => usize::from(self.dense[usize::from(block[i - 1])]),
                };
                let s = self.dense[usize::from(block[i])];
                if s == NONE || ctx == usize::from(NONE) {
                    return None;
                }
                let k = ctx * a + usize::from(s);
                let f = u32::from(self.freqs[k]);
                if f == 0 {
                    return None;
                }
                let x_max = ((L >> PROB_BITS) << 8) * f;
                while x >= x_max {
                    out.push(x as u8);
                    x >>= 8;
                }
                x = ((x / f) << PROB_BITS) + (x % f) + u32::from(self.cums[k]);
            }
            out.extend_from_slice(&x.to_le_bytes());
            out.reverse();
            Some(out)
        }

        /// Decode the first `out.len()` codes of a coded block into `out` (all of them when
        /// `out` is as long as the block, which must then be read exactly).
        ///
        /// # Errors
        /// [`Undecodable`] when `data` runs out, or (`whole`) does not end where it should.
        pub fn decode(&self, data: &[u8], out: &mut [u8], whole: bool) -> Result<(), Undecodable> {
            let a = self.symbols.len();
            let (head, mut rest) = data.split_first_chunk::<4>().ok_or(Undecodable)?;
            let mut x = u32::from_be_bytes(*head);
            let mut ctx = a;
            for o in out.iter_mut() {
                let slot = x & (M - 1);
                let s = usize::from(
                    *self
                        .slots
                        .get(ctx * M as usize + slot as usize)
                        .ok_or(Undecodable)?,
                );
                let k = ctx * a + s;
                let f = u32::from(self.freqs[k]);
                x = f * (x >> PROB_BITS) + slot - u32::from(self.cums[k]);
                while x < L {
                    let (&b, r) = rest.split_first().ok_or(Undecodable)?;
                    x = (x << 8) | u32::from(b);
                    rest = r;
                }
                *o = self.symbols[s];
                ctx = s;
            }
            if whole && (x != L || !rest.is_empty()) {
                return Err(Undecodable);
            }
            Ok(())
        }
    }

    /// `counts` scaled to sum to `M`, every nonzero count at least 1; `None` if all are
    /// zero.
    fn normalise(counts: &[u64]) -> Option<Vec<u16>> {
        let total: u64 = counts.iter().sum();
        if total == 0 {
            return None;
        }
        let mut f: Vec<u32> = counts
            .iter()
            .map(|&c| match c {
                0 => 0,
                _ => ((u128::from(c) * u128::from(M) / u128::from(total)) as u32).max(1),
            })
            .collect();
        let mut sum: u32 = f.iter().sum();
        // Flooring leaves the sum short, the minimum of 1 may take it over: give the
        // difference to (or take it from) the largest frequencies.
        while sum != M {
            let (i, _) = f
                .iter()
                .enumerate()
                .max_by_key(|&(i, &v)| (v, std::cmp::Reverse(i)))?;
            if sum < M {
                f[i] += M - sum;
                sum = M;
            } else {
                let take = (sum - M).min(f[i] - 1);
                if take == 0 {
                    return None;
                }
                f[i] -= take;
                sum -= take;
            }
        }
        Some(f.into_iter().map(|v| v as u16).collect())
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn random(seed: u64) -> impl FnMut() -> u64 {
            let mut s = seed | 1;
            move || {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s
            }
        }

        #[test]
        fn blocks_decode_to_what_was_coded() {
            for seed in 1..40u64 {
                let mut next = random(seed);
                let alphabet = 1 + (next() % 40) as u8;
                let blocks: Vec<Vec<u8>> = (0..8)
                    .map(|_| {
                        let n = (next() % 3000) as usize;
                        let mut prev = 0u8;
                        (0..n)
                            .map(|_| {
                                // Skewed and correlated with the code before.
                                if next().is_multiple_of(4) {
                                    prev = (next() % u64::from(alphabet)) as u8;
                                }
                                prev * 3
                            })
                            .collect()
                    })
                    .collect();
                let Some(model) = Model::count(blocks.iter().map(|b| b.as_slice())) else {
                    assert!(blocks.iter().all(|b| b.is_empty()));
                    continue;
                };
                let again = Model::from_freqs(model.symbols().to_vec(), model.freqs().to_vec());
                assert_eq!(again.as_ref(), Some(&model));
                for b in &blocks {
                    let coded = model.encode(b).expect("codes of the model");
                    let mut out = vec![0u8; b.len()];
                    model.decode(&coded, &mut out, true).expect("decodes");
                    assert_eq!(&out, b);
                    // A prefix decodes alone.
                    let mut part = vec![0u8; b.len() / 2];
                    model.decode(&coded, &mut part, false).expect("decodes");
                    assert_eq!(part, b[..b.len() / 2]);
                    // A block cut short is found (it runs out, or does not end in the
                    // coder's first state).
                    if coded.len() > 4 {
                        let mut short = coded.clone();
                        short.pop();
                        assert_eq!(model.decode(&short, &mut out, true), Err(Undecodable));
                    }
                }
            }
        }

        #[test]
        fn a_code_outside_the_model_is_refused() {
            let model = Model::count([&[1u8, 2, 1, 2][..]]).expect("a model");
            assert_eq!(model.encode(&[1, 3]), None);
            // 2 never starts a block, 1 never follows 1.
            assert_eq!(model.encode(&[2]), None);
            assert_eq!(model.encode(&[1, 1]), None);
            assert!(model.encode(&[1, 2, 1]).is_some());
        }

        #[test]
        fn frequencies_sum_to_the_total_and_keep_every_code() {
            let f = normalise(&[1, 0, 1_000_000, 3, 0, 1]).expect("counts");
            assert_eq!(f.iter().map(|&v| u32::from(v)).sum::<u32>(), M);
            assert_eq!(
                f.iter().map(|&v| v > 0).collect::<Vec<_>>(),
                [true, false, true, true, false, true]
            );
            assert_eq!(normalise(&[0, 0]), None);
            let many: Vec<u64> = (0..256).map(|i| 1 + i * i).collect();
            let f = normalise(&many).expect("counts");
            assert_eq!(f.iter().map(|&v| u32::from(v)).sum::<u32>(), M);
            assert!(f.iter().all(|&v| v >= 1));
        }
    }
}
