//! An independent, deliberately naive model of RULES.md, checked against the engine.
//!
//! The oracle below knows nothing of `morris_engine::tables` or of the engine's point
//! numbering: it derives the 24 points, the 32 connections and the 16 mills from the
//! geometry of the 7x7 grid (and the family's other boards from the same grid: the six
//! board without the middle square, the twelve board with the diagonals), keeps a position as an array of cells, two hands and the
//! side to move, and applies every rule by brute force. It talks to the engine only
//! through the public text formats: the position string and the move strings (`d6`,
//! `a1-a4`, `d6xg7`, `a1-a4xg7`, `d6xa1xg7`), and the rule spec of the house rules
//! (`standard,captures=per-mill`), whose switches it applies by brute force too.

mod common;

use common::Rng;
use morris_engine::{notation, perft, Color, EndReason, Outcome, Position, Rules, Variant};
use std::collections::BTreeSet;
use std::sync::OnceLock;

// ---------------------------------------------------------------------------------
// The board, from the grid
// ---------------------------------------------------------------------------------

/// The board derived from the grid: points in reading order (rank 7 to rank 1, each
/// file a to g), their names, neighbours and the lines of three.
struct Board {
    /// (x, y) with x = file index 0..7 (a..g), y = rank index 0..7 (1..7).
    coords: Vec<(i32, i32)>,
    names: Vec<String>,
    /// Whether the board has the point (the six board has no middle square; the
    /// position string still writes its cells, always empty).
    exists: Vec<bool>,
    adjacent: Vec<Vec<usize>>,
    mills: Vec<[usize; 3]>,
}

/// The boards: 0 nine, 1 six, 2 twelve, as the rule spec's `board=` names them.
const BOARD_NAMES: [&str; 3] = ["nine", "six", "twelve"];

impl Board {
    fn build(kind: usize) -> Board {
        // A grid cell is a point when it lies on a diagonal or on a central axis, the
        // centre excepted: the corners of the three squares and their midpoints.
        let mut coords = Vec::new();
        for y in (0..7).rev() {
            for x in 0..7 {
                let (dx, dy) = ((x - 3i32).abs(), (y - 3i32).abs());
                let on_diagonal = dx == dy && dx > 0;
                let on_axis = (dx == 0) != (dy == 0);
                if on_diagonal || on_axis {
                    coords.push((x, y));
                }
            }
        }
        let names = coords
            .iter()
            .map(|&(x, y)| format!("{}{}", (b'a' + x as u8) as char, y + 1))
            .collect();
        // The six board lacks the middle square: the points two steps from the centre.
        let exists: Vec<bool> = coords
            .iter()
            .map(|&(x, y)| kind != 1 || (x - 3i32).abs().max((y - 3i32).abs()) != 2)
            .collect();
        // A line is a row or a column, cut in two at the centre when it runs through
        // it, and on the twelve board each half-diagonal from a corner of the outer
        // square to the inner one. A segment's consecutive points are joined by a
        // connection; a segment of three points is a mill (on the six board the
        // joins of the two squares hold two).
        let mut segments: Vec<Vec<usize>> = Vec::new();
        for horizontal in [true, false] {
            for line in 0..7 {
                for half in [-1, 0, 1] {
                    let mut seg: Vec<(i32, usize)> = coords
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| exists[i])
                        .filter_map(|(i, &(x, y))| {
                            let (along, across) = if horizontal { (x, y) } else { (y, x) };
                            let side = if across == 3 { (along - 3).signum() } else { 0 };
                            (across == line && side == half).then_some((along, i))
                        })
                        .collect();
                    if !seg.is_empty() {
                        seg.sort();
                        segments.push(seg.into_iter().map(|(_, i)| i).collect());
                    }
                }
            }
        }
        if kind == 2 {
            for (sx, sy) in [(-1, -1), (-1, 1), (1, -1), (1, 1)] {
                let seg: Vec<usize> = (1..=3)
                    .rev()
                    .map(|d| {
                        let at = (3 + sx * d, 3 + sy * d);
                        coords.iter().position(|&c| c == at).expect("a corner")
                    })
                    .collect();
                segments.push(seg);
            }
        }
        let mut adjacent = vec![Vec::new(); coords.len()];
        let mut mills = Vec::new();
        for seg in &segments {
            if seg.len() == 3 {
                mills.push([seg[0], seg[1], seg[2]]);
            } else {
                assert!(
                    kind == 1 && seg.len() == 2,
                    "a segment of {} points",
                    seg.len()
                );
            }
            for w in seg.windows(2) {
                adjacent[w[0]].push(w[1]);
                adjacent[w[1]].push(w[0]);
            }
        }
        Board {
            coords,
            names,
            exists,
            adjacent,
            mills,
        }
    }

    fn index(&self, name: &str) -> usize {
        self.names
            .iter()
            .position(|n| n == name)
            .unwrap_or_else(|| panic!("no point {name}"))
    }
}

fn board() -> &'static Board {
    board_of(0)
}

/// The board of kind `kind` ([`BOARD_NAMES`]).
fn board_of(kind: usize) -> &'static Board {
    static BOARDS: [OnceLock<Board>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    BOARDS[kind].get_or_init(|| Board::build(kind))
}

// ---------------------------------------------------------------------------------
// The naive position and its rules
// ---------------------------------------------------------------------------------

const EMPTY: u8 = 0;
const WHITE: usize = 0;
const BLACK: usize = 1;

