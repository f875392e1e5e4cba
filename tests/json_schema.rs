//! One JSON document about a position, whoever writes it: `analyze --json` and the
//! HTTP API give the same document for the same position (timings and node counts
//! apart), `probe --json` and `solve --json` agree with them on what they share, every
//! document has every field of README's "JSON output" in its order, and README's
//! example is what the API answers.

mod common;
mod serve_util;

use serde_json::Value as Json;
use serve_util::{api, enc, Server, START4};
use std::path::Path;

/// Games of the four-piece game from its start: placements, a capture while placing,
/// slides, a flight, a position won by a capture, and that capture played (the game
/// over).
const GAMES: [&str; 6] = [
    "",
    "a7 b6 d7 f6",
    "a7 b6 d7 f6 g7xb6",
    "a7 b6 d7 f6 g7xb6 d2 a1 f2 a1-a4 d2-b2",
    "a7 b6 d7 f6 g7xb6 d2 a1 f2 a1-a4 d2-b2 g7-g4 b2-d2",
    "a7 b6 d7 f6 g7xb6 d2 a1 f2 a1-a4 d2-b2 g7-g4 b2-d2 g4-g7xd2",
];

/// A three-against-three game that ends in a threefold repetition.
const THREEFOLD: (&str, &str) = (
    "WB./W../.../.....W/.../.../BB. w 0 0",
    "g4-g7 d1-g1 g7-g4 g1-d1 g4-g7 d1-g1 g7-g4 g1-d1",
);

/// The positions compared: every game of [`GAMES`], and [`THREEFOLD`].
fn cases() -> Vec<(&'static str, &'static str)> {
    GAMES
        .iter()
        .map(|&moves| (START4, moves))
        .chain([THREEFOLD])
        .collect()
}

/// The fields of a document, of its value objects, moves, results, sides, end and
/// search, in their order.
const REPORT: [&str; 14] = [
    "position",
    "sanmill",
    "variant",
    "side_to_move",
    "white",
    "black",
    "game_over",
    "perspective",
    "played",
    "value",
    "best",
    "line",
    "moves",
    "search",
];
const VALUE: [&str; 8] = [
    "wdl", "dtm", "exact", "estimate", "obtained", "depth", "score", "class",
];
const MOVE: [&str; 8] = [
    "move", "from", "to", "capture", "position", "value", "result", "depth",
];
const RESULT: [&str; 5] = ["wdl", "dtm", "exact", "score", "class"];
const SIDE: [&str; 3] = ["board", "hand", "phase"];
const GAME_OVER: [&str; 3] = ["winner", "reason", "message"];
const SEARCH: [&str; 4] = ["time_limit_s", "time_ms", "nodes", "depth"];

/// The fields whose values legitimately differ between two runs: timings and node
/// counts.
const RUN_DEPENDENT: [&str; 2] = ["time_ms", "nodes"];

fn dir(tb: &Path) -> &str {
    tb.to_str().expect("a UTF-8 path")
}

/// `morris COMMAND --json` for the position after `moves` from `fen`; `extra`
/// arguments go before the position.
fn cli(command: &str, extra: &[&str], (fen, moves): (&str, &str), tb: &Path) -> Json {
    let mut args = vec![command, "--json"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--fen", fen, "--moves", moves, "--tb", dir(tb)]);
    let out = common::ok(&args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("morris {args:?}: {e}: {out}"))
}

fn analyze(case: (&str, &str), tb: &Path) -> Json {
    cli("analyze", &["--time", "1"], case, tb)
}

fn solve(case: (&str, &str), tb: &Path) -> Json {
    cli("solve", &["--time", "1"], case, tb)
}

fn probe(case: (&str, &str), tb: &Path) -> Json {
    cli("probe", &[], case, tb)
}

/// The API's answer for the same position, with the same time limit.
fn served(server: &Server, (fen, moves): (&str, &str)) -> Json {
    server.json(&format!("{}&time=1", api(fen, moves)))
}

/// A document without its run-dependent fields.
fn steady(mut doc: Json) -> Json {
    if let Some(search) = doc["search"].as_object_mut() {
        for field in RUN_DEPENDENT {
            search.remove(field);
        }
    }
    doc
}

fn keys(v: &Json) -> Vec<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}

/// Every object of a document has its documented fields, in order, and nothing else.
fn assert_schema(doc: &Json, shown: &str) {
    assert_eq!(keys(doc), REPORT, "{shown}: {doc}");
    assert_eq!(keys(&doc["value"]), VALUE, "{shown}");
    for side in ["white", "black"] {
        assert_eq!(keys(&doc[side]), SIDE, "{shown}");
    }
    if !doc["game_over"].is_null() {
        assert_eq!(keys(&doc["game_over"]), GAME_OVER, "{shown}");
    }
    if !doc["search"].is_null() {
        assert_eq!(keys(&doc["search"]), SEARCH, "{shown}");
    }
    for list in ["played", "best"] {
        assert!(doc[list].is_array(), "{shown}: {list} is {}", doc[list]);
    }
    for list in ["line", "moves"] {
        assert!(
            doc[list].is_array() || doc[list].is_null(),
            "{shown}: {list} is {}",
            doc[list]
        );
    }
    for m in doc["moves"].as_array().into_iter().flatten() {
        assert_eq!(keys(m), MOVE, "{shown}: {m}");
        assert_eq!(keys(&m["value"]), VALUE, "{shown}: {m}");
        assert_eq!(keys(&m["result"]), RESULT, "{shown}: {m}");
    }
}

