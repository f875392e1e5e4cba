//! Draw classes against a naive computation of their definition, on small complete
//! games (No-flying with four pieces a side, Standard with three; the Standard game of
//! four and both of five with `--ignored`); their check by
//! `verify_classes`; damaged and stale class files refused.
//!
//! The oracle shares only the engine's moves, the index and the value tables with the
//! builder. It finds every class by its definition: for each threshold `t` and each
//! pair (smallest material first), the positions where the side to move can make the
//! game settle in a pair worth at least `t` to it, by plain fixpoint iteration (a
//! pair worth `t` or more: the greatest set where that side can stay or leave for a
//! winning position; a pair worth less: the least set from which it can force such a
//! departure), and a placement position's class by plain recursion.

use morris_engine::Board;

use morris_builder::classes::{self, ClassError, Store};
use morris_builder::driver::generate_game_into;
use morris_builder::Silent;
use morris_engine::{Color, Position, Setup, Variant};
use morris_tablebase::{
    OpenOptions, PlacementSector, Sector, SectorId, SectorIndex, Tablebase, Wdl,
};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("morris-classes-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn movement_position(variant: Variant, sector: Sector, i: u64) -> Position {
    let (us, them) =
        SectorIndex::get(Board::Nine, sector.us.into(), sector.them.into()).position(i);
    let setup = Setup {
        pieces: [us, them],
        hand: [0, 0],
        side_to_move: Color::White,
    };
    Position::from_setup(&setup, variant).unwrap()
}

fn is_draw(tb: &Tablebase, pos: &Position) -> bool {
    pos.end().is_none() && tb.value(pos).unwrap().unwrap().wdl() == Wdl::Draw
}

/// The stay class of `X-Y`, from the values themselves (not the headers' counts).
fn stay(tb: &Tablebase, variant: Variant, s: Sector) -> i8 {
    let score = |sector: Sector| -> (f64, f64) {
        let index = SectorIndex::get(Board::Nine, sector.us.into(), sector.them.into());
        // Halves add up exactly in any order.
        let points: f64 = (0..index.size())
            .into_par_iter()
            .map(|i| {
                let pos = movement_position(variant, sector, i);
                match tb.value(&pos).unwrap().unwrap().wdl() {
                    Wdl::Win => 1.0,
                    Wdl::Draw => 0.5,
                    Wdl::Loss => 0.0,
                }
            })
            .sum();
        (points, index.size() as f64)
    };
    let (own, n) = score(s);
    let (theirs, m) = score(s.swapped());
    let e = (own + (m - theirs)) / (n + m);
    (100.0 * (2.0 * e - 1.0)).round() as i8
}

/// The drawn movement positions of a game, numbered densely: sector after sector (in
/// the order of `sectors`, where the two sectors of a pair are neighbours), in index
/// order within each. Each sector's draws are a bitmap with the count of draws before
/// each word, 12 bytes per 64 positions instead of a hash map entry per draw.
struct Draws {
    /// Each sector's place in the lists below.
    slots: HashMap<Sector, usize>,
    bits: Vec<Vec<u64>>,
    before: Vec<Vec<u32>>,
    /// The draws before each sector, then their total.
    base: Vec<u32>,
}

impl Draws {
    fn new(tb: &Tablebase, variant: Variant, sectors: &[Sector]) -> Draws {
        let mut bits = Vec::new();
        let mut before = Vec::new();
        let mut base = vec![0u32];
        for &s in sectors {
            let size = SectorIndex::get(Board::Nine, s.us.into(), s.them.into()).size();
            let words: Vec<u64> = (0..size.div_ceil(64))
                .into_par_iter()
                .map(|w| {
                    (w * 64..(w * 64 + 64).min(size))
                        .filter(|&i| is_draw(tb, &movement_position(variant, s, i)))
                        .fold(0u64, |word, i| word | 1 << (i % 64))
                })
                .collect();
            let mut count = 0u32;
            before.push(
                words
                    .iter()
                    .map(|w| {
                        let b = count;
                        count += w.count_ones();
                        b
                    })
                    .collect(),
            );
            bits.push(words);
            base.push(base.last().unwrap() + count);
        }
        Draws {
            slots: sectors.iter().enumerate().map(|(k, &s)| (s, k)).collect(),
            bits,
            before,
            base,
        }
    }

