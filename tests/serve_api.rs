//! The JSON API of `morris serve`, over HTTP: answers checked against the tablebase
//! crate and `morris analyze --json`, bad requests refused with 400 naming the bad
//! part, a damaged table named in a 500, and hostile clients (slow, huge, malformed)
//! neither crashing the server nor keeping it from answering others.

mod serve_util;

use morris_engine::{notation, Variant};
use morris_tablebase::{OpenOptions, Tablebase};
use serde_json::Value as Json;
use serve_util::{api, enc, exchange, Server, START4};
use std::io::Write;
use std::net::TcpStream;

/// Games of the four-piece game: placements, a capture while placing, slides, a
/// flight and a capture by a slide that ends the game.
const GAMES: [&str; 5] = [
    "",
    "a7 b6 d7 f6",
    "a7 b6 d7 f6 g7xb6",
    "a7 b6 d7 f6 g7xb6 d2 a1 f2 a1-a4 d2-b2",
    "a7 b6 d7 f6 g7xb6 d2 a1 f2 a1-a4 d2-b2 g7-g4 b2-d2",
];

/// What `morris ARGS... --tb DIR` prints as JSON.
fn cli_json(dir: &std::path::Path, args: &[&str]) -> Json {
    serde_json::from_slice(&serve_util::morris(dir, args)).expect("JSON")
}

fn analyze_json(dir: &std::path::Path, fen: &str, moves: &str) -> Json {
    cli_json(dir, &["analyze", "--json", "--fen", fen, "--moves", moves])
}

/// `(wdl, dtm)` of a value object, for comparison.
fn wd(v: &Json) -> (Json, Json) {
    (v["wdl"].clone(), v["dtm"].clone())
}