/// `analyze --json` and the API: the same document for every position, timings and
/// node counts apart.
#[test]
fn the_command_line_and_the_api_write_the_same_document() {
    let tb = serve_util::tables4();
    let server = Server::start(tb, &[]);
    for case in cases() {
        let from_cli = analyze(case, tb);
        let from_api = served(&server, case);
        assert_schema(&from_cli, "analyze");
        assert_eq!(steady(from_cli), steady(from_api), "{case:?}");
    }
}

/// `probe`, `solve` and `analyze` agree on what each computes: the position, its
/// value, the best moves; `solve` and `analyze` on the line and the search; `probe`
/// and `analyze` on every move, its parts, the position it leads to, its value and
/// its result.
#[test]
fn probe_solve_and_analyze_agree_on_what_they_share() {
    let tb = serve_util::tables4();
    for case in cases() {
        let analyzed = analyze(case, tb);
        let solved = solve(case, tb);
        let probed = probe(case, tb);
        for (name, doc) in [("solve", &solved), ("probe", &probed)] {
            assert_schema(doc, name);
            for field in &REPORT[..11] {
                assert_eq!(doc[field], analyzed[field], "{name} {field} {case:?}");
            }
        }
        let over = !analyzed["game_over"].is_null();
        if over {
            // Nothing to search or look up: the same document from each.
            assert_eq!(solved, analyzed, "{case:?}");
            assert_eq!(probed, analyzed, "{case:?}");
            assert_eq!(analyzed["moves"], Json::Array(Vec::new()));
            continue;
        }
        // Positions of the tables: every value is theirs.
        assert_eq!(analyzed["value"]["obtained"], "tablebase", "{case:?}");
        assert!(
            !analyzed["best"].as_array().expect("best").is_empty(),
            "{case:?}"
        );
        assert_eq!(solved["line"], analyzed["line"], "{case:?}");
        assert_eq!(
            steady(solved.clone())["search"],
            steady(analyzed.clone())["search"],
            "{case:?}"
        );
        assert_eq!(solved["moves"], Json::Null, "{case:?}");
        // The tables' answer: no line, no search, no depths.
        assert_eq!(probed["line"], Json::Null, "{case:?}");
        assert_eq!(probed["search"], Json::Null, "{case:?}");
        let looked_up = probed["moves"].as_array().expect("moves");
        let searched = analyzed["moves"].as_array().expect("moves");
        assert_eq!(looked_up.len(), searched.len(), "{case:?}");
        for (p, a) in looked_up.iter().zip(searched) {
            assert_eq!(p["depth"], Json::Null, "{p}");
            assert!(a["depth"].is_u64(), "{a}");
            for field in &MOVE[..7] {
                assert_eq!(p[field], a[field], "{field}: {p} against {a}");
            }
        }
    }
}

/// Without tables: estimates, a value not covered, and limits that are not times
/// still have every field (null where unknown).
#[test]
fn estimates_and_uncovered_positions_have_every_field() {
    let empty = tempfile::tempdir().expect("a temporary directory");
    let case = (START4, "a7 b6");
    let analyzed = cli("analyze", &["--depth", "1"], case, empty.path());
    assert_schema(&analyzed, "analyze");
    assert_eq!(analyzed["value"]["estimate"], true);
    assert!(analyzed["value"]["score"].is_i64(), "{}", analyzed["value"]);
    assert!(analyzed["value"]["depth"].is_u64(), "{}", analyzed["value"]);
    assert_eq!(analyzed["value"]["depth"], analyzed["search"]["depth"]);
    assert_eq!(analyzed["search"]["time_limit_s"], Json::Null);
    for m in analyzed["moves"].as_array().expect("moves") {
        assert_eq!(m["value"]["wdl"], Json::Null, "{m}");
        assert_eq!(
            m["result"]["score"].as_i64(),
            m["value"]["score"].as_i64().map(|s| -s),
            "{m}"
        );
    }
    let solved = cli("solve", &["--depth", "1"], case, empty.path());
    assert_schema(&solved, "solve");
    assert_eq!(solved["value"]["estimate"], true);
    assert_eq!(solved["best"].as_array().map(Vec::len), Some(1));
    let probed = probe(case, empty.path());
    assert_schema(&probed, "probe");
    assert_eq!(probed["value"]["obtained"], "not covered");
    assert_eq!(probed["value"]["wdl"], Json::Null);
    assert_eq!(probed["value"]["estimate"], false);
    assert_eq!(probed["best"], Json::Array(Vec::new()));
    let server = Server::start(empty.path(), &["--max-time", "2"]);
    let doc = server.json(&format!("{}&time=0.3", api(case.0, case.1)));
    assert_schema(&doc, "API");
}

/// README's example document is what the API answers for its position.
#[test]
fn the_readme_example_is_what_the_api_answers() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let section = readme
        .split_once("## JSON output")
        .map(|(_, rest)| rest)
        .expect("a section 'JSON output' in README.md");
    let example = section
        .split_once("```json\n")
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(json, _)| json)
        .expect("a JSON example in the section");
    let example: Json = serde_json::from_str(example).expect("the example is JSON");
    assert_schema(&example, "README");
    let fen = example["position"].as_str().expect("a position");
    let server = Server::start(serve_util::tables4(), &[]);
    let answer = server.json(&format!("/api/position?fen={}&time=1", enc(fen)));
    assert_eq!(steady(example), steady(answer));
}
