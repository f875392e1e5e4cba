//! Exact answers for Nine Men's Morris positions: negamax search with alpha-beta,
//! iterative deepening and a lock-free transposition table, consulting the movement
//! tablebases. With every movement sector present, any position (opening included) is
//! solved exactly by searching down to them; without, the answer is a clearly
//! labelled estimate.
//!
//! One job a module: [`score`] (score types and game values), [`eval`] (the
//! heuristic at the horizon), move ordering, [`search`] (the search loop), [`tt`] (the
//! transposition table), the tablebase door (every tablebase read of the search),
//! [`analysis`] (every move of a position), [`strategy`] (how a player picks among
//! value-keeping moves) and [`error`].
//!
//! ```
//! use morris_engine::{notation, Variant};
//! use morris_solver::{Limits, Provenance, Searcher};
//!
//! // White to move closes the top line, takes a black piece and wins.
//! let pos = notation::parse_position("WW./.../.../.....W/.../.../BBB w 0 0", Variant::Standard).unwrap();
//! let mut searcher = Searcher::new(None, 1)?;
//! let r = searcher.search(&pos, Limits { depth: Some(4), ..Limits::default() }, &[])?;
//! assert_eq!(r.provenance, Provenance::Proof);
//! assert_eq!(r.value.unwrap().dtm, Some(1));
//! assert_eq!(r.best.unwrap().to_string().get(..6), Some("g4-g7x"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod analysis;
pub mod error;
pub mod eval;
mod ordering;
pub mod puzzles;
pub mod review;
pub mod score;
pub mod search;
pub mod strategy;
mod tablebase;
pub mod tt;

pub use analysis::{analyze, analyze_with, Analysis, MoveAnalysis};
pub use error::SearchError;
pub use eval::evaluate;
pub use score::{
    parent_score, score_verdict, value_score, Verdict, EVAL_MAX, MATE, MATE_BOUND, MAX_DISTANCE,
};
pub use search::{Limits, Provenance, SearchResult, Searcher, Stats};
pub use strategy::{Rng, Strategy};
pub use tablebase::ClassInfo;
pub use tt::{TableError, TranspositionTable};
