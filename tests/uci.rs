//! `morris uci`, driven as a child process: scripted sessions, errors, `stop` during
//! an infinite search, random input, and two engines playing a game.

mod common;

use morris_engine::{notation, Game, Move, Position, Variant};
use proptest::prelude::*;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// A running engine: its input, and its output lines as they come.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = common::command(["uci", "--tb", "/nonexistent-morris-tables"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("morris uci starts");
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = Engine {
            child,
            stdin,
            lines,
        };
        e.send("setoption name Hash value 4");
        e
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").expect("the engine reads its input");
    }

    /// The lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no line starting with {prefix:?}; saw {seen:?}"),
            }
        }
    }

    /// Send `go ...` and return the `info` line before the answer and the token.
    fn go(&mut self, args: &str) -> (String, String) {
        self.send(&format!("go {args}"));
        let lines = self.until("bestmove");
        let token = lines
            .last()
            .and_then(|l| l.strip_prefix("bestmove "))
            .expect("bestmove TOKEN")
            .to_string();
        let info = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info depth"))
            .cloned()
            .unwrap_or_default();
        (info, token)
    }

    /// Quit and check the engine ended well.
    fn quit(mut self) {
        self.send("quit");
        let status = self.child.wait().expect("the engine ends");
        assert!(status.success(), "{status:?}");
    }
}

/// Whether `token` closes a mill in `pos` without its capture (the capture follows as
/// its own token).
fn owes_capture(pos: &Position, token: &str) -> bool {
    let Ok(m) = notation::parse_move(token) else {
        return false;
    };
    m.capture().is_none()
        && pos
            .legal_moves()
            .iter()
            .any(|l: &Move| l.capture().is_some() && l.without_capture() == m)
}

#[test]
fn the_handshake_names_the_engine_and_its_options() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until("uciok");
    assert!(
        lines.iter().any(|l| l.starts_with("id name morris")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("id author ")),
        "{lines:?}"
    );
    for name in [
        "PerfectDatabasePath type string",
        "UsePerfectDatabase type check",
        "Hash type spin",
        "Threads type spin",
        "Variant type combo",
        "Rules type string default standard",
        "Strategy type combo default ultra var perfect var classes var ultra",
    ] {
        let want = format!("option name {name}");
        assert!(
            lines.iter().any(|l| l.starts_with(&want)),
            "{want}: {lines:?}"
        );
    }
    e.send("isready");
    assert_eq!(e.until("readyok"), vec!["readyok"]);
    e.quit();
}

#[test]
fn a_search_answers_a_legal_move_with_its_score_and_line() {
    let mut e = Engine::start();
    e.send("ucinewgame");
    e.send("position startpos moves d6 f4");
    let (info, token) = e.go("depth 3");
    let pos = notation::parse_game(&Position::start(Variant::Standard), "d6 f4")
        .unwrap()
        .position()
        .to_owned();
    let m = notation::parse_move(&token).expect("a move token");
    assert!(pos.is_legal(m), "{token}");
    assert!(info.starts_with("info depth 3 score cp "), "{info}");
    assert!(
        info.contains(" nodes ") && info.contains(&format!(" pv {token}")),
        "{info}"
    );
    e.quit();
}

/// The capture is asked for by a `go` of its own, answered with the capture of the
/// move the first answer chose; the game's end is `bestmove none`.
#[test]
fn a_capture_is_a_token_of_its_own() {
    let mut e = Engine::start();
    let fen = "WW./.../.../.....W/.../.../BBB w 0 0";
    e.send(&format!("position fen {fen}"));
    let (info, first) = e.go("depth 4");
    assert_eq!(first, "g4-g7");
    assert!(info.contains("score mate 1"), "{info}");
    let pv: Vec<&str> = info.split(" pv ").nth(1).unwrap().split(' ').collect();
    assert_eq!(pv[0], "g4-g7");
    assert!(["xa1", "xd1", "xg1"].contains(&pv[1]), "{info}");
    e.send(&format!("position fen {fen} moves g4-g7"));
    let (_, capture) = e.go("depth 4");
    assert_eq!(capture, pv[1], "the capture of the move chosen");
    e.send(&format!("position fen {fen} moves g4-g7 {capture}"));
    let lines = {
        e.send("go depth 4");
        e.until("bestmove")
    };
    assert_eq!(lines.last().unwrap(), "bestmove none", "{lines:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("info string game over")),
        "{lines:?}"
    );

    // Black to move and winning: the score is White's, so negative.
    let fen = "BB./.../.../.....B/.../.../WWW b 0 0";
    e.send(&format!("position fen {fen}"));
    let (info, token) = e.go("depth 4");
    assert_eq!(token, "g4-g7");
    assert!(info.contains("score mate -1"), "{info}");

    // In the placing phase: d7 a7 and then g7 closes the top line.
    e.send("position startpos moves d7 f4 a7 b4");
    let (info, token) = e.go("depth 3");
    assert_eq!(token, "g7", "{info}");
    let planned = info
        .split(" pv ")
        .nth(1)
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .to_string();
    e.send("position startpos moves d7 f4 a7 b4 g7");
    let (_, capture) = e.go("depth 3");
    assert_eq!(capture, planned);
    assert!(["xf4", "xb4"].contains(&capture.as_str()), "{capture}");

    // A capture asked for without a plan (another half-move than the one answered).
    e.send("position startpos moves d1 f4 a1 b4 g1");
    let (_, capture) = e.go("depth 2");
    assert!(["xf4", "xb4"].contains(&capture.as_str()), "{capture}");
    e.quit();
}

