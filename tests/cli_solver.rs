//! Command-line tests of the solver commands: solve, analyze, bench, play, probe,
//! stats and verify, run as the built binary against tablebases generated into a
//! temporary directory. Answers are checked against the libraries where they can be.

mod common;

use common::{command, fails, morris, ok, refused, text};
use morris_engine::{notation, Color, Outcome, Position, Variant};
use morris_tablebase::{OpenOptions, Tablebase, Value, Wdl};
use std::process::Stdio;
use tempfile::TempDir;

/// The built-in position of `solve`: White to move wins in 25 plies.
const DEFAULT: &str = "WB./W../.../.....W/.../.../BB. w 0 0";
/// A 3-3 position with Black to move (the example of `solve --help`).
const THREE_THREE: &str = "W../.B./W../B....W/.../..B/... b 0 0";
/// White to move places its last piece; Black, with none in hand, then moves:
/// every line reaches the 3-3 sector after one ply.
const PLACING: &str = "W../W../.../....../.../.../BBB w 1 0";
/// White to move closes a7-d7-g7 with g4-g7 and takes a piece: the game ends.
const WIN_IN_ONE: &str = "WW./.../.../.....W/.../.../BBB w 0 0";

/// A directory holding the Standard 3-3 sector.
fn three_three() -> TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    ok(&["generate", "--sector", "3-3", "--tb", path(&dir)]);
    dir
}

fn path(dir: &TempDir) -> &str {
    dir.path().to_str().expect("a UTF-8 temporary path")
}

fn position(fen: &str) -> Position {
    notation::parse_position(fen, Variant::Standard).unwrap()
}

/// `n` plies in words, as the commands write them.
fn plies(n: impl Into<u64>) -> String {
    match n.into() {
        1 => "1 ply".to_string(),
        n => format!("{n} plies"),
    }
}

/// The moves of `line: ...` of `solve`, checked against the count it gives.
fn line_of(stdout: &str) -> Vec<String> {
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("line:"))
        .unwrap_or_else(|| panic!("no line in {stdout}"));
    let (moves, count) = line.trim().rsplit_once(" (").unwrap();
    let moves: Vec<String> = moves.split_whitespace().map(String::from).collect();
    assert_eq!(count, format!("{})", plies(moves.len() as u64)), "{stdout}");
    moves
}

/// Play the moves from `fen`, each legal and none after the end of the game; return
/// the position reached.
fn play_out(fen: &str, moves: &[String]) -> Position {
    let mut pos = position(fen);
    for (k, m) in moves.iter().enumerate() {
        assert!(
            pos.end().is_none(),
            "{fen}: over after {k} plies of {moves:?}"
        );
        let m = notation::parse_move(m).unwrap();
        pos = pos
            .play(m)
            .unwrap_or_else(|e| panic!("{fen}: {m} after {k} plies: {e}"));
    }
    pos
}

/// `solve`'s words for a value of the side to move.
fn describe(v: Value, side: Color) -> String {
    match (v.wdl(), v.dtm()) {
        (Wdl::Win, Some(d)) => format!("win for {side} (the side to move) in {}", plies(d)),
        (Wdl::Loss, Some(d)) => format!("loss for {side} (the side to move) in {}", plies(d)),
        _ => "draw".to_string(),
    }
}

/// The best moves `solve` names: "best move: m", or "best moves: m1 m2 (...)".
fn best_moves(stdout: &str) -> Vec<String> {
    let line = stdout
        .lines()
        .find_map(|l| {
            l.strip_prefix("best move: ")
                .or(l.strip_prefix("best moves: "))
        })
        .unwrap_or_else(|| panic!("no best move in {stdout}"));
    line.split(" (")
        .next()
        .unwrap()
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// The answer of `solve`: its lines from the position to how it was obtained.
fn answer(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("position:"))
        .take_while(|l| !l.starts_with("search:"))
        .collect()
}

fn value_line(stdout: &str) -> &str {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("value:"))
        .unwrap_or_else(|| panic!("no value in {stdout}"))
        .trim()
}