    /// The number of drawn entry `i` of `s`; `None` where it is decided.
    fn id(&self, s: Sector, i: u64) -> Option<u32> {
        let k = self.slots[&s];
        let (word, bit) = ((i / 64) as usize, i % 64);
        let w = self.bits[k][word];
        (w >> bit & 1 == 1)
            .then(|| self.base[k] + self.before[k][word] + (w & ((1u64 << bit) - 1)).count_ones())
    }

    /// The drawn entries of the sector in `slot`, in order.
    fn entries(&self, slot: usize) -> impl Iterator<Item = u64> + '_ {
        self.bits[slot].iter().enumerate().flat_map(|(word, &w)| {
            (0..64)
                .filter(move |b| w >> b & 1 == 1)
                .map(move |b| word as u64 * 64 + b)
        })
    }

    fn len(&self) -> usize {
        *self.base.last().unwrap() as usize
    }
}

/// The classes of a game's drawn movement positions (for the side to move), by the
/// definition, numbered as in `Draws`.
struct MovementOracle {
    draws: Draws,
    class: Vec<i8>,
}

impl MovementOracle {
    fn class(&self, s: Sector, i: u64) -> Option<i8> {
        self.draws.id(s, i).map(|d| self.class[d as usize])
    }
}

/// Every class of a game's movement sectors, by the definition. Nodes are the drawn
/// positions, each once with `P` to move (node `2d + 1`) and once with its opponent
/// to move (`2d`); a node's children are its drawing moves, one flat array of `u32`
/// for the whole game, the same draws for both nodes of a position (with `P`'s turn
/// passed on).
fn oracle_movement(tb: &Tablebase, variant: Variant, max: u8) -> MovementOracle {
    // Sector::all lists the two sectors of a pair together, smaller material first.
    let sectors: Vec<Sector> = Sector::all()
        .into_iter()
        .filter(|s| s.us <= max && s.them <= max)
        .collect();
    let stays: HashMap<Sector, i8> = sectors.iter().map(|&s| (s, stay(tb, variant, s))).collect();
    let draws = Draws::new(tb, variant, &sectors);
    let mut first = Vec::with_capacity(draws.len() + 1);
    first.push(0u64);
    let mut children: Vec<u32> = Vec::new();
    for (slot, &s) in sectors.iter().enumerate() {
        let entries: Vec<u64> = draws.entries(slot).collect();
        let lists: Vec<Vec<u32>> = entries
            .par_iter()
            .map(|&i| {
                let pos = movement_position(variant, s, i);
                let mut out = Vec::new();
                for &m in pos.legal_moves().iter() {
                    let next = pos.play_unchecked(m);
                    if next.is_reduced(next.side_to_move()) || !is_draw(tb, &next) {
                        continue;
                    }
                    let t =
                        Sector::new(next.us().count() as u8, next.them().count() as u8).unwrap();
                    let j = SectorIndex::get(Board::Nine, t.us.into(), t.them.into())
                        .index(next.us(), next.them());
                    out.push(draws.id(t, j).unwrap());
                }
                out
            })
            .collect();
        for list in lists {
            children.extend_from_slice(&list);
            first.push(children.len() as u64);
        }
    }
    let children_of = |d: usize| &children[first[d] as usize..first[d + 1] as usize];
    let mut thresholds: Vec<i8> = stays.values().copied().collect();
    thresholds.sort_unstable();
    thresholds.dedup();
    let mut class = vec![i8::MIN; draws.len()];
    let mut win = vec![false; 2 * draws.len()];
    for &t in &thresholds {
        // Pairs in solving order: each after those its captures reach.
        let mut slot = 0;
        while slot < sectors.len() {
            let s = sectors[slot];
            let pair = if s.us == s.them { 1 } else { 2 };
            let range = draws.base[slot] as usize..draws.base[slot + pair] as usize;
            // P's stay class at node (d, p): its sector's for P to move, negated
            // otherwise. Each half of the pair (one P) is good or bad as a whole.
            let halves: Vec<[bool; 2]> = sectors[slot..slot + pair]
                .iter()
                .map(|s| [-stays[s] >= t, stays[s] >= t])
                .collect();
            let second = draws.base[slot + 1] as usize;
            let good = |d: usize, p: bool| halves[usize::from(d >= second)][usize::from(p)];
            for d in range.clone() {
                for p in [false, true] {
                    win[2 * d + usize::from(p)] = good(d, p);
                }
            }
            loop {
                let mut changed = false;
                for d in range.clone() {
                    for p in [false, true] {
                        let n = 2 * d + usize::from(p);
                        let child = |c: &u32| win[2 * *c as usize + usize::from(!p)];
                        let now = if p {
                            children_of(d).iter().any(child)
                        } else {
                            children_of(d).iter().all(child)
                        };
                        // Good halves shrink from everything, bad ones grow from nothing.
                        let next = if good(d, p) {
                            win[n] && now
                        } else {
                            win[n] || now
                        };
                        if next != win[n] {
                            win[n] = next;
                            changed = true;
                        }
                    }
                }
                if !changed {
                    break;
                }
            }
            slot += pair;
        }
        for (d, c) in class.iter_mut().enumerate() {
            if win[2 * d + 1] {
                *c = t;
            }
        }
    }
    assert!(
        class.iter().all(|&c| c != i8::MIN),
        "a draw without a class at the lowest threshold"
    );
    MovementOracle { draws, class }
}

