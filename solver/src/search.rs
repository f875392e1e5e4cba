//! Negamax search with alpha-beta, iterative deepening and a transposition table that
//! consults the tablebases.
//!
//! Scores are from the side to move. A decided game scores `MATE - plies` for the
//! winner (plies from the root to the end), so a quicker win scores higher and a
//! longer defence lasts; heuristic scores stay within `±EVAL_MAX`. A tablebase hit is
//! an exact leaf: its DTM becomes a mate score. A full state (points, hands, side to
//! move) repeated on the search path, or in the game before the root, scores a draw.
//!
//! Every score carries a *heuristic* flag: set when it rests on an evaluation at the
//! depth horizon or on a repetition. A root score without the flag is exact. A mate
//! score is exact even with the flag set: no heuristic leaf ever scores in the mate
//! band, so a mate score means every line was followed to the end.

use crate::tt::{Bound, Entry, TranspositionTable};
use morris_engine::tables::MILLS;
use morris_engine::{Bitboard, Color, Move, Outcome, Position, Symmetry};
use morris_tablebase::{Tablebase, Value, Wdl};
use std::time::{Duration, Instant};

/// Score of a game won now (at the root); a win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this in absolute value are decided games.
pub const MATE_BOUND: i32 = MATE - 2_000;
/// Heuristic scores stay within this.
pub const EVAL_MAX: i32 = 10_000;
const INF: i32 = MATE + 1;
/// Nodes with at least this much depth left try an enhanced transposition cutoff.
const ETC_DEPTH: i32 = 5;

/// Limits of a search; `None` means no limit.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Largest iteration depth, in plies.
    pub depth: Option<u32>,
    /// Wall-clock time.
    pub time: Option<Duration>,
    /// Nodes.
    pub nodes: Option<u64>,
    /// Prove only whether the side to move wins, draws or loses, not the distance:
    /// the search runs with the window (-1, 1), so any win or loss cuts off at once.
    /// Far fewer nodes, which is what opening positions need.
    pub value_only: bool,
}

/// Where an answer came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Provenance {
    /// The game is already over.
    Terminal,
    /// Read from the tablebases.
    Tablebase,
    /// A search that reached the end of every line (tablebases or finished games).
    Proof,
    /// A search that proved the win or loss, but with lines cut at its horizon: the
    /// distance given is an upper bound.
    ProvenBound,
    /// A depth-limited search: a heuristic estimate.
    Estimate,
    /// A search that proved win, draw or loss without the distance (value only).
    ValueProof,
}

impl Provenance {
    /// A short name for output.
    pub fn name(self) -> &'static str {
        match self {
            Provenance::Terminal => "terminal",
            Provenance::Tablebase => "tablebase",
            Provenance::Proof => "proof search",
            Provenance::ProvenBound => "proof search (result proven, distance an upper bound)",
            Provenance::Estimate => "depth-limited estimate",
            Provenance::ValueProof => "proof search (value only, distance not computed)",
        }
    }

    /// Whether the value is exact, and the distance too where one is given.
    pub fn is_exact(self) -> bool {
        !matches!(self, Provenance::Estimate | Provenance::ProvenBound)
    }
}

/// An exact game value for the side to move: win, draw or loss, and the plies to
/// the end. Unlike a stored tablebase [`Value`], the DTM's parity does not tell the
/// winner: in the placing phase a player can end the game with its own loss (placing
/// its last piece while holding fewer than three).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Verdict {
    /// Win, draw or loss for the side to move.
    pub wdl: Wdl,
    /// Plies to the end of the game under optimal play; `None` for a draw, and for a
    /// value proven without its distance ([`Limits::value_only`]).
    pub dtm: Option<u16>,
}

impl Verdict {
    /// A draw.
    pub const DRAW: Verdict = Verdict {
        wdl: Wdl::Draw,
        dtm: None,
    };
}

impl From<Value> for Verdict {
    fn from(v: Value) -> Verdict {
        Verdict {
            wdl: v.wdl(),
            dtm: v.dtm(),
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.wdl, self.dtm) {
            (Wdl::Win, Some(d)) => write!(f, "win in {d}"),
            (Wdl::Loss, Some(d)) => write!(f, "loss in {d}"),
            (Wdl::Win, None) => f.write_str("win"),
            (Wdl::Loss, None) => f.write_str("loss"),
            (Wdl::Draw, _) => f.write_str("draw"),
        }
    }
}

