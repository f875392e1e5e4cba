//! Two independent methods agree on the placing phase: the placement tables (solved
//! by a backward pass over the sectors) and the proof search over the movement tables
//! alone (placement files removed), on random positions of every placement sector of
//! the game of four pieces a side, value and distance (and of five, in a long check).

mod common;

use morris_engine::Board;

use common::Rng;
use morris_engine::{Position, Variant};
use morris_solver::{Limits, Provenance, Searcher};
use morris_tablebase::{OpenOptions, PlacementSector, SectorIndex, Tablebase};
use std::path::Path;

/// The game's position of entry `i` of placement sector `s`, in the colours a game
/// gives it.
fn position(variant: Variant, s: PlacementSector, i: u64) -> Position {
    let (us, them) =
        SectorIndex::get(Board::Nine, usize::from(s.us), usize::from(s.them)).position(i);
    let setup = s.game_setup(us, them);
    Position::from_setup(&setup, variant).expect("a sector entry is a position")
}

/// A copy of the movement files of `from` (names without hands) in `to`.
fn movement_only(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).expect("a directory") {
        let entry = entry.expect("an entry");
        let name = entry.file_name().to_string_lossy().to_string();
        if name.ends_with(".tb") && !name.contains('+') {
            std::fs::copy(entry.path(), to.join(&name)).expect("copied");
        }
    }
}

/// Compare random positions of every placement sector of the game of `max` pieces a
/// side, `near` of each sector with at most `hands` pieces in hand (the search is
/// quick there), `far` of the others; `compared` at least.
fn compare(max: u8, hands: u8, near: usize, far: usize, at_least: usize) {
    let full = tempfile::tempdir().expect("a temporary directory");
    let dir = full.path().to_str().expect("UTF-8");
    let pieces = max.to_string();
    common::ok(&[
        "generate",
        "--max-pieces",
        &pieces,
        "--variant",
        "both",
        "--tb",
        dir,
    ]);
    let movement = tempfile::tempdir().expect("a temporary directory");
    movement_only(full.path(), movement.path());
    let tables = Tablebase::open(full.path(), OpenOptions::default()).expect("the tables");
    let moves_only =
        Tablebase::open(movement.path(), OpenOptions::default()).expect("the movement tables");
    assert_eq!(moves_only.placement_sectors().count(), 0);
    let mut rng = Rng::new(10);
    let mut compared = 0;
    for variant in Variant::ALL {
        let mut searcher = Searcher::new(Some(&moves_only), 64).expect("a table");
        for sector in PlacementSector::all(max) {
            // The empty board and its neighbours take the search longest: a few of each
            // sector, more of the sectors close to the movement phase.
            let samples = if sector.us_hand + sector.them_hand <= hands {
                near
            } else {
                far
            };
            for _ in 0..samples {
                let i = rng.next() % sector.size(Board::Nine);
                let pos = position(variant, sector, i);
                let stored = tables
                    .value(&pos)
                    .expect("good files")
                    .unwrap_or_else(|| panic!("{variant} {sector} entry {i} is not in the tables"));
                let found = searcher
                    .search(&pos, Limits::default(), &[])
                    .expect("a search over good files");
                assert!(
                    matches!(found.provenance, Provenance::Proof | Provenance::Terminal),
                    "{variant} {sector} entry {i}: {:?}",
                    found.provenance
                );
                let verdict = found.value.expect("an exact value");
                assert_eq!(
                    (verdict.wdl, verdict.dtm),
                    (stored.wdl(), stored.dtm()),
                    "{variant} {sector} entry {i}: the search and the tables disagree"
                );
                compared += 1;
            }
        }
    }
    assert!(compared >= at_least, "{compared}");
}

#[test]
fn placement_tables_agree_with_the_proof_search_over_movement_tables() {
    compare(4, 4, 6, 2, 400);
}

#[test]
#[ignore = "long: generates the game of five pieces a side (both games, about 2 x 60 M positions) and searches placement positions of it; run with --ignored"]
fn placement_tables_of_five_pieces_agree_with_the_proof_search() {
    compare(5, 4, 3, 0, 300);
}