/// A cell holds EMPTY, or 1 + the colour index.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Naive {
    cells: [u8; 24],
    hand: [u8; 2],
    side: usize,
    flying: bool,
    /// House rules: pieces a side, a second capture for a second mill, and the
    /// protection of pieces in mills (0 standard, 1 none, 2 full).
    pieces: u8,
    per_mill: bool,
    protection: u8,
    /// The board ([`BOARD_NAMES`]).
    kind: usize,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct NMove {
    from: Option<usize>,
    to: usize,
    take: Option<usize>,
    take2: Option<usize>,
}

/// A move string with its captures in alphabetical order, so that two captures
/// compare whatever order each side wrote them in.
fn norm(text: &str) -> String {
    let mut parts: Vec<&str> = text.split('x').collect();
    parts[1..].sort_unstable();
    parts.join("x")
}

impl NMove {
    fn text(&self) -> String {
        let b = board();
        let mut s = String::new();
        if let Some(f) = self.from {
            s.push_str(&b.names[f]);
            s.push('-');
        }
        s.push_str(&b.names[self.to]);
        for t in [self.take, self.take2].into_iter().flatten() {
            s.push('x');
            s.push_str(&b.names[t]);
        }
        norm(&s)
    }
}

/// How a naive game ended: the loser and the reason.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum NEnd {
    TwoPieces(usize),
    Blocked(usize),
}

impl Naive {
    fn from_lists(white: &str, black: &str, side: char, hands: [u8; 2], v: Variant) -> Naive {
        let b = board();
        let mut cells = [EMPTY; 24];
        for (color, list) in [(WHITE, white), (BLACK, black)] {
            for name in list.split_whitespace() {
                let i = b.index(name);
                assert_eq!(cells[i], EMPTY, "{name} given twice");
                cells[i] = color as u8 + 1;
            }
        }
        Naive {
            cells,
            hand: hands,
            side: if side == 'w' { WHITE } else { BLACK },
            flying: v == Variant::Standard,
            pieces: 9,
            per_mill: false,
            protection: 0,
            kind: 0,
        }
    }

    /// The same position under house rules.
    fn house(mut self, pieces: u8, flying: bool, per_mill: bool, protection: u8) -> Naive {
        (self.pieces, self.flying, self.per_mill, self.protection) =
            (pieces, flying, per_mill, protection);
        self
    }

    /// The same position on another board.
    fn on(mut self, kind: usize) -> Naive {
        self.kind = kind;
        self
    }

