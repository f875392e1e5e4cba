//! Negamax search with alpha-beta, iterative deepening and a transposition table that
//! consults the tablebases.
//!
//! A tablebase hit is an exact leaf: its DTM becomes a mate score. A full state
//! (points, hands, side to move) repeated on the search path, or in the game before
//! the root, scores a draw.
//!
//! Every score carries a *heuristic* flag: set when it rests on an evaluation at the
//! depth horizon or on a repetition. A root score without the flag is exact. A mate
//! score is exact even with the flag set: no heuristic leaf ever scores in the mate
//! band, so a mate score means every line was followed to the end.
//!
//! A search stops early on its limits or on an error of the tablebases; it then
//! unwinds without storing the nodes it left unfinished, and an error is returned
//! instead of any answer.

use crate::error::SearchError;
use crate::eval::evaluate;
use crate::ordering::{self, pick};
use crate::score::{end_score, from_node, score_verdict, to_node, Verdict, INF, MATE, MATE_BOUND};
use crate::strategy::Strategy;
use crate::tablebase::{ClassInfo, Tablebases, TbScore};
use crate::tt::{self, Bound, Entry, TableError, TranspositionTable};
use morris_engine::{Color, Move, MoveList, Position, Symmetry, MAX_MOVES};
use morris_tablebase::{Tablebase, Wdl};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Nodes with at least this much depth left try an enhanced transposition cutoff.
const ETC_DEPTH: i32 = 5;

/// The share of the time left that the value pass of a placing position may take
/// before the search for the distance (see [`Searcher::search`]).
const VALUE_PASS_SHARE: f64 = 0.75;

/// When the time of `limits` runs out, for a search begun at `clock`; `None` for no
/// time limit (or one too long to reach).
fn deadline(limits: Limits, clock: Instant) -> Option<Instant> {
    limits
        .time
        .and_then(|t| limits.start.unwrap_or(clock).checked_add(t))
}

/// Limits of a search; `None` means no limit.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Largest iteration depth, in plies.
    pub depth: Option<u32>,
    /// Wall-clock time; one too long to reach is no limit.
    pub time: Option<Duration>,
    /// When the time began to run [default: when the search starts]: a command
    /// counts its own setup (opening files, allocating the table) this way.
    pub start: Option<Instant>,
    /// Nodes.
    pub nodes: Option<u64>,
    /// Prove only whether the side to move wins, draws or loses, not the distance:
    /// the search runs with the window (-1, 1), so any win or loss cuts off at once.
    /// Far fewer nodes, which is what opening positions need.
    pub value_only: bool,
    /// Threads searching together over the one table (lazy SMP); 0 counts as 1. The
    /// answer is the same; the node count, summed over the threads, varies from run
    /// to run with more than one, and the node limit holds for each thread.
    pub threads: usize,
    /// Leave out the line (the walk through the tablebases to the end of the game
    /// that an exact answer otherwise brings): for callers that want the value
    /// alone, like the analysis of every move, which saves most of its time there.
    pub no_line: bool,
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
    /// Slots of the transposition table in use at the end, per thousand.
    pub table_fill: usize,
}

impl Stats {
    /// Transposition-table probes that found the position, in percent.
    pub fn hit_rate(&self) -> f64 {
        100.0 * self.tt_hits as f64 / self.tt_probes.max(1) as f64
    }
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
    /// Time the search took (from its call, setup before it not included).
    pub time: Duration,
}

/// A searcher with its transposition table and the tablebases it may consult.
pub struct Searcher<'a> {
    tb: Tablebases<'a>,
    tt: TranspositionTable,
    /// Raised from outside (an engine's `stop`): every search ends as soon as its
    /// workers see it, with the last completed iteration.
    external_stop: Option<Arc<AtomicBool>>,
}

