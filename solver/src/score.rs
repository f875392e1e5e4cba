//! The search's integer scores and the game values they stand for.
//!
//! Scores are from the side to move. A decided game scores `MATE - plies` for the
//! winner (plies from the root to the end), so a quicker win scores higher and a
//! longer defence lasts; that is the *mate band*, `|score| > MATE_BOUND`, with room
//! for [`MAX_DISTANCE`] plies. Heuristic scores stay within `±EVAL_MAX`, far below
//! the band, so a score in the band always means every line was followed to the end.
//! The table stores mate scores relative to the node instead of the root
//! (`to_node`, `from_node`), so an entry stays right at any ply.

use morris_engine::Position;
use morris_tablebase::{Value, Wdl};

/// Score of a game won now (at the root); a win in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this in absolute value are decided games.
pub const MATE_BOUND: i32 = MATE - 2_000;
/// The most plies from the root to the end of a game that a mate score can hold.
pub const MAX_DISTANCE: i32 = MATE - MATE_BOUND - 1;
/// Heuristic scores stay within this.
pub const EVAL_MAX: i32 = 10_000;
/// Beyond every score: the open window.
pub(crate) const INF: i32 = MATE + 1;

/// An exact game value for the side to move: win, draw or loss, and the plies to
/// the end. Unlike a stored tablebase [`Value`], the DTM's parity does not tell the
/// winner: in the placing phase a player can end the game with its own loss (placing
/// its last piece while holding fewer than three).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Verdict {
    /// Win, draw or loss for the side to move.
    pub wdl: Wdl,
    /// Plies to the end of the game under optimal play; `None` for a draw, and for a
    /// value proven without its distance ([`crate::Limits::value_only`]).
    pub dtm: Option<u16>,
}

impl Verdict {
    /// A draw.
    pub const DRAW: Verdict = Verdict {
        wdl: Wdl::Draw,
        dtm: None,
    };
}

impl From<Value> for Verdict {
    fn from(v: Value) -> Verdict {
        Verdict {
            wdl: v.wdl(),
            dtm: v.dtm(),
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.wdl, self.dtm) {
            (Wdl::Win, Some(d)) => write!(f, "win in {d}"),
            (Wdl::Loss, Some(d)) => write!(f, "loss in {d}"),
            (Wdl::Win, None) => f.write_str("win"),
            (Wdl::Loss, None) => f.write_str("loss"),
            (Wdl::Draw, _) => f.write_str("draw"),
        }
    }
}

/// A score turned into a game value, when it is a decided game (mate band).
pub fn score_verdict(score: i32) -> Option<Verdict> {
    if score > MATE_BOUND {
        Some(Verdict {
            wdl: Wdl::Win,
            dtm: Some((MATE - score) as u16),
        })
    } else if score < -MATE_BOUND {
        Some(Verdict {
            wdl: Wdl::Loss,
            dtm: Some((MATE + score) as u16),
        })
    } else {
        None
    }
}

/// The score of a tablebase value at `ply` plies from the root; `None` when the
/// game would end more than [`MAX_DISTANCE`] plies from the root, which no mate
/// score can hold.
pub fn value_score(v: Value, ply: usize) -> Option<i32> {
    let Some(d) = v.dtm() else {
        return Some(0);
    };
    let distance = i32::try_from(ply)
        .ok()?
        .checked_add(i32::from(d))
        .filter(|&n| n <= MAX_DISTANCE)?;
    match v.wdl() {
        Wdl::Win => Some(MATE - distance),
        _ => Some(-(MATE - distance)),
    }
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

/// The score of a finished game for its side to move at `ply`.
pub(crate) fn end_score(pos: &Position, ply: usize) -> Option<i32> {
    pos.end()
        .map(|end| match end.value_for(pos.side_to_move()) {
            Wdl::Win => MATE - ply as i32,
            Wdl::Loss => -(MATE - ply as i32),
            Wdl::Draw => 0,
        })
}

/// A score at `ply` made relative to its node.
pub(crate) fn to_node(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A score relative to its node, seen from `ply` plies above it.
pub(crate) fn from_node(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_map_to_mate_scores_and_back() {
        for d in [1u16, 2, 25, 204] {
            let v = Value::decided(d);
            let s = value_score(v, 3).unwrap();
            assert!(s.abs() > MATE_BOUND, "{v}: {s}");
            let three_plies_on = Verdict {
                wdl: v.wdl(),
                dtm: Some(d + 3),
            };
            assert_eq!(score_verdict(s), Some(three_plies_on));
        }
        assert_eq!(value_score(Value::DRAW, 100), Some(0));
    }

    #[test]
    fn distances_beyond_the_mate_band_have_no_score() {
        let room = MAX_DISTANCE as u16;
        let (win, loss) = (Value::decided(room), Value::decided(room - 1));
        assert_eq!(win.wdl(), Wdl::Win);
        assert_eq!(value_score(win, 0), Some(MATE_BOUND + 1));
        assert_eq!(value_score(loss, 1), Some(-(MATE_BOUND + 1)));
        assert_eq!(value_score(win, 1), None);
        for d in [
            room + 1,
            room + 2,
            20_000,
            Value::MAX_DTM - 1,
            Value::MAX_DTM,
        ] {
            assert_eq!(value_score(Value::decided(d), 0), None, "DTM {d}");
            assert_eq!(value_score(Value::win(d), 0), None, "win, DTM {d}");
            assert_eq!(value_score(Value::loss(d), 0), None, "loss, DTM {d}");
        }
        assert_eq!(value_score(Value::decided(3), usize::MAX), None);
    }
}