    fn b(&self) -> &'static Board {
        board_of(self.kind)
    }

    /// The rule spec, written here from the switches.
    fn spec(&self) -> String {
        format!(
            "{},board={},pieces={},captures={},protection={}",
            if self.flying { "standard" } else { "no-flying" },
            BOARD_NAMES[self.kind],
            self.pieces,
            if self.per_mill { "per-mill" } else { "one" },
            ["standard", "none", "full"][usize::from(self.protection)]
        )
    }

    /// The engine's position string, written from the naive state.
    fn fen(&self) -> String {
        let b = board();
        let mut s = String::new();
        for (i, &(_, y)) in b.coords.iter().enumerate() {
            if i > 0 && b.coords[i - 1].1 != y {
                s.push('/');
            }
            s.push(match self.cells[i] {
                0 => '.',
                1 => 'W',
                _ => 'B',
            });
        }
        let side = if self.side == WHITE { 'w' } else { 'b' };
        format!("{s} {side} {} {}", self.hand[0], self.hand[1])
    }

    /// The naive state read back from a position string, parsed here by hand.
    fn from_fen(text: &str, v: Variant) -> Naive {
        let parts: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(parts.len(), 4, "{text}");
        let chars: Vec<char> = parts[0].chars().filter(|&c| c != '/').collect();
        assert_eq!(chars.len(), 24, "{text}");
        let mut cells = [EMPTY; 24];
        for (cell, c) in cells.iter_mut().zip(chars) {
            *cell = match c {
                '.' => 0,
                'W' => 1,
                'B' => 2,
                _ => panic!("bad cell {c} in {text}"),
            };
        }
        Naive {
            cells,
            hand: [parts[2].parse().unwrap(), parts[3].parse().unwrap()],
            side: if parts[1] == "w" { WHITE } else { BLACK },
            flying: v == Variant::Standard,
            pieces: 9,
            per_mill: false,
            protection: 0,
            kind: 0,
        }
    }

    fn engine(&self) -> Position {
        let rules = Rules::parse(&self.spec()).expect("a rule spec");
        notation::parse_position(&self.fen(), rules)
            .unwrap_or_else(|e| panic!("engine refuses {}: {e}", self.fen()))
    }

    fn count(&self, color: usize) -> usize {
        self.cells.iter().filter(|&&c| c == color as u8 + 1).count()
    }

    fn on_board(&self, color: usize) -> Vec<usize> {
        (0..24)
            .filter(|&i| self.cells[i] == color as u8 + 1)
            .collect()
    }

    /// Whether point `p` is in a line of board `b` whose three points all hold `color`.
    fn in_mill(b: &Board, cells: &[u8; 24], p: usize, color: usize) -> bool {
        b.mills
            .iter()
            .any(|m| m.contains(&p) && m.iter().all(|&q| cells[q] == color as u8 + 1))
    }

    /// The moves by the rules of a turn alone, game end not considered.
    fn raw_moves(&self) -> Vec<NMove> {
        let b = self.b();
        let me = self.side;
        let opp = 1 - me;
        let empties: Vec<usize> = (0..24)
            .filter(|&i| b.exists[i] && self.cells[i] == EMPTY)
            .collect();
        let mut steps: Vec<(Option<usize>, usize)> = Vec::new();
        if self.hand[me] > 0 {
            for &e in &empties {
                steps.push((None, e));
            }
        } else if self.flying && self.count(me) == 3 {
            for p in self.on_board(me) {
                for &e in &empties {
                    steps.push((Some(p), e));
                }
            }
        } else {
            for p in self.on_board(me) {
                for &q in &b.adjacent[p] {
                    if self.cells[q] == EMPTY {
                        steps.push((Some(p), q));
                    }
                }
            }
        }
        let mut out = Vec::new();
        for (from, to) in steps {
            let mut cells = self.cells;
            if let Some(f) = from {
                cells[f] = EMPTY;
            }
            cells[to] = me as u8 + 1;
            let takeable = self.takeable(&cells, opp);
            let mills = b
                .mills
                .iter()
                .filter(|m| m.contains(&to) && m.iter().all(|&q| cells[q] == me as u8 + 1))
                .count();
            let quiet = NMove {
                from,
                to,
                take: None,
                take2: None,
            };
            if mills == 0 || takeable.is_empty() {
                out.push(quiet);
                continue;
            }
            for &t in &takeable {
                let once = NMove {
                    take: Some(t),
                    ..quiet
                };
                if !(self.per_mill && mills == 2) {
                    out.push(once);
                    continue;
                }
                // A second capture, under the protection rule as it stands after the
                // first; none when the opponent has nothing left to take.
                let mut after = cells;
                after[t] = EMPTY;
                let second = self.takeable(&after, opp);
                if second.is_empty() {
                    out.push(once);
                }
                for &u in &second {
                    let twice = NMove {
                        take2: Some(u),
                        ..once
                    };
                    if !out.iter().any(|m| m.text() == twice.text()) {
                        out.push(twice);
                    }
                }
            }
        }
        out
    }

    /// The pieces of `color` a mill may take in `cells` under the protection rule.
    fn takeable(&self, cells: &[u8; 24], color: usize) -> Vec<usize> {
        let theirs: Vec<usize> = (0..24).filter(|&i| cells[i] == color as u8 + 1).collect();
        let free: Vec<usize> = theirs
            .iter()
            .copied()
            .filter(|&p| !Naive::in_mill(self.b(), cells, p, color))
            .collect();
        match self.protection {
            0 if free.is_empty() => theirs,
            0 | 2 => free,
            _ => theirs,
        }
    }

    /// The end of the game by rules 1 and 2. When both players are reduced (a set-up
    /// position only) the side to move is taken as the loser, as the engine documents.
    fn end(&self) -> Option<NEnd> {
        for color in [self.side, 1 - self.side] {
            if self.hand[color] == 0 && self.count(color) <= 2 {
                return Some(NEnd::TwoPieces(color));
            }
        }
        if self.raw_moves().is_empty() {
            return Some(NEnd::Blocked(self.side));
        }
        None
    }

    fn moves(&self) -> Vec<NMove> {
        if self.end().is_some() {
            Vec::new()
        } else {
            self.raw_moves()
        }
    }

    fn play(&self, m: NMove) -> Naive {
        let mut next = self.clone();
        let me = self.side;
        match m.from {
            Some(f) => {
                assert_eq!(next.cells[f], me as u8 + 1);
                next.cells[f] = EMPTY;
            }
            None => next.hand[me] -= 1,
        }
        assert_eq!(next.cells[m.to], EMPTY);
        next.cells[m.to] = me as u8 + 1;
        for t in [m.take, m.take2].into_iter().flatten() {
            assert_eq!(next.cells[t], (1 - me) as u8 + 1);
            next.cells[t] = EMPTY;
        }
        next.side = 1 - me;
        next
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        let moves = self.moves();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves.iter().map(|&m| self.play(m).perft(depth - 1)).sum()
    }
}

// ---------------------------------------------------------------------------------
// Comparison helpers
// ---------------------------------------------------------------------------------

fn engine_end(pos: &Position) -> Option<NEnd> {
    let idx = |c: Color| c.index();
    pos.end().map(|e| match (e.outcome(), e.reason()) {
        (Outcome::Win(w), EndReason::TwoPieces) => NEnd::TwoPieces(idx(w.opponent())),
        (Outcome::Win(w), EndReason::Blocked) => NEnd::Blocked(idx(w.opponent())),
        other => panic!("Position::end gave {other:?} in {pos}"),
    })
}

/// Compare the move sets, counts and game end of one position; the naive moves.
fn compare_node(naive: &Naive, pos: &Position) -> Vec<NMove> {
    let fen = naive.fen();
    assert_eq!(pos.to_string(), fen, "positions diverged");
    let ours = naive.moves();
    let ours_set: BTreeSet<String> = ours.iter().map(NMove::text).collect();
    assert_eq!(ours_set.len(), ours.len(), "oracle duplicates in {fen}");
    let list = pos.legal_moves();
    let theirs: BTreeSet<String> = list.iter().map(|m| norm(&m.to_string())).collect();
    assert_eq!(
        theirs.len(),
        list.len(),
        "engine lists a move twice in {fen}"
    );
    if ours_set != theirs {
        let missing: Vec<_> = ours_set.difference(&theirs).collect();
        let extra: Vec<_> = theirs.difference(&ours_set).collect();
        panic!(
            "move sets differ in {fen} ({}): engine lacks {missing:?}, engine adds {extra:?}",
            naive.spec()
        );
    }
    assert_eq!(pos.count_legal_moves(), ours.len() as u64, "count in {fen}");
    assert_eq!(engine_end(pos), naive.end(), "game end in {fen}");
    ours
}

