//! The boards of the family as data: which points exist, which are joined, which lines
//! of three are mills.
//!
//! Every board lives on the 24 points of [`crate::board`] and keeps their names and
//! numbering, so a bitboard, a move and the 16 symmetries mean the same on each:
//!
//! - **nine** (Nine Men's Morris): three squares, their sides and the four cross lines
//!   joining the midpoints; 24 points, 32 connections, 16 mills.
//! - **six** (Six Men's Morris): two squares, the outer and the inner one of the nine
//!   board, joined at the midpoints of their sides (`d7-d5`, `g4-e4`, `d1-d3`,
//!   `a4-c4`); 16 points, 20 connections, 8 mills (the sides of the squares; the
//!   joins hold two points and make no mill). The middle square's points (`b6` ...
//!   `f2`) are not on this board.
//! - **twelve** (Twelve Men's Morris): the nine board with the four diagonals joining
//!   the corners of the squares (`a7-b6-c5`, `g7-f6-e5`, `g1-f2-e3`, `a1-b2-c3`) as
//!   connections and as mills; 24 points, 40 connections, 20 mills.
//!
//! Each board is symmetric under all 16 symmetries of [`crate::symmetry`] (the square's
//! eight, each with or without the inner/outer swap): the tests check it, and check
//! the tables against a slow construction from the drawing.

use crate::board::{Bitboard, Point, POINT_COUNT};
use std::fmt;

/// One of the boards of the family.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub enum Board {
    /// Nine Men's Morris: three squares and the cross lines.
    #[default]
    Nine,
    /// Six Men's Morris: two squares joined at their midpoints.
    Six,
    /// Twelve Men's Morris: the nine board with the corners joined by diagonals.
    Twelve,
}

impl Board {
    /// Every board, in the order of [`Board::index`].
    pub const ALL: [Board; 3] = [Board::Nine, Board::Six, Board::Twelve];

    /// 0 for nine, 1 for six, 2 for twelve.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Pieces a side in the board's own game: nine, six or twelve.
    pub const fn preset_pieces(self) -> u8 {
        match self {
            Board::Nine => 9,
            Board::Six => 6,
            Board::Twelve => 12,
        }
    }

    /// `"nine"`, `"six"` or `"twelve"`, as the rule spec writes it.
    pub const fn name(self) -> &'static str {
        match self {
            Board::Nine => "nine",
            Board::Six => "six",
            Board::Twelve => "twelve",
        }
    }

    /// The number of mills on the board (16, 8 or 20), as a constant: the
    /// geometry's own count.
    pub const fn mill_count(self) -> usize {
        self.geometry().mill_count
    }

    /// The most lines through one point (2, or 3 on the twelve board's corners), as
    /// a constant: the lines of the geometry's partner tables that some point has.
    pub const fn lines_through_max(self) -> usize {
        let partners = &self.geometry().partners;
        let mut lines = 0;
        while lines < MAX_LINES_THROUGH {
            let mut p = 0;
            let mut used = false;
            while p < POINT_COUNT {
                used |= partners[lines][p] != NO_LINE;
                p += 1;
            }
            if !used {
                break;
            }
            lines += 1;
        }
        lines
    }

    /// The board's tables.
    #[inline]
    pub const fn geometry(self) -> &'static Geometry {
        match self {
            Board::Nine => &NINE,
            Board::Six => &SIX,
            Board::Twelve => &TWELVE,
        }
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Calls `f::<MILLS, LINES>(args)` monomorphised for the board `board`, with
/// `MILLS` its [`Board::mill_count`] and `LINES` its [`Board::lines_through_max`]:
/// loops over [`Geometry::mill_array`] and [`Geometry::lines_at`] then have lengths
/// known when compiling and cost on each board what fixed tables would.
///
/// ```
/// use morris_engine::{by_board, Board, Geometry};
/// fn mills_and_lines<const MILLS: usize, const LINES: usize>(g: &Geometry) -> usize {
///     g.mill_array::<MILLS>().len() * 10 + LINES
/// }
/// let g = Board::Twelve.geometry();
/// assert_eq!(by_board!(Board::Twelve, mills_and_lines(g)), 203);
/// ```
#[macro_export]
macro_rules! by_board {
    ($board:expr, $f:ident $(:: $g:ident)* ($($arg:expr),* $(,)?)) => {
        match $board {
            $crate::Board::Nine => $f $(:: $g)* ::<
                { $crate::Board::Nine.mill_count() },
                { $crate::Board::Nine.lines_through_max() },
            >($($arg),*),
            $crate::Board::Six => $f $(:: $g)* ::<
                { $crate::Board::Six.mill_count() },
                { $crate::Board::Six.lines_through_max() },
            >($($arg),*),
            $crate::Board::Twelve => $f $(:: $g)* ::<
                { $crate::Board::Twelve.mill_count() },
                { $crate::Board::Twelve.lines_through_max() },
            >($($arg),*),
        }
    };
}

