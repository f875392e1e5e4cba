//! The JSON documents: one set of types for every command that writes one, with the
//! same field names and meanings everywhere. The document about a position
//! ([`Report`]: `probe --json`, `solve --json`, `analyze --json`, the API's
//! `/api/position`), the review of a game ([`ReviewJson`]: `review --json`,
//! `/api/review`) and a training position ([`PuzzleJson`]: each entry of
//! `puzzles --json`, `/api/puzzle`).
//!
//! A document has every field. What a command does not compute is `null` (probe: the
//! line, the search and each move's depth; solve: the moves), while an empty list
//! means there is none: a finished game has no moves, best moves or line. Values are
//! for the side to move of their position: the document's `value` for the position's,
//! a move's `value` for the side to move after it (the opponent), as chess tablebase
//! explorers give them; a move's `result` is for the player who makes it.
//!
//! The types live in the binary, not in the solver crate: they describe the answer
//! of a command (position strings, each side's phase, search limits), and the library
//! crates stay free of serde.

use crate::describe::search_depth;
use morris_engine::{notation, Color, Game, GameEnd, Move, Position};
use morris_solver::puzzles::{Goal, Puzzle};
use morris_solver::review::{Outcome, Review, Summary};
use morris_solver::strategy::Strategy;
use morris_solver::{
    Analysis, ClassInfo, MoveAnalysis, Provenance, SearchError, SearchResult, Searcher, Verdict,
};
use morris_tablebase::SectorId;
use morris_tablebase::Wdl;
use serde::Serialize;
use std::time::Duration;

/// Whose the values are, in words, in every document.
pub const PERSPECTIVE: &str = "\"value\" is for the side to move in this position; each move's \"value\" is for the side to move in the position it leads to (the opponent), as in chess tablebase explorers, and its \"result\" is for the player who makes it";

/// What `obtained` says of a position the tablebases do not hold.
pub const NOT_COVERED: &str = "not covered";

/// The document: the position, its value, its best moves and line, every legal move
/// and the search that gave them.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Our position string.
    pub position: String,
    /// The same position as Sanmill writes it.
    pub sanmill: String,
    /// `standard` or `no-flying`, or the spec of a house rule
    /// (`standard,captures=per-mill`).
    pub variant: String,
    /// `white` or `black`.
    pub side_to_move: &'static str,
    /// White's pieces, hand and phase.
    pub white: Side,
    /// Black's pieces, hand and phase.
    pub black: Side,
    /// How the game ended, or `null` while it goes on.
    pub game_over: Option<GameOver>,
    /// Whose the values are.
    pub perspective: &'static str,
    /// The moves played to reach the position (from `--fen`, or the start).
    pub played: Vec<String>,
    /// The value for the side to move.
    pub value: Value,
    /// Every move that keeps the value at its best, in notation order.
    pub best: Vec<String>,
    /// The best line from here; `null` where not computed (probe).
    pub line: Option<Vec<String>>,
    /// Every legal move, best first for the side to move: quickest win, draws,
    /// slowest loss; `null` where not computed (solve).
    pub moves: Option<Vec<MoveReport>>,
    /// The search behind the answer; `null` where none ran (probe, a finished game).
    pub search: Option<Search>,
}

/// One side of the position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Side {
    /// Its points on the board.
    pub board: Vec<String>,
    /// Its pieces in hand.
    pub hand: u8,
    /// `placing`, `sliding` or `flying`.
    pub phase: &'static str,
}

/// The end of the game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameOver {
    /// `white`, `black`, or `null` for a draw.
    pub winner: Option<&'static str>,
    /// `two-pieces`, `blocked` or `threefold`.
    pub reason: &'static str,
    /// The end in words.
    pub message: String,
}

/// The value of a position for its side to move, and how it was obtained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Value {
    /// `win`, `draw`, `loss`, or `null` when unknown (an estimate, a position not
    /// covered).
    #[serde(serialize_with = "wdl_text")]
    pub wdl: Option<Wdl>,
    /// Plies to the end of the game under optimal play; `null` for a draw or where
    /// not known.
    pub dtm: Option<u16>,
    /// Whether the value is exact, with its distance where one is given.
    pub exact: bool,
    /// Whether this is a search's estimate (then `score` says how good it looks).
    pub estimate: bool,
    /// How it was obtained: the label `morris solve` prints (`terminal`,
    /// `tablebase`, `proof search`, `depth-limited estimate`, ...), or
    /// [`NOT_COVERED`].
    pub obtained: &'static str,
    /// The depth in plies of the search that gave it; `null` for a finished game or
    /// a table's entry.
    pub depth: Option<u32>,
    /// The search's score for an estimate (positive is good for the side to move);
    /// `null` otherwise.
    pub score: Option<i32>,
    /// A drawn position's draw class, where class files say it; `null` otherwise.
    pub class: Option<ClassJson>,
}

