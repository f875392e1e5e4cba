//! The search's door to the tablebases.
//!
//! Every tablebase read of the search goes through [`Tablebases::score`], which turns
//! a stored value into a score and a damaged file into a [`SearchError`] naming it, so
//! no damaged value is ever walked around as if it were a miss. The rest of this
//! module reads the tablebases alone, without search: the best moves of a covered
//! position and its line to the end of the game.

use crate::error::SearchError;
use crate::score::{end_score, value_score, MATE, MAX_DISTANCE};
use morris_engine::{Color, Move, Position};
use morris_tablebase::compact::CompactFile;
use morris_tablebase::sector::SectorId;
use morris_tablebase::{Sector, SectorFile, Tablebase, Value, Wdl};

/// Most pieces a side has on the board.
const PIECES: usize = 9;

/// Where a movement sector's values are read.
#[derive(Clone, Copy)]
enum Movement<'a> {
    /// Its raw file.
    Raw(&'a SectorFile),
    /// Its compact file (the DTM file when there is one).
    Compact(&'a CompactFile),
}

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
}

/// The bound a value without distance from compact file `file` gives (a draw is
/// exact): a win is no longer than the longest win of its sector, a loss than the
/// longest loss; `None` for a distance beyond the mate band.
fn bound(file: &CompactFile, value: Value, ply: usize) -> Option<TbScore> {
    let stats = file.header().stats;
    let longest = match value.wdl() {
        Wdl::Draw => return Some(TbScore::Exact(0)),
        Wdl::Win => stats.longest_win,
        Wdl::Loss => stats.longest_loss,
    };
    let n = i32::try_from(ply)
        .ok()?
        .checked_add(i32::from(longest))
        .filter(|&n| n <= MAX_DISTANCE)?;
    Some(match value.wdl() {
        Wdl::Win => TbScore::AtLeast(MATE - n),
        _ => TbScore::AtMost(-(MATE - n)),
    })
}

/// The tablebases a searcher may consult, if any, with the movement files looked up
/// once: the search probes a table at every node where a line leaves the placing
/// phase (half of the nodes of an opening proof) and at every placing node that a
/// placement table might hold, and a lookup by name there cost more than the read.
pub(crate) struct Tablebases<'a> {
    tb: Option<&'a Tablebase>,
    /// By variant, pieces of the side to move and of the opponent.
    movement: [[[Option<Movement<'a>>; PIECES + 1]; PIECES + 1]; 2],
    /// By variant: whether any placement file is loaded.
    placement: [bool; 2],
}

impl<'a> Tablebases<'a> {
    pub(crate) fn new(tb: Option<&'a Tablebase>) -> Tablebases<'a> {
        let mut movement = [[[None; PIECES + 1]; PIECES + 1]; 2];
        let mut placement = [false; 2];
        if let Some(tb) = tb {
            for (variant, sector, table) in tb.compact_tables() {
                match (sector, table.answering()) {
                    (SectorId::Movement(Sector { us, them }), Some(file)) => {
                        let slot = &mut movement[variant.index()][usize::from(us)];
                        slot[usize::from(them)] = Some(Movement::Compact(file));
                    }
                    (SectorId::Placement(_), Some(_)) => placement[variant.index()] = true,
                    _ => {}
                }
            }
            // A raw file answers before the compact ones, as in `Tablebase::probe`.
            for (variant, sector, file) in tb.sectors() {
                let Sector { us, them } = sector;
                let slot = &mut movement[variant.index()][usize::from(us)];
                slot[usize::from(them)] = Some(Movement::Raw(file));
            }
            for (variant, _, _) in tb.placement_sectors() {
                placement[variant.index()] = true;
            }
        }
        Tablebases {
            tb,
            movement,
            placement,
        }
    }

    /// Whether the movement sector where the placing phase of `pos` ends without a
    /// capture is loaded, in both orientations: without it, a search for the value
    /// to the end of the placing phase ends its lines in heuristic leaves and proves
    /// nothing, however long it runs.
    pub(crate) fn reaches_movement(&self, pos: &Position) -> bool {
        let movement = &self.movement[pos.variant().index()];
        let total = |c| pos.pieces(c).count() as usize + usize::from(pos.hand(c));
        let (w, b) = (total(Color::White), total(Color::Black));
        let loaded = |us: usize, them: usize| {
            movement
                .get(us)
                .and_then(|row| row.get(them))
                .is_some_and(Option::is_some)
        };
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
        let variant = pos.variant().index();
        let file = || Tablebase::sector_of(pos).and_then(|s| tb.file(pos.variant(), s));
        // The compact file that answered a movement position, if one did: a value
        // without distance is bounded by its header.
        let mut compact = None;
        let value = if pos.pieces_in_hand() {
            if !self.placement[variant] {
                return Ok(None);
            }
            tb.probe(pos)?
        } else {
            // The file `Tablebase::probe` would read, without its lookup by name.
            let (us, them) = (pos.us(), pos.them());
            let movement = &self.movement[variant];
            match movement
                .get(us.count() as usize)
                .and_then(|row| row.get(them.count() as usize))
            {
                Some(Some(Movement::Raw(f))) => Some(f.value(f.index().index(us, them))?),
                Some(Some(Movement::Compact(f))) => {
                    compact = Some(*f);
                    Some(f.value(f.index().index(us, them))?)
                }
                _ => None,
            }
        };
        let Some(value) = value else {
            return Ok(None);
        };
        if value.is_distance_unknown() {
            // The file is known for movement positions; a placement one is looked up.
            let answering = compact.or_else(|| {
                let sector = Tablebase::sector_id_of(pos)?;
                tb.compact(pos.variant(), sector)?.answering()
            });
            return Ok(answering.and_then(|f| bound(f, value, ply)));
        }
        match value_score(value, ply) {
            Some(score) => Ok(Some(TbScore::Exact(score))),
            None => Err(SearchError::Distance {
                file: file().map(|f| f.path().to_path_buf()).unwrap_or_default(),
                dtm: value.dtm().unwrap_or_default(),
                ply,
            }),
        }
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

    /// Every move of a covered position that keeps its value; empty when the position
    /// is not covered.
    pub(crate) fn best_moves(&self, pos: &Position) -> Result<Vec<Move>, SearchError> {
        let Some(target) = self.score(pos, 0)? else {
            return Ok(Vec::new());
        };
        let mut best = Vec::new();
        for &m in pos.legal_moves().iter() {
            if self.child_score(pos, m)? == Some(target) {
                best.push(m);
            }
        }
        Ok(best)
    }

    /// The best line from a covered position, until the game ends, a position is not
    /// covered, or `max` plies.
    pub(crate) fn line(&self, pos: &Position, max: usize) -> Result<Vec<Move>, SearchError> {
        let mut line = Vec::new();
        let mut pos = *pos;
        let mut seen = vec![pos.repetition_key()];
        while line.len() < max && pos.end().is_none() {
            let Some(target) = self.score(&pos, 0)? else {
                break;
            };
            let mut best = None;
            for &m in pos.legal_moves().iter() {
                if self.child_score(&pos, m)? == Some(target) {
                    best = Some(m);
                    break;
                }
            }
            let Some(m) = best else { break };
            line.push(m);
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
