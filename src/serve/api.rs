//! The JSON API: a request names a position (the answer gives its value and every
//! legal move with the value it leads to, best first), a game to review, or a
//! training position to draw.
//!
//! Everything here is synchronous and bounded: the position and its moves are parsed
//! by the engine's notation, values come from the solver's `analyze` and `search`
//! (tablebase values where the tables cover a position, else a search cut at the
//! request's time limit, labelled an estimate), reviews and puzzles from the tables
//! alone. The answers are the documents of `crate::report`, as `morris analyze
//! --json`, `morris review --json` and `morris puzzles --json` write them. The HTTP
//! layer (`super::http`) runs them on bounded pools of worker threads.

use crate::report::{PuzzleJson, PuzzleSectorsJson, Report, ReviewJson, Search};
use morris_engine::{notation, Game, Position, Rules, Variant};
use morris_solver::puzzles::{self, Goal, CLASSICS};
use morris_solver::{analyze, Limits, Rng, Searcher, Strategy};
use morris_tablebase::{SectorId, Tablebase};
use serde_json::Value as Json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The most plies `/api/review` reviews in one request.
pub const MAX_REVIEW_PLIES: usize = 1000;

/// The longest review answered in the lookup lane (a game of the nine-piece game is
/// rarely longer; 165 plies of the four-piece game take 30 ms).
pub const LOOKUP_REVIEW_PLIES: usize = 200;

/// What a request is for: its path.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `/api/position`: a position, its value and every move's.
    #[default]
    Position,
    /// `/api/review`: a game judged ply by ply.
    Review,
    /// `/api/puzzle`: a training position.
    Puzzle,
    /// `/api/puzzle/sectors`: the sectors puzzles are drawn from by default.
    PuzzleSectors,
}

impl Endpoint {
    /// The endpoint of a path, `None` for another.
    pub fn of_path(path: &str) -> Option<Endpoint> {
        match path {
            "/api/position" => Some(Endpoint::Position),
            "/api/review" => Some(Endpoint::Review),
            "/api/puzzle" => Some(Endpoint::Puzzle),
            "/api/puzzle/sectors" => Some(Endpoint::PuzzleSectors),
            _ => None,
        }
    }

    /// The parameters it takes, as in the URL of the page.
    fn fields(self) -> &'static [&'static str] {
        match self {
            Endpoint::Position => &["variant", "rules", "fen", "moves", "time", "strategy"],
            Endpoint::Review => &["variant", "rules", "fen", "moves", "strategy"],
            Endpoint::Puzzle => &["variant", "sector", "goal", "seed"],
            Endpoint::PuzzleSectors => &["variant"],
        }
    }
}

/// What a request asks: the endpoint and its parameters (each endpoint takes some).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Query {
    /// Which answer.
    pub endpoint: Endpoint,
    /// `standard` or `no-flying`.
    pub variant: Option<String>,
    /// House rules instead of a variant: a rule spec as `--rules` takes it
    /// (`standard,captures=per-mill`, `six-mens`).
    pub rules: Option<String>,
    /// A position string, ours or Sanmill's.
    pub fen: Option<String>,
    /// Moves played from the position (or from the start).
    pub moves: Option<String>,
    /// Seconds a search may take where tables are missing.
    pub time: Option<String>,
    /// `ultra` or `perfect`: how moves that keep the value are told apart.
    pub strategy: Option<String>,
    /// The sector a puzzle is drawn from.
    pub sector: Option<String>,
    /// What a puzzle asks: `win`, `draw` or `any`.
    pub goal: Option<String>,
    /// The seed of a puzzle's choice.
    pub seed: Option<String>,
}

/// Parameters a JSON body may give as numbers.
const NUMERIC: [&str; 2] = ["time", "seed"];

impl Query {
    /// An empty query of `endpoint`.
    pub fn new(endpoint: Endpoint) -> Query {
        Query {
            endpoint,
            ..Query::default()
        }
    }