/// One thread of a search: its path, counters and limits, over the shared table.
///
/// Every worker runs the same iterative deepening over the same table (lazy SMP); the
/// helpers (`id > 0`) start the first two plies from other moves, so that they store
/// what the main line will want soon instead of following it. The first worker to
/// finish answers and raises `stop` for the others.
struct Worker<'s> {
    tb: &'s Tablebases<'s>,
    tt: &'s TranspositionTable,
    id: usize,
    threads: usize,
    path: Vec<u64>,
    stats: Stats,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    /// Raised by the first worker to finish.
    stop: &'s AtomicBool,
    /// Raised from outside ([`Searcher::set_stop`]).
    external_stop: Option<&'s AtomicBool>,
    stopped: bool,
    /// The first error met; it stops the search.
    failure: Option<SearchError>,
    /// Move lists not in use, one for each ply searched so far.
    spare: Vec<Box<Scratch>>,
}

/// A node's moves and their ordering keys.
struct Scratch {
    moves: MoveList,
    keys: [u32; MAX_MOVES],
}

impl Default for Scratch {
    fn default() -> Scratch {
        Scratch {
            moves: MoveList::new(),
            keys: [0; MAX_MOVES],
        }
    }
}

impl<'a> Searcher<'a> {
    /// A searcher with a table of `hash_mb` megabytes.
    ///
    /// # Errors
    /// [`TableError`] when the table cannot be allocated.
    pub fn new(tb: Option<&'a Tablebase>, hash_mb: usize) -> Result<Searcher<'a>, TableError> {
        Ok(Searcher {
            tb: Tablebases::new(tb),
            tt: TranspositionTable::new(hash_mb)?,
            external_stop: None,
        })
    }

    /// Let `stop` end this searcher's searches: whoever holds it raises it, and a
    /// running search returns within a few hundred nodes with the result of its last
    /// completed iteration (as on its time limit). The flag is never lowered here:
    /// its owner lowers it before the next search.
    pub fn set_stop(&mut self, stop: Arc<AtomicBool>) {
        self.external_stop = Some(stop);
    }

    /// Search a position. `history` holds the full-state hashes of the game's
    /// positions before it, for repetitions.
    ///
    /// # Errors
    /// [`SearchError`] when a tablebase file it reads is damaged.
    pub fn search(
        &mut self,
        pos: &Position,
        limits: Limits,
        history: &[u64],
    ) -> Result<SearchResult, SearchError> {
        let clock = Instant::now();
        self.tt.new_search();
        if let Some(r) = self.known(pos, limits, history)? {
            return Ok(r);
        }
        // While placing, with tables to reach, the value comes first (value only, to
        // the end of the placing phase): a draw has no distance to search, and the
        // distance of a win or loss is then searched with the window of its mate band,
        // where every move that does not keep the value fails at once.
        let mut window = if limits.value_only {
            (-1, 1)
        } else {
            (-INF, INF)
        };
        let mut known = None;
        // The counters of a value pass that did not decide the search.
        let mut earlier = Stats::default();
        let hands = u32::from(pos.hand(Color::White) + pos.hand(Color::Black));
        if !limits.value_only
            && hands > 0
            && self.tb.reaches_movement(pos)
            && limits.depth.is_none_or(|d| d >= hands)
        {
            // The value pass cannot stop half way with anything to show (its one
            // iteration reaches the end of the placing phase), so it gets at most
            // `VALUE_PASS_SHARE` of the time left: when it cannot finish, the search
            // for the distance still has the rest to deepen over, and what the value
            // pass stored in the table helps it there. Without the movement tables
            // where the placing phase ends it could not prove anything: not tried.
            let time = deadline(limits, clock).map(|d| {
                let left = d.saturating_duration_since(Instant::now());
                left.mul_f64(VALUE_PASS_SHARE)
            });
            let value_only = Limits {
                value_only: true,
                depth: Some(hands),
                time,
                start: None,
                ..limits
            };
            let v = self.run(pos, value_only, (-1, 1), history, Instant::now())?;
            match v.value.map(|v| v.wdl) {
                Some(_) if v.provenance != Provenance::ValueProof => earlier = v.stats,
                Some(Wdl::Draw) => {
                    let mut r = v;
                    r.provenance = Provenance::Proof;
                    r.value = Some(Verdict::DRAW);
                    r.pv = table_line(&self.tb, &self.tt, pos, hands as usize + 1)?;
                    r.best = r.pv.first().copied().or(r.best);
                    return self.finish(pos, r, Stats::default(), clock, !limits.no_line);
                }
                Some(Wdl::Win) => {
                    window = (MATE_BOUND, INF);
                    known = Some(v);
                }
                Some(Wdl::Loss) => {
                    window = (-INF, -MATE_BOUND);
                    known = Some(v);
                }
                // Stopped at its share of the time: the search below has the rest.
                None => earlier = v.stats,
            }
        }
        let r = self.run(pos, limits, window, history, clock)?;
        match known {
            // Stopped before the distance was found: the value proven is the answer.
            Some(v) if r.provenance == Provenance::Estimate => {
                let nodes = r.stats;
                self.finish(pos, v, nodes, clock, !limits.no_line)
            }
            Some(v) => self.finish(pos, r, v.stats, clock, !limits.no_line),
            None => self.finish(pos, r, earlier, clock, !limits.no_line),
        }
    }

    /// The answer that needs no search, if there is one: a finished game, a position
    /// the tablebases hold (with its line through them unless `limits.no_line`), or,
    /// for a search of the value alone, a win or loss that a file without distances
    /// gives (with a move that keeps it). `history` holds the full-state hashes of
    /// the game's positions before `pos` (ultra-strong play avoids them in a draw).
    ///
    /// # Errors
    /// [`SearchError`] when a tablebase file it reads is damaged.
    pub fn known(
        &self,
        pos: &Position,
        limits: Limits,
        history: &[u64],
    ) -> Result<Option<SearchResult>, SearchError> {
        let clock = Instant::now();
        let done = |score, value, provenance| SearchResult {
            score,
            value,
            provenance,
            best: None,
            pv: Vec::new(),
            depth: 0,
            stats: Stats::default(),
            time: clock.elapsed(),
        };
        if let Some(score) = end_score(pos, 0) {
            let verdict = score_verdict(score).unwrap_or(Verdict::DRAW);
            return Ok(Some(done(score, Some(verdict), Provenance::Terminal)));
        }
        let root = self.tb.probe(pos, 0)?;
        if let Some(TbScore::Exact(score)) = root {
            let verdict = score_verdict(score).unwrap_or(Verdict::DRAW);
            let mut r = done(score, Some(verdict), Provenance::Tablebase);
            if !limits.no_line {
                r.pv = self.tb.line(pos, 400, history)?;
                r.best = r.pv.first().copied();
            }
            return Ok(Some(r));
        }
        // A win/draw/loss file without distances answers a search for the value alone.
        if limits.value_only {
            let wdl = match root {
                Some(TbScore::AtLeast(bound)) => Some((Wdl::Win, bound)),
                Some(TbScore::AtMost(bound)) => Some((Wdl::Loss, bound)),
                _ => None,
            };
            if let Some((wdl, score)) = wdl {
                let verdict = Verdict { wdl, dtm: None };
                let mut r = done(score, Some(verdict), Provenance::Tablebase);
                r.stats.nodes = 1;
                // A move that keeps the win: one to a lost position (any move keeps a
                // loss).
                for &m in pos.legal_moves().iter() {
                    let next = pos.play_unchecked(m);
                    let score = match end_score(&next, 1) {
                        Some(s) => Some(s),
                        // Known to be below zero, or nothing.
                        None => self.tb.probe(&next, 1)?.and_then(|t| t.within(-1, INF)),
                    };
                    let lost = score.is_some_and(|s| s < 0);
                    if wdl == Wdl::Loss || lost {
                        r.best = Some(m);
                        r.pv = vec![m];
                        break;
                    }
                }
                return Ok(Some(r));
            }
        }
        Ok(None)
    }

    /// The line of an exact answer extended through the tablebases (if `line`), the counters of an
    /// earlier pass added, the time taken.
    fn finish(
        &self,
        pos: &Position,
        mut result: SearchResult,
        earlier: Stats,
        clock: Instant,
        line: bool,
    ) -> Result<SearchResult, SearchError> {
        if line && matches!(result.provenance, Provenance::Proof) {
            // Extend an exact line through the tablebases to the end of the game.
            let end = result.pv.iter().fold(*pos, |p, &m| p.play_unchecked(m));
            let tail = self.tb.line(&end, 400, &[])?;
            result.pv.extend(tail);
        }
        result.stats.nodes += earlier.nodes;
        result.stats.tt_probes += earlier.tt_probes;
        result.stats.tt_hits += earlier.tt_hits;
        result.stats.tb_hits += earlier.tb_hits;
        result.stats.table_fill = self.tt.fill_permille();
        result.time = clock.elapsed();
        Ok(result)
    }

    /// Iterative deepening on `limits.threads` threads over the table, searching with
    /// `window`: the answer of the first to finish, with the counters of all.
    fn run(
        &self,
        pos: &Position,
        limits: Limits,
        window: (i32, i32),
        history: &[u64],
        clock: Instant,
    ) -> Result<SearchResult, SearchError> {
        let threads = limits.threads.max(1);
        let deadline = deadline(limits, clock);
        let stop = AtomicBool::new(false);
        let answer = Mutex::new(None);
        let total = Mutex::new(Stats::default());
        let (tb, tt) = (&self.tb, &self.tt);
        let external_stop = self.external_stop.as_deref();
        let run = |id: usize| {
            let mut worker = Worker {
                tb,
                tt,
                id,
                threads,
                path: history.to_vec(),
                stats: Stats::default(),
                deadline,
                node_limit: limits.nodes,
                stop: &stop,
                external_stop,
                stopped: false,
                failure: None,
                spare: Vec::new(),
            };
            let r = worker.iterate(pos, limits, window, clock);
            // The first to finish answers; the others stop as soon as they see it, so
            // the answer is in before the flag is raised (the others' unfinished
            // iterations must never be taken for it).
            lock(&answer).get_or_insert(r);
            stop.store(true, Relaxed);
            let mut total = lock(&total);
            total.nodes += worker.stats.nodes;
            total.tt_probes += worker.stats.tt_probes;
            total.tt_hits += worker.stats.tt_hits;
            total.tb_hits += worker.stats.tb_hits;
        };
        std::thread::scope(|scope| {
            for id in 1..threads {
                scope.spawn(move || run(id));
            }
            run(0);
        });
        let answer = answer.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut result = answer.unwrap_or_else(|| {
            Ok(SearchResult {
                score: evaluate(pos),
                value: None,
                provenance: Provenance::Estimate,
                best: pos.legal_moves().first().copied(),
                pv: Vec::new(),
                depth: 0,
                stats: Stats::default(),
                time: clock.elapsed(),
            })
        })?;
        result.stats = total.into_inner().unwrap_or_else(|e| e.into_inner());
        Ok(result)
    }

    /// Choose among value-keeping moves by `strategy` from now on (the default is
    /// [`Strategy::Ultra`], which is perfect play with traps where no class file is).
    pub fn set_strategy(&mut self, strategy: Strategy) {
        self.tb.strategy = strategy;
    }

    /// The strategy among value-keeping moves.
    pub fn strategy(&self) -> Strategy {
        self.tb.strategy
    }

    /// The draw class of a drawn position the tables cover, and where ultra-strong
    /// play from it settles; `None` when it is decided or has no class.
    ///
    /// # Errors
    /// [`SearchError`] when a value file it reads is damaged.
    pub fn class_info(&self, pos: &Position) -> Result<Option<ClassInfo>, SearchError> {
        self.tb.class_info(pos)
    }

    /// The first damaged class file met so far (ultra-strong play then falls back to
    /// plain perfect play in its sector), as a message naming it.
    pub fn class_failure(&self) -> Option<String> {
        self.tb.class_failure()
    }

    /// Every move of a covered position that keeps its tablebase value (all the best
    /// moves), best first under the strategy; empty when the position is not covered.
    ///
    /// # Errors
    /// [`SearchError`] when a tablebase file it reads is damaged.
    pub fn tablebase_best_moves(&self, pos: &Position) -> Result<Vec<Move>, SearchError> {
        self.tb.best_moves(pos)
    }

    /// The best line by the tablebases alone, from a covered position, until the game
    /// ends, a position is not covered, or `max` plies.
    ///
    /// # Errors
    /// [`SearchError`] when a tablebase file it reads is damaged.
    pub fn tablebase_line(&self, pos: &Position, max: usize) -> Result<Vec<Move>, SearchError> {
        self.tb.line(pos, max, &[])
    }
}

impl Worker<'_> {
    /// Iterative deepening from `pos` until exact, a limit, or another worker's
    /// answer: the result of the last completed iteration.
    fn iterate(
        &mut self,
        pos: &Position,
        limits: Limits,
        (alpha, beta): (i32, i32),
        clock: Instant,
    ) -> Result<SearchResult, SearchError> {
        let max_depth = limits
            .depth
            .unwrap_or(u32::from(u8::MAX))
            .clamp(1, u32::from(u8::MAX));
        // Until an iteration completes, the static evaluation is the estimate.
        let mut result = SearchResult {
            score: evaluate(pos),
            value: None,
            provenance: Provenance::Estimate,
            best: None,
            pv: Vec::new(),
            depth: 0,
            stats: Stats::default(),
            time: clock.elapsed(),
        };
        // A value-only search from the placing phase starts at the depth where every
        // line reaches the end of it (and the movement tables): the shallower
        // iterations end in heuristic leaves and, with the static move order, cost
        // more than the order they teach (6+6 Standard: 0.88 M nodes with them,
        // 0.35 M without).
        let first = if limits.value_only {
            u32::from(pos.hand(Color::White) + pos.hand(Color::Black)).clamp(1, max_depth)
        } else {
            1
        };
        for depth in first..=max_depth {
            let (score, heuristic) = self.negamax(pos, depth as i32, alpha, beta, 0);
            if let Some(e) = self.failure.take() {
                return Err(e);
            }
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
            result.pv = self.principal_variation(pos, depth as usize + 1)?;
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
        Ok(result)
    }

    /// The line the table holds from `pos` (see [`table_line`]).
    fn principal_variation(&self, pos: &Position, max: usize) -> Result<Vec<Move>, SearchError> {
        table_line(self.tb, self.tt, pos, max)
    }

    fn out_of_budget(&mut self) -> bool {
        if self.stats.nodes & 255 == 0 {
            let time_up = self.deadline.is_some_and(|d| Instant::now() >= d);
            let nodes_up = self.node_limit.is_some_and(|n| self.stats.nodes >= n);
            let external = self.external_stop.is_some_and(|s| s.load(Relaxed));
            self.stopped |= time_up || nodes_up || external || self.stop.load(Relaxed);
        }
        self.stopped
    }

    /// Stop the search on an error, keeping the first; the score returned is never
    /// used.
    fn fail(&mut self, e: SearchError) -> (i32, bool) {
        self.failure.get_or_insert(e);
        self.stopped = true;
        (0, true)
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
        if let Some(score) = end_score(pos, ply) {
            return (score, false);
        }
        let key = pos.hash();
        if ply > 0 && self.path.contains(&key) {
            return (0, true);
        }
        // A value without its distance cuts like a table entry's bound when it can
        // (always, in a search for the value alone); otherwise the search goes on
        // below it as if the table were absent.
        match self.tb.probe_cut(pos, ply, alpha, beta) {
            Ok(Some(score)) => {
                self.stats.tb_hits += 1;
                return (score, false);
            }
            Ok(None) => {}
            Err(e) => return self.fail(e),
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
        let (tt_key, sym) = tt::key(pos);
        let entry = self.tt.probe(tt_key);
        let mut tt_move = None;
        if let Some(e) = entry {
            self.stats.tt_hits += 1;
            tt_move = e.best.map(|m| m.transformed(sym.inverse()));
            // An exact (not heuristic) score holds at any depth.
            if ply > 0 && (i32::from(e.depth) >= depth || !e.heuristic) {
                let s = from_node(e.score, ply);
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
        // The moves and their keys go into spare lists of the worker (one a ply is
        // out at a time): no list is cleared or copied at a node.
        let mut scratch = self.spare.pop().unwrap_or_default();
        let Scratch { moves, keys } = &mut *scratch;
        pos.legal_moves_into(moves);
        if depth >= ETC_DEPTH {
            if let Some((s, m, h)) = self.transposition_cutoff(pos, moves, depth, beta, ply) {
                let entry = table_entry(s, ply, depth, Bound::Lower, h, Some(m), sym);
                self.tt.store(tt_key, entry);
                self.spare.push(scratch);
                return (s, h);
            }
        }
        let keys = &mut keys[..moves.len()];
        ordering::keys(pos, moves, tt_move, keys);
        if self.id > 0 && ply < 2 {
            let by = moves.len() * self.id / self.threads;
            ordering::rotate(moves, keys, by);
        }
        let original_alpha = alpha;
        let (mut best, mut best_move, mut heuristic) = (-INF, None, false);
        self.path.push(key);
        for i in 0..moves.len() {
            pick(moves, keys, i);
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
                break;
            }
            if self.stopped {
                break;
            }
        }
        self.path.pop();
        self.spare.push(scratch);
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
            let (key, _) = tt::key(&child);
            let Some(e) = self.tt.probe(key) else {
                continue;
            };
            // The child's upper bound is our lower bound.
            let s = -from_node(e.score, ply + 1);
            let deep = i32::from(e.depth) >= depth - 1 || !e.heuristic;
            if deep && matches!(e.bound, Bound::Upper | Bound::Exact) && s >= beta {
                return Some((s, m, e.heuristic));
            }
        }
        None
    }
}

/// The line the table holds from `pos`, until a tablebase position, the end of the
/// game, a repetition or `max` plies.
fn table_line(
    tb: &Tablebases<'_>,
    tt: &TranspositionTable,
    pos: &Position,
    max: usize,
) -> Result<Vec<Move>, SearchError> {
    let mut line = Vec::new();
    let mut pos = *pos;
    let mut seen = vec![pos.hash()];
    while line.len() < max && pos.end().is_none() && tb.score(&pos, 0)?.is_none() {
        let (key, sym) = tt::key(&pos);
        let Some(m) = tt.probe(key).and_then(|e| e.best) else {
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
    Ok(line)
}

/// The value behind a lock, even if a thread panicked while holding it (the values
/// kept there are whole at every step).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
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
        score: to_node(score, ply),
        depth: depth.clamp(0, 255) as u8,
        bound,
        heuristic,
        best: best.map(|m| m.transformed(sym)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use morris_engine::Variant;
    use std::sync::mpsc;

    /// An unlimited search from the start (no tables: it would deepen for ages) ends
    /// soon after the external flag is raised, with a legal move.
    #[test]
    fn an_external_stop_ends_an_unlimited_search() {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let flag = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut searcher = Searcher::new(None, 1).expect("a small table");
            searcher.set_stop(flag);
            let pos = Position::start(Variant::Standard);
            let r = searcher.search(&pos, Limits::default(), &[]);
            let _ = tx.send(r.map(|r| (r.best, r.provenance)));
        });
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            rx.try_recv().is_err(),
            "an unlimited search ended by itself"
        );
        let raised = Instant::now();
        stop.store(true, Relaxed);
        let (best, provenance) = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the search stops once the flag is raised")
            .expect("no tables, no errors");
        let latency = raised.elapsed();
        eprintln!("stopped {latency:?} after the flag");
        assert!(latency < Duration::from_secs(2), "{latency:?}");
        let best = best.expect("a move");
        assert!(Position::start(Variant::Standard).is_legal(best));
        assert_eq!(provenance, Provenance::Estimate);
    }
}