#[test]
fn solve_without_a_position_generates_its_endgame_and_wins_in_25() {
    let dir = tempfile::tempdir().unwrap();
    let tb = dir.path().join("tb");
    let tb = tb.to_str().unwrap();
    let out = morris(["solve", "--tb", tb]).output();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("generating"), "{stderr}");
    assert!(dir.path().join("tb/standard-3-3.tb").is_file());
    assert_eq!(
        value_line(&stdout),
        "win for white (the side to move) in 25 plies",
        "{stdout}"
    );
    assert!(stdout.contains("obtained:  tablebase"), "{stdout}");
    let line = line_of(&stdout);
    assert_eq!(line.len(), 25, "{stdout}");
    assert!(best_moves(&stdout).contains(&line[0]), "{stdout}");
    let end = play_out(DEFAULT, &line)
        .end()
        .expect("the line ends the game");
    assert_eq!(end.outcome(), Outcome::Win(Color::White), "{stdout}");

    // The second time the files are there: nothing to generate, the same answer.
    let again = morris(["solve", "--tb", tb]).output();
    assert!(again.status.success());
    assert!(!text(&again.stderr).contains("generating"));
    assert_eq!(answer(&text(&again.stdout)), answer(&stdout));

    // A compact set serves as well: nothing raw is generated beside it.
    let packed = dir.path().join("packed");
    let packed = packed.to_str().unwrap();
    ok(&["pack", "--tb", tb, "--out", packed, "--distances", "sparse"]);
    let compact = morris(["solve", "--tb", packed]).output();
    assert!(compact.status.success(), "{}", text(&compact.stderr));
    assert!(!text(&compact.stderr).contains("generating"));
    assert!(!dir.path().join("packed/standard-3-3.tb").exists());
    assert_eq!(answer(&text(&compact.stdout)), answer(&stdout));

    // What it generated checks out value by value.
    let verify = ok(&["verify", "--full", "--tb", tb]);
    assert!(verify.contains("every value verified"), "{verify}");
    assert!(
        verify.contains("standard 3-3: all 169626 values agree"),
        "{verify}"
    );
}

#[test]
fn solve_a_tablebase_position_and_a_placement_position() {
    let dir = three_three();
    let tb = Tablebase::open(dir.path(), OpenOptions::default()).unwrap();

    let pos = position(THREE_THREE);
    let stored = tb.value(&pos).expect("intact tables").unwrap();
    let out = ok(&["solve", "--fen", THREE_THREE, "--tb", path(&dir)]);
    assert_eq!(value_line(&out), describe(stored, Color::Black), "{out}");
    assert!(out.contains("obtained:  tablebase"), "{out}");
    let line = line_of(&out);
    assert_eq!(Some(line.len()), stored.dtm().map(usize::from), "{out}");
    let winner = if stored.wdl() == Wdl::Win {
        Color::Black
    } else {
        Color::White
    };
    let end = play_out(THREE_THREE, &line)
        .end()
        .expect("the line ends the game");
    assert_eq!(end.outcome(), Outcome::Win(winner), "{out}");

    // One placement away from the tablebases: a proof, and a line through them.
    let pos = position(PLACING);
    let out = ok(&["solve", "--fen", PLACING, "--tb", path(&dir)]);
    assert!(out.contains("obtained:  proof search at depth 1"), "{out}");
    let best = pos
        .legal_moves()
        .iter()
        .map(|&m| {
            tb.value(&pos.play_unchecked(m))
                .expect("intact tables")
                .unwrap()
        })
        .min_by_key(|v| match (v.wdl(), v.dtm()) {
            (Wdl::Loss, Some(d)) => (0, i32::from(d)),
            (Wdl::Draw, _) => (1, 0),
            (_, d) => (2, -i32::from(d.unwrap())),
        })
        .unwrap();
    // One ply longer than the best child's distance, the other way round.
    let want = best.dtm().map_or(Value::DRAW, |d| Value::decided(d + 1));
    assert_eq!(value_line(&out), describe(want, Color::White), "{out}");
    if let Some(d) = want.dtm() {
        let line = line_of(&out);
        assert_eq!(line.len(), usize::from(d), "{out}");
        assert!(play_out(PLACING, &line).end().is_some(), "{out}");
    }
}

