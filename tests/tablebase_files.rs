//! Resilience of tablebase files, through the `morris` binary: a generation killed
//! midway resumes to the same bytes; every kind of damaged file is refused by
//! `stats`, `probe` and `verify` with one line that names the file and the problem,
//! and replaced by `generate`; leftover temporary files are ignored; and a write that
//! fails (disk full, file size limit) leaves no finished-looking file behind.

mod common;

use morris_engine::Board;

use common::{command, text, BIN, FAILURE};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use xxhash_rust::xxh3::xxh3_64;

/// White a7 g7 d6 to move against Black b4 a1 d1 g1: a position of sector 3-4.
const FEN_3_4: &str = "W.W/.W./.../.B..../.../.../BBB w 0 0";

fn tb_args<'a>(dir: &'a Path, args: &[&'a str]) -> Vec<&'a str> {
    let mut v = args.to_vec();
    v.extend(["--tb", dir.to_str().expect("a UTF-8 temporary path")]);
    v
}

/// Run a command on the tablebases in `dir` that must succeed; its standard output.
fn ok(dir: &Path, args: &[&str]) -> String {
    common::ok(&tb_args(dir, args))
}

/// Run a command on the tablebases in `dir` that must fail cleanly (status 1, one
/// error line): its standard output and the error line.
fn fails(dir: &Path, args: &[&str]) -> (String, String) {
    common::fails(&tb_args(dir, args))
}

/// Generate the given sectors with both variants' arguments appended.
fn generate(dir: &Path, args: &[&str]) -> String {
    // The value files alone: the class files have tests of their own (tests/classes.rs).
    let mut a = vec!["generate", "--threads", "2", "--no-classes"];
    a.extend(args);
    ok(dir, &a)
}

/// The lock file `generate` keeps in its directory (one writer per directory).
const LOCK: &str = ".generate.lock";

/// Every file in `dir` by name, but the lock file.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .expect("a readable directory")
        .map(|e| e.expect("a directory entry"))
        .filter(|e| e.file_name() != LOCK)
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("a readable file"),
            )
        })
        .collect()
}

fn names(dir: &Path) -> Vec<String> {
    contents(dir).into_keys().collect()
}

fn copy_dir(from: &Path, to: &Path) {
    for (name, bytes) in contents(from) {
        std::fs::write(to.join(name), bytes).expect("copy a file");
    }
}

/// The standard 3-3, 3-4, 4-3 files and the No-flying ones, generated once a test.
fn pristine() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    generate(dir.path(), &["--variant", "both", "--sector", "3-4"]);
    assert_eq!(
        names(dir.path()),
        [
            "no-flying-3-3.tb",
            "no-flying-3-4.tb",
            "no-flying-4-3.tb",
            "standard-3-3.tb",
            "standard-3-4.tb",
            "standard-4-3.tb"
        ]
    );
    dir
}

#[test]
fn killed_generation_resumes_to_identical_files() {
    let reference = tempfile::tempdir().expect("a temporary directory");
    generate(reference.path(), &["--max-pieces", "5"]);
    let expected = contents(reference.path());
    // 3-3 to 5-5, and the 125 placement sectors of the game of five pieces a side.
    assert_eq!(expected.len(), 134, "{:?}", expected.keys());

    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut child = command(tb_args(
        dir.path(),
        &["generate", "--threads", "2", "--max-pieces", "5"],
    ))
    .stdout(Stdio::piped())
    .stderr(Stdio::null())
    .spawn()
    .expect("the morris binary starts");
    // Kill it once it works on the 4-5 pair, after six sectors are written.
    let stdout = child.stdout.take().expect("a piped stdout");
    let mut seen = Vec::new();
    // The reader stays open until the kill: a closed pipe would end the run by itself.
    let mut lines = BufReader::new(stdout).lines();
    for line in lines.by_ref() {
        let line = line.expect("a line of output");
        let started = line.contains("4-5 and 5-4: solving");
        seen.push(line);
        if started {
            break;
        }
    }
    // Meanwhile a second writer is turned away, naming the directory.
    let (_, error) = fails(dir.path(), &["generate", "--max-pieces", "5"]);
    assert_eq!(
        error,
        format!(
            "error: another `morris generate` is writing to {}; wait for it or use another --tb directory",
            dir.path().display()
        )
    );
    child.kill().expect("kill the generation");
    let status = child.wait().expect("wait for the killed generation");
    drop(lines);
    assert!(
        !status.success(),
        "the run ended before it was killed: {seen:#?}"
    );
    assert!(
        seen.iter().any(|l| l.contains("4-5 and 5-4: solving")),
        "{seen:#?}"
    );
    let before = names(dir.path());
    let finished: Vec<&String> = before.iter().filter(|n| n.ends_with(".tb")).collect();
    assert!(finished.len() >= 6, "{before:?}");
    assert!(!before.contains(&"standard-5-5.tb".to_string()));
    // What the killed run left is consistent: every finished file checks out, and its
    // lock died with it.
    ok(dir.path(), &["verify"]);

    let resumed = generate(dir.path(), &["--max-pieces", "5"]);
    for name in &finished {
        let sector = name.trim_start_matches("standard-").trim_end_matches(".tb");
        assert!(
            resumed
                .lines()
                .any(|l| l.starts_with(&format!("standard {sector}:"))
                    && l.contains("already finished")),
            "{name} should be reported as skipped:\n{resumed}"
        );
    }
    assert!(
        resumed.contains(&format!("{} already finished", finished.len())),
        "{resumed}"
    );
    assert!(resumed.contains("5-5: solving"), "{resumed}");
    assert_eq!(
        contents(dir.path()),
        expected,
        "the resumed run wrote different bytes"
    );
}

