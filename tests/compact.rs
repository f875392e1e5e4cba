//! Compact tables (`morris pack`) against the raw tables they are made from: every
//! value of every sector of both games of up to four pieces a side, damaged blocks,
//! sets that mix raw and compact files.

use morris_engine::{Color, Position, Rules, Setup};
use morris_tablebase::compact::{compact_name, CompactFile, Kind};
use morris_tablebase::file::file_name;
use morris_tablebase::sector::{Sector, SectorId};
use morris_tablebase::{Mapper, OpenOptions, SectorFile, Tablebase, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, OnceLock};

fn morris(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_morris"))
        .args(args)
        .output()
        .expect("morris runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The raw set of both games of four pieces a side and its compact form with every
/// `.dtm` file (`raw`, `compact` under the test's target directory), made once by the
/// command line.
fn sets() -> &'static (PathBuf, PathBuf) {
    static SETS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    SETS.get_or_init(|| {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("compact-sets");
        let _ = std::fs::remove_dir_all(&root);
        let (raw, compact) = (root.join("raw"), root.join("compact"));
        let (raw_s, compact_s) = (
            raw.to_str().expect("utf-8"),
            compact.to_str().expect("utf-8"),
        );
        let g = morris(&[
            "generate",
            "--variant",
            "both",
            "--max-pieces",
            "4",
            "--tb",
            raw_s,
        ]);
        assert!(g.status.success(), "{}", text(&g));
        let p = morris(&[
            "pack",
            "--tb",
            raw_s,
            "--out",
            compact_s,
            "--level",
            "3",
            "--distances",
            "all",
        ]);
        assert!(p.status.success(), "{}", text(&p));
        (raw, compact)
    })
}

/// Every sector of the raw set: variant, sector, raw file.
fn raw_files(raw: &Path) -> Vec<(Rules, SectorId, SectorFile)> {
    Tablebase::scan(raw, OpenOptions::default())
        .expect("readable")
        .into_iter()
        .map(|(v, s, f)| (v, s, f.expect("a good raw file")))
        .collect()
}

/// The position of entry `i` of a sector, in the colours a game gives it.
fn position(
    variant: Rules,
    sector: SectorId,
    index: &morris_tablebase::SectorIndex,
    i: u64,
) -> Position {
    let (us, them) = index.position(i);
    let setup = match sector {
        SectorId::Movement(_) => Setup {
            pieces: [us, them],
            hand: [0, 0],
            side_to_move: Color::White,
        },
        SectorId::Placement(p) => p.game_setup(us, them),
    };
    Position::from_setup(&setup, variant).expect("a position")
}

/// Standard sector `sector`'s raw file in `raw`, the index of its first win, and a
/// raw file of its values with that win changed by `change` (in the temporary
/// directory returned with it).
fn with_first_win(
    raw: &Path,
    sector: Sector,
    change: impl Fn(u16) -> u16,
) -> (SectorFile, usize, tempfile::TempDir, SectorFile) {
    let raw_file = SectorFile::open(
        &raw.join(file_name(Rules::STANDARD, sector)),
        Rules::STANDARD,
        sector,
    )
    .expect("opens");
    let mut values = raw_file.values().expect("intact");
    let i = values
        .iter()
        .position(|&v| Value(v).wdl() == morris_engine::Wdl::Win)
        .expect("a win");
    values[i] = change(values[i]);
    let scratch = tempfile::tempdir().expect("a temporary directory");
    morris_builder::write::write_sector(scratch.path(), Rules::STANDARD, sector, &values)
        .expect("written");
    let changed = SectorFile::open(
        &scratch.path().join(file_name(Rules::STANDARD, sector)),
        Rules::STANDARD,
        sector,
    )
    .expect("opens");
    (raw_file, i, scratch, changed)
}

/// Every value of every sector (movement and placement, both games) reads back from
/// its `.dtm` file as stored, and from its `.wdl` file as its result without
/// distance; `verify --against` agrees.
#[test]
fn every_value_of_every_small_sector_reads_back() {
    let (raw, compact) = sets();
    let files = raw_files(raw);
    assert!(files.len() > 100, "{}", files.len());
    let mut values = 0u64;
    for (variant, sector, raw_file) in &files {
        let stored = raw_file.values().expect("intact");
        let path = |kind| compact.join(compact_name(*variant, *sector, kind));
        // The win/draw/loss file read, the DTM file mapped: both ways of reading blocks.
        let wdl = CompactFile::open(
            &path(Kind::Wdl),
            (*variant, *sector, Kind::Wdl),
            Arc::default(),
        )
        .expect("opens");
        // SAFETY: nobody writes the packed set once `sets` has made it.
        let mapper = unsafe { Mapper::new() };
        let dtm = CompactFile::open_mapped(
            &path(Kind::Dtm),
            (*variant, *sector, Kind::Dtm),
            Arc::default(),
            mapper,
        )
        .expect("opens");
        // Blocks as the format promises: searches read movement DTM files in small
        // blocks; placement DTM files have larger ones (answered by lookups).
        let dtm_block = match sector {
            SectorId::Movement(_) => 4096,
            SectorId::Placement(_) => 16384,
        };
        assert_eq!(dtm.header().block(), dtm_block, "{variant} {sector}");
        assert_eq!(wdl.header().block(), 65536, "{variant} {sector}");
        for (i, &v) in stored.iter().enumerate() {
            let v = Value(v);
            assert_eq!(
                dtm.value(i as u64).expect("good"),
                v,
                "{variant} {sector} {i}"
            );
            assert_eq!(
                wdl.value(i as u64).expect("good"),
                Value::wdl_only(v.wdl()),
                "{variant} {sector} {i}"
            );
            values += 1;
        }
    }
    assert!(values > 10_000_000, "{values}");
    let v = morris(&[
        "verify",
        "--tb",
        compact.to_str().expect("utf-8"),
        "--against",
        raw.to_str().expect("utf-8"),
    ]);
    assert!(v.status.success(), "{}", text(&v));
    assert!(text(&v).contains("all 296 files ok"), "{}", text(&v));
}

/// A set that holds raw files for some sectors, both compact files for others and
/// only `.wdl` files for the rest answers every probe as the raw set does, without
/// distances where only a `.wdl` file answers.
#[test]
fn a_mixed_set_answers_like_the_raw_one() {
    let (raw, compact) = sets();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let files = raw_files(raw);
    // Movement sectors raw, Standard placement sectors compact with DTM, No-flying
    // placement sectors win/draw/loss only.
    let mut forms = Vec::new();
    for (variant, sector, _) in &files {
        let names: Vec<(PathBuf, String)> = match (sector, *variant == Rules::STANDARD) {
            (SectorId::Movement(_), _) => vec![(raw.clone(), file_name(*variant, *sector))],
            (_, true) => Kind::ALL
                .iter()
                .map(|&k| (compact.clone(), compact_name(*variant, *sector, k)))
                .collect(),
            (_, false) => {
                vec![(compact.clone(), compact_name(*variant, *sector, Kind::Wdl))]
            }
        };
        for (from, name) in names {
            std::fs::copy(from.join(&name), dir.path().join(&name)).expect("copied");
        }
        forms.push((*variant, *sector));
    }
    let mixed = Tablebase::open(dir.path(), OpenOptions::default()).expect("opens");
    let whole = Tablebase::open(raw, OpenOptions::default()).expect("opens");
    assert!(mixed.compact_tables().count() > 50);
    let mut probed = 0;
    for (variant, sector, raw_file) in &files {
        let index = raw_file.index();
        // A No-flying placement sector whose turns all end the placing phase reads
        // its distances from the raw movement files by a one-ply search.
        let last = sector
            .successors(*variant)
            .iter()
            .all(|s| matches!(s, SectorId::Movement(_)));
        let wdl_only =
            matches!(sector, SectorId::Placement(_)) && *variant == Rules::NO_FLYING && !last;
        assert_eq!(mixed.has_dtm(*variant, *sector), Some(!wdl_only));
        for i in (0..raw_file.header().entries).step_by(7) {
            let pos = position(*variant, *sector, index, i);
            let want = whole.value(&pos).expect("good").expect("covered");
            let got = mixed.value(&pos).expect("good").expect("covered");
            if wdl_only {
                assert_eq!(got, Value::wdl_only(want.wdl()), "{variant} {sector} {i}");
            } else {
                assert_eq!(got, want, "{variant} {sector} {i}");
            }
            probed += 1;
        }
    }
    assert!(probed > 1_000_000, "{probed}");
    // `stats` counts the compact sectors too, and lists every file's size.
    let tb = dir.path().to_str().expect("utf-8");
    let plain = text(&morris(&["stats", "--tb", tb]));
    let whole = text(&morris(&["stats", "--tb", raw.to_str().expect("utf-8")]));
    assert_eq!(plain, whole);
    let sizes = morris(&["stats", "--sizes", "--tb", tb]);
    assert!(sizes.status.success(), "{}", text(&sizes));
    let line = |name: &str| {
        text(&sizes)
            .lines()
            .find(|l| l.split_whitespace().take(2).collect::<Vec<_>>() == ["no-flying", name])
            .map(|l| l.split_whitespace().filter(|w| *w == "-").count())
    };
    // No-flying placement sectors: no raw file, no .dtm file.
    assert_eq!(line("3-3+1-0"), Some(4), "{}", text(&sizes));
    assert_eq!(line("3-3"), Some(4), "{}", text(&sizes));
    // Grouped by pieces in hand: the groups' positions and `.wdl` bytes add up to
    // the placement totals, and no group has raw bytes (placement sectors are
    // compact only here).
    let grouped = morris(&["stats", "--sizes", "--by-placements", "--tb", tb]);
    assert!(grouped.status.success(), "{}", text(&grouped));
    let grouped = text(&grouped);
    for variant in ["standard", "no-flying"] {
        let rows: Vec<Vec<&str>> = grouped
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .filter(|w| w.first() == Some(&variant))
            .collect();
        assert!(
            !rows.iter().any(|w| w[1].contains('+')),
            "no placement sector listed alone: {grouped}"
        );
        let groups: Vec<&Vec<&str>> = rows.iter().filter(|w| w[2].starts_with('(')).collect();
        assert!(groups.len() >= 7, "{grouped}");
        let total = rows
            .iter()
            .find(|w| w[1] == "placement")
            .unwrap_or_else(|| panic!("{grouped}"));
        let sum = |col: usize| -> u64 {
            groups
                .iter()
                .map(|w| {
                    w[col]
                        .parse::<u64>()
                        .unwrap_or_else(|_| panic!("{grouped}"))
                })
                .sum()
        };
        // Columns: variant, in hand, (sectors), positions, raw bytes, bits, wdl bytes, ...
        assert_eq!(sum(3).to_string(), total[2], "{grouped}");
        assert_eq!(sum(6).to_string(), total[5], "{grouped}");
        assert!(groups.iter().all(|w| w[4] == "-"), "{grouped}");
    }
}

/// The default, one-sided compact set: no `.dtm` file for the sectors
/// [`SectorId::distances_derived`] names, and every probe of every position of both
/// games still answers the raw value with its distance; the search proves the same
/// values; `verify --full` checks it whole; a `.wdl` file that contradicts the
/// distances of its successors is an error naming it.
#[test]
fn a_one_sided_set_answers_every_distance() {
    let (raw, _) = sets();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().to_str().expect("utf-8");
    let p = morris(&[
        "pack",
        "--tb",
        raw.to_str().expect("utf-8"),
        "--out",
        out,
        "--level",
        "3",
    ]);
    assert!(p.status.success(), "{}", text(&p));
    assert!(
        text(&p).contains("sectors get no .dtm file"),
        "{}",
        text(&p)
    );
    let files = raw_files(raw);
    let whole = Tablebase::open(raw, OpenOptions::default()).expect("opens");
    let one = Tablebase::open(dir.path(), OpenOptions::default()).expect("opens");
    let (mut derived, mut probed) = (0, 0u64);
    for (variant, sector, raw_file) in &files {
        let dtm = dir.path().join(compact_name(*variant, *sector, Kind::Dtm));
        assert_eq!(
            dtm.exists(),
            !sector.distances_derived(*variant),
            "{variant} {sector}"
        );
        assert_eq!(
            one.has_dtm(*variant, *sector),
            Some(true),
            "{variant} {sector}"
        );
        assert_eq!(
            one.derives(*variant, *sector),
            !dtm.exists(),
            "{variant} {sector}"
        );
        derived += usize::from(!dtm.exists());
        let stored = raw_file.values().expect("intact");
        for (i, &v) in stored.iter().enumerate() {
            let pos = position(*variant, *sector, raw_file.index(), i as u64);
            let got = one.probe(&pos).expect("good").expect("covered");
            assert_eq!(got.value, Value(v), "{variant} {sector} {i}");
            let cheap = one.probe_stored(&pos).expect("good").expect("covered");
            assert_eq!(cheap.value.wdl(), Value(v).wdl(), "{variant} {sector} {i}");
            assert_eq!(whole.value(&pos).expect("good"), Some(Value(v)));
            probed += 1;
        }
    }
    // Both kinds of derived sector: movement (fewer pieces to move) and placement
    // (White to move), in both games.
    assert!(derived > 50, "{derived}");
    assert!(probed > 10_000_000, "{probed}");
    let v = morris(&["verify", "--full", "--tb", out]);
    assert!(v.status.success(), "{}", text(&v));
    assert!(text(&v).contains("every value verified"), "{}", text(&v));
    // The search answers from it as from the raw set.
    for fen in [
        "W.B/.W./.../B....W/.../.../B.. b 0 0",
        "W.B/.W./.../B....W/.../.../... w 1 2",
    ] {
        let args = |tb: &str| morris(&["solve", "--fen", fen, "--tb", tb]);
        let (a, b) = (args(out), args(raw.to_str().expect("utf-8")));
        assert!(a.status.success(), "{}", text(&a));
        // All but the timing line.
        let answer = |o: &Output| -> Vec<String> {
            text(o)
                .lines()
                .filter(|l| !l.starts_with("search:"))
                .map(String::from)
                .collect()
        };
        assert_eq!(answer(&a), answer(&b));
    }
    // A .wdl file of a derived sector packed from values with one win made a loss
    // (a self-consistent file, checksums and counts included) contradicts its
    // successors: the probe of that position is an error naming the file, and
    // `verify --full` fails naming it.
    let sector: Sector = "3-4".parse().expect("a sector");
    assert!(SectorId::from(sector).distances_derived(Rules::STANDARD));
    let name = compact_name(Rules::STANDARD, sector, Kind::Wdl);
    let bad = tempfile::tempdir().expect("a temporary directory");
    for entry in std::fs::read_dir(dir.path()).expect("listed") {
        let entry = entry.expect("an entry");
        std::fs::copy(entry.path(), bad.path().join(entry.file_name())).expect("copied");
    }
    let (raw_file, i, _scratch, changed) = with_first_win(raw, sector, |v| {
        Value::decided(Value(v).dtm().expect("a distance") + 1).0
    });
    morris_builder::pack::pack_sector(&changed, bad.path(), Kind::Wdl, 3).expect("packed");
    let tb = Tablebase::open(bad.path(), OpenOptions::default()).expect("opens");
    let pos = position(Rules::STANDARD, sector.into(), raw_file.index(), i as u64);
    let e = tb.probe(&pos).expect_err("contradicts");
    assert!(e.to_string().contains(&name), "{e}");
    assert!(e.to_string().contains("successors"), "{e}");
    let v = morris(&[
        "verify",
        "--full",
        "--tb",
        bad.path().to_str().expect("utf-8"),
    ]);
    assert!(!v.status.success(), "{}", text(&v));
    assert!(text(&v).contains("MISMATCHES"), "{}", text(&v));
    assert!(text(&v).contains("standard 3-4 wdl"), "{}", text(&v));
}

/// A sparse set (`--distances sparse`) answers every value of every sector of both
/// games as the raw set does, the sectors it leaves to the one-ply search included;
/// `verify --full` and `--against` pass over it; `generate --compact --distances
/// sparse` writes the same files as `pack`; and a `.wdl` file without values whose
/// counts are not those of its successors' values fails `verify --full`, while `pack`
/// makes again a file that holds values where the set wants none.
#[test]
fn a_sparse_set_answers_every_value() {
    let (raw, _) = sets();
    let raw_s = raw.to_str().expect("utf-8");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = dir.path().to_str().expect("utf-8");
    let pack = |out: &str| morris(&["pack", "--tb", raw_s, "--out", out, "--distances", "sparse"]);
    let p = pack(out);
    assert!(p.status.success(), "{}", text(&p));
    assert!(
        text(&p).contains("a .wdl file without values"),
        "{}",
        text(&p)
    );
    let files = raw_files(raw);
    let sparse = Tablebase::open(dir.path(), OpenOptions::default()).expect("opens");
    let (mut derived, mut probed) = (0, 0u64);
    for (variant, sector, raw_file) in &files {
        let left_out = sector.distances_derived(*variant);
        let path = |kind| dir.path().join(compact_name(*variant, *sector, kind));
        assert_eq!(path(Kind::Dtm).exists(), !left_out, "{variant} {sector}");
        let wdl = CompactFile::open(
            &path(Kind::Wdl),
            (*variant, *sector, Kind::Wdl),
            Arc::default(),
        )
        .expect("opens");
        assert_eq!(wdl.is_derived(), left_out, "{variant} {sector}");
        assert_eq!(
            sparse.derived_values(*variant, *sector).is_some(),
            left_out,
            "{variant} {sector}"
        );
        if left_out {
            assert_eq!(wdl.header().file_len(), 128, "{variant} {sector}");
            assert_eq!(wdl.header().stats, raw_file.header().stats);
        }
        derived += usize::from(left_out);
        let stored = raw_file.values().expect("intact");
        for (i, &v) in stored.iter().enumerate() {
            let pos = position(*variant, *sector, raw_file.index(), i as u64);
            let got = sparse.probe(&pos).expect("good").expect("covered");
            assert_eq!(got.value, Value(v), "{variant} {sector} {i}");
            let cheap = sparse.probe_stored(&pos).expect("good").expect("covered");
            assert_eq!(cheap.value.wdl(), Value(v).wdl(), "{variant} {sector} {i}");
            probed += 1;
        }
    }
    assert!(derived > 50, "{derived}");
    assert!(probed > 10_000_000, "{probed}");
    let v = morris(&["verify", "--full", "--tb", out]);
    assert!(v.status.success(), "{}", text(&v));
    assert!(text(&v).contains("every value verified"), "{}", text(&v));
    assert!(text(&v).contains("no values stored"), "{}", text(&v));
    let v = morris(&["verify", "--tb", out, "--against", raw_s]);
    assert!(v.status.success(), "{}", text(&v));
    // The search answers from it as from the raw set.
    for fen in [
        "W.B/.W./.../B....W/.../.../B.. b 0 0",
        "W.B/.W./.../B....W/.../.../... w 1 2",
    ] {
        let args = |tb: &str| morris(&["solve", "--fen", fen, "--tb", tb]);
        let (a, b) = (args(out), args(raw_s));
        assert!(a.status.success(), "{}", text(&a));
        let answer = |o: &Output| -> Vec<String> {
            text(o)
                .lines()
                .filter(|l| !l.starts_with("search:"))
                .map(String::from)
                .collect()
        };
        assert_eq!(answer(&a), answer(&b), "{fen}");
    }
    // Its `.wdl` files alone answer every result: a left-out sector's from its
    // successors' `.wdl` files.
    let wdl_dir = tempfile::tempdir().expect("a temporary directory");
    let wdl_out = wdl_dir.path().to_str().expect("utf-8");
    let p = morris(&[
        "pack",
        "--tb",
        raw_s,
        "--out",
        wdl_out,
        "--distances",
        "sparse",
        "--kind",
        "wdl",
    ]);
    assert!(p.status.success(), "{}", text(&p));
    let results = Tablebase::open(wdl_dir.path(), OpenOptions::default()).expect("opens");
    let mut checked = 0u64;
    for (variant, sector, raw_file) in &files {
        let stored = raw_file.values().expect("intact");
        for (i, &v) in stored.iter().enumerate().step_by(5) {
            let pos = position(*variant, *sector, raw_file.index(), i as u64);
            let got = results.probe(&pos).expect("good").expect("covered");
            assert_eq!(got.value.wdl(), Value(v).wdl(), "{variant} {sector} {i}");
            checked += 1;
        }
    }
    assert!(checked > 2_000_000, "{checked}");
    // `generate --compact --distances sparse` leaves the value files `pack` makes.
    let generated = tempfile::tempdir().expect("a temporary directory");
    let g = morris(&[
        "generate",
        "--variant",
        "both",
        "--max-pieces",
        "4",
        "--compact",
        "--distances",
        "sparse",
        "--tb",
        generated.path().to_str().expect("utf-8"),
    ]);
    assert!(g.status.success(), "{}", text(&g));
    assert!(
        text(&g).contains("now hold their header alone"),
        "{}",
        text(&g)
    );
    let mut compared = 0;
    for entry in std::fs::read_dir(dir.path()).expect("listed") {
        let entry = entry.expect("an entry");
        let theirs = std::fs::read(generated.path().join(entry.file_name())).expect("generated");
        assert!(
            std::fs::read(entry.path()).expect("read") == theirs,
            "{:?}",
            entry.file_name()
        );
        compared += 1;
    }
    assert!(compared > 200, "{compared}");
    // A `.wdl` file without values made from values with one win made a draw (its
    // counts changed): `verify --full` fails naming the sector; `pack` makes again a
    // `.wdl` file with values where the set wants none.
    let sector: Sector = "3-4".parse().expect("a sector");
    let (raw_file, _, _scratch, changed) = with_first_win(raw, sector, |_| Value::DRAW.0);
    morris_builder::pack::pack_derived(&changed, dir.path()).expect("packed");
    let v = morris(&["verify", "--full", "--tb", out]);
    assert!(!v.status.success(), "{}", text(&v));
    assert!(
        text(&v).contains("sector 3-4 found from its successors"),
        "{}",
        text(&v)
    );
    let wdl = compact_name(Rules::STANDARD, sector, Kind::Wdl);
    morris_builder::pack::pack_sector(&raw_file, dir.path(), Kind::Wdl, 3).expect("packed");
    let p = pack(out);
    assert!(p.status.success(), "{}", text(&p));
    assert!(
        text(&p).contains("holds values, and this set leaves them"),
        "{}",
        text(&p)
    );
    let again = CompactFile::open(
        &dir.path().join(&wdl),
        (Rules::STANDARD, sector.into(), Kind::Wdl),
        Arc::default(),
    )
    .expect("opens");
    assert!(again.is_derived());
    let v = morris(&["verify", "--full", "--tb", out]);
    assert!(v.status.success(), "{}", text(&v));
}

/// A flipped byte in a block of a compact file: `verify` fails naming the file, a
/// probe into that block is an error naming it (never a value), and the file's other
/// blocks still answer.
#[test]
fn a_damaged_block_is_detected_and_named() {
    let (raw, compact) = sets();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let variant = Rules::STANDARD;
    let sector = SectorId::Movement("4-4".parse().expect("a sector"));
    let name = compact_name(variant, sector, Kind::Dtm);
    let target = dir.path().join(&name);
    std::fs::copy(compact.join(&name), &target).expect("copied");
    let raw_file =
        SectorFile::open(&raw.join(file_name(variant, sector)), variant, sector).expect("opens");
    let good =
        CompactFile::open(&target, (variant, sector, Kind::Dtm), Arc::default()).expect("opens");
    let data_start = good.header().file_len() - good.header().data_len;
    let mut bytes = std::fs::read(&target).expect("read");
    bytes[data_start as usize + 10] ^= 0x10;
    std::fs::write(&target, &bytes).expect("written");

    let v = morris(&["verify", "--tb", dir.path().to_str().expect("utf-8")]);
    assert!(!v.status.success());
    assert!(
        text(&v).contains(&format!("BAD: {}", target.display())),
        "{}",
        text(&v)
    );
    assert!(
        text(&v).contains("checksum mismatch in entries 0 to 4095"),
        "{}",
        text(&v)
    );

    // Read and mapped alike.
    // SAFETY: nobody writes the temporary directory's file any more.
    // SAFETY: the test changes no file while the tables are mapped.
    let mapper = unsafe { Mapper::new() };
    let mapped = Tablebase::open(
        dir.path(),
        OpenOptions {
            mapper: Some(mapper),
            ..OpenOptions::default()
        },
    );
    for tb in [Tablebase::open(dir.path(), OpenOptions::default()), mapped] {
        let tb = tb.expect("opens: the header is good");
        let index = raw_file.index();
        let e = tb
            .value(&position(variant, sector, index, 5))
            .expect_err("a damaged block never answers");
        assert!(e.to_string().contains(&name), "{e}");
        let last = raw_file.header().entries - 1;
        assert_eq!(
            tb.value(&position(variant, sector, index, last))
                .expect("good block"),
            Some(raw_file.value(last).expect("good")),
        );
    }
}

/// `pack` resumes: a second run keeps the finished files and makes only what is
/// missing; a stale temporary file is replaced, never read.
#[test]
fn pack_resumes() {
    let (raw, compact) = sets();
    let dir = tempfile::tempdir().expect("a temporary directory");
    for entry in std::fs::read_dir(compact).expect("readable") {
        let entry = entry.expect("an entry");
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).expect("copied");
    }
    let gone = compact_name(
        Rules::NO_FLYING,
        SectorId::Movement("3-4".parse().expect("a sector")),
        Kind::Wdl,
    );
    std::fs::remove_file(dir.path().join(&gone)).expect("removed");
    std::fs::write(dir.path().join(format!("{gone}.tmp")), b"half").expect("written");
    let out = dir.path().to_str().expect("utf-8");
    let p = morris(&[
        "pack",
        "--tb",
        raw.to_str().expect("utf-8"),
        "--out",
        out,
        "--level",
        "3",
        "--distances",
        "all",
    ]);
    assert!(p.status.success(), "{}", text(&p));
    let t = text(&p);
    assert!(t.contains("295 files already in"), "{t}");
    assert!(t.contains("no-flying") && t.contains("3-4  wdl"), "{t}");
    assert!(!dir.path().join(format!("{gone}.tmp")).exists());
    let v = morris(&[
        "verify",
        "--tb",
        out,
        "--against",
        raw.to_str().expect("utf-8"),
    ]);
    assert!(v.status.success(), "{}", text(&v));
}

