//! `morris verify` on compact files (`.wdl`, `.dtm`, made by `morris pack`): with
//! `--full` every compact file is recomputed from its successors like a raw one, alone
//! or mixed with raw files; a compact file that contradicts a raw file of its sector is
//! named; `--against` with nothing to compare fails; and the errors say what happened.

mod common;

use common::{morris, FAILURE};
use morris_builder::pack::pack_sector;
use morris_builder::write::write_sector;
use morris_engine::Variant;
use morris_tablebase::compact::{compact_name, Kind};
use morris_tablebase::file::file_name;
use morris_tablebase::sector::SectorId;
use morris_tablebase::{SectorFile, Value, Wdl};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use xxhash_rust::xxh3::xxh3_64;

/// The Standard game of up to four pieces a side, raw and packed with every `.dtm`
/// file (`raw`, `compact` under the test's target directory), made once by the
/// command line.
fn sets() -> &'static (PathBuf, PathBuf) {
    static SETS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    SETS.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("verify-compact-sets");
        let _ = std::fs::remove_dir_all(&root);
        let (raw, compact) = (root.join("raw"), root.join("compact"));
        morris([
            "generate",
            "--variant",
            "standard",
            "--max-pieces",
            "4",
            "--threads",
            "2",
            "--no-classes",
            "--tb",
            s(&raw),
        ])
        .ok();
        morris([
            "pack",
            "--tb",
            s(&raw),
            "--out",
            s(&compact),
            "--level",
            "3",
            "--distances",
            "all",
        ])
        .ok();
        (raw, compact)
    })
}

