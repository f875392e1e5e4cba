//! Perft: the number of move sequences of a given length, each atomic turn (capture
//! included) one ply. Finished games have no moves, so they add nothing below them.
//! Counts are `u64`, added with checks: a count that does not fit is `None`, never a
//! wrapped number.

use crate::moves::{Move, MoveList};
use crate::position::Position;

/// The number of leaves `depth` plies below `pos`, or `None` if it exceeds
/// `u64::MAX`.
pub fn perft(pos: &Position, depth: u32) -> Option<u64> {
    if depth == 0 {
        return Some(1);
    }
    // One move list a ply above the last, filled in place at every node.
    let mut lists = vec![MoveList::new(); depth as usize - 1];
    perft_with(pos, &mut lists)
}

/// Perft to the depth of one ply more than `lists` has lists, one for each ply.
fn perft_with(pos: &Position, lists: &mut [MoveList]) -> Option<u64> {
    let Some((list, deeper)) = lists.split_first_mut() else {
        return Some(pos.count_legal_moves());
    };
    pos.legal_moves_into(list);
    list.iter().try_fold(0u64, |sum, &m| {
        sum.checked_add(perft_with(&pos.play_unchecked(m), deeper)?)
    })
}

/// Perft split by first move, in move-generation order, or `None` if a count exceeds
/// `u64::MAX`.
pub fn perft_divide(pos: &Position, depth: u32) -> Option<Vec<(Move, u64)>> {
    if depth == 0 {
        return Some(Vec::new());
    }
    pos.legal_moves()
        .iter()
        .map(|&m| Some((m, perft(&pos.play_unchecked(m), depth - 1)?)))
        .collect()
}
