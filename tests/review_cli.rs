//! `morris review`, `morris puzzles` and the ultra-strong player end to end, checked
//! against what `morris probe --json` says of the same positions.

mod common;

use common::{ok, refused};
use serde_json::Value;
use std::path::Path;
use tempfile::TempDir;

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The No-flying 3-3 sector (draws and long wins), with its classes.
fn tables() -> TempDir {
    let tb = TempDir::new().unwrap();
    ok(&[
        "generate",
        "--variant",
        "no-flying",
        "--sector",
        "3-3",
        "--tb",
        path(tb.path()),
    ]);
    tb
}

fn probe(tb: &Path, fen: &str) -> Value {
    let out = ok(&[
        "probe",
        "--variant",
        "no-flying",
        "--fen",
        fen,
        "--tb",
        path(tb),
        "--json",
    ]);
    serde_json::from_str(&out).unwrap()
}

/// A won position of the tables where exactly one move keeps the win (a puzzle).
fn won(tb: &Path) -> String {
    let out = ok(&[
        "puzzles",
        "--variant",
        "no-flying",
        "--sector",
        "3-3",
        "--goal",
        "win",
        "--min-dtm",
        "9",
        "--count",
        "1",
        "--tb",
        path(tb),
        "--json",
    ]);
    let puzzles: Vec<Value> = serde_json::from_str(&out).unwrap();
    puzzles[0]["position"].as_str().unwrap().to_string()
}

#[test]
fn review_marks_the_best_move_and_the_blunder_the_tables_see() {
    let tb = tables();
    let won = won(tb.path());
    let start = probe(tb.path(), &won);
    assert_eq!(start["value"]["wdl"], "win", "{start}");
    let moves = start["moves"].as_array().unwrap();
    let best = start["best"][0].as_str().unwrap().to_string();
    // The opponent's reply: its best; then, for White, a move that does not win.
    let after_best = moves.iter().find(|m| m["move"] == best.as_str()).unwrap()["position"]
        .as_str()
        .unwrap()
        .to_string();
    let reply = probe(tb.path(), &after_best);
    let answer = reply["best"][0].as_str().unwrap().to_string();
    let then = reply["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == answer.as_str())
        .unwrap()["position"]
        .as_str()
        .unwrap()
        .to_string();
    let third = probe(tb.path(), &then);
    assert_eq!(third["value"]["wdl"], "win", "{third}");
    let Some(blunder) = third["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["result"]["wdl"] != "win")
    else {
        panic!("no losing move to play in {then}");
    };
    let blunder = blunder["move"].as_str().unwrap();
    let game = format!("{best} {answer} {blunder}");
    let out = ok(&[
        "review",
        "--variant",
        "no-flying",
        "--fen",
        &won,
        "--moves",
        &game,
        "--tb",
        path(tb.path()),
        "--json",
    ]);
    let r: Value = serde_json::from_str(&out).unwrap();
    let plies = r["plies"].as_array().unwrap();
    assert_eq!(plies.len(), 3, "{out}");
    assert_eq!(plies[0]["mark"], "best", "{out}");
    assert_eq!(plies[0]["before"]["wdl"], "win");
    assert_eq!(plies[0]["before"]["dtm"], start["value"]["dtm"]);
    assert_eq!(plies[1]["mark"], "best", "{out}");
    assert_eq!(plies[2]["mark"], "blunder", "{out}");
    assert_ne!(plies[2]["after"]["wdl"], "win");
    assert!(plies[2]["best"]
        .as_array()
        .unwrap()
        .iter()
        .all(|m| m != blunder));
    assert_eq!(r["white"]["blunders"], 1, "{out}");
    assert_eq!(r["white"]["best"], 1, "{out}");
    assert_eq!(r["black"]["best"], 1, "{out}");
    // The text says the same.
    let text = ok(&[
        "review",
        "--variant",
        "no-flying",
        "--fen",
        &won,
        "--moves",
        &game,
        "--tb",
        path(tb.path()),
    ]);
    assert!(text.contains("BLUNDER"), "{text}");
    assert!(
        text.contains("white: 2 plies judged (0 not), 1 best, 0 inaccuracies, 1 blunders"),
        "{text}"
    );
}

#[test]
fn review_names_the_plies_it_cannot_judge() {
    let empty = TempDir::new().unwrap();
    let out = ok(&["review", "--moves", "d6 d2 f4", "--tb", path(empty.path())]);
    assert_eq!(out.matches("not judged").count(), 3, "{out}");
    assert!(out.contains("white: 0 plies judged (2 not)"), "{out}");
    let e = refused(&["review", "--tb", path(empty.path())]);
    assert!(e.contains("--moves"), "{e}");
    let e = refused(&["review", "--moves", "d6 d6", "--tb", path(empty.path())]);
    assert!(e.contains("d6"), "{e}");
}

#[test]
fn every_puzzle_has_exactly_one_move_that_keeps_its_value() {
    let tb = tables();
    let run = |seed: &str| {
        ok(&[
            "puzzles",
            "--variant",
            "no-flying",
            "--sector",
            "3-3",
            "--count",
            "4",
            "--seed",
            seed,
            "--tb",
            path(tb.path()),
            "--json",
        ])
    };
    let out = run("7");
    assert_eq!(out, run("7"), "a seed gives the same puzzles");
    assert_ne!(out, run("8"));
    let puzzles: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert_eq!(puzzles.len(), 4, "{out}");
    for p in &puzzles {
        let fen = p["position"].as_str().unwrap();
        let seen = probe(tb.path(), fen);
        let goal = p["goal"].as_str().unwrap();
        assert_eq!(seen["value"]["wdl"], goal, "{p}");
        let keeping: Vec<&str> = seen["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["result"]["wdl"] == goal)
            .map(|m| m["move"].as_str().unwrap())
            .collect();
        assert_eq!(keeping, [p["solution"].as_str().unwrap()], "{p}");
        assert_eq!(p["line"][0], p["solution"]);
        if goal == "win" {
            assert_eq!(p["dtm"], seen["value"]["dtm"]);
            assert!(p["dtm"].as_u64().unwrap() >= 5);
        }
    }
    let empty = TempDir::new().unwrap();
    let e = refused(&["puzzles", "--tb", path(empty.path())]);
    assert!(e.contains("no sector"), "{e}");
}

/// The ultra-strong player keeps what it holds like the perfect one: from drawn
/// positions it never loses, with either colour.
#[test]
fn the_ultra_player_never_loses_a_draw() {
    let tb = tables();
    let dir = TempDir::new().unwrap();
    let openings = dir.path().join("openings.txt");
    // Drawn positions of the sector, from the puzzles that hold a draw.
    let out = ok(&[
        "puzzles",
        "--variant",
        "no-flying",
        "--sector",
        "3-3",
        "--goal",
        "draw",
        "--count",
        "4",
        "--tb",
        path(tb.path()),
        "--json",
    ]);
    let puzzles: Vec<Value> = serde_json::from_str(&out).unwrap();
    assert!(!puzzles.is_empty(), "{out}");
    let fens: Vec<&str> = puzzles
        .iter()
        .map(|p| p["position"].as_str().unwrap())
        .collect();
    std::fs::write(&openings, fens.join("\n")).unwrap();
    let games = (2 * fens.len()).to_string();
    let out = ok(&[
        "match",
        "ultra",
        "random",
        "--games",
        &games,
        "--openings",
        path(&openings),
        "--tb",
        path(tb.path()),
        "--max-plies",
        "120",
        "--variant",
        "no-flying",
    ]);
    let last = out.lines().last().unwrap();
    assert!(last.ends_with(" 0 losses"), "{out}");
}
