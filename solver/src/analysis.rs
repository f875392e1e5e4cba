//! Analysis of every move: the value of the position each legal move leads to.

use crate::error::SearchError;
use crate::score::parent_score;
use crate::search::{Limits, Provenance, SearchResult, Searcher, Stats};
use morris_engine::{Move, Position};
use std::time::{Duration, Instant};

/// One legal move and what it leads to.
#[derive(Clone, Debug)]
pub struct MoveAnalysis {
    /// The move.
    pub mv: Move,
    /// Score for the side that plays it, relative to the analysed position.
    pub score: i32,
    /// The search of the position it leads to (its score is for the opponent).
    pub result: SearchResult,
}

/// Every legal move of `pos` with the value of the position it leads to, best first
/// for the side to move: quickest win, then draws, then slowest loss. The time limit
/// is one budget for the whole analysis, counted from `limits.start` (or the call):
/// the moves searched after it runs out get a shallow estimate. Depth and node limits
/// hold for each move's search.
///
/// # Errors
/// [`SearchError`] when a tablebase file a search reads is damaged.
pub fn analyze(
    searcher: &mut Searcher<'_>,
    pos: &Position,
    limits: Limits,
    history: &[u64],
) -> Result<Vec<MoveAnalysis>, SearchError> {
    analyze_with(searcher, pos, limits, history, |_, _| {})
}

/// [`analyze`], calling `done` with each move as soon as its search ends, in the
/// order of the legal moves, with the number of moves analysed so far.
///
/// # Errors
/// [`SearchError`] when a tablebase file a search reads is damaged.
pub fn analyze_with(
    searcher: &mut Searcher<'_>,
    pos: &Position,
    limits: Limits,
    history: &[u64],
    mut done: impl FnMut(&MoveAnalysis, usize),
) -> Result<Vec<MoveAnalysis>, SearchError> {
    let limits = Limits {
        start: Some(limits.start.unwrap_or_else(Instant::now)),
        // Each move's value only: its line is not shown.
        no_line: true,
        ..limits
    };
    // Positions equal up to a symmetry of the board have the same value, unless the
    // game's earlier states differ for them: not when there are none, and not while
    // placing, since no state with a piece in hand ever comes back (the hands only
    // shrink) and a child's subtree cannot reach one. Such moves share one search
    // (the later ones without a line).
    let share = history.is_empty() || pos.pieces_in_hand();
    let mut history = history.to_vec();
    history.push(pos.hash());
    let mut seen: Vec<(u64, SearchResult)> = Vec::new();
    let mut out: Vec<MoveAnalysis> = Vec::new();
    for &mv in pos.legal_moves().iter() {
        let child = pos.play_unchecked(mv);
        let canonical = child.canonical().0.packed();
        let known = seen.iter().find(|(c, _)| share && *c == canonical);
        let result = if let Some((_, r)) = known {
            // Its line is in the other position's orientation: left out.
            SearchResult {
                best: None,
                pv: Vec::new(),
                stats: Stats::default(),
                time: Duration::ZERO,
                ..r.clone()
            }
        } else if history.contains(&child.hash()) && child.end().is_none() {
            // A move back to a state of the game is a repetition: a draw by the
            // search's rule, as `search` scores it inside the tree (unless the game
            // ends first).
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
        } else {
            let r = searcher.search(&child, limits, &history)?;
            seen.push((canonical, r.clone()));
            r
        };
        out.push(MoveAnalysis {
            mv,
            score: parent_score(result.score),
            result,
        });
        done(&out[out.len() - 1], out.len());
    }
    out.sort_by_key(|a| (std::cmp::Reverse(a.score), a.mv.to_string()));
    Ok(out)
}
