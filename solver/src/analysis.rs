//! Analysis of every move: the value of the position each legal move leads to, and
//! from them the value of the position itself.
//!
//! With a time limit, the moves are deepened together: round `d` searches every move
//! whose value is not yet exact to depth `d` (plies after the move), in the order of
//! the legal moves, so one budget is spent over all of them and more time gives every
//! move a deeper result. A move keeps the result of the deepest round it completed; a
//! round cut by the deadline leaves the moves it did not reach at the depth before.
//! Without a time limit each move is searched once, under the depth and node limits.

use crate::error::SearchError;
use crate::score::{parent_score, score_verdict, Verdict, MATE, MATE_BOUND};
use crate::search::{Limits, Provenance, SearchResult, Searcher, Stats};
use crate::tablebase::ClassInfo;
use morris_engine::{Move, Position};
use morris_tablebase::Wdl;
use std::time::{Duration, Instant};

/// One legal move and what it leads to.
#[derive(Clone, Debug)]
pub struct MoveAnalysis {
    /// The move.
    pub mv: Move,
    /// Score for the side that plays it, relative to the analysed position.
    pub score: i32,
    /// The search of the position it leads to (its score is for the opponent; its
    /// `depth` is the depth searched after the move, its counters those of every
    /// round that searched it).
    pub result: SearchResult,
    /// The draw class of the position it leads to (for the opponent, like `result`),
    /// when that is a drawn position with a class file.
    pub class: Option<ClassInfo>,
}

/// The analysis of a position: its value and every legal move's.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The position's value for its side to move: a finished game or a tablebase
    /// entry as such, otherwise the best of its moves' values (exact when every move's
    /// is, a proven win or loss when the best move proves one), with the best move
    /// and its line.
    pub root: SearchResult,
    /// Every legal move, best first for the side to move: quickest win, then draws
    /// (under ultra-strong play, best class first), then slowest loss.
    pub moves: Vec<MoveAnalysis>,
    /// The position's draw class, when it is an exact draw with a class file and the
    /// searcher plays ultra-strong.
    pub class: Option<ClassInfo>,
}

/// Every legal move of `pos` with the value of the position it leads to, and the
/// position's own value. The time limit is one budget for the whole analysis, counted
/// from `limits.start` (or the call), spent over every move (see the module's
/// docs); depth and node limits hold for each move's search. `limits.no_line` leaves
/// out the root's line through the tablebases.
///
/// # Errors
/// [`SearchError`] when a tablebase file a search reads is damaged.
pub fn analyze(
    searcher: &mut Searcher<'_>,
    pos: &Position,
    limits: Limits,
    history: &[u64],
) -> Result<Analysis, SearchError> {
    analyze_with(searcher, pos, limits, history, |_, _| {})
}