/// The most mills through one point (a corner of the twelve board: two sides and a
/// diagonal).
pub const MAX_LINES_THROUGH: usize = 3;

/// The most mills a board has (twelve: 20).
pub const MAX_MILLS: usize = 20;

/// A pair of partner points that can never be held: it stands for a line a point does
/// not have, so the tests of every board take the same number of steps (bit 31 is no
/// point).
const NO_LINE: u32 = 1 << 31;

/// The tables of one board.
#[derive(Debug)]
pub struct Geometry {
    board: Board,
    points: Bitboard,
    adjacent: [Bitboard; POINT_COUNT],
    /// The mills, then lines that never complete up to [`MAX_MILLS`].
    mills: [u32; MAX_MILLS],
    mill_count: usize,
    /// For the `i`th line through every point, the other two points of it; [`NO_LINE`]
    /// where the point lies on `i` lines or fewer. Line-major, so the tests of one
    /// line read one table indexed by point.
    partners: [[u32; POINT_COUNT]; MAX_LINES_THROUGH],
    /// Points joined to the same slot of the neighbouring rings, and how far
    /// (in bits) the neighbouring ring is: the neighbours of a set in a few shifts.
    cross: u32,
    cross_shift: u32,
}

const fn ring_slot(ring: usize, slot: usize) -> u32 {
    1 << (ring * 8 + slot % 8)
}

/// The rings a board has, the points linked across rings and the ring distance of
/// those links, and whether the corners' diagonals are lines.
const fn shape(board: Board) -> (&'static [usize], u32, u32, bool) {
    match board {
        Board::Nine => (&[0, 1, 2], 0x00AA_AAAA, 8, false),
        Board::Six => (&[0, 2], 0x00AA_00AA, 16, false),
        Board::Twelve => (&[0, 1, 2], 0x00FF_FFFF, 8, true),
    }
}

