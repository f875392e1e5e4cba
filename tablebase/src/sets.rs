//! The canonical point sets of each size, computed once: at build time by the build
//! script (which includes this file), embedded in the binary for the sizes a sector
//! uses, and read from there by [`crate::index`], so that a command that probes a few
//! positions does not spend its time rebuilding tables it needs once.
//!
//! Blob layout (little-endian), for every size `k` in `0..=EMBEDDED_MAX` in order:
//! three `u64` counts (`C(24, k)` ranks, canonical sets, symmetric canonical sets), then
//! `canon_of_rank` (`u32` each), the canonical sets (`u32`), their stabilisers (`u16`)
//! and the orbit counts of the symmetric sets (25 `u32` each), every array padded to a
//! multiple of 8 bytes.

use crate::combin::{binom, expand, rank_within, unrank};
use morris_engine::{Bitboard, Point, Symmetry, POINT_COUNT};

/// All 24 points: the points the nine and twelve boards' tables number.
pub const ALL_POINTS: u32 = 0xFF_FFFF;

/// The largest set size whose tables are embedded (a side has at most 9 pieces).
pub const EMBEDDED_MAX: usize = 9;

/// The tables of the `k`-sets.
pub struct SetData {
    /// For every colex rank: the number of its canonical set times 16, plus a symmetry
    /// mapping the set to its canonical set.
    pub canon_of_rank: Vec<u32>,
    /// Canonical sets in increasing order.
    pub sets: Vec<u32>,
    /// For every canonical set: the symmetries that fix it, as a 16-bit mask.
    pub stabiliser: Vec<u16>,
    /// For every symmetric canonical set (non-trivial stabiliser), in order: the orbits
    /// of the opponent's sets of each size on the other points ([`block_orbits`]).
    pub orbits: Vec<[u32; POINT_COUNT + 1]>,
}

/// Compute the tables of the `k`-sets of the points of `points` (a board's points,
/// which every symmetry maps onto themselves), ranked within them.
pub fn compute(k: usize, points: u32) -> SetData {
    let size = points.count_ones() as usize;
    let n = binom(size, k) as usize;
    // Orbit by orbit: the first rank of an orbit met in increasing order is its least
    // member, so numbering orbits as they are met numbers the canonical sets in
    // increasing order; its images are then entered at once, each with a symmetry
    // taking it back (16 images an orbit instead of 16 a set).
    const UNSEEN: u32 = u32::MAX;
    let mut canon_of_rank = vec![UNSEEN; n];
    let mut sets = Vec::new();
    let mut stabiliser = Vec::new();
    for r in 0..n {
        if canon_of_rank[r] != UNSEEN {
            continue;
        }
        let bits = expand(unrank(r as u64, size, k), points);
        let set = Bitboard::from_bits_truncate(bits);
        let number = (sets.len() as u32) << 4;
        let mut fixed = 0u16;
        // The identity comes first, so a canonical set maps to itself by it.
        for s in Symmetry::ALL {
            let image = s.apply(set).bits();
            if image == bits {
                fixed |= 1 << s.index();
            }
            let slot = &mut canon_of_rank[rank_within(image, points) as usize];
            if *slot == UNSEEN {
                *slot = number | s.inverse().index() as u32;
            }
        }
        sets.push(bits);
        stabiliser.push(fixed);
    }
    let orbits = sets
        .iter()
        .zip(&stabiliser)
        .filter(|&(_, &stab)| stab != 1)
        .map(|(&set, &stab)| block_orbits(set | (!points & ALL_POINTS), stab))
        .collect();
    SetData {
        canon_of_rank,
        sets,
        stabiliser,
        orbits,
    }
}

/// For every `k`: the number of orbits of `k`-subsets of the points outside `set` (on a
/// smaller board, `set` includes the points off the board) under
/// the symmetries of `stabiliser`, by Burnside's lemma (the average over the group of
/// the subsets each symmetry fixes: unions of whole cycles), without listing them.
pub fn block_orbits(set: u32, stabiliser: u16) -> [u32; POINT_COUNT + 1] {
    let mut total = [0u64; POINT_COUNT + 1];
    let mut group = 0u64;
    for s in Symmetry::ALL {
        if stabiliser & (1 << s.index()) == 0 {
            continue;
        }
        group += 1;
        // ways[j]: unions of whole cycles so far with j points.
        let mut ways = [0u64; POINT_COUNT + 1];
        ways[0] = 1;
        for len in cycle_lengths(s, set) {
            for j in (len..=POINT_COUNT).rev() {
                ways[j] += ways[j - len];
            }
        }
        for (t, w) in total.iter_mut().zip(ways) {
            *t += w;
        }
    }
    // At most C(24, 12) orbits: they fit.
    total.map(|t| (t / group.max(1)) as u32)
}

/// The lengths of the cycles of symmetry `s` on the points outside `set` (which `s`
/// must map onto itself).
pub fn cycle_lengths(s: Symmetry, set: u32) -> impl Iterator<Item = usize> {
    let mut seen = set;
    Point::ALL.into_iter().filter_map(move |p| {
        let mut len = 0;
        let mut q = p;
        while seen & (1 << q.index()) == 0 {
            seen |= 1 << q.index();
            q = s.apply_point(q);
            len += 1;
        }
        (len > 0).then_some(len)
    })
}

/// Append `bytes` and pad to a multiple of 8.
#[allow(dead_code)] // used by the build script (and the tests)
fn put(out: &mut Vec<u8>, bytes: impl IntoIterator<Item = u8>) {
    out.extend(bytes);
    while !out.len().is_multiple_of(8) {
        out.push(0);
    }
}

/// The blob of every size up to [`EMBEDDED_MAX`] (see the module documentation).
#[allow(dead_code)] // used by the build script (and the tests)
pub fn blob() -> Vec<u8> {
    let mut out = Vec::new();
    for k in 0..=EMBEDDED_MAX {
        let d = compute(k, ALL_POINTS);
        for count in [d.canon_of_rank.len(), d.sets.len(), d.orbits.len()] {
            put(&mut out, (count as u64).to_le_bytes());
        }
        put(
            &mut out,
            d.canon_of_rank.iter().flat_map(|v| v.to_le_bytes()),
        );
        put(&mut out, d.sets.iter().flat_map(|v| v.to_le_bytes()));
        put(&mut out, d.stabiliser.iter().flat_map(|v| v.to_le_bytes()));
        put(
            &mut out,
            d.orbits.iter().flatten().flat_map(|v| v.to_le_bytes()),
        );
    }
    out
}
