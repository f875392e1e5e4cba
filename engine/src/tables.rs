//! Precomputed connection and mill tables, built at compile time from the point
//! numbering of [`crate::board`] and checked by tests against a slow definition from
//! the 7x7 grid.

use crate::board::{Bitboard, POINT_COUNT};

/// Number of lines of three (mills).
pub const MILL_COUNT: usize = 16;

const fn ring_slot(ring: usize, slot: usize) -> u32 {
    1 << (ring * 8 + slot % 8)
}

/// For every point, the set of points joined to it by one connection.
pub const ADJACENT: [Bitboard; POINT_COUNT] = {
    let mut t = [Bitboard::EMPTY; POINT_COUNT];
    let mut i = 0;
    while i < POINT_COUNT {
        let (ring, slot) = (i / 8, i % 8);
        let mut bits = ring_slot(ring, slot + 1) | ring_slot(ring, slot + 7);
        if slot % 2 == 1 {
            if ring > 0 {
                bits |= ring_slot(ring - 1, slot);
            }
            if ring < 2 {
                bits |= ring_slot(ring + 1, slot);
            }
        }
        t[i] = Bitboard(bits);
        i += 1;
    }
    t
};

/// The 16 lines of three: the 12 sides of the squares, then the 4 cross lines.
pub const MILLS: [Bitboard; MILL_COUNT] = {
    let mut t = [Bitboard::EMPTY; MILL_COUNT];
    let mut n = 0;
    let mut ring = 0;
    while ring < 3 {
        let mut corner = 0;
        while corner < 8 {
            t[n] = Bitboard(
                ring_slot(ring, corner) | ring_slot(ring, corner + 1) | ring_slot(ring, corner + 2),
            );
            n += 1;
            corner += 2;
        }
        ring += 1;
    }
    let mut slot = 1;
    while slot < 8 {
        t[n] = Bitboard(ring_slot(0, slot) | ring_slot(1, slot) | ring_slot(2, slot));
        n += 1;
        slot += 2;
    }
    t
};

/// For every point, the indices into [`MILLS`] of the two lines through it.
pub const MILLS_THROUGH: [[usize; 2]; POINT_COUNT] = {
    let mut t = [[0; 2]; POINT_COUNT];
    let mut p = 0;
    while p < POINT_COUNT {
        let mut found = 0;
        let mut m = 0;
        while m < MILL_COUNT {
            if MILLS[m].0 & (1 << p) != 0 {
                t[p][found] = m;
                found += 1;
            }
            m += 1;
        }
        assert!(found == 2, "every point lies on exactly two lines");
        p += 1;
    }
    t
};

/// For every point, the other two points of each line through it: the point closes a
/// mill for a player who holds both points of either pair.
pub const MILL_PARTNERS: [[Bitboard; 2]; POINT_COUNT] = {
    let mut t = [[Bitboard::EMPTY; 2]; POINT_COUNT];
    let mut p = 0;
    while p < POINT_COUNT {
        let mut k = 0;
        while k < 2 {
            t[p][k] = Bitboard(MILLS[MILLS_THROUGH[p][k]].0 & !(1 << p));
            k += 1;
        }
        p += 1;
    }
    t
};

/// Whether a piece arriving at `to` closes a mill with the pieces in `own` (which
/// should not include the piece that moves).
#[inline]
pub const fn closes_mill(own: Bitboard, to: usize) -> bool {
    let [a, b] = MILL_PARTNERS[to];
    own.0 & a.0 == a.0 || own.0 & b.0 == b.0
}

/// The pieces of `pieces` that stand in at least one complete mill of `pieces`.
#[inline]
pub fn in_mills(pieces: Bitboard) -> Bitboard {
    let mut out = 0;
    for m in MILLS {
        if pieces.0 & m.0 == m.0 {
            out |= m.0;
        }
    }
    Bitboard(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Point;

    /// Grid coordinates `(file 0..7, rank 0..7)` of a point.
    fn xy(p: Point) -> (i32, i32) {
        ((p.file() - b'a') as i32, (p.rank() - b'1') as i32)
    }

    /// Slow definition: two points are joined when they share a row or column, no
    /// point lies strictly between them, and the segment does not cross the centre.
    fn slow_adjacent(p: Point, q: Point) -> bool {
        let ((px, py), (qx, qy)) = (xy(p), xy(q));
        if p == q || (px != qx && py != qy) {
            return false;
        }
        let between = |x: i32, y: i32| {
            (px.min(qx)..=px.max(qx)).contains(&x)
                && (py.min(qy)..=py.max(qy)).contains(&y)
                && (x, y) != (px, py)
                && (x, y) != (qx, qy)
        };
        let blocked = Point::ALL.iter().any(|&r| {
            let (x, y) = xy(r);
            between(x, y)
        });
        !blocked && !between(3, 3)
    }

    #[test]
    fn adjacency_matches_the_grid() {
        let mut edges = 0;
        for p in Point::ALL {
            for q in Point::ALL {
                assert_eq!(
                    ADJACENT[p.index()].contains(q),
                    slow_adjacent(p, q),
                    "{p} {q}"
                );
                edges += usize::from(slow_adjacent(p, q));
            }
            assert_eq!(ADJACENT[p.index()], p.bit().neighbours(), "{p}");
        }
        assert_eq!(edges, 2 * 32);
    }

    #[test]
    fn mills_match_the_grid() {
        let mut slow: Vec<Bitboard> = Vec::new();
        for p in Point::ALL {
            for q in Point::ALL {
                for r in Point::ALL {
                    let ((px, py), (qx, qy), (rx, ry)) = (xy(p), xy(q), xy(r));
                    let straight = (px == qx && qx == rx) || (py == qy && qy == ry);
                    if p < r && straight && slow_adjacent(p, q) && slow_adjacent(q, r) {
                        slow.push(p.bit() | q.bit() | r.bit());
                    }
                }
            }
        }
        slow.sort();
        let mut fast = MILLS.to_vec();
        fast.sort();
        assert_eq!(slow, fast);
        for p in Point::ALL {
            let through: Vec<Bitboard> = MILLS.iter().copied().filter(|m| m.contains(p)).collect();
            assert_eq!(through.len(), 2);
            for k in 0..2 {
                assert_eq!(MILLS[MILLS_THROUGH[p.index()][k]], through[k]);
                assert_eq!(MILL_PARTNERS[p.index()][k], through[k] ^ p.bit());
            }
        }
    }

    #[test]
    fn neighbours_of_a_set_is_the_union() {
        for bits in [0u32, 0x00FF_FFFF, 0x0012_3456, 0x0080_0001, 0x00AA_0055] {
            let set = Bitboard::from_bits(bits).unwrap();
            let union = set
                .iter()
                .fold(Bitboard::EMPTY, |acc, p| acc | ADJACENT[p.index()]);
            assert_eq!(set.neighbours(), union);
        }
    }
}
