//! The 16 symmetries of the board.
//!
//! A symmetry is a quarter-turn count (0..4), an optional mirror and an optional
//! inner/outer swap, applied in that order: swap first, then mirror, then rotation.
//! With the point numbering of [`crate::board`] each ring is one byte, so rotation and
//! mirror act on each byte the same way (a byte lookup table) and the swap exchanges
//! bytes 0 and 2. `Symmetry(i)` for `i` in `0..16` packs rotation in bits 0-1, mirror in
//! bit 2 and swap in bit 3; `Symmetry(0)` is the identity.

use crate::board::{Bitboard, Point, POINT_COUNT};

/// Number of symmetries of the board.
pub const SYMMETRY_COUNT: usize = 16;

/// One of the 16 symmetries of the board.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Symmetry(u8);

/// Image of slot `s` (0..8) under dihedral element `d` (rotation `d & 3`, mirror
/// `d & 4`): mirror maps slot `s` to `8 - s`, the reflection through the top-left
/// corner, and a quarter turn clockwise adds two.
const fn map_slot(d: usize, s: usize) -> usize {
    let s = if d & 4 != 0 { (8 - s) % 8 } else { s };
    (s + 2 * (d & 3)) % 8
}

/// `BYTE_MAP[d][b]`: the ring byte `b` under dihedral element `d`.
const BYTE_MAP: [[u8; 256]; 8] = {
    let mut t = [[0u8; 256]; 8];
    let mut d = 0;
    while d < 8 {
        let mut b = 0;
        while b < 256 {
            let mut out = 0u8;
            let mut s = 0;
            while s < 8 {
                if b & (1 << s) != 0 {
                    out |= 1 << map_slot(d, s);
                }
                s += 1;
            }
            t[d][b] = out;
            b += 1;
        }
        d += 1;
    }
    t
};

impl Symmetry {
    /// The identity.
    pub const IDENTITY: Symmetry = Symmetry(0);

    /// All 16 symmetries, the identity first.
    pub const ALL: [Symmetry; SYMMETRY_COUNT] = {
        let mut all = [Symmetry(0); SYMMETRY_COUNT];
        let mut i = 0;
        while i < SYMMETRY_COUNT {
            all[i] = Symmetry(i as u8);
            i += 1;
        }
        all
    };

    /// The symmetry with this index, if `index < 16`.
    pub const fn new(index: usize) -> Option<Symmetry> {
        if index < SYMMETRY_COUNT {
            Some(Symmetry(index as u8))
        } else {
            None
        }
    }

    /// Index `0..16` of the symmetry.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    const fn swaps(self) -> bool {
        self.0 & 8 != 0
    }

    const fn dihedral(self) -> usize {
        (self.0 & 7) as usize
    }

    /// The image of a point.
    pub const fn apply_point(self, p: Point) -> Point {
        let ring = p.ring();
        let ring = if self.swaps() { 2 - ring } else { ring };
        Point::from_index(ring * 8 + map_slot(self.dihedral(), p.slot()))
    }

    /// The image of a set of points.
    #[inline]
    pub const fn apply(self, b: Bitboard) -> Bitboard {
        let map = &BYTE_MAP[self.dihedral()];
        let x = b.bits();
        let (mut r0, r1, mut r2) = (x & 0xFF, (x >> 8) & 0xFF, x >> 16);
        if self.swaps() {
            (r0, r2) = (r2, r0);
        }
        Bitboard::from_bits_truncate(
            map[r0 as usize] as u32
                | (map[r1 as usize] as u32) << 8
                | (map[r2 as usize] as u32) << 16,
        )
    }

    /// The symmetry that undoes this one.
    pub const fn inverse(self) -> Symmetry {
        Symmetry(INVERSE[self.index()])
    }
}

/// The inverse of each symmetry, by index: the one that maps every point back.
const INVERSE: [u8; SYMMETRY_COUNT] = {
    let mut inv = [0u8; SYMMETRY_COUNT];
    let mut a = 0;
    while a < SYMMETRY_COUNT {
        let mut b = 0;
        while b < SYMMETRY_COUNT {
            let mut undoes = true;
            let mut i = 0;
            while i < POINT_COUNT {
                let p = Symmetry(b as u8)
                    .apply_point(Symmetry(a as u8).apply_point(Point::from_index(i)));
                undoes &= p.index() == i;
                i += 1;
            }
            if undoes {
                inv[a] = b as u8;
            }
            b += 1;
        }
        a += 1;
    }
    inv
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::{ADJACENT, MILLS};
    use std::collections::HashSet;

    fn perm(s: Symmetry) -> Vec<usize> {
        Point::ALL
            .iter()
            .map(|&p| s.apply_point(p).index())
            .collect()
    }

    #[test]
    fn symmetries_are_sixteen_distinct_automorphisms() {
        let perms: HashSet<Vec<usize>> = Symmetry::ALL.iter().map(|&s| perm(s)).collect();
        assert_eq!(perms.len(), SYMMETRY_COUNT);
        for s in Symmetry::ALL {
            let p = perm(s);
            let image: HashSet<usize> = p.iter().copied().collect();
            assert_eq!(image.len(), POINT_COUNT, "{s:?} is a bijection");
            for a in Point::ALL {
                for b in Point::ALL {
                    assert_eq!(
                        ADJACENT[a.index()].contains(b),
                        ADJACENT[s.apply_point(a).index()].contains(s.apply_point(b))
                    );
                }
            }
            let mills: HashSet<Bitboard> = MILLS.iter().map(|&m| s.apply(m)).collect();
            assert_eq!(mills, MILLS.iter().copied().collect());
        }
    }

    #[test]
    fn group_laws_hold() {
        let all: HashSet<Vec<usize>> = Symmetry::ALL.iter().map(|&s| perm(s)).collect();
        assert_eq!(
            perm(Symmetry::IDENTITY),
            (0..POINT_COUNT).collect::<Vec<_>>()
        );
        for a in Symmetry::ALL {
            let inv = a.inverse();
            assert_eq!(
                (0..POINT_COUNT)
                    .map(|i| inv.apply_point(a.apply_point(Point::from_index(i))).index())
                    .collect::<Vec<_>>(),
                (0..POINT_COUNT).collect::<Vec<_>>()
            );
            for b in Symmetry::ALL {
                let composed: Vec<usize> = Point::ALL
                    .iter()
                    .map(|&p| b.apply_point(a.apply_point(p)).index())
                    .collect();
                assert!(all.contains(&composed), "closure");
            }
        }
    }

    #[test]
    fn set_image_matches_point_images() {
        for s in Symmetry::ALL {
            for bits in [
                0u32,
                0x00FF_FFFF,
                0x0012_3456,
                0x0080_0001,
                0x00AA_0055,
                0x0001_0203,
            ] {
                let b = Bitboard::from_bits(bits).unwrap();
                let slow: Bitboard = b.iter().map(|p| s.apply_point(p)).collect();
                assert_eq!(s.apply(b), slow);
            }
        }
    }
}
