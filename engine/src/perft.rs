//! Perft: the number of move sequences of a given length, each atomic turn (capture
//! included) one ply. Finished games have no moves, so they add nothing below them.

use crate::moves::Move;
use crate::position::Position;

/// The number of leaves `depth` plies below `pos`.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves(),
        _ => pos
            .legal_moves()
            .iter()
            .map(|&m| perft(&pos.play_unchecked(m), depth - 1))
            .sum(),
    }
}

/// Perft split by first move, in move-generation order.
pub fn perft_divide(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    pos.legal_moves()
        .iter()
        .map(|&m| (m, perft(&pos.play_unchecked(m), depth - 1)))
        .collect()
}
