//! Combinatorial ranking of point sets.
//!
//! A `k`-subset `{p_0 < p_1 < ... < p_{k-1}}` of `{0..n}` has colex rank
//! `sum C(p_i, i + 1)`, a bijection onto `0..C(n, k)` that orders sets exactly as their
//! bit masks compare as integers. Sets inside a mask (the points a colour may still
//! use) are ranked after compressing the mask's points to `0..popcount(mask)` in order,
//! which also preserves the integer order.

/// `BINOM[n][k]` = C(n, k) for `n, k <= 24`.
pub const BINOM: [[u64; 25]; 25] = {
    let mut t = [[0u64; 25]; 25];
    let mut n = 0;
    while n < 25 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// C(n, k), zero when `k > n`.
#[inline]
pub const fn binom(n: usize, k: usize) -> u64 {
    if k > n {
        0
    } else {
        BINOM[n][k]
    }
}

/// Sets this large or smaller are ranked by byte tables.
const FAST_MAX: usize = 9;

/// `RANK_BYTE[j][c][b]`: the colex-rank terms of the bits of byte value `b` standing
/// in byte `j` of a set, when `c` smaller points of the set precede them.
static RANK_BYTE: [[[u32; 256]; FAST_MAX + 1]; 3] = {
    let mut t = [[[0u32; 256]; FAST_MAX + 1]; 3];
    let mut j = 0;
    while j < 3 {
        let mut c = 0;
        while c <= FAST_MAX {
            let mut b = 0;
            while b < 256 {
                let (mut sum, mut i, mut bit) = (0u64, c + 1, 0);
                while bit < 8 {
                    if b & (1 << bit) != 0 {
                        sum += if i <= 24 { BINOM[j * 8 + bit][i] } else { 0 };
                        i += 1;
                    }
                    bit += 1;
                }
                t[j][c][b] = sum as u32;
                b += 1;
            }
            c += 1;
        }
        j += 1;
    }
    t
};

/// For every mask byte `m` and value byte `v`: with `spread` false, the bits of `v`
/// under `m` packed to the bottom; with `spread` true, the low bits of `v` spread onto
/// the set bits of `m`, in order (the inverse).
const fn mask_table(spread: bool) -> [[u8; 256]; 256] {
    let mut t = [[0u8; 256]; 256];
    let mut m = 0;
    while m < 256 {
        let mut v = 0;
        while v < 256 {
            // Bit `bit` of the mask is its `k`-th point.
            let (mut out, mut k, mut bit) = (0u8, 0, 0);
            while bit < 8 {
                if m & (1 << bit) != 0 {
                    let (from, to) = if spread { (k, bit) } else { (bit, k) };
                    if v & (1 << from) != 0 {
                        out |= 1 << to;
                    }
                    k += 1;
                }
                bit += 1;
            }
            t[m][v] = out;
            v += 1;
        }
        m += 1;
    }
    t
}

/// `COMPRESS[m][v]`: the bits of `v` under mask byte `m`, packed to the bottom.
static COMPRESS: [[u8; 256]; 256] = mask_table(false);

/// Colex rank of a 24-bit set of at most [`FAST_MAX`] points, by byte tables.
#[inline]
fn rank_fast(bits: u32) -> u64 {
    let (b0, b1, b2) = (bits & 0xFF, (bits >> 8) & 0xFF, (bits >> 16) & 0xFF);
    let c1 = b0.count_ones() as usize;
    let c2 = c1 + b1.count_ones() as usize;
    u64::from(
        RANK_BYTE[0][0][b0 as usize]
            + RANK_BYTE[1][c1][b1 as usize]
            + RANK_BYTE[2][c2][b2 as usize],
    )
}

/// The bits of `bits` under `mask` (24-bit), packed to the bottom in order.
#[inline]
pub fn compress(bits: u32, mask: u32) -> u32 {
    let mut out = 0;
    let mut shift = 0;
    for j in 0..3 {
        let m = ((mask >> (8 * j)) & 0xFF) as usize;
        let v = ((bits >> (8 * j)) & 0xFF) as usize;
        out |= u32::from(COMPRESS[m][v]) << shift;
        shift += m.count_ones();
    }
    out
}

/// Colex rank of the set `bits` among the sets of the same size.
#[inline]
pub fn rank(bits: u32) -> u64 {
    if bits.count_ones() as usize <= FAST_MAX && bits >> 24 == 0 {
        rank_fast(bits)
    } else {
        rank_slow(bits)
    }
}

fn rank_slow(mut bits: u32) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while bits != 0 {
        r += BINOM[bits.trailing_zeros() as usize][i];
        bits &= bits - 1;
        i += 1;
    }
    r
}

