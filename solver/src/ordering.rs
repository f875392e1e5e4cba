//! Move ordering: which move of a node the search tries first.
//!
//! The hash move, then captures, moves onto a point that would close an opponent
//! mill, the two killers of the ply, and the history counters of (from, to) pairs
//! that caused cut-offs. Keys are computed once a node and the moves picked lazily,
//! since most nodes cut off after their first moves.

use crate::eval::mill_points;
use morris_engine::{Move, Position};

/// Killers and history, kept across the searches of one searcher.
pub(crate) struct MoveOrder {
    killers: Vec<[Option<Move>; 2]>,
    /// By from point (24 for a placement) and to point.
    history: [[u32; 24]; 25],
}

impl MoveOrder {
    pub(crate) fn new() -> MoveOrder {
        MoveOrder {
            killers: Vec::new(),
            history: [[0; 24]; 25],
        }
    }

    /// Note a quiet move that cut off a node at `ply` with `depth` left.
    pub(crate) fn remember_cutoff(&mut self, m: Move, ply: usize, depth: i32) {
        if self.killers.len() <= ply {
            self.killers.resize(ply + 1, [None; 2]);
        }
        let k = &mut self.killers[ply];
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
        let from = m.from().map_or(24, |p| p.index());
        let h = &mut self.history[from][m.to().index()];
        *h = h.saturating_add((depth * depth) as u32);
    }

    /// Sort keys of moves, higher first: hash move, captures, moves that block an
    /// opponent mill, killers, then history.
    pub(crate) fn keys(
        &self,
        pos: &Position,
        moves: &[Move],
        tt_move: Option<Move>,
        ply: usize,
        keys: &mut [u32],
    ) {
        let threats = mill_points(pos.them(), pos.empty());
        let killers = self.killers.get(ply).copied().unwrap_or([None; 2]);
        for (k, &m) in keys.iter_mut().zip(moves) {
            *k = if Some(m) == tt_move {
                u32::MAX
            } else {
                let from = m.from().map_or(24, |p| p.index());
                let mut k = self.history[from][m.to().index()].min((1 << 24) - 1);
                if m.capture().is_some() {
                    k |= 1 << 30;
                }
                if threats.contains(m.to()) {
                    k |= 1 << 29;
                }
                if killers.contains(&Some(m)) {
                    k |= 1 << 28;
                }
                k
            };
        }
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
