//! Six Men's Morris movement-phase tablebases against the independent oracle of
//! `tests/movement_oracle` on the six board (its own 16 points, connections and mills
//! derived from the grid drawing, its own move generation, value iteration over
//! unreduced positions, sharing no code with the crates under test).
//!
//! Both games of the board are checked, `six-mens` (nobody flies) and
//! `six-mens,flying=yes` (a side with three pieces flies): every unreduced position of
//! every movement sector, value and DTM, against the files written by
//! `morris_builder::driver::generate_into`, read through `SectorIndex`, and a sample
//! again through `Tablebase::value`: the whole game, up to 6 a side (about 19 million
//! positions a game, some 20 s each in release mode).

mod movement_oracle;

use morris_builder::driver::{self, Reporter};
use morris_builder::Observer;
use morris_engine::{Board, Color, Position, Protection, Rules, Setup, Variant};
use morris_tablebase::{OpenOptions, Sector, SectorIndex, Tablebase};
use movement_oracle::{Geometry, Oracle};
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

struct Quiet;
impl Observer for Quiet {}
impl Reporter for Quiet {}

/// The oracle's variant for a six-board game: flying at three, or never.
fn variant_of(flying: bool) -> Variant {
    if flying {
        Variant::Standard
    } else {
        Variant::NoFlying
    }
}

/// The rules the oracle plays by, as the crates name them.
fn rules_of(oracle: &Oracle) -> Rules {
    assert_eq!(oracle.board, Board::Six);
    Rules::SIX_MENS
        .with_flying(oracle.variant.flying())
        .with_protection(oracle.protection)
}

fn describe(v: u16) -> String {
    match v {
        0 => "draw".into(),
        n if n % 2 == 0 => format!("win in {}", n - 1),
        n => format!("loss in {}", n - 1),
    }
}