const fn build(board: Board) -> Geometry {
    let (rings, cross, cross_shift, diagonals) = shape(board);
    let mut points = 0u32;
    let mut r = 0;
    while r < rings.len() {
        points |= 0xFF << (rings[r] * 8);
        r += 1;
    }
    // Connections: along each ring, then across to the same slot of the next ring.
    let mut adjacent = [Bitboard::EMPTY; POINT_COUNT];
    let mut p = 0;
    while p < POINT_COUNT {
        if points & (1 << p) != 0 {
            let (ring, slot) = (p / 8, p % 8);
            let mut bits = ring_slot(ring, slot + 1) | ring_slot(ring, slot + 7);
            if cross & (1 << p) != 0 {
                let step = cross_shift as usize;
                if p >= step {
                    bits |= 1 << (p - step);
                }
                if p + step < POINT_COUNT {
                    bits |= 1 << (p + step);
                }
            }
            adjacent[p] = Bitboard(bits & points);
        }
        p += 1;
    }
    // Mills: the sides of every square, then the lines across the rings (the cross
    // lines where three rings meet a midpoint, the diagonals where they meet a corner).
    let mut mills = [NO_LINE; MAX_MILLS];
    let mut n = 0;
    let mut r = 0;
    while r < rings.len() {
        let mut corner = 0;
        while corner < 8 {
            mills[n] = ring_slot(rings[r], corner)
                | ring_slot(rings[r], corner + 1)
                | ring_slot(rings[r], corner + 2);
            n += 1;
            corner += 2;
        }
        r += 1;
    }
    if rings.len() == 3 {
        let mut slot = 0;
        while slot < 8 {
            if slot % 2 == 1 || diagonals {
                mills[n] = ring_slot(0, slot) | ring_slot(1, slot) | ring_slot(2, slot);
                n += 1;
            }
            slot += 1;
        }
    }
    let mut partners = [[NO_LINE; POINT_COUNT]; MAX_LINES_THROUGH];
    let mut p = 0;
    while p < POINT_COUNT {
        let mut found = 0;
        let mut m = 0;
        while m < n {
            if mills[m] & (1 << p) != 0 {
                partners[found][p] = mills[m] & !(1 << p);
                found += 1;
            }
            m += 1;
        }
        p += 1;
    }
    Geometry {
        board,
        points: Bitboard(points),
        adjacent,
        mills,
        mill_count: n,
        partners,
        cross,
        cross_shift,
    }
}

/// The nine board.
pub static NINE: Geometry = build(Board::Nine);
/// The six board.
pub static SIX: Geometry = build(Board::Six);
/// The twelve board.
pub static TWELVE: Geometry = build(Board::Twelve);

impl Geometry {
    /// The board these tables describe.
    pub const fn board(&self) -> Board {
        self.board
    }

    /// The points of the board (all 24, or the 16 of the six board).
    #[inline]
    pub const fn points(&self) -> Bitboard {
        self.points
    }

    /// The number of points.
    pub const fn point_count(&self) -> usize {
        self.points.count() as usize
    }

    /// The points joined to `p` by one connection.
    #[inline]
    pub const fn adjacent(&self, p: Point) -> Bitboard {
        self.adjacent[p.index()]
    }

    /// Every point joined to a point of `set`.
    #[inline]
    pub const fn neighbours(&self, set: Bitboard) -> Bitboard {
        let x = set.bits();
        // Rotate every byte by one bit either way: the neighbours along the ring.
        let left = ((x << 1) & 0x00FE_FEFE) | ((x >> 7) & 0x0001_0101);
        let right = ((x >> 1) & 0x007F_7F7F) | ((x << 7) & 0x0080_8080);
        let linked = x & self.cross;
        let across = (linked << self.cross_shift) | (linked >> self.cross_shift);
        Bitboard::from_bits_truncate((left | right | across) & self.points.bits())
    }

