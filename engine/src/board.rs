//! Points and bitboards.
//!
//! Invariants: a [`Point`] is an index `0..24`; a [`Bitboard`] never has a bit set at
//! or above bit 24. Points are numbered ring by ring, outer ring first, each ring
//! clockwise from its top-left corner, eight points a ring:
//!
//! ```text
//! ring 0 (outer):  a7 d7 g7 g4 g1 d1 a1 a4   bits  0..8
//! ring 1 (middle): b6 d6 f6 f4 f2 d2 b2 b4   bits  8..16
//! ring 2 (inner):  c5 d5 e5 e4 e3 d3 c3 c4   bits 16..24
//! ```
//!
//! Even positions within a ring are corners, odd positions are the midpoints that
//! connect to the neighbouring rings. With this numbering a quarter turn rotates every
//! byte by two bits and the inner/outer swap exchanges bytes 0 and 2, which makes the
//! 16 symmetries cheap (see [`crate::symmetry`]).

use std::fmt;

/// Number of points on the board.
pub const POINT_COUNT: usize = 24;

/// One of the 24 points of the board, `a1`..`g7`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Point(u8);

/// File letter and rank digit of every point, in point order.
const COORDS: [(u8, u8); POINT_COUNT] = [
    (b'a', b'7'),
    (b'd', b'7'),
    (b'g', b'7'),
    (b'g', b'4'),
    (b'g', b'1'),
    (b'd', b'1'),
    (b'a', b'1'),
    (b'a', b'4'),
    (b'b', b'6'),
    (b'd', b'6'),
    (b'f', b'6'),
    (b'f', b'4'),
    (b'f', b'2'),
    (b'd', b'2'),
    (b'b', b'2'),
    (b'b', b'4'),
    (b'c', b'5'),
    (b'd', b'5'),
    (b'e', b'5'),
    (b'e', b'4'),
    (b'e', b'3'),
    (b'd', b'3'),
    (b'c', b'3'),
    (b'c', b'4'),
];

impl Point {
    /// All points in index order.
    pub const ALL: [Point; POINT_COUNT] = {
        let mut all = [Point(0); POINT_COUNT];
        let mut i = 0;
        while i < POINT_COUNT {
            all[i] = Point(i as u8);
            i += 1;
        }
        all
    };

    /// The point with this index, if `index < 24`.
    pub const fn new(index: usize) -> Option<Point> {
        if index < POINT_COUNT {
            Some(Point(index as u8))
        } else {
            None
        }
    }

    /// The point with this index.
    ///
    /// # Panics
    /// If `index >= 24`; use [`Point::new`] for unchecked input.
    pub const fn from_index(index: usize) -> Point {
        assert!(index < POINT_COUNT, "point index out of range");
        Point(index as u8)
    }

    /// Index `0..24` of the point.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// Ring of the point: 0 outer, 1 middle, 2 inner.
    pub const fn ring(self) -> usize {
        self.0 as usize / 8
    }

    /// Position within the ring, clockwise from the top-left corner (even = corner).
    pub const fn slot(self) -> usize {
        self.0 as usize % 8
    }

    /// The singleton set of this point.
    pub const fn bit(self) -> Bitboard {
        Bitboard(1 << self.0)
    }

    /// File letter, `b'a'..=b'g'`.
    pub const fn file(self) -> u8 {
        COORDS[self.0 as usize].0
    }

    /// Rank digit, `b'1'..=b'7'`.
    pub const fn rank(self) -> u8 {
        COORDS[self.0 as usize].1
    }

    /// The point at a file letter and rank digit (either letter case), if there is one.
    pub fn from_coords(file: u8, rank: u8) -> Option<Point> {
        let file = file.to_ascii_lowercase();
        COORDS
            .iter()
            .position(|&(f, r)| f == file && r == rank)
            .map(|i| Point(i as u8))
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file() as char, self.rank() as char)
    }
}

