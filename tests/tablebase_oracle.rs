//! The movement-phase tablebases against an independent oracle
//! (`tests/movement_oracle`, its own board, move generation and value iteration over
//! unreduced positions, sharing no code with the crates under test).
//!
//! Every unreduced position of every sector is compared, value and DTM, with the file
//! written by `morris_builder::driver::generate`, through `SectorIndex`, and a
//! sample of them again through `Tablebase::probe`.

mod movement_oracle;

use morris_builder::driver::{self, Reporter};
use morris_builder::Observer;
use morris_engine::{Bitboard, Board, Color, Position, Protection, Rules, Setup, Variant};
use morris_tablebase::{OpenOptions, Sector, SectorIndex, Tablebase};
use movement_oracle::{Geometry, Oracle, FULL, NAMES};
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

struct Quiet;
impl Observer for Quiet {}
impl Reporter for Quiet {}

/// Generate the tablebase for `target` (and what it needs) into a temporary directory.
/// The generation runs on its own pool of `threads` threads.
fn crate_tablebase(
    variant: impl Into<Rules> + Send,
    target: Sector,
    threads: usize,
) -> (tempfile::TempDir, Tablebase) {
    let dir = tempfile::tempdir().expect("temporary directory");
    pool(threads)
        .install(|| driver::generate_into(dir.path(), variant, &[target], &Quiet))
        .expect("generation succeeds");
    let tb = Tablebase::open(dir.path(), OpenOptions::default()).expect("the generated files open");
    (dir, tb)
}

fn describe(v: u16) -> String {
    match v {
        0 => "draw".into(),
        n if n % 2 == 0 => format!("win in {}", n - 1),
        n => format!("loss in {}", n - 1),
    }
}

/// Compare every unreduced position of sector `(a, b)` with the tablebase, value and
/// DTM, and every 61st again through `Tablebase::probe` with either colour to move.
/// The rules the oracle plays by, as the crates name them.
fn rules_of(oracle: &Oracle) -> Rules {
    oracle
        .variant
        .rules()
        .with_protection(oracle.protection)
        .with_board(oracle.board)
}

fn compare(oracle: &Oracle, tb: &Tablebase, a: usize, b: usize) {
    let sector = Sector::new(a as u8, b as u8).expect("a sector");
    let stored = tb
        .file(rules_of(oracle), sector)
        .unwrap_or_else(|| panic!("{} {sector} was generated", rules_of(oracle)))
        .values()
        .expect("the file is intact");
    compare_values(oracle, sector, &stored, Some(tb));
}

/// Compare every unreduced position of `sector` with `stored` (in index order), and
/// a sample through `tb` if given.
fn compare_values(oracle: &Oracle, sector: Sector, stored: &[u16], tb: Option<&Tablebase>) {
    let g = &oracle.g;
    let (a, b) = (usize::from(sector.us), usize::from(sector.them));
    let index = SectorIndex::get(Board::Nine, a, b);
    let table = oracle.table(a, b);
    let checked = AtomicU64::new(0);
    let wrong = AtomicU64::new(0);
    let example = Mutex::new(None);
    table.for_each(g, |u, t| {
        let mine = u16::from(table.get(g, u, t));
        let (eu, et) = (g.engine(u), g.engine(t));
        let theirs = stored[index.index(eu, et) as usize];
        let n = checked.fetch_add(1, Relaxed);
        let probed = tb.filter(|_| n.is_multiple_of(61)).map(|tb| {
            let side = if n.is_multiple_of(2) {
                Color::White
            } else {
                Color::Black
            };
            let mut pieces = [eu, et];
            if side == Color::Black {
                pieces.swap(0, 1);
            }
            let setup = Setup {
                pieces,
                hand: [0, 0],
                side_to_move: side,
            };
            let pos = Position::from_setup(&setup, rules_of(oracle)).expect("a valid position");
            tb.value(&pos)
                .expect("the file is intact")
                .expect("the sector is loaded")
                .0
        });
        if theirs != mine || probed.is_some_and(|p| p != mine) {
            wrong.fetch_add(1, Relaxed);
            let mut ex = example.lock().unwrap_or_else(|e| e.into_inner());
            if ex.is_none() {
                *ex = Some(format!(
                    "to move {} / opponent {}: oracle {}, tablebase {}, probe {:?}",
                    g.names(u),
                    g.names(t),
                    describe(mine),
                    describe(theirs),
                    probed.map(describe)
                ));
            }
        }
    });
    let wrong = wrong.into_inner();
    let choose = |n: u64, k: u64| (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1));
    assert_eq!(
        checked.into_inner(),
        choose(24, a as u64) * choose(24 - a as u64, b as u64),
        "every position of {sector} visited"
    );
    assert_eq!(
        wrong,
        0,
        "{} {sector}: {wrong} positions disagree, e.g. {}",
        rules_of(oracle),
        example.into_inner().unwrap_or_default().unwrap_or_default()
    );
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// Solve with the oracle, generate with the crate, compare every sector.
///
/// The crate generates on one thread, so that these tests check values alone and give
/// the same answer every run; `generation_is_exact_under_thread_contention` checks
/// that parallel generation gives the same values.
fn check_against_tablebase(variant: Variant, target: (usize, usize), sectors: &[(usize, usize)]) {
    check_under(variant, Protection::Standard, target, sectors);
}

