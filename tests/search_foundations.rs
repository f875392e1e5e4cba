//! Foundations of the search: one table for both games, tables too large for the
//! memory, time limits too long to represent or counted from before the search, and
//! damaged tablebase files reported by name instead of searched around.

use morris_engine::{notation, Position, Variant};
use morris_solver::{analyze, Limits, Provenance, SearchError, Searcher, TableError, Verdict};
use morris_tablebase::{OpenOptions, Tablebase, Wdl};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn position(fen: &str, variant: Variant) -> Position {
    notation::parse_position(fen, variant).unwrap()
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

/// Run the binary with `input` on standard input.
fn morris(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the morris binary runs");
    // A command that stops at an error before reading its input closes the pipe:
    // its output is what the test looks at.
    match child.stdin.take().unwrap().write_all(input.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => panic!("input not written: {e}"),
        _ => {}
    }
    child.wait_with_output().expect("morris finishes")
}

fn stderr(out: &Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("UTF-8")
}

/// A board worth a loss in 2 for White to move in Standard, where Black flies to
/// close a mill, and a win in 3 in No-flying, where Black cannot.
const BOTH_GAMES: &str = "B.B/.../.../...W.B/W../.W./... w 0 0";

#[test]
fn one_searcher_answers_both_games() {
    let standard = position(BOTH_GAMES, Variant::Standard);
    let no_flying = position(BOTH_GAMES, Variant::NoFlying);
    let loss_in_2 = Verdict {
        wdl: Wdl::Loss,
        dtm: Some(2),
    };
    let win_in_3 = Verdict {
        wdl: Wdl::Win,
        dtm: Some(3),
    };
    let limits = depth(7);
    for order in [[standard, no_flying], [no_flying, standard]] {
        // One searcher, so one table, for both games in turn.
        let mut searcher = Searcher::new(None, 16).unwrap();
        for pos in order {
            let r = searcher.search(&pos, limits, &[]).unwrap();
            let want = match pos.variant().expect("a classic game") {
                Variant::Standard => loss_in_2,
                Variant::NoFlying => win_in_3,
            };
            assert_eq!(
                r.provenance,
                Provenance::Proof,
                "{pos} ({}): {r:?}",
                pos.rules()
            );
            assert_eq!(
                r.value,
                Some(want),
                "{pos} ({}), order {:?}",
                pos.rules(),
                order.map(|p| p.variant())
            );
        }
    }
}

#[test]
fn a_table_too_large_for_the_memory_is_an_error() {
    let e = std::hint::black_box(Searcher::new(None, 1 << 40))
        .err()
        .expect("no machine has 1 EiB");
    assert!(matches!(e, TableError { mb, .. } if mb == 1 << 40), "{e:?}");
}

/// `sh -c 'ulimit -v ...'` caps the address space of the command it runs.
#[cfg(target_os = "linux")]
#[test]
fn the_cli_reports_a_table_it_cannot_allocate() {
    let dir = tempfile::tempdir().unwrap();
    let tb = dir.path().to_str().unwrap();
    let out = Command::new("sh")
        .args(["-c", "ulimit -v 1048576 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_morris"))
        .args(["solve", "--depth", "1", "--hash", "4096", "--tb", tb])
        .args(["--fen", ".../.../.../....../.../.../... w 9 9"])
        .output()
        .expect("sh runs");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        err.lines().next(),
        Some(
            "error: cannot allocate a transposition table of 4096 MiB: Cannot allocate \
             memory (os error 12)"
        ),
        "{err}"
    );
}

#[test]
fn a_time_limit_too_long_to_represent_is_no_limit() {
    let start = Position::start(Variant::Standard);
    for limit_start in [None, Some(Instant::now())] {
        let limits = Limits {
            time: Some(Duration::MAX),
            start: limit_start,
            ..depth(3)
        };
        let r = Searcher::new(None, 1)
            .unwrap()
            .search(&start, limits, &[])
            .unwrap();
        assert_eq!(r.depth, 3, "{r:?}");
    }
}