    /// Set one field from its name, refusing a name the endpoint does not take or a
    /// repeated one.
    ///
    /// # Errors
    /// 400 naming the parameter.
    pub fn set(&mut self, name: &str, value: String) -> Result<(), ApiError> {
        let fields = self.endpoint.fields();
        let unknown = || {
            ApiError::bad(format!(
                "unknown parameter '{}' (expected {})",
                shorten(name),
                fields.join(", ")
            ))
        };
        if !fields.contains(&name) {
            return Err(unknown());
        }
        let slot = match name {
            "variant" => &mut self.variant,
            "rules" => &mut self.rules,
            "fen" => &mut self.fen,
            "moves" => &mut self.moves,
            "time" => &mut self.time,
            "strategy" => &mut self.strategy,
            "sector" => &mut self.sector,
            "goal" => &mut self.goal,
            "seed" => &mut self.seed,
            _ => return Err(unknown()),
        };
        if slot.is_some() {
            return Err(ApiError::bad(format!("parameter '{name}' is given twice")));
        }
        *slot = Some(value);
        Ok(())
    }

    /// A query of `endpoint` from the query string of a URL (`fen=...&moves=...`).
    ///
    /// # Errors
    /// 400 naming an unknown or repeated parameter.
    pub fn from_url(endpoint: Endpoint, query: &str) -> Result<Query, ApiError> {
        let mut q = Query::new(endpoint);
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            q.set(&name, value.into_owned())?;
        }
        Ok(q)
    }

    /// A query of `endpoint` from a JSON object of strings (`time` and `seed` may be
    /// numbers).
    ///
    /// # Errors
    /// 400 for text that is not such an object, naming the bad field.
    pub fn from_json(endpoint: Endpoint, body: &[u8]) -> Result<Query, ApiError> {
        let doc: Json = serde_json::from_slice(body)
            .map_err(|e| ApiError::bad(format!("body: not JSON: {e}")))?;
        let Json::Object(fields) = doc else {
            return Err(ApiError::bad(
                "body: expected a JSON object such as {\"fen\": \"...\", \"moves\": \"d6 d2\"}",
            ));
        };
        let mut q = Query::new(endpoint);
        for (name, value) in fields {
            let numeric = NUMERIC.contains(&name.as_str());
            let text = match value {
                Json::String(s) => s,
                Json::Number(n) if numeric => n.to_string(),
                other => {
                    return Err(ApiError::bad(format!(
                        "'{}' must be a string{}, not {}",
                        shorten(&name),
                        if numeric { " or a number" } else { "" },
                        kind(&other)
                    )))
                }
            };
            q.set(&name, text)?;
        }
        Ok(q)
    }
}

fn kind(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// At most 40 characters of user text in a message.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// A failed request: the HTTP status and a message for the client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// 400 for a bad request, 404 for what is not there, 500 for a damaged table, 503
    /// when busy.
    pub status: u16,
    /// What was wrong, naming the bad part (parameter, token or file).
    pub message: String,
}

impl ApiError {
    /// A request for something that is not there (a sector missing from the
    /// tables, no puzzle found).
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 404,
            message: message.into(),
        }
    }

    /// A bad request.
    pub fn bad(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 400,
            message: message.into(),
        }
    }

    /// A failure of the server's own data (a damaged table).
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError {
            status: 500,
            message: message.into(),
        }
    }
}

/// What every request shares: where the tables are, opened on first use, and the
/// server's limits.
pub struct Context {
    open: Box<dyn Fn() -> Result<Tablebase, morris_tablebase::FileError> + Send + Sync>,
    tables: Mutex<Option<Arc<Tablebase>>>,
    /// Search time of a request that names none.
    pub default_time: Duration,
    /// The most search time a request may ask.
    pub max_time: Duration,
    /// Transposition table of each request's searcher, in MiB.
    pub hash_mb: usize,
}

impl Context {
    /// A context whose tables `open` opens on first use.
    pub fn new(
        open: impl Fn() -> Result<Tablebase, morris_tablebase::FileError> + Send + Sync + 'static,
        default_time: Duration,
        max_time: Duration,
        hash_mb: usize,
    ) -> Context {
        Context {
            open: Box::new(open),
            tables: Mutex::new(None),
            default_time,
            max_time,
            hash_mb,
        }
    }

    /// The tables, opened now if this is the first use. A failure is not kept: the
    /// next request tries again, so a repaired file is picked up without a restart.
    fn tables(&self) -> Result<Arc<Tablebase>, ApiError> {
        // A worker that panicked while holding the lock left at worst `None` behind.
        let mut slot = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(tb) = slot.as_ref() {
            return Ok(Arc::clone(tb));
        }
        let tb = Arc::new((self.open)().map_err(|e| ApiError::internal(e.to_string()))?);
        *slot = Some(Arc::clone(&tb));
        Ok(tb)
    }
}