/// A way to damage `standard-3-4.tb`, and the problem the error must name.
struct Damage {
    what: &'static str,
    apply: fn(&Path, &Path),
    problem: &'static str,
    /// Whether opening the file (stats, probe) must already find it; otherwise only
    /// the payload checksum does, which `verify` checks and opening does not.
    at_open: bool,
}

/// Entries of `standard-3-4.tb`.
const ENTRIES_3_4: usize = 760_398;

/// The offset of the entry that probing `FEN_3_4` reads.
fn probed_entry() -> usize {
    let pos = morris_engine::notation::parse_position(FEN_3_4, morris_engine::Variant::Standard)
        .expect("a position");
    let index = morris_tablebase::SectorIndex::get(Board::Nine, 3, 4).index(pos.us(), pos.them());
    128 + index as usize
}

/// Make every checksum of a file's bytes match its content again: the block
/// checksums, their checksum in the header, the header's own.
fn reseal(bytes: &mut [u8]) {
    let entries = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes")) as usize;
    let (payload, sums) = bytes[128..].split_at_mut(entries);
    for (block, sum) in payload.chunks(4096).zip(sums.chunks_mut(8)) {
        sum.copy_from_slice(&xxh3_64(block).to_le_bytes());
    }
    let all = xxh3_64(&bytes[128 + entries..]);
    bytes[24..32].copy_from_slice(&all.to_le_bytes());
    let header = xxh3_64(&bytes[0..64]);
    bytes[64..72].copy_from_slice(&header.to_le_bytes());
}

fn patch(file: &Path, offset: usize, f: impl FnOnce(&mut u8)) {
    let mut bytes = std::fs::read(file).expect("read the file");
    f(&mut bytes[offset]);
    std::fs::write(file, bytes).expect("write the file");
}

fn resize(file: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(file)
        .and_then(|f| f.set_len(len))
        .expect("resize the file");
}