/// Where a drawn game settles under ultra-strong play (README, "Draw classes").
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClassJson {
    /// The class for the side to move: the expected score margin, in percent points,
    /// of the sector pair where the game settles (-100 to 100, higher is better).
    pub class: i8,
    /// Plies until the game leaves its sector pair for the one it settles in; 0 where
    /// it stays.
    pub distance: u8,
    /// The movement sector where it settles, the side to move's pieces first; `null`
    /// where the tables do not reach it.
    pub settles: Option<String>,
}

impl ClassJson {
    /// The class of a position.
    pub fn of(info: &ClassInfo) -> ClassJson {
        ClassJson {
            class: info.class.class,
            distance: info.class.distance,
            settles: info.settles.map(|s| s.to_string()),
        }
    }
}

/// What a move brings the player who makes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveResult {
    /// `win`, `draw`, `loss`, or `null` when unknown.
    #[serde(serialize_with = "wdl_text")]
    pub wdl: Option<Wdl>,
    /// Plies to the end of the game counted before the move; `null` for a draw or
    /// where not known.
    pub dtm: Option<u16>,
    /// Whether the result is exact.
    pub exact: bool,
    /// The search's score for the mover, for an estimate; `null` otherwise.
    pub score: Option<i32>,
    /// For a drawing move with a class, the class for the mover (the negated class of
    /// the position it leads to); `null` otherwise.
    pub class: Option<i8>,
}

/// One legal move and where it leads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveReport {
    /// The move in our notation: `d6`, `a1-a4`, `d6xg7`.
    #[serde(rename = "move")]
    pub mv: String,
    /// The point it leaves, `null` for a placement.
    pub from: Option<String>,
    /// The point it reaches.
    pub to: String,
    /// The piece it takes, if any.
    pub capture: Option<String>,
    /// The position it leads to.
    pub position: String,
    /// That position's value, for its side to move (the opponent).
    pub value: Value,
    /// The result for the player who makes the move.
    pub result: MoveResult,
    /// Plies searched after the move; `null` where no search ran (probe).
    pub depth: Option<u32>,
}

/// The search behind an answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Search {
    /// The time limit in seconds, `null` for none.
    pub time_limit_s: Option<f64>,
    /// Milliseconds the answer took, from when its time began to run.
    pub time_ms: u64,
    /// Nodes searched.
    pub nodes: u64,
    /// The depth of the last completed iteration, in plies.
    pub depth: u32,
}

impl Search {
    /// The search of a result, under a time limit, that took `elapsed`.
    pub fn new(r: &SearchResult, time_limit: Option<Duration>, elapsed: Duration) -> Search {
        Search {
            time_limit_s: time_limit.map(|t| t.as_secs_f64()),
            time_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
            nodes: r.stats.nodes,
            depth: r.depth,
        }
    }
}

/// A value's name: `win`, `draw` or `loss`.
fn wdl_name(w: Wdl) -> &'static str {
    match w {
        Wdl::Win => "win",
        Wdl::Draw => "draw",
        Wdl::Loss => "loss",
    }
}

/// A value as text: `win`, `draw`, `loss`, or `null`.
fn wdl_text<S: serde::Serializer>(w: &Option<Wdl>, s: S) -> Result<S::Ok, S::Error> {
    w.map(wdl_name).serialize(s)
}

impl Value {
    /// A search's answer: its exact value, or its estimate.
    pub fn searched(r: &SearchResult) -> Value {
        let depth = search_depth(r.provenance, r.depth);
        match r.value {
            // A proven result whose distance is only an upper bound keeps `exact: false`.
            Some(v) => Value {
                exact: r.provenance.is_exact(),
                ..Value::known(v, r.provenance.name(), depth)
            },
            None => Value {
                wdl: None,
                dtm: None,
                exact: false,
                estimate: true,
                obtained: r.provenance.name(),
                depth,
                score: Some(r.score),
                class: None,
            },
        }
    }

