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

/// Colex rank of the set `bits` among the sets of the same size.
#[inline]
pub fn rank(mut bits: u32) -> u64 {
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
pub fn rank_within(mut bits: u32, mask: u32) -> u64 {
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

/// Spread the low bits of `compressed` onto the points of `mask`, in order.
#[inline]
pub fn expand(mut compressed: u32, mut mask: u32) -> u32 {
    let mut out = 0;
    while compressed != 0 && mask != 0 {
        let low = mask & mask.wrapping_neg();
        if compressed & 1 != 0 {
            out |= low;
        }
        compressed >>= 1;
        mask ^= low;
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
}
