//! The JSON API: a request names a position, the answer gives its value and every
//! legal move with the value it leads to, best first.
//!
//! Everything here is synchronous and bounded: the position and its moves are parsed
//! by the engine's notation, values come from the solver's `analyze` and `search`
//! (tablebase values where the tables cover a position, else a search cut at the
//! request's time limit, labelled an estimate), and the answer is the document of
//! `crate::report`, as `morris analyze --json` writes it. The HTTP layer (`super::http`) runs
//! it on a bounded pool of worker threads.

use crate::report::{Report, Search};
use morris_engine::{notation, Game, Position, Variant};
use morris_solver::{analyze, Limits, Searcher};
use morris_tablebase::Tablebase;
use serde_json::Value as Json;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a request asks: the position and how long a search may take.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Query {
    /// `standard` or `no-flying`.
    pub variant: Option<String>,
    /// A position string, ours or Sanmill's.
    pub fen: Option<String>,
    /// Moves played from the position (or from the start).
    pub moves: Option<String>,
    /// Seconds a search may take where tables are missing.
    pub time: Option<String>,
}

/// The names a query may use, as in the URL of the page.
const FIELDS: [&str; 4] = ["variant", "fen", "moves", "time"];

impl Query {
    /// Set one field from its name, refusing an unknown name or a repeated one.
    ///
    /// # Errors
    /// 400 naming the parameter.
    pub fn set(&mut self, name: &str, value: String) -> Result<(), ApiError> {
        let slot = match name {
            "variant" => &mut self.variant,
            "fen" => &mut self.fen,
            "moves" => &mut self.moves,
            "time" => &mut self.time,
            _ => {
                return Err(ApiError::bad(format!(
                    "unknown parameter '{}' (expected {})",
                    shorten(name),
                    FIELDS.join(", ")
                )))
            }
        };
        if slot.is_some() {
            return Err(ApiError::bad(format!("parameter '{name}' is given twice")));
        }
        *slot = Some(value);
        Ok(())
    }

    /// A query from the query string of a URL (`fen=...&moves=...`).
    ///
    /// # Errors
    /// 400 naming an unknown or repeated parameter.
    pub fn from_url(query: &str) -> Result<Query, ApiError> {
        let mut q = Query::default();
        for (name, value) in form_urlencoded::parse(query.as_bytes()) {
            q.set(&name, value.into_owned())?;
        }
        Ok(q)
    }

    /// A query from a JSON object of strings (`time` may be a number).
    ///
    /// # Errors
    /// 400 for text that is not such an object, naming the bad field.
    pub fn from_json(body: &[u8]) -> Result<Query, ApiError> {
        let doc: Json = serde_json::from_slice(body)
            .map_err(|e| ApiError::bad(format!("body: not JSON: {e}")))?;
        let Json::Object(fields) = doc else {
            return Err(ApiError::bad(
                "body: expected a JSON object such as {\"fen\": \"...\", \"moves\": \"d6 d2\"}",
            ));
        };
        let mut q = Query::default();
        for (name, value) in fields {
            let text = match value {
                Json::String(s) => s,
                Json::Number(n) if name == "time" => n.to_string(),
                other => {
                    return Err(ApiError::bad(format!(
                        "'{}' must be a string{}, not {}",
                        shorten(&name),
                        if name == "time" { " or a number" } else { "" },
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
    /// 400 for a bad request, 500 for a damaged table, 503 when busy.
    pub status: u16,
    /// What was wrong, naming the bad part (parameter, token or file).
    pub message: String,
}

impl ApiError {
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

/// The game a query names, and its variant.
///
/// # Errors
/// 400 naming the parameter and the bad token.
pub fn game(q: &Query) -> Result<Game, ApiError> {
    let variant = match q.variant.as_deref() {
        None | Some("") => Variant::Standard,
        Some(v) => v.parse::<Variant>().map_err(|_| {
            ApiError::bad(format!(
                "variant: unknown variant '{}' (expected standard or no-flying)",
                shorten(v)
            ))
        })?,
    };
    let start = match q.fen.as_deref().map(str::trim) {
        None | Some("") => Position::start(variant),
        Some(fen) => notation::parse_position(fen, variant)
            .map_err(|e| ApiError::bad(format!("fen: {e}")))?,
    };
    notation::parse_game(&start, q.moves.as_deref().unwrap_or(""))
        .map_err(|e| ApiError::bad(format!("moves: {e}")))
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

/// Whether answering `q` takes a search: not for a query [`answer`] refuses, a
/// finished game, or a position the tables hold, with every move leading to a
/// finished game, a repetition or a position they hold (with its distance). Cheap: a
/// parse and a probe a move, so that the HTTP layer answers the lookups apart from
/// the searches. A table that fails to open or read fails the answer at once: no
/// search either.
pub fn needs_search(q: &Query, ctx: &Context) -> bool {
    let (Ok(game), Ok(_)) = (game(q), time_limit(q, ctx)) else {
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

/// The answer to a query: the position, its value and every move, best first, as
/// the document of `crate::report` (the one `analyze --json` writes).
///
/// # Errors
/// 400 for a bad query, 500 naming the file when a table is damaged.
pub fn answer(q: &Query, ctx: &Context) -> Result<Json, ApiError> {
    let game = game(q)?;
    let time = time_limit(q, ctx)?;
    let clock = Instant::now();
    if let Some(end) = game.end() {
        return document(&Report::finished(&game, end));
    }
    let pos = *game.position();
    let tables = ctx.tables()?;
    let mut searcher =
        Searcher::new(Some(&tables), ctx.hash_mb).map_err(|e| ApiError::internal(e.to_string()))?;
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
    document(&Report::analysis(&game, &analysis, search))
}

fn document(report: &Report) -> Result<Json, ApiError> {
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
        let q = Query::from_url("variant=no-flying&fen=W..%2F...&moves=d6+d2").unwrap();
        assert_eq!(q.variant.as_deref(), Some("no-flying"));
        assert_eq!(q.fen.as_deref(), Some("W../..."));
        assert_eq!(q.moves.as_deref(), Some("d6 d2"));
        let e = Query::from_url("fen=x&depth=3").unwrap_err();
        assert_eq!(e.status, 400);
        assert!(e.message.contains("'depth'"), "{}", e.message);
        let e = Query::from_url("moves=d6&moves=d2").unwrap_err();
        assert!(
            e.message.contains("'moves' is given twice"),
            "{}",
            e.message
        );
    }

    #[test]
    fn json_queries_take_strings_and_a_numeric_time() {
        let q = Query::from_json(br#"{"moves": "d6", "time": 0.5}"#).unwrap();
        assert_eq!(q.time.as_deref(), Some("0.5"));
        for (body, part) in [
            (&b"[1]"[..], "body"),
            (b"{\"fen\": 3}", "'fen'"),
            (b"{\"moves\": ", "body"),
            (b"{\"nope\": \"x\"}", "'nope'"),
        ] {
            let e = Query::from_json(body).unwrap_err();
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