/// `pack` resumes only from good files of the same raw files: a damaged file, one packed
/// from other values, and one of format version 1 (which did not record the raw file it
/// came from) are each said to be packed again, and come out as a fresh pack does.
#[test]
fn pack_resumes_only_from_good_files_of_the_same_raw_files() {
    use xxhash_rust::xxh3::xxh3_64;
    let (raw, compact) = sets();
    let dir = tempfile::tempdir().expect("a temporary directory");
    for entry in std::fs::read_dir(compact).expect("readable") {
        let entry = entry.expect("an entry");
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).expect("copied");
    }
    let at = |variant, sector: &str, kind| {
        let sector = SectorId::Movement(sector.parse().expect("a sector"));
        dir.path().join(compact_name(variant, sector, kind))
    };
    // A flipped byte in the last block's data: the header and length are good.
    let damaged = at(Rules::STANDARD, "4-4", Kind::Dtm);
    let mut bytes = std::fs::read(&damaged).expect("read");
    let n = bytes.len();
    bytes[n - 3] ^= 0x20;
    std::fs::write(&damaged, &bytes).expect("written");
    // Packed from a raw file with one value changed: every checksum and count agrees.
    let foreign = at(Rules::STANDARD, "3-4", Kind::Wdl);
    let (_, _, _scratch, other) =
        with_first_win(raw, "3-4".parse().expect("a sector"), |_| Value::loss(0).0);
    morris_builder::pack::pack_sector(&other, dir.path(), Kind::Wdl, 3).expect("packed");
    // Format version 1: no raw file's checksum (bytes 80..88 zero), the header resealed.
    let old = at(Rules::NO_FLYING, "3-3", Kind::Dtm);
    let mut bytes = std::fs::read(&old).expect("read");
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    bytes[80..88].fill(0);
    let sum = xxh3_64(&bytes[0..120]);
    bytes[120..128].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&old, &bytes).expect("written");
    // A file of version 1 still reads.
    let tb = dir.path().to_str().expect("utf-8");
    let probe = morris(&[
        "probe",
        "--variant",
        "no-flying",
        "--fen",
        "WWW/.../.../BBB.../.../.../... w 0 0",
        "--tb",
        tb,
    ]);
    assert!(probe.status.success(), "{}", text(&probe));

    let p = morris(&[
        "pack",
        "--tb",
        raw.to_str().expect("utf-8"),
        "--out",
        tb,
        "--level",
        "3",
        "--distances",
        "all",
    ]);
    assert!(p.status.success(), "{}", text(&p));
    let t = text(&p);
    for line in [
        format!(
            "standard 4-4 dtm: {}: corrupt payload (checksum mismatch in entries",
            damaged.display()
        ),
        format!(
            "standard 3-4 wdl: {}: packed from another raw file than",
            foreign.display()
        ),
        format!(
            "no-flying 3-3 dtm: {}: packed by an older morris, which did not record the raw file it came from; packing it again",
            old.display()
        ),
    ] {
        assert!(t.contains(&line), "{line}\n{t}");
    }
    assert!(t.contains("293 files already in"), "{t}");
    for path in [damaged, foreign, old] {
        let name = path.file_name().expect("a name");
        assert_eq!(
            std::fs::read(&path).expect("read"),
            std::fs::read(compact.join(name)).expect("read"),
            "{}",
            path.display()
        );
    }
}