#[test]
fn search_limits_are_kept_and_bad_ones_refused() {
    let empty = tempfile::tempdir().unwrap();
    let tb = path(&empty);
    let out = ok(&["solve", "--moves", "d6 d2", "--depth", "3", "--tb", tb]);
    assert!(
        out.contains("obtained:  depth-limited estimate at depth 3"),
        "{out}"
    );
    assert!(value_line(&out).starts_with("estimate "), "{out}");
    let out = ok(&["solve", "--moves", "d6 d2", "--nodes", "5000", "--tb", tb]);
    assert!(out.contains("depth-limited estimate at depth"), "{out}");
    let out = ok(&["solve", "--moves", "d6 d2", "--time", "0.2", "--tb", tb]);
    assert!(out.contains("depth-limited estimate at depth"), "{out}");
    let out = ok(&["analyze", "--depth", "1", "--tb", tb]);
    assert_eq!(out.lines().filter(|l| l.starts_with("  ")).count(), 24);

    for bad in [
        &["--time", "-1"][..],
        &["--time=-1"],
        &["--time", "0"],
        &["--time", "nan"],
        &["--time", "inf"],
        &["--depth", "0"],
        &["--depth", "x"],
        &["--nodes", "-5"],
        &["--threads", "0"],
        &["--threads", "65"],
    ] {
        for cmd in ["solve", "analyze"] {
            let mut args = vec![cmd, "--tb", tb];
            args.extend_from_slice(bad);
            refused(&args);
        }
    }
    assert!(refused(&["solve", "--time=-1", "--tb", tb]).contains("--time -1"));
    assert!(refused(&["solve", "--depth", "0", "--tb", tb]).contains("--depth"));
    assert!(refused(&["play", "--time", "0", "--tb", tb]).contains("--time"));
    refused(&["bench", "--depth", "0"]);
    assert!(refused(&["solve", "--threads", "0", "--tb", tb]).contains("--threads"));
}

/// The rank of a move's result for the side that plays it, from the value of the
/// position it leads to: quick wins first, then draws, then slow losses.
fn rank(wdl: &str, dtm: Option<u64>) -> (i32, i64) {
    match (wdl, dtm) {
        ("loss", Some(d)) => (2, -(d as i64)),
        ("draw", None) => (1, 0),
        ("win", Some(d)) => (0, d as i64),
        other => panic!("not a value: {other:?}"),
    }
}

fn wdl_name(v: Value) -> &'static str {
    match v.wdl() {
        Wdl::Win => "win",
        Wdl::Draw => "draw",
        Wdl::Loss => "loss",
    }
}

