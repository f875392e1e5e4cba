//! Limits of the command line: values too large to honour are refused by name, and
//! output that cannot be written (a full disk, here `/dev/full`) is a failure, never a
//! panic and never a success.

mod common;

use common::{morris, ok, refused, BAD_INPUT, FAILURE};

/// A finished game: Black to move has two pieces.
const OVER: &str = "WWW/.../.../....../.../.../..B b 0 0";

#[test]
fn time_limits_beyond_a_year_are_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let tb = dir.path().to_str().expect("a UTF-8 temporary path");
    for cmd in ["solve", "analyze"] {
        for time in ["1e19", "1e300", "31536001"] {
            let error = refused(&[cmd, "--time", time, "--tb", tb]);
            assert!(error.contains("--time"), "{cmd} --time {time}: {error}");
            assert!(error.contains("up to 31536000"), "{cmd}: {error}");
        }
    }
    // A year itself is accepted (the depth ends the search at once).
    let out = ok(&[
        "solve", "--time", "31536000", "--depth", "1", "--moves", "d6", "--tb", tb,
    ]);
    assert!(out.contains("value:"), "{out}");
}

#[test]
fn perft_depths_beyond_sixteen_are_refused() {
    for depth in ["17", "1000", "4294967295"] {
        let error = refused(&["perft", depth]);
        assert!(
            error.contains(&format!("'{depth}'")) && error.contains("1 to 16"),
            "{error}"
        );
    }
    // Sixteen is accepted: the count of a finished game is at once zero.
    assert_eq!(ok(&["perft", "16", "--fen", OVER]), "perft 16: 0\n");
}

#[cfg(target_os = "linux")]
fn full() -> std::fs::File {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full opens")
}

/// Help and version text are the output of those commands: a full disk fails them,
/// with the one error line on standard error.
#[cfg(target_os = "linux")]
#[test]
fn help_and_version_into_a_full_disk_fail() {
    for args in [
        &["help"][..],
        &["--help"],
        &["--version"],
        &["show", "--help"],
        &["show"],
        &["perft", "2"],
    ] {
        let (_, error) = morris(args).stdout(full()).fails(FAILURE);
        assert_eq!(
            error, "error: cannot write to standard output: No space left on device (os error 28)",
            "{args:?}"
        );
    }
}

/// Standard error into a full disk: no panic (status 101), and never a success where
/// something went unsaid. Bad input keeps its status; a command whose report on
/// standard error is lost fails.
#[cfg(target_os = "linux")]
#[test]
fn a_full_standard_error_is_a_failure_not_a_panic() {
    let status = |args: &[&str]| {
        let out = morris(args).stderr(full()).output();
        (out.status.code(), common::text(&out.stdout))
    };
    assert_eq!(
        status(&["show", "--moves", "zz"]),
        (Some(BAD_INPUT), String::new())
    );
    assert_eq!(
        status(&["perft", "--bogus"]),
        (Some(BAD_INPUT), String::new())
    );
    // `moves` says on standard error that the game is over.
    assert_eq!(
        status(&["moves", "--fen", OVER]),
        (Some(FAILURE), String::new())
    );
    // `perft` writes its count, then its speed on standard error.
    assert_eq!(
        status(&["perft", "2"]),
        (Some(FAILURE), "perft 2: 552\n".to_string())
    );
}

/// A closed standard error: the rules of the status are the same as for any other.
#[cfg(unix)]
#[test]
fn a_closed_standard_error_is_no_panic() {
    let out = std::process::Command::new("sh")
        .args(["-c", "exec \"$0\" \"$@\" 2>&-", common::BIN])
        .args(["show", "--moves", "zz"])
        .output()
        .expect("sh runs");
    assert_eq!(out.status.code(), Some(BAD_INPUT), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
}