/// Every class of a game's placement sectors, by recursion over the moves; a drawn
/// entry's class, `i8::MIN` for one decided (or not reached).
fn oracle_placement(
    tb: &Tablebase,
    variant: Variant,
    max: u8,
    movement: &MovementOracle,
) -> HashMap<PlacementSector, Vec<i8>> {
    fn class_of(
        tb: &Tablebase,
        pos: &Position,
        movement: &MovementOracle,
        memo: &mut HashMap<PlacementSector, Vec<i8>>,
    ) -> i8 {
        let index_of = |us, them| SectorIndex::get(Board::Nine, us, them);
        if let Some(p) = PlacementSector::of(pos) {
            let index = index_of(p.us.into(), p.them.into());
            let i = index.index(pos.us(), pos.them()) as usize;
            let known = memo
                .entry(p)
                .or_insert_with(|| vec![i8::MIN; index.size() as usize])[i];
            if known != i8::MIN {
                return known;
            }
            let mut best = i8::MIN;
            for &m in pos.legal_moves().iter() {
                let next = pos.play_unchecked(m);
                if is_draw(tb, &next) {
                    best = best.max(-class_of(tb, &next, movement, memo));
                }
            }
            memo.get_mut(&p).unwrap()[i] = best;
            best
        } else {
            let s = Sector::new(pos.us().count() as u8, pos.them().count() as u8).unwrap();
            let i = index_of(s.us.into(), s.them.into()).index(pos.us(), pos.them());
            movement.class(s, i).unwrap()
        }
    }
    let mut memo = HashMap::new();
    for p in PlacementSector::all(max) {
        let index = SectorIndex::get(Board::Nine, p.us.into(), p.them.into());
        for i in 0..index.size() {
            let (us, them) = index.position(i);
            let pos = Position::from_setup(&p.game_setup(us, them), variant).unwrap();
            if is_draw(tb, &pos) {
                class_of(tb, &pos, movement, &mut memo);
            }
        }
    }
    memo
}

