//! Atomic moves and fixed-capacity move lists.
//!
//! A [`Move`] is one whole turn: a placement or a move (slide or flight) from one point
//! to another, plus the piece it takes when it closes a mill (two pieces, under the
//! house rule `captures=per-mill`, when it closes two mills at once).

use crate::board::{Bitboard, Point};
use crate::symmetry::Symmetry;
use std::fmt;

const NONE: u8 = u8::MAX;

/// One atomic turn: place on `to`, or move `from`-`to`; then take `capture`, if any,
/// and `second`, if any (only under `captures=per-mill`). Invariant: `second` is set
/// only with `capture`, and is the higher point of the two, so that a move taking
/// two pieces has one form whatever order they were named in.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Move {
    from: u8,
    to: u8,
    capture: u8,
    second: u8,
}

impl Move {
    /// Place a piece from the hand on `to`.
    pub const fn place(to: Point) -> Move {
        Move {
            from: NONE,
            to: to.index() as u8,
            capture: NONE,
            second: NONE,
        }
    }

    /// Move a piece from `from` to `to` (a slide, or a flight with three pieces).
    pub const fn shift(from: Point, to: Point) -> Move {
        Move {
            from: from.index() as u8,
            to: to.index() as u8,
            capture: NONE,
            second: NONE,
        }
    }

    /// The same move, taking the opponent's piece on `capture` (and nothing else).
    pub const fn with_capture(self, capture: Point) -> Move {
        Move {
            capture: capture.index() as u8,
            second: NONE,
            ..self
        }
    }

    /// The same move, taking the two opponent pieces on `a` and `b` (a move closing
    /// two mills under `captures=per-mill`), in either order.
    pub const fn with_captures(self, a: Point, b: Point) -> Move {
        let (a, b) = (a.index() as u8, b.index() as u8);
        let (low, high) = if a < b { (a, b) } else { (b, a) };
        Move {
            capture: low,
            second: high,
            ..self
        }
    }

    /// The same move, without a capture.
    pub const fn without_capture(self) -> Move {
        Move {
            capture: NONE,
            second: NONE,
            ..self
        }
    }

    /// The point the piece leaves, or `None` for a placement.
    pub const fn from(self) -> Option<Point> {
        Point::new(self.from as usize)
    }

    /// The point the piece arrives on.
    pub const fn to(self) -> Point {
        Point::from_index(self.to as usize)
    }

    /// The opponent's piece taken, if the move closes a mill.
    pub const fn capture(self) -> Option<Point> {
        Point::new(self.capture as usize)
    }

    /// The second piece taken, by a move closing two mills under
    /// `captures=per-mill`.
    pub const fn second_capture(self) -> Option<Point> {
        Point::new(self.second as usize)
    }

    /// The points of the pieces taken, as a set (without branches: play's hot path).
    #[inline]
    pub const fn taken(self) -> Bitboard {
        const fn bit(p: u8) -> u32 {
            // `NONE` and every other index from 24 up stand for no point.
            if p < 24 {
                1 << p
            } else {
                0
            }
        }
        Bitboard::from_bits_truncate(bit(self.capture) | bit(self.second))
    }

    /// The pieces taken: none, one or two.
    pub fn captures(self) -> impl Iterator<Item = Point> {
        [self.capture(), self.second_capture()]
            .into_iter()
            .flatten()
    }

    /// Whether the move places a piece from the hand.
    pub const fn is_placement(self) -> bool {
        self.from == NONE
    }

    /// The same move on the board turned by `sym`: each of its points mapped.
    pub fn transformed(self, sym: Symmetry) -> Move {
        let map = |p: u8| match Point::new(p as usize) {
            Some(p) => sym.apply_point(p).index() as u8,
            None => NONE,
        };
        let m = Move {
            from: map(self.from),
            to: map(self.to),
            capture: map(self.capture),
            second: NONE,
        };
        match (m.capture(), self.second_capture()) {
            (Some(a), Some(b)) => m.with_captures(a, sym.apply_point(b)),
            _ => m,
        }
    }
}

impl fmt::Display for Move {
    /// Canonical notation: `d6`, `a1-a4`, `d6xg7`, `a1-a4xg7`; two captures `d6xa1xg7`
    /// (in the order of the point numbering of [`crate::board`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(from) = self.from() {
            write!(f, "{from}-")?;
        }
        write!(f, "{}", self.to())?;
        for c in self.captures() {
            write!(f, "x{c}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Capacity of a [`MoveList`]. No position has more legal moves, on any board and
/// under any rule set. Let `p`, `o` and `e` be the mover's pieces, the opponent's and
/// the empty points (`p + o + e <= 24`, `o <= 12`); a move counts once per piece it
/// may take, at most `o`.
///
/// - Slides: each ends on an empty point, and no point of any board has more than four
///   connections, so at most `4e` slides, each at most `o + 1` moves; the mover has at
///   least 3 pieces (with an empty hand and fewer it has lost), so `e + o <= 21` and
///   `4e(o + 1) <= 4e(22 - e) <= 484`.
/// - Flights: 3 pieces to at most 21 empty points, of which at most 3 close a mill
///   (two points share at most one line): `63 + 3 * 21 = 126`.
/// - Placements: at most `e(o + 1) <= 156` with one capture each. Two captures a move
///   (`captures=per-mill`, offered on the nine and six boards, where only a placement
///   can close two mills: a slide leaves one of the lines through its target, as every
///   connection lies on a line, and a flight leaves two pieces for the four partners
///   two mills need): a point closing two mills needs four of the mover's pieces, each
///   on at most two lines, so at most `p / 2` such points, each with at most
///   `o(o - 1) / 2` pairs; the most over all `p`, `o`, `e` is 316 (`p = 8`, `o = 12`,
///   `e = 4`: `4 * 66 + 4 * 13`).
///
/// So 484 bounds them all.
pub const MAX_MOVES: usize = 512;

/// A list of legal moves with fixed capacity, kept on the stack.
#[derive(Clone)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: usize,
}

impl MoveList {
    /// An empty list.
    pub const fn new() -> MoveList {
        MoveList {
            moves: [Move {
                from: NONE,
                to: 0,
                capture: NONE,
                second: NONE,
            }; MAX_MOVES],
            len: 0,
        }
    }

    /// Empty the list (its storage is kept, not cleared).
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Append a move. Move generation never exceeds [`MAX_MOVES`] (see its proof).
    #[inline]
    pub(crate) fn push(&mut self, m: Move) {
        self.moves[self.len] = m;
        self.len += 1;
    }
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl std::ops::Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len]
    }
}

impl std::ops::DerefMut for MoveList {
    fn deref_mut(&mut self) -> &mut [Move] {
        &mut self.moves[..self.len]
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
