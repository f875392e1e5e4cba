//! Training positions from the tablebases: positions where exactly one move keeps a
//! win (or, in a drawn position, exactly one move saves the draw), found by sampling a
//! sector's entries with a seeded generator.

use crate::review::outcome;
use crate::strategy::Rng;
use morris_engine::{Move, Position, Rules, Variant, Wdl};
use morris_tablebase::{FileError, Sector, SectorId, Tablebase};

/// The endgames players practise most, offered by default (pieces of the side to
/// move first).
pub const CLASSICS: [(u8, u8); 7] = [(3, 3), (3, 4), (4, 3), (5, 4), (4, 5), (7, 4), (4, 7)];

/// The shortest win a puzzle asks for by default, in plies: shorter ones are too easy.
pub const MIN_DTM: u16 = 5;

/// The entries of a sector tried by default before giving up.
pub const TRIES: u64 = 200_000;

/// The sectors of [`CLASSICS`] present in `tb` for `variant`, in that order.
pub fn classics(tb: &Tablebase, variant: Variant) -> Vec<SectorId> {
    CLASSICS
        .iter()
        .filter_map(|&(u, t)| Sector::new(u, t))
        .filter(|&s| tb.contains(variant, s))
        .map(SectorId::from)
        .collect()
}

/// What a puzzle asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// Find the one move that keeps the win.
    Win,
    /// Find the one move that keeps the draw (every other loses).
    Draw,
}

/// A training position.
#[derive(Clone, Debug)]
pub struct Puzzle {
    /// The position, side to move to play.
    pub position: Position,
    /// What it asks.
    pub goal: Goal,
    /// Plies to the end under best play, for a win.
    pub dtm: Option<u16>,
    /// The one move.
    pub solution: Move,
    /// Legal moves in the position.
    pub moves: usize,
}

/// What to look for.
#[derive(Clone, Copy, Debug)]
pub struct Search {
    /// The sector to sample.
    pub sector: SectorId,
    /// The goal, or either.
    pub goal: Option<Goal>,
    /// Wins at least this long (plies).
    pub min_dtm: u16,
    /// Wins at most this long.
    pub max_dtm: u16,
    /// At least this many legal moves (a puzzle with one legal move asks nothing).
    pub min_moves: usize,
}

/// The position of entry `i` of a sector, in the colours a game gives it.
fn position(variant: Variant, sector: SectorId, i: u64) -> Option<Position> {
    let (u, t) = sector.index(Rules::from(variant).board()).position(i);
    Position::from_setup(&sector.setup(u, t), variant).ok()
}

/// The puzzle at a position, if it is one.
///
/// # Errors
/// [`FileError`] naming a damaged table file.
pub fn puzzle_at(
    tb: &Tablebase,
    pos: &Position,
    want: &Search,
) -> Result<Option<Puzzle>, FileError> {
    if pos.end().is_some() {
        return Ok(None);
    }
    let Some(value) = tb.value(pos)? else {
        return Ok(None);
    };
    let goal = match value.wdl() {
        Wdl::Win => Goal::Win,
        Wdl::Draw => Goal::Draw,
        Wdl::Loss => return Ok(None),
    };
    if want.goal.is_some_and(|g| g != goal) {
        return Ok(None);
    }
    if goal == Goal::Win {
        let d = value.dtm().unwrap_or(0);
        if d < want.min_dtm || d > want.max_dtm {
            return Ok(None);
        }
    }
    let moves = pos.legal_moves();
    if moves.len() < want.min_moves.max(2) {
        return Ok(None);
    }
    let mut keeping = None;
    for &m in moves.iter() {
        let Some(o) = outcome(tb, &pos.play_unchecked(m))? else {
            return Ok(None);
        };
        if o.wdl == value.wdl() {
            if keeping.is_some() {
                return Ok(None);
            }
            keeping = Some(m);
        }
    }
    Ok(keeping.map(|solution| Puzzle {
        position: *pos,
        goal,
        dtm: value.dtm().filter(|_| goal == Goal::Win),
        solution,
        moves: moves.len(),
    }))
}

/// Up to `count` puzzles of `want.sector`, from at most `tries` entries drawn with
/// `rng` (distinct puzzles; fewer when the sector has few).
///
/// # Errors
/// [`FileError`] naming a damaged table file.
pub fn find(
    tb: &Tablebase,
    variant: Variant,
    want: &Search,
    count: usize,
    tries: u64,
    rng: &mut Rng,
) -> Result<Vec<Puzzle>, FileError> {
    let size = want.sector.size(Rules::from(variant).board());
    let mut found: Vec<Puzzle> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for _ in 0..tries {
        if found.len() >= count || size == 0 {
            break;
        }
        let i = rng.next_u64() % size;
        if !seen.insert(i) {
            continue;
        }
        let Some(pos) = position(variant, want.sector, i) else {
            continue;
        };
        if let Some(p) = puzzle_at(tb, &pos, want)? {
            found.push(p);
        }
    }
    Ok(found)
}