fn choose(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// A set of the oracle's points by name.
fn set(g: &Geometry, names: &str) -> u32 {
    names
        .split_whitespace()
        .map(|n| 1u32 << g.names.iter().position(|x| *x == n).expect("a point"))
        .fold(0, |a, b| a | b)
}

/// What one sector's comparison saw.
#[derive(Debug, Default)]
struct Counts {
    positions: u64,
    wins: u64,
    losses: u64,
    draws: u64,
    longest: u16,
    probed: u64,
}

/// Compare every unreduced position of sector `(a, b)` with the generated file, value
/// and DTM, and every 61st again through `Tablebase::value` with either colour to
/// move. Every index of the file must be reached by some position.
fn compare(oracle: &Oracle, tb: &Tablebase, a: usize, b: usize) -> Counts {
    let g = &oracle.g;
    let rules = rules_of(oracle);
    let sector = Sector::new(a as u8, b as u8).expect("a sector");
    let stored = tb
        .file(rules, sector)
        .unwrap_or_else(|| panic!("{rules} {sector} was generated"))
        .values()
        .expect("the file is intact");
    let index = SectorIndex::get(Board::Six, a, b);
    assert_eq!(stored.len() as u64, index.size(), "{rules} {sector} size");
    let reached: Vec<AtomicBool> = (0..stored.len()).map(|_| AtomicBool::new(false)).collect();
    let table = oracle.table(a, b);
    let checked = AtomicU64::new(0);
    let probed = AtomicU64::new(0);
    let wrong = AtomicU64::new(0);
    let tally = Mutex::new(Counts::default());
    let examples = Mutex::new(Vec::new());
    table.for_each(g, |u, t| {
        let mine = u16::from(table.get(g, u, t));
        let (eu, et) = (g.engine(u), g.engine(t));
        let i = index.index(eu, et) as usize;
        let theirs = stored[i];
        reached[i].store(true, Relaxed);
        let n = checked.fetch_add(1, Relaxed);
        let probe = n.is_multiple_of(61).then(|| {
            probed.fetch_add(1, Relaxed);
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
            let pos = Position::from_setup(&setup, rules).expect("a valid position");
            tb.value(&pos)
                .expect("the file is intact")
                .expect("the sector is loaded")
                .0
        });
        {
            let mut c = tally.lock().unwrap_or_else(|e| e.into_inner());
            match mine {
                0 => c.draws += 1,
                v if v % 2 == 0 => c.wins += 1,
                _ => c.losses += 1,
            }
            c.longest = c.longest.max(mine.saturating_sub(1));
        }
        if theirs != mine || probe.is_some_and(|p| p != mine) {
            wrong.fetch_add(1, Relaxed);
            let mut ex = examples.lock().unwrap_or_else(|e| e.into_inner());
            if ex.len() < 5 {
                ex.push(format!(
                    "to move {} / opponent {}: oracle {}, tablebase {}, probe {:?}",
                    g.names(u),
                    g.names(t),
                    describe(mine),
                    describe(theirs),
                    probe.map(describe)
                ));
            }
        }
    });
    let checked = checked.into_inner();
    let wrong = wrong.into_inner();
    // Every position of the sector: the side to move's `a` points of 16, the
    // opponent's `b` of the rest.
    let expected = choose(16, a as u64) * choose(16 - a as u64, b as u64);
    assert!(checked > 0);
    assert_eq!(
        checked, expected,
        "every position of {rules} {sector} visited"
    );
    let mut counts = tally.into_inner().unwrap_or_else(|e| e.into_inner());
    assert_eq!(counts.wins + counts.losses + counts.draws, checked);
    assert!(
        reached.iter().all(|r| r.load(Relaxed)),
        "every index of {rules} {sector} reached"
    );
    assert_eq!(
        wrong,
        0,
        "{rules} {sector}: {wrong} positions disagree, e.g.\n{}",
        examples
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .join("\n")
    );
    counts.positions = checked;
    counts.probed = probed.into_inner();
    counts
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// Solve with the oracle, generate with the crate (on one thread, so that the test
/// checks values alone and gives the same answer every run), compare every sector
/// with both counts from 3 to `max`.
fn check(flying: bool, max: usize) {
    let clock = Instant::now();
    let mut oracle = Oracle::on_board(variant_of(flying), Protection::Standard, Board::Six);
    oracle.solve(max, max);
    let solved = clock.elapsed();
    let rules = rules_of(&oracle);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let target = Sector::new(max as u8, max as u8).expect("a sector");
    pool(1)
        .install(|| driver::generate_into(dir.path(), rules, &[target], &Quiet))
        .expect("generation succeeds");
    let tb = Tablebase::open(dir.path(), OpenOptions::default()).expect("the generated files open");
    let generated = clock.elapsed() - solved;
    let mut total = 0;
    for a in 3..=max {
        for b in 3..=max {
            let c = compare(&oracle, &tb, a, b);
            eprintln!(
                "{rules} {a}-{b}: {} positions agree ({} wins, {} losses, {} draws, longest DTM {}; {} probed)",
                c.positions, c.wins, c.losses, c.draws, c.longest, c.probed
            );
            total += c.positions;
        }
    }
    // The sum over the sectors of their unreduced positions.
    let expected: u64 = (3..=max as u64)
        .flat_map(|a| (3..=max as u64).map(move |b| choose(16, a) * choose(16 - a, b)))
        .sum();
    assert_eq!(total, expected);
    eprintln!(
        "{rules} up to {max}-{max}: {total} positions agree; oracle {:.1} s, crate {:.1} s, total {:.1} s",
        solved.as_secs_f64(),
        generated.as_secs_f64(),
        clock.elapsed().as_secs_f64()
    );
}

#[test]
fn six_geometry_is_the_board_of_the_rules() {
    let g = Geometry::six();
    assert_eq!(g.points, 16);
    assert_eq!(g.full, 0xFFFF);
    assert_eq!(
        g.names.join(" "),
        "a7 d7 g7 c5 d5 e5 a4 c4 e4 g4 c3 d3 e3 a1 d1 g1"
    );
    let connections: u32 = g.adjacent.iter().map(|a| a.count_ones()).sum::<u32>() / 2;
    assert_eq!(connections, 20);
    assert!(g.adjacent[16..].iter().all(|&a| a == 0));
    for (name, neighbours) in [
        ("a7", "d7 a4"),
        ("d7", "a7 g7 d5"),
        ("d5", "d7 c5 e5"),
        ("a4", "a7 c4 a1"),
        ("c4", "c5 a4 c3"),
        ("e4", "e5 g4 e3"),
        ("g4", "g7 e4 g1"),
        ("d3", "c3 e3 d1"),
        ("d1", "d3 a1 g1"),
        ("c3", "c4 d3"),
    ] {
        let p = g.names.iter().position(|n| *n == name).expect("a point");
        assert_eq!(g.names(g.adjacent[p]), neighbours, "neighbours of {name}");
    }
    // The mills are the eight sides of the two squares; the links (a4-c4, d7-d5,
    // g4-e4, d1-d3) are on none.
    let mill_names: HashSet<String> = g.mills.iter().map(|&m| g.names(m)).collect();
    let sides: HashSet<String> = [
        "a7 d7 g7", "a7 a4 a1", "g7 g4 g1", "a1 d1 g1", "c5 d5 e5", "c5 c4 c3", "e5 e4 e3",
        "c3 d3 e3",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(g.mills.len(), 8);
    assert_eq!(mill_names, sides);
    for link in ["a4 c4", "d7 d5", "e4 g4", "d3 d1"] {
        let l = set(&g, link);
        assert!(g.mills.iter().all(|&m| m & l != l), "{link} on no mill");
    }
    // The engine's bits of the 16 points are the six board's points.
    let engine: HashSet<u32> = (0..16).map(|p| g.to_engine.apply(1 << p)).collect();
    assert_eq!(engine.len(), 16);
    assert_eq!(
        g.engine(g.full),
        SectorIndex::get(Board::Six, 3, 3).points()
    );
    for (k, sets) in g.sets.iter().enumerate() {
        assert_eq!(sets.len() as u64, choose(16, k as u64));
        for (r, &s) in sets.iter().enumerate() {
            assert_eq!(s.count_ones() as usize, k);
            assert_eq!(s & !g.full, 0);
            assert_eq!(g.rank(s), r);
        }
    }
    // The 16 symmetries are distinct, map the 16 points onto themselves and keep
    // connections and mills.
    let distinct: HashSet<[usize; 24]> = g.symmetries.iter().copied().collect();
    assert_eq!(distinct.len(), 16);
    for (perm, map) in g.symmetries.iter().zip(&g.sym_maps) {
        assert_eq!(map.apply(g.full), g.full);
        let images: HashSet<usize> = perm[..16].iter().copied().collect();
        assert_eq!(images, (0..16).collect());
        for (p, &neighbours) in g.adjacent.iter().enumerate().take(16) {
            assert_eq!(map.apply(neighbours), g.adjacent[perm[p]]);
        }
        let images: HashSet<u32> = g.mills.iter().map(|&m| map.apply(m)).collect();
        assert_eq!(images, g.mills.iter().copied().collect());
    }
    // The nine board is unchanged.
    let nine = Geometry::on(Board::Nine);
    assert_eq!(nine.points, 24);
    assert_eq!(nine.mills.len(), 16);
    assert_eq!(Geometry::on(Board::Twelve).mills.len(), 20);
}

/// Hand-checked values, so that the six-board oracle itself can be seen to fail.
#[test]
fn six_oracle_gets_simple_positions_right() {
    let mut flying = Oracle::on_board(variant_of(true), Protection::Standard, Board::Six);
    flying.solve(3, 3);
    let mut sliding = Oracle::on_board(variant_of(false), Protection::Standard, Board::Six);
    sliding.solve(3, 3);
    let value = |o: &Oracle, u: &str, t: &str| {
        describe(u16::from(o.table(3, 3).get(
            &o.g,
            set(&o.g, u),
            set(&o.g, t),
        )))
    };
    // Flying into the gap of a7 . g7 closes a mill and takes a third piece.
    assert_eq!(value(&flying, "a7 g7 c3", "d5 e4 a1"), "win in 1");
    // Sliding, no move closes a mill at once.
    assert_ne!(value(&sliding, "a7 g7 c3", "d5 e4 a1"), "win in 1");
    // Sliding g4 up to g7 closes the top side.
    assert_eq!(value(&sliding, "a7 d7 g4", "c5 e3 d1"), "win in 1");
    // Sliding a4 along the link to c4 closes the inner left side.
    assert_eq!(value(&sliding, "c5 c3 a4", "d7 g1 e4"), "win in 1");
    // Every piece of the mover blocked (d7 has no neighbour above, d5 none below):
    // lost now when sliding.
    assert_eq!(value(&sliding, "a7 d7 g7", "a4 d5 g4"), "loss in 0");
    // Flying, the same pieces are never blocked.
    assert_ne!(value(&flying, "a7 d7 g7", "a4 d5 g4"), "loss in 0");
}

/// The whole game: every movement sector up to 6 a side.
#[test]
fn six_mens_tables_match_oracle_up_to_6_6() {
    check(false, 6);
}

/// The whole game with flying: every movement sector up to 6 a side.
#[test]
fn six_mens_flying_tables_match_oracle_up_to_6_6() {
    check(true, 6);
}
