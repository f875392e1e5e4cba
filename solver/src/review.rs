//! The review of a game by the tablebases: each ply's value before and after for the
//! player who moved, judged against the best move the tables know.
//!
//! - A **blunder** loses value: a win given up for a draw or a loss, a draw for a loss.
//! - An **inaccuracy** keeps the value but not its quality: a slower win, a quicker
//!   loss, or (with class files) a draw that settles in a worse class than the best
//!   drawing move reaches.
//! - An **only move** is one where every other move loses value; found or missed.
//!
//! A ply whose position the tables do not cover (or one of whose moves leads to a
//! position they do not cover) is not judged, and says why.

use crate::strategy::{rank_draws, Strategy};
use morris_engine::{Color, Game, Move, Position, Wdl};
use morris_tablebase::{FileError, Tablebase, Value};

/// What a move brings its player: the result with its distance counted before the
/// move, and for a draw the class it steers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Win, draw or loss for the player who moves.
    pub wdl: Wdl,
    /// Plies to the end, counted before the move; `None` for a draw or unknown.
    pub dtm: Option<u16>,
    /// For a draw with class files: the class for the player who moves.
    pub class: Option<i8>,
}

impl Outcome {
    /// How good it is: higher is better (a quicker win, a slower loss, a better
    /// class).
    fn rank(&self) -> (u8, i32) {
        match self.wdl {
            Wdl::Win => (2, -self.dtm.map_or(i32::from(u16::MAX), i32::from)),
            Wdl::Draw => (1, self.class.map_or(0, i32::from)),
            Wdl::Loss => (0, self.dtm.map_or(0, i32::from)),
        }
    }
}

/// How a ply is judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// The value kept at its best.
    Best,
    /// The value kept, its quality not.
    Inaccuracy,
    /// Value lost.
    Blunder,
}

impl Mark {
    /// Its name in text and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Mark::Best => "best",
            Mark::Inaccuracy => "inaccuracy",
            Mark::Blunder => "blunder",
        }
    }
}

/// One ply of a game, judged.
#[derive(Clone, Debug)]
pub struct Ply {
    /// The position before the move.
    pub before: Position,
    /// The move played.
    pub played: Move,
    /// What the judgement found, or why there is none.
    pub verdict: Result<Judged, String>,
}

/// The judgement of a ply.
#[derive(Clone, Debug)]
pub struct Judged {
    /// What the best move brings (the value of the position before, for the mover).
    pub best: Outcome,
    /// What the move played brings.
    pub played: Outcome,
    /// Its mark.
    pub mark: Mark,
    /// Whether every other move loses value (and there were others).
    pub only_move: bool,
    /// The best moves (all equally good), best first.
    pub best_moves: Vec<Move>,
}

/// A game's review.
#[derive(Clone, Debug)]
pub struct Review {
    /// Each ply, in order.
    pub plies: Vec<Ply>,
}

/// Per player: plies judged, blunders, inaccuracies, only moves met and found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Plies the tables judged.
    pub judged: u32,
    /// Plies not judged.
    pub unjudged: u32,
    /// Plies at their best.
    pub best: u32,
    /// Inaccuracies.
    pub inaccuracies: u32,
    /// Blunders.
    pub blunders: u32,
    /// Positions with an only move.
    pub only_moves: u32,
    /// Only moves played.
    pub only_moves_found: u32,
}

impl Review {
    /// The summary of `player`'s plies.
    pub fn summary(&self, player: Color) -> Summary {
        let mut s = Summary::default();
        for p in self
            .plies
            .iter()
            .filter(|p| p.before.side_to_move() == player)
        {
            match &p.verdict {
                Err(_) => s.unjudged += 1,
                Ok(j) => {
                    s.judged += 1;
                    match j.mark {
                        Mark::Best => s.best += 1,
                        Mark::Inaccuracy => s.inaccuracies += 1,
                        Mark::Blunder => s.blunders += 1,
                    }
                    if j.only_move {
                        s.only_moves += 1;
                        s.only_moves_found += u32::from(j.mark != Mark::Blunder);
                    }
                }
            }
        }
        s
    }
}

/// What moving to `next` brings the mover, or `None` when the tables do not cover it.
pub(crate) fn outcome(tb: &Tablebase, next: &Position) -> Result<Option<Outcome>, FileError> {
    let theirs = match next.end() {
        Some(end) => Value::finished(next, end),
        None => match tb.value(next)? {
            Some(v) => v,
            None => return Ok(None),
        },
    };
    let wdl = theirs.wdl().opposite();
    let class = match (wdl, tb.class(next)) {
        (Wdl::Draw, Ok(Some(c))) => Some(-c.class),
        _ => None,
    };
    Ok(Some(Outcome {
        wdl,
        dtm: if wdl == Wdl::Draw {
            None
        } else {
            theirs.dtm().map(|d| d + 1)
        },
        class,
    }))
}

/// Judge one ply.
fn judge(
    tb: &Tablebase,
    pos: &Position,
    played: Move,
    strategy: Strategy,
) -> Result<Result<Judged, String>, FileError> {
    if pos.end().is_some() {
        return Ok(Err("the game was over".into()));
    }
    let moves = pos.legal_moves();
    let mut outcomes = Vec::with_capacity(moves.len());
    for &m in moves.iter() {
        match outcome(tb, &pos.play_unchecked(m))? {
            Some(o) => outcomes.push((m, o)),
            None => {
                let sector = Tablebase::sector_id_of(&pos.play_unchecked(m))
                    .map_or("no sector".to_string(), |s| format!("sector {s}"));
                return Ok(Err(format!(
                    "the tables do not cover the position after {m} ({} {sector})",
                    pos.rules()
                )));
            }
        }
    }
    if !strategy.uses_classes() {
        for o in &mut outcomes {
            o.1.class = None;
        }
    }
    let Some(best) = outcomes.iter().map(|o| o.1).max_by_key(Outcome::rank) else {
        return Ok(Err("no legal move".into()));
    };
    let Some(&(_, mine)) = outcomes.iter().find(|o| o.0 == played) else {
        return Ok(Err(format!("{played} is not a legal move here")));
    };
    let keeping = outcomes.iter().filter(|o| o.1.wdl == best.wdl).count();
    let mark = if mine.wdl != best.wdl {
        Mark::Blunder
    } else if mine.rank() < best.rank() {
        Mark::Inaccuracy
    } else {
        Mark::Best
    };
    let mut best_moves: Vec<Move> = outcomes
        .iter()
        .filter(|o| o.1.rank() == best.rank())
        .map(|o| o.0)
        .collect();
    if best.wdl == Wdl::Draw && strategy.uses_classes() {
        if let Some(ranked) = rank_draws(tb, pos, &best_moves)? {
            best_moves = ranked.into_iter().map(|r| r.0).collect();
        }
    }
    Ok(Ok(Judged {
        best,
        played: mine,
        mark,
        only_move: keeping == 1 && moves.len() > 1,
        best_moves,
    }))
}

/// Review every ply of `game` by the tables `tb`; `strategy` says whether draws are
/// judged by their classes (`Classes`, `Ultra`: the traps a move sets are no
/// part of a judgement) or alike (`Perfect`).
///
/// # Errors
/// [`FileError`] naming a damaged table file.
pub fn review(tb: &Tablebase, game: &Game, strategy: Strategy) -> Result<Review, FileError> {
    let mut plies = Vec::new();
    for (pos, &m) in game.positions().iter().zip(game.moves()) {
        plies.push(Ply {
            before: *pos,
            played: m,
            verdict: judge(tb, pos, m, strategy)?,
        });
    }
    Ok(Review { plies })
}