/// Generate the game of `max` pieces with its classes, and compare every class file
/// with the oracle, and check each by `verify_classes`.
fn check_game(variant: Variant, max: u8, naive: bool) -> u64 {
    let dir = temp_dir(&format!("{}-{max}", variant.name()));
    generate_game_into(&dir, variant, max, &Silent).unwrap();
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    let movement: Vec<Sector> = morris_builder::driver::plan(
        &Sector::all()
            .into_iter()
            .filter(|s| s.us <= max && s.them <= max)
            .collect::<Vec<_>>(),
    );
    let placement = PlacementSector::all(max);
    classes::build_into(&dir, &tb, variant, &movement, &placement, &|_| {}).unwrap();
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    // Without the naive computation (too slow for the default tests in the larger
    // games), the classes are checked by `verify_classes` alone.
    let oracle = if naive {
        Some(oracle_movement(&tb, variant, max))
    } else {
        None
    };
    let placed = oracle
        .as_ref()
        .map(|o| oracle_placement(&tb, variant, max, o));
    let mut store = Store::default();
    let mut compared = 0u64;
    let mut settled_elsewhere = 0u64;
    for &s in &movement {
        let index = SectorIndex::get(Board::Nine, s.us.into(), s.them.into());
        let stay = classes::stay_of(&tb, variant, s).unwrap();
        for i in 0..index.size() {
            let pos = movement_position(variant, s, i);
            let got = tb.class(&pos).unwrap();
            let expected = match &oracle {
                Some(o) => o.class(s, i),
                None => got.map(|g| g.class),
            };
            match expected {
                None => assert_eq!(got, None, "{} {s} entry {i}: decided", variant.name()),
                Some(c) => {
                    let got = got.unwrap_or_else(|| panic!("{s} entry {i}: no class"));
                    assert_eq!(got.class, c, "{} {s} entry {i}", variant.name());
                    assert_eq!(
                        got.distance == 0,
                        c == stay,
                        "{s} entry {i}: distance {got:?}"
                    );
                    compared += 1;
                    settled_elsewhere += u64::from(c != stay);
                }
            }
        }
        store.insert(
            s.into(),
            classes::finished(&dir, &tb, &classes::Store::default(), variant, s.into())
                .unwrap()
                .unwrap(),
        );
    }
    for &p in &placement {
        let index = SectorIndex::get(Board::Nine, p.us.into(), p.them.into());
        for i in 0..index.size() {
            let (us, them) = index.position(i);
            let pos = Position::from_setup(&p.game_setup(us, them), variant).unwrap();
            let got = tb.class(&pos).unwrap();
            if let Some(placed) = &placed {
                let expected = placed
                    .get(&p)
                    .map(|classes| classes[i as usize])
                    .filter(|&c| c != i8::MIN);
                assert_eq!(
                    got.map(|c| c.class),
                    expected,
                    "{} {p} entry {i}",
                    variant.name()
                );
            }
            compared += u64::from(got.is_some());
        }
        store.insert(
            p.into(),
            classes::finished(&dir, &tb, &classes::Store::default(), variant, p.into())
                .unwrap()
                .unwrap(),
        );
    }
    for s in movement
        .iter()
        .map(|&s| SectorId::from(s))
        .chain(placement.iter().map(|&p| p.into()))
    {
        let (bad, first) = classes::verify_classes(&tb, &store, variant, s).unwrap();
        assert_eq!((bad, first), (0, None), "{} {s}", variant.name());
    }
    println!(
        "{} {max} pieces: {compared} classes agree ({settled_elsewhere} movement draws settle outside their pair)",
        variant.name()
    );
    assert!(compared > 400, "too few draws to say anything: {compared}");
    std::fs::remove_dir_all(&dir).unwrap();
    settled_elsewhere
}

#[test]
fn classes_of_small_complete_games_match_the_definition() {
    // The No-flying game of four pieces (150 thousand draws) and the Standard game of
    // three; the Standard four-piece game (3.9 million draws) is --ignored.
    check_game(Variant::NoFlying, 4, true);
    check_game(Variant::Standard, 3, true);
}

/// The Standard four-piece game, checked by `verify_classes` (the naive computation
/// is --ignored below): it has draws that leave their pair for a better one (4-4
/// positions whose side to move can force a capture into 3-4, class +2), which the
/// smaller games lack.
#[test]
fn classes_of_the_standard_four_piece_game_check_against_their_successors() {
    let elsewhere = check_game(Variant::Standard, 4, false);
    assert!(elsewhere > 1000, "{elsewhere}");
}

#[test]
#[ignore = "slow: the Standard four-piece game, several minutes in --release"]
fn classes_of_the_standard_four_piece_game_match_the_definition() {
    check_game(Variant::Standard, 4, true);
}

#[test]
#[ignore = "slow: the No-flying five-piece game, long in --release"]
fn classes_of_the_no_flying_five_piece_game_match_the_definition() {
    check_game(Variant::NoFlying, 5, true);
}

