//! An independent oracle for the movement phase, shared by the tests that check
//! tablebases against it (each uses part of it).
//!
//! Everything the oracle needs is built here from the rules in `RULES.md`, sharing no
//! code with the crates under test:
//! - its own point numbering (reading order, top rank first), connections and mills
//!   derived from the 7×7 grid (the nine board; the twelve board: the same with the
//!   diagonals joining the corners; the six board: the nine board without its middle
//!   square, 16 points), and the 16 symmetries derived from coordinates;
//! - its own move generation (slides, flying, mills, the capture rule);
//! - plain value iteration over *unreduced* positions (no symmetry reduction, no
//!   counters, no unmoves): sweep after sweep, level by level, a position is decided
//!   at level `L` when its value computed from the values already known has DTM `L`
//!   (the winner takes the shortest win, the loser the longest loss); what is never
//!   decided is a draw. A sweep only skips positions that cannot be decided at its
//!   level: one decided at `L` has a successor with DTM `L - 1`, so a position none
//!   of whose successors' rows changed at `L - 1`, and none of whose captures reach
//!   DTM `L - 1`, is left for later (see [`Oracle::sweep`]).
//!
//! Set `ORACLE_TRACE=1` to see each level's count and time.
//!
//! The engine is used only to turn a point name into the engine's bit (via
//! `Point::from_coords`) when looking values up in the generated tablebase.

#![allow(dead_code)]

use morris_engine::{Bitboard, Board, Point, Protection, Variant};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::time::Instant;

/// Every point of the nine and twelve boards (the six board's are [`Geometry::full`]).
pub const FULL: u32 = (1 << 24) - 1;

/// The oracle's own numbering of the points of the nine and twelve boards: reading
/// order, top rank first. The six board numbers its 16 points the same way
/// ([`Geometry::names`]).
pub const NAMES: [&str; 24] = [
    "a7", "d7", "g7", "b6", "d6", "f6", "c5", "d5", "e5", "a4", "b4", "c4", "e4", "f4", "g4", "c3",
    "d3", "e3", "b2", "d2", "f2", "a1", "d1", "g1",
];

/// Grid coordinates `(file, rank)`, both `0..7`, of a point name.
fn coords_of(name: &str) -> (i32, i32) {
    let b = name.as_bytes();
    (i32::from(b[0] - b'a'), i32::from(b[1] - b'1'))
}

/// The square a grid point lies on: its distance from the centre d4 in the maximum
/// norm (1 the inner square, 2 the middle one, 3 the outer one).
fn square_of((x, y): (i32, i32)) -> i32 {
    (x - 3).abs().max((y - 3).abs())
}

pub fn bits(mut set: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let p = set.trailing_zeros() as usize;
            set &= set - 1;
            p
        })
    })
}

/// A 24-bit set mapped bit by bit through byte tables.
pub struct ByteMap(pub [[u32; 256]; 3]);

impl ByteMap {
    pub fn new(image: impl Fn(usize) -> u32) -> ByteMap {
        let mut t = [[0u32; 256]; 3];
        for (j, table) in t.iter_mut().enumerate() {
            for (byte, out) in table.iter_mut().enumerate() {
                *out = bits(byte as u32)
                    .map(|i| image(8 * j + i))
                    .fold(0, |a, b| a | b);
            }
        }
        ByteMap(t)
    }

    #[inline]
    pub fn apply(&self, set: u32) -> u32 {
        self.0[0][(set & 0xFF) as usize]
            | self.0[1][((set >> 8) & 0xFF) as usize]
            | self.0[2][(set >> 16) as usize]
    }
}

/// The board, derived from the grid, and the oracle's tables.
///
/// Points are numbered `0..points` ([`Geometry::names`]); arrays of 24 entries leave
/// those from `points` on empty (no neighbours, no mills, fixed by every symmetry)
/// on the six board.
pub struct Geometry {
    /// The board's points, by the oracle's number: [`NAMES`], or on the six board
    /// the 16 of them outside the middle square, in the same order.
    pub names: Vec<&'static str>,
    /// The number of points (24, or 16 on the six board).
    pub points: usize,
    /// Every point, as a set.
    pub full: u32,
    pub adjacent: [u32; 24],
    pub mills: Vec<u32>,
    /// The mills through each point; [`NO_LINE`] where a point has fewer than three.
    mills_at: [[u32; 3]; 24],
    /// Every `k`-subset of the points, in increasing order (= colex order).
    pub sets: Vec<Vec<u32>>,
    /// Colex rank by bytes: `rank_part[j][c][byte]`, `c` points below byte `j`.
    rank_part: Vec<[[u32; 256]; 10]>,
    /// Oracle set to engine bitboard.
    pub to_engine: ByteMap,
    /// The 16 symmetries as point permutations (of `0..points`; entries from
    /// `points` on map to themselves) and as set maps.
    pub symmetries: Vec<[usize; 24]>,
    pub sym_maps: Vec<ByteMap>,
}

