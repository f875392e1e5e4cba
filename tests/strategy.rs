//! The move choice of the strategies on a small complete game (Standard, four pieces a
//! side, values and classes): perfect play offers exactly the moves that keep the
//! value; ultra-strong play a non-empty subset of them, of the best class (then
//! distance) for a draw, and among those the moves that leave the opponent the
//! largest share of replies giving its value away, avoiding in a draw the positions
//! the game has already seen. The shares are counted here from the values alone,
//! apart from the strategy's code.

use morris_engine::Board;

use morris_builder::classes;
use morris_builder::driver::generate_game_into;
use morris_builder::Silent;
use morris_engine::notation::{parse_position, setup_to_string};
use morris_engine::{Color, Move, Position, Setup, Variant, Wdl};
use morris_solver::strategy::{rank_draws, Rng};
use morris_solver::Strategy;
use morris_tablebase::{OpenOptions, PlacementSector, Sector, SectorIndex, Tablebase, Value};
use std::path::PathBuf;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("morris-strategy-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The value of `pos` for its side to move, the game's end included.
fn value(tb: &Tablebase, pos: &Position) -> Value {
    match pos.end() {
        Some(end) => Value::finished(pos, end),
        None => tb.value(pos).unwrap().expect("the game is covered"),
    }
}

/// The moves of `pos` that keep its value: the opposite result, one ply nearer for a
/// decided game.
fn keeping(tb: &Tablebase, pos: &Position) -> Vec<Move> {
    let v = value(tb, pos);
    pos.legal_moves()
        .iter()
        .copied()
        .filter(|&m| {
            let t = value(tb, &pos.play_unchecked(m));
            t.wdl().opposite() == v.wdl()
                && (v.wdl() == Wdl::Draw || t.dtm().unwrap() + 1 == v.dtm().unwrap())
        })
        .collect()
}

/// The share of the replies of the side to move in `pos` that lose value for it.
fn share(tb: &Tablebase, pos: &Position) -> f64 {
    if pos.end().is_some() {
        return 0.0;
    }
    let v = value(tb, pos).wdl();
    let replies = pos.legal_moves();
    let worse = replies
        .iter()
        .filter(|&&r| value(tb, &pos.play_unchecked(r)).wdl().opposite() < v)
        .count();
    worse as f64 / replies.len() as f64
}

fn fen(pos: &Position) -> String {
    setup_to_string(&pos.to_setup())
}

#[test]
fn ultra_keeps_the_value_the_best_class_and_sets_the_most_traps() {
    let dir = temp_dir("4");
    let max = 4;
    generate_game_into(&dir, Variant::Standard, max, &Silent).unwrap();
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();
    let movement: Vec<Sector> = morris_builder::driver::plan(
        &Sector::all()
            .into_iter()
            .filter(|s| s.us <= max && s.them <= max)
            .collect::<Vec<_>>(),
    );
    classes::build_into(
        &dir,
        &tb,
        Variant::Standard,
        &movement,
        &PlacementSector::all(max),
        &|_| {},
    )
    .unwrap();
    let tb = Tablebase::open(&dir, OpenOptions::default()).unwrap();

    // Positions of random games from the four-piece start, placing and moving.
    let start = parse_position(".../.../.../....../.../.../... w 4 4", Variant::Standard).unwrap();
    let (mut checked, mut narrowed, mut by_traps, mut avoided) = ([0u32; 3], 0u32, 0u32, 0u32);
    let mut placing_draws = 0u32;
    let mut check = |pos: &Position| {
        let keep = keeping(&tb, pos);
        let perfect = Strategy::Perfect
            .candidates(&tb, pos, &[])
            .unwrap()
            .unwrap();
        assert_eq!(perfect, keep, "{}", fen(pos));
        let ultra = Strategy::Ultra.candidates(&tb, pos, &[]).unwrap().unwrap();
        assert!(!ultra.is_empty() && ultra.iter().all(|m| keep.contains(m)));
        let v = value(&tb, pos).wdl();
        checked[v as usize] += 1;
        // The moves ultra ranks first: for a draw with every piece placed, those of
        // the best class and distance; else (a win, a loss, a draw while placing)
        // every keeping move.
        let placing = pos.hand(Color::White) + pos.hand(Color::Black) > 0;
        let by_class: Vec<Move> = if v == Wdl::Draw {
            let ranked = rank_draws(&tb, pos, &keep)
                .unwrap()
                .expect("classes present");
            let best = (ranked[0].1, ranked[0].2);
            ranked
                .iter()
                .filter(|r| (r.1, r.2) == best)
                .map(|r| r.0)
                .collect()
        } else {
            keep.clone()
        };
        // `classes` steers by them in every phase.
        let classes = Strategy::Classes
            .candidates(&tb, pos, &[])
            .unwrap()
            .unwrap();
        assert_eq!(classes, by_class, "{}", fen(pos));
        let first = if placing { keep.clone() } else { by_class };
        placing_draws += u32::from(placing && v == Wdl::Draw);
        if v == Wdl::Win {
            assert_eq!(ultra, first, "{}", fen(pos));
        } else {
            let shares: Vec<f64> = first
                .iter()
                .map(|&m| share(&tb, &pos.play_unchecked(m)))
                .collect();
            let top = shares.iter().copied().fold(0.0, f64::max);
            let expected: Vec<Move> = first
                .iter()
                .zip(&shares)
                .filter(|(_, &s)| (s - top).abs() < 1e-12)
                .map(|(&m, _)| m)
                .collect();
            assert_eq!(ultra, expected, "{}", fen(pos));
            by_traps += u32::from(expected.len() < first.len());
            // In a draw, a position already in the game is avoided while another
            // move of the best class is left, and then a move after which the
            // opponent can repeat a position for the third time; the traps decide
            // among the rest.
            if v == Wdl::Draw && first.len() > 1 {
                let after = pos.play_unchecked(ultra[0]);
                let seen = after.hash();
                // A position after one of the opponent's replies there, seen twice.
                let twice = after
                    .legal_moves()
                    .first()
                    .map(|&r| after.play_unchecked(r).hash());
                let mut history = vec![seen];
                history.extend(twice.iter().flat_map(|&h| [h, h]));
                let level = |m: Move| {
                    let next = pos.play_unchecked(m);
                    if next.hash() == seen {
                        2
                    } else if next.end().is_none()
                        && next
                            .legal_moves()
                            .iter()
                            .any(|&r| Some(next.play_unchecked(r).hash()) == twice)
                    {
                        1
                    } else {
                        0
                    }
                };
                let least = first.iter().map(|&m| level(m)).min().unwrap();
                let rest: Vec<(Move, f64)> = first
                    .iter()
                    .zip(&shares)
                    .filter(|(&m, _)| level(m) == least)
                    .map(|(&m, &s)| (m, s))
                    .collect();
                let again = Strategy::Ultra
                    .candidates(&tb, pos, &history)
                    .unwrap()
                    .unwrap();
                let top = rest.iter().map(|r| r.1).fold(0.0, f64::max);
                let expected: Vec<Move> = rest
                    .iter()
                    .filter(|r| (r.1 - top).abs() < 1e-12)
                    .map(|r| r.0)
                    .collect();
                assert_eq!(again, expected, "{}", fen(pos));
                avoided += 1;
            }
        }
        narrowed += u32::from(ultra.len() < keep.len());
    };
    // Positions of random games from the four-piece start, placing and moving.
    let mut rng = Rng::new(7);
    for _ in 0..40 {
        let mut pos = start;
        for _ in 0..40 {
            if pos.end().is_some() {
                break;
            }
            check(&pos);
            let moves = pos.legal_moves();
            pos = pos.play_unchecked(moves[rng.below(moves.len())]);
        }
    }
    // And of the movement sectors, spread over their indices.
    for (us, them) in [(3, 4), (4, 3), (4, 4), (3, 3)] {
        let index = SectorIndex::get(Board::Nine, us, them);
        for i in (0..index.size()).step_by(1009) {
            let (u, t) = index.position(i);
            let setup = Setup {
                pieces: [u, t],
                hand: [0, 0],
                side_to_move: Color::White,
            };
            let pos = Position::from_setup(&setup, Variant::Standard).unwrap();
            if pos.end().is_none() {
                check(&pos);
            }
        }
    }
    // The sample holds every kind of position, and the choices matter in it.
    // (Losses, draws, wins: lost positions are rare in this game.)
    assert!(
        checked[0] > 20 && checked[1] > 1000 && checked[2] > 100,
        "{checked:?}"
    );
    assert!(
        narrowed > 50 && by_traps > 20 && avoided > 100 && placing_draws > 100,
        "{narrowed} {by_traps} {avoided} {placing_draws}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