#[test]
fn play_takes_times_too_long_to_represent() {
    let dir = tempfile::tempdir().unwrap();
    let tb = dir.path().to_str().unwrap();
    // Beyond a `Duration`: refused by nothing, taken as no limit.
    let out = morris(&["play", "--time", "1e20", "--tb", tb], "quit\n");
    let err = stderr(&out);
    assert!(out.status.success() && err.is_empty(), "{err}");
    // A `Duration`, but beyond the clock: the engine searches without a deadline and
    // wins at once.
    let fen = "WW./.../.../.....W/.../.../BBB w 0 0";
    let args = ["play", "--color", "black", "--fen", fen, "--time", "1e19"];
    let out = morris(&[&args[..], &["--tb", tb]].concat(), "");
    let err = stderr(&out);
    assert!(out.status.success() && err.is_empty(), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("engine plays g4-g7x"), "{stdout}");
    assert!(stdout.contains("game over: white wins"), "{stdout}");
}

#[test]
fn the_time_limit_counts_from_the_start_it_is_given() {
    // A second's budget that began two seconds ago is spent before the search starts:
    // it stops at its first look at the clock, after 256 nodes.
    let two_seconds_ago = Instant::now()
        .checked_sub(Duration::from_secs(2))
        .expect("the clock has run two seconds");
    let limits = Limits {
        time: Some(Duration::from_secs(1)),
        start: Some(two_seconds_ago),
        ..Limits::default()
    };
    let r = Searcher::new(None, 1)
        .unwrap()
        .search(&Position::start(Variant::Standard), limits, &[])
        .unwrap();
    assert_eq!(r.stats.nodes, 256, "{r:?}");
    assert_eq!(r.provenance, Provenance::Estimate);
}

/// A 3-3 position with Black to move.
const THREE_THREE: &str = "W../.B./W../B....W/.../..B/... b 0 0";
/// White places its last piece; every line reaches the 3-3 sector after one ply.
const PLACING: &str = "W../W../.../....../.../.../BBB w 1 0";

/// A directory with the Standard 3-3 sector, its payload overwritten with values no
/// sector holds (distances beyond its longest loss); and the file's path.
fn damaged_three_three() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = morris(
        &[
            "generate",
            "--sector",
            "3-3",
            "--tb",
            dir.path().to_str().unwrap(),
        ],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let file = dir.path().join("standard-3-3.tb");
    let mut bytes = std::fs::read(&file).unwrap();
    // Every entry (the block checksums after them stay as written).
    let entries = u64::from_le_bytes(bytes[16..24].try_into().unwrap()) as usize;
    bytes[128..128 + entries].fill(0xFF);
    std::fs::write(&file, bytes).unwrap();
    (dir, file)
}

fn names_file(e: &SearchError, file: &Path) {
    match e {
        SearchError::Tablebase(e) => assert_eq!(e.path, file, "{e}"),
        other => panic!("not a tablebase error: {other}"),
    }
}

#[test]
fn a_damaged_file_is_an_error_of_every_search_entry_point() {
    let (dir, file) = damaged_three_three();
    let tb = Tablebase::open(dir.path(), OpenOptions::default()).expect("headers are intact");
    let covered = position(THREE_THREE, Variant::Standard);
    let placing = position(PLACING, Variant::Standard);
    let searcher = || Searcher::new(Some(&tb), 1).unwrap();
    // At the root, and inside the tree.
    for pos in [covered, placing] {
        let e = searcher()
            .search(&pos, Limits::default(), &[])
            .expect_err("a damaged file");
        names_file(&e, &file);
    }
    names_file(
        &searcher().tablebase_best_moves(&covered).unwrap_err(),
        &file,
    );
    names_file(&searcher().tablebase_line(&covered, 10).unwrap_err(), &file);
    let e = analyze(&mut searcher(), &covered, depth(2), &[]).unwrap_err();
    names_file(&e, &file);
}

#[test]
fn the_commands_report_a_damaged_file_by_name() {
    let (dir, file) = damaged_three_three();
    let tb = dir.path().to_str().unwrap();
    let want = format!(
        "error: {}: corrupt payload (checksum mismatch in entries ",
        file.display()
    );
    for (args, input) in [
        (&["solve", "--fen", THREE_THREE][..], ""),
        (&["solve", "--fen", PLACING, "--depth", "3"], ""),
        (&["analyze", "--fen", THREE_THREE], ""),
        (&["play", "--fen", THREE_THREE, "--time", "1"], "quit\n"),
    ] {
        let out = morris(&[args, &["--tb", tb]].concat(), input);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        // One line, naming the file and the block read.
        assert!(err.starts_with(&want), "{args:?}: {err}");
        assert!(
            err.trim_end().ends_with(')') && err.lines().count() == 1,
            "{args:?}: {err}"
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!stdout.contains("value:"), "{args:?}: an answer: {stdout}");
    }
}
