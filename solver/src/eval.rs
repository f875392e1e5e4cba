//! The heuristic evaluation at the depth horizon.
//!
//! Scores are for the side to move and stay within `±EVAL_MAX`, below the mate band,
//! so no heuristic leaf can pass for a decided game.

use crate::score::EVAL_MAX;
use morris_engine::{by_board, Bitboard, Color, Position};

/// Heuristic evaluation for the side to move: material (board and hand), lines of
/// two with the third point empty, and mobility.
pub fn evaluate(pos: &Position) -> i32 {
    by_board!(pos.rules().board(), evaluate_on(pos))
}

/// [`evaluate`] on a board of `MILLS` mills (see [`by_board!`]).
fn evaluate_on<const MILLS: usize, const LINES: usize>(pos: &Position) -> i32 {
    let side = pos.side_to_move();
    let (us, them, empty) = (pos.us(), pos.them(), pos.empty());
    let g = pos.rules().geometry();
    let mills = g.mill_array::<MILLS>();
    let material = |c: Color| (pos.pieces(c).count() + u32::from(pos.hand(c))) as i32;
    let open_lines = (mill_points(&mills, us, empty).count() as i32)
        - (mill_points(&mills, them, empty).count() as i32);
    let mobility =
        (g.neighbours(us) & empty).count() as i32 - (g.neighbours(them) & empty).count() as i32;
    let score = 100 * (material(side) - material(side.opponent())) + 12 * open_lines + 3 * mobility;
    score.clamp(-EVAL_MAX, EVAL_MAX)
}

/// The empty points that would close one of `mills` for `own`.
#[inline(always)]
pub(crate) fn mill_points(mills: &[Bitboard], own: Bitboard, empty: Bitboard) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for &m in mills {
        let missing = m & !own;
        if missing.count() == 1 && (missing & empty) == missing {
            out |= missing;
        }
    }
    out
}