/// A line no position completes (bit 31 is no point): the third line of a point that
/// has two.
const NO_LINE: u32 = 1 << 31;

impl Geometry {
    pub fn new() -> Geometry {
        Geometry::of(false)
    }

    /// The nine board, or with `diagonals` the twelve board.
    pub fn of(diagonals: bool) -> Geometry {
        Geometry::build(NAMES.to_vec(), diagonals)
    }

    /// The six board: the nine board's grid drawing without its middle square (the
    /// 16 points of the outer and inner squares), connections and mills derived by the
    /// same rules over the points that remain.
    pub fn six() -> Geometry {
        let names = NAMES
            .iter()
            .copied()
            .filter(|n| square_of(coords_of(n)) != 2)
            .collect();
        Geometry::build(names, false)
    }

    /// The geometry of a board.
    pub fn on(board: Board) -> Geometry {
        match board {
            Board::Nine => Geometry::of(false),
            Board::Twelve => Geometry::of(true),
            Board::Six => Geometry::six(),
        }
    }

    /// The board of these points (a subset of [`NAMES`], in its order), with or
    /// without the diagonals joining the corners.
    fn build(names: Vec<&'static str>, diagonals: bool) -> Geometry {
        let n = names.len();
        assert!(n <= 24, "at most the 24 points of the grid");
        let coords: Vec<(i32, i32)> = names.iter().map(|name| coords_of(name)).collect();
        let coords = |p: usize| coords[p];
        let full: u32 = (1u32 << n) - 1;
        let index_of: HashMap<(i32, i32), usize> = (0..n).map(|p| (coords(p), p)).collect();
        assert_eq!(index_of.len(), n, "distinct points");
        // Two points are joined when they share a row or a column, no point lies
        // between them, and the segment does not pass the centre (d4 is not a point).
        let mut adjacent = [0u32; 24];
        for (p, neighbours) in adjacent.iter_mut().enumerate().take(n) {
            for q in 0..n {
                let ((x1, y1), (x2, y2)) = (coords(p), coords(q));
                if p == q || (x1 != x2 && y1 != y2) {
                    continue;
                }
                let between = |x: i32, y: i32| {
                    (x1 == x2 && x == x1 && y > y1.min(y2) && y < y1.max(y2))
                        || (y1 == y2 && y == y1 && x > x1.min(x2) && x < x1.max(x2))
                };
                let blocked = (0..n).any(|r| {
                    let (x, y) = coords(r);
                    between(x, y)
                }) || between(3, 3);
                if !blocked {
                    *neighbours |= 1 << q;
                }
            }
            // The twelve board: a corner (on a diagonal through the centre) is joined
            // to the corners one square in and out along its diagonal.
            let (x, y) = coords(p);
            let (cx, cy) = (x - 3, y - 3);
            if diagonals && cx.abs() == cy.abs() {
                for q in 0..n {
                    let (qx, qy) = (coords(q).0 - 3, coords(q).1 - 3);
                    let same_ray = qx.signum() == cx.signum() && qy.signum() == cy.signum();
                    if same_ray && qx.abs() == qy.abs() && (qx.abs() - cx.abs()).abs() == 1 {
                        *neighbours |= 1 << q;
                    }
                }
            }
        }
        // A mill is a point with a neighbour on each side along the same line.
        let mut mills = Vec::new();
        for (p, &neighbours) in adjacent.iter().enumerate().take(n) {
            let (x, y) = coords(p);
            let along = |dx: i32, dy: i32| {
                bits(neighbours)
                    .find(|&q| {
                        let (qx, qy) = coords(q);
                        (qx - x).signum() == dx && (qy - y).signum() == dy
                    })
                    .map(|q| 1u32 << q)
            };
            for (a, b) in [
                (along(-1, 0), along(1, 0)),
                (along(0, -1), along(0, 1)),
                (along(-1, -1), along(1, 1)),
                (along(-1, 1), along(1, -1)),
            ] {
                if let (Some(a), Some(b)) = (a, b) {
                    mills.push(a | b | 1 << p);
                }
            }
        }
        let mills_at: [[u32; 3]; 24] = std::array::from_fn(|p| {
            if p >= n {
                return [NO_LINE; 3];
            }
            let mut through: Vec<u32> = mills.iter().copied().filter(|m| m & 1 << p != 0).collect();
            // Two or three on the nine and twelve boards; on the six board a side's
            // middle point is on one.
            assert!(
                (1..=3).contains(&through.len()),
                "a point on one to three mills"
            );
            through.resize(3, NO_LINE);
            through.try_into().expect("three lines")
        });

        let mut binom = [[0u64; 25]; 25];
        for n in 0..25 {
            binom[n][0] = 1;
            for k in 1..=n {
                binom[n][k] = binom[n - 1][k - 1] + if k < n { binom[n - 1][k] } else { 0 };
            }
        }
        let c = |n: usize, k: usize| if k > n { 0 } else { binom[n][k] as u32 };
        let rank_part = (0..3)
            .map(|j| {
                let mut t = [[0u32; 256]; 10];
                for (below, row) in t.iter_mut().enumerate() {
                    for (byte, out) in row.iter_mut().enumerate() {
                        *out = bits(byte as u32)
                            .enumerate()
                            .map(|(i, b)| c(8 * j + b, below + i + 1))
                            .sum();
                    }
                }
                t
            })
            .collect();
        let sets = (0..=9)
            .map(|k: u32| {
                let mut out = Vec::new();
                if k == 0 {
                    return vec![0];
                }
                let mut s: u32 = (1 << k) - 1;
                while s <= full {
                    out.push(s);
                    // Gosper's hack: the next larger set of the same size.
                    let low = s & s.wrapping_neg();
                    let ripple = s + low;
                    s = ripple | (((s ^ ripple) >> 2) / low);
                }
                out
            })
            .collect();

        let to_engine = ByteMap::new(|p| {
            if p >= n {
                return 0;
            }
            let b = names[p].as_bytes();
            Point::from_coords(b[0], b[1])
                .expect("every oracle point is an engine point")
                .bit()
                .bits()
        });

        // The 8 symmetries of the square about d4, each optionally combined with the
        // inner/outer swap, which maps ring radius m (1..3) to 4 - m along its ray.
        // Each must map the board's points onto themselves (on the six board, which
        // lacks the middle square m = 2, it does).
        let mut symmetries = Vec::new();
        for swap in [false, true] {
            for k in 0..8 {
                let perm: [usize; 24] = std::array::from_fn(|p| {
                    if p >= n {
                        return p;
                    }
                    let (x, y) = coords(p);
                    let (mut cx, mut cy) = (x - 3, y - 3);
                    if swap {
                        let m = cx.abs().max(cy.abs());
                        cx = cx / m * (4 - m);
                        cy = cy / m * (4 - m);
                    }
                    for _ in 0..k % 4 {
                        (cx, cy) = (-cy, cx);
                    }
                    if k >= 4 {
                        cx = -cx;
                    }
                    *index_of
                        .get(&(cx + 3, cy + 3))
                        .expect("a symmetry maps a point to a point of the board")
                });
                let image: u32 = perm[..n].iter().fold(0, |a, &q| a | 1 << q);
                assert_eq!(image, full, "a symmetry permutes the board's points");
                symmetries.push(perm);
            }
        }
        let sym_maps = symmetries
            .iter()
            .map(|perm| ByteMap::new(|p| if p < n { 1 << perm[p] } else { 0 }))
            .collect();
        Geometry {
            names,
            points: n,
            full,
            adjacent,
            mills,
            mills_at,
            sets,
            rank_part,
            to_engine,
            symmetries,
            sym_maps,
        }
    }