/// Walk the whole tree to `depth`, comparing every node; the leaf count.
fn compare_tree(naive: &Naive, pos: &Position, depth: u32) -> u64 {
    let moves = compare_node(naive, pos);
    if depth <= 1 {
        return if depth == 0 { 1 } else { moves.len() as u64 };
    }
    moves
        .iter()
        .map(|&m| {
            let em = notation::parse_move(&m.text()).unwrap();
            let next = pos
                .play(em)
                .unwrap_or_else(|e| panic!("engine refuses {} in {pos}: {e}", m.text()));
            compare_tree(&naive.play(m), &next, depth - 1)
        })
        .sum()
}

/// Play one random game from `start`, comparing engine and oracle at every ply. The
/// number of plies played and whether the game ended.
fn random_game(start: &Naive, rng: &mut Rng, max_plies: usize) -> (usize, Option<NEnd>) {
    let mut naive = start.clone();
    let mut pos = start.engine();
    for ply in 0..max_plies {
        let moves = compare_node(&naive, &pos);
        if moves.is_empty() {
            return (ply, naive.end());
        }
        // Every naive move is legal for the engine, and gives the same position.
        let m = moves[rng.below(moves.len())];
        let em = notation::parse_move(&m.text()).unwrap();
        assert!(pos.is_legal(em), "{} in {pos}", m.text());
        pos = pos.play(em).unwrap();
        naive = naive.play(m);
    }
    (max_plies, None)
}

// ---------------------------------------------------------------------------------
// The positions
// ---------------------------------------------------------------------------------

/// A hand-made position: a name, the pieces of each colour, the side to move, the hands
/// and the perft depth to compare.
struct Case {
    name: &'static str,
    white: &'static str,
    black: &'static str,
    side: char,
    hands: [u8; 2],
    depth: u32,
}

const CASES: &[Case] = &[
    Case {
        name: "both sliding, each with a mill to close, white to move",
        white: "a7 d7 g4 b4 c4 d2 f2 e3",
        black: "a1 d1 b2 d6 f6 c5 e5 d3",
        side: 'w',
        hands: [0, 0],
        depth: 4,
    },
    Case {
        name: "both sliding, each with a mill to close, black to move",
        white: "a7 d7 g4 b4 c4 d2 f2 e3",
        black: "a1 d1 b2 d6 f6 c5 e5 d3",
        side: 'b',
        hands: [0, 0],
        depth: 4,
    },
    Case {
        name: "white has three and flies (Standard) against seven sliding",
        white: "a7 d7 g1",
        black: "b6 f6 f4 e3 d2 c3 a4",
        side: 'w',
        hands: [0, 0],
        depth: 4,
    },
    Case {
        name: "black slides against white flying, black to move",
        white: "a7 d7 g1",
        black: "b6 f6 f4 e3 d2 c3 a4",
        side: 'b',
        hands: [0, 0],
        depth: 4,
    },
    Case {
        name: "black places while white slides, black to move",
        white: "a7 d7 b4 c4 e3 f2",
        black: "d6 f6 a1 d1",
        side: 'b',
        hands: [0, 3],
        depth: 4,
    },
    Case {
        name: "white slides while black still places, white to move",
        white: "a7 d7 b4 c4 e3 f2",
        black: "d6 f6 a1 d1",
        side: 'w',
        hands: [0, 3],
        depth: 4,
    },
    Case {
        name: "every black piece stands in a mill",
        white: "b6 d6 b2 d2",
        black: "a7 d7 g7 a1 d1 g1",
        side: 'w',
        hands: [2, 1],
        depth: 4,
    },
    Case {
        name: "one black piece outside the mills",
        white: "b6 d6 b2 d2",
        black: "a7 d7 g7 a1 d1 g1 c5",
        side: 'w',
        hands: [2, 1],
        depth: 4,
    },
    Case {
        name: "white is blocked with four",
        white: "a7 g7 g1 a1",
        black: "d7 g4 d1 a4",
        side: 'w',
        hands: [0, 0],
        depth: 4,
    },
    Case {
        name: "white has three, blocked unless it flies",
        white: "a7 g7 g1",
        black: "d7 g4 d1 a4 b6",
        side: 'w',
        hands: [0, 0],
        depth: 4,
    },
    Case {
        name: "black has no piece on the board, only in hand",
        white: "a7 d7",
        black: "",
        side: 'w',
        hands: [4, 3],
        depth: 4,
    },
    Case {
        name: "both fly",
        white: "a7 d7 c3",
        black: "g1 d1 e5",
        side: 'w',
        hands: [0, 0],
        depth: 4,
    },
    Case {
        name: "three on the board with pieces in hand: no flying",
        white: "a7 d7 f4",
        black: "b4 c4 d5 e5 d2",
        side: 'w',
        hands: [2, 0],
        depth: 4,
    },
    Case {
        name: "a double mill by placement",
        white: "a7 g7 d6 d5",
        black: "a1 g1 f4 b2",
        side: 'w',
        hands: [1, 2],
        depth: 4,
    },
    Case {
        name: "white already reduced to two",
        white: "a7 d7",
        black: "a1 d1 g4 b6",
        side: 'b',
        hands: [0, 0],
        depth: 2,
    },
    Case {
        name: "black to move with three, one capture from losing",
        white: "a7 d7 b4 c4 e4 f2 d2",
        black: "g1 d5 e3",
        side: 'w',
        hands: [0, 0],
        depth: 4,
    },
];

fn case_position(c: &Case, v: Variant) -> Naive {
    Naive::from_lists(c.white, c.black, c.side, c.hands, v)
}

// ---------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------