/// A score turned into a game value, when it is a decided game (mate band).
pub fn score_verdict(score: i32) -> Option<Verdict> {
    if score > MATE_BOUND {
        Some(Verdict {
            wdl: Wdl::Win,
            dtm: Some((MATE - score) as u16),
        })
    } else if score < -MATE_BOUND {
        Some(Verdict {
            wdl: Wdl::Loss,
            dtm: Some((MATE + score) as u16),
        })
    } else {
        None
    }
}

/// The score of a value at `ply` plies from the root.
pub fn value_score(v: Value, ply: usize) -> i32 {
    match (v.wdl(), v.dtm()) {
        (Wdl::Win, Some(d)) => MATE - ply as i32 - i32::from(d),
        (Wdl::Loss, Some(d)) => -(MATE - ply as i32 - i32::from(d)),
        _ => 0,
    }
}

/// Counters of a search.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Nodes visited.
    pub nodes: u64,
    /// Transposition-table probes.
    pub tt_probes: u64,
    /// Probes that found the position.
    pub tt_hits: u64,
    /// Tablebase probes that answered.
    pub tb_hits: u64,
}

/// The answer of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Score for the side to move.
    pub score: i32,
    /// The exact value, when the provenance is exact.
    pub value: Option<Verdict>,
    /// How the answer was obtained.
    pub provenance: Provenance,
    /// Best move, if the game is not over.
    pub best: Option<Move>,
    /// Principal variation from the root.
    pub pv: Vec<Move>,
    /// Depth of the last completed iteration.
    pub depth: u32,
    /// Counters.
    pub stats: Stats,
    /// Time taken.
    pub time: Duration,
}

/// A searcher with its transposition table and the tablebases it may consult.
pub struct Searcher<'a> {
    tb: Option<&'a Tablebase>,
    tt: TranspositionTable,
    killers: Vec<[Option<Move>; 2]>,
    history: [[u32; 24]; 25],
    path: Vec<u64>,
    stats: Stats,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    stopped: bool,
}

/// Heuristic evaluation for the side to move: material (board and hand), lines of
/// two with the third point empty, and mobility.
pub fn evaluate(pos: &Position) -> i32 {
    let side = pos.side_to_move();
    let (us, them, empty) = (pos.us(), pos.them(), pos.empty());
    let material = |c: Color| (pos.pieces(c).count() + u32::from(pos.hand(c))) as i32;
    let open_lines =
        (mill_points(us, empty).count() as i32) - (mill_points(them, empty).count() as i32);
    let mobility =
        (us.neighbours() & empty).count() as i32 - (them.neighbours() & empty).count() as i32;
    let score = 100 * (material(side) - material(side.opponent())) + 12 * open_lines + 3 * mobility;
    score.clamp(-EVAL_MAX, EVAL_MAX)
}