/// [`check_against_tablebase`] under a protection rule (the capture count does not
/// matter in the movement phase: no slide closes two mills, and a flying side has
/// three pieces).
fn check_under(
    variant: Variant,
    protection: Protection,
    target: (usize, usize),
    sectors: &[(usize, usize)],
) {
    check_on(Board::Nine, variant, protection, target, sectors);
}

/// [`check_under`] on a board (nine or twelve; on the twelve board a slide can close
/// two mills, and takes one piece).
fn check_on(
    board: Board,
    variant: Variant,
    protection: Protection,
    target: (usize, usize),
    sectors: &[(usize, usize)],
) {
    let clock = Instant::now();
    let mut oracle = Oracle::on_board(variant, protection, board);
    oracle.solve(target.0, target.1);
    let solved = clock.elapsed();
    let (_dir, tb) = crate_tablebase(
        rules_of(&oracle),
        Sector::new(target.0 as u8, target.1 as u8).expect("a sector"),
        1,
    );
    let generated = clock.elapsed() - solved;
    for &(a, b) in sectors {
        compare(&oracle, &tb, a, b);
    }
    eprintln!(
        "{variant} on the {board} board (protection {}) up to {}-{}: oracle {:.1} s, crate {:.1} s, total {:.1} s",
        protection.name(),
        target.0,
        target.1,
        solved.as_secs_f64(),
        generated.as_secs_f64(),
        clock.elapsed().as_secs_f64()
    );
}