    /// Colex rank of a set among the sets of its size.
    #[inline]
    pub fn rank(&self, set: u32) -> usize {
        let (b0, b1, b2) = (set & 0xFF, (set >> 8) & 0xFF, set >> 16);
        let c0 = b0.count_ones() as usize;
        let c1 = c0 + b1.count_ones() as usize;
        (self.rank_part[0][0][b0 as usize]
            + self.rank_part[1][c0][b1 as usize]
            + self.rank_part[2][c1][b2 as usize]) as usize
    }

    /// Whether the piece just put on `to` completes a mill of `own`.
    #[inline]
    fn closes_mill(&self, own: u32, to: usize) -> bool {
        let me = 1 << to;
        self.mills_at[to]
            .iter()
            .any(|&m| m != NO_LINE && own & (m & !me) == m & !me)
    }

    /// The pieces of `set` standing in one of its mills.
    #[inline]
    fn in_mills(&self, set: u32) -> u32 {
        self.mills
            .iter()
            .filter(|&&m| set & m == m)
            .fold(0, |a, &m| a | m)
    }

    pub fn engine(&self, set: u32) -> Bitboard {
        Bitboard::from_bits_truncate(self.to_engine.apply(set))
    }

    pub fn names(&self, set: u32) -> String {
        bits(set)
            .map(|p| self.names[p])
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The values of one sector over unreduced positions: `0` undecided (a draw once
/// solved), `n > 0` decided with DTM `n - 1` (the tablebase encoding, narrowed).
/// Row `r` holds the positions whose side to move has the set of colex rank `r`.
pub struct Table {
    us: usize,
    them: usize,
    stride: usize,
    vals: Vec<AtomicU8>,
    /// Per row, whether a position of the row was decided at the last even or odd
    /// level (indexed by the level's parity).
    hit: [Vec<AtomicBool>; 2],
    /// Per position, the levels at which a capture can decide it, by opponent's set
    /// then own set (see [`Oracle::triggers`]).
    triggers: Vec<u16>,
}

impl Table {
    pub fn new(g: &Geometry, us: usize, them: usize) -> Table {
        let stride = g.sets[them].len();
        let rows = g.sets[us].len();
        let flags = || (0..rows).map(|_| AtomicBool::new(false)).collect();
        Table {
            us,
            them,
            stride,
            vals: (0..rows * stride).map(|_| AtomicU8::new(0)).collect(),
            hit: [flags(), flags()],
            triggers: Vec::new(),
        }
    }

    #[inline]
    pub fn get(&self, g: &Geometry, us: u32, them: u32) -> u8 {
        self.vals[g.rank(us) * self.stride + g.rank(them)].load(Relaxed)
    }

    /// Every position `(us, them)` of the sector, in parallel.
    pub fn for_each(&self, g: &Geometry, f: impl Fn(u32, u32) + Sync) {
        g.sets[self.them].par_iter().for_each(|&t| {
            for &u in &g.sets[self.us] {
                if u & t == 0 {
                    f(u, t);
                }
            }
        });
    }

    /// Whether some position holds the stored value `v`.
    fn has_value(&self, v: u8) -> bool {
        self.vals.par_iter().any(|x| x.load(Relaxed) == v)
    }

    fn max_dtm(&self) -> u8 {
        self.vals
            .iter()
            .map(|v| v.load(Relaxed).saturating_sub(1))
            .max()
            .unwrap_or(0)
    }
}

/// One move of the side to move, as the position it leads to (the opponent's pieces
/// first, as the opponent will be to move).
enum Step {
    /// No capture: `(them, moved)` in the mirror sector.
    Quiet(u32),
    /// A capture leaving the opponent `left`: `(left, moved)` one sector down, or the
    /// end of the game if `left` has two pieces.
    Capture(u32, u32),
}

/// The oracle's solved sectors of one variant.
pub struct Oracle {
    pub variant: Variant,
    /// The board: nine, six or twelve.
    pub board: Board,
    /// Which pieces a mill may take: standard (outside mills unless all are in
    /// mills), none (any), full (never one in a mill; with all in mills the capture
    /// is forfeited and the move is quiet).
    pub protection: Protection,
    pub g: Geometry,
    tables: HashMap<(usize, usize), Table>,
}

impl Oracle {
    pub fn new(variant: Variant) -> Oracle {
        Oracle::with_protection(variant, Protection::Standard)
    }

    pub fn with_protection(variant: Variant, protection: Protection) -> Oracle {
        Oracle::on_board(variant, protection, Board::Nine)
    }

    /// The oracle of a variant's flying rule (flying at three pieces, or never) under
    /// a protection rule on a board: nine, six or twelve.
    pub fn on_board(variant: Variant, protection: Protection, board: Board) -> Oracle {
        Oracle {
            variant,
            board,
            protection,
            g: Geometry::on(board),
            tables: HashMap::new(),
        }
    }

    pub fn table(&self, us: usize, them: usize) -> &Table {
        &self.tables[&(us, them)]
    }

    /// Solve sector `(a, b)` with its mirror, after everything their captures reach.
    pub fn solve(&mut self, a: usize, b: usize) {
        if self.tables.contains_key(&(a, b)) {
            return;
        }
        for (x, y) in [(a, b), (b, a)] {
            if y > 3 {
                self.solve(y - 1, x);
            }
        }
        let pair: Vec<(usize, usize)> = if a == b {
            vec![(a, b)]
        } else {
            vec![(a, b), (b, a)]
        };
        let new: Vec<Table> = pair
            .iter()
            .map(|&(x, y)| Table::new(&self.g, x, y))
            .collect();
        // The largest DTM a capture can reach outside the pair (0: a capture that
        // leaves two pieces ends the game).
        let outside = pair
            .iter()
            .filter(|&&(_, y)| y > 3)
            .map(|&(x, y)| self.table(y - 1, x).max_dtm())
            .max()
            .unwrap_or(0);
        let new: Vec<Table> = new
            .into_iter()
            .map(|mut t| {
                t.triggers = self.triggers(&t);
                t
            })
            .collect();
        let mut level: u8 = 0;
        loop {
            let clock = Instant::now();
            for t in &new {
                t.hit[usize::from(level % 2)]
                    .par_iter()
                    .for_each(|h| h.store(false, Relaxed));
            }
            let decided: u64 = (0..new.len()).map(|k| self.sweep(&new, k, level)).sum();
            if std::env::var_os("ORACLE_TRACE").is_some() {
                eprintln!(
                    "{} {a}-{b} level {level}: {decided} decided in {:.2} s",
                    self.variant,
                    clock.elapsed().as_secs_f64()
                );
            }
            // A position decided at level L has a successor with DTM L - 1: in the
            // pair only if something was decided at L - 1, outside only up to there.
            if decided == 0 && level > outside {
                break;
            }
            level = level
                .checked_add(1)
                .filter(|&l| l < u8::MAX)
                .expect("DTM fits a byte");
        }
        for t in new {
            self.tables.insert((t.us, t.them), t);
        }
    }

    /// For every position of `side` (opponent's set major), the two levels at which
    /// a capture can be the successor that decides it: the least stored value of a
    /// capture reaching a lost position (a win is decided at the shortest loss it
    /// reaches), and the largest of a capture reaching a won one (a loss at the
    /// longest win it must allow). Low byte and high byte, 0 for none.
    fn triggers(&self, side: &Table) -> Vec<u16> {
        let g = &self.g;
        let lower = (side.them > 3).then(|| self.table(side.them - 1, side.us));
        let n_us = g.sets[side.us].len();
        let mut out = vec![0u16; g.sets[side.them].len() * n_us];
        out.par_chunks_mut(n_us)
            .zip(&g.sets[side.them])
            .for_each(|(row, &t)| {
                let capturable = self.capturable(t);
                for (slot, &u) in row.iter_mut().zip(&g.sets[side.us]) {
                    if u & t != 0 {
                        continue;
                    }
                    let (mut shortest_loss, mut longest_win) = (u8::MAX, 0u8);
                    self.moves(u, t, capturable, |step| {
                        if let Step::Capture(left, moved) = step {
                            let v = self.captured(lower, left, moved);
                            if v % 2 == 1 {
                                shortest_loss = shortest_loss.min(v);
                            } else if v > 0 {
                                longest_win = longest_win.max(v);
                            }
                        }
                        false
                    });
                    let w = if shortest_loss == u8::MAX {
                        0
                    } else {
                        shortest_loss
                    };
                    *slot = u16::from(w) | u16::from(longest_win) << 8;
                }
            });
        out
    }

    /// One sweep over side `k` of the pair: decide every undecided position whose
    /// value, computed from what is known, has DTM `level`. Returns how many.
    ///
    /// A position decided at `level` has a successor with DTM `level - 1`. Its moves
    /// without capture all lead into one row of the mirror sector (the row of its
    /// opponent's set), so when nothing in that row was decided at `level - 1` only
    /// its captures can decide it, at one of its two trigger levels.
    fn sweep(&self, pair: &[Table], k: usize, level: u8) -> u64 {
        let g = &self.g;
        let side = &pair[k];
        let mirror = &pair[(k + 1) % pair.len()];
        let lower = (side.them > 3).then(|| self.table(side.them - 1, side.us));
        let previous = &mirror.hit[usize::from((level + 1) % 2)];
        let now = &side.hit[usize::from(level % 2)];
        // Whether any capture leads to a position with DTM `level - 1`.
        let reachable = match lower {
            None => level == 1,
            Some(lower) => lower.has_value(level),
        };
        let decided = AtomicU64::new(0);
        g.sets[side.them].par_iter().for_each(|&t| {
            let rt = g.rank(t);
            let fresh = level == 0 || previous[rt].load(Relaxed);
            if !fresh && !reachable {
                return;
            }
            let row = &mirror.vals[rt * mirror.stride..][..mirror.stride];
            let capturable = self.capturable(t);
            let n_us = g.sets[side.us].len();
            let triggers = &side.triggers[rt * n_us..][..n_us];
            let mut n = 0;
            for (ru, &u) in g.sets[side.us].iter().enumerate() {
                if u & t != 0 {
                    continue;
                }
                let [w, x] = triggers[ru].to_le_bytes();
                if !fresh && w != level && x != level {
                    continue;
                }
                let slot = &side.vals[ru * side.stride + rt];
                if slot.load(Relaxed) != 0 {
                    continue;
                }
                if self.decides(row, lower, u, t, capturable, level) {
                    slot.store(level + 1, Relaxed);
                    now[ru].store(true, Relaxed);
                    n += 1;
                }
            }
            decided.fetch_add(n, Relaxed);
        });
        decided.into_inner()
    }

    /// The opponent's pieces (`t`) a mill may take; 0 when a capture is forfeited.
    fn capturable(&self, t: u32) -> u32 {
        let free = t & !self.g.in_mills(t);
        match self.protection {
            Protection::Standard if free == 0 => t,
            Protection::Standard | Protection::Full => free,
            Protection::None => t,
        }
    }

    /// Call `f` with every legal move of the side to move (`u`) until it returns
    /// `true`; returns whether it did. `capturable` is what a mill may take.
    #[inline(always)]
    fn moves(&self, u: u32, t: u32, capturable: u32, mut f: impl FnMut(Step) -> bool) -> bool {
        let g = &self.g;
        let empty = g.full & !(u | t);
        let flies = self.variant == Variant::Standard && u.count_ones() == 3;
        for from in bits(u) {
            let own = u & !(1 << from);
            let targets = if flies {
                empty
            } else {
                g.adjacent[from] & empty
            };
            for to in bits(targets) {
                let moved = own | 1 << to;
                if capturable != 0 && g.closes_mill(moved, to) {
                    for c in bits(capturable) {
                        if f(Step::Capture(t & !(1 << c), moved)) {
                            return true;
                        }
                    }
                } else if f(Step::Quiet(moved)) {
                    return true;
                }
            }
        }
        false
    }

    /// The stored value of a capture's successor.
    #[inline]
    fn captured(&self, lower: Option<&Table>, left: u32, moved: u32) -> u8 {
        match lower {
            // Two pieces left: the opponent has lost, DTM 0.
            None => 1,
            Some(lower) => lower.get(&self.g, left, moved),
        }
    }

    /// Whether position `(u, t)` has DTM exactly `level` given what is known: at an
    /// odd level, whether some move reaches a position lost in `level - 1`; at an even
    /// level, whether every move reaches a won position, the longest in `level - 1`.
    /// `row` is the mirror sector's row of `t`.
    fn decides(
        &self,
        row: &[AtomicU8],
        lower: Option<&Table>,
        u: u32,
        t: u32,
        capturable: u32,
        level: u8,
    ) -> bool {
        let want_win = level % 2 == 1;
        let mut longest = None::<u8>;
        let mut verdict = false;
        // Each successor's stored value, from the opponent's side; `true` stops.
        let stopped = self.moves(u, t, capturable, |step| {
            let v = match step {
                Step::Quiet(moved) => row[self.g.rank(moved)].load(Relaxed),
                Step::Capture(left, moved) => self.captured(lower, left, moved),
            };
            if want_win {
                // A lost successor (odd stored value) with a shorter DTM would have
                // decided this position at an earlier level.
                assert!(v == 0 || v % 2 == 0 || v >= level, "oracle missed a win");
                verdict = v == level;
                verdict
            } else if v == 0 || v % 2 == 1 {
                true
            } else {
                longest = Some(longest.map_or(v - 1, |l| l.max(v - 1)));
                false
            }
        });
        if stopped || want_win {
            return verdict;
        }
        match longest {
            // No legal move: lost now.
            None => level == 0,
            Some(l) => {
                assert!(l + 1 >= level, "oracle missed a loss");
                l + 1 == level
            }
        }
    }
}