const DAMAGES: &[Damage] = &[
    Damage {
        what: "truncated within the payload",
        apply: |f, _| resize(f, 1000),
        problem: "is 1000 bytes, expected 762014 (truncated or padded)",
        at_open: true,
    },
    Damage {
        what: "truncated within the header",
        apply: |f, _| resize(f, 100),
        problem: "truncated: 100 bytes, shorter than the 128-byte header",
        at_open: true,
    },
    Damage {
        what: "padded",
        apply: |f, _| resize(f, 762_014 + 2),
        problem: "is 762016 bytes, expected 762014 (truncated or padded)",
        at_open: true,
    },
    Damage {
        what: "empty",
        apply: |f, _| resize(f, 0),
        problem: "truncated: 0 bytes, shorter than the 128-byte header",
        at_open: true,
    },
    Damage {
        what: "the payload byte probed flipped",
        apply: |f, _| patch(f, probed_entry(), |b| *b ^= 0x40),
        problem: "corrupt payload (checksum mismatch in entries 131072 to 135167)",
        at_open: false,
    },
    Damage {
        what: "a block checksum flipped",
        apply: |f, _| patch(f, 128 + ENTRIES_3_4 + 8, |b| *b ^= 0x02),
        problem: "corrupt block checksums (checksum mismatch)",
        at_open: false,
    },
    Damage {
        what: "one header byte flipped (entry count)",
        apply: |f, _| patch(f, 20, |b| *b ^= 0x01),
        problem: "corrupt header (checksum mismatch)",
        at_open: true,
    },
    Damage {
        what: "header checksum flipped",
        apply: |f, _| patch(f, 64, |b| *b ^= 0x80),
        problem: "corrupt header (checksum mismatch)",
        at_open: true,
    },
    Damage {
        what: "bad magic",
        apply: |f, _| patch(f, 0, |b| *b = b'X'),
        problem: "not a morris tablebase file (bad magic bytes)",
        at_open: true,
    },
    Damage {
        what: "the other variant's file under this name",
        apply: |f, dir| {
            std::fs::copy(dir.join("no-flying-3-4.tb"), f).expect("copy");
        },
        problem: "holds the tables of no-flying, but the name says standard",
        at_open: true,
    },
    Damage {
        what: "another sector's file under this name",
        apply: |f, dir| {
            std::fs::copy(dir.join("standard-4-3.tb"), f).expect("copy");
        },
        problem: "holds sector 4-3, but the name says 3-4",
        at_open: true,
    },
    Damage {
        what: "an unknown format version, header checksum recomputed",
        apply: |f, _| {
            let mut bytes = std::fs::read(f).expect("read the file");
            bytes[8..12].copy_from_slice(&4u32.to_le_bytes());
            let sum = xxh3_64(&bytes[0..64]);
            bytes[64..72].copy_from_slice(&sum.to_le_bytes());
            std::fs::write(f, bytes).expect("write the file");
        },
        problem: "format version 4, this program reads version 3",
        at_open: true,
    },
];

#[test]
fn damaged_files_are_refused_by_name_and_regenerated() {
    let good = pristine();
    let original = std::fs::read(good.path().join("standard-3-4.tb")).expect("the 3-4 file");
    for damage in DAMAGES {
        let dir = tempfile::tempdir().expect("a temporary directory");
        copy_dir(good.path(), dir.path());
        let file = dir.path().join("standard-3-4.tb");
        (damage.apply)(&file, dir.path());
        let expected = format!("{}: {}", file.display(), damage.problem);
        let context = format!("{}: expected '{expected}'", damage.what);

        let (stdout, error) = fails(dir.path(), &["verify"]);
        assert!(
            stdout
                .lines()
                .any(|l| l == format!("standard 3-4: BAD: {expected}")),
            "verify, {context}:\n{stdout}"
        );
        assert_eq!(
            error, "error: 1 bad or uncheckable files, 0 mismatched values",
            "verify, {context}"
        );
        if damage.at_open {
            for args in [
                &["stats"][..],
                &["stats", "--json"],
                &["probe", "--fen", FEN_3_4],
            ] {
                let (_, error) = fails(dir.path(), args);
                assert_eq!(error, format!("error: {expected}"), "{args:?}, {context}");
            }
        } else {
            // Opening checks names, sizes and headers, not the payload checksum (see
            // DESIGN.md, "opened in layers"): stats still answers from the headers,
            // but probe checks the one file it reads and refuses it by name.
            ok(dir.path(), &["stats"]);
            let (_, error) = fails(dir.path(), &["probe", "--fen", FEN_3_4]);
            assert_eq!(error, format!("error: {expected}"), "probe, {context}");
        }

        let log = generate(dir.path(), &["--sector", "3-4"]);
        assert!(
            log.lines()
                .any(|l| l == format!("{expected}; regenerating")),
            "generate, {context}:\n{log}"
        );
        assert!(log.contains("3-4 and 4-3: solving"), "{context}:\n{log}");
        ok(dir.path(), &["verify"]);
        assert!(
            std::fs::read(&file).expect("the regenerated file") == original,
            "{context}: the regenerated file differs from the original"
        );
        assert_eq!(names(dir.path()), names(good.path()), "{context}");
    }
}