    /// The tablebases' value, `None` for a position they do not cover.
    pub fn table(v: Option<Verdict>) -> Value {
        match v {
            Some(v) => Value::known(v, Provenance::Tablebase.name(), None),
            None => Value {
                wdl: None,
                dtm: None,
                exact: false,
                estimate: false,
                obtained: NOT_COVERED,
                depth: None,
                score: None,
                class: None,
            },
        }
    }

    /// The value of a finished game for its side to move: 0 plies to go.
    pub fn finished(pos: &Position, end: GameEnd) -> Value {
        let wdl = end.value_for(pos.side_to_move());
        let v = Verdict {
            wdl,
            dtm: (wdl != Wdl::Draw).then_some(0),
        };
        Value::known(v, Provenance::Terminal.name(), None)
    }

    fn known(v: Verdict, obtained: &'static str, depth: Option<u32>) -> Value {
        Value {
            wdl: Some(v.wdl),
            dtm: v.dtm,
            exact: true,
            estimate: false,
            obtained,
            depth,
            score: None,
            class: None,
        }
    }
}

impl MoveResult {
    /// The result of a move for its player, from the value of the position it leads
    /// to: the opposite, one ply further from the end.
    pub fn of(value: &Value) -> MoveResult {
        let wdl = value.wdl.map(|w| match w {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        });
        MoveResult {
            wdl,
            dtm: match wdl {
                Some(Wdl::Draw) => None,
                _ => value.dtm.map(|d| d + 1),
            },
            exact: value.exact,
            score: value.score.map(|s| -s),
            class: value.class.as_ref().map(|c| -c.class),
        }
    }

    /// How good the result is for the mover: higher is better (a quicker win, a
    /// slower loss); an unknown result between draws and losses.
    fn rank(&self) -> (u8, i32) {
        let d = self.dtm.map_or(i32::from(u16::MAX), i32::from);
        match self.wdl {
            Some(Wdl::Win) => (4, -d),
            // A drawing move with a class above one without.
            Some(Wdl::Draw) => (3, self.class.map_or(-1000, i32::from)),
            None => (2, self.score.unwrap_or(0)),
            Some(Wdl::Loss) => (1, self.dtm.map_or(0, i32::from)),
        }
    }
}

impl MoveReport {
    /// Move `mv` of `pos`, leading to a position of value `value`, searched to
    /// `depth` plies after it where a search ran.
    pub fn new(pos: &Position, mv: Move, value: Value, depth: Option<u32>) -> MoveReport {
        MoveReport {
            mv: mv.to_string(),
            from: mv.from().map(|p| p.to_string()),
            to: mv.to().to_string(),
            capture: mv.capture().map(|p| p.to_string()),
            position: pos.play_unchecked(mv).to_string(),
            result: MoveResult::of(&value),
            value,
            depth,
        }
    }

    /// One move of an analysis.
    fn analysed(pos: &Position, a: &MoveAnalysis) -> MoveReport {
        let value = Value {
            class: a.class.as_ref().map(ClassJson::of),
            ..Value::searched(&a.result)
        };
        MoveReport::new(pos, a.mv, value, Some(a.result.depth))
    }
}

fn side(pos: &Position, c: Color) -> Side {
    Side {
        board: pos.pieces(c).iter().map(|p| p.to_string()).collect(),
        hand: pos.hand(c),
        phase: pos.phase(c).name(),
    }
}

fn game_over(end: GameEnd) -> GameOver {
    let (winner, reason) = match end {
        GameEnd::TwoPieces { winner } => (Some(winner.name()), "two-pieces"),
        GameEnd::Blocked { winner } => (Some(winner.name()), "blocked"),
        GameEnd::Threefold => (None, "threefold"),
    };
    GameOver {
        winner,
        reason,
        message: end.to_string(),
    }
}

fn names(moves: &[Move]) -> Vec<String> {
    moves.iter().map(ToString::to_string).collect()
}

/// The moves whose result is the first's (the best), in notation order; a drawing
/// move's class counts only where the strategy steers by class in `pos`
/// ([`Strategy::steers_by_class`]: `ultra` while placing takes every drawing move,
/// as `solve` lists them).
fn best_of(pos: &Position, strategy: Strategy, moves: &[MoveReport]) -> Vec<String> {
    let Some(first) = moves.first() else {
        return Vec::new();
    };
    if first.result.wdl.is_none() && first.result.score.is_none() {
        return Vec::new();
    }
    let by_class = strategy.steers_by_class(pos);
    let key = |r: &MoveResult| MoveResult {
        class: if by_class { r.class } else { None },
        ..r.clone()
    };
    let top = key(&first.result);
    let mut best: Vec<String> = moves
        .iter()
        .filter(|m| key(&m.result) == top)
        .map(|m| m.mv.clone())
        .collect();
    best.sort();
    best
}