/// `MORRIS_TB_CACHE_MB` is read by the command line: a whole number of MiB from 1 to
/// 1048576 sets the cache; anything else is bad input that names the variable, never a
/// silent default or a cache of nothing.
#[test]
fn the_cache_size_from_the_environment_is_checked() {
    let dir = only(Kind::Dtm);
    let probe = |value: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_morris"));
        c.args([
            "probe",
            "--fen",
            "W.W/.W./.../.B..../.../.../BBB w 0 0",
            "--tb",
            dir.path().to_str().expect("utf-8"),
        ]);
        match value {
            Some(v) => c.env("MORRIS_TB_CACHE_MB", v),
            None => c.env_remove("MORRIS_TB_CACHE_MB"),
        };
        c.output().expect("morris runs")
    };
    let plain = probe(None);
    assert!(plain.status.success(), "{}", text(&plain));
    for good in ["1", "64", "1048576"] {
        let o = probe(Some(good));
        assert!(o.status.success(), "{good}: {}", text(&o));
        assert_eq!(o.stdout, plain.stdout, "{good}");
    }
    for bad in [
        "",
        "abc",
        "0",
        "-1",
        "1.5",
        " 64",
        "64MB",
        "1048577",
        "17592186044416",
        "18446744073709551616",
    ] {
        let o = probe(Some(bad));
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{bad:?}: {}", text(&o));
        assert!(o.stdout.is_empty(), "{bad:?}: {}", text(&o));
        assert!(
            stderr.starts_with("error: MORRIS_TB_CACHE_MB=") && stderr.lines().count() == 1,
            "{bad:?}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// A sector with only its `.wdl` file gives the search no distance: the search goes on
/// below its positions and finds the exact value, never a draw for a decided position.
#[test]
fn the_search_never_takes_a_value_without_distance_for_a_draw() {
    use morris_solver::{Limits, Searcher, Verdict};
    let (raw, compact) = sets();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let variant = Rules::STANDARD;
    let sector = SectorId::Movement("3-3".parse().expect("a sector"));
    let name = compact_name(variant, sector, Kind::Wdl);
    std::fs::copy(compact.join(&name), dir.path().join(&name)).expect("copied");
    let tb = Tablebase::open(dir.path(), OpenOptions::default()).expect("opens");
    let raw_file =
        SectorFile::open(&raw.join(file_name(variant, sector)), variant, sector).expect("opens");
    let values = raw_file.values().expect("intact");
    let mut searched = 0;
    for dtm in [1, 2] {
        for (i, _) in values
            .iter()
            .enumerate()
            .filter(|(_, &v)| Value(v).dtm() == Some(dtm))
            .take(3)
        {
            let pos = position(variant, sector, raw_file.index(), i as u64);
            let want = Value(values[i]);
            assert!(tb
                .value(&pos)
                .expect("good")
                .is_some_and(|v| v.is_distance_unknown()));
            let mut searcher = Searcher::new(Some(&tb), 16).expect("a table");
            let limits = Limits {
                depth: Some(4),
                ..Limits::default()
            };
            let r = searcher.search(&pos, limits, &[]).expect("searched");
            assert_eq!(r.value, Some(Verdict::from(want)), "{pos}");
            searched += 1;
        }
    }
    assert_eq!(searched, 6);
}

/// A directory holding the compact files of one kind of every sector of both games of
/// four pieces a side, and nothing else.
fn only(kind: Kind) -> tempfile::TempDir {
    let (_, compact) = sets();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ext = match kind {
        Kind::Wdl => "wdl",
        Kind::Dtm => "dtm",
    };
    for entry in std::fs::read_dir(compact).expect("readable") {
        let path = entry.expect("an entry").path();
        if path.extension().is_some_and(|e| e == ext) {
            let name = path.file_name().expect("a name");
            std::fs::copy(&path, dir.path().join(name)).expect("copied");
        }
    }
    dir
}

/// About `per_sector` positions of every sector of the raw set whose game is not
/// over: a label, the position, its stored value.
fn sample(raw: &Path, per_sector: usize) -> Vec<(String, Position, Value)> {
    let mut out = Vec::new();
    for (variant, sector, file) in raw_files(raw) {
        let values = file.values().expect("intact");
        let step = (values.len() / per_sector).max(1);
        for i in (0..values.len()).step_by(step) {
            let pos = position(variant, sector, file.index(), i as u64);
            if pos.end().is_none() {
                out.push((format!("{variant} {sector} {i}"), pos, Value(values[i])));
            }
        }
    }
    out
}

/// A search for the value alone takes a position's win, draw or loss from a `.wdl`
/// file without distances (a win scores at least as the longest win of its sector):
/// sampled positions of every sector of both games, and the empty boards of four
/// pieces a side, get the raw tables' value at once.
#[test]
fn a_search_for_the_value_alone_uses_win_draw_loss_files() {
    use morris_solver::{Limits, Provenance, Searcher};
    let (raw, _) = sets();
    let dir = only(Kind::Wdl);
    let tb = Tablebase::open(dir.path(), OpenOptions::default()).expect("opens");
    let raw_tb = Tablebase::open(raw, OpenOptions::default()).expect("opens");
    let limits = Limits {
        value_only: true,
        depth: Some(8),
        ..Limits::default()
    };
    let cases = sample(raw, 7);
    assert!(cases.len() > 300, "{}", cases.len());
    for (at, pos, stored) in cases {
        let want = stored.wdl();
        let mut searcher = Searcher::new(Some(&tb), 1).expect("a table");
        let r = searcher.search(&pos, limits, &[]).expect("searched");
        let got = r.value.expect("proven");
        assert_eq!(got.wdl, want, "{at}: {pos}");
        // (Distances only where every turn ends the game: a one-ply search finds
        // them without any file.)
        let sector = Tablebase::sector_id_of(&pos).expect("a sector");
        if !tb.derives(pos.rules(), sector) {
            assert_eq!(got.dtm, None, "{pos}");
        }
        // Read at the root, not searched.
        assert!(r.stats.nodes <= 1, "{at}: {pos}");
        if want == morris_tablebase::Wdl::Win {
            // With a move that keeps the win, by the raw tables.
            let m = r.best.expect("a winning move");
            let next = pos.play_unchecked(m);
            let lost = match next.end() {
                Some(end) => end.outcome() != morris_engine::Outcome::Win(next.side_to_move()),
                None => raw_tb
                    .value(&next)
                    .expect("good")
                    .is_some_and(|v| v.wdl() == morris_tablebase::Wdl::Loss),
            };
            assert!(lost, "{at}: {pos} {m}");
        }
        assert_eq!(r.provenance, Provenance::Tablebase, "{pos}");
    }
    for variant in [Rules::STANDARD, Rules::NO_FLYING] {
        let pos = morris_engine::notation::parse_position(
            ".../.../.../....../.../.../... w 4 4",
            variant,
        )
        .expect("a position");
        let value = |tb: &Tablebase| {
            let mut searcher = Searcher::new(Some(tb), 1).expect("a table");
            let r = searcher.search(&pos, limits, &[]).expect("searched");
            r.value.expect("proven").wdl
        };
        assert_eq!(value(&tb), value(&raw_tb), "{variant}");
    }
}

/// A set of compact DTM files alone answers the search as the raw set does: exact
/// values with distances, read from the tables, movement and placement sectors.
#[test]
fn a_search_reads_compact_dtm_files() {
    use morris_solver::{Limits, Searcher};
    let (raw, _) = sets();
    let dir = only(Kind::Dtm);
    let tb = Tablebase::open(dir.path(), OpenOptions::default()).expect("opens");
    let cases = sample(raw, 5);
    assert!(cases.len() > 300, "{}", cases.len());
    for (at, pos, stored) in cases {
        let mut searcher = Searcher::new(Some(&tb), 1).expect("a table");
        let r = searcher
            .search(&pos, Limits::default(), &[])
            .expect("searched");
        assert_eq!(
            r.value,
            Some(morris_solver::Verdict::from(stored)),
            "{at}: {pos}"
        );
        assert_eq!(r.stats.nodes, 0, "{at}: read, not searched");
    }
}