impl<'a> Searcher<'a> {
    /// A searcher with a table of `hash_mb` megabytes.
    pub fn new(tb: Option<&'a Tablebase>, hash_mb: usize) -> Searcher<'a> {
        Searcher {
            tb,
            tt: TranspositionTable::new(hash_mb),
            killers: Vec::new(),
            history: [[0; 24]; 25],
            path: Vec::new(),
            stats: Stats::default(),
            deadline: None,
            node_limit: None,
            stopped: false,
        }
    }

    /// The tablebase value of a position, if a loaded sector covers it.
    pub fn probe(&self, pos: &Position) -> Option<Value> {
        self.tb.and_then(|tb| tb.probe(pos).ok().flatten())
    }

    /// The score of a finished game for its side to move at `ply`.
    fn end_score(pos: &Position, ply: usize) -> Option<i32> {
        pos.end().map(|end| match end.outcome {
            Outcome::Win(c) if c == pos.side_to_move() => MATE - ply as i32,
            Outcome::Win(_) => -(MATE - ply as i32),
            Outcome::Draw => 0,
        })
    }

    /// Search a position. `history` holds the full-state hashes of the game's
    /// positions before it, for repetitions.
    pub fn search(&mut self, pos: &Position, limits: Limits, history: &[u64]) -> SearchResult {
        let clock = Instant::now();
        self.stats = Stats::default();
        self.deadline = limits.time.map(|t| clock + t);
        self.node_limit = limits.nodes;
        self.stopped = false;
        self.path.clear();
        self.path.extend_from_slice(history);
        let done = |score, value, provenance, s: &Self| SearchResult {
            score,
            value,
            provenance,
            best: None,
            pv: Vec::new(),
            depth: 0,
            stats: s.stats,
            time: clock.elapsed(),
        };
        if let Some(score) = Self::end_score(pos, 0) {
            let verdict = score_verdict(score).unwrap_or(Verdict::DRAW);
            return done(score, Some(verdict), Provenance::Terminal, self);
        }
        if let Some(v) = self.probe(pos) {
            let mut r = done(
                value_score(v, 0),
                Some(v.into()),
                Provenance::Tablebase,
                self,
            );
            r.pv = self.tablebase_line(pos, 400);
            r.best = r.pv.first().copied();
            return r;
        }
        let max_depth = limits
            .depth
            .unwrap_or(u32::from(u8::MAX))
            .clamp(1, u32::from(u8::MAX));
        let mut result = done(0, None, Provenance::Estimate, self);
        let (alpha, beta) = if limits.value_only {
            (-1, 1)
        } else {
            (-INF, INF)
        };
        for depth in 1..=max_depth {
            let (score, heuristic) = self.negamax(pos, depth as i32, alpha, beta, 0);
            if self.stopped && depth > 1 {
                break;
            }
            // A mate score proves the result (no heuristic leaf scores in the mate
            // band); its distance is the best possible only if no line was cut at the
            // horizon before it.
            let proven = score.abs() > MATE_BOUND;
            let exact = !heuristic || (proven && MATE - score.abs() <= depth as i32);
            result.score = score;
            result.depth = depth;
            result.provenance = match (exact, proven) {
                (true, _) => Provenance::Proof,
                (false, true) => Provenance::ProvenBound,
                (false, false) => Provenance::Estimate,
            };
            result.value = match (exact, proven) {
                (true, _) => Some(score_verdict(score).unwrap_or(Verdict::DRAW)),
                (false, true) => score_verdict(score),
                (false, false) => None,
            };
            result.pv = self.principal_variation(pos, depth as usize + 1);
            result.best = result.pv.first().copied();
            if limits.value_only && (proven || exact) {
                // Only the value is proven: the root move that proved it (a win or a
                // draw kept; for a loss any move), without a line.
                let wdl = match score {
                    s if s > 0 => Wdl::Win,
                    s if s < 0 => Wdl::Loss,
                    _ => Wdl::Draw,
                };
                result.value = Some(Verdict { wdl, dtm: None });
                result.provenance = Provenance::ValueProof;
                result.pv.truncate(1);
                break;
            }
            if exact || self.stopped {
                break;
            }
        }
        if result.best.is_none() {
            // Stopped before the first iteration stored anything: any legal move.
            result.best = pos.legal_moves().first().copied();
        }
        if matches!(result.provenance, Provenance::Proof) {
            // Extend an exact line through the tablebases to the end of the game.
            let end = result.pv.iter().fold(*pos, |p, &m| p.play_unchecked(m));
            let tail = self.tablebase_line(&end, 400);
            result.pv.extend(tail);
        }
        result.stats = self.stats;
        result.time = clock.elapsed();
        result
    }

    /// Every move of a covered position that keeps its tablebase value (all the best
    /// moves); empty when the position is not covered.
    pub fn tablebase_best_moves(&self, pos: &Position) -> Vec<Move> {
        let Some(v) = self.probe(pos) else {
            return Vec::new();
        };
        let target = value_score(v, 0);
        pos.legal_moves()
            .iter()
            .copied()
            .filter(|&m| self.child_score(pos, m) == Some(target))
            .collect()
    }

    /// The exact score of the position after `m`, for the side that plays it, when the
    /// game ends or a tablebase covers it.
    fn child_score(&self, pos: &Position, m: Move) -> Option<i32> {
        let next = pos.play_unchecked(m);
        Self::end_score(&next, 1)
            .or_else(|| self.probe(&next).map(|cv| value_score(cv, 1)))
            .map(|s| -s)
    }

    /// The best line by the tablebases alone, from a covered position, until the game
    /// ends, a position is not covered, or `max` plies.
    pub fn tablebase_line(&self, pos: &Position, max: usize) -> Vec<Move> {
        let mut line = Vec::new();
        let mut pos = *pos;
        let mut seen = vec![pos.repetition_key()];
        while line.len() < max && pos.end().is_none() {
            let Some(v) = self.probe(&pos) else { break };
            let target = value_score(v, 0);
            let best = pos
                .legal_moves()
                .iter()
                .copied()
                .find(|&m| self.child_score(&pos, m) == Some(target));
            let Some(m) = best else { break };
            line.push(m);
            pos = pos.play_unchecked(m);
            // A drawn line goes on forever: stop at the first repetition.
            if v.wdl() == Wdl::Draw && seen.contains(&pos.repetition_key()) {
                break;
            }
            seen.push(pos.repetition_key());
        }
        line
    }

    fn principal_variation(&self, pos: &Position, max: usize) -> Vec<Move> {
        let mut line = Vec::new();
        let mut pos = *pos;
        let mut seen = vec![pos.hash()];
        while line.len() < max && pos.end().is_none() && self.probe(&pos).is_none() {
            let (key, sym) = table_key(&pos);
            let Some(m) = self.tt.probe(key).and_then(|e| e.best) else {
                break;
            };
            let m = m.transformed(sym.inverse());
            if !pos.is_legal(m) {
                break;
            }
            line.push(m);
            pos = pos.play_unchecked(m);
            if seen.contains(&pos.hash()) {
                break;
            }
            seen.push(pos.hash());
        }
        line
    }

    fn out_of_budget(&mut self) -> bool {
        if self.stats.nodes & 255 == 0 {
            let time_up = self.deadline.is_some_and(|d| Instant::now() >= d);
            let nodes_up = self.node_limit.is_some_and(|n| self.stats.nodes >= n);
            self.stopped |= time_up || nodes_up;
        }
        self.stopped
    }

    /// Score of `pos` for its side to move, and whether it rests on a heuristic.
    fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
    ) -> (i32, bool) {
        self.stats.nodes += 1;
        if ply > 0 && self.out_of_budget() {
            return (0, true);
        }
        if let Some(score) = Self::end_score(pos, ply) {
            return (score, false);
        }
        let key = pos.hash();
        if ply > 0 && self.path.contains(&key) {
            return (0, true);
        }
        if let Some(v) = self.probe(pos) {
            self.stats.tb_hits += 1;
            return (value_score(v, ply), false);
        }
        if depth <= 0 {
            return (evaluate(pos), true);
        }
        // No score can beat a win now or lose faster than a loss now.
        alpha = alpha.max(-(MATE - ply as i32));
        beta = beta.min(MATE - ply as i32 - 1);
        if alpha >= beta {
            return (alpha, false);
        }
        self.stats.tt_probes += 1;
        let (tt_key, sym) = table_key(pos);
        let entry = self.tt.probe(tt_key);
        let mut tt_move = None;
        if let Some(e) = entry {
            self.stats.tt_hits += 1;
            tt_move = e.best.map(|m| m.transformed(sym.inverse()));
            // An exact (not heuristic) score holds at any depth.
            if ply > 0 && (i32::from(e.depth) >= depth || !e.heuristic) {
                let s = from_tt(e.score, ply);
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if usable {
                    return (s, e.heuristic);
                }
            }
        }
        let mut moves = pos.legal_moves();
        if depth >= ETC_DEPTH {
            if let Some((s, m, h)) = self.transposition_cutoff(pos, &moves, depth, beta, ply) {
                let entry = table_entry(s, ply, depth, Bound::Lower, h, Some(m), sym);
                self.tt.store(tt_key, entry);
                return (s, h);
            }
        }
        let mut keys = [0u32; morris_engine::MAX_MOVES];
        let keys = &mut keys[..moves.len()];
        self.order_keys(pos, &moves, tt_move, ply, keys);
        let original_alpha = alpha;
        let (mut best, mut best_move, mut heuristic) = (-INF, None, false);
        self.path.push(key);
        for i in 0..moves.len() {
            pick(&mut moves, keys, i);
            let m = moves[i];
            let child = pos.play_unchecked(m);
            let (s, h) = self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
            let s = -s;
            heuristic |= h;
            if s > best {
                best = s;
                best_move = Some(m);
            }
            if s > alpha {
                alpha = s;
            }
            if alpha >= beta {
                if m.capture().is_none() {
                    self.remember_cutoff(m, ply, depth);
                }
                break;
            }
            if self.stopped {
                break;
            }
        }
        self.path.pop();
        if !self.stopped {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > original_alpha {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let entry = table_entry(best, ply, depth, bound, heuristic, best_move, sym);
            self.tt.store(tt_key, entry);
        }
        (best, heuristic)
    }

    /// Enhanced transposition cutoff: a move whose position the table already shows
    /// to be worth at least `beta` to us cuts the node off before any search.
    /// Returns the score, the move and the heuristic flag.
    fn transposition_cutoff(
        &mut self,
        pos: &Position,
        moves: &[Move],
        depth: i32,
        beta: i32,
        ply: usize,
    ) -> Option<(i32, Move, bool)> {
        for &m in moves {
            let child = pos.play_unchecked(m);
            if child.end().is_some() || self.path.contains(&child.hash()) {
                continue;
            }
            let (key, _) = table_key(&child);
            let Some(e) = self.tt.probe(key) else {
                continue;
            };
            // The child's upper bound is our lower bound.
            let s = -from_tt(e.score, ply + 1);
            let deep = i32::from(e.depth) >= depth - 1 || !e.heuristic;
            if deep && matches!(e.bound, Bound::Upper | Bound::Exact) && s >= beta {
                return Some((s, m, e.heuristic));
            }
        }
        None
    }

    fn remember_cutoff(&mut self, m: Move, ply: usize, depth: i32) {
        if self.killers.len() <= ply {
            self.killers.resize(ply + 1, [None; 2]);
        }
        let k = &mut self.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
        let from = m.from().map_or(24, |p| p.index());
        let h = &mut self.history[from][m.to().index()];
        *h = h.saturating_add((depth * depth) as u32);
    }

    /// Sort keys of moves: hash move, captures, moves that block an opponent mill,
    /// killers, then history.
    fn order_keys(
        &self,
        pos: &Position,
        moves: &[Move],
        tt_move: Option<Move>,
        ply: usize,
        keys: &mut [u32],
    ) {
        let threats = mill_points(pos.them(), pos.empty());
        let killers = self.killers.get(ply).copied().unwrap_or([None; 2]);
        for (k, &m) in keys.iter_mut().zip(moves) {
            *k = if Some(m) == tt_move {
                u32::MAX
            } else {
                let from = m.from().map_or(24, |p| p.index());
                let mut k = self.history[from][m.to().index()].min((1 << 24) - 1);
                if m.capture().is_some() {
                    k |= 1 << 30;
                }
                if threats.contains(m.to()) {
                    k |= 1 << 29;
                }
                if killers.contains(&Some(m)) {
                    k |= 1 << 28;
                }
                k
            };
        }
    }
}

/// The empty points that would close a mill for `own`.
fn mill_points(own: Bitboard, empty: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for m in MILLS {
        let missing = m & !own;
        if missing.count() == 1 && (missing & empty) == missing {
            out |= missing;
        }
    }
    out
}

/// Move the best remaining move (by key) to position `i`: a selection sort done
/// lazily, since most nodes cut off after their first moves.
fn pick(moves: &mut [Move], keys: &mut [u32], i: usize) {
    let mut best = i;
    for j in i + 1..moves.len() {
        if keys[j] > keys[best] {
            best = j;
        }
    }
    moves.swap(i, best);
    keys.swap(i, best);
}

/// The table entry of a node searched at `ply` with `depth` left: the score made
/// independent of the ply, the best move put in the frame of the key (`sym` maps the
/// position to its key's position).
fn table_entry(
    score: i32,
    ply: usize,
    depth: i32,
    bound: Bound,
    heuristic: bool,
    best: Option<Move>,
    sym: Symmetry,
) -> Entry {
    Entry {
        score: to_tt(score, ply),
        depth: depth.clamp(0, 255) as u8,
        bound,
        heuristic,
        best: best.map(|m| m.transformed(sym)),
    }
}

/// The transposition-table key of a position, and the symmetry that maps it onto the
/// frame its entry's move is stored in. While pieces remain in hand, positions equal up
/// to a symmetry of the board share one entry: the placing phase is full of such
/// transpositions (the search of the empty board meets each class up to 16 times).
/// Afterwards the plain hash: there they are rare and canonicalising costs more.
fn table_key(pos: &Position) -> (u64, Symmetry) {
    if pos.pieces_in_hand() {
        let (canonical, sym) = pos.canonical();
        (canonical.hash(), sym)
    } else {
        (pos.hash(), Symmetry::IDENTITY)
    }
}

/// Mate scores are stored relative to the node, so they stay right when the same
/// position is met at another ply.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}