#[test]
#[ignore = "slow: the Standard five-piece game, about 25 minutes in --release and 6 GB of memory"]
fn classes_of_the_standard_five_piece_game_match_the_definition() {
    check_game(Variant::Standard, 5, true);
}

/// A game of four pieces with classes, in a fresh directory.
fn game_with_classes(name: &str) -> (PathBuf, Vec<Sector>) {
    let dir = temp_dir(name);
    generate_game_into(&dir, Variant::Standard, 4, &Silent).unwrap();
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    let movement = morris_builder::driver::plan(&[Sector::new(4, 4).unwrap()]);
    classes::build_into(&dir, &tb, Variant::Standard, &movement, &[], &|_| {}).unwrap();
    (dir, movement)
}

fn first_draw(tb: &Tablebase, s: Sector) -> Position {
    let index = SectorIndex::get(Board::Nine, s.us.into(), s.them.into());
    (0..index.size())
        .map(|i| movement_position(Variant::Standard, s, i))
        .find(|p| is_draw(tb, p))
        .unwrap()
}

fn class_path(dir: &Path, s: Sector) -> PathBuf {
    dir.join(morris_tablebase::classes::file_name(Variant::Standard, s))
}

/// The header of a sector's class file.
fn class_header(path: &Path, s: Sector) -> morris_tablebase::classes::Header {
    *morris_tablebase::classes::ClassFile::open(
        path,
        Variant::Standard,
        s.into(),
        std::sync::Arc::default(),
    )
    .unwrap()
    .header()
}

/// A class file of `header` (its version kept) whose blocks hold `blocks`, each
/// compressed alone, with a good block index and header checksums.
fn class_file(header: &morris_tablebase::classes::Header, blocks: &[Vec<u8>]) -> Vec<u8> {
    use xxhash_rust::xxh3::xxh3_64;
    let (mut index, mut data) = (Vec::new(), Vec::new());
    for bytes in blocks {
        let z = zstd::bulk::compress(bytes, 3).unwrap();
        data.extend_from_slice(&z);
        index.extend_from_slice(&(data.len() as u64).to_le_bytes());
        index.extend_from_slice(&xxh3_64(&z).to_le_bytes());
    }
    let header = morris_tablebase::classes::Header {
        index_sum: xxh3_64(&index),
        data_len: data.len() as u64,
        ..*header
    };
    let mut file = header.encode().to_vec();
    file.extend_from_slice(&index);
    file.extend_from_slice(&data);
    file
}