/// The variant a query names (default Standard).
///
/// # Errors
/// 400 naming an unknown variant.
fn variant(q: &Query) -> Result<Variant, ApiError> {
    match q.variant.as_deref() {
        None | Some("") => Ok(Variant::Standard),
        Some(v) => v.parse::<Variant>().map_err(|_| {
            ApiError::bad(format!(
                "variant: unknown variant '{}' (expected standard or no-flying)",
                shorten(v)
            ))
        }),
    }
}

/// The rules a query names: `rules` (a spec, as `--rules` takes it), else `variant`
/// (default Standard).
///
/// # Errors
/// 400 naming a bad spec, an unknown variant, or both parameters given.
fn rules(q: &Query) -> Result<Rules, ApiError> {
    match q.rules.as_deref().map(str::trim) {
        None | Some("") => variant(q).map(Rules::from),
        Some(spec) => {
            if q.variant.as_deref().is_some_and(|v| !v.is_empty()) {
                return Err(ApiError::bad(
                    "rules: give either variant or rules, not both".to_string(),
                ));
            }
            // A spec names a preset and a few switches; the error echoes its tokens.
            if spec.len() > 200 {
                return Err(ApiError::bad(format!(
                    "rules: '{}' is no rule spec (over 200 characters)",
                    shorten(spec)
                )));
            }
            Rules::parse(spec).map_err(|e| ApiError::bad(e.to_string()))
        }
    }
}

/// The game a query names, under its rules.
///
/// # Errors
/// 400 naming the parameter and the bad token.
pub fn game(q: &Query) -> Result<Game, ApiError> {
    let rules = rules(q)?;
    let start = match q.fen.as_deref().map(str::trim) {
        None | Some("") => Position::start(rules),
        Some(fen) => {
            notation::parse_position(fen, rules).map_err(|e| ApiError::bad(format!("fen: {e}")))?
        }
    };
    notation::parse_game(&start, q.moves.as_deref().unwrap_or(""))
        .map_err(|e| ApiError::bad(format!("moves: {e}")))
}

/// The strategy a query names (default ultra).
///
/// # Errors
/// 400 naming an unknown strategy.
pub fn strategy(q: &Query) -> Result<Strategy, ApiError> {
    match q.strategy.as_deref() {
        None | Some("") => Ok(Strategy::Ultra),
        Some(s) => Strategy::from_name(s.trim()).ok_or_else(|| {
            ApiError::bad(format!(
                "strategy: unknown strategy '{}' (expected {})",
                shorten(s),
                Strategy::names()
            ))
        }),
    }
}

/// The search time a query asks, within the server's limit.
///
/// # Errors
/// 400 for a time that is not a positive number up to the limit.
pub fn time_limit(q: &Query, ctx: &Context) -> Result<Duration, ApiError> {
    let Some(text) = q.time.as_deref() else {
        return Ok(ctx.default_time);
    };
    let max = ctx.max_time.as_secs_f64();
    match text.trim().parse::<f64>() {
        Ok(t) if t > 0.0 && t <= max => Ok(Duration::from_secs_f64(t)),
        _ => Err(ApiError::bad(format!(
            "time: '{}' is not a number of seconds above 0 and at most {max}",
            shorten(text)
        ))),
    }
}

/// What a puzzle query asks, parsed: the variant, the sector (`None`: one of the
/// classic endgames), the goal (`None`: either) and the seed.
struct PuzzleAsk {
    variant: Variant,
    sector: Option<SectorId>,
    goal: Option<Goal>,
    seed: u64,
}

/// The puzzle a query asks for.
///
/// # Errors
/// 400 naming the bad parameter.
fn puzzle_ask(q: &Query) -> Result<PuzzleAsk, ApiError> {
    let variant = variant(q)?;
    let sector = match q.sector.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(s) => Some(s.parse::<SectorId>().map_err(|e| {
            ApiError::bad(format!(
                "sector: '{}' is not a sector ({e}; expected one such as 3-4, or 5-4+1-1 with pieces in hand)",
                shorten(s)
            ))
        })?),
    };
    let goal = match q.goal.as_deref().map(str::trim) {
        None | Some("" | "any") => None,
        Some("win") => Some(Goal::Win),
        Some("draw") => Some(Goal::Draw),
        Some(g) => {
            return Err(ApiError::bad(format!(
                "goal: unknown goal '{}' (expected win, draw or any)",
                shorten(g)
            )))
        }
    };
    let seed = match q.seed.as_deref().map(str::trim) {
        None | Some("") => 1,
        Some(s) => s.parse::<u64>().map_err(|_| {
            ApiError::bad(format!(
                "seed: '{}' is not a whole number from 0 to {}",
                shorten(s),
                u64::MAX
            ))
        })?,
    };
    Ok(PuzzleAsk {
        variant,
        sector,
        goal,
        seed,
    })
}

