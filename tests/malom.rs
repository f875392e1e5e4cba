//! `morris malom`: damaged, truncated and foreign Malom files are refused by name;
//! with Malom's files in `../shared/malom` (ignored tests), the movement sectors 3-3
//! and 4-3 agree with ours in full, distances included.

mod common;

use common::{fails, ok, refused};
use std::path::Path;

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

const SECVAL: &str = "virt_loss_val: -299\nvirt_win_val: 299\n2\n3 3 0 0  0\n4 3 0 0  -40\n";

/// A Malom directory with `std.secval` and the given files.
fn malom_dir(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("std.secval"), SECVAL).expect("written");
    for (name, bytes) in files {
        std::fs::write(dir.path().join(name), bytes).expect("written");
    }
    dir
}

/// The header of a Malom ultra-strong sector file.
fn header() -> Vec<u8> {
    let mut h = vec![0u8; 64];
    h[0] = 2;
    h[4] = 3;
    h[8] = 12;
    h
}

#[test]
fn damaged_and_foreign_malom_files_are_named_and_refused() {
    let tb = tempfile::tempdir().expect("a temporary directory");
    ok(&["generate", "--sector", "3-3", "--tb", path(tb.path())]);
    let tb = path(tb.path());

    // Truncated: a header and a few entries of a sector of 210,140.
    let mut short = header();
    short.extend_from_slice(&[0x2b, 0x11, 0x00, 0, 0, 0, 0]);
    let m = malom_dir(&[("std_3_3_0_0.sec2", &short)]);
    let (_, err) = fails(&["malom", "compare", "--malom", path(m.path()), "--tb", tb]);
    assert!(
        err.contains("std_3_3_0_0.sec2") && err.contains("truncated"),
        "{err}"
    );

    // The right length with a foreign header (Malom's non-ultra format has none).
    let mut foreign = vec![0u8; 64 + 3 * 210_140 + 4];
    foreign[0] = 1;
    let m = malom_dir(&[("std_3_3_0_0.sec2", &foreign)]);
    let (_, err) = fails(&["malom", "compare", "--malom", path(m.path()), "--tb", tb]);
    assert!(
        err.contains("std_3_3_0_0.sec2") && err.contains("header"),
        "{err}"
    );

    // All zeros after a good header: every entry reads as a draw of this sector, but
    // the entries of symmetric copies must name a symmetry, so it is caught.
    let mut zeros = header();
    zeros.resize(64 + 3 * 210_140 + 4, 0);
    let m = malom_dir(&[("std_3_3_0_0.sec2", &zeros)]);
    let (_, err) = fails(&["malom", "compare", "--malom", path(m.path()), "--tb", tb]);
    assert!(
        err.contains("std_3_3_0_0.sec2") && err.contains("damaged"),
        "{err}"
    );

    // A .sec2 file whose name is no Standard sector.
    let m = malom_dir(&[("mora_3_3_0_0.sec2", &short)]);
    let (_, err) = fails(&["malom", "compare", "--malom", path(m.path()), "--tb", tb]);
    assert!(
        err.contains("mora_3_3_0_0.sec2") && err.contains("not a Malom"),
        "{err}"
    );

    // No sector files; no value file; a sector that is not there.
    let m = malom_dir(&[]);
    let err = refused(&["malom", "compare", "--malom", path(m.path()), "--tb", tb]);
    assert!(err.contains("no Malom sector file"), "{err}");
    std::fs::remove_file(m.path().join("std.secval")).expect("removed");
    let (_, err) = fails(&["malom", "compare", "--malom", path(m.path()), "--tb", tb]);
    assert!(err.contains("std.secval"), "{err}");
    let m = malom_dir(&[("std_3_3_0_0.sec2", &short)]);
    let err = refused(&[
        "malom",
        "compare",
        "--malom",
        path(m.path()),
        "--tb",
        tb,
        "--sector",
        "4-3",
    ]);
    assert!(err.contains("std_4_3_0_0.sec2"), "{err}");
    let err = refused(&[
        "malom",
        "compare",
        "--malom",
        path(m.path()),
        "--tb",
        tb,
        "--sector",
        "x",
    ]);
    assert!(err.contains("--sector x"), "{err}");

    // A sector we have no table for is skipped by name; none left is a failure.
    let m = malom_dir(&[("std_4_3_0_0.sec2", &short)]);
    let (out, err) = fails(&["malom", "compare", "--malom", path(m.path()), "--tb", tb]);
    assert!(out.contains("4-3 (std_4_3_0_0.sec2): skipped"), "{out}");
    assert!(err.contains("no sector compared"), "{err}");
}

fn shared_malom() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/malom")
}

#[test]
#[ignore = "reads Malom's files in ../shared/malom"]
fn malom_movement_sectors_3_3_and_4_3_agree_in_full() {
    let tb = tempfile::tempdir().expect("a temporary directory");
    ok(&["generate", "--sector", "4-3", "--tb", path(tb.path())]);
    let malom = shared_malom();
    let out = ok(&[
        "malom",
        "compare",
        "--malom",
        path(&malom),
        "--tb",
        path(tb.path()),
        "--sector",
        "3-3",
        "--sector",
        "std_4_3_0_0",
    ]);
    assert!(
        out.contains("3-3 (std_3_3_0_0.sec2): 169626 positions, 169626 agree (140621 wins, 269 draws, 28736 losses), 0 differ; depth = DTM for 169357 of 169357 decided"),
        "{out}"
    );
    assert!(
        out.contains("4-3 (std_4_3_0_0.sec2): 760398 positions, 760398 agree (75397 wins, 681906 draws, 3095 losses), 0 differ; depth = DTM for 78492 of 78492 decided"),
        "{out}"
    );
    // Malom's ultra-strong keys against our draw classes: every 3-3 draw settles in a
    // sector of equal material, every 4-3 draw stays in its pair, in both solutions.
    assert!(
        out.contains("  draws: our stay class of Malom's settling sector = our class for 269 of 269 draws compared (settling in equal material: 269)\n"),
        "{out}"
    );
    assert!(
        out.contains("  draws: our stay class of Malom's settling sector = our class for 681906 of 681906 draws compared (settling in 4-3: 681906)\n"),
        "{out}"
    );
    assert!(
        out.contains("sector ranking: 3 movement sectors with our values; of their pairs, Malom's values and our stay classes order 3 alike, 0 the other way, 0 tied in one"),
        "{out}"
    );
    assert_eq!(out.lines().count(), 6, "{out}");

    // One position: Malom's entry and ours.
    let fen = "WB./W../.../.....W/.../.../BB. w 0 0";
    let theirs = ok(&["malom", "probe", "--malom", path(&malom), "--fen", fen]);
    assert_eq!(
        theirs.trim(),
        "win (depth 25) for white to move (Malom std_3_3_0_0)"
    );
    let ours = ok(&["probe", "--tb", path(tb.path()), "--fen", fen]);
    assert!(ours.contains("DTM 25 plies"), "{ours}");
}