#[test]
fn damaged_class_files_are_named_and_rebuilt() {
    let (dir, movement) = game_with_classes("damaged");
    let s = Sector::new(4, 4).unwrap();
    let path = class_path(&dir, s);
    let good = std::fs::read(&path).unwrap();
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    let pos = first_draw(&tb, s);
    assert!(tb.class(&pos).unwrap().is_some());

    // A flipped byte in the block that holds the position: named on first use,
    // never a class.
    let header = class_header(&path, s);
    let index = SectorIndex::get(Board::Nine, 4, 4).index(pos.us(), pos.them());
    assert!(
        index < 1 << header.block_log2,
        "the position is in the first block"
    );
    let mut bad = good.clone();
    let at = header.layout().data_start() as usize + 2;
    bad[at] ^= 0x40;
    std::fs::write(&path, &bad).unwrap();
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    let err = tb.class(&pos).unwrap_err().to_string();
    assert!(
        err.contains("standard-4-4.cls") && err.contains("checksum"),
        "{err}"
    );

    // Truncated: refused at opening (kept as the sector's problem), named.
    std::fs::write(&path, &good[..good.len() - 10]).unwrap();
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    let problems: Vec<String> = tb.class_problems().map(ToString::to_string).collect();
    assert!(
        problems
            .iter()
            .any(|p| p.contains("standard-4-4.cls") && p.contains("bytes")),
        "{problems:?}"
    );
    assert!(tb.class(&pos).is_err());

    // A header byte changed: the header checksum fails.
    let mut bad = good.clone();
    bad[17] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    assert!(tb.class(&pos).unwrap_err().to_string().contains("checksum"));

    // A file of the first format (raw entries) is refused by its version.
    let mut old = good.clone();
    old[8..12].copy_from_slice(&1u32.to_le_bytes());
    std::fs::write(&path, &old).unwrap();
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    let err = tb.class(&pos).unwrap_err().to_string();
    assert!(
        err.contains("standard-4-4.cls") && err.contains("format version 1"),
        "{err}"
    );

    // The builder names the damaged file and builds it again, byte for byte.
    let mut lines = Vec::new();
    let log = std::sync::Mutex::new(&mut lines);
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    classes::build_into(&dir, &tb, Variant::Standard, &movement, &[], &|l| {
        log.lock().unwrap().push(l.to_string())
    })
    .unwrap();
    assert!(
        lines.iter().any(|l| l.contains("standard-4-4.cls")),
        "{lines:?}"
    );
    assert_eq!(std::fs::read(&path).unwrap(), good);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn classes_of_other_values_are_refused() {
    let (dir, _) = game_with_classes("stale");
    let s = Sector::new(3, 3).unwrap();
    // The classes of 3-3 beside values that are not the ones they came from: those of
    // a directory where 3-3's file was written again with a changed value.
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    let mut values = tb.file(Variant::Standard, s).unwrap().values().unwrap();
    let pos = first_draw(&tb, s);
    let i = values.iter().position(|&v| v != 0).unwrap();
    values[i] = 0;
    morris_builder::write::write_sector(&dir, Variant::Standard, s, &values).unwrap();
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    let err = tb.class(&pos).unwrap_err().to_string();
    assert!(
        err.contains("standard-3-3.cls") && err.contains("other values"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_class_file_of_a_dependency_is_named() {
    let (dir, movement) = game_with_classes("missing");
    std::fs::remove_file(class_path(&dir, Sector::new(4, 4).unwrap())).unwrap();
    std::fs::remove_file(class_path(&dir, Sector::new(3, 4).unwrap())).unwrap();
    // Building 4-4 alone needs the classes of 3-4, where its captures lead; those
    // follow from the classes of 4-3 and 3-3 (3-4 is a sector a one-sided set leaves
    // out), so with 4-3's file there the build goes on.
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    let last = movement.last().copied().unwrap();
    classes::build_into(&dir, &tb, Variant::Standard, &[last], &[], &|_| {}).unwrap();
    assert!(class_path(&dir, Sector::new(4, 4).unwrap()).exists());
    // Without 4-3's file as well, the missing file is named.
    std::fs::remove_file(class_path(&dir, Sector::new(4, 4).unwrap())).unwrap();
    std::fs::remove_file(class_path(&dir, Sector::new(4, 3).unwrap())).unwrap();
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    let err = classes::build_into(&dir, &tb, Variant::Standard, &[last], &[], &|_| {}).unwrap_err();
    assert!(matches!(err, ClassError::MissingClasses(_)), "{err}");
    assert!(err.to_string().contains("sector 4-3"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A class file of format version 2 (every entry stored, the entry before a decided
/// position repeated there), as the earlier builder wrote it from `entries`.
fn format_2_file(header: &morris_tablebase::classes::Header, entries: &[u16]) -> Vec<u8> {
    let mut last = classes_entry(header.stay);
    let blocks: Vec<Vec<u8>> = entries
        .chunks(1 << header.block_log2)
        .map(|chunk| {
            let mut bytes = Vec::new();
            for &e in chunk {
                if e != morris_tablebase::classes::DECIDED {
                    last = e;
                }
                bytes.extend_from_slice(&last.to_le_bytes());
            }
            bytes
        })
        .collect();
    let old = morris_tablebase::classes::Header {
        version: morris_tablebase::classes::VERSION_ALL_ENTRIES,
        ..*header
    };
    class_file(&old, &blocks)
}

fn classes_entry(stay: i8) -> u16 {
    morris_tablebase::classes::Class {
        class: stay,
        distance: 0,
    }
    .encode()
}

#[test]
fn class_files_of_format_2_are_read_and_rewritten() {
    let (dir, movement) = game_with_classes("format2");
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    // Every sector's file now, its entries and the classes the probe reads.
    let mut before = Vec::new();
    for &s in &movement {
        let path = class_path(&dir, s);
        let good = std::fs::read(&path).unwrap();
        let header = class_header(&path, s);
        assert_eq!(header.version, morris_tablebase::classes::VERSION);
        let entries = classes::finished(&dir, &tb, &Store::default(), Variant::Standard, s.into())
            .unwrap()
            .unwrap();
        let index = SectorIndex::get(Board::Nine, s.us.into(), s.them.into());
        let probed: Vec<_> = (0..index.size())
            .map(|i| {
                tb.class(&movement_position(Variant::Standard, s, i))
                    .unwrap()
            })
            .collect();
        assert!(probed.iter().any(Option::is_some) || header.draws == 0);
        before.push((s, good, header, entries, probed));
    }
    drop(tb);
    for (s, _, header, entries, _) in &before {
        std::fs::write(class_path(&dir, *s), format_2_file(header, entries)).unwrap();
    }
    // Read as they are: the same classes.
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    for (s, _, _, entries, probed) in &before {
        let index = SectorIndex::get(Board::Nine, s.us.into(), s.them.into());
        for i in 0..index.size() {
            let got = tb
                .class(&movement_position(Variant::Standard, *s, i))
                .unwrap();
            assert_eq!(got, probed[i as usize], "{s} entry {i}");
        }
        let read = classes::finished(&dir, &tb, &Store::default(), Variant::Standard, (*s).into())
            .unwrap()
            .unwrap();
        assert_eq!(&read, entries, "{s}");
    }
    // The builder rewrites them in the new format, byte for byte what it builds.
    let mut lines = Vec::new();
    let log = std::sync::Mutex::new(&mut lines);
    classes::build_into(&dir, &tb, Variant::Standard, &movement, &[], &|l| {
        log.lock().unwrap().push(l.to_string())
    })
    .unwrap();
    for (s, good, _, _, _) in &before {
        assert_eq!(&std::fs::read(class_path(&dir, *s)).unwrap(), good, "{s}");
        assert!(
            lines
                .iter()
                .any(|l| l.contains(&format!("standard-{s}.cls: rewritten"))),
            "{s}: {lines:?}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_block_with_other_draws_than_the_values_is_damaged() {
    let (dir, _) = game_with_classes("draws");
    let s = Sector::new(4, 4).unwrap();
    let path = class_path(&dir, s);
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    let pos = first_draw(&tb, s);
    let header = class_header(&path, s);
    // The same entries, one decided position marked drawn: a well-formed file with
    // good checksums whose first block holds one entry too many.
    let mut entries = classes::finished(&dir, &tb, &Store::default(), Variant::Standard, s.into())
        .unwrap()
        .unwrap()
        .to_vec();
    let decided = entries
        .iter()
        .position(|&e| e == morris_tablebase::classes::DECIDED)
        .unwrap();
    assert!(decided < 1 << header.block_log2);
    entries[decided] = classes_entry(0);
    let blocks: Vec<Vec<u8>> = entries
        .chunks(1 << header.block_log2)
        .map(|chunk| {
            let drawn: Vec<u16> = chunk
                .iter()
                .copied()
                .filter(|&e| e != morris_tablebase::classes::DECIDED)
                .collect();
            let mut bytes: Vec<u8> = drawn.iter().map(|&e| (e >> 8) as u8).collect();
            bytes.extend(drawn.iter().map(|&e| e as u8));
            bytes
        })
        .collect();
    let bytes = class_file(&header, &blocks);
    std::fs::write(&path, bytes).unwrap();
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    let err = tb.class(&pos).unwrap_err().to_string();
    assert!(err.contains("standard-4-4.cls"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Every position of every sector of the `max`-piece game of `variant`, as a probe
/// sees it.
fn all_positions(variant: Variant, max: u8) -> Vec<(SectorId, u64, Position)> {
    let mut out = Vec::new();
    for s in Sector::all()
        .into_iter()
        .filter(|s| s.us <= max && s.them <= max)
    {
        let index = SectorIndex::get(Board::Nine, s.us.into(), s.them.into());
        for i in 0..index.size() {
            out.push((s.into(), i, movement_position(variant, s, i)));
        }
    }
    for p in PlacementSector::all(max) {
        let index = SectorIndex::get(Board::Nine, p.us.into(), p.them.into());
        for i in 0..index.size() {
            let (us, them) = index.position(i);
            let pos = Position::from_setup(&p.game_setup(us, them), variant).unwrap();
            out.push((p.into(), i, pos));
        }
    }
    out
}

#[test]
fn a_one_sided_class_set_answers_every_class() {
    let (variant, max) = (Variant::Standard, 4);
    let full = temp_dir("full");
    generate_game_into(&full, variant, max, &Silent).unwrap();
    let one = temp_dir("one-sided");
    for e in std::fs::read_dir(&full).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), one.join(e.file_name())).unwrap();
    }
    let movement: Vec<Sector> = morris_builder::driver::plan(
        &Sector::all()
            .into_iter()
            .filter(|s| s.us <= max && s.them <= max)
            .collect::<Vec<_>>(),
    );
    let placement = PlacementSector::all(max);
    let tb = Tablebase::open(&full, OpenOptions::default()).unwrap();
    classes::build_into(&full, &tb, variant, &movement, &placement, &|_| {}).unwrap();
    let build = |log: &mut Vec<String>| {
        let log = std::sync::Mutex::new(log);
        let tb = Tablebase::open(&one, OpenOptions::default()).unwrap();
        classes::build_into_as(&one, &tb, variant, &movement, &placement, true, &|l| {
            log.lock().unwrap().push(l.to_string())
        })
        .unwrap()
    };
    build(&mut Vec::new());

    // The left-out sectors have no file, the others the full set's, byte for byte.
    let cls = |dir: &Path, s: SectorId| dir.join(morris_tablebase::classes::file_name(variant, s));
    let sectors: Vec<SectorId> = all_positions(variant, max)
        .iter()
        .map(|p| p.0)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut left_out = 0;
    for &s in &sectors {
        if s.distances_derived(variant) {
            assert!(!cls(&one, s).exists(), "{s}");
            left_out += 1;
        } else {
            assert_eq!(
                std::fs::read(cls(&one, s)).unwrap(),
                std::fs::read(cls(&full, s)).unwrap(),
                "{s}"
            );
        }
    }
    assert!(left_out > 10, "{left_out}");

    // Every position's class, read or found from the successors, is the full set's.
    let a = Tablebase::open(&full, OpenOptions::default()).unwrap();
    let b = Tablebase::open(&one, OpenOptions::default()).unwrap();
    let mut derived = 0u64;
    for (s, i, pos) in all_positions(variant, max) {
        let want = a.class(&pos).unwrap();
        assert_eq!(b.class(&pos).unwrap(), want, "{s} entry {i}");
        if b.derives_classes(variant, s) {
            assert!(b.has_classes(variant, s));
            derived += u64::from(want.is_some());
        }
        if let SectorId::Movement(m) = s {
            assert_eq!(
                b.sector_stay_class(variant, m),
                a.sector_stay_class(variant, m),
                "{s}"
            );
        }
    }
    assert!(derived > 1000, "{derived}");

    // The check reads the left-out sectors from their successors' files.
    let mut store = Store::default();
    for &s in &sectors {
        if !s.distances_derived(variant) {
            let (bad, _) = classes::verify_sector(&one, &b, &mut store, variant, s).unwrap();
            assert_eq!(bad, 0, "{s}");
        }
    }

    // A second run finds everything finished and writes nothing; a full set's
    // left-out files are removed by a one-sided build.
    let mut lines = Vec::new();
    let reports = build(&mut lines);
    assert!(reports.iter().all(|r| r.skipped), "{lines:?}");
    let left: SectorId = Sector::new(3, 4).unwrap().into();
    std::fs::copy(cls(&full, left), cls(&one, left)).unwrap();
    let mut lines = Vec::new();
    build(&mut lines);
    assert!(!cls(&one, left).exists());
    assert!(
        lines
            .iter()
            .any(|l| l.contains("standard-3-4.cls: removed")),
        "{lines:?}"
    );
    std::fs::remove_dir_all(&full).unwrap();
    std::fs::remove_dir_all(&one).unwrap();
}
