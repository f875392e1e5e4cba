//! Move ordering: which move of a node the search tries first.
//!
//! The hash move, then by what the move does on the board alone: captures (taking a
//! piece of an open two of the opponent first), moves onto a point that would close
//! an opponent mill, then open twos made, points by their number of neighbours, and
//! open ones of the opponent spoiled. The order is static: measured on the empty
//! boards of the games of 6 and 7 pieces a side, killers and history counters cost
//! nodes (6+6 Standard, value only: 0.35 M nodes static, 0.35-1.40 M with them) and
//! made the node count depend on what the searcher searched before. Keys are computed
//! once a node and the moves picked lazily, since most nodes cut off after their
//! first moves.

use crate::eval::mill_points;
use morris_engine::{by_board, Bitboard, Move, Point, Position};

/// Sort keys of moves, higher first.
pub(crate) fn keys(pos: &Position, moves: &[Move], tt_move: Option<Move>, keys: &mut [u32]) {
    by_board!(pos.rules().board(), keys_on(pos, moves, tt_move, keys));
}

/// [`keys`] on a board of `MILLS` mills and at most `LINES` lines through a point
/// (see [`by_board!`]).
fn keys_on<const MILLS: usize, const LINES: usize>(
    pos: &Position,
    moves: &[Move],
    tt_move: Option<Move>,
    keys: &mut [u32],
) {
    let (us, them, empty) = (pos.us(), pos.them(), pos.empty());
    let g = pos.rules().geometry();
    let mills = g.mill_array::<MILLS>();
    let threats = mill_points(&mills, them, empty);
    // Opponent pieces in an open two: taking one removes a threat.
    let mut their_twos = Bitboard::EMPTY;
    for m in mills {
        if (m & them).count() == 2 && (m & empty).count() == 1 {
            their_twos |= m & them;
        }
    }
    for (k, &m) in keys.iter_mut().zip(moves) {
        if Some(m) == tt_move {
            *k = u32::MAX;
            continue;
        }
        let to = m.to();
        let left = m.from().map_or(Bitboard::EMPTY, Point::bit);
        let (own, open) = (us & !left, empty | left);
        let (mut made, mut spoiled) = (0, 0);
        // An empty line (a point on fewer lines) has no open point and counts nothing.
        for pair in g.lines_at::<LINES>(to) {
            if (pair & open).count() == 1 {
                made += u32::from((pair & own).count() == 1);
                spoiled += u32::from((pair & them).count() == 1);
            }
        }
        let mut key = made * 8 + g.adjacent(to).count() * 2 + spoiled;
        if let Some(c) = m.capture() {
            key |= 1 << 30 | u32::from(their_twos.contains(c)) << 28;
        }
        if threats.contains(to) {
            key |= 1 << 29;
        }
        *k = key;
    }
}

/// Move the best remaining move (by key) to position `i`: a selection sort done
/// lazily.
pub(crate) fn pick(moves: &mut [Move], keys: &mut [u32], i: usize) {
    let mut best = i;
    for j in i + 1..moves.len() {
        if keys[j] > keys[best] {
            best = j;
        }
    }
    moves.swap(i, best);
    keys.swap(i, best);
}

/// Sort the moves by key, then start the order `by` moves further on (the skipped
/// ones last): a helper thread of a parallel search begins elsewhere than the main one.
pub(crate) fn rotate(moves: &mut [Move], keys: &mut [u32], by: usize) {
    for i in 0..moves.len() {
        pick(moves, keys, i);
    }
    moves.rotate_left(by);
    for (i, k) in keys.iter_mut().enumerate() {
        *k = u32::MAX - i as u32;
    }
}
