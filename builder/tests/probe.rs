//! Files the builder writes, read back through the reading crate's one probe: the
//! answer's value, the most plies it can take, and the file that answered, raw or
//! compact, movement or placement.

use morris_engine::Board;

use morris_builder::pack::pack_sector;
use morris_builder::placement::solve_game;
use morris_builder::write::write_sector;
use morris_builder::{solve_pair, Silent};
use morris_engine::{Bitboard, Color, Position, Setup, Variant};
use morris_tablebase::compact::{compact_name, Kind};
use morris_tablebase::file::file_name;
use morris_tablebase::{OpenOptions, Sector, SectorFile, SectorIndex, Tablebase, Value, Wdl};
use std::path::Path;

fn tablebase(dir: &Path) -> Tablebase {
    Tablebase::open(dir, OpenOptions::default()).expect("good files")
}

/// Every position of every placement sector of the games of up to three pieces a
/// side, probed from files, in the colours a game gives it, answers the value the
/// placement solver computed, named by its placement file; hands no game produces are
/// not answered.
#[test]
fn probe_answers_placement_positions_as_solved() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let variant = Variant::NoFlying;
    let three = Sector::new(3, 3).expect("a sector");
    let (_, movement) = solve_pair(variant, three, &|_| None, &Silent)
        .expect("solved")
        .remove(0);
    write_sector(dir.path(), variant, three, &movement).expect("written");
    let lookup = |s: Sector| (s == three).then_some(movement.as_slice());
    let game = solve_game(variant, 3, &lookup, &Silent).expect("solved");
    for (sector, values) in &game {
        write_sector(dir.path(), variant, *sector, values).expect("written");
    }
    let tb = tablebase(dir.path());
    assert_eq!(tb.placement_sectors().count(), game.len());
    let mut probed = 0;
    for (sector, values) in &game {
        let file = dir.path().join(file_name(variant, *sector));
        let index = SectorIndex::get(
            Board::Nine,
            usize::from(sector.us),
            usize::from(sector.them),
        );
        for (i, &raw) in values.iter().enumerate() {
            let (us, them) = index.position(i as u64);
            let setup = sector.game_setup(us, them);
            let pos = Position::from_setup(&setup, variant).expect("a position");
            let probe = tb.probe(&pos).expect("a good file").expect("covered");
            assert_eq!(probe.value, Value(raw), "{sector} entry {i}");
            assert_eq!(probe.longest, Value(raw).dtm(), "{sector} entry {i}");
            assert_eq!(probe.file, file, "{sector} entry {i}");
            probed += 1;
        }
    }
    assert!(probed > 1000, "{probed}");
    let odd = Setup {
        pieces: [Bitboard::EMPTY, Bitboard::EMPTY],
        hand: [1, 3],
        side_to_move: Color::White,
    };
    let odd = Position::from_setup(&odd, variant).expect("a position");
    assert_eq!(tb.probe(&odd).expect("no file read"), None);
}

/// A sector answers from its raw file when there is one, else from its `.dtm` file,
/// else from its `.wdl` file, whose decided values are bounded by the longest win
/// and loss of its header; each answer names the file it came from.
#[test]
fn the_answer_names_the_file_and_bounds_a_value_without_distance() {
    let raw_dir = tempfile::tempdir().expect("a temporary directory");
    let variant = Variant::Standard;
    let three = Sector::new(3, 3).expect("a sector");
    let (_, values) = solve_pair(variant, three, &|_| None, &Silent)
        .expect("solved")
        .remove(0);
    let header = write_sector(raw_dir.path(), variant, three, &values).expect("written");
    let raw_path = raw_dir.path().join(file_name(variant, three));
    let raw = SectorFile::open(&raw_path, variant, three).expect("opens");
    let wdl_dir = tempfile::tempdir().expect("a temporary directory");
    let dtm_dir = tempfile::tempdir().expect("a temporary directory");
    pack_sector(&raw, wdl_dir.path(), Kind::Wdl, 3).expect("packed");
    for kind in Kind::ALL {
        pack_sector(&raw, dtm_dir.path(), kind, 3).expect("packed");
        pack_sector(&raw, raw_dir.path(), kind, 3).expect("packed");
    }
    let index = SectorIndex::get(Board::Nine, 3, 3);
    let [win, loss, draw] = [Wdl::Win, Wdl::Loss, Wdl::Draw].map(|wdl| {
        values
            .iter()
            .position(|&v| Value(v).wdl() == wdl)
            .expect("every result occurs")
    });
    let position = |i: usize| {
        let (us, them) = index.position(i as u64);
        let setup = Setup {
            pieces: [us, them],
            hand: [0, 0],
            side_to_move: Color::White,
        };
        Position::from_setup(&setup, variant).expect("a position")
    };
    let exact = [
        (raw_dir.path(), raw_path.clone()),
        (
            dtm_dir.path(),
            dtm_dir.path().join(compact_name(variant, three, Kind::Dtm)),
        ),
    ];
    for (dir, answering) in exact {
        let tb = tablebase(dir);
        for i in [win, loss, draw] {
            let probe = tb.probe(&position(i)).expect("good").expect("covered");
            assert_eq!(probe.value, Value(values[i]));
            assert_eq!(probe.longest, Value(values[i]).dtm());
            assert_eq!(probe.file, answering);
        }
    }
    let tb = tablebase(wdl_dir.path());
    let wdl_path = wdl_dir.path().join(compact_name(variant, three, Kind::Wdl));
    let stats = header.stats;
    for (i, wdl, longest) in [
        (win, Wdl::Win, Some(stats.longest_win)),
        (loss, Wdl::Loss, Some(stats.longest_loss)),
        (draw, Wdl::Draw, None),
    ] {
        let probe = tb.probe(&position(i)).expect("good").expect("covered");
        assert_eq!(probe.value, Value::wdl_only(wdl));
        assert_eq!(probe.longest, longest);
        assert_eq!(probe.file, wdl_path);
        assert_eq!(tb.value(&position(i)).expect("good"), Some(probe.value));
    }
    assert!(stats.longest_win > 0 && stats.longest_loss > 0);
}