#[test]
fn geometry_is_the_board_of_the_rules() {
    let g = Geometry::new();
    let connections: u32 = g.adjacent.iter().map(|a| a.count_ones()).sum::<u32>() / 2;
    assert_eq!(connections, 32);
    assert_eq!(g.mills.len(), 16);
    assert_eq!(g.mills.iter().collect::<HashSet<_>>().len(), 16);
    assert!((0..24).all(|p| g.mills.iter().filter(|&&m| m & 1 << p != 0).count() == 2));
    for (name, neighbours) in [
        ("a7", "d7 a4"),
        ("d6", "d7 b6 f6 d5"),
        ("c4", "c5 b4 c3"),
        ("d3", "c3 e3 d2"),
    ] {
        let p = NAMES.iter().position(|n| *n == name).expect("a point");
        assert_eq!(g.names(g.adjacent[p]), neighbours, "neighbours of {name}");
    }
    let mill_names: HashSet<String> = g.mills.iter().map(|&m| g.names(m)).collect();
    for mill in [
        "a7 d7 g7", "a7 a4 a1", "a4 b4 c4", "d7 d6 d5", "d3 d2 d1", "c5 c4 c3",
    ] {
        assert!(mill_names.contains(mill), "{mill} is a mill");
    }
    let engine: HashSet<u32> = (0..24).map(|p| g.to_engine.apply(1 << p)).collect();
    assert_eq!(engine.len(), 24);
    assert_eq!(g.to_engine.apply(FULL), Bitboard::FULL.bits());
    for (k, sets) in g.sets.iter().enumerate() {
        for (r, &s) in sets.iter().enumerate() {
            assert_eq!(s.count_ones() as usize, k);
            assert_eq!(g.rank(s), r);
        }
    }
    assert_eq!(g.sets[3].len(), 2024);
    // The 16 symmetries are distinct and keep connections and mills.
    let distinct: HashSet<[usize; 24]> = g.symmetries.iter().copied().collect();
    assert_eq!(distinct.len(), 16);
    for (perm, map) in g.symmetries.iter().zip(&g.sym_maps) {
        for (p, &neighbours) in g.adjacent.iter().enumerate() {
            assert_eq!(map.apply(neighbours), g.adjacent[perm[p]]);
        }
        let images: HashSet<u32> = g.mills.iter().map(|&m| map.apply(m)).collect();
        assert_eq!(images, g.mills.iter().copied().collect());
    }
}

/// Hand-checked values, so that the oracle itself can be seen to fail.
#[test]
fn oracle_gets_simple_positions_right() {
    let g = Geometry::new();
    let set = |names: &str| {
        names
            .split_whitespace()
            .map(|n| 1u32 << NAMES.iter().position(|x| *x == n).expect("a point"))
            .fold(0, |a, b| a | b)
    };
    let mut standard = Oracle::new(Variant::Standard);
    standard.solve(3, 3);
    let mut no_flying = Oracle::new(Variant::NoFlying);
    no_flying.solve(3, 3);
    let value =
        |o: &Oracle, u: &str, t: &str| describe(u16::from(o.table(3, 3).get(&g, set(u), set(t))));
    // Flying into the gap of a7 . g7 closes a mill and takes a third piece.
    assert_eq!(value(&standard, "a7 g7 c3", "d6 f4 b2"), "win in 1");
    // Sliding, no move closes a mill at once.
    assert_ne!(value(&no_flying, "a7 g7 c3", "d6 f4 b2"), "win in 1");
    // Every piece of the mover blocked (No flying): lost now.
    assert_eq!(value(&no_flying, "a7 d7 g7", "a4 d6 g4"), "loss in 0");
    // Flying, the same pieces are never blocked.
    assert_ne!(value(&standard, "a7 d7 g7", "a4 d6 g4"), "loss in 0");
    // The opponent threatens two mills (holes g1 and a7), the mover can block only
    // one and close none.
    assert_eq!(value(&standard, "d6 e4 c3", "d1 a1 a4"), "loss in 2");
}

#[test]
fn oracle_reproduces_the_published_standard_3_3_counts() {
    let mut oracle = Oracle::new(Variant::Standard);
    oracle.solve(3, 3);
    let g = &oracle.g;
    let table = oracle.table(3, 3);
    let counts = Mutex::new((0u64, 0u64, 0u64, 0u8, 0u64));
    table.for_each(g, |u, t| {
        let v = table.get(g, u, t);
        let mut least = (u, t);
        for map in &g.sym_maps {
            let image = (map.apply(u), map.apply(t));
            assert_eq!(table.get(g, image.0, image.1), v, "values are symmetric");
            least = least.min(image);
        }
        if least != (u, t) {
            return;
        }
        let mut c = counts.lock().unwrap_or_else(|e| e.into_inner());
        match v {
            0 => c.2 += 1,
            n if n % 2 == 0 => c.0 += 1,
            n => {
                c.1 += 1;
                c.3 = c.3.max(n - 1);
            }
        }
        c.4 += 1;
    });
    let (wins, losses, draws, longest_loss, orbits) =
        counts.into_inner().unwrap_or_else(|e| e.into_inner());
    assert_eq!((wins, losses, draws), (140_621, 28_736, 269));
    assert_eq!(longest_loss, 26);
    assert_eq!(orbits, SectorIndex::get(Board::Nine, 3, 3).size());
}