/// A set of points, one bit per point index.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Bitboard(pub(crate) u32);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 24 points.
    pub const FULL: Bitboard = Bitboard((1 << POINT_COUNT) - 1);
    /// The 12 midpoints (odd slots), the only points joined across rings.
    pub const MIDPOINTS: Bitboard = Bitboard(0x00AA_AAAA);

    /// The set with these bits, if none is at or above bit 24.
    pub const fn from_bits(bits: u32) -> Option<Bitboard> {
        if bits >> POINT_COUNT == 0 {
            Some(Bitboard(bits))
        } else {
            None
        }
    }

    /// The set with these bits, bits at or above 24 dropped.
    pub const fn from_bits_truncate(bits: u32) -> Bitboard {
        Bitboard(bits & Self::FULL.0)
    }

    /// The raw bits.
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// Number of points in the set.
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the point is in the set.
    pub const fn contains(self, p: Point) -> bool {
        self.0 & (1 << p.0) != 0
    }

    /// Whether every point of `other` is in the set.
    pub const fn contains_all(self, other: Bitboard) -> bool {
        self.0 & other.0 == other.0
    }

    /// The points not in the set.
    pub const fn complement(self) -> Bitboard {
        Bitboard(!self.0 & Self::FULL.0)
    }

    /// The lowest point of the set, if any.
    pub const fn first(self) -> Option<Point> {
        if self.0 == 0 {
            None
        } else {
            Some(Point(self.0.trailing_zeros() as u8))
        }
    }

    /// Every point joined by a connection to a point of the set.
    pub const fn neighbours(self) -> Bitboard {
        let x = self.0;
        // Rotate every byte by one bit either way: the neighbours along the ring.
        let left = ((x << 1) & 0x00FE_FEFE) | ((x >> 7) & 0x0001_0101);
        let right = ((x >> 1) & 0x007F_7F7F) | ((x << 7) & 0x0080_8080);
        // Midpoints join the same slot of the neighbouring rings.
        let mid = x & Self::MIDPOINTS.0;
        let across = ((mid << 8) | (mid >> 8)) & Self::FULL.0;
        Bitboard(left | right | across)
    }
}

impl std::ops::BitOr for Bitboard {
    type Output = Bitboard;
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 | rhs.0)
    }
}

impl std::ops::BitAnd for Bitboard {
    type Output = Bitboard;
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & rhs.0)
    }
}

impl std::ops::BitXor for Bitboard {
    type Output = Bitboard;
    fn bitxor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 ^ rhs.0)
    }
}

impl std::ops::Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        self.complement()
    }
}

impl std::ops::BitOrAssign for Bitboard {
    fn bitor_assign(&mut self, rhs: Bitboard) {
        self.0 |= rhs.0;
    }
}

impl std::ops::BitAndAssign for Bitboard {
    fn bitand_assign(&mut self, rhs: Bitboard) {
        self.0 &= rhs.0;
    }
}

impl std::ops::BitXorAssign for Bitboard {
    fn bitxor_assign(&mut self, rhs: Bitboard) {
        self.0 ^= rhs.0;
    }
}

impl From<Point> for Bitboard {
    fn from(p: Point) -> Bitboard {
        p.bit()
    }
}

impl FromIterator<Point> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Point>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, |b, p| b | p.bit())
    }
}

impl Bitboard {
    /// The points of the set, in increasing order.
    pub const fn iter(self) -> Points {
        Points(self)
    }
}

impl IntoIterator for Bitboard {
    type Item = Point;
    type IntoIter = Points;

    fn into_iter(self) -> Points {
        Points(self)
    }
}

/// The points of a [`Bitboard`], in increasing order: [`Bitboard::iter`].
#[derive(Clone, Copy, Debug)]
pub struct Points(Bitboard);

impl Iterator for Points {
    type Item = Point;

    #[inline]
    fn next(&mut self) -> Option<Point> {
        let p = self.0.first()?;
        self.0 .0 &= self.0 .0 - 1;
        Some(p)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Points {}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(*self).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_are_distinct_and_round_trip() {
        for p in Point::ALL {
            assert_eq!(Point::from_coords(p.file(), p.rank()), Some(p));
            assert_eq!(
                Point::from_coords(p.file().to_ascii_uppercase(), p.rank()),
                Some(p)
            );
        }
        assert_eq!(Point::from_coords(b'd', b'4'), None);
        assert_eq!(Point::from_coords(b'h', b'1'), None);
    }

    #[test]
    fn iteration_yields_every_point_once_in_order() {
        let all: Vec<Point> = Bitboard::FULL.iter().collect();
        assert_eq!(all, Point::ALL.to_vec());
        let some = Bitboard::from_bits(0b1010_0000_0000_0000_0001_0001).unwrap();
        let idx: Vec<usize> = some.iter().map(Point::index).collect();
        assert_eq!(idx, vec![0, 4, 21, 23]);
        assert_eq!(Bitboard::from_bits(1 << 24), None);
    }
}