#[test]
fn analyze_json_lists_every_move_best_first() {
    let dir = three_three();
    let tb = Tablebase::open(dir.path(), OpenOptions::default()).unwrap();
    for fen in [THREE_THREE, DEFAULT, PLACING] {
        let out = ok(&["analyze", "--json", "--fen", fen, "--tb", path(&dir)]);
        let doc: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
        let pos = position(fen);
        assert_eq!(doc["position"], fen);
        assert_eq!(doc["variant"], "standard");
        assert_eq!(doc["side_to_move"], pos.side_to_move().name());
        assert!(doc["perspective"].as_str().is_some_and(|s| !s.is_empty()));
        let value = &doc["value"];
        assert_eq!(value["exact"], true, "{out}");
        let provenance = if pos.hand(pos.side_to_move()) > 0 {
            "proof search"
        } else {
            "tablebase"
        };
        assert_eq!(value["obtained"], provenance, "{out}");
        let moves = doc["moves"].as_array().expect("a moves array");
        assert_eq!(moves.len(), pos.legal_moves().len(), "{out}");
        let mut ranks = Vec::new();
        for m in moves {
            for field in ["move", "position", "value", "result", "depth"] {
                assert!(m.get(field).is_some(), "{field} missing in {m}");
            }
            let mv = notation::parse_move(m["move"].as_str().unwrap()).unwrap();
            let child = pos.play(mv).unwrap();
            assert_eq!(m["position"], child.to_string(), "{m}");
            // The value of the position it leads to, for the opponent.
            let theirs = &m["value"];
            let wdl = theirs["wdl"].as_str().unwrap();
            let dtm = theirs["dtm"].as_u64();
            match tb.value(&child).expect("intact tables") {
                Some(v) => {
                    assert_eq!((wdl, dtm), (wdl_name(v), v.dtm().map(u64::from)), "{m}");
                    assert_eq!(theirs["obtained"], "tablebase", "{m}");
                }
                None => {
                    assert!(child.end().is_some(), "{mv} leads to {child}: uncovered");
                    assert_eq!(
                        (wdl, dtm, &theirs["obtained"]),
                        ("loss", Some(0), &"terminal".into())
                    );
                }
            }
            assert_eq!(theirs["exact"], true, "{m}");
            // The result for the mover: the opposite, one ply longer.
            let (ours, longer) = match wdl {
                "win" => ("loss", dtm.map(|d| d + 1)),
                "loss" => ("win", dtm.map(|d| d + 1)),
                _ => ("draw", None),
            };
            assert_eq!(m["result"]["wdl"], ours, "{m}");
            assert_eq!(m["result"]["dtm"].as_u64(), longer, "{m}");
            ranks.push(rank(wdl, dtm));
        }
        assert!(
            ranks.windows(2).all(|w| w[0] >= w[1]),
            "{fen}: moves not best first: {ranks:?}"
        );
        // The position's value is its best move's, one ply longer.
        let (best, first) = (&moves[0], ranks[0]);
        let expected = match first {
            (2, d) => ("win", Some(1 - d)),
            (1, _) => ("draw", None),
            (_, d) => ("loss", Some(d + 1)),
        };
        assert_eq!(
            (value["wdl"].as_str().unwrap(), value["dtm"].as_i64()),
            expected,
            "{fen}: value {value} but best move {best}"
        );
    }

    // Without tablebases, a shallow search: estimates, labelled as such.
    let empty = tempfile::tempdir().unwrap();
    let out = ok(&["analyze", "--json", "--depth", "2", "--tb", path(&empty)]);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["value"]["exact"], false, "{out}");
    assert!(doc["value"]["wdl"].is_null() && doc["value"]["score"].is_i64());
    let moves = doc["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 24);
    assert!(moves
        .iter()
        .all(|m| m["value"]["exact"] == false && m["value"]["score"].is_i64()));
}

fn total_nodes(stdout: &str) -> u64 {
    stdout
        .lines()
        .find_map(|l| l.strip_prefix("total nodes: "))
        .unwrap_or_else(|| panic!("no total in {stdout}"))
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn bench_node_counts_are_deterministic() {
    let first = ok(&["bench"]);
    let second = ok(&["bench"]);
    assert!(total_nodes(&first) > 0);
    assert_eq!(total_nodes(&first), total_nodes(&second));
    // The per-position lines (everything but the timings) are identical too.
    let positions = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.contains(" nodes  best "))
            .map(String::from)
            .collect()
    };
    assert_eq!(positions(&first).len(), 10, "{first}");
    assert_eq!(positions(&first), positions(&second));

    let shallow = ok(&["bench", "--depth", "3"]);
    assert_eq!(positions(&shallow).len(), 10, "{shallow}");
    assert!(total_nodes(&shallow) < total_nodes(&first));
    assert_eq!(
        total_nodes(&shallow),
        total_nodes(&ok(&["bench", "--depth", "3"]))
    );
}

