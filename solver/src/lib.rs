//! Exact answers for Nine Men's Morris positions: negamax search with alpha-beta,
//! iterative deepening and a lock-free transposition table, consulting the movement
//! tablebases. With every movement sector present, any position (opening included) is
//! solved exactly by searching down to them; without, the answer is a clearly
//! labelled estimate.
//!
//! ```
//! use morris_engine::{notation, Variant};
//! use morris_solver::{Limits, Provenance, Searcher};
//!
//! // White to move closes the top line, takes a black piece and wins.
//! let pos = notation::parse_position("WW./.../.../.....W/.../.../BBB w 0 0", Variant::Standard).unwrap();
//! let mut searcher = Searcher::new(None, 1);
//! let r = searcher.search(&pos, Limits { depth: Some(4), ..Limits::default() }, &[]);
//! assert_eq!(r.provenance, Provenance::Proof);
//! assert_eq!(r.value.unwrap().dtm, Some(1));
//! assert_eq!(r.best.unwrap().to_string().get(..6), Some("g4-g7x"));
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod search;
pub mod tt;

pub use search::{
    evaluate, score_verdict, value_score, Limits, Provenance, SearchResult, Searcher, Stats,
    Verdict, MATE, MATE_BOUND,
};
pub use tt::TranspositionTable;

use morris_engine::{Move, Position};

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

/// The score at the parent of a child's score.
pub fn parent_score(child: i32) -> i32 {
    if child > MATE_BOUND {
        -(child - 1)
    } else if child < -MATE_BOUND {
        -(child + 1)
    } else {
        -child
    }
}

/// Every legal move of `pos` with the value of the position it leads to, best first
/// for the side to move: quickest win, then draws, then slowest loss.
pub fn analyze(
    searcher: &mut Searcher<'_>,
    pos: &Position,
    limits: Limits,
    history: &[u64],
) -> Vec<MoveAnalysis> {
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
                time: std::time::Duration::ZERO,
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
                time: std::time::Duration::ZERO,
            }
        } else {
            let r = searcher.search(&child, limits, &history);
            seen.push((canonical, r.clone()));
            r
        };
        out.push(MoveAnalysis {
            mv,
            score: parent_score(result.score),
            result,
        });
    }
    out.sort_by_key(|a| (std::cmp::Reverse(a.score), a.mv.to_string()));
    out
}