#[test]
fn leftover_temporary_files_are_ignored_and_overwritten() {
    let good = pristine();
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy_dir(good.path(), dir.path());
    // A garbage temporary file and a half-written copy, as a killed write leaves them.
    std::fs::write(dir.path().join("standard-3-4.tb.tmp"), b"garbage").expect("write");
    let half = std::fs::read(dir.path().join("standard-4-3.tb")).expect("read");
    std::fs::write(
        dir.path().join("standard-4-3.tb.tmp"),
        &half[..half.len() / 2],
    )
    .expect("write");

    let verified = ok(dir.path(), &["verify"]);
    assert!(verified.contains("all 6 files ok"), "{verified}");
    assert!(!verified.contains(".tmp"), "{verified}");
    ok(dir.path(), &["stats"]);
    let probed = ok(dir.path(), &["probe", "--fen", FEN_3_4]);
    assert!(probed.contains("standard sector 3-4"), "{probed}");

    // A finished pair is skipped and its temporary files are left alone.
    let log = generate(dir.path(), &["--sector", "3-4"]);
    assert!(
        log.contains("0 sectors solved, 3 already finished"),
        "{log}"
    );

    // With the finished file gone, the pair is solved again over the temporary files.
    std::fs::remove_file(dir.path().join("standard-3-4.tb")).expect("remove");
    let log = generate(dir.path(), &["--sector", "3-4"]);
    assert!(
        log.contains("2 sectors solved, 1 already finished"),
        "{log}"
    );
    assert_eq!(contents(dir.path()), contents(good.path()));
}

/// After a failed write of sector 3-4: the error names the file and the cause, no
/// file of that name is left, nothing temporary either, and what is there verifies.
fn check_failed_write(dir: &Path, error: &str, cause: &str) {
    let file = dir.join("standard-3-4.tb");
    assert_eq!(error, format!("error: {}: {cause}", file.display()));
    let left = names(dir);
    assert!(!left.contains(&"standard-3-4.tb".to_string()), "{left:?}");
    assert!(left.iter().all(|n| !n.ends_with(".tmp")), "{left:?}");
    assert!(left.contains(&"standard-3-3.tb".to_string()), "{left:?}");
    ok(dir, &["verify"]);
}

/// A stale temporary file that is a link (here to a file outside the directory) is
/// replaced, never written through: the link's target keeps its content, and the
/// finished file is a regular file. (Full disks are simulated by the file-size and
/// tmpfs tests below.)
#[cfg(unix)]
#[test]
fn a_link_at_the_temporary_name_is_not_written_through() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let elsewhere = tempfile::tempdir().expect("a temporary directory");
    let victim = elsewhere.path().join("victim");
    std::fs::write(&victim, b"keep").expect("write the victim");
    let tmp = dir.path().join("standard-3-4.tb.tmp");
    std::os::unix::fs::symlink(&victim, &tmp).expect("plant a link");
    generate(dir.path(), &["--sector", "3-4"]);
    assert_eq!(std::fs::read(&victim).expect("read the victim"), b"keep");
    let finished =
        std::fs::symlink_metadata(dir.path().join("standard-3-4.tb")).expect("the finished file");
    assert!(finished.file_type().is_file(), "{finished:?}");
    assert!(!tmp.exists(), "the temporary name is gone");
    ok(dir.path(), &["verify"]);
}

/// A file size limit (RLIMIT_FSIZE) with SIGXFSZ ignored, so that the write fails
/// with EFBIG instead of killing the process. The limit (500 KB or 1000 KB, by the
/// shell's unit) lets the 3-3 file (339,380 bytes) through and stops the 3-4 file.
#[cfg(unix)]
#[test]
fn a_file_size_limit_leaves_no_finished_looking_file() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = Command::new("sh")
        .args(["-c", "trap '' XFSZ; ulimit -f 1000 && exec \"$0\" \"$@\""])
        .arg(BIN)
        .args(tb_args(dir.path(), &["generate", "--sector", "3-4"]))
        .output()
        .expect("sh runs");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(FAILURE), "{stdout}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    check_failed_write(dir.path(), lines[0], "File too large (os error 27)");
}

/// A real full file system: a 512 KiB tmpfs (room for sector 3-3, not for 3-4) in a
/// private mount namespace, where everything is checked before the namespace vanishes.
/// Mounting needs root (or CAP_SYS_ADMIN) and `unshare`, which most machines do not
/// grant a test; where the test is run, a refused mount is a failure, never a silent pass.
#[cfg(target_os = "linux")]
#[test]
#[ignore = "needs root and a private mount namespace (unshare --mount); run as root: \
            cargo test --release --test tablebase_files -- --ignored a_full_tmpfs"]