/// [`analyze`], calling `round(depth, moves)` after each round that every move
/// completed (with a time limit; once at the end without), the moves best first.
///
/// # Errors
/// [`SearchError`] when a tablebase file a search reads is damaged.
pub fn analyze_with(
    searcher: &mut Searcher<'_>,
    pos: &Position,
    limits: Limits,
    history: &[u64],
    mut round: impl FnMut(u32, &[MoveAnalysis]),
) -> Result<Analysis, SearchError> {
    let start = limits.start.unwrap_or_else(Instant::now);
    let clock = Instant::now();
    if let Some(known) = searcher.known(pos, limits, history)? {
        // Its moves lead to positions the tables hold too (or to the end of the game).
        let mut slots = Slots::new(pos, history);
        let child_limits = Limits {
            no_line: true,
            ..limits
        };
        slots.search(searcher, child_limits, |_| true)?;
        let mut moves = slots.sorted();
        with_classes(searcher, pos, &mut moves)?;
        round(known.depth, &moves);
        let class = root_class(searcher, pos, &known)?;
        return Ok(Analysis {
            root: known,
            moves,
            class,
        });
    }
    let child_limits = Limits {
        start: Some(start),
        // Each move's value only: its line is not shown.
        no_line: true,
        ..limits
    };
    let mut slots = Slots::new(pos, history);
    let deadline = limits.time.and_then(|t| start.checked_add(t));
    match deadline {
        None => {
            slots.search(searcher, child_limits, |_| true)?;
            let depth = slots.depth();
            round(depth, &slots.sorted());
        }
        Some(deadline) => {
            let max = limits.depth.unwrap_or(u32::from(u8::MAX));
            for depth in 1..=max {
                let per_round = Limits {
                    depth: Some(depth),
                    ..child_limits
                };
                // The first round runs whatever the clock says: every move gets at
                // least a one-ply result.
                let complete = slots.search(searcher, per_round, |_| {
                    depth == 1 || Instant::now() < deadline
                })?;
                if complete {
                    round(depth, &slots.sorted());
                }
                // A round cut short by the node limit of some moves goes on with the
                // others; one cut by the deadline ends the analysis.
                if slots.all_final() || Instant::now() >= deadline {
                    break;
                }
            }
        }
    }
    let mut moves = slots.sorted();
    with_classes(searcher, pos, &mut moves)?;
    let mut root = root_result(&moves, clock);
    if !limits.no_line && root.provenance == Provenance::Proof {
        // An exact line goes on through the tablebases to the end of the game.
        let end = root.pv.iter().fold(*pos, |p, &m| p.play_unchecked(m));
        root.pv.extend(searcher.tablebase_line(&end, 400)?);
    }
    let class = root_class(searcher, pos, &root)?;
    Ok(Analysis { root, moves, class })
}

/// What one legal move's entry holds.
enum Kind {
    /// Searched for itself.
    Searched,
    /// Equal up to a symmetry of the board to the move of this slot, searched
    /// earlier: its result is that one's, without the line.
    Shares(usize),
    /// Back to a state of the game: a draw by the search's rule.
    Repetition,
}

struct Slot {
    mv: Move,
    child: Position,
    kind: Kind,
    result: Option<SearchResult>,
    /// Nothing deeper to find: exact, or stopped short by the node limit.
    last: bool,
}

/// The legal moves of a position with their results so far.
struct Slots {
    slots: Vec<Slot>,
    history: Vec<u64>,
}

impl Slots {
    fn new(pos: &Position, history: &[u64]) -> Slots {
        // Positions equal up to a symmetry of the board have the same value, unless
        // the game's earlier states differ for them: not when there are none, and not
        // while placing, since no state with a piece in hand ever comes back (the
        // hands only shrink) and a child's subtree cannot reach one.
        let share = history.is_empty() || pos.pieces_in_hand();
        let mut history = history.to_vec();
        history.push(pos.hash());
        let mut slots: Vec<Slot> = Vec::new();
        let mut canonical: Vec<(u64, usize)> = Vec::new();
        for &mv in pos.legal_moves().iter() {
            let child = pos.play_unchecked(mv);
            let key = child.canonical().0.packed();
            let earlier = canonical.iter().find(|(c, _)| share && *c == key);
            let kind = if let Some(&(_, i)) = earlier {
                Kind::Shares(i)
            } else if history.contains(&child.hash()) && child.end().is_none() {
                Kind::Repetition
            } else {
                canonical.push((key, slots.len()));
                Kind::Searched
            };
            slots.push(Slot {
                mv,
                child,
                kind,
                result: None,
                last: false,
            });
        }
        for slot in &mut slots {
            if matches!(slot.kind, Kind::Repetition) {
                // A draw by the search's rule, as `search` scores it inside the tree
                // (the game did not end first): score 0, an estimate.
                slot.result = Some(unsearched());
                slot.last = true;
            }
        }
        Slots { slots, history }
    }