#[test]
fn oracle_board_has_the_shape_of_rules_md() {
    let b = board();
    assert_eq!(b.coords.len(), 24);
    assert_eq!(b.mills.len(), 16);
    let connections: usize = b.adjacent.iter().map(Vec::len).sum::<usize>() / 2;
    assert_eq!(connections, 32);
    for p in 0..24 {
        let lines = b.mills.iter().filter(|m| m.contains(&p)).count();
        assert_eq!(lines, 2, "{} lies on two lines", b.names[p]);
    }
    let named = |a: &str, c: &str| b.adjacent[b.index(a)].contains(&b.index(c));
    assert!(named("a1", "a4") && named("c4", "b4") && named("d6", "d5"));
    assert!(!named("c4", "e4") && !named("d5", "d3") && !named("a1", "b2"));
    let mill = |s: &str| {
        let mut m: Vec<usize> = s.split('-').map(|n| b.index(n)).collect();
        m.sort();
        b.mills.iter().any(|x| {
            let mut x = x.to_vec();
            x.sort();
            x == m
        })
    };
    for m in [
        "a7-d7-g7", "b6-d6-f6", "c5-d5-e5", "a1-a4-a7", "a4-b4-c4", "e4-f4-g4", "d7-d6-d5",
        "d1-d2-d3",
    ] {
        assert!(mill(m), "{m}");
    }
    let shares_a_line = |p: &str, q: &str| {
        let (p, q) = (b.index(p), b.index(q));
        b.mills.iter().any(|m| m.contains(&p) && m.contains(&q))
    };
    assert!(!shares_a_line("c4", "e4") && !shares_a_line("d5", "d3"));
    assert!(shares_a_line("a7", "g7") && !shares_a_line("a7", "b6"));
    // The start position string agrees with the engine's.
    let start = Naive::from_lists("", "", 'w', [9, 9], Variant::Standard);
    assert_eq!(start.fen(), Position::start(Variant::Standard).to_string());
}

#[test]
fn perft_from_the_start_matches_the_oracle_and_the_known_counts() {
    let expected = [24u64, 552, 12144, 255024];
    for v in Variant::ALL {
        let naive = Naive::from_lists("", "", 'w', [9, 9], v);
        let pos = Position::start(v);
        for (d, &n) in expected.iter().enumerate() {
            let depth = d as u32 + 1;
            assert_eq!(perft(&pos, depth), Some(n), "engine perft {depth} ({v})");
            assert_eq!(naive.perft(depth), n, "oracle perft {depth} ({v})");
        }
        // Every node to depth 3, move sets included.
        assert_eq!(compare_tree(&naive, &pos, 3), 12144);
    }
}

#[test]
fn perft_5_from_the_start() {
    for v in Variant::ALL {
        assert_eq!(perft(&Position::start(v), 5), Some(5_140_800), "{v}");
    }
}

/// The hand-made positions test what their names say.
#[test]
fn cases_have_the_features_they_claim() {
    let moves = |name: &str, v: Variant| -> Vec<String> {
        let c = CASES.iter().find(|c| c.name == name).unwrap();
        case_position(c, v)
            .moves()
            .iter()
            .map(NMove::text)
            .collect()
    };
    let has = |ms: &[String], s: &str| ms.iter().any(|m| m == s);
    let std = Variant::Standard;
    let nf = Variant::NoFlying;

    let w = moves(
        "both sliding, each with a mill to close, white to move",
        std,
    );
    assert!(has(&w, "g4-g7xa1") && has(&w, "g4-g7xd6"), "{w:?}");
    let b = moves(
        "both sliding, each with a mill to close, black to move",
        std,
    );
    assert!(b.iter().any(|m| m.starts_with("d6-d5x")), "{b:?}");

    let fly = moves(
        "white has three and flies (Standard) against seven sliding",
        std,
    );
    assert!(has(&fly, "g1-g7xa4") && has(&fly, "a7-c5"), "{fly:?}");
    let slide = moves(
        "white has three and flies (Standard) against seven sliding",
        nf,
    );
    assert!(!has(&slide, "a7-c5") && has(&slide, "g1-g4"), "{slide:?}");

    let place = moves("black places while white slides, black to move", std);
    assert!(has(&place, "b6xe3") && has(&place, "g1xe3") && place.len() > 14);
    let white_slides = moves("white slides while black still places, white to move", std);
    assert!(white_slides.iter().all(|m| m.contains('-')));
    assert!(has(&white_slides, "a7-a4xd6"), "{white_slides:?}");

    let all_in_mills = moves("every black piece stands in a mill", std);
    let takes: BTreeSet<&str> = all_in_mills
        .iter()
        .filter_map(|m| m.strip_prefix("f6x"))
        .collect();
    assert_eq!(takes.len(), 6, "{all_in_mills:?}");
    let one_free = moves("one black piece outside the mills", std);
    assert!(has(&one_free, "f6xc5") && !has(&one_free, "f6xa7"));

    assert!(moves("white is blocked with four", std).is_empty());
    assert!(moves("white has three, blocked unless it flies", nf).is_empty());
    assert!(!moves("white has three, blocked unless it flies", std).is_empty());

    let empty_board = moves("black has no piece on the board, only in hand", std);
    assert!(has(&empty_board, "g7") && empty_board.iter().all(|m| !m.contains('x')));

    let both = moves("both fly", std);
    assert!(has(&both, "c3-g7xe5") && has(&both, "a7-e3"), "{both:?}");
    let no_fly = moves("three on the board with pieces in hand: no flying", std);
    assert!(no_fly.iter().all(|m| !m.contains('-')) && has(&no_fly, "g7xb4"));

    let double = moves("a double mill by placement", std);
    assert_eq!(
        double.iter().filter(|m| m.starts_with("d7")).count(),
        4,
        "a double mill takes one of four pieces: {double:?}"
    );

    assert!(moves("white already reduced to two", std).is_empty());
}