fn a_full_tmpfs_leaves_no_finished_looking_file() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let script = r#"
        mount -t tmpfs -o size=512k morris-full "$1" || exit 77
        "$2" generate --sector 3-4 --threads 2 --tb "$1" >/dev/null 2>"$1.err"
        echo "generate=$?"
        echo "error=$(cat "$1.err")"
        ls -A "$1" | sed 's/^/file=/'
        "$2" verify --tb "$1" >/dev/null 2>&1
        echo "verify=$?"
    "#;
    let mount_point = dir.path().join("full");
    std::fs::create_dir(&mount_point).expect("a mount point");
    let out = Command::new("unshare")
        .args([
            "--mount",
            "--propagation",
            "private",
            "sh",
            "-c",
            script,
            "sh",
        ])
        .arg(&mount_point)
        .arg(BIN)
        .output()
        .unwrap_or_else(|e| panic!("cannot run unshare, which this test needs: {e}"));
    assert!(
        out.status.success(),
        "cannot mount a tmpfs in a private mount namespace (this test needs root): \
         {:?}: {}",
        out.status,
        text(&out.stderr).trim()
    );
    let report = text(&out.stdout);
    let field = |key: &str| -> Vec<String> {
        report
            .lines()
            .filter_map(|l| l.strip_prefix(&format!("{key}=")))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(field("generate"), ["1"], "{report}");
    let file: PathBuf = mount_point.join("standard-3-4.tb");
    assert_eq!(
        field("error"),
        [format!(
            "error: {}: No space left on device (os error 28)",
            file.display()
        )],
        "{report}"
    );
    let files: Vec<String> = field("file").into_iter().filter(|f| f != LOCK).collect();
    assert_eq!(files, ["standard-3-3.tb"], "{report}");
    assert_eq!(field("verify"), ["0"], "{report}");
}

#[test]
fn an_unusable_directory_is_a_clean_error() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let not_a_dir = dir.path().join("plain-file");
    std::fs::write(&not_a_dir, b"not a directory").expect("write");
    let (_, error) = fails(&not_a_dir, &["generate", "--sector", "3-3"]);
    assert!(
        error.starts_with(&format!(
            "error: cannot create tablebase directory {}:",
            not_a_dir.display()
        )),
        "{error}"
    );
}

/// The start of the game of `n` pieces a side.
fn start(n: u8) -> String {
    format!(".../.../.../....../.../.../... w {n} {n}")
}

/// `generate --max-pieces N` builds every placement sector of the game, and `probe`
/// answers its positions with the value stored in the tables.
#[test]
fn a_small_game_is_generated_whole_and_probed() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    generate(dir.path(), &["--max-pieces", "3"]);
    let all = names(dir.path());
    // The 3-3 movement sector and 34 placement sectors, down to two pieces a side.
    assert_eq!(all.len(), 35, "{all:?}");
    for name in [
        "standard-3-3.tb",
        "standard-0-0+3-3.tb",
        "standard-2-1+1-1.tb",
    ] {
        assert!(all.iter().any(|n| n == name), "{name}: {all:?}");
    }
    let tb =
        morris_tablebase::Tablebase::open(dir.path(), morris_tablebase::OpenOptions::default())
            .expect("good tables");
    for (fen, moves, sector) in [
        (start(3), "", "0-0+3-3"),
        (start(3), "d6 d2 f4", "1-2+2-1"),
        (start(3), "a7 d7 g7", "1-2+2-1"),
    ] {
        let mut args = vec!["probe", "--fen", &fen];
        if !moves.is_empty() {
            args.extend(["--moves", moves]);
        }
        let out = ok(dir.path(), &args);
        let first = morris_engine::notation::parse_position(&fen, morris_engine::Variant::Standard)
            .expect("a position");
        let pos = morris_engine::notation::parse_moves(&first, moves)
            .expect("legal moves")
            .last()
            .map_or(first, |&(_, p)| p);
        let value = tb.value(&pos).expect("good tables").expect("covered");
        assert!(
            out.contains(&format!("(standard sector {sector})")),
            "{out}"
        );
        let wdl = match value.wdl() {
            morris_tablebase::Wdl::Win => "win",
            morris_tablebase::Wdl::Loss => "loss",
            morris_tablebase::Wdl::Draw => "draw",
        };
        assert!(out.starts_with(wdl), "{value}: {out}");
        if let Some(d) = value.dtm() {
            assert!(out.contains(&format!("DTM {d} plies")), "{value}: {out}");
        }
    }
    // `stats` lists the placement sectors after the movement ones, and sums them apart.
    let stats = ok(dir.path(), &["stats"]);
    let sums: Vec<&str> = stats.lines().filter(|l| l.contains("0-0+3-3")).collect();
    assert_eq!(sums.len(), 1, "{stats}");
    let placement = stats
        .lines()
        .find(|l| l.starts_with("standard   placement"))
        .unwrap_or_else(|| panic!("{stats}"));
    assert!(placement.contains(" 40962 "), "{stats}");
    let json: serde_json::Value =
        serde_json::from_str(&ok(dir.path(), &["stats", "--json"])).expect("JSON");
    let rows = json.as_array().expect("an array");
    assert_eq!(rows.len(), 35);
    assert_eq!(
        (&rows[0]["us"], &rows[0]["them"], rows[0].get("us_hand")),
        (&serde_json::json!(3), &serde_json::json!(3), None)
    );
    assert!(rows[1..].iter().all(|r| r["us_hand"].as_u64() >= Some(1)));
    // The start of the three-piece game: White wins in 23 plies.
    assert_eq!(
        ok(dir.path(), &["probe", "--fen", &start(3)]),
        "win for the side to move, DTM 23 plies (standard sector 0-0+3-3)\n"
    );
    // A game of four pieces a side is not in these tables: the message says how to
    // build it.
    assert!(ok(dir.path(), &["probe", "--fen", &start(4)])
        .contains("run `morris generate --variant standard --max-pieces 4`"));
}