/// The generator's parallel propagation must not depend on how its threads
/// interleave: solve the self-mirrored sector 3-3 (where a level's counter updates
/// and its confirmations of wins hit the same array) many times, and everything up to
/// 4-3 once, on far more threads than cores, and compare every run with the oracle.
#[test]
fn generation_is_exact_under_thread_contention() {
    let contended = pool(16);
    let sector = Sector::new(3, 3).expect("a sector");
    for variant in Variant::ALL {
        let mut oracle = Oracle::new(variant);
        oracle.solve(3, 4);
        for _ in 0..8 {
            let solved = contended
                .install(|| morris_builder::solve_pair(variant, sector, &|_| None, &Quiet))
                .expect("3-3 solves");
            compare_values(&oracle, sector, &solved[0].1, None);
        }
        let (_dir, tb) = crate_tablebase(variant, Sector::new(3, 4).expect("a sector"), 16);
        for (a, b) in [(3, 3), (3, 4), (4, 3)] {
            compare(&oracle, &tb, a, b);
        }
    }
}

#[test]
fn tablebase_matches_oracle_standard_up_to_4_3() {
    check_against_tablebase(Variant::Standard, (3, 4), &[(3, 3), (3, 4), (4, 3)]);
}

#[test]
fn tablebase_matches_oracle_no_flying_up_to_4_3() {
    check_against_tablebase(Variant::NoFlying, (3, 4), &[(3, 3), (3, 4), (4, 3)]);
}

#[test]
#[ignore = "about 51 million positions a sweep; run with --ignored in --release"]
fn tablebase_matches_oracle_standard_up_to_4_4() {
    check_against_tablebase(Variant::Standard, (4, 4), &[(3, 3), (3, 4), (4, 3), (4, 4)]);
}

#[test]
#[ignore = "about 51 million positions a sweep; run with --ignored in --release"]
fn tablebase_matches_oracle_no_flying_up_to_4_4() {
    check_against_tablebase(Variant::NoFlying, (4, 4), &[(3, 3), (3, 4), (4, 3), (4, 4)]);
}

#[test]
fn tablebase_matches_oracle_under_full_and_no_protection_up_to_4_3() {
    for variant in Variant::ALL {
        for protection in [Protection::None, Protection::Full] {
            check_under(variant, protection, (3, 4), &[(3, 3), (3, 4), (4, 3)]);
        }
    }
}

#[test]
#[ignore = "about 51 million positions a sweep; run with --ignored in --release"]
fn tablebase_matches_oracle_under_full_and_no_protection_up_to_4_4() {
    for variant in Variant::ALL {
        for protection in [Protection::None, Protection::Full] {
            check_under(
                variant,
                protection,
                (4, 4),
                &[(3, 3), (3, 4), (4, 3), (4, 4)],
            );
        }
    }
}

#[test]
fn twelve_board_tablebase_matches_oracle_up_to_4_3() {
    for variant in Variant::ALL {
        for protection in [Protection::Standard, Protection::None, Protection::Full] {
            check_on(
                Board::Twelve,
                variant,
                protection,
                (3, 4),
                &[(3, 3), (3, 4), (4, 3)],
            );
        }
    }
}

#[test]
#[ignore = "about 51 million positions a sweep; run with --ignored in --release"]
fn twelve_board_tablebase_matches_oracle_up_to_4_4() {
    for variant in Variant::ALL {
        for protection in [Protection::Standard, Protection::None, Protection::Full] {
            check_on(
                Board::Twelve,
                variant,
                protection,
                (4, 4),
                &[(3, 3), (3, 4), (4, 3), (4, 4)],
            );
        }
    }
}