impl Report {
    /// The document of a game's current position with its value; nothing else known
    /// yet.
    fn new(game: &Game, value: Value) -> Report {
        let pos = game.position();
        Report {
            position: pos.to_string(),
            sanmill: notation::setup_to_sanmill(&pos.to_setup()),
            variant: pos.rules().to_string(),
            side_to_move: pos.side_to_move().name(),
            white: side(pos, Color::White),
            black: side(pos, Color::Black),
            game_over: game.end().map(game_over),
            perspective: PERSPECTIVE,
            played: names(game.moves()),
            value,
            best: Vec::new(),
            line: None,
            moves: None,
            search: None,
        }
    }

    /// A finished game: its end, its value, and no moves.
    pub fn finished(game: &Game, end: GameEnd) -> Report {
        Report {
            line: Some(Vec::new()),
            moves: Some(Vec::new()),
            ..Report::new(game, Value::finished(game.position(), end))
        }
    }

    /// The analysis of every move of a game's position (`analyze`, the API), its best
    /// moves as `strategy` counts them.
    pub fn analysis(
        game: &Game,
        analysis: &Analysis,
        search: Search,
        strategy: Strategy,
    ) -> Report {
        let pos = game.position();
        let moves: Vec<MoveReport> = analysis
            .moves
            .iter()
            .map(|a| MoveReport::analysed(pos, a))
            .collect();
        Report {
            best: best_of(pos, strategy, &moves),
            line: Some(names(&analysis.root.pv)),
            moves: Some(moves),
            search: Some(search),
            ..Report::new(
                game,
                Value {
                    class: analysis.class.as_ref().map(ClassJson::of),
                    ..Value::searched(&analysis.root)
                },
            )
        }
    }

    /// The search of a game's position (`solve`), with its best moves: all those
    /// that keep the tablebase value where the tables hold it, else the search's.
    pub fn solved(game: &Game, r: &SearchResult, best: &[Move], search: Search) -> Report {
        let mut best = if best.is_empty() {
            r.best.iter().map(ToString::to_string).collect()
        } else {
            names(best)
        };
        best.sort();
        Report {
            best,
            line: Some(names(&r.pv)),
            search: Some(search),
            ..Report::new(game, Value::searched(r))
        }
    }

    /// The tablebases' answer for a game's position (`probe`): its value and every
    /// move's, best first, its best moves as `strategy` counts them.
    pub fn probed(
        game: &Game,
        value: Value,
        mut moves: Vec<MoveReport>,
        strategy: Strategy,
    ) -> Report {
        moves.sort_by(|a, b| {
            b.result
                .rank()
                .cmp(&a.result.rank())
                .then_with(|| a.mv.cmp(&b.mv))
        });
        Report {
            best: best_of(game.position(), strategy, &moves),
            moves: Some(moves),
            ..Report::new(game, value)
        }
    }
}

/// What a move brings its player in a review: the result, its distance counted before
/// the move, and for a draw the class it steers to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutcomeJson {
    /// `win`, `draw` or `loss`.
    pub wdl: &'static str,
    /// Plies to the end of the game; `null` for a draw or where not known.
    pub dtm: Option<u16>,
    /// For a draw with class files (and the ultra strategy), the class for the mover.
    pub class: Option<i8>,
}

impl OutcomeJson {
    fn of(o: &Outcome) -> OutcomeJson {
        OutcomeJson {
            wdl: wdl_name(o.wdl),
            dtm: o.dtm,
            class: o.class,
        }
    }
}

/// One ply of a reviewed game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlyJson {
    /// Its number, from 1.
    pub ply: usize,
    /// `white` or `black`: who moved.
    pub side: &'static str,
    /// The position before the move.
    pub position: String,
    /// The move played.
    #[serde(rename = "move")]
    pub mv: String,
    /// Whether the tables judged it.
    pub judged: bool,
    /// Why not, when not judged.
    pub reason: Option<String>,
    /// The value before the move for its player: what the best move brings.
    pub before: Option<OutcomeJson>,
    /// What the move played brings its player.
    pub after: Option<OutcomeJson>,
    /// `best`, `inaccuracy` or `blunder`; `null` when not judged.
    pub mark: Option<&'static str>,
    /// Whether every other move loses value.
    pub only_move: bool,
    /// The best moves, best first.
    pub best: Vec<String>,
}