/// Whether answering `q` takes a search, so that the HTTP layer answers the lookups
/// apart from the searches. Cheap: a parse and a probe a move.
///
/// - A position: not for a query [`answer`] refuses, a finished game, or a position
///   the tables hold, with every move leading to a finished game, a repetition or a
///   position they hold (with its distance). A table that fails to open or read
///   fails the answer at once: no search either.
/// - A review never searches (the tables judge each ply, or it is not judged), but a
///   long one reads the tables a while: beyond [`LOOKUP_REVIEW_PLIES`] plies it goes
///   to the search lane, so that lookups never wait behind it.
/// - A puzzle samples up to [`puzzles::TRIES`] entries of a sector: a search, unless
///   it is refused.
pub fn needs_search(q: &Query, ctx: &Context) -> bool {
    match q.endpoint {
        Endpoint::Position => position_needs_search(q, ctx),
        Endpoint::Review => (LOOKUP_REVIEW_PLIES + 1..=MAX_REVIEW_PLIES).contains(&review_plies(q)),
        Endpoint::PuzzleSectors => false,
        Endpoint::Puzzle => puzzle_ask(q).is_ok(),
    }
}

fn position_needs_search(q: &Query, ctx: &Context) -> bool {
    let (Ok(game), Ok(_), Ok(_)) = (game(q), time_limit(q, ctx), strategy(q)) else {
        return false;
    };
    if game.end().is_some() {
        return false;
    }
    let Ok(tables) = ctx.tables() else {
        return false;
    };
    let read = |p: &Position| match tables.value(p) {
        Ok(Some(v)) => !v.is_distance_unknown(),
        Ok(None) => false,
        Err(_) => true,
    };
    let pos = *game.position();
    let history = game.history();
    let leaf = |mv| {
        let child = pos.play_unchecked(mv);
        child.end().is_some() || history.contains(&child.hash()) || read(&child)
    };
    !(read(&pos) && pos.legal_moves().iter().all(|&mv| leaf(mv)))
}

/// The answer to a query, by its endpoint: the document of `crate::report` that the
/// command line writes for the same question.
///
/// # Errors
/// 400 for a bad query, 404 for a puzzle sector that is not there or no puzzle
/// found, 500 naming the file when a table is damaged.
pub fn answer(q: &Query, ctx: &Context) -> Result<Json, ApiError> {
    match q.endpoint {
        Endpoint::Position => position(q, ctx),
        Endpoint::Review => review(q, ctx),
        Endpoint::Puzzle => puzzle(q, ctx),
        Endpoint::PuzzleSectors => puzzle_sectors(q, ctx),
    }
}

/// The position, its value and every move, best first under the strategy, as the
/// document `analyze --json` writes.
fn position(q: &Query, ctx: &Context) -> Result<Json, ApiError> {
    let game = game(q)?;
    let time = time_limit(q, ctx)?;
    let strategy = strategy(q)?;
    let clock = Instant::now();
    if let Some(end) = game.end() {
        return document(&Report::finished(&game, end));
    }
    let pos = *game.position();
    let tables = ctx.tables()?;
    let mut searcher =
        Searcher::new(Some(&tables), ctx.hash_mb).map_err(|e| ApiError::internal(e.to_string()))?;
    searcher.set_strategy(strategy);
    // One budget for the request, spent over every move (deepened together).
    let limits = Limits {
        time: Some(time),
        start: Some(clock),
        ..Limits::default()
    };
    let history = game.history();
    let failed = |e: morris_solver::SearchError| ApiError::internal(e.to_string());
    let analysis = analyze(&mut searcher, &pos, limits, &history).map_err(failed)?;
    let search = Search::new(&analysis.root, Some(time), clock.elapsed());
    document(&Report::analysis(&game, &analysis, search, strategy))
}