/// Under `captures=per-mill` a placement closing two mills takes two pieces, one token
/// at a time: the move, then a `go` for each capture (the second the one the first
/// answer planned); the Standard rules refuse the second.
#[test]
fn a_move_taking_two_pieces_answers_each_capture_in_turn() {
    let mut e = Engine::start();
    // g7 closes a7-d7-g7 and g7-g4-g1; Black's b6, f6 and b2 stand in no mill.
    let fen = "WW./B.B/.../.....W/.../B../..W w 5 6";
    e.send("setoption name Rules value standard,captures=per-mill");
    e.send(&format!("position fen {fen} moves g7"));
    let (info, first) = e.go("depth 2");
    let targets = ["xb6", "xf6", "xb2"];
    assert!(targets.contains(&first.as_str()), "{first}");
    let pv: Vec<&str> = info
        .split(" pv ")
        .nth(1)
        .expect("a pv")
        .split(' ')
        .collect();
    assert_eq!(pv[0], first, "{info}");
    assert!(targets.contains(&pv[1]) && pv[1] != first, "{info}");
    e.send(&format!("position fen {fen} moves g7 {first}"));
    let (_, second) = e.go("depth 2");
    assert_eq!(second, pv[1], "the second capture of the move chosen");
    // The whole move played: Black (one piece left on the board) places.
    e.send(&format!("position fen {fen} moves g7 {first} {second}"));
    let (_, reply) = e.go("depth 1");
    let after = Position::from_setup(
        &notation::parse_position(fen, Variant::Standard)
            .unwrap()
            .to_setup(),
        morris_engine::Rules::parse("standard,captures=per-mill").unwrap(),
    )
    .unwrap();
    let whole = format!("g7{first}{second}");
    let after = after
        .play(notation::parse_move(&whole).unwrap())
        .expect(&whole);
    assert_eq!(after.to_setup().pieces[1].count(), 1);
    assert!(
        after.is_legal(notation::parse_move(&reply).unwrap()),
        "{reply}"
    );

    // The Standard rules take one piece: a second capture is refused, named; so is a
    // bad rule set; and the engine goes on.
    e.send("setoption name Variant value standard");
    let mut refused = |command: &str, name: &str, needle: &str| {
        e.send(command);
        e.send("isready");
        let lines = e.until("readyok");
        let want = format!("info string error {name}");
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&want) && l.contains(needle)),
            "{command}: {lines:?}"
        );
    };
    refused(
        &format!("position fen {fen} moves g7 xb6 xf6"),
        "position",
        "move 3",
    );
    refused(
        "setoption name Rules value standard,captures=many",
        "setoption",
        "many",
    );
    e.quit();
}

/// Each bad command gets an `info string error` that names it, and the engine goes on.
#[test]
fn bad_commands_are_named_and_the_engine_goes_on() {
    let mut e = Engine::start();
    for (line, names) in [
        ("position startpos moves d7 d7", "position: move 2 'd7'"),
        ("go", "go: no position"),
        ("position startpos moves d7 xd7", "position: move 2 'xd7'"),
        ("position startpos moves d7 f4 a7 b4 g7 d1", "capture"),
        ("position fen nonsense", "position: "),
        ("position", "position: "),
        ("position startpos", ""),
        ("go depth zero", "go: depth 'zero'"),
        ("go depth", "go: depth needs a number"),
        ("go sideways", "go: unknown argument 'sideways'"),
        (
            "setoption name Nope value 1",
            "setoption: no option named 'Nope'",
        ),
        ("setoption name Hash value 0", "setoption: Hash '0'"),
        ("setoption name Threads value many", "setoption: Threads"),
        (
            "setoption name Variant value twelve",
            "setoption: Variant 'twelve'",
        ),
        (
            "setoption name Strategy value best",
            "setoption: Strategy 'best'",
        ),
        (
            "setoption name UsePerfectDatabase value maybe",
            "setoption: UsePerfectDatabase",
        ),
        ("setoption Hash 3", "setoption: expected"),
        ("frobnicate now", "unknown command: 'frobnicate now'"),
    ] {
        e.send(line);
        e.send("isready");
        let lines = e.until("readyok");
        if names.is_empty() {
            assert_eq!(lines, vec!["readyok"], "{line}");
        } else {
            assert_eq!(lines.len(), 2, "{line}: {lines:?}");
            assert!(
                lines[0].starts_with("info string error ") && lines[0].contains(names),
                "{line}: {lines:?}"
            );
        }
    }
    // Still a working engine.
    e.send("setoption name Variant value no-flying");
    e.send("position startpos moves d6");
    let (_, token) = e.go("depth 2");
    assert!(notation::parse_move(&token).is_ok(), "{token}");
    e.quit();
}