/// The `k`-set with colex rank `r`, as a bit mask over `0..n`.
///
/// # Panics
/// Only through a debug assertion when `r >= C(n, k)`.
pub fn unrank(mut r: u64, n: usize, k: usize) -> u32 {
    debug_assert!(r < binom(n, k));
    let mut bits = 0u32;
    let mut top = n;
    for i in (1..=k).rev() {
        // The largest c < top with C(c, i) <= r is the i-th point.
        let mut c = top - 1;
        while BINOM[c][i] > r {
            c -= 1;
        }
        bits |= 1 << c;
        r -= BINOM[c][i];
        top = c;
    }
    bits
}

/// Colex rank of `bits` (a subset of `mask`) among the same-size subsets of `mask`.
#[inline]
pub fn rank_within(bits: u32, mask: u32) -> u64 {
    if bits.count_ones() as usize <= FAST_MAX && mask >> 24 == 0 {
        rank_fast(compress(bits, mask))
    } else {
        rank_within_slow(bits, mask)
    }
}

fn rank_within_slow(mut bits: u32, mask: u32) -> u64 {
    let mut r = 0;
    let mut i = 1;
    while bits != 0 {
        let p = bits.trailing_zeros();
        let compressed = (mask & ((1u32 << p) - 1)).count_ones() as usize;
        r += BINOM[compressed][i];
        bits &= bits - 1;
        i += 1;
    }
    r
}

/// `DEPOSIT[m][c]`: the low bits of `c` spread onto the set bits of mask byte `m`, in
/// order (the inverse of [`COMPRESS`]).
static DEPOSIT: [[u8; 256]; 256] = mask_table(true);

/// Spread the low bits of `compressed` onto the points of `mask` (24-bit), in order.
#[inline]
pub fn expand(compressed: u32, mask: u32) -> u32 {
    let mut out = 0;
    let mut rest = compressed;
    for j in 0..3 {
        let m = ((mask >> (8 * j)) & 0xFF) as usize;
        out |= u32::from(DEPOSIT[m][(rest & 0xFF) as usize]) << (8 * j);
        rest = rest.checked_shr(m.count_ones()).unwrap_or(0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binomials() {
        assert_eq!(binom(24, 12), 2_704_156);
        assert_eq!(binom(24, 3), 2024);
        assert_eq!(binom(3, 4), 0);
        assert_eq!(binom(0, 0), 1);
    }

    #[test]
    fn rank_is_a_bijection_ordered_like_integers() {
        for (n, k) in [(8, 3), (10, 5), (12, 0), (12, 12), (24, 2)] {
            let mut last = None;
            for r in 0..binom(n, k) {
                let bits = unrank(r, n, k);
                assert_eq!(bits.count_ones() as usize, k);
                assert!(bits < (1u64 << n) as u32 || n == 32);
                assert_eq!(rank(bits), r);
                assert!(last < Some(bits));
                last = Some(bits);
            }
        }
    }

    #[test]
    fn table_ranks_match_the_definition() {
        for k in 0..=FAST_MAX {
            for r in (0..binom(24, k)).step_by(7) {
                let bits = unrank(r, 24, k);
                assert_eq!(rank_fast(bits), rank_slow(bits));
                let mask = !bits & 0xFF_FFFF;
                let other = expand(0b1_0110_1011, mask);
                assert_eq!(compress(other, mask), 0b1_0110_1011);
                assert_eq!(rank_within(other, mask), rank_within_slow(other, mask));
            }
        }
    }

    #[test]
    fn rank_within_a_mask_matches_compression() {
        let mask = 0b1011_0110_1101u32;
        let n = mask.count_ones() as usize;
        for k in 0..=n {
            for r in 0..binom(n, k) {
                let c = unrank(r, n, k);
                let bits = expand(c, mask);
                assert_eq!(bits & !mask, 0);
                assert_eq!(bits.count_ones() as usize, k);
                assert_eq!(rank_within(bits, mask), r);
            }
        }
    }

    /// Spreading by byte tables is the point-by-point definition, for masks of every
    /// size and values with more bits than the mask has points.
    #[test]
    fn expand_spreads_bits_in_order() {
        let naive = |mut c: u32, mut mask: u32| {
            let mut out = 0;
            while mask != 0 {
                let low = mask & mask.wrapping_neg();
                if c & 1 != 0 {
                    out |= low;
                }
                c >>= 1;
                mask ^= low;
            }
            out
        };
        let mut x = 0x9E37_79B9u32;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let mask = x & 0xFF_FFFF;
            let c = x.rotate_left(11);
            assert_eq!(expand(c, mask), naive(c, mask), "{c:#x} over {mask:#x}");
        }
        assert_eq!(expand(u32::MAX, 0xFF_FFFF), 0xFF_FFFF);
        assert_eq!(expand(u32::MAX, 0), 0);
    }
}
