//! The search's door to the tablebases.
//!
//! Every tablebase read of the search goes through [`Tablebases::probe`], which asks
//! the reading crate's one probe and turns its answer into a score, and a damaged file
//! or a distance beyond the scores into a [`SearchError`] naming the file that
//! answered, so no damaged value is ever walked around as if it were a miss. The rest
//! of this module reads the tablebases alone, without search: the best moves of a
//! covered position and its line to the end of the game.

use crate::error::SearchError;
use crate::score::{end_score, value_score, MATE, MAX_DISTANCE};
use crate::strategy::{order_by_traps, rank_draws, Seen, Strategy};
use morris_engine::{Color, Move, Position};
use morris_tablebase::classes::Class;
use morris_tablebase::{Probe, Sector, Tablebase, Wdl};
use std::sync::Mutex;

/// The class of a drawn position and where its game settles under ultra-strong play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassInfo {
    /// The class for the side to move, and its distance.
    pub class: Class,
    /// The movement sector (side to move's pieces first, as the position's side to
    /// move sees it when the game gets there) where the game settles, if the walk
    /// along the classes reaches it within the tables.
    pub settles: Option<Sector>,
}

/// The most plies [`Tablebases::class_info`] walks to find where a draw settles.
const MAX_SETTLE_WALK: usize = 600;

/// What the tables say of a position, as a score for its side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TbScore {
    /// The exact score: a draw, or a decided game with its distance.
    Exact(i32),
    /// A win whose distance is not stored (a compact win/draw/loss file alone): at
    /// least this score, the one of the longest win of its sector.
    AtLeast(i32),
    /// A loss whose distance is not stored: at most this score.
    AtMost(i32),
}

impl TbScore {
    /// The score, if it decides a node searched with the window `(alpha, beta)`: an
    /// exact one always, a bound when it falls outside the window on its side.
    pub(crate) fn within(self, alpha: i32, beta: i32) -> Option<i32> {
        match self {
            TbScore::Exact(s) => Some(s),
            TbScore::AtLeast(s) if s >= beta => Some(s),
            TbScore::AtMost(s) if s <= alpha => Some(s),
            _ => None,
        }
    }

    /// The score of a probe's answer at `ply` plies from the root: exact when the
    /// value has its distance (or is a draw), else the bound that the longest win or
    /// loss of its sector gives (no bound when that is beyond the mate band).
    ///
    /// # Errors
    /// [`SearchError::Distance`], naming the file that answered, for a stored distance
    /// that does not fit the search's scores.
    fn of(probe: &Probe<'_>, ply: usize) -> Result<Option<TbScore>, SearchError> {
        let value = probe.value;
        if value.wdl() == Wdl::Draw || value.dtm().is_some() {
            return match value_score(value, ply) {
                Some(score) => Ok(Some(TbScore::Exact(score))),
                None => Err(SearchError::Distance {
                    file: probe.file.to_path_buf(),
                    dtm: value.dtm().unwrap_or_default(),
                    ply,
                }),
            };
        }
        let Some(n) = probe.longest.and_then(|longest| {
            i32::try_from(ply)
                .ok()?
                .checked_add(i32::from(longest))
                .filter(|&n| n <= MAX_DISTANCE)
        }) else {
            return Ok(None);
        };
        Ok(Some(match value.wdl() {
            Wdl::Win => TbScore::AtLeast(MATE - n),
            _ => TbScore::AtMost(-(MATE - n)),
        }))
    }
}

/// The tablebases a searcher may consult, if any.
pub(crate) struct Tablebases<'a> {
    tb: Option<&'a Tablebase>,
    pub(crate) strategy: Strategy,
    /// The first damaged class file met: ultra-strong play falls back to plain perfect
    /// play there, and the caller says so.
    class_failure: Mutex<Option<String>>,
}

