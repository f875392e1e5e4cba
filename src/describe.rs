//! Values and their provenance in words, for the text output of the commands that
//! give them (`probe`, `solve`, `analyze`, `play`); the JSON output has its own types
//! in `report`.

use crate::tb::plies;
use morris_engine::Color;
use morris_solver::{ClassInfo, Provenance, Verdict};
use morris_tablebase::Wdl;

/// A value for the side to move, without naming it.
pub fn value(v: Verdict) -> String {
    match (v.wdl, v.dtm) {
        (Wdl::Win, Some(d)) => format!("win for the side to move, DTM {}", plies(d)),
        (Wdl::Loss, Some(d)) => format!("loss for the side to move, DTM {}", plies(d)),
        (Wdl::Win, None) => "win for the side to move".to_string(),
        (Wdl::Loss, None) => "loss for the side to move".to_string(),
        (Wdl::Draw, _) => "draw".to_string(),
    }
}

/// A value for `side`, the side to move.
pub fn value_for(v: Verdict, side: Color) -> String {
    match (v.wdl, v.dtm) {
        (Wdl::Win, Some(d)) => format!("win for {side} (the side to move) in {}", plies(d)),
        (Wdl::Loss, Some(d)) => format!("loss for {side} (the side to move) in {}", plies(d)),
        (Wdl::Win, None) => format!("win for {side} (the side to move)"),
        (Wdl::Loss, None) => format!("loss for {side} (the side to move)"),
        (Wdl::Draw, _) => "draw".to_string(),
    }
}

/// The depth of the search that gave a value: none for a finished game or a table's
/// entry, which no search gave.
pub fn search_depth(provenance: Provenance, depth: u32) -> Option<u32> {
    match provenance {
        Provenance::Terminal | Provenance::Tablebase => None,
        Provenance::Proof
        | Provenance::ProvenBound
        | Provenance::Estimate
        | Provenance::ValueProof => Some(depth),
    }
}

/// How a value was obtained: the provenance's label, with the depth of a search.
pub fn obtained(provenance: Provenance, depth: u32) -> String {
    match search_depth(provenance, depth) {
        Some(d) => format!("{} at depth {d}", provenance.name()),
        None => provenance.name().to_string(),
    }
}

/// A drawn position's class for its side to move, and where the game settles.
pub fn class(info: &ClassInfo) -> String {
    match info.settles {
        Some(s) => format!("class {:+}, settles in {s}", info.class.class),
        None => format!("class {:+}", info.class.class),
    }
}

/// The class of the position a move leads to (`info`, for the opponent), for the side
/// that plays the move.
pub fn class_for_mover(info: &ClassInfo) -> String {
    match info.settles {
        Some(s) => format!("class {:+}, settles in {}", -info.class.class, s.swapped()),
        None => format!("class {:+}", -info.class.class),
    }
}