/// Placement sectors resume per sector: a run that finds some finished, some missing,
/// one damaged and a leftover temporary file writes the same bytes as an uncut run.
#[test]
fn placement_generation_resumes_to_identical_files() {
    let reference = tempfile::tempdir().expect("a temporary directory");
    generate(
        reference.path(),
        &["--max-pieces", "4", "--variant", "no-flying"],
    );
    let expected = contents(reference.path());
    assert_eq!(expected.len(), 74, "{:?}", expected.keys());

    let dir = tempfile::tempdir().expect("a temporary directory");
    copy_dir(reference.path(), dir.path());
    let placement: Vec<String> = names(dir.path())
        .into_iter()
        .filter(|n| n.contains('+'))
        .collect();
    assert_eq!(placement.len(), 70);
    // Half of them missing (as if the run was cut), one of the others damaged.
    for name in &placement[35..] {
        std::fs::remove_file(dir.path().join(name)).expect("removed");
    }
    let largest = placement[..35]
        .iter()
        .max_by_key(|n| expected[*n].len())
        .expect("a file");
    let damaged = dir.path().join(largest);
    patch(&damaged, (128 + expected[largest].len()) / 2, |b| {
        *b ^= 0x01
    });
    std::fs::write(
        dir.path().join(format!("{}.tmp", placement[40])),
        b"partial",
    )
    .expect("written");
    let resumed = generate(dir.path(), &["--max-pieces", "4", "--variant", "no-flying"]);
    assert!(
        resumed.lines().any(|l| l.starts_with(&format!(
            "{}: corrupt payload (checksum mismatch in entries ",
            damaged.display()
        )) && l.ends_with("); regenerating")),
        "{resumed}"
    );
    // 4 movement and 34 placement sectors kept; the damaged one and the 35 missing
    // solved.
    assert!(
        resumed.contains("36 sectors solved, 38 already finished"),
        "{resumed}"
    );
    // The leftover temporary file was replaced and renamed like any other.
    assert_eq!(
        contents(dir.path()),
        expected,
        "the resumed run wrote different bytes"
    );
}

/// `verify --full` recomputes every placement value from its successors, and finds a
/// value changed under valid checksums.
#[test]
fn verify_full_recomputes_placement_values() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    generate(dir.path(), &["--max-pieces", "3", "--variant", "no-flying"]);
    let out = ok(dir.path(), &["verify", "--full"]);
    assert!(
        out.contains("no-flying 2-2+1-1: all 4200 values agree with their successors"),
        "{out}"
    );
    assert!(
        out.ends_with("all 35 files ok, every value verified\n"),
        "{out}"
    );
    // Entry 5 of 2-2+1-1 changed, and every checksum made to match again.
    let file = dir.path().join("no-flying-2-2+1-1.tb");
    let mut bytes = std::fs::read(&file).expect("read the file");
    let entry = &mut bytes[128 + 5];
    *entry = if *entry == 0 { 2 } else { 0 };
    reseal(&mut bytes);
    std::fs::write(&file, bytes).expect("write the file");
    let (out, error) = fails(dir.path(), &["verify", "--full"]);
    assert!(
        out.contains("no-flying 2-2+1-1: 1 MISMATCHES, e.g. index 5:"),
        "{out}"
    );
    assert_eq!(
        error,
        "error: 0 bad or uncheckable files, 1 mismatched values"
    );
}