/// One player's plies of a reviewed game, counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SummaryJson {
    /// Plies judged.
    pub judged: u32,
    /// Plies not judged.
    pub not_judged: u32,
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

impl SummaryJson {
    fn of(s: Summary) -> SummaryJson {
        SummaryJson {
            judged: s.judged,
            not_judged: s.unjudged,
            best: s.best,
            inaccuracies: s.inaccuracies,
            blunders: s.blunders,
            only_moves: s.only_moves,
            only_moves_found: s.only_moves_found,
        }
    }
}

/// The review of a game (`review --json`, `/api/review`): every ply judged by the
/// tables, and a summary per player.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReviewJson {
    /// The position the game starts from.
    pub start: String,
    /// `standard` or `no-flying`, or the spec of a house rule.
    pub variant: String,
    /// Every ply, in order.
    pub plies: Vec<PlyJson>,
    /// White's summary.
    pub white: SummaryJson,
    /// Black's summary.
    pub black: SummaryJson,
}

impl ReviewJson {
    /// The document of a review of the game that starts at `start`.
    pub fn of(r: &Review, start: &Position) -> ReviewJson {
        let plies = r
            .plies
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let j = p.verdict.as_ref().ok();
                PlyJson {
                    ply: i + 1,
                    side: p.before.side_to_move().name(),
                    position: p.before.to_string(),
                    mv: p.played.to_string(),
                    judged: j.is_some(),
                    reason: p.verdict.as_ref().err().cloned(),
                    before: j.map(|j| OutcomeJson::of(&j.best)),
                    after: j.map(|j| OutcomeJson::of(&j.played)),
                    mark: j.map(|j| j.mark.name()),
                    only_move: j.is_some_and(|j| j.only_move),
                    best: j.map_or(Vec::new(), |j| names(&j.best_moves)),
                }
            })
            .collect();
        ReviewJson {
            start: start.to_string(),
            variant: start.rules().to_string(),
            plies,
            white: SummaryJson::of(r.summary(Color::White)),
            black: SummaryJson::of(r.summary(Color::Black)),
        }
    }
}

/// A training position (each entry of `puzzles --json`, `/api/puzzle`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PuzzleJson {
    /// The position, its side to move to play.
    pub position: String,
    /// The sector it was drawn from.
    pub sector: String,
    /// `white` or `black`.
    pub side_to_move: &'static str,
    /// `win` (the one move that keeps the win) or `draw` (the one that holds it).
    pub goal: &'static str,
    /// Plies to the end under best play, for a win; `null` for a draw.
    pub dtm: Option<u16>,
    /// The one move.
    pub solution: String,
    /// The solution and the best line after it, by the tables.
    pub line: Vec<String>,
    /// Legal moves in the position.
    pub legal_moves: usize,
}

impl PuzzleJson {
    /// The document of a puzzle drawn from `sector`, its line by `searcher`'s tables
    /// (at most 60 plies after the solution).
    ///
    /// # Errors
    /// [`SearchError`] when a table file read for the line is damaged.
    pub fn of(
        p: &Puzzle,
        sector: SectorId,
        searcher: &Searcher<'_>,
    ) -> Result<PuzzleJson, SearchError> {
        let after = p.position.play_unchecked(p.solution);
        let mut line = vec![p.solution];
        line.extend(searcher.tablebase_line(&after, 60)?);
        Ok(PuzzleJson {
            position: p.position.to_string(),
            sector: sector.to_string(),
            side_to_move: p.position.side_to_move().name(),
            goal: match p.goal {
                Goal::Win => "win",
                Goal::Draw => "draw",
            },
            dtm: p.dtm,
            solution: p.solution.to_string(),
            line: names(&line),
            legal_moves: p.moves,
        })
    }
}

/// The sectors puzzles are drawn from by default, those present (`/api/puzzle/sectors`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PuzzleSectorsJson {
    /// `standard` or `no-flying`.
    pub variant: &'static str,
    /// The classic endgames present in the tables, pieces of the side to move first.
    pub sectors: Vec<String>,
}