#[test]
fn play_answers_moves_lists_them_and_survives_bad_input() {
    let dir = three_three();
    let out = morris(["play", "--time", "0.1", "--tb", path(&dir)])
        .stdin("a7\nmoves\nbad\nquit\n")
        .ok();
    assert!(out.contains("you play white"), "{out}");
    let reply = out
        .lines()
        .find_map(|l| l.strip_prefix("engine plays "))
        .unwrap_or_else(|| panic!("no engine move in {out}"));
    let reply = reply.split_whitespace().next().unwrap();
    let after = position(".../.../.../....../.../.../... w 9 9")
        .play(notation::parse_move("a7").unwrap())
        .unwrap()
        .play(notation::parse_move(reply).unwrap())
        .expect("the engine's move is legal");
    // 'moves' lists White's placements: every empty point.
    let mut listed: Vec<String> = out
        .lines()
        .filter_map(|l| l.strip_prefix("your move> "))
        .find(|l| l.split_whitespace().count() > 5)
        .map(|l| l.split_whitespace().map(String::from).collect())
        .unwrap_or_else(|| panic!("no move list in {out}"));
    let mut legal: Vec<String> = after.legal_moves().iter().map(|m| m.to_string()).collect();
    listed.sort();
    legal.sort();
    assert_eq!(listed, legal, "{out}");
    // The bad input is reported and the prompt comes back.
    let bad = out
        .find("'bad'")
        .unwrap_or_else(|| panic!("'bad' not reported: {out}"));
    assert!(out[bad..].contains("your move>"), "{out}");
    assert!(!out.contains("game over"), "{out}");

    // The engine plays first as White when the person takes Black; end of input ends.
    let out = morris([
        "play",
        "--color",
        "black",
        "--time",
        "0.1",
        "--tb",
        path(&dir),
    ])
    .stdin("")
    .ok();
    assert!(out.contains("you play black"), "{out}");
    assert!(out.contains("engine plays "), "{out}");
}

#[test]
fn play_announces_the_end_of_the_game() {
    let dir = three_three();
    // The engine, White, wins at once.
    let out = morris([
        "play",
        "--color",
        "black",
        "--fen",
        WIN_IN_ONE,
        "--time",
        "0.1",
        "--tb",
        path(&dir),
    ])
    .stdin("")
    .ok();
    assert!(out.contains("engine plays g4-g7x"), "{out}");
    assert!(out.contains("game over: white wins"), "{out}");
    // The person, White, wins with the same move.
    let out = morris([
        "play",
        "--fen",
        WIN_IN_ONE,
        "--time",
        "0.1",
        "--tb",
        path(&dir),
    ])
    .stdin("g4-g7xa1\n")
    .ok();
    assert!(!out.contains("engine plays"), "{out}");
    assert!(out.contains("game over: white wins"), "{out}");
    // A position already over is announced at once.
    let out = morris([
        "play",
        "--fen",
        "WWW/.../.../....../.../.../BB. w 0 0",
        "--tb",
        path(&dir),
    ])
    .stdin("")
    .ok();
    assert!(out.contains("game over: white wins"), "{out}");
}

#[test]
fn probe_covered_and_uncovered_positions() {
    let dir = three_three();
    let tb = Tablebase::open(dir.path(), OpenOptions::default()).unwrap();
    let v = tb
        .value(&position(THREE_THREE))
        .expect("intact tables")
        .unwrap();
    let out = ok(&["probe", "--fen", THREE_THREE, "--tb", path(&dir)]);
    let want = match (v.wdl(), v.dtm()) {
        (Wdl::Win, Some(d)) => format!("win for the side to move, DTM {}", plies(d)),
        (Wdl::Loss, Some(d)) => format!("loss for the side to move, DTM {}", plies(d)),
        _ => "draw".to_string(),
    };
    assert_eq!(out.trim(), format!("{want} (standard sector 3-3)"));
    // 4-4 was not generated.
    let four = "WW./.B./W../B....W/.../.BB/... b 0 0";
    let out = ok(&["probe", "--fen", four, "--tb", path(&dir)]);
    assert!(
        out.starts_with("not covered: standard sector 4-4 is not in"),
        "{out}"
    );
    // No-flying was not generated either.
    let out = ok(&[
        "probe",
        "--variant",
        "no-flying",
        "--fen",
        THREE_THREE,
        "--tb",
        path(&dir),
    ]);
    assert!(
        out.starts_with("not covered: no-flying sector 3-3"),
        "{out}"
    );
    // Pieces in hand: the placement sector was not generated, and the message names
    // the game that holds it.
    let out = ok(&["probe", "--fen", PLACING, "--tb", path(&dir)]);
    assert!(
        out.starts_with("not covered: standard sector 2-3+1-0 is not in")
            && out.contains("(run `morris generate --variant standard --max-pieces 3`)"),
        "{out}"
    );
    let out = ok(&[
        "probe",
        "--fen",
        "WWW/.../.../....../.../.../BB. b 0 0",
        "--tb",
        path(&dir),
    ]);
    assert!(out.starts_with("game over"), "{out}");
}