/// The game judged ply by ply by the tables, as `review --json` writes it.
fn review(q: &Query, ctx: &Context) -> Result<Json, ApiError> {
    let plies = review_plies(q);
    if plies > MAX_REVIEW_PLIES {
        return Err(ApiError::bad(format!(
            "moves: {plies} plies, more than the {MAX_REVIEW_PLIES} a review takes"
        )));
    }
    let game = game(q)?;
    let strategy = strategy(q)?;
    let tables = ctx.tables()?;
    let r = morris_solver::review::review(&tables, &game, strategy)
        .map_err(|e| ApiError::internal(e.to_string()))?;
    document(&ReviewJson::of(&r, &game.positions()[0]))
}

/// The plies of a query's moves, counted before they are played: a capture written
/// as its own token belongs to the move before it.
fn review_plies(q: &Query) -> usize {
    q.moves.as_deref().map_or(0, |m| {
        m.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty() && !t.starts_with(['x', 'X']))
            .count()
    })
}

/// The classic endgames in words, for messages.
fn classics_text() -> String {
    CLASSICS
        .iter()
        .map(|(u, t)| format!("{u}-{t}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One training position, as each entry of `puzzles --json` gives it: the first
/// puzzle `morris puzzles --sector SECTOR --goal GOAL --seed SEED` finds. Without a
/// sector, the classic endgame present whose place in [`CLASSICS`] (those present)
/// is the seed's remainder.
fn puzzle(q: &Query, ctx: &Context) -> Result<Json, ApiError> {
    let ask = puzzle_ask(q)?;
    let variant = ask.variant;
    let tables = ctx.tables()?;
    let sector = match ask.sector {
        Some(s) if tables.contains(variant, s) => s,
        Some(s) => {
            return Err(ApiError::not_found(format!(
                "sector: {s} of the {variant} game is not in the tables"
            )))
        }
        None => {
            let present = puzzles::classics(&tables, variant);
            if present.is_empty() {
                return Err(ApiError::not_found(format!(
                    "sector: none of the classic endgames ({}) of the {variant} game is in the tables; name a sector that is",
                    classics_text()
                )));
            }
            let i = usize::try_from(ask.seed % present.len() as u64).unwrap_or(0);
            present[i]
        }
    };
    let want = puzzles::Search {
        sector,
        goal: ask.goal,
        min_dtm: puzzles::MIN_DTM,
        max_dtm: u16::MAX,
        min_moves: 2,
    };
    let failed = |e: String| ApiError::internal(e);
    let mut rng = Rng::new(ask.seed);
    let found = puzzles::find(&tables, variant, &want, 1, puzzles::TRIES, &mut rng)
        .map_err(|e| failed(e.to_string()))?;
    let Some(p) = found.first() else {
        let goal = match ask.goal {
            Some(Goal::Win) => "win",
            Some(Goal::Draw) => "draw",
            None => "any",
        };
        return Err(ApiError::not_found(format!(
            "no puzzle found in sector {sector} (goal {goal}) in {} tries with seed {}: try another seed, goal or sector",
            puzzles::TRIES,
            ask.seed
        )));
    };
    let searcher = Searcher::new(Some(&tables), 1).map_err(|e| failed(e.to_string()))?;
    let doc = PuzzleJson::of(p, sector, &searcher).map_err(|e| failed(e.to_string()))?;
    document(&doc)
}

/// The classic endgames present, from which puzzles are drawn by default.
fn puzzle_sectors(q: &Query, ctx: &Context) -> Result<Json, ApiError> {
    let variant = variant(q)?;
    let tables = ctx.tables()?;
    document(&PuzzleSectorsJson {
        variant: variant.name(),
        sectors: puzzles::classics(&tables, variant)
            .iter()
            .map(ToString::to_string)
            .collect(),
    })
}

fn document(report: &impl serde::Serialize) -> Result<Json, ApiError> {
    serde_json::to_value(report).map_err(|e| ApiError::internal(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx() -> Context {
        Context::new(
            || Ok(Tablebase::default()),
            Duration::from_millis(200),
            Duration::from_secs(2),
            1,
        )
    }

    fn query(fen: Option<&str>, moves: Option<&str>) -> Query {
        Query {
            fen: fen.map(str::to_string),
            moves: moves.map(str::to_string),
            ..Query::default()
        }
    }

    #[test]
    fn url_queries_decode_and_refuse_unknown_or_repeated_names() {
        let q = Query::from_url(
            Endpoint::Position,
            "variant=no-flying&fen=W..%2F...&moves=d6+d2",
        )
        .unwrap();
        assert_eq!(q.variant.as_deref(), Some("no-flying"));
        assert_eq!(q.fen.as_deref(), Some("W../..."));
        assert_eq!(q.moves.as_deref(), Some("d6 d2"));
        let e = Query::from_url(Endpoint::Position, "fen=x&depth=3").unwrap_err();
        assert_eq!(e.status, 400);
        assert!(e.message.contains("'depth'"), "{}", e.message);
        let e = Query::from_url(Endpoint::Position, "moves=d6&moves=d2").unwrap_err();
        assert!(
            e.message.contains("'moves' is given twice"),
            "{}",
            e.message
        );
    }

    #[test]
    fn json_queries_take_strings_and_a_numeric_time() {
        let q = Query::from_json(Endpoint::Position, br#"{"moves": "d6", "time": 0.5}"#).unwrap();
        assert_eq!(q.time.as_deref(), Some("0.5"));
        for (body, part) in [
            (&b"[1]"[..], "body"),
            (b"{\"fen\": 3}", "'fen'"),
            (b"{\"moves\": ", "body"),
            (b"{\"nope\": \"x\"}", "'nope'"),
        ] {
            let e = Query::from_json(Endpoint::Position, body).unwrap_err();
            assert_eq!(e.status, 400);
            assert!(e.message.contains(part), "{}", e.message);
        }
    }

    #[test]
    fn bad_parts_are_named() {
        let ctx = ctx();
        let cases = [
            (query(Some("xyz"), None), "fen:"),
            (query(None, Some("d6 d6")), "moves: move 2 'd6'"),
            (query(None, Some("d6 q9")), "'q9'"),
            (
                Query {
                    variant: Some("chess".into()),
                    ..Query::default()
                },
                "variant: unknown variant 'chess'",
            ),
            (
                Query {
                    time: Some("-1".into()),
                    ..Query::default()
                },
                "time: '-1'",
            ),
            (
                Query {
                    time: Some("3".into()),
                    ..Query::default()
                },
                "at most 2",
            ),
        ];
        for (q, part) in cases {
            let e = answer(&q, &ctx).unwrap_err();
            assert_eq!(e.status, 400, "{q:?}");
            assert!(e.message.contains(part), "{q:?}: {}", e.message);
        }
    }

    fn of(endpoint: Endpoint, url: &str) -> Query {
        Query::from_url(endpoint, url).unwrap()
    }

    #[test]
    fn each_endpoint_takes_its_own_parameters() {
        let q = of(Endpoint::Position, "strategy=perfect&time=1");
        assert_eq!(q.strategy.as_deref(), Some("perfect"));
        let q = of(Endpoint::Review, "moves=d6&strategy=ultra&variant=standard");
        assert_eq!(q.endpoint, Endpoint::Review);
        let q = of(Endpoint::Puzzle, "sector=3-4&goal=win&seed=9");
        assert_eq!(
            (q.sector.as_deref(), q.goal.as_deref(), q.seed.as_deref()),
            (Some("3-4"), Some("win"), Some("9"))
        );
        for (endpoint, url, part) in [
            (
                Endpoint::Review,
                "time=1",
                "'time' (expected variant, rules, fen, moves, strategy)",
            ),
            (
                Endpoint::Puzzle,
                "fen=x",
                "'fen' (expected variant, sector, goal, seed)",
            ),
            (Endpoint::Position, "seed=3", "'seed'"),
            (
                Endpoint::PuzzleSectors,
                "goal=win",
                "'goal' (expected variant)",
            ),
            (Endpoint::Puzzle, "seed=1&seed=2", "'seed' is given twice"),
        ] {
            let e = Query::from_url(endpoint, url).unwrap_err();
            assert_eq!(e.status, 400);
            assert!(e.message.contains(part), "{url}: {}", e.message);
        }
        let q = Query::from_json(Endpoint::Puzzle, br#"{"seed": 12, "sector": "3-3"}"#).unwrap();
        assert_eq!(q.seed.as_deref(), Some("12"));
        let e = Query::from_json(Endpoint::Puzzle, br#"{"goal": 1}"#).unwrap_err();
        assert!(
            e.message.contains("'goal' must be a string, not a number"),
            "{}",
            e.message
        );
    }

    #[test]
    fn bad_strategies_goals_sectors_and_seeds_are_named() {
        let ctx = ctx();
        for (endpoint, url, part) in [
            (
                Endpoint::Position,
                "strategy=best",
                "strategy: unknown strategy 'best' (expected perfect, classes or ultra)",
            ),
            (
                Endpoint::Review,
                "moves=d6&strategy=fast",
                "strategy: unknown strategy 'fast'",
            ),
            (Endpoint::Review, "moves=d6+d6", "moves: move 2 'd6'"),
            (
                Endpoint::Review,
                "variant=chess",
                "variant: unknown variant 'chess'",
            ),
            (
                Endpoint::Puzzle,
                "goal=lose",
                "goal: unknown goal 'lose' (expected win, draw or any)",
            ),
            (
                Endpoint::Puzzle,
                "sector=3-x",
                "sector: '3-x' is not a sector",
            ),
            (Endpoint::Puzzle, "sector=12-3", "sector: '12-3'"),
            (
                Endpoint::Puzzle,
                "seed=-1",
                "seed: '-1' is not a whole number",
            ),
            (Endpoint::Puzzle, "seed=1.5", "seed: '1.5'"),
            (
                Endpoint::PuzzleSectors,
                "variant=x",
                "variant: unknown variant 'x'",
            ),
        ] {
            let q = of(endpoint, url);
            assert!(!needs_search(&q, &ctx), "{url}");
            let e = answer(&q, &ctx).unwrap_err();
            assert_eq!(e.status, 400, "{url}");
            assert!(e.message.contains(part), "{url}: {}", e.message);
        }
    }

    #[test]
    fn a_review_is_bounded_and_never_searches() {
        let ctx = ctx();
        let long = format!("moves={}", "d6+".repeat(MAX_REVIEW_PLIES + 1));
        let q = of(Endpoint::Review, &long);
        assert!(!needs_search(&q, &ctx));
        let e = answer(&q, &ctx).unwrap_err();
        assert_eq!(e.status, 400);
        assert!(
            e.message.contains("moves: 1001 plies, more than the 1000"),
            "{}",
            e.message
        );
        // Captures written apart are part of their move: 1200 tokens, 600 plies, within
        // the bound (then refused as illegal).
        let q = of(
            Endpoint::Review,
            &format!("moves={}", "d6+xg7+".repeat(600)),
        );
        let e = answer(&q, &ctx).unwrap_err();
        assert!(
            e.message.starts_with("moves: move 1 'd6xg7'"),
            "{}",
            e.message
        );
        let q = of(
            Endpoint::Review,
            &format!("moves={}", "d6+".repeat(LOOKUP_REVIEW_PLIES + 1)),
        );
        assert!(
            needs_search(&q, &ctx),
            "a long review goes to the search lane"
        );
        // Without tables every ply is reviewed and none judged.
        let q = of(Endpoint::Review, "moves=d6+d2+f4");
        assert!(!needs_search(&q, &ctx));
        let doc = answer(&q, &ctx).unwrap();
        assert_eq!(doc["start"], ".../.../.../....../.../.../... w 9 9");
        assert_eq!(doc["variant"], "standard");
        let plies = doc["plies"].as_array().unwrap();
        assert_eq!(plies.len(), 3);
        assert_eq!(plies[1]["side"], "black");
        assert_eq!(plies[1]["move"], "d2");
        assert!(plies.iter().all(|p| p["judged"] == false
            && p["mark"].is_null()
            && p["reason"]
                .as_str()
                .is_some_and(|r| r.contains("do not cover"))));
        assert_eq!(doc["white"]["not_judged"], 2);
        assert_eq!(doc["black"]["not_judged"], 1);
        // An empty game has nothing to judge.
        let doc = answer(&of(Endpoint::Review, ""), &ctx).unwrap();
        assert_eq!(doc["plies"], json!([]));
    }

    #[test]
    fn a_puzzle_from_missing_tables_is_not_found_and_searches_only_when_well_asked() {
        let ctx = ctx();
        let q = of(Endpoint::Puzzle, "sector=3-4&goal=win");
        assert!(needs_search(&q, &ctx));
        let e = answer(&q, &ctx).unwrap_err();
        assert_eq!(e.status, 404);
        assert!(
            e.message
                .contains("sector: 3-4 of the standard game is not in the tables"),
            "{}",
            e.message
        );
        let e = answer(&of(Endpoint::Puzzle, "variant=no-flying"), &ctx).unwrap_err();
        assert_eq!(e.status, 404);
        assert!(
            e.message.contains("none of the classic endgames (3-3, 3-4, 4-3, 5-4, 4-5, 7-4, 4-7) of the no-flying game"),
            "{}",
            e.message
        );
        let doc = answer(&of(Endpoint::PuzzleSectors, ""), &ctx).unwrap();
        assert_eq!(doc, json!({"variant": "standard", "sectors": []}));
    }

    #[test]
    fn both_strategies_are_taken_in_any_letter_case() {
        let ctx = ctx();
        let fen = "WW./.../.../.....W/.../.../BBB w 0 0";
        for strategy in ["perfect", "ultra", "PERFECT"] {
            let q = Query {
                strategy: Some(strategy.into()),
                ..query(Some(fen), None)
            };
            let doc = answer(&q, &ctx).unwrap();
            assert_eq!(doc["value"]["wdl"], "win", "{strategy}");
        }
    }

    #[test]
    fn without_tables_the_start_is_an_estimate_with_every_placement() {
        let doc = answer(&query(None, None), &ctx()).unwrap();
        assert_eq!(doc["position"], ".../.../.../....../.../.../... w 9 9");
        assert_eq!(doc["side_to_move"], "white");
        assert_eq!(doc["value"]["estimate"], true);
        assert_eq!(doc["value"]["obtained"], "depth-limited estimate");
        let moves = doc["moves"].as_array().unwrap();
        assert_eq!(moves.len(), 24);
        assert!(moves
            .iter()
            .all(|m| m["from"].is_null() && m["capture"].is_null()));
    }

    #[test]
    fn a_mate_in_one_is_proven_and_listed_first() {
        // White to move closes the top line, takes a black piece and wins.
        let doc = answer(
            &query(Some("WW./.../.../.....W/.../.../BBB w 0 0"), None),
            &ctx(),
        )
        .unwrap();
        assert_eq!(doc["value"]["wdl"], "win");
        assert_eq!(doc["value"]["dtm"], 1);
        assert_eq!(doc["value"]["exact"], true);
        let best = &doc["moves"][0];
        assert!(
            best["move"].as_str().unwrap().starts_with("g4-g7x"),
            "{best}"
        );
        assert_eq!(best["result"]["wdl"], "win");
        assert_eq!(best["result"]["dtm"], 1);
        assert_eq!(best["value"]["wdl"], "loss");
        assert_eq!(best["value"]["dtm"], 0);
        assert_eq!(best["value"]["obtained"], "terminal");
    }

    #[test]
    fn a_finished_game_says_why_and_has_no_moves() {
        let doc = answer(
            &query(Some("WWW/.../.../....../.../.../BB. b 0 0"), None),
            &ctx(),
        );
        let doc = doc.unwrap();
        assert_eq!(doc["game_over"]["winner"], "white");
        assert_eq!(doc["game_over"]["reason"], "two-pieces");
        assert_eq!(doc["value"]["wdl"], "loss");
        assert_eq!(doc["moves"], json!([]));
    }

    #[test]
    fn a_threefold_repetition_ends_the_game() {
        let fen = "WB./W../.../.....W/.../.../BB. w 0 0";
        let shuffle = "g4-g7 d1-g1 g7-g4 g1-d1 g4-g7 d1-g1 g7-g4 g1-d1";
        let doc = answer(&query(Some(fen), Some(shuffle)), &ctx()).unwrap();
        assert_eq!(doc["game_over"]["reason"], "threefold");
        assert_eq!(doc["value"]["wdl"], "draw");
    }

    #[test]
    fn refused_and_finished_games_need_no_search_and_uncovered_positions_do() {
        let ctx = ctx();
        assert!(needs_search(&query(None, None), &ctx));
        assert!(needs_search(&query(None, Some("d6 d2")), &ctx));
        for q in [
            query(Some("xyz"), None),
            query(None, Some("d6 d6")),
            query(Some("WWW/.../.../....../.../.../BB. b 0 0"), None),
            Query {
                time: Some("-1".into()),
                ..Query::default()
            },
        ] {
            assert!(!needs_search(&q, &ctx), "{q:?}");
        }
    }

    #[test]
    fn a_table_that_cannot_be_opened_fails_the_request_with_its_message() {
        let ctx = Context::new(
            || {
                Err(morris_tablebase::FileError {
                    path: "tb/standard-3-3.tb".into(),
                    problem: std::io::Error::other("bad magic").into(),
                })
            },
            Duration::from_millis(100),
            Duration::from_secs(1),
            1,
        );
        let e = answer(&query(None, None), &ctx).unwrap_err();
        assert_eq!(e.status, 500);
        assert!(e.message.contains("standard-3-3.tb"), "{}", e.message);
    }
}
