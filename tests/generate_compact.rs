//! `morris generate --compact`: a game generated straight into compact files is the
//! same, byte for byte, as a raw run packed by `morris pack`, leaves no raw file
//! behind, and resumes from whatever an interrupted run left (compact files alone,
//! a raw file not yet packed, or one packed but not yet removed). Both are one-sided
//! by default: no `.dtm` file where a probe finds the distances from the successors'.

use morris_engine::Rules;
use morris_tablebase::SectorId;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_morris");

fn morris(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().expect("morris runs");
    assert!(
        out.status.success(),
        "morris {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every file of a directory (the lock file left out) with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .expect("a directory")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.file_name().is_some_and(|n| n != ".generate.lock"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).expect("read"))
        })
        .collect()
}

fn generate_compact(dir: &Path) {
    morris(&[
        "generate",
        "--max-pieces",
        "4",
        "--compact",
        "--tb",
        dir.to_str().unwrap(),
    ]);
}

#[test]
fn a_compact_run_equals_a_packed_raw_run_and_resumes() {
    let raw = tempfile::tempdir().unwrap();
    let packed = tempfile::tempdir().unwrap();
    let compact = tempfile::tempdir().unwrap();
    let (raw_dir, packed_dir, dir) = (
        raw.path().to_str().unwrap(),
        packed.path().to_str().unwrap(),
        compact.path(),
    );
    morris(&["generate", "--max-pieces", "4", "--tb", raw_dir]);
    morris(&["pack", "--tb", raw_dir, "--out", packed_dir]);
    generate_compact(dir);

    // What `pack` made of the raw run, and the raw run's class files of the sectors
    // a one-sided set keeps them for.
    let keeps = |name: &str| {
        let stem = &name["standard-".len()..name.len() - 4];
        let sector: SectorId = stem.parse().unwrap();
        !sector.distances_derived(Rules::STANDARD)
    };
    let mut expected = files(packed.path());
    for (name, bytes) in files(raw.path()) {
        if name.ends_with(".cls") && keeps(&name) {
            expected.insert(name, bytes);
        }
    }
    let got = files(dir);
    assert!(got.keys().all(|n| !n.ends_with(".tb")), "raw files left");
    // A .wdl file for each of 74 sectors, and a .dtm and a .cls file for those whose
    // distances and classes a one-sided set keeps.
    let n = got.keys().filter(|n| n.ends_with("wdl")).count();
    assert_eq!(n, 74);
    let dtm: Vec<&String> = got.keys().filter(|n| n.ends_with(".dtm")).collect();
    let cls: Vec<&String> = got.keys().filter(|n| n.ends_with(".cls")).collect();
    for name in got.keys().filter(|n| n.ends_with(".wdl")) {
        let keeps = keeps(name);
        assert_eq!(
            dtm.contains(&&name.replace(".wdl", ".dtm")),
            keeps,
            "{name}"
        );
        assert_eq!(
            cls.contains(&&name.replace(".wdl", ".cls")),
            keeps,
            "{name}"
        );
    }
    assert!(dtm.len() > 30 && dtm.len() < 50, "{}", dtm.len());
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &expected {
        assert!(
            got[name] == *bytes,
            "{name} differs from the packed raw run's"
        );
    }

    // Cut short: 4-4 and the placement sectors missing, so that they are solved
    // again, 4-4 from 3-4's compact values alone; 4-3 a raw file waiting to be
    // packed; 3-3 packed but its raw file not yet removed.
    for name in ["standard-4-4.wdl", "standard-4-4.dtm", "standard-4-4.cls"] {
        std::fs::remove_file(dir.join(name)).unwrap();
    }
    for name in got.keys().filter(|n| n.contains('+')) {
        std::fs::remove_file(dir.join(name)).unwrap();
    }
    for name in ["standard-4-3.wdl", "standard-4-3.dtm"] {
        std::fs::remove_file(dir.join(name)).unwrap();
    }
    for name in ["standard-4-3.tb", "standard-3-3.tb"] {
        std::fs::copy(raw.path().join(name), dir.join(name)).unwrap();
    }
    let out = Command::new(BIN)
        .args(["generate", "--max-pieces", "4", "--compact", "--tb"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("already finished"), "{stdout}");
    assert!(files(dir) == got, "the resumed run differs from the first");

    // Value files packed for speed, as a sparse run packs those it thins at its
    // end, are packed again where the finished set keeps their values: the raw
    // files beside `.wdl` files of level 3 give the same set.
    let fast = tempfile::tempdir().unwrap();
    for (name, bytes) in files(raw.path()) {
        if name.ends_with(".tb") {
            std::fs::write(fast.path().join(name), bytes).unwrap();
        }
    }
    let fast_dir = fast.path().to_str().unwrap();
    morris(&[
        "pack", "--tb", raw_dir, "--out", fast_dir, "--kind", "wdl", "--level", "3",
    ]);
    let quick = files(fast.path());
    assert!(
        quick
            .iter()
            .any(|(n, b)| n.ends_with(".wdl") && got.get(n).is_some_and(|g| g != b)),
        "level 3 writes other bytes than the default level"
    );
    generate_compact(fast.path());
    assert!(
        files(fast.path()) == got,
        "value files of another level were kept"
    );
}

#[test]
fn a_sector_and_what_it_needs_go_compact_too() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    morris(&[
        "generate",
        "--sector",
        "3-4",
        "--compact",
        "--no-classes",
        "--tb",
        path,
    ]);
    let names: Vec<String> = files(dir.path()).into_keys().collect();
    assert_eq!(
        names,
        [
            "standard-3-3.dtm",
            "standard-3-3.wdl",
            "standard-3-4.wdl",
            "standard-4-3.dtm",
            "standard-4-3.wdl"
        ]
    );
    // The compact set answers like any other.
    let out = morris(&["verify", "--tb", path]);
    assert!(out.contains("ok"), "{out}");
}

/// `--level` packs the files a compact run keeps as `pack --level` packs them, and
/// is refused without `--compact`.
#[test]
fn a_compact_run_packs_at_the_level_asked_for() {
    let raw = tempfile::tempdir().unwrap();
    let packed = tempfile::tempdir().unwrap();
    let default = tempfile::tempdir().unwrap();
    let twelve = tempfile::tempdir().unwrap();
    let dir = |d: &tempfile::TempDir| d.path().to_str().unwrap().to_owned();
    let generate = |d: &str, level: Option<&str>| {
        let mut args = vec![
            "generate",
            "--sector",
            "4-4",
            "--compact",
            "--no-classes",
            "--tb",
            d,
        ];
        args.extend(level.map(|l| ["--level", l]).into_iter().flatten());
        morris(&args);
    };
    morris(&[
        "generate",
        "--sector",
        "4-4",
        "--no-classes",
        "--tb",
        &dir(&raw),
    ]);
    morris(&[
        "pack",
        "--tb",
        &dir(&raw),
        "--out",
        &dir(&packed),
        "--variant",
        "standard",
        "--level",
        "12",
    ]);
    generate(&dir(&default), None);
    generate(&dir(&twelve), Some("12"));
    let (got, expected) = (files(twelve.path()), files(packed.path()));
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    assert!(got == expected, "level 12 differs from `pack --level 12`");
    assert!(
        files(default.path()) != got,
        "the default level wrote the bytes of level 12"
    );

    let out = Command::new(BIN)
        .args(["generate", "--sector", "3-3", "--level", "12", "--tb"])
        .arg(raw.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--compact"), "{err}");
}