/// A `--moves` game that repeats its start a third time is over for every command:
/// each says so, and none reports the table's value of the position (a win in 25).
#[test]
fn every_command_ends_a_game_at_its_third_repetition() {
    let dir = three_three();
    let shuttle = "g4-f4 d7-d6 f4-g4 d6-d7 g4-f4 d7-d6 f4-g4 d6-d7";
    let over = "game over: draw by threefold repetition";
    for (cmd, takes_tb) in [
        ("probe", true),
        ("show", false),
        ("solve", true),
        ("analyze", true),
    ] {
        let mut args = vec![cmd, "--fen", DEFAULT, "--moves", shuttle];
        if takes_tb {
            args.extend(["--tb", path(&dir)]);
        }
        let out = ok(&args);
        assert!(out.contains(over) && !out.contains("win"), "{cmd}: {out}");
    }
    let perft = ok(&["perft", "2", "--fen", DEFAULT, "--moves", shuttle]);
    assert_eq!(perft, "perft 2: 0\n");
    let out = morris(["moves", "--fen", DEFAULT, "--moves", shuttle]).output();
    assert!(out.status.success());
    assert_eq!(
        (text(&out.stdout).as_str(), text(&out.stderr).trim()),
        ("", over)
    );
    // Twice is not yet a draw: the table's value stands.
    let twice = shuttle.rsplitn(5, ' ').last().unwrap();
    let out = ok(&[
        "probe",
        "--fen",
        DEFAULT,
        "--moves",
        twice,
        "--tb",
        path(&dir),
    ]);
    assert_eq!(
        out.trim(),
        "win for the side to move, DTM 25 plies (standard sector 3-3)"
    );
}

#[test]
fn stats_ranks_the_movement_sectors_by_stay_class() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    ok(&[
        "generate",
        "--sector",
        "4-3",
        "--no-classes",
        "--tb",
        path(&dir),
    ]);
    let out = ok(&["stats", "--stay-classes", "--tb", path(&dir)]);
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    // The side with three, which flies, scores 51.0% over 3-4 and 4-3 (the counts of
    // RESULTS.md): +2 for it, -2 for the side with four; 3-3 is even.
    assert_eq!(
        rows,
        [
            ["standard", "3-4", "+2", "0.510", "658117"],
            ["standard", "3-3", "+0", "0.500", "269"],
            ["standard", "4-3", "-2", "0.490", "681906"],
        ],
        "{out}"
    );
}

#[test]
fn stats_json_has_the_published_three_against_three_counts() {
    let dir = three_three();
    let out = ok(&["stats", "--json", "--tb", path(&dir)]);
    let doc: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let rows = doc.as_array().expect("an array");
    assert_eq!(rows.len(), 1, "{out}");
    let row = &rows[0];
    let fields = [
        "variant",
        "us",
        "them",
        "positions",
        "wins",
        "draws",
        "losses",
        "longest_win",
        "longest_loss",
        "stay_class",
    ];
    for f in fields {
        assert!(row.get(f).is_some(), "{f} missing: {row}");
    }
    assert_eq!(row.as_object().unwrap().len(), fields.len(), "{row}");
    assert_eq!(row["variant"], "standard");
    let n = |f: &str| row[f].as_u64().unwrap();
    assert_eq!((n("us"), n("them")), (3, 3));
    assert_eq!(
        (n("positions"), n("wins"), n("draws"), n("losses")),
        (169_626, 140_621, 269, 28_736)
    );
    assert_eq!((n("longest_win"), n("longest_loss")), (25, 26));
    // A pair of equal material: the stay class is 0 by definition.
    assert_eq!(row["stay_class"], 0);

    let empty = tempfile::tempdir().unwrap();
    let out = ok(&["stats", "--json", "--tb", path(&empty)]);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).unwrap(),
        serde_json::json!([])
    );
}