#[test]
fn hand_made_positions_agree_with_the_oracle() {
    for c in CASES {
        for v in Variant::ALL {
            let naive = case_position(c, v);
            let pos = naive.engine();
            let walked = compare_tree(&naive, &pos, c.depth.min(3));
            let depth = c.depth;
            let ours = naive.perft(depth);
            let theirs = perft(&pos, depth);
            assert_eq!(
                theirs,
                Some(ours),
                "perft {depth} of '{}' ({v}): {pos}",
                c.name
            );
            if depth <= 3 {
                assert_eq!(walked, ours, "'{}' ({v})", c.name);
            }
        }
    }
}

#[test]
fn random_games_from_the_start_agree_with_the_oracle() {
    for v in Variant::ALL {
        let start = Naive::from_lists("", "", 'w', [9, 9], v);
        let mut rng = Rng::new(0x5eed_0001 ^ v as u64);
        let mut ended = 0;
        let mut blocked = 0;
        for _ in 0..300 {
            let (_, end) = random_game(&start, &mut rng, 400);
            ended += usize::from(end.is_some());
            blocked += usize::from(matches!(end, Some(NEnd::Blocked(_))));
        }
        eprintln!("{v}: {ended} of 300 ended, {blocked} blocked");
        assert!(ended > 250, "{ended} of 300 ended ({v})");
    }
}

#[test]
fn random_games_from_the_hand_made_positions_agree_with_the_oracle() {
    let mut rng = Rng::new(0x5eed_0002);
    for v in Variant::ALL {
        for c in CASES {
            let start = case_position(c, v);
            for _ in 0..10 {
                random_game(&start, &mut rng, 300);
            }
        }
    }
}

/// Extended positions: random piece placements with random hands, not reachable from
/// the start, compared move for move (the engine answers for every valid position).
#[test]
fn random_set_up_positions_agree_with_the_oracle() {
    let mut rng = Rng::new(0x5eed_0003);
    let (mut two_pieces, mut blocked, mut captures, mut flights) = (0, 0, 0, 0);
    for round in 0..6000 {
        let v = Variant::ALL[round % 2];
        let side = rng.below(2);
        let mut cells = [EMPTY; 24];
        let mut hand = [0u8; 2];
        for color in [WHITE, BLACK] {
            let mut on_board = rng.below(10);
            hand[color] = rng.below(10 - on_board) as u8;
            // Bias towards the interesting cases: empty hands, a crowded board (blocked
            // sides), three pieces for the side to move (flights).
            if rng.below(2) == 0 {
                hand[color] = 0;
            }
            match round % 6 {
                0 | 1 => (on_board, hand[color]) = (7 + rng.below(3), 0),
                2 | 3 if color == side => (on_board, hand[color]) = (3, 0),
                _ => {}
            }
            let mut placed = 0;
            while placed < on_board {
                let p = rng.below(24);
                if cells[p] == EMPTY {
                    cells[p] = color as u8 + 1;
                    placed += 1;
                }
            }
        }
        if round % 6 == 4 {
            // Try to wall in the side to move: its empty neighbours go to the opponent.
            let b = board();
            let mut walled = cells;
            for p in 0..24 {
                if walled[p] == side as u8 + 1 {
                    for &q in &b.adjacent[p] {
                        if walled[q] == EMPTY {
                            walled[q] = (1 - side) as u8 + 1;
                        }
                    }
                }
            }
            let theirs = walled
                .iter()
                .filter(|&&c| c == (1 - side) as u8 + 1)
                .count();
            if theirs <= 9 && hand[side] == 0 {
                cells = walled;
                hand[1 - side] = hand[1 - side].min(9 - theirs as u8);
            }
        }
        let naive = Naive {
            cells,
            hand,
            side,
            flying: v == Variant::Standard,
            pieces: 9,
            per_mill: false,
            protection: 0,
            kind: 0,
        };
        let pos = naive.engine();
        assert_eq!(Naive::from_fen(&pos.to_string(), v), naive);
        compare_tree(&naive, &pos, 2);
        match naive.end() {
            Some(NEnd::TwoPieces(_)) => two_pieces += 1,
            Some(NEnd::Blocked(_)) => blocked += 1,
            None => {}
        }
        let moves = naive.moves();
        captures += usize::from(moves.iter().any(|m| m.take.is_some()));
        flights += usize::from(
            moves
                .iter()
                .any(|m| m.from.is_some_and(|f| !board().adjacent[f].contains(&m.to))),
        );
    }
    // The random set-ups reach every kind of node.
    eprintln!(
        "{two_pieces} reduced, {blocked} blocked, {captures} with captures, {flights} flying"
    );
    assert!(two_pieces > 100 && blocked > 0 && captures > 100 && flights > 100);
}

// ---------------------------------------------------------------------------------
// House rules
// ---------------------------------------------------------------------------------

/// Every house rule the oracle knows on board `kind`: pieces 3 to 12, flying or not, one
/// capture or one per mill (not on the twelve board, where the rules refuse it), the
/// three protection rules.
fn house_rules_on(kind: usize) -> Vec<(u8, bool, bool, u8)> {
    let mut all = Vec::new();
    for pieces in 3..=12 {
        for flying in [true, false] {
            for per_mill in [false, true] {
                if per_mill && kind == 2 {
                    continue;
                }
                for protection in 0..3 {
                    all.push((pieces, flying, per_mill, protection));
                }
            }
        }
    }
    all
}

/// Every house rule on every board, with the board.
fn house_rules() -> Vec<(usize, (u8, bool, bool, u8))> {
    (0..3)
        .flat_map(|kind| house_rules_on(kind).into_iter().map(move |r| (kind, r)))
        .collect()
}