    /// One round: every searched move not yet final, with `limits`, while `go()`
    /// allows (asked before each move). Whether every such move was searched to the
    /// round's depth (or its end).
    fn search(
        &mut self,
        searcher: &mut Searcher<'_>,
        limits: Limits,
        mut go: impl FnMut(&Slot) -> bool,
    ) -> Result<bool, SearchError> {
        let mut complete = true;
        for i in 0..self.slots.len() {
            let slot = &self.slots[i];
            if slot.last || !matches!(slot.kind, Kind::Searched) {
                continue;
            }
            if !go(slot) {
                return Ok(false);
            }
            let r = searcher.search(&slot.child, limits, &self.history)?;
            let slot = &mut self.slots[i];
            let mut stats = slot.result.as_ref().map(|r| r.stats).unwrap_or_default();
            add(&mut stats, &r.stats);
            let reached = limits.depth.is_none_or(|d| r.depth >= d);
            let exact = r.provenance.is_exact();
            let deeper = slot.result.as_ref().is_none_or(|old| r.depth >= old.depth);
            if exact || reached || deeper {
                slot.result = Some(r);
            }
            if let Some(r) = &mut slot.result {
                r.stats = stats;
            }
            if exact || limits.depth.is_none() {
                slot.last = true;
            } else if !reached {
                // Cut by the deadline (the caller stops there) or by the node limit,
                // which a deeper round would hit the sooner: this move is done.
                complete = false;
                slot.last = limits.nodes.is_some();
            }
        }
        Ok(complete)
    }

    /// Whether no move has anything deeper to find.
    fn all_final(&self) -> bool {
        self.slots
            .iter()
            .all(|s| s.last || !matches!(s.kind, Kind::Searched))
    }

    /// The depth every searched move reached.
    fn depth(&self) -> u32 {
        self.slots
            .iter()
            .filter(|s| matches!(s.kind, Kind::Searched))
            .filter_map(|s| s.result.as_ref().map(|r| r.depth))
            .min()
            .unwrap_or(0)
    }

    /// The moves with their results, best first.
    fn sorted(&self) -> Vec<MoveAnalysis> {
        let result = |s: &Slot| -> SearchResult {
            match s.kind {
                Kind::Shares(i) => {
                    let r = self.slots[i].result.clone().unwrap_or_else(unsearched);
                    // Its line is in the other position's orientation: left out.
                    SearchResult {
                        best: None,
                        pv: Vec::new(),
                        stats: Stats::default(),
                        time: Duration::ZERO,
                        ..r
                    }
                }
                _ => s.result.clone().unwrap_or_else(unsearched),
            }
        };
        let mut out: Vec<MoveAnalysis> = self
            .slots
            .iter()
            .map(|s| {
                let result = result(s);
                MoveAnalysis {
                    mv: s.mv,
                    score: parent_score(result.score),
                    result,
                    class: None,
                }
            })
            .collect();
        out.sort_by_key(|a| (std::cmp::Reverse(a.score), a.mv.to_string()));
        out
    }
}

/// Give the drawing moves their classes, and list the draws best class first, when
/// the searcher plays ultra-strong.
fn with_classes(
    searcher: &Searcher<'_>,
    pos: &Position,
    moves: &mut [MoveAnalysis],
) -> Result<(), SearchError> {
    if !searcher.strategy().uses_classes() {
        return Ok(());
    }
    for m in moves.iter_mut() {
        let exact_draw =
            m.result.provenance.is_exact() && m.result.value.is_some_and(|v| v.wdl == Wdl::Draw);
        if exact_draw {
            m.class = searcher.class_info(&pos.play_unchecked(m.mv))?;
        }
    }
    // Draws of a better class first (for the mover: the negated class of the position
    // a move leads to), then in notation order, as `probe` lists them; a draw without
    // a class after those with one. (The move ultra-strong play chooses among them,
    // with its traps, is the first of the root's line.)
    if moves.iter().any(|m| m.class.is_some()) {
        let class = |a: &MoveAnalysis| a.class.map_or(i32::MIN, |c| -i32::from(c.class.class));
        moves.sort_by_key(|a| {
            (
                std::cmp::Reverse(a.score),
                std::cmp::Reverse(class(a)),
                a.mv.to_string(),
            )
        });
    }
    Ok(())
}

/// The class of an analysed position that is an exact draw, under ultra-strong play.
fn root_class(
    searcher: &Searcher<'_>,
    pos: &Position,
    root: &SearchResult,
) -> Result<Option<ClassInfo>, SearchError> {
    let draw = root.provenance.is_exact() && root.value.is_some_and(|v| v.wdl == Wdl::Draw);
    if draw && searcher.strategy().uses_classes() {
        searcher.class_info(pos)
    } else {
        Ok(None)
    }
}