#[test]
fn verify_full_passes_on_generated_files() {
    let dir = tempfile::tempdir().unwrap();
    ok(&[
        "generate",
        "--variant",
        "both",
        "--sector",
        "3-4",
        "--tb",
        path(&dir),
    ]);
    let stdout = ok(&["verify", "--full", "--tb", path(&dir)]);
    assert!(
        stdout.contains("all 6 files ok, every value verified"),
        "{stdout}"
    );
    // One sector of one game: the other game's files are not read at all.
    let part = ok(&[
        "verify",
        "--full",
        "--variant",
        "no-flying",
        "--sector",
        "3-4",
        "--tb",
        path(&dir),
    ]);
    assert!(
        part.contains("no-flying 3-4: all 760398 values agree"),
        "{part}"
    );
    assert!(!part.contains("standard"), "{part}");
    assert!(!part.contains("no-flying 4-3: all"), "{part}");
    assert!(
        part.contains("all 3 files ok, every value of 1 sector verified"),
        "{part}"
    );
    // A sector without a file is an error.
    let (stdout, _) = fails(&["verify", "--full", "--sector", "5-5", "--tb", path(&dir)]);
    assert!(
        stdout.contains("sector 5-5: no good file to check"),
        "{stdout}"
    );
}

#[test]
fn solve_reports_a_win_when_the_opponent_must_place_into_defeat() {
    let dir = three_three();
    // White closes a1-d1-g1 taking a7 or e4; Black must then place its last piece and
    // has two on the board: White wins in 2. Reported: "loss for white ... in 2 plies".
    let fen = "B../.../.../...B../.../.../WW. w 1 1";
    let out = ok(&["solve", "--fen", fen, "--tb", path(&dir)]);
    assert_eq!(
        value_line(&out),
        "win for white (the side to move) in 2 plies",
        "{out}"
    );
    // Black to move places its last piece and has two: Black loses in 1.
    // Reported: "win for black (the side to move) in 1 ply".
    let fen = ".W./.W./.W./...B../.../W../... b 0 1";
    let out = ok(&["solve", "--fen", fen, "--tb", path(&dir)]);
    assert_eq!(
        value_line(&out),
        "loss for black (the side to move) in 1 ply",
        "{out}"
    );
}

#[test]
fn a_closed_pipe_ends_output_without_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    ok(&[
        "generate",
        "--variant",
        "both",
        "--max-pieces",
        "3",
        "--tb",
        path(&dir),
    ]);
    let mut child = command(["analyze", "--fen", DEFAULT, "--tb", path(&dir)])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end before the command has printed anything.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn value_only_proves_the_same_result_without_a_distance() {
    let dir = three_three();
    let tb = path(&dir);
    // The empty board with three pieces each to place: every line ends in sector 3-3.
    let fen = ".../.../.../....../.../.../... w 3 3";
    let run = |cmd: &str, extra: &[&str]| {
        let mut args = vec![cmd, "--fen", fen, "--depth", "30", "--tb", tb];
        args.extend_from_slice(extra);
        ok(&args)
    };
    let full = run("solve", &[]);
    let quick = run("solve", &["--value-only"]);
    assert!(full.contains("obtained:  proof search at depth"), "{full}");
    assert!(
        quick.contains("obtained:  proof search (value only, distance not computed) at depth"),
        "{quick}"
    );
    // The same result, without "in N plies".
    let (v_full, v_quick) = (value_line(&full), value_line(&quick));
    assert!(
        v_full.starts_with(v_quick) && v_full.contains(" in "),
        "{v_full} / {v_quick}"
    );
    assert!(!v_quick.contains(" in "), "{v_quick}");
    let nodes = |out: &str| -> u64 {
        let line = out
            .lines()
            .find(|l| l.starts_with("search:"))
            .expect("a search line");
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    assert!(nodes(&quick) < nodes(&full), "{quick}\n{full}");
    // analyze: every move with its value, and the work done.
    let out = run("analyze", &["--value-only"]);
    let moves: Vec<&str> = out.lines().filter(|l| l.starts_with("  ")).collect();
    assert_eq!(moves.len(), 24, "{out}");
    assert!(moves.iter().all(|l| !l.contains(" in ")), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("search:   ") && l.contains(" nodes in ")),
        "{out}"
    );
}