/// What a position's moves exercise of the house rules: moves taking two pieces,
/// mills whose capture is forfeited (every opponent piece in a mill, `protection=full`),
/// and captures of a piece standing in a mill while others do not (`protection=none`).
#[derive(Default, Debug)]
struct Seen {
    double: usize,
    forfeited: usize,
    in_mill_taken: usize,
}

impl Seen {
    fn note(&mut self, naive: &Naive, moves: &[NMove]) {
        let opp = 1 - naive.side;
        let theirs = naive.on_board(opp);
        let b = naive.b();
        let free = theirs
            .iter()
            .filter(|&&p| !Naive::in_mill(b, &naive.cells, p, opp))
            .count();
        for m in moves {
            self.double += usize::from(m.take2.is_some());
            if let Some(t) = m.take {
                self.in_mill_taken +=
                    usize::from(free > 0 && Naive::in_mill(b, &naive.cells, t, opp));
            } else if !theirs.is_empty() {
                let mut cells = naive.cells;
                if let Some(f) = m.from {
                    cells[f] = EMPTY;
                }
                cells[m.to] = naive.side as u8 + 1;
                self.forfeited += usize::from(Naive::in_mill(b, &cells, m.to, naive.side));
            }
        }
    }
}

#[test]
fn every_house_rule_plays_random_games_as_the_oracle_does() {
    let mut rng = Rng::new(0x5eed_0004);
    let mut seen = Seen::default();
    let mut by_board = [0usize; 3];
    for (kind, (pieces, flying, per_mill, protection)) in house_rules() {
        let start = Naive::from_lists("", "", 'w', [pieces; 2], Variant::Standard)
            .house(pieces, flying, per_mill, protection)
            .on(kind);
        assert_eq!(
            start.engine(),
            Position::start(Rules::parse(&start.spec()).unwrap()),
            "{}",
            start.spec()
        );
        for _ in 0..if kind == 0 { 6 } else { 3 } {
            let mut naive = start.clone();
            let mut pos = start.engine();
            for _ in 0..250 {
                let moves = compare_node(&naive, &pos);
                seen.note(&naive, &moves);
                by_board[kind] += moves.len();
                if moves.is_empty() {
                    break;
                }
                let m = moves[rng.below(moves.len())];
                let em = notation::parse_move(&m.text()).unwrap();
                pos = pos.play(em).unwrap_or_else(|e| {
                    panic!("{} refused in {pos} ({}): {e}", m.text(), naive.spec())
                });
                naive = naive.play(m);
            }
        }
    }
    eprintln!("{seen:?}, moves compared by board {by_board:?}");
    assert!(by_board.iter().all(|&n| n > 10_000), "{by_board:?}");
    assert!(seen.double > 100, "{seen:?}");
    assert!(seen.forfeited > 10, "{seen:?}");
    assert!(seen.in_mill_taken > 100, "{seen:?}");
}

/// Set-up positions with crowded boards, where two mills at once, forfeits and
/// captures from mills are common, under every house rule.
#[test]
fn house_rules_on_random_set_up_positions_agree_with_the_oracle() {
    let mut rng = Rng::new(0x5eed_0005);
    let mut seen = Seen::default();
    for (round, (kind, (pieces, flying, per_mill, protection))) in
        house_rules().into_iter().cycle().take(18_000).enumerate()
    {
        let b = board_of(kind);
        let points: Vec<usize> = (0..24).filter(|&p| b.exists[p]).collect();
        let side = rng.below(2);
        let mut cells = [EMPTY; 24];
        let mut hand = [0u8; 2];
        if round % 4 == 3 {
            // The opponent's pieces in whole mills only: a capture is forfeited under
            // protection=full, and may take from a mill under the other rules.
            for _ in 0..1 + rng.below(2) {
                let m = b.mills[rng.below(b.mills.len())];
                let theirs = cells.iter().filter(|&&c| c != EMPTY).count();
                if m.iter().all(|&p| cells[p] == EMPTY) && theirs + 3 <= usize::from(pieces) {
                    m.iter().for_each(|&p| cells[p] = (1 - side) as u8 + 1);
                }
            }
        }
        for color in [WHITE, BLACK] {
            let most = usize::from(pieces).min(12);
            let mut on_board = rng.below(most + 1);
            if round % 4 == 3 && color != side {
                on_board = 0;
            }
            let on_board =
                on_board.min(most - cells.iter().filter(|&&c| c == color as u8 + 1).count());
            let already = cells.iter().filter(|&&c| c == color as u8 + 1).count();
            hand[color] = if round % 2 == 0 {
                0
            } else {
                rng.below(most - on_board - already + 1) as u8
            };
            let mut placed = 0;
            while placed < on_board && points.iter().any(|&p| cells[p] == EMPTY) {
                let p = points[rng.below(points.len())];
                if cells[p] == EMPTY {
                    cells[p] = color as u8 + 1;
                    placed += 1;
                }
            }
        }
        let naive = Naive {
            cells,
            hand,
            side,
            flying,
            pieces,
            per_mill,
            protection,
            kind,
        };
        let pos = naive.engine();
        let moves = compare_node(&naive, &pos);
        seen.note(&naive, &moves);
        for m in moves {
            let em = notation::parse_move(&m.text()).unwrap();
            let next = pos.play(em).unwrap();
            assert_eq!(
                next.to_string(),
                naive.play(m).fen(),
                "{} after {}",
                naive.fen(),
                m.text()
            );
        }
    }
    eprintln!("{seen:?}");
    assert!(
        seen.double > 100 && seen.forfeited > 100 && seen.in_mill_taken > 300,
        "{seen:?}"
    );
}