#[test]
fn stop_ends_an_infinite_search_at_once() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("isready");
    e.until("readyok");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    // Still searching: no answer yet.
    assert!(
        e.lines.try_recv().is_err(),
        "an infinite search answered by itself"
    );
    let sent = Instant::now();
    e.send("stop");
    let lines = e.until("bestmove");
    let latency = sent.elapsed();
    eprintln!("stop latency: {latency:?}");
    assert!(latency < Duration::from_millis(500), "{latency:?}");
    let token = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
    assert!(Position::start(Variant::Standard).is_legal(notation::parse_move(token).unwrap()));
    e.quit();
}

/// Two engines play a whole game through a driver: every answer is legal, and the game
/// ends by the rules (each answers `bestmove none` then).
#[test]
fn two_engines_play_a_whole_game() {
    let mut engines = [Engine::start(), Engine::start()];
    let start = Position::start(Variant::Standard);
    let mut tokens: Vec<String> = Vec::new();
    let mut turn = 0;
    // The game of the whole moves so far, and whether a capture is owed after it.
    let mut game = Game::new(start);
    let mut owed = false;
    for _ in 0..1000 {
        let e = &mut engines[turn];
        e.send(&format!("position startpos moves {}", tokens.join(" ")));
        let (_, token) = e.go("depth 2");
        if token == "none" {
            assert!(
                !owed && game.end().is_some(),
                "none in a game not over: {tokens:?}"
            );
            let other = &mut engines[1 - turn];
            other.send(&format!("position startpos moves {}", tokens.join(" ")));
            assert_eq!(other.go("depth 2").1, "none");
            eprintln!(
                "{} tokens: {}: {}",
                tokens.len(),
                game.end().unwrap(),
                tokens.join(" ")
            );
            for e in engines {
                e.quit();
            }
            return;
        }
        assert_eq!(token.starts_with('x'), owed, "{token} after {tokens:?}");
        owed = !owed && owes_capture(game.position(), &token);
        tokens.push(token.clone());
        if !owed {
            // A whole move: legal, and the other side's turn.
            let next = notation::parse_game(&start, &tokens.join(" "))
                .unwrap_or_else(|e| panic!("{token} after {tokens:?}: {e}"));
            assert_eq!(next.moves().len(), game.moves().len() + 1);
            game = next;
            turn = 1 - turn;
        }
    }
    panic!("no end after 1000 tokens: {tokens:?}");
}

/// The words random lines are made of: commands, their arguments, moves and noise.
const WORDS: &[&str] = &[
    "uci",
    "isready",
    "setoption",
    "name",
    "value",
    "Hash",
    "Threads",
    "Variant",
    "Strategy",
    "UsePerfectDatabase",
    "PerfectDatabasePath",
    "standard",
    "no-flying",
    "perfect",
    "true",
    "false",
    "ucinewgame",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "depth",
    "movetime",
    "nodes",
    "infinite",
    "wtime",
    "btime",
    "stop",
    "d",
    "ponderhit",
    "0",
    "1",
    "2",
    "3",
    "-1",
    "20",
    "99999999999999999999999",
    "d6",
    "d7",
    "a7",
    "g7",
    "f4",
    "b4",
    "xb4",
    "xf4",
    "x",
    "d6-d5",
    "a1-a4",
    "d6xg7",
    "-",
    "w",
    "b",
    "9",
    ".../.../.../....../.../.../...",
    "********/********/********",
    "p",
    "r",
    "é",
    "\t",
    "",
    "quitx",
];

fn line() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 0..8).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random lines never end the engine, and every one is handled: an `isready`
    /// after each is answered.
    #[test]
    fn random_lines_never_crash_it(lines in prop::collection::vec(line(), 1..10)) {
        let mut e = Engine::start();
        for l in &lines {
            e.send(l);
            e.send("isready");
            let seen = e.until("readyok");
            prop_assert!(!seen.iter().any(|s| s.contains("panicked")), "{:?}", seen);
        }
        e.send("quit");
        let status = e.child.wait().expect("the engine ends");
        prop_assert!(status.success(), "{:?} after {:?}", status, lines);
    }
}