/// While pieces are being placed `ultra` leaves the classes aside: `solve` lists
/// every drawing move (the traps choose among them) where `classes` lists those of
/// the best class, and each line starts with a move of its own list.
#[test]
fn solve_lists_the_moves_its_strategy_chooses_from_while_placing() {
    use morris_solver::strategy::Rng;
    use morris_solver::Strategy;
    let dir = tempfile::tempdir().unwrap();
    ok(&["generate", "--max-pieces", "4", "--tb", path(&dir)]);
    let tb = Tablebase::open(dir.path(), OpenOptions::default()).unwrap();
    // A drawn placing position where the classes tell the drawing moves apart, from
    // random games of the four-piece start.
    let start = position(".../.../.../....../.../.../... w 4 4");
    let mut rng = Rng::new(3);
    let mut found = None;
    'games: for _ in 0..200 {
        let mut pos = start;
        while pos.end().is_none() && pos.hand(Color::White) + pos.hand(Color::Black) > 0 {
            let drawn = tb.value(&pos).unwrap().map(|v| v.wdl()) == Some(Wdl::Draw);
            if drawn {
                let keep = Strategy::Perfect
                    .candidates(&tb, &pos, &[])
                    .unwrap()
                    .unwrap();
                let best = Strategy::Classes
                    .candidates(&tb, &pos, &[])
                    .unwrap()
                    .unwrap();
                if best.len() < keep.len() {
                    found = Some((pos, keep));
                    break 'games;
                }
            }
            let moves = pos.legal_moves();
            pos = pos.play_unchecked(moves[rng.below(moves.len())]);
        }
    }
    let (pos, keep) = found.expect("a placing draw whose moves differ in class");
    let fen = notation::setup_to_string(&pos.to_setup());
    let mut keep: Vec<String> = keep.iter().map(ToString::to_string).collect();
    keep.sort();
    // `command` over the position under `strategy`, with `extra` arguments.
    let run = |command: &str, strategy: &str, extra: &[&str]| {
        let mut args = vec![command, "--fen", &fen, "--strategy", strategy];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--tb", path(&dir)]);
        ok(&args)
    };
    let solve = |strategy: &str| {
        let out = run("solve", strategy, &[]);
        let (best, line) = (best_moves(&out), line_of(&out));
        assert!(best.contains(&line[0]), "{strategy}: {out}");
        let mut sorted = best.clone();
        sorted.sort();
        (sorted, out)
    };
    // `probe --json` and `analyze --json` count the best moves as `solve` lists them.
    let best_of = |command: &str, strategy: &str| {
        let out = run(command, strategy, &["--json"]);
        let doc: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
        let best: Vec<String> = doc["best"]
            .as_array()
            .unwrap_or_else(|| panic!("{out}"))
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        best
    };
    let (ultra, out) = solve("ultra");
    assert_eq!(ultra, keep, "{out}");
    assert!(!out.contains("best draw class"), "{out}");
    let (classes, out) = solve("classes");
    assert!(classes.len() < keep.len(), "{out}");
    assert!(classes.iter().all(|m| keep.contains(m)), "{out}");
    assert!(out.contains("in the best draw class"), "{out}");
    let (perfect, out) = solve("perfect");
    assert_eq!(perfect, keep, "{out}");
    for command in ["probe", "analyze"] {
        assert_eq!(best_of(command, "ultra"), ultra, "{command}");
        assert_eq!(best_of(command, "classes"), classes, "{command}");
        assert_eq!(best_of(command, "perfect"), perfect, "{command}");
    }
    let probed = run("probe", "ultra", &[]);
    assert!(
        probed.contains("drawing moves, most traps first"),
        "{probed}"
    );
    let probed = run("probe", "classes", &[]);
    assert!(
        probed.contains("drawing moves, best class first"),
        "{probed}"
    );
    let probed = run("probe", "perfect", &[]);
    assert!(probed.contains("drawing moves: "), "{probed}");
}