    /// The mills (lines of three) of the board.
    pub fn mills(&self) -> impl Iterator<Item = Bitboard> + '_ {
        self.mills[..self.mill_count]
            .iter()
            .map(|&m| Bitboard::from_bits_truncate(m))
    }

    /// The number of mills.
    pub const fn mill_count(&self) -> usize {
        self.mill_count
    }

    /// The mills as an array of `N`: the board's mills, then (where `N` is more than
    /// [`Geometry::mill_count`]) empty lines, which never complete and hold no point.
    /// `N` should be the board's [`Board::mill_count`] (see [`by_board!`]): a length
    /// known when compiling unrolls the loops over mills.
    #[inline(always)]
    pub fn mill_array<const N: usize>(&self) -> [Bitboard; N] {
        const { assert!(N <= MAX_MILLS) };
        debug_assert!(N >= self.mill_count);
        std::array::from_fn(|i| Bitboard::from_bits_truncate(self.mills[i]))
    }

    /// For each of the first `L` lines through `p`, the other two points of it; an
    /// empty set where `p` lies on fewer lines. `L` should be the board's
    /// [`Board::lines_through_max`] (see [`by_board!`]).
    #[inline(always)]
    pub fn lines_at<const L: usize>(&self, p: Point) -> [Bitboard; L] {
        const { assert!(L <= MAX_LINES_THROUGH) };
        std::array::from_fn(|i| Bitboard::from_bits_truncate(self.partners[i][p.index()]))
    }

    /// For each line through `p`, the other two points of it.
    pub fn lines_through(&self, p: Point) -> impl Iterator<Item = Bitboard> + '_ {
        self.partners
            .iter()
            .map(move |line| line[p.index()])
            .filter(|&l| l != NO_LINE)
            .map(Bitboard::from_bits_truncate)
    }

    /// Whether a piece arriving at `to` closes a mill with the pieces in `own` (which
    /// should not include the piece that moves).
    #[inline(always)]
    pub const fn closes_mill(&self, own: Bitboard, to: usize) -> bool {
        self.closes_mill_with::<MAX_LINES_THROUGH>(own, to)
    }

    /// [`Geometry::closes_mill`] testing only the first `LINES` lines through `to`:
    /// exact when no point of the board lies on more (two on the nine and six boards,
    /// three on the twelve board), and one test fewer where two suffice.
    #[inline(always)]
    pub const fn closes_mill_with<const LINES: usize>(&self, own: Bitboard, to: usize) -> bool {
        let [a, b, c] = &self.partners;
        let o = own.bits();
        o & a[to] == a[to] || o & b[to] == b[to] || (LINES > 2 && o & c[to] == c[to])
    }

    /// The number of mills (0 to 3) a piece arriving at `to` closes with `own`.
    #[inline]
    pub const fn mills_closed(&self, own: Bitboard, to: usize) -> u32 {
        let [a, b, c] = &self.partners;
        let o = own.bits();
        (o & a[to] == a[to]) as u32 + (o & b[to] == b[to]) as u32 + (o & c[to] == c[to]) as u32
    }

    /// The pieces of `pieces` that stand in at least one complete mill of `pieces`.
    #[inline(always)]
    pub const fn in_mills(&self, pieces: Bitboard) -> Bitboard {
        // Within the 24 points: where the tables are known when compiling (a
        // monomorphised caller), the padding lines (bit 31) then fold away.
        let x = pieces.bits() & Bitboard::FULL.bits();
        let mut out = 0;
        let mut i = 0;
        while i < MAX_MILLS {
            let m = self.mills[i];
            if x & m == m {
                out |= m;
            }
            i += 1;
        }
        Bitboard::from_bits_truncate(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::symmetry::Symmetry;
    use crate::tables;

    /// Grid coordinates `(file 0..7, rank 0..7)` of a point.
    fn xy(p: Point) -> (i32, i32) {
        (i32::from(p.file() - b'a'), i32::from(p.rank() - b'1'))
    }

    /// The drawing of each board as segments between grid points: the squares'
    /// sides, the joins across, the diagonals of the twelve board.
    fn drawing(board: Board) -> Vec<((i32, i32), (i32, i32))> {
        let squares: &[i32] = match board {
            Board::Six => &[0, 2],
            _ => &[0, 1, 2],
        };
        let mut segs = Vec::new();
        for &s in squares {
            let (lo, hi) = (s, 6 - s);
            segs.push(((lo, lo), (hi, lo)));
            segs.push(((hi, lo), (hi, hi)));
            segs.push(((hi, hi), (lo, hi)));
            segs.push(((lo, hi), (lo, lo)));
        }
        let (inner, outer) = (squares[squares.len() - 1], squares[0]);
        // The joins of the midpoints, from the outer to the inner square.
        segs.push(((3, outer), (3, inner)));
        segs.push(((3, 6 - outer), (3, 6 - inner)));
        segs.push(((outer, 3), (inner, 3)));
        segs.push(((6 - outer, 3), (6 - inner, 3)));
        if board == Board::Twelve {
            segs.push(((0, 0), (2, 2)));
            segs.push(((6, 0), (4, 2)));
            segs.push(((0, 6), (2, 4)));
            segs.push(((6, 6), (4, 4)));
        }
        segs
    }

    /// The board's points from the drawing: the corners and midpoints of the
    /// squares' sides (the joins and diagonals end on them or pass through the middle
    /// square's).
    fn drawn_points(board: Board) -> Vec<Point> {
        let mut out = Vec::new();
        let sides = drawing(board).len() - if board == Board::Twelve { 8 } else { 4 };
        for &((ax, ay), (bx, by)) in &drawing(board)[..sides] {
            for (x, y) in [(ax, ay), (bx, by), ((ax + bx) / 2, (ay + by) / 2)] {
                if let Some(p) = Point::ALL.iter().find(|&&p| xy(p) == (x, y)) {
                    if !out.contains(p) {
                        out.push(*p);
                    }
                }
            }
        }
        out
    }

    /// The points of the drawing on the segment from `a` to `b`, in order.
    fn on_segment(board: Board, a: (i32, i32), b: (i32, i32)) -> Vec<Point> {
        let mut pts: Vec<Point> = drawn_points(board)
            .into_iter()
            .filter(|&p| {
                let (x, y) = xy(p);
                let cross = (b.0 - a.0) * (y - a.1) - (b.1 - a.1) * (x - a.0);
                let within = (a.0.min(b.0)..=a.0.max(b.0)).contains(&x)
                    && (a.1.min(b.1)..=a.1.max(b.1)).contains(&y);
                cross == 0 && within
            })
            .collect();
        pts.sort_by_key(|&p| {
            let (x, y) = xy(p);
            (x - a.0).abs() + (y - a.1).abs()
        });
        pts
    }

    /// Slow construction: two points are joined when they follow each other on a
    /// segment of the drawing; a mill is three points in a row on one straight line
    /// of the drawing (segments that continue each other in the same direction).
    fn slow(board: Board) -> (Vec<Bitboard>, Vec<Bitboard>) {
        let mut adjacent = vec![Bitboard::EMPTY; POINT_COUNT];
        let mut lines: Vec<Vec<Point>> = Vec::new();
        for (a, b) in drawing(board) {
            let pts = on_segment(board, a, b);
            for w in pts.windows(2) {
                adjacent[w[0].index()] = adjacent[w[0].index()] | w[1].bit();
                adjacent[w[1].index()] = adjacent[w[1].index()] | w[0].bit();
            }
            lines.push(pts);
        }
        let mut mills = Vec::new();
        for l in &lines {
            if l.len() == 3 {
                mills.push(l.iter().fold(Bitboard::EMPTY, |b, p| b | p.bit()));
            }
        }
        mills.sort_by_key(|m| m.bits());
        mills.dedup();
        (adjacent, mills)
    }

    #[test]
    fn every_board_matches_its_drawing() {
        for board in Board::ALL {
            let g = board.geometry();
            let (adjacent, mut mills) = slow(board);
            let points = drawn_points(board)
                .into_iter()
                .fold(Bitboard::EMPTY, |b, p| b | p.bit());
            assert_eq!(g.points(), points, "{board}");
            for p in Point::ALL {
                assert_eq!(g.adjacent(p), adjacent[p.index()], "{board} {p}");
            }
            let mut ours: Vec<Bitboard> = g.mills().collect();
            ours.sort_by_key(|m| m.bits());
            mills.sort_by_key(|m| m.bits());
            assert_eq!(ours, mills, "{board}");
        }
        let count = |b: Board| {
            let g = b.geometry();
            let links: u32 = Point::ALL.iter().map(|&p| g.adjacent(p).count()).sum();
            (g.point_count(), links / 2, g.mill_count())
        };
        assert_eq!(count(Board::Nine), (24, 32, 16));
        assert_eq!(count(Board::Six), (16, 20, 8));
        assert_eq!(count(Board::Twelve), (24, 40, 20));
    }

    /// The constants the monomorphised loops are built with ([`by_board!`]) are the
    /// board's, and the fixed-length arrays hold the same lines as the iterators.
    #[test]
    fn the_fixed_length_arrays_are_the_boards_lines() {
        fn arrays<const MILLS: usize, const LINES: usize>(g: &Geometry) {
            assert_eq!(MILLS, g.mill_count(), "{}", g.board());
            let most = Point::ALL.iter().map(|&p| g.lines_through(p).count());
            assert_eq!(Some(LINES), most.max(), "{}", g.board());
            assert_eq!(
                g.mill_array::<MILLS>().to_vec(),
                g.mills().collect::<Vec<_>>()
            );
            for p in Point::ALL {
                let fixed: Vec<Bitboard> = g.lines_at::<LINES>(p).into_iter().collect();
                let lines: Vec<Bitboard> = g.lines_through(p).collect();
                assert_eq!(fixed[..lines.len()], lines[..], "{} {p}", g.board());
                assert!(fixed[lines.len()..].iter().all(|l| l.is_empty()));
            }
            // Longer arrays pad with empty lines.
            let padded = g.mill_array::<MAX_MILLS>();
            assert!(padded[MILLS..].iter().all(|l| l.is_empty()));
        }
        for board in Board::ALL {
            let g = board.geometry();
            assert_eq!(g.board(), board);
            by_board!(board, arrays(g));
        }
        let lines = Board::ALL.map(Board::lines_through_max);
        assert_eq!(lines, [2, 2, 3]);
    }

    #[test]
    fn the_nine_board_is_the_one_of_the_constant_tables() {
        for p in Point::ALL {
            assert_eq!(NINE.adjacent(p), tables::ADJACENT[p.index()]);
        }
        assert_eq!(NINE.mills().collect::<Vec<_>>(), tables::MILLS.to_vec());
    }

    #[test]
    fn every_symmetry_maps_every_board_onto_itself() {
        for board in Board::ALL {
            let g = board.geometry();
            let mut mills: Vec<u32> = g.mills().map(|m| m.bits()).collect();
            mills.sort_unstable();
            for s in Symmetry::ALL {
                assert_eq!(s.apply(g.points()), g.points(), "{board} {s:?}");
                for p in Point::ALL {
                    assert_eq!(
                        s.apply(g.adjacent(p)),
                        g.adjacent(s.apply_point(p)),
                        "{board} {s:?} {p}"
                    );
                }
                let mut mapped: Vec<u32> = g.mills().map(|m| s.apply(m).bits()).collect();
                mapped.sort_unstable();
                assert_eq!(mapped, mills, "{board} {s:?}");
            }
        }
    }

    #[test]
    fn neighbours_and_mill_tests_agree_with_the_tables() {
        let mut x = 0x9E37_79B9u32;
        for board in Board::ALL {
            let g = board.geometry();
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let set = Bitboard::from_bits_truncate(x) & g.points();
                let slow = set.iter().fold(Bitboard::EMPTY, |b, p| b | g.adjacent(p));
                assert_eq!(g.neighbours(set), slow, "{board} {set:?}");
                let in_mill = g
                    .mills()
                    .filter(|m| set.contains_all(*m))
                    .fold(Bitboard::EMPTY, |b, m| b | m);
                assert_eq!(g.in_mills(set), in_mill);
                for to in g.points().iter().filter(|p| !set.contains(*p)) {
                    let closed = g
                        .mills()
                        .filter(|m| m.contains(to) && set.contains_all(*m ^ to.bit()))
                        .count() as u32;
                    assert_eq!(g.mills_closed(set, to.index()), closed);
                    assert_eq!(g.closes_mill(set, to.index()), closed > 0);
                    assert_eq!(g.lines_through(to).count(), {
                        g.mills().filter(|m| m.contains(to)).count()
                    });
                }
            }
        }
    }
}