/// `generate --sector` takes a placement sector and builds exactly what it needs
/// (the sectors its placements reach, placing phase and movement, nothing else), with
/// the bytes a whole-game run writes; `verify --full --sector` checks one placement
/// sector reading only its own file and its successors'.
#[test]
fn a_placement_sector_is_generated_and_verified_alone() {
    let whole = tempfile::tempdir().expect("a temporary directory");
    generate(
        whole.path(),
        &["--max-pieces", "4", "--variant", "standard"],
    );
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = generate(dir.path(), &["--sector", "3-2+1-1"]);
    // 3-2+1-1 -> 2-4+1-0 (or 1-4+1-0 by a capture) -> movement 4-3 (4-2 is over):
    // 4-3 is solved with 3-4, whose captures reach 3-3.
    let mut made = names(dir.path());
    made.retain(|n| n != LOCK);
    assert_eq!(
        made,
        [
            "standard-1-4+1-0.tb",
            "standard-2-4+1-0.tb",
            "standard-3-2+1-1.tb",
            "standard-3-3.tb",
            "standard-3-4.tb",
            "standard-4-3.tb",
        ],
        "{out}"
    );
    let expected = contents(whole.path());
    for (name, bytes) in contents(dir.path()) {
        if name != LOCK {
            assert_eq!(
                bytes, expected[&name],
                "{name} differs from the whole game's"
            );
        }
    }
    let part = ok(
        dir.path(),
        &[
            "verify",
            "--full",
            "--sector",
            "3-2+1-1",
            "--variant",
            "standard",
        ],
    );
    assert!(
        part.contains("standard 3-2+1-1: all 27098 values agree with their successors"),
        "{part}"
    );
    assert!(!part.contains("3-3: checksum ok"), "{part}");
    assert!(
        part.ends_with("all 3 files ok, every value of 1 sector verified\n"),
        "{part}"
    );
}

/// The bytes an earlier morris wrote for a version 3 file: version 1 (movement, one
/// `u16` a value) or 2 (placement, one byte a value), one checksum over the payload.
fn old_format(current: &[u8]) -> Vec<u8> {
    let entries = u64::from_le_bytes(current[16..24].try_into().expect("8 bytes")) as usize;
    let codes = &current[128..128 + entries];
    let movement = current[60] == 0;
    let payload: Vec<u8> = if movement {
        codes
            .iter()
            .flat_map(|&c| morris_tablebase::file::decode_byte(c).0.to_le_bytes())
            .collect()
    } else {
        codes.to_vec()
    };
    let mut header = current[..128].to_vec();
    let version: u32 = if movement { 1 } else { 2 };
    header[8..12].copy_from_slice(&version.to_le_bytes());
    header[15] = if movement { 1 } else { 2 };
    header[62] = 0;
    header[24..32].copy_from_slice(&xxh3_64(&payload).to_le_bytes());
    let sum = xxh3_64(&header[0..64]);
    header[64..72].copy_from_slice(&sum.to_le_bytes());
    [header, payload].concat()
}

/// Files of the older formats are refused with the way out named, are not
/// regenerated, and `convert` turns them into exactly the files generation writes.
#[test]
fn old_files_are_refused_by_name_kept_and_converted_exactly() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    generate(dir.path(), &["--max-pieces", "3", "--variant", "no-flying"]);
    let expected = contents(dir.path());
    let movement = "no-flying-3-3.tb";
    let placement = "no-flying-2-2+1-1.tb";
    for name in [movement, placement] {
        std::fs::write(dir.path().join(name), old_format(&expected[name])).expect("written");
    }
    let file = dir.path().join(movement);
    let (_, error) = fails(
        dir.path(),
        &[
            "probe",
            "--variant",
            "no-flying",
            "--fen",
            "WWW/.../.../BBB.../.../.../... w 0 0",
        ],
    );
    assert_eq!(
        error,
        format!("error: {}: format version 1, written by an older morris: `morris convert` rewrites it in version 3 without solving it again", file.display())
    );
    let (_, error) = fails(
        dir.path(),
        &["generate", "--max-pieces", "3", "--variant", "no-flying"],
    );
    assert!(error.contains("the file is left as it is"), "{error}");
    let out = ok(dir.path(), &["convert"]);
    assert!(
        out.contains(&format!("{movement}: converted from version 1")),
        "{out}"
    );
    assert!(
        out.contains(&format!("{placement}: converted from version 2")),
        "{out}"
    );
    assert!(out.contains("2 converted"), "{out}");
    assert_eq!(contents(dir.path()), expected, "converted files differ");
    let again = ok(dir.path(), &["convert"]);
    assert!(again.contains("0 converted"), "{again}");
    // A damaged old file is reported and kept; the others are converted.
    let mut old = old_format(&expected[placement]);
    *old.last_mut().expect("bytes") ^= 1;
    std::fs::write(dir.path().join(placement), &old).expect("written");
    std::fs::write(dir.path().join(movement), old_format(&expected[movement])).expect("written");
    let (out, error) = fails(dir.path(), &["convert"]);
    assert!(
        out.contains(&format!("{placement}: NOT CONVERTED: ")),
        "{out}"
    );
    assert!(
        out.contains(&format!("{movement}: converted from version 1")),
        "{out}"
    );
    assert!(error.contains("1 file(s) not converted"), "{error}");
    assert_eq!(
        std::fs::read(dir.path().join(placement)).expect("kept"),
        old
    );
}

