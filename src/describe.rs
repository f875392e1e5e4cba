//! Values and their provenance in words, for the text output of the commands that
//! give them (`probe`, `solve`, `analyze`, `play`); the JSON output has its own types
//! in `report`.

use crate::tb::plies;
use morris_engine::Color;
use morris_solver::{Provenance, Verdict};
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
