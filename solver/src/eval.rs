//! The heuristic evaluation at the depth horizon.
//!
//! Scores are for the side to move and stay within `±EVAL_MAX`, below the mate band,
//! so no heuristic leaf can pass for a decided game.

use crate::score::EVAL_MAX;
use morris_engine::{Bitboard, Color, Geometry, Position};

/// Heuristic evaluation for the side to move: material (board and hand), lines of
/// two with the third point empty, and mobility.
pub fn evaluate(pos: &Position) -> i32 {
    let side = pos.side_to_move();
    let (us, them, empty) = (pos.us(), pos.them(), pos.empty());
    let g = pos.rules().geometry();
    let material = |c: Color| (pos.pieces(c).count() + u32::from(pos.hand(c))) as i32;
    let open_lines =
        (mill_points(g, us, empty).count() as i32) - (mill_points(g, them, empty).count() as i32);
    let mobility =
        (g.neighbours(us) & empty).count() as i32 - (g.neighbours(them) & empty).count() as i32;
    let score = 100 * (material(side) - material(side.opponent())) + 12 * open_lines + 3 * mobility;
    score.clamp(-EVAL_MAX, EVAL_MAX)
}

/// The empty points that would close a mill for `own` on board `g`.
pub(crate) fn mill_points(g: &Geometry, own: Bitboard, empty: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for m in g.mills() {
        let missing = m & !own;
        if missing.count() == 1 && (missing & empty) == missing {
            out |= missing;
        }
    }
    out
}