#[test]
fn answers_agree_with_the_tablebase_and_with_analyze() {
    let dir = serve_util::tables4();
    let server = Server::start(dir, &[]);
    let tb = Tablebase::open(dir, OpenOptions::default()).expect("tables open");
    let start = notation::parse_position(START4, Variant::Standard).expect("a position");
    for moves in GAMES {
        let doc = server.json(&api(START4, moves));
        let game = notation::parse_game(&start, moves).expect("a game");
        let pos = *game.position();
        assert_eq!(doc["position"], pos.to_string());
        assert_eq!(doc["variant"], "standard");
        assert_eq!(doc["side_to_move"], pos.side_to_move().name());
        assert_eq!(doc["game_over"], Json::Null);
        // The position's value is the table's.
        let value = tb.value(&pos).expect("readable").expect("covered");
        assert_eq!(doc["value"]["obtained"], "tablebase");
        assert_eq!(doc["value"]["exact"], true);
        assert_eq!(
            wd(&doc["value"]),
            (
                Json::from(match value.wdl() {
                    morris_tablebase::Wdl::Win => "win",
                    morris_tablebase::Wdl::Draw => "draw",
                    morris_tablebase::Wdl::Loss => "loss",
                }),
                Json::from(value.dtm())
            ),
            "{moves}"
        );
        // Every legal move, once, each with the position it leads to.
        let listed = doc["moves"].as_array().expect("moves");
        assert_eq!(listed.len(), pos.legal_moves().len(), "{moves}");
        for m in listed {
            let mv = notation::parse_move(m["move"].as_str().expect("a move")).expect("notation");
            let child = pos.play(mv).expect("legal");
            assert_eq!(m["position"], child.to_string());
            assert_eq!(m["to"], mv.to().to_string());
            assert_eq!(m["from"], Json::from(mv.from().map(|p| p.to_string())));
            assert_eq!(
                m["capture"],
                Json::from(mv.capture().map(|p| p.to_string()))
            );
        }
        // The same moves, order and values as `morris analyze --json` (the whole
        // document is compared in tests/json_schema.rs).
        let cli = analyze_json(dir, START4, moves);
        assert_eq!(wd(&doc["value"]), wd(&cli["value"]), "{moves}");
        let ours: Vec<_> = listed
            .iter()
            .map(|m| (m["move"].clone(), wd(&m["value"])))
            .collect();
        let theirs: Vec<_> = cli["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| (m["move"].clone(), wd(&m["value"])))
            .collect();
        assert_eq!(ours, theirs, "{moves}");
    }
}

#[test]
fn a_winning_capture_is_first_and_ends_the_game() {
    let server = Server::start(serve_util::tables4(), &[]);
    let doc = server.json(&api(START4, GAMES[4]));
    assert_eq!(doc["value"]["wdl"], "win");
    assert_eq!(doc["value"]["dtm"], 1);
    let best = &doc["moves"][0];
    assert!(
        best["move"]
            .as_str()
            .is_some_and(|m| m.starts_with("g4-g7x")),
        "{best}"
    );
    assert_eq!(best["result"]["wdl"], "win");
    assert_eq!(best["result"]["dtm"], 1);
    assert_eq!(best["value"]["wdl"], "loss");
    assert_eq!(best["value"]["obtained"], "terminal");
    let after = format!("{} {}", GAMES[4], best["move"].as_str().unwrap_or_default());
    let end = server.json(&api(START4, &after));
    assert_eq!(end["game_over"]["winner"], "white");
    assert_eq!(end["game_over"]["reason"], "two-pieces");
    assert_eq!(end["moves"], Json::Array(Vec::new()));
    // POST answers as GET does; a Sanmill string names the same position.
    let body = serde_json::json!({ "fen": START4, "moves": GAMES[4] }).to_string();
    let (status, text) = server.post("/api/position", body.as_bytes());
    assert_eq!(status, 200, "{text}");
    let posted: Json = serde_json::from_str(&text).expect("JSON");
    assert_eq!(posted["moves"], doc["moves"]);
    let sanmill = doc["sanmill"].as_str().expect("sanmill string");
    let same = server.json(&format!("/api/position?fen={}", enc(sanmill)));
    assert_eq!(same["position"], doc["position"]);
    assert_eq!(same["moves"], doc["moves"]);
}

#[test]
fn without_tables_the_answer_is_a_labelled_estimate() {
    let empty = tempfile::tempdir().expect("a temporary directory");
    let server = Server::start(empty.path(), &["--max-time", "2"]);
    let doc = server.json("/api/position?moves=d6+d2&time=0.5");
    assert_eq!(doc["value"]["estimate"], true);
    assert_eq!(doc["value"]["exact"], false);
    assert_eq!(doc["value"]["obtained"], "depth-limited estimate");
    assert!(doc["value"]["score"].is_i64());
    assert_eq!(doc["moves"].as_array().map(Vec::len), Some(22));
    assert!(doc["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .all(|m| m["value"]["estimate"] == true));
    let (status, body) = server.get("/api/position?time=3");
    assert_eq!(status, 400);
    assert!(
        body.contains("time: '3'") && body.contains("at most 2"),
        "{body}"
    );
}

#[test]
fn bad_requests_get_400_naming_the_bad_part() {
    let server = Server::start(serve_util::tables4(), &[]);
    let cases: [(&str, u16, &str); 19] = [
        ("/api/position?fen=WWW", 400, "fen: bad position string"),
        (
            "/api/position?moves=d6+d6",
            400,
            "moves: move 2 'd6' is illegal",
        ),
        ("/api/position?moves=d6+z9", 400, "'z9'"),
        (
            "/api/position?variant=checkers",
            400,
            "variant: unknown variant 'checkers'",
        ),
        ("/api/position?depth=9", 400, "unknown parameter 'depth'"),
        ("/api/position?time=abc", 400, "time: 'abc'"),
        (
            "/api/position?moves=d6&moves=d2",
            400,
            "'moves' is given twice",
        ),
        ("/api/nothing", 404, "no such page '/api/nothing'"),
        ("/api/position?fen=%FF%FE", 400, "fen:"),
        (
            "/api/position?strategy=best",
            400,
            "strategy: unknown strategy 'best'",
        ),
        ("/api/review?time=1", 400, "unknown parameter 'time'"),
        ("/api/review?moves=d6&strategy=x", 400, "strategy: unknown"),
        ("/api/puzzle?goal=mate", 400, "goal: unknown goal 'mate'"),
        (
            "/api/puzzle?sector=2-9",
            400,
            "sector: '2-9' is not a sector",
        ),
        ("/api/puzzle?seed=x", 400, "seed: 'x'"),
        ("/api/puzzle?fen=x", 400, "unknown parameter 'fen'"),
        (
            "/api/puzzle?sector=5-4",
            404,
            "sector: 5-4 of the standard game is not in the tables",
        ),
        (
            "/api/puzzle?sector=3-3&variant=no-flying",
            404,
            "sector: 3-3 of the no-flying game is not in the tables",
        ),
        (
            "/api/puzzle?variant=no-flying",
            404,
            "none of the classic endgames",
        ),
    ];
    for (path, status, part) in cases {
        let (got, body) = server.get(path);
        assert_eq!(got, status, "{path}: {body}");
        let doc: Json = serde_json::from_str(&body).expect("a JSON error");
        let message = doc["error"].as_str().expect("an error message");
        assert!(message.contains(part), "{path}: {message}");
    }
    for (body, part) in [
        (&b"{\"fen\": 7}"[..], "'fen' must be a string"),
        (b"not json", "body: not JSON"),
        (b"[]", "body: expected a JSON object"),
    ] {
        let (got, text) = server.post("/api/position", body);
        assert_eq!(got, 400, "{text}");
        assert!(text.contains(part), "{text}");
    }
    let (got, text) = server.post("/api/position", &vec![b' '; 100_000]);
    assert_eq!(got, 413, "{text}");
    assert!(text.contains("body: more than"), "{text}");
    let (got, text) = server.get(&format!("/api/position?moves={}", "d6+".repeat(4000)));
    assert_eq!(got, 414, "{text}");
    let (got, text) = server.post("/", b"{}");
    assert_eq!(got, 405, "{text}");
    let long = serde_json::json!({ "moves": "d6 ".repeat(1001) }).to_string();
    let (got, text) = server.post("/api/review", long.as_bytes());
    assert_eq!(got, 400, "{text}");
    assert!(text.contains("1001 plies, more than the 1000"), "{text}");
    let (got, text) = server.post("/api/puzzle", b"{\"seed\": true}");
    assert_eq!(got, 400, "{text}");
    assert!(
        text.contains("'seed' must be a string or a number"),
        "{text}"
    );
    // The page and its assets are there.
    for (path, part) in [
        ("/", "<svg id=\"board\""),
        ("/app.js", "/api/position"),
        ("/style.css", "#board"),
    ] {
        let (got, text) = server.get(path);
        assert_eq!(got, 200, "{path}");
        assert!(text.contains(part), "{path}");
    }
}

#[test]
fn a_damaged_table_fails_its_requests_naming_the_file() {
    let copy = serve_util::copy_of_tables4();
    // The movement sector of four against three, where the games' last positions lie.
    let damaged = copy.path().join("standard-4-3.tb");
    let mut bytes = std::fs::read(&damaged).expect("the sector's file");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x5a;
    std::fs::write(&damaged, bytes).expect("damaged");
    let server = Server::start(copy.path(), &[]);
    let (status, body) = server.get(&api(START4, GAMES[3]));
    assert_eq!(status, 500, "{body}");
    assert!(body.contains("standard-4-3.tb"), "{body}");
    // Positions that never read it are answered as before.
    let doc = server.json(&api(START4, "a7"));
    assert_eq!(doc["value"]["obtained"], "tablebase");
}

#[test]
fn hostile_clients_neither_crash_the_server_nor_block_others() {
    let mut server = Server::start(serve_util::tables4(), &["--workers", "2"]);
    // Slow clients: heads that never end.
    let slow: Vec<TcpStream> = (0..64)
        .map(|_| {
            let mut s = TcpStream::connect(server.addr).expect("connects");
            s.write_all(b"GET /api/position?moves=d6 HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                .expect("written");
            s
        })
        .collect();
    // A head far beyond the limit, garbage, a truncated body, a bad length, HTTP/2.
    let huge = format!(
        "GET / HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(1 << 20)
    );
    let (status, _) = exchange(server.addr, huge.as_bytes());
    assert!(status == 431 || status == 0, "huge head answered {status}");
    for garbage in [
        &b"\x00\xff\x13garbage\r\n\r\n"[..],
        b"GET\r\n\r\n",
        b"POST /api/position HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{\"a\"",
        b"POST /api/position HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    ] {
        let _ = std::thread::spawn({
            let addr = server.addr;
            let garbage = garbage.to_vec();
            move || exchange(addr, &garbage)
        });
    }
    // Meanwhile others are answered, many at once.
    let addr = server.addr;
    let clients: Vec<_> = (0..8)
        .map(|i| {
            std::thread::spawn(move || {
                let path = api(START4, GAMES[i % GAMES.len()]);
                let request =
                    format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                (0..5)
                    .map(|_| exchange(addr, request.as_bytes()).0)
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for c in clients {
        assert_eq!(c.join().expect("a client"), vec![200; 5]);
    }
    assert!(server.alive(), "the server died");
    drop(slow);
    assert_eq!(server.get(&api(START4, "")).0, 200);
    assert!(server.alive(), "the server died");
}

/// Under `perfect`, drawing moves carry no class and keep notation order among
/// themselves; under `ultra` (the default) they carry their class, best first: the
/// orders of `morris analyze --strategy` in both.
#[test]
fn the_strategy_orders_the_moves_as_analyze_does() {
    let dir = serve_util::tables4();
    let server = Server::start(dir, &[]);
    let names = |doc: &Json| -> Vec<(Json, Json)> {
        doc["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| (m["move"].clone(), m["result"].clone()))
            .collect()
    };
    for moves in ["", "a7 b6", "a7 b6 d7 f6 g7xb6 d2 a1 f2"] {
        let default = server.json(&api(START4, moves));
        let ultra = server.json(&format!("{}&strategy=ultra", api(START4, moves)));
        let perfect = server.json(&format!("{}&strategy=perfect", api(START4, moves)));
        assert_eq!(names(&default), names(&ultra), "{moves}");
        for (doc, strategy) in [(&ultra, "ultra"), (&perfect, "perfect")] {
            let cli = cli_json(
                dir,
                &[
                    "analyze",
                    "--json",
                    "--fen",
                    START4,
                    "--moves",
                    moves,
                    "--strategy",
                    strategy,
                ],
            );
            assert_eq!(names(doc), names(&cli), "{moves} {strategy}");
            assert_eq!(doc["value"], cli["value"], "{moves} {strategy}");
        }
        let draws = |doc: &Json| -> Vec<Json> {
            doc["moves"]
                .as_array()
                .expect("moves")
                .iter()
                .filter(|m| m["result"]["wdl"] == "draw")
                .map(|m| m["result"]["class"].clone())
                .collect()
        };
        assert!(draws(&perfect).iter().all(Json::is_null), "{moves}");
        let classes: Vec<i64> = draws(&ultra).iter().filter_map(Json::as_i64).collect();
        assert_eq!(
            classes.len(),
            draws(&ultra).len(),
            "{moves}: every draw has a class"
        );
        assert!(
            classes.windows(2).all(|w| w[0] >= w[1]),
            "{moves}: {classes:?}"
        );
    }
}

/// A game whose last positions are won for White: Black blundered on the way.
const BLUNDERED: &str = "a7 b6 d7 f6 g7xb6 d2 a1 f2 a1-a4 d2-b2 g7-g4 b2-d2";

#[test]
fn a_review_is_the_document_of_morris_review() {
    let dir = serve_util::tables4();
    let server = Server::start(dir, &[]);
    for strategy in ["ultra", "perfect"] {
        let path = format!(
            "/api/review?fen={}&moves={}&strategy={strategy}",
            enc(START4),
            enc(BLUNDERED)
        );
        let doc = server.json(&path);
        let cli = cli_json(
            dir,
            &[
                "review",
                "--json",
                "--fen",
                START4,
                "--moves",
                BLUNDERED,
                "--strategy",
                strategy,
            ],
        );
        assert_eq!(doc, cli, "{strategy}");
        let body = serde_json::json!({"fen": START4, "moves": BLUNDERED, "strategy": strategy});
        let (status, text) = server.post("/api/review", body.to_string().as_bytes());
        assert_eq!(status, 200, "{text}");
        assert_eq!(serde_json::from_str::<Json>(&text).expect("JSON"), cli);
        let plies = doc["plies"].as_array().expect("plies");
        assert_eq!(plies.len(), BLUNDERED.split(' ').count());
        assert!(plies.iter().all(|p| p["judged"] == true), "{doc}");
        let blunders = doc["white"]["blunders"].as_u64().unwrap_or(0)
            + doc["black"]["blunders"].as_u64().unwrap_or(0);
        assert!(blunders > 0, "{doc}");
        assert!(
            plies
                .iter()
                .any(|p| p["mark"] == "blunder" && p["side"] == "black"),
            "{doc}"
        );
    }
    // The default strategy is ultra; outside the tables a ply is not judged.
    let default = server.json(&format!(
        "/api/review?fen={}&moves={}",
        enc(START4),
        enc(BLUNDERED)
    ));
    assert_eq!(
        default,
        cli_json(
            dir,
            &["review", "--json", "--fen", START4, "--moves", BLUNDERED]
        )
    );
    let nine = server.json("/api/review?moves=d6+d2");
    let cli = cli_json(dir, &["review", "--json", "--moves", "d6 d2"]);
    assert_eq!(nine, cli);
    assert_eq!(nine["plies"][0]["judged"], false);
    assert_eq!(nine["white"]["not_judged"], 1);
}

#[test]
fn a_puzzle_is_the_first_that_morris_puzzles_finds_with_the_seed() {
    let dir = serve_util::tables4();
    let server = Server::start(dir, &[]);
    let sectors = server.json("/api/puzzle/sectors");
    assert_eq!(
        sectors,
        serde_json::json!({"variant": "standard", "sectors": ["3-3", "3-4", "4-3"]})
    );
    for (sector, goal, seed) in [
        ("3-4", "win", 7),
        ("3-3", "draw", 7),
        ("3-3", "any", 1),
        ("4-3", "draw", 3),
        ("4-4", "win", 12),
        ("2-2+1-1", "any", 5),
    ] {
        let doc = server.json(&format!(
            "/api/puzzle?sector={}&goal={goal}&seed={seed}",
            enc(sector)
        ));
        let cli = cli_json(
            dir,
            &[
                "puzzles",
                "--json",
                "--count",
                "1",
                "--seed",
                &seed.to_string(),
                "--sector",
                sector,
                "--goal",
                goal,
            ],
        );
        assert_eq!(doc, cli[0], "{sector} {goal} {seed}");
        assert_eq!(doc["sector"], sector);
        if goal != "any" {
            assert_eq!(doc["goal"], goal);
        }
        // The solution keeps the value, by the position's own answer.
        let answer = server.json(&api(doc["position"].as_str().expect("a position"), ""));
        let solution = answer["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .find(|m| m["move"] == doc["solution"])
            .expect("the solution is a legal move");
        assert_eq!(solution["result"]["wdl"], doc["goal"]);
        let body = serde_json::json!({"sector": sector, "goal": goal, "seed": seed});
        let (status, text) = server.post("/api/puzzle", body.to_string().as_bytes());
        assert_eq!(status, 200, "{text}");
        assert_eq!(serde_json::from_str::<Json>(&text).expect("JSON"), doc);
    }
    // Without a sector: one of the classic endgames present, as the CLI finds it there.
    let mut seen = std::collections::BTreeSet::new();
    for seed in [4, 5, 6] {
        let doc = server.json(&format!("/api/puzzle?seed={seed}"));
        let sector = doc["sector"].as_str().expect("a sector").to_string();
        let cli = cli_json(
            dir,
            &[
                "puzzles",
                "--json",
                "--count",
                "1",
                "--seed",
                &seed.to_string(),
                "--sector",
                &sector,
            ],
        );
        assert_eq!(doc, cli[0], "seed {seed}");
        seen.insert(sector);
    }
    assert_eq!(seen.len(), 3, "the seed picks the sector: {seen:?}");
    // None to be found: a clear 404.
    let (status, body) = server.get("/api/puzzle?sector=3-4&goal=draw&seed=7");
    assert_eq!(status, 404, "{body}");
    assert!(
        body.contains("no puzzle found in sector 3-4 (goal draw) in 200000 tries with seed 7"),
        "{body}"
    );
}

/// House rules through the API: `rules` names a spec as `--rules` does, the answer is
/// read from that rule set's own tables (never the Standard ones beside them), a
/// review is `morris review --rules`'s document, and a bad spec, or a spec beside a
/// variant, is refused naming the parameter.
#[test]
fn house_rules_are_answered_from_their_own_tables() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for args in [
        ["generate", "--rules", "six-mens", "--max-pieces", "3"],
        ["generate", "--variant", "standard", "--max-pieces", "3"],
    ] {
        serve_util::morris(dir.path(), &args);
    }
    let server = Server::start(dir.path(), &[]);
    let start3 = ".../.../.../....../.../.../... w 3 3";
    let moves = "a7 c5 d7";
    let rules = morris_engine::Rules::parse("six-mens").expect("a spec");
    let pos = *notation::parse_game(
        &notation::parse_position(start3, rules).expect("a position"),
        moves,
    )
    .expect("a game")
    .position();
    let path = |spec: &str| {
        format!(
            "/api/position?rules={}&fen={}&moves={}",
            enc(spec),
            enc(start3),
            enc(moves)
        )
    };
    let six = server.json(&path("six-mens"));
    assert_eq!(six["variant"], "six-mens");
    assert_eq!(six["value"]["obtained"], "tablebase", "{six}");
    let tb = Tablebase::open(dir.path(), OpenOptions::default()).expect("tables open");
    let value = tb.value(&pos).expect("readable").expect("covered");
    assert_eq!(six["value"]["dtm"], Json::from(value.dtm()), "{six}");
    // Only the six board's points: none of the middle square's.
    let listed = six["moves"].as_array().expect("moves");
    assert_eq!(listed.len(), pos.legal_moves().len());
    assert!(
        listed.iter().all(|m| m["to"] != "d6" && m["to"] != "b4"),
        "{six}"
    );
    // The same game on the nine board is another position, from the Standard tables.
    let nine = server.json(&api(start3, moves));
    assert_eq!(nine["variant"], "standard");
    assert_ne!(nine["moves"].as_array().expect("moves").len(), listed.len());
    // No per-mill tables here: the answer is a search, labelled so.
    let (status, body) = server.get(&format!("{}&time=0.2", path("standard,captures=per-mill")));
    assert_eq!(status, 200, "{body}");
    let per_mill: Json = serde_json::from_str(&body).expect("JSON");
    assert_eq!(per_mill["variant"], "standard,captures=per-mill");
    assert_ne!(per_mill["value"]["obtained"], "tablebase", "{per_mill}");
    // A review under the rules is the command line's.
    let review = server.json(&format!(
        "/api/review?rules=six-mens&fen={}&moves={}",
        enc(start3),
        enc(moves)
    ));
    let cli = cli_json(
        dir.path(),
        &[
            "review", "--json", "--rules", "six-mens", "--fen", start3, "--moves", moves,
        ],
    );
    assert_eq!(review, cli);
    assert!(review["plies"]
        .as_array()
        .expect("plies")
        .iter()
        .all(|p| p["judged"] == true));
    for (query, part) in [
        (
            "/api/position?rules=chess",
            "rules 'chess': unknown preset 'chess'",
        ),
        ("/api/position?rules=standard,pieces=2", "3 to 12"),
        (
            "/api/position?rules=six-mens&variant=no-flying",
            "rules: give either variant or rules, not both",
        ),
        ("/api/review?rules=six-mens&moves=d6", "moves: "),
        ("/api/puzzle?rules=six-mens", "unknown parameter 'rules'"),
    ] {
        let (status, body) = server.get(query);
        assert_eq!(status, 400, "{query}: {body}");
        assert!(body.contains(part), "{query}: {body}");
    }
}