/// A result with nothing searched: score 0, an estimate at depth 0 (a move no round
/// reached, or a move back to a state of the game).
fn unsearched() -> SearchResult {
    SearchResult {
        score: 0,
        value: None,
        provenance: Provenance::Estimate,
        best: None,
        pv: Vec::new(),
        depth: 0,
        stats: Stats::default(),
        time: Duration::ZERO,
    }
}

fn add(total: &mut Stats, more: &Stats) {
    total.nodes += more.nodes;
    total.tt_probes += more.tt_probes;
    total.tt_hits += more.tt_hits;
    total.tb_hits += more.tb_hits;
    total.table_fill = more.table_fill;
}

/// Win, draw or loss for the player who makes the move, when its value is proven.
fn for_mover(a: &MoveAnalysis) -> Option<Wdl> {
    a.result.value.map(|v| match v.wdl {
        Wdl::Win => Wdl::Loss,
        Wdl::Draw => Wdl::Draw,
        Wdl::Loss => Wdl::Win,
    })
}

fn rank(wdl: Wdl) -> u8 {
    match wdl {
        Wdl::Loss => 0,
        Wdl::Draw => 1,
        Wdl::Win => 2,
    }
}

/// The value of a position from its moves' values, best first (not a finished game,
/// not in the tablebases).
fn root_result(moves: &[MoveAnalysis], clock: Instant) -> SearchResult {
    let mut stats = Stats::default();
    for a in moves {
        add(&mut stats, &a.result.stats);
    }
    let depth = 1 + moves.iter().map(|a| a.result.depth).min().unwrap_or(0);
    let exact = |a: &MoveAnalysis| a.result.provenance.is_exact();
    let value_only = |a: &MoveAnalysis| a.result.provenance == Provenance::ValueProof;
    let win = moves.iter().find(|a| for_mover(a) == Some(Wdl::Win));
    let Some(best) = win.or(moves.first()) else {
        return SearchResult {
            stats,
            ..unsearched()
        };
    };
    let distance = |wdl: Wdl, without: bool| Verdict {
        wdl,
        dtm: match wdl {
            Wdl::Draw => None,
            _ if without => None,
            _ => score_verdict(best.score).and_then(|v| v.dtm),
        },
    };
    let (value, provenance) = if moves.iter().all(exact) {
        let wdl = moves
            .iter()
            .filter_map(for_mover)
            .max_by_key(|&w| rank(w))
            .unwrap_or(Wdl::Draw);
        let without = moves.iter().any(value_only);
        let provenance = if without {
            Provenance::ValueProof
        } else {
            Provenance::Proof
        };
        (Some(distance(wdl, without)), provenance)
    } else if win.is_some() {
        // A proven win; a faster one may hide in a move not searched deep enough to
        // see it.
        let plies = (MATE - best.score).max(0) as u32;
        let deep_enough = |a: &MoveAnalysis| exact(a) || a.result.depth + 1 >= plies;
        if value_only(best) {
            (Some(distance(Wdl::Win, true)), Provenance::ValueProof)
        } else if exact(best) && best.score > MATE_BOUND && moves.iter().all(deep_enough) {
            (Some(distance(Wdl::Win, false)), Provenance::Proof)
        } else {
            (Some(distance(Wdl::Win, false)), Provenance::ProvenBound)
        }
    } else if moves.iter().all(|a| for_mover(a) == Some(Wdl::Loss)) {
        // Every move proven to lose, some distances only bounds.
        if moves.iter().any(value_only) {
            (Some(distance(Wdl::Loss, true)), Provenance::ValueProof)
        } else {
            (Some(distance(Wdl::Loss, false)), Provenance::ProvenBound)
        }
    } else {
        (None, Provenance::Estimate)
    };
    let mut pv = vec![best.mv];
    pv.extend(best.result.pv.iter().copied());
    SearchResult {
        score: best.score,
        value,
        provenance,
        best: Some(best.mv),
        pv,
        depth,
        stats,
        time: clock.elapsed(),
    }
}