impl<'a> Tablebases<'a> {
    pub(crate) fn new(tb: Option<&'a Tablebase>) -> Tablebases<'a> {
        Tablebases {
            tb,
            strategy: Strategy::default(),
            class_failure: Mutex::new(None),
        }
    }

    /// The first damaged class file met, if any.
    pub(crate) fn class_failure(&self) -> Option<String> {
        self.class_failure.lock().map_or(None, |f| f.clone())
    }

    /// The class of a position, `None` when it is decided, not covered, or its
    /// sector has no usable class file (a damaged one is remembered).
    pub(crate) fn class(&self, pos: &Position) -> Option<Class> {
        let tb = self.tb?;
        match tb.class(pos) {
            Ok(c) => c,
            Err(e) => {
                if let Ok(mut f) = self.class_failure.lock() {
                    f.get_or_insert_with(|| e.to_string());
                }
                None
            }
        }
    }

    /// Order the equally good moves `moves` of `pos` (`draw`: a drawn position) as
    /// `strategy` ranks them: a draw's moves by their classes where it steers by them
    /// ([`Strategy::steers_by_class`], [`rank_draws`];
    /// unchanged when a class is missing, a damaged class file being remembered), then
    /// (ultra) a draw's moves that go least round in circles after the positions of
    /// `history` (full-state hashes; [`Seen::staleness`]), then a draw's or a loss's
    /// by the traps they set ([`order_by_traps`]), as
    /// [`Strategy::candidates`] chooses.
    fn rank(
        &self,
        pos: &Position,
        draw: bool,
        strategy: Strategy,
        moves: &mut Vec<Move>,
        history: &[u64],
    ) -> Result<(), SearchError> {
        let Some(tb) = self.tb else { return Ok(()) };
        let mut keyed: Vec<(Move, (i8, i32, u8))> = moves.iter().map(|&m| (m, (0, 0, 0))).collect();
        if draw && strategy.steers_by_class(pos) {
            for &m in moves.iter() {
                // Remembers a damaged class file, which `rank_draws` passes over.
                self.class(&pos.play_unchecked(m));
            }
            if let Some(ranked) = rank_draws(tb, pos, moves)? {
                keyed = ranked
                    .into_iter()
                    .map(|(m, c, d)| (m, (-c, d, 0)))
                    .collect();
            }
        }
        if draw && strategy.sets_traps() {
            let seen = Seen::new(pos, history);
            for (m, key) in &mut keyed {
                key.2 = seen.staleness(pos, *m);
            }
        }
        if strategy.sets_traps() {
            order_by_traps(tb, pos, &mut keyed)?;
        }
        *moves = keyed.into_iter().map(|k| k.0).collect();
        Ok(())
    }

    /// The class of a drawn position and where ultra-strong play from it settles.
    pub(crate) fn class_info(&self, pos: &Position) -> Result<Option<ClassInfo>, SearchError> {
        let Some(class) = self.class(pos) else {
            return Ok(None);
        };
        let mut at = *pos;
        let mut settles = None;
        for _ in 0..MAX_SETTLE_WALK {
            let Some(here) = self.class(&at) else { break };
            if let (Some(sector), Some(stay)) = (
                Tablebase::sector_of(&at),
                self.tb.and_then(|t| t.stay_class(&at)),
            ) {
                if here.class == stay && here.distance == 0 {
                    // Seen from the side to move of `pos`: the same side, or the other.
                    settles = Some(if at.side_to_move() == pos.side_to_move() {
                        sector
                    } else {
                        sector.swapped()
                    });
                    break;
                }
            }
            let Some(&m) = self.ranked_moves(&at, Strategy::Classes, &[])?.first() else {
                break;
            };
            at = at.play_unchecked(m);
        }
        Ok(Some(ClassInfo { class, settles }))
    }

    /// Whether the movement sector where the placing phase of `pos` ends without a
    /// capture is loaded, in both orientations: without it, a search for the value
    /// to the end of the placing phase ends its lines in heuristic leaves and proves
    /// nothing, however long it runs.
    pub(crate) fn reaches_movement(&self, pos: &Position) -> bool {
        let Some(tb) = self.tb else {
            return false;
        };
        // A side has at most nine pieces on the board and in hand.
        let total = |c| pos.pieces(c).count() as u8 + pos.hand(c);
        let (w, b) = (total(Color::White), total(Color::Black));
        let loaded = |us, them| Sector::new(us, them).is_some_and(|s| tb.contains(pos.rules(), s));
        loaded(w, b) && loaded(b, w)
    }

    /// The exact score of a position at `ply` plies from the root, if a loaded sector
    /// covers it with distances.
    pub(crate) fn score(&self, pos: &Position, ply: usize) -> Result<Option<i32>, SearchError> {
        Ok(match self.probe(pos, ply)? {
            Some(TbScore::Exact(s)) => Some(s),
            _ => None,
        })
    }

    /// What a loaded sector says of a position at `ply` plies from the root: its exact
    /// score, or, from a win/draw/loss file without distances, a bound that a search
    /// for the value alone can cut with (every win scores at least as the longest win
    /// of its sector, which the file's header records).
    pub(crate) fn probe(&self, pos: &Position, ply: usize) -> Result<Option<TbScore>, SearchError> {
        let Some(tb) = self.tb else {
            return Ok(None);
        };
        match tb.probe(pos)? {
            Some(probe) => TbScore::of(&probe, ply),
            None => Ok(None),
        }
    }

    /// The score a loaded sector gives a node searched with the window `(alpha, beta)`
    /// at `ply` plies from the root, if it decides the node: as [`Tablebases::probe`]
    /// and [`TbScore::within`], but the distance of a sector that does not store its
    /// distances is found (a one-ply search over the tables) only when the result's
    /// bound alone does not decide the node, as in a search for the value alone it
    /// always does.
    pub(crate) fn probe_cut(
        &self,
        pos: &Position,
        ply: usize,
        alpha: i32,
        beta: i32,
    ) -> Result<Option<i32>, SearchError> {
        let Some(tb) = self.tb else {
            return Ok(None);
        };
        let Some(found) = tb.probe_stored(pos)? else {
            return Ok(None);
        };
        let score = TbScore::of(&found, ply)?.and_then(|t| t.within(alpha, beta));
        if score.is_some() || !found.value.is_distance_unknown() {
            return Ok(score);
        }
        let derived = tb.derive(pos, found)?;
        Ok(TbScore::of(&derived, ply)?.and_then(|t| t.within(alpha, beta)))
    }

    /// The exact score of the position after `m`, for the side that plays it, when the
    /// game ends or a tablebase covers it.
    fn child_score(&self, pos: &Position, m: Move) -> Result<Option<i32>, SearchError> {
        let next = pos.play_unchecked(m);
        let score = match end_score(&next, 1) {
            Some(s) => Some(s),
            None => self.score(&next, 1)?,
        };
        Ok(score.map(|s| -s))
    }

    /// Every move of a covered position that keeps its value, best first under the
    /// searcher's strategy; empty when the position is not covered.
    pub(crate) fn best_moves(&self, pos: &Position) -> Result<Vec<Move>, SearchError> {
        self.ranked_moves(pos, self.strategy, &[])
    }

    /// Every move of a covered position that keeps its value, best first under
    /// `strategy` after the positions of `history` (full-state hashes); empty when
    /// the position is not covered.
    pub(crate) fn ranked_moves(
        &self,
        pos: &Position,
        strategy: Strategy,
        history: &[u64],
    ) -> Result<Vec<Move>, SearchError> {
        let Some(target) = self.score(pos, 0)? else {
            return Ok(Vec::new());
        };
        let mut best = Vec::new();
        for &m in pos.legal_moves().iter() {
            if self.child_score(pos, m)? == Some(target) {
                best.push(m);
            }
        }
        if target <= 0 && best.len() > 1 {
            self.rank(pos, target == 0, strategy, &mut best, history)?;
        }
        Ok(best)
    }

    /// The best line from a covered position, after the positions of `history`
    /// (full-state hashes), until the game ends, a position is not covered, or `max`
    /// plies.
    pub(crate) fn line(
        &self,
        pos: &Position,
        max: usize,
        history: &[u64],
    ) -> Result<Vec<Move>, SearchError> {
        let mut history = history.to_vec();
        let mut line = Vec::new();
        let mut pos = *pos;
        let mut seen = vec![pos.repetition_key()];
        while line.len() < max && pos.end().is_none() {
            let Some(target) = self.score(&pos, 0)? else {
                break;
            };
            // The strategy's whole choice (circles and traps too) for the first move,
            // which a player plays; the classes alone after it, which is enough for
            // a line to show where the game goes and keeps it short.
            let strategy = match self.strategy {
                Strategy::Ultra if !line.is_empty() => Strategy::Classes,
                s => s,
            };
            let best = if target <= 0 && strategy != Strategy::Perfect {
                self.ranked_moves(&pos, strategy, &history)?
                    .first()
                    .copied()
            } else {
                let mut best = None;
                for &m in pos.legal_moves().iter() {
                    if self.child_score(&pos, m)? == Some(target) {
                        best = Some(m);
                        break;
                    }
                }
                best
            };
            let Some(m) = best else { break };
            line.push(m);
            history.push(pos.hash());
            pos = pos.play_unchecked(m);
            // A drawn line goes on forever: stop at the first repetition.
            if target == 0 && seen.contains(&pos.repetition_key()) {
                break;
            }
            seen.push(pos.repetition_key());
        }
        Ok(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use morris_tablebase::Value;
    use std::path::Path;

    /// Files of every kind that may answer: raw movement, compact, raw placement.
    const FILES: [&str; 3] = [
        "tb/standard-3-3.tb",
        "tb/standard-3-3.dtm",
        "tb/standard-2-3+1-0.tb",
    ];

    /// A stored distance beyond the search's scores is an error naming the file that
    /// answered, whatever its kind (a compact or a placement file once left the name
    /// empty).
    #[test]
    fn a_distance_beyond_the_scores_names_the_file_that_answered() {
        for name in FILES {
            let probe = Probe {
                value: Value::win(201),
                longest: Some(201),
                file: Path::new(name),
            };
            assert_eq!(
                TbScore::of(&probe, 0).expect("fits"),
                Some(TbScore::Exact(MATE - 201))
            );
            let ply = usize::try_from(MAX_DISTANCE - 200).expect("positive");
            let e = TbScore::of(&probe, ply).expect_err("beyond the scores");
            assert!(
                matches!(&e, SearchError::Distance { file, dtm: 201, ply: p }
                    if file == Path::new(name) && *p == ply),
                "{e}"
            );
            assert!(e.to_string().starts_with(name), "{e}");
        }
    }

    /// A decided value without its distance is bounded by the longest win or loss of
    /// its sector, as far as the mate band reaches; a draw is exact.
    #[test]
    fn a_value_without_distance_is_bounded_by_its_sector() {
        let probe = |wdl, longest| Probe {
            value: Value::wdl_only(wdl),
            longest,
            file: Path::new(FILES[1]),
        };
        let of = |p: Probe<'_>, ply| TbScore::of(&p, ply).expect("no distance to overflow");
        assert_eq!(
            of(probe(Wdl::Win, Some(30)), 2),
            Some(TbScore::AtLeast(MATE - 32))
        );
        assert_eq!(
            of(probe(Wdl::Loss, Some(26)), 3),
            Some(TbScore::AtMost(-(MATE - 29)))
        );
        assert_eq!(of(probe(Wdl::Draw, None), 5), Some(TbScore::Exact(0)));
        let far = usize::try_from(MAX_DISTANCE).expect("positive");
        assert_eq!(of(probe(Wdl::Win, Some(30)), far), None);
    }
}