fn s(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

/// The table files of `dir` (not the lock file `generate` leaves), sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("readable")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

/// A new directory holding the files of `from` whose names `keep` accepts.
fn copy(from: &[&Path], keep: impl Fn(&str) -> bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for from in from {
        for name in names(from).into_iter().filter(|n| keep(n)) {
            std::fs::copy(from.join(&name), dir.path().join(&name)).expect("copied");
        }
    }
    dir
}

fn sector(name: &str) -> SectorId {
    name.parse().expect("a sector")
}

/// Write into `scratch` the raw file of `sector` with one value changed by `change`
/// (given the stored value, `None` to leave it), and pack its compact file of `kind`
/// into `out`: a compact file whose checksums and counts agree with its values, and
/// whose values are wrong. Returns the entry changed.
fn wrong_compact(
    sector: SectorId,
    kind: Kind,
    out: &Path,
    change: impl Fn(Value) -> Option<Value>,
) -> u64 {
    let (raw, _) = sets();
    let variant = Variant::Standard;
    let good = SectorFile::open(&raw.join(file_name(variant, sector)), variant, sector)
        .expect("a good raw file");
    let mut values = good.values().expect("intact");
    let (i, v) = values
        .iter()
        .enumerate()
        .find_map(|(i, &v)| change(Value(v)).map(|v| (i, v)))
        .expect("a value to change");
    values[i] = v.0;
    let scratch = tempfile::tempdir().expect("a temporary directory");
    write_sector(scratch.path(), variant, sector, &values).expect("written");
    let wrong = SectorFile::open(
        &scratch.path().join(file_name(variant, sector)),
        variant,
        sector,
    )
    .expect("opens");
    pack_sector(&wrong, out, kind, 3).expect("packed");
    i as u64
}

/// A win in `d` becomes a win in `d + 2`: the counts stay, the distance is wrong.
fn longer_win(v: Value) -> Option<Value> {
    match (v.wdl(), v.dtm()) {
        (Wdl::Win, Some(d)) => Some(Value::win(d + 2)),
        _ => None,
    }
}

/// A win becomes a loss in 0.
fn win_to_loss(v: Value) -> Option<Value> {
    (v.wdl() == Wdl::Win).then(|| Value::loss(0))
}

fn verify(dir: &Path, args: &[&str]) -> common::Morris {
    let mut a = vec!["verify", "--tb", s(dir)];
    a.extend(args);
    morris(a)
}

/// A directory of compact files alone is verified value by value: every file is
/// counted, and a `.dtm` file whose checksums and counts agree with its wrong values
/// is found by its successors and named.
#[test]
fn verify_full_checks_a_directory_of_compact_files() {
    let (raw, compact) = sets();
    let files = names(compact).len();
    assert_eq!(files, 2 * names(raw).len());
    let out = verify(compact, &["--full"]).ok();
    assert!(
        out.ends_with(&format!("all {files} files ok, every value verified\n")),
        "{out}"
    );
    assert!(
        out.contains("standard 4-4 dtm: all ")
            && out.contains("values agree with their successors"),
        "{out}"
    );
    // Each .wdl file agrees with the verified .dtm file of its sector.
    assert!(out.contains("standard 3-4 wdl: all "), "{out}");

    let dir = copy(&[compact], |_| true);
    let s34 = sector("3-4");
    let i = wrong_compact(s34, Kind::Dtm, dir.path(), longer_win);
    // Its checksums and counts agree: a plain check passes.
    verify(dir.path(), &[]).ok();
    let (out, error) = verify(dir.path(), &["--full"]).fails(FAILURE);
    assert!(
        out.contains(&format!(
            "standard 3-4 dtm: 1 MISMATCHES, e.g. index {i}: stored win in "
        )),
        "{out}"
    );
    assert!(!out.contains("every value verified"), "{out}");
    assert!(error.contains("mismatched values"), "{error}");
    // The .wdl file holds the right results, and the wrong .dtm file is no reference
    // to compare it with: it is not called good.
    assert!(!out.contains("standard 3-4 wdl: all "), "{out}");
}

/// A one-sided set (no `.dtm` file where the successors' distances give them) is
/// verified whole: the distances of each stored sector are checked against the
/// distances its derived successors get from theirs, so a wrong distance in a
/// stored sector whose partner has none is still found; so is a wrong result in a
/// derived sector's `.wdl` file.
#[test]
fn verify_full_checks_a_one_sided_set() {
    let (_, compact) = sets();
    let one_sided = |n: &str| {
        let name = n
            .strip_prefix("standard-")
            .and_then(|n| n.strip_suffix(".dtm"));
        name.is_none_or(|n| !sector(n).distances_derived(Variant::Standard))
    };
    let dir = copy(&[compact], one_sided);
    let files = names(dir.path()).len();
    assert!(files < names(compact).len() - 20, "{files}");
    let out = verify(dir.path(), &["--full"]).ok();
    assert!(
        out.contains(&format!("all {files} files ok, every value verified")),
        "{out}"
    );
    assert!(
        out.contains("from the distances of their successors"),
        "{out}"
    );

    // 4-3 keeps its distances, 3-4 has none: a longer win in 4-3 is found through
    // the distances 3-4 gets from 4-3 and 2-... (its captures end the game).
    let bad = copy(&[dir.path()], |_| true);
    let i = wrong_compact(sector("4-3"), Kind::Dtm, bad.path(), longer_win);
    let (out, _) = verify(bad.path(), &["--full"]).fails(FAILURE);
    assert!(
        out.contains(&format!("standard 4-3 dtm: 1 MISMATCHES, e.g. index {i}")),
        "{out}"
    );
    // The same for a placement sector with Black to move, whose successors (White
    // to move) have no distances of their own.
    let bad = copy(&[dir.path()], |_| true);
    let placement = sector("2-2+2-1");
    assert!(!placement.distances_derived(Variant::Standard));
    let i = wrong_compact(placement, Kind::Dtm, bad.path(), longer_win);
    let (out, _) = verify(bad.path(), &["--full"]).fails(FAILURE);
    assert!(
        out.contains(&format!(
            "standard 2-2+2-1 dtm: 1 MISMATCHES, e.g. index {i}"
        )),
        "{out}"
    );
    // A derived sector's .wdl file with a win made a loss.
    let bad = copy(&[dir.path()], |_| true);
    let i = wrong_compact(sector("3-4"), Kind::Wdl, bad.path(), win_to_loss);
    let (out, _) = verify(bad.path(), &["--full"]).fails(FAILURE);
    assert!(
        out.contains(&format!("standard 3-4 wdl: 1 MISMATCHES, e.g. index {i}")),
        "{out}"
    );
}

/// A sparse set: a sector checked alone (`--sector`) whose capture leads to a sector
/// whose `.wdl` file holds no values is checked through that sector's successors,
/// which the check reads too (it used to read the empty file's values out of bounds
/// and panic).
#[test]
fn verify_full_of_one_sector_of_a_sparse_set() {
    let (raw, _) = sets();
    let sparse = tempfile::tempdir().expect("a temporary directory");
    morris([
        "pack",
        "--tb",
        s(raw),
        "--out",
        s(sparse.path()),
        "--level",
        "3",
        "--distances",
        "sparse",
    ])
    .ok();
    // Captures from 4-4 lead to 3-4, whose values a sparse set leaves out.
    assert!(sector("3-4").distances_derived(Variant::Standard));
    let out = verify(sparse.path(), &["--full", "--sector", "4-4"]).ok();
    assert!(
        out.contains("standard 4-4 dtm: all 3225597 values agree with their successors"),
        "{out}"
    );
    assert!(out.contains("every value of 1 sector verified"), "{out}");
}

/// Raw files for the movement sectors, compact files for the placement sectors: every
/// file is verified, the compact ones too.
#[test]
fn verify_full_checks_the_compact_files_of_a_mixed_directory() {
    let (raw, compact) = sets();
    let dir = copy(&[raw, compact], |n| {
        let placement = n.contains('+');
        placement != n.ends_with(".tb")
    });
    let files = names(dir.path()).len();
    let out = verify(dir.path(), &["--full"]).ok();
    assert!(
        out.ends_with(&format!("all {files} files ok, every value verified\n")),
        "{out}"
    );
    let placement = sector("3-4+1-0");
    let i = wrong_compact(placement, Kind::Dtm, dir.path(), longer_win);
    let (out, _) = verify(dir.path(), &["--full"]).fails(FAILURE);
    assert!(
        out.contains(&format!(
            "standard 3-4+1-0 dtm: 1 MISMATCHES, e.g. index {i}"
        )),
        "{out}"
    );
    assert!(!out.contains("every value verified"), "{out}");
}

/// Only `.wdl` files: their win, draw or loss is checked against their successors',
/// and the output says plainly that no distance was checked; a wrong result is found.
#[test]
fn verify_full_of_win_draw_loss_files_says_what_it_checked() {
    let (_, compact) = sets();
    let dir = copy(&[compact], |n| n.ends_with(".wdl"));
    let files = names(dir.path()).len();
    let out = verify(dir.path(), &["--full"]).ok();
    assert!(!out.contains("every value verified"), "{out}");
    assert!(
        out.contains(&format!("all {files} files ok")) && out.contains("no distances"),
        "{out}"
    );
    assert!(
        out.contains("standard 4-4 wdl: win, draw or loss of all "),
        "{out}"
    );
    // No position of 3-4 reads another of 3-4 (its moves lead to 4-3 and 3-3): the
    // changed one alone disagrees with its successors.
    let i = wrong_compact(sector("3-4"), Kind::Wdl, dir.path(), win_to_loss);
    let (out, _) = verify(dir.path(), &["--full"]).fails(FAILURE);
    assert!(
        out.contains(&format!(
            "standard 3-4 wdl: 1 MISMATCHES, e.g. index {i}: stored loss, successors give win"
        )),
        "{out}"
    );
}

/// A compact file that contradicts the raw file of its sector in the same directory
/// is named with both files, by a plain check and by a full one.
#[test]
fn a_compact_file_contradicting_its_raw_file_is_named() {
    let (raw, _) = sets();
    let dir = copy(&[raw], |_| true);
    let s34 = sector("3-4");
    let i = wrong_compact(s34, Kind::Dtm, dir.path(), longer_win);
    let compact = dir
        .path()
        .join(compact_name(Variant::Standard, s34, Kind::Dtm));
    let raw_file = dir.path().join(file_name(Variant::Standard, s34));
    let bad = format!(
        "standard 3-4 dtm: BAD: {}: entry {i} differs from {}",
        compact.display(),
        raw_file.display()
    );
    for args in [&[][..], &["--full"][..]] {
        let (out, _) = verify(dir.path(), args).fails(FAILURE);
        assert!(out.contains(&bad), "{args:?}: {out}");
        assert!(!out.contains("every value verified"), "{out}");
    }
}

/// `--against`: a value that differs names both files; nothing to compare (no compact
/// files, or no raw file for them) is a failure that says so.
#[test]
fn verify_against_names_both_files_and_needs_something_to_compare() {
    let (raw, compact) = sets();
    let dir = copy(&[compact], |_| true);
    let s34 = sector("3-4");
    let i = wrong_compact(s34, Kind::Dtm, dir.path(), longer_win);
    let (out, _) = verify(dir.path(), &["--against", s(raw)]).fails(FAILURE);
    assert!(
        out.contains(&format!(
            "standard 3-4 dtm: BAD: {}: entry {i} differs from {}",
            dir.path()
                .join(compact_name(Variant::Standard, s34, Kind::Dtm))
                .display(),
            raw.join(file_name(Variant::Standard, s34)).display()
        )),
        "{out}"
    );

    let (_, error) = verify(raw, &["--against", s(raw)]).fails(FAILURE);
    assert!(error.contains("no compact files"), "{error}");
    let empty = tempfile::tempdir().expect("a temporary directory");
    let (out, error) = verify(compact, &["--against", s(empty.path())]).fails(FAILURE);
    assert!(error.contains("nothing to compare"), "{error}");
    assert!(out.contains("NOT COMPARED"), "{out}");
}

/// A compact header naming a compression codec this program does not know is refused
/// as such, not as a value encoding.
#[test]
fn an_unknown_codec_is_named() {
    let (_, compact) = sets();
    let dir = copy(&[compact], |n| n == "standard-3-3.wdl");
    let path = dir.path().join("standard-3-3.wdl");
    let mut bytes = std::fs::read(&path).expect("read");
    bytes[63] = 7;
    let sum = xxh3_64(&bytes[0..120]);
    bytes[120..128].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&path, &bytes).expect("written");
    let (out, _) = verify(dir.path(), &[]).fails(FAILURE);
    assert!(
        out.contains(&format!(
            "BAD: {}: compression codec 7, which this program does not know",
            path.display()
        )),
        "{out}"
    );
}