#[test]
fn house_rule_perft_matches_the_oracle_node_by_node() {
    for (kind, (pieces, flying, per_mill, protection)) in [
        (0, (9, true, true, 0)),
        (0, (9, true, false, 1)),
        (0, (9, false, true, 2)),
        (0, (6, true, true, 1)),
        (0, (12, false, false, 0)),
        (1, (6, false, false, 0)),
        (1, (6, true, true, 2)),
        (2, (12, true, false, 0)),
        (2, (9, false, false, 1)),
    ] {
        let naive = Naive::from_lists("", "", 'w', [pieces; 2], Variant::Standard)
            .house(pieces, flying, per_mill, protection)
            .on(kind);
        let pos = naive.engine();
        // No mill before White's third piece: the first three plies are every order
        // of placements on the board's points.
        let n = board_of(kind).exists.iter().filter(|&&e| e).count() as u64;
        assert_eq!(
            compare_tree(&naive, &pos, 3),
            n * (n - 1) * (n - 2),
            "{}",
            naive.spec()
        );
        for depth in [4, 5] {
            assert_eq!(
                perft(&pos, depth),
                Some(naive.perft(depth)),
                "{} depth {depth}",
                naive.spec()
            );
        }
    }
}

/// Where the other boards act: set-up positions on the six and twelve boards whose
/// first move closes two (or three) mills, or closes one against pieces all standing
/// in mills, compared node by node under every capture and protection rule the board
/// has. Each case names the move it is about and how many legal moves (one per set of
/// pieces taken) that move gives under each rule.
#[test]
fn set_up_positions_of_the_other_boards_agree_with_the_oracle() {
    struct BoardCase {
        kind: usize,
        white: &'static str,
        black: &'static str,
        hands: [u8; 2],
        /// The move from (or placement on) these points, e.g. `a7-b6`.
        from: Option<&'static str>,
        to: &'static str,
        /// Its number of moves for (per_mill, protection) in the order of `rules`.
        expected: &'static [((bool, u8), usize)],
    }
    let cases = [
        // Six board: a placement on a7 closes a7-d7-g7 and a7-a4-a1; Black's two free
        // pieces: one capture takes either, two take both.
        BoardCase {
            kind: 1,
            white: "d7 g7 a4 a1",
            black: "c5 e3",
            hands: [2, 2],
            from: None,
            to: "a7",
            expected: &[
                ((false, 0), 2),
                ((true, 0), 1),
                ((true, 1), 1),
                ((true, 2), 1),
            ],
        },
        // Six board: Black's pieces all stand in the mill c5-d5-e5: protection
        // standard and none take any, then any of the other two; full forfeits.
        BoardCase {
            kind: 1,
            white: "d7 g7 a4 a1",
            black: "c5 d5 e5",
            hands: [2, 1],
            from: None,
            to: "a7",
            expected: &[
                ((false, 0), 3),
                ((false, 2), 1),
                ((true, 0), 3),
                ((true, 1), 3),
                ((true, 2), 1),
            ],
        },
        // Six board: one black piece left on the board: two mills take it alone.
        BoardCase {
            kind: 1,
            white: "d7 g7 a4 a1",
            black: "e3",
            hands: [2, 3],
            from: None,
            to: "a7",
            expected: &[((false, 0), 1), ((true, 0), 1), ((true, 2), 1)],
        },
        // Six board: a slide along a join (d5-d7) closes a7-d7-g7 while every black
        // piece stands in the mill c3-d3-e3.
        BoardCase {
            kind: 1,
            white: "a7 g7 d5",
            black: "c3 d3 e3",
            hands: [0, 0],
            from: Some("d5"),
            to: "d7",
            expected: &[((false, 0), 3), ((false, 1), 3), ((false, 2), 1)],
        },
        // Twelve board: a slide along the diagonal a7-b6 closes b6-d6-f6 and
        // b6-b4-b2 at once, and takes one piece.
        BoardCase {
            kind: 2,
            white: "a7 d6 f6 b4 b2",
            black: "g1 e3 d1 g4",
            hands: [0, 0],
            from: Some("a7"),
            to: "b6",
            expected: &[((false, 0), 4), ((false, 1), 4), ((false, 2), 4)],
        },
        // Twelve board: a placement on b6 closes three mills (two sides and the
        // diagonal a7-b6-c5), and takes one piece.
        BoardCase {
            kind: 2,
            white: "a7 c5 d6 f6 b4 b2",
            black: "g1 e3 d1",
            hands: [1, 4],
            from: None,
            to: "b6",
            expected: &[((false, 0), 3), ((false, 2), 3)],
        },
        // Twelve board: a slide along the diagonal c3-b2 leaves the diagonal's line
        // and closes b2-d2-f2, while every black piece stands in a7-d7-g7.
        BoardCase {
            kind: 2,
            white: "c3 d2 f2 a1",
            black: "g7 d7 a7",
            hands: [0, 0],
            from: Some("c3"),
            to: "b2",
            expected: &[((false, 0), 3), ((false, 2), 1)],
        },
    ];
    for case in &cases {
        let b = board_of(case.kind);
        for &((per_mill, protection), want) in case.expected {
            let naive =
                Naive::from_lists(case.white, case.black, 'w', case.hands, Variant::Standard)
                    .house(9, false, per_mill, protection)
                    .on(case.kind);
            let pos = naive.engine();
            compare_tree(&naive, &pos, 3);
            let to = b.index(case.to);
            let from = case.from.map(|f| b.index(f));
            let got = naive
                .moves()
                .iter()
                .filter(|m| m.to == to && m.from == from)
                .count();
            assert_eq!(
                got,
                want,
                "{} {:?}-{} ({})",
                naive.fen(),
                case.from,
                case.to,
                naive.spec()
            );
        }
    }
}