/// A damaged payload of an old file is reported by `convert` as what it is, a checksum
/// mismatch, whatever the damage makes of the values (here a movement value no byte
/// can hold), and the file is kept.
#[test]
fn convert_reports_a_damaged_old_payload_as_a_checksum_mismatch() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    generate(dir.path(), &["--max-pieces", "3", "--variant", "no-flying"]);
    let expected = contents(dir.path());
    for (name, entries) in [
        ("no-flying-3-3.tb", 169_626),
        ("no-flying-2-2+1-1.tb", 4200),
    ] {
        let mut old = old_format(&expected[name]);
        // The high byte of the last movement value, the last placement value.
        *old.last_mut().expect("bytes") ^= 0x10;
        std::fs::write(dir.path().join(name), &old).expect("written");
        let (out, error) = fails(dir.path(), &["convert"]);
        assert!(
            out.contains(&format!(
                "{name}: NOT CONVERTED: {}: corrupt payload (checksum mismatch in entries 0 to {})",
                dir.path().join(name).display(),
                entries - 1
            )),
            "{out}"
        );
        assert!(error.contains("1 file(s) not converted"), "{error}");
        assert_eq!(std::fs::read(dir.path().join(name)).expect("kept"), old);
        std::fs::write(dir.path().join(name), &expected[name]).expect("restored");
    }
}

/// `stats --by-placements` sums the placement sectors by pieces in hand: every
/// placement position counted once, the empty board of the game of three a side (a
/// Standard win in 23, a No-flying draw) alone in its row.
#[test]
fn stats_by_placements_sum_every_placement_sector() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    generate(dir.path(), &["--max-pieces", "3", "--variant", "both"]);
    let json: serde_json::Value =
        serde_json::from_str(&ok(dir.path(), &["stats", "--json"])).expect("JSON");
    let out = ok(dir.path(), &["stats", "--by-placements"]);
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 12, "{out}");
    for variant in ["standard", "no-flying"] {
        let placement: u64 = json
            .as_array()
            .expect("an array")
            .iter()
            .filter(|r| r["variant"] == variant && r.get("us_hand").is_some())
            .map(|r| r["positions"].as_u64().expect("a count"))
            .sum();
        let summed: u64 = rows
            .iter()
            .filter(|r| r[0] == variant)
            .map(|r| r[4].parse::<u64>().expect("a count"))
            .sum();
        assert_eq!(summed, placement, "{variant}: {out}");
        let empty = rows
            .iter()
            .find(|r| r[0] == variant && r[1] == "6")
            .expect("the empty board's row");
        assert_eq!(&empty[2..4], ["0", "1"], "{out}");
        let expected = if variant == "standard" {
            ["1", "1", "0", "0", "23"]
        } else {
            ["1", "0", "1", "0", "0"]
        };
        assert_eq!(&empty[4..9], expected, "{variant}: {out}");
    }
}

/// `stats --by-placements --longest` shows, for each number of pieces in hand, a
/// position of the longest win and loss, and `probe` gives that position the value
/// and distance shown.
#[test]
fn stats_show_a_position_of_each_longest_placing_win() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    generate(dir.path(), &["--max-pieces", "3", "--variant", "both"]);
    let out = ok(dir.path(), &["stats", "--by-placements", "--longest"]);
    let table = out.split("\n\n").nth(1).expect("a second table");
    let mut checked = 0;
    for line in table.lines().skip(1) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (variant, value, plies) = (words[0], words[2], words[3]);
        let fen = words[5..].join(" ");
        let probe = ok(dir.path(), &["probe", "--variant", variant, "--fen", &fen]);
        let expected = format!("{value} for the side to move, DTM {plies} plies");
        assert!(probe.contains(&expected), "{line}: {probe}");
        checked += 1;
    }
    // Both games, 6 numbers of pieces in hand, a win and (where there is one) a loss.
    assert!(checked >= 16, "{out}");
}
