//! One test per rule of RULES.md, each on a concrete position with an asserted result,
//! and property tests tying `is_legal`, `legal_moves`, `count_legal_moves` and the
//! 16 symmetries together.

mod common;

use common::Rng;
use morris_engine::notation::{self, ParseError};
use morris_engine::{
    perft, Bitboard, Color, EndReason, Game, GameEnd, IllegalMove, Move, Outcome, Point, Position,
    Setup, SetupError, Symmetry, Variant,
};
use proptest::prelude::*;
use std::collections::BTreeSet;

const STD: Variant = Variant::Standard;
const NOFLY: Variant = Variant::NoFlying;
const W: Color = Color::White;
const B: Color = Color::Black;

fn pt(name: &str) -> Point {
    notation::parse_point(name).unwrap()
}

fn bb(list: &str) -> Bitboard {
    list.split_whitespace().map(pt).collect()
}

fn setup(white: &str, black: &str, side: Color, hands: [u8; 2]) -> Setup {
    Setup {
        pieces: [bb(white), bb(black)],
        hand: hands,
        side_to_move: side,
    }
}

fn pos(white: &str, black: &str, side: Color, hands: [u8; 2], v: Variant) -> Position {
    setup(white, black, side, hands)
        .position(v)
        .unwrap_or_else(|e| panic!("invalid test position: {e}"))
}

fn mv(text: &str) -> Move {
    notation::parse_move(text).unwrap_or_else(|e| panic!("{e}"))
}

fn moves(p: &Position) -> BTreeSet<String> {
    p.legal_moves().iter().map(|m| m.to_string()).collect()
}

fn set(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn play(p: &Position, text: &str) -> Position {
    p.play(mv(text))
        .unwrap_or_else(|e| panic!("{text} in {p}: {e}"))
}

fn play_all(game: &mut Game, line: &str) {
    for t in line.split_whitespace() {
        let p = *game.position();
        game.play(mv(t))
            .unwrap_or_else(|e| panic!("{t} in {p}: {e}"));
    }
}

fn win(winner: Color, reason: EndReason) -> Option<GameEnd> {
    Some(match reason {
        EndReason::TwoPieces => GameEnd::TwoPieces { winner },
        EndReason::Blocked => GameEnd::Blocked { winner },
        EndReason::Threefold => panic!("a repetition is a draw, no win"),
    })
}

fn assert_terminal(p: &Position) {
    assert!(p.end().is_some(), "{p}");
    assert!(p.legal_moves().is_empty(), "{p}: {:?}", p.legal_moves());
    assert_eq!(p.count_legal_moves(), 0, "{p}");
    assert_eq!(perft(p, 1), Some(0), "{p}");
    assert_eq!(perft(p, 3), Some(0), "{p}");
}

// ---------------------------------------------------------------------------------
// Board
// ---------------------------------------------------------------------------------

#[test]
fn start_position_places_anywhere() {
    let p = Position::start(STD);
    assert_eq!(p.legal_moves().len(), 24);
    assert!(p.legal_moves().iter().all(|m| m.is_placement()));
    assert_eq!(p.to_string(), ".../.../.../....../.../.../... w 9 9");
    assert_eq!(p.side_to_move(), W);
    assert_eq!(p.end(), None);
    // The centre is not a point.
    assert!(notation::parse_point("d4").is_err());
}

// ---------------------------------------------------------------------------------
// A turn: place, slide, fly
// ---------------------------------------------------------------------------------

#[test]
fn sliding_goes_along_one_connection() {
    // White has four pieces and an empty hand: it slides.
    let p = pos("a7 d6 c4 d3", "g1 f2 e5 g4", W, [0, 0], STD);
    assert_eq!(
        moves(&p),
        set(&[
            "a7-d7", "a7-a4", "d6-b6", "d6-d7", "d6-f6", "d6-d5", "c4-c5", "c4-b4", "c4-c3",
            "d3-d2", "d3-e3", "d3-c3",
        ])
    );
    // d3-d5 skips the centre (no such connection), c4-e4 is not a connection.
    assert_eq!(
        p.check(mv("c4-e4")),
        Err(IllegalMove::NotAdjacent(pt("c4"), pt("e4"), W))
    );
    assert_eq!(
        p.check(mv("d3-d5")),
        Err(IllegalMove::NotAdjacent(pt("d3"), pt("d5"), W))
    );
    assert_eq!(
        p.check(Move::place(pt("b2"))),
        Err(IllegalMove::NothingToPlace(W))
    );
    assert_eq!(
        p.check(mv("g1-d1")),
        Err(IllegalMove::NotOwnPiece(pt("g1"), W))
    );
    assert_eq!(p.check(mv("a7-d6")), Err(IllegalMove::Occupied(pt("d6"))));
}

#[test]
fn flying_only_with_exactly_three_and_an_empty_hand() {
    let white = "a7 d7 g1";
    let black = "b6 f6 f4 e3 d2 c3 a4";
    // Standard, three on board, empty hand: any empty point, and g1-g7 closes the top
    // line.
    let p = pos(white, black, W, [0, 0], STD);
    assert!(p.flies());
    assert!(p.is_legal(mv("a7-c5")));
    assert!(p.is_legal(mv("g1-g7xa4")));
    // 3 pieces x 14 empty points = 42 flights; g1-g7 takes one of 7: 41 + 7.
    assert_eq!(p.legal_moves().len(), 48);

    // Four on the board: no flying.
    let four = pos("a7 d7 g1 e4", black, W, [0, 0], STD);
    assert!(!four.flies());
    assert_eq!(
        four.check(mv("a7-c5")),
        Err(IllegalMove::NotAdjacent(pt("a7"), pt("c5"), W))
    );
    assert!(moves(&four).iter().all(|m| !m.starts_with("g1-g7")));

    // Three on the board with one in hand: it places, never moves.
    let in_hand = pos(white, black, W, [1, 0], STD);
    assert!(!in_hand.flies());
    assert_eq!(in_hand.check(mv("a7-c5")), Err(IllegalMove::MustPlace(W)));
    assert!(in_hand.legal_moves().iter().all(|m| m.is_placement()));

    // The opponent's three pieces do not let the side to move fly.
    let black_three = pos("a7 d7 g1 e4 b4", "b6 f6 f4", W, [0, 0], STD);
    assert!(!black_three.flies());
    assert!(!black_three.is_legal(mv("a7-c5")));
    let black_to_move = pos("a7 d7 g1 e4 b4", "b6 f6 f4", B, [0, 0], STD);
    assert!(black_to_move.flies() && black_to_move.is_legal(mv("b6-a1")));
}

#[test]
fn no_flying_variant_never_flies() {
    let p = pos("a7 d7 g1", "b6 f6 f4 e3 d2 c3 a4", W, [0, 0], NOFLY);
    assert!(!p.flies());
    assert_eq!(
        p.check(mv("g1-g7xa4")),
        Err(IllegalMove::NotAdjacent(pt("g1"), pt("g7"), W))
    );
    assert_eq!(moves(&p), set(&["d7-g7", "d7-d6", "g1-g4", "g1-d1"]));
    // Three pieces, walled in: flying would save them in Standard, not here.
    let walled = pos("a7 g7 g1", "d7 g4 d1 a4 b6", W, [0, 0], NOFLY);
    assert_eq!(walled.end(), win(B, EndReason::Blocked));
    assert_terminal(&walled);
    let std = walled.with_variant(STD);
    assert_eq!(std.end(), None);
    assert_eq!(std.legal_moves().len(), 3 * 16);
}

#[test]
fn phases_belong_to_each_player() {
    // White has an empty hand and slides while Black still places.
    let p = pos("a7 d7 b4 c4 e3 f2", "d6 f6 a1 d1", W, [0, 3], STD);
    let white = p.legal_moves();
    assert!(!white.is_empty() && white.iter().all(|m| !m.is_placement()));
    assert_eq!(
        p.check(Move::place(pt("g7"))),
        Err(IllegalMove::NothingToPlace(W))
    );
    let q = play(&p, "f2-f4");
    let black = q.legal_moves();
    assert!(black.iter().all(|m| m.is_placement()));
    // 14 empty points; b6 and g1 close a mill and take any of White's six pieces.
    assert_eq!(black.len(), 12 + 2 * 6);
    assert_eq!(q.check(mv("d6-d5")), Err(IllegalMove::MustPlace(B)));
    let r = play(&q, "b6xf4");
    assert_eq!(r.hand(B), 2);
    assert_eq!(r.pieces(W).count(), 5);
    assert!(r.legal_moves().iter().all(|m| !m.is_placement()));
}

// ---------------------------------------------------------------------------------
// Mills and captures
// ---------------------------------------------------------------------------------

#[test]
fn a_double_mill_takes_exactly_one_piece() {
    // d7 closes a7-d7-g7 and d7-d6-d5 at once.
    let p = pos("a7 g7 d6 d5", "a1 g1 f4 b2", W, [1, 2], STD);
    let d7: BTreeSet<String> = moves(&p)
        .into_iter()
        .filter(|m| m.starts_with("d7"))
        .collect();
    assert_eq!(d7, set(&["d7xa1", "d7xg1", "d7xf4", "d7xb2"]));
    // Two captures read as a move, and the Standard rules refuse the second.
    assert_eq!(p.check(mv("d7xa1xg1")), Err(IllegalMove::ExtraCapture));
    assert_eq!(
        p.check(mv("d7")),
        Err(IllegalMove::MissingCapture(mv("d7")))
    );
    let q = play(&p, "d7xa1");
    assert_eq!(q.pieces(B), bb("g1 f4 b2"));
    assert_eq!(q.hand(B), 2);
    assert_eq!(q.pieces(W), bb("a7 d7 g7 d6 d5"));
    assert_eq!(q.end(), None);
}

#[test]
fn a_mill_must_take_and_a_non_mill_must_not() {
    let p = pos("a7 d7", "b6 f6", W, [7, 7], STD);
    assert_eq!(
        p.check(mv("g7")),
        Err(IllegalMove::MissingCapture(mv("g7")))
    );
    assert_eq!(
        p.check(mv("g1xb6")),
        Err(IllegalMove::UnexpectedCapture(pt("b6")))
    );
    assert_eq!(
        p.check(mv("g7xa1")),
        Err(IllegalMove::NothingToTake(pt("a1"), B))
    );
    assert!(p.is_legal(mv("g7xb6")) && p.is_legal(mv("g7xf6")));
}

#[test]
fn re_forming_a_mill_takes_again_every_time() {
    let start = pos("a7 d7 g7 a1 d1", "b2 f2 c5 e5 c3", W, [0, 0], STD);
    let mut game = Game::new(start);
    play_all(&mut game, "g7-g4 b2-b4");
    // Back in: the same mill, formed again, must take.
    let before = *game.position();
    assert_eq!(
        before.check(mv("g4-g7")),
        Err(IllegalMove::MissingCapture(mv("g4-g7")))
    );
    play_all(&mut game, "g4-g7xc5 b4-b2 g7-g4 b2-b4");
    assert_eq!(game.position().pieces(B).count(), 4);
    let again = *game.position();
    let takes = moves(&again)
        .into_iter()
        .filter(|m| m.starts_with("g4-g7x"))
        .count();
    assert_eq!(takes, 4, "the third forming takes again: {again}");
    play_all(&mut game, "g4-g7xe5");
    let end = *game.position();
    assert_eq!(end.pieces(B), bb("b4 f2 c3"));
    assert_eq!(end.hand(B), 0);
    assert_eq!(game.end(), None, "Black has three and flies");
    assert_eq!(game.moves().len(), 7);
}

#[test]
fn pieces_in_mills_are_taken_only_when_all_are_in_mills() {
    // c5 stands outside Black's mill a1-d1-g1: only c5 may go.
    let p = pos("b6 d6 b2 d2", "a1 d1 g1 c5", W, [2, 3], STD);
    let f6: BTreeSet<String> = moves(&p)
        .into_iter()
        .filter(|m| m.starts_with("f6"))
        .collect();
    assert_eq!(f6, set(&["f6xc5"]));
    assert_eq!(
        p.check(mv("f6xa1")),
        Err(IllegalMove::Protected(pt("a1"), B))
    );
    assert_eq!(p.capturable(), bb("c5"));

    // Every black piece stands in a mill (a1 in two): any of them.
    let q = pos("b6 d6 b2 d2", "a1 d1 g1 a4 a7", W, [2, 4], STD);
    let f6: BTreeSet<String> = moves(&q)
        .into_iter()
        .filter(|m| m.starts_with("f6"))
        .collect();
    assert_eq!(f6, set(&["f6xa1", "f6xd1", "f6xg1", "f6xa4", "f6xa7"]));
    let r = play(&q, "f6xa1");
    assert_eq!(r.pieces(B), bb("d1 g1 a4 a7"));
}

#[test]
fn nothing_to_take_when_the_opponent_has_no_piece_on_the_board() {
    // Placing: g7 closes a mill, Black has pieces only in hand.
    let p = pos("a7 d7", "", W, [3, 5], STD);
    let all = moves(&p);
    assert!(all.contains("g7"));
    assert!(all.iter().all(|m| !m.contains('x')), "{all:?}");
    assert_eq!(all.len(), 22);
    assert_eq!(
        p.check(mv("g7xa1")),
        Err(IllegalMove::UnexpectedCapture(pt("a1")))
    );
    let q = play(&p, "g7");
    assert_eq!(q.pieces(W), bb("a7 d7 g7"));
    assert_eq!((q.pieces(B).count(), q.hand(B)), (0, 5));
    assert_eq!(q.end(), None);

    // Sliding into a mill, same thing.
    let s = pos("a7 d7 g4 b2", "", W, [0, 2], NOFLY);
    assert!(s.is_legal(mv("g4-g7")));
    assert_eq!(play(&s, "g4-g7").end(), None);
}

#[test]
fn taken_pieces_do_not_return_to_the_hand() {
    let start = Position::start(STD);
    let line = notation::parse_moves(&start, "a7 b6 d7 f6 g7xb6").unwrap();
    let (_, p) = *line.last().unwrap();
    assert_eq!(p.pieces(B), bb("f6"));
    assert_eq!(
        p.hand(B),
        7,
        "Black placed two, lost one: 1 + 7 = 8 pieces left"
    );
    assert_eq!(p.hand(W), 6);
    assert_eq!(p.to_string(), "WWW/..B/.../....../.../.../... b 6 7");
    // In random games, a colour's pieces on the board plus in hand drop by one with
    // each capture and never grow.
    let total = |p: &Position, c: Color| p.pieces(c).count() + u32::from(p.hand(c));
    let mut captures = 0;
    for seed in 0..200 {
        let mut rng = Rng::new(seed);
        let mut q = Position::start(if seed % 2 == 0 { STD } else { NOFLY });
        for _ in 0..400 {
            let list = q.legal_moves();
            if list.is_empty() {
                break;
            }
            let m = list[rng.below(list.len())];
            let (us, them) = (q.side_to_move(), q.side_to_move().opponent());
            let next = q.play(m).unwrap();
            assert_eq!(total(&next, us), total(&q, us), "{m} in {q}");
            let lost = u32::from(m.capture().is_some());
            assert_eq!(total(&next, them), total(&q, them) - lost, "{m} in {q}");
            captures += lost;
            q = next;
        }
    }
    assert!(captures > 1000);
}

// ---------------------------------------------------------------------------------
// End of the game
// ---------------------------------------------------------------------------------

#[test]
fn a_capture_to_two_pieces_wins() {
    let p = pos("a7 d7 g4 b4 c4 e3", "g1 d5 f2", W, [0, 0], STD);
    let q = play(&p, "g4-g7xd5");
    assert_eq!(q.side_to_move(), B);
    assert_eq!(q.end(), win(W, EndReason::TwoPieces));
    assert_terminal(&q);
    // The same capture with a piece still in Black's hand is no loss.
    let p = pos("a7 d7 g4 b4 c4 e3", "g1 d5 f2", W, [0, 1], STD);
    let q = play(&p, "g4-g7xd5");
    assert_eq!(q.end(), None);
    assert!(q.legal_moves().iter().all(|m| m.is_placement()));
}

#[test]
fn placing_the_last_piece_with_fewer_than_three_loses() {
    // White has one piece on the board and one in hand: placing it leaves two and an
    // empty hand, whatever the point.
    let p = pos("d7", "a1 d1 b6", W, [1, 2], STD);
    assert_eq!(p.end(), None);
    for m in p.legal_moves().iter() {
        let q = p.play(*m).unwrap();
        assert_eq!(q.side_to_move(), B);
        assert_eq!(q.end(), win(B, EndReason::TwoPieces), "after {m}");
        assert_terminal(&q);
    }
}

#[test]
fn two_pieces_with_pieces_in_hand_is_no_loss() {
    let start = Position::start(NOFLY);
    let (_, p) = *notation::parse_moves(&start, "a7 b6 d7")
        .unwrap()
        .last()
        .unwrap();
    assert_eq!((p.pieces(W).count(), p.hand(W)), (2, 7));
    assert_eq!((p.pieces(B).count(), p.hand(B)), (1, 8));
    assert_eq!(p.end(), None);
    // Down to two by a capture during the opening, still six to place.
    let (_, q) = *notation::parse_moves(&start, "a7 b6 d7 d6 a1 f6xa7")
        .unwrap()
        .last()
        .unwrap();
    assert_eq!((q.pieces(W).count(), q.hand(W)), (2, 6));
    assert_eq!(q.end(), None);
    assert_eq!(q.legal_moves().len(), 24 - 5);
    // Nothing on the board, one in hand: not over either.
    let r = pos("", "a1 d1 g4", W, [1, 0], STD);
    assert_eq!(r.end(), None);
    assert_eq!(r.legal_moves().len(), 21);
}

#[test]
fn a_blocked_side_to_move_loses() {
    // Black's b4-a4 walls White's four corner pieces in.
    let p = pos("a7 g7 g1 a1", "d7 g4 d1 b4 b6", B, [0, 0], STD);
    assert_eq!(p.end(), None);
    let mut game = Game::new(p);
    play_all(&mut game, "b4-a4");
    let q = *game.position();
    assert_eq!(q.end(), win(B, EndReason::Blocked));
    assert_eq!(game.end(), win(B, EndReason::Blocked));
    assert_terminal(&q);
    assert_eq!(game.play(mv("a7-b6")), Err(IllegalMove::GameOver));
    // The same wall in No-flying.
    assert_eq!(q.with_variant(NOFLY).end(), win(B, EndReason::Blocked));
}

#[test]
fn set_up_positions_already_over_are_terminal() {
    for v in Variant::ALL {
        // White reduced, White to move.
        let a = pos("a7 d7", "a1 d1 g4 b6", W, [0, 0], v);
        assert_eq!(a.end(), win(B, EndReason::TwoPieces));
        assert_terminal(&a);
        // White reduced, Black to move: the game is over all the same.
        let b = pos("a7 d7", "a1 d1 g4 b6", B, [0, 0], v);
        assert_eq!(b.end(), win(B, EndReason::TwoPieces));
        assert_terminal(&b);
        assert_eq!(b.check(mv("a1-a4")), Err(IllegalMove::GameOver));
        assert!(matches!(
            notation::parse_moves(&b, "a1-a4"),
            Err(ParseError::Illegal {
                reason: IllegalMove::GameOver,
                ..
            })
        ));
        let mut game = Game::new(b);
        assert_eq!(game.end(), win(B, EndReason::TwoPieces));
        assert_eq!(game.play(mv("a1-a4")), Err(IllegalMove::GameOver));
        // Blocked from the start.
        let c = pos("a7 g7 g1 a1", "d7 g4 d1 a4 b6", W, [0, 0], v);
        assert_eq!(c.end(), win(B, EndReason::Blocked));
        assert_terminal(&c);
        // Black with nothing at all.
        let d = pos("a7 d7 g7", "", B, [0, 0], v);
        assert_eq!(d.end(), win(W, EndReason::TwoPieces));
        assert_terminal(&d);
    }
}

#[test]
fn threefold_repetition_ignores_the_hands() {
    // Black's d-file piece shuttles between two mills, d6 (b6-d6-f6) and d7
    // (a7-d7-g7), and takes each piece White places. Every four plies the points
    // and the side to move are the same again; White's hand is two lower each time.
    let start = pos("a1 g1", "a7 d7 g7 b6 f6", W, [5, 0], STD);
    let mut game = Game::new(start);
    let cycle = "c3 d7-d6xc3 e3 d6-d7xe3";
    play_all(&mut game, cycle);
    let second = *game.position();
    assert_eq!(game.repetitions(), 2);
    assert_eq!(game.end(), None);
    play_all(&mut game, cycle);
    let third = *game.position();
    assert_eq!(
        [start.hand(W), second.hand(W), third.hand(W)],
        [5, 3, 1],
        "the hands differ between the occurrences"
    );
    assert_ne!(start, third);
    assert_eq!(start.repetition_key(), third.repetition_key());
    assert_eq!(start.pieces(W), third.pieces(W));
    assert_eq!(start.pieces(B), third.pieces(B));
    assert_eq!(game.repetitions(), 3);
    let draw = Some(GameEnd::Threefold);
    assert_eq!(game.end(), draw);
    // The position alone does not know its history.
    assert_eq!(third.end(), None);
    assert_eq!(game.play(mv("c3")), Err(IllegalMove::GameOver));
    // Taking the last move back reopens the game.
    assert_eq!(game.undo(), Some(mv("d6-d7xe3")));
    assert_eq!(game.end(), None);
    assert!(game.play(mv("d6-d7xe3")).is_ok());
    assert_eq!(game.end(), draw);
}

#[test]
fn threefold_counts_occurrences_with_the_same_side_to_move() {
    // The key is the points and the side to move.
    let w = pos("a7 d6 c4 d3", "g1 f2 e5 g4", W, [0, 0], STD);
    let b = pos("a7 d6 c4 d3", "g1 f2 e5 g4", B, [0, 0], STD);
    let hands = pos("a7 d6 c4 d3", "g1 f2 e5 g4", W, [3, 2], STD);
    assert_ne!(w.repetition_key(), b.repetition_key());
    assert_eq!(w.repetition_key(), hands.repetition_key());
    // White and Black shuttle: the start comes back every four plies.
    let start = w;
    let mut game = Game::new(start);
    play_all(&mut game, "a7-d7 g1-d1");
    assert_eq!(game.repetitions(), 1);
    play_all(&mut game, "d7-a7 d1-g1");
    assert_eq!(game.repetitions(), 2);
    play_all(&mut game, "a7-d7 g1-d1 d7-a7");
    assert_eq!(game.end(), None);
    play_all(&mut game, "d1-g1");
    assert_eq!(game.repetitions(), 3);
    assert_eq!(game.end().map(|e| e.outcome()), Some(Outcome::Draw));
}

// ---------------------------------------------------------------------------------
// Set-up positions
// ---------------------------------------------------------------------------------

#[test]
fn setup_validation_names_the_problem() {
    let overlap = setup("a7 d7", "d7 g1", W, [0, 0]);
    assert_eq!(overlap.position(STD), Err(SetupError::Overlap(pt("d7"))));

    let too_many = setup("a7 d7 g7 b6 d6", "g1", W, [5, 0]);
    assert_eq!(
        too_many.position(STD),
        Err(SetupError::TooManyPieces {
            color: W,
            on_board: 5,
            in_hand: 5,
            most: 9
        })
    );
    let ten_on_board = setup("a1", "a7 d7 g7 b6 d6 f6 c5 d5 e5 g4", W, [0, 0]);
    assert_eq!(
        ten_on_board.position(NOFLY),
        Err(SetupError::TooManyPieces {
            color: B,
            on_board: 10,
            in_hand: 0,
            most: 9
        })
    );
    // Nine in all is fine, whatever the alternation of a real game would give.
    let nine = setup("a7 d7 g7 b6 d6", "g1", B, [4, 0]);
    assert!(nine.position(STD).is_ok());
    // Through the text format too.
    assert!(matches!(
        notation::parse_position("WWW/WWW/WWW/W...../.../.../... w 0 0", STD),
        Err(ParseError::Setup(SetupError::TooManyPieces {
            color: Color::White,
            on_board: 10,
            in_hand: 0,
            ..
        }))
    ));
}

// ---------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------

/// A position reached by random play from the start. Most walks stop short of the
/// end of the game, so that few of the positions are terminal.
fn random_position(seed: u64, plies: usize, v: Variant) -> Position {
    let mut rng = Rng::new(seed);
    let mut p = Position::start(v);
    for _ in 0..plies {
        let list = p.legal_moves();
        if list.is_empty() {
            break;
        }
        let next = p.play_unchecked(list[rng.below(list.len())]);
        if next.end().is_some() && rng.below(8) != 0 {
            break;
        }
        p = next;
    }
    p
}

fn map_move(s: Symmetry, m: Move) -> Move {
    let to = s.apply_point(m.to());
    let base = match m.from() {
        Some(f) => Move::shift(s.apply_point(f), to),
        None => Move::place(to),
    };
    match m.capture() {
        Some(c) => base.with_capture(s.apply_point(c)),
        None => base,
    }
}

fn candidate(from: Option<usize>, to: usize, capture: Option<usize>) -> Move {
    let to = Point::from_index(to);
    let m = match from {
        Some(f) => Move::shift(Point::from_index(f), to),
        None => Move::place(to),
    };
    match capture {
        Some(c) => m.with_capture(Point::from_index(c)),
        None => m,
    }
}

fn variant(flying: bool) -> Variant {
    if flying {
        STD
    } else {
        NOFLY
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn is_legal_agrees_with_the_move_list(
        seed in any::<u64>(),
        plies in 0usize..160,
        flying in any::<bool>(),
        candidates in prop::collection::vec(
            (prop::option::of(0usize..24), 0usize..24, prop::option::of(0usize..24)),
            1..48,
        ),
        twist in 0usize..24,
    ) {
        let p = random_position(seed, plies, variant(flying));
        let list = p.legal_moves();
        prop_assert_eq!(p.count_legal_moves(), list.len() as u64);
        prop_assert_eq!(list.is_empty(), p.end().is_some());
        for &m in list.iter() {
            prop_assert!(p.is_legal(m), "{} listed but not legal in {}", m, p);
            prop_assert!(p.play(m).is_ok());
            // Near misses: the same move without its capture, or taking elsewhere.
            let bare = m.without_capture();
            prop_assert_eq!(p.is_legal(bare), list.contains(&bare), "{} in {}", bare, p);
            let other = bare.with_capture(Point::from_index(twist));
            prop_assert_eq!(p.is_legal(other), list.contains(&other), "{} in {}", other, p);
        }
        for (from, to, capture) in candidates {
            let m = candidate(from, to, capture);
            prop_assert_eq!(p.is_legal(m), list.contains(&m), "{} in {}", m, p);
            prop_assert_eq!(p.play(m).is_ok(), list.contains(&m));
        }
    }

    #[test]
    fn symmetric_positions_have_symmetric_moves(
        seed in any::<u64>(),
        plies in 0usize..160,
        flying in any::<bool>(),
    ) {
        let p = random_position(seed, plies, variant(flying));
        let setup = p.to_setup();
        let list: BTreeSet<Move> = p.legal_moves().iter().copied().collect();
        for s in Symmetry::ALL {
            let image = Setup {
                pieces: [s.apply(setup.pieces[0]), s.apply(setup.pieces[1])],
                ..setup
            }
            .position(p.rules())
            .unwrap();
            prop_assert_eq!(image.count_legal_moves(), p.count_legal_moves(), "{:?} of {}", s, p);
            prop_assert_eq!(image.end(), p.end());
            let mapped: BTreeSet<Move> = list.iter().map(|&m| map_move(s, m)).collect();
            let theirs: BTreeSet<Move> = image.legal_moves().iter().copied().collect();
            prop_assert_eq!(mapped, theirs, "{:?} of {}", s, p);
            prop_assert_eq!(perft(&image, 2), perft(&p, 2));
            prop_assert_eq!(p.transformed(s), image);
            for &m in &list {
                prop_assert_eq!(m.transformed(s), map_move(s, m));
                prop_assert_eq!(p.play_unchecked(m).transformed(s), image.play_unchecked(m.transformed(s)));
            }
            // One representative per class, reached from every member.
            let (c, to_c) = image.canonical();
            prop_assert_eq!(c, p.canonical().0);
            prop_assert_eq!(image.transformed(to_c), c);
            prop_assert!(Symmetry::ALL.iter().all(|&t| c.packed() <= p.transformed(t).packed()));
        }
    }

    #[test]
    fn positions_of_different_classes_have_different_representatives(
        a in any::<u64>(),
        b in any::<u64>(),
        plies in 0usize..40,
    ) {
        let (p, q) = (random_position(a, plies, Variant::Standard), random_position(b, plies, Variant::Standard));
        let same_class = Symmetry::ALL.iter().any(|&s| p.transformed(s) == q);
        prop_assert_eq!(p.canonical().0 == q.canonical().0, same_class, "{} and {}", p, q);
    }
}

/// The house rules' own refusals, each naming what is wrong.
#[test]
fn house_rules_refuse_captures_they_do_not_allow() {
    let rules = |spec: &str| morris_engine::Rules::parse(spec).unwrap();
    let at = |fen: &str, spec: &str| notation::parse_position(fen, rules(spec)).unwrap();
    let why = |p: &Position, m: &str| p.check(mv(m)).unwrap_err().to_string();
    // Black's pieces all stand in the top mill: under protection=full a mill takes
    // nothing, under protection=none one of them although g1 stands outside.
    let all_in_mill = "BBB/.../.../.WW.../.../.../... w 1 0";
    let full = at(all_in_mill, "standard,protection=full");
    assert!(full.is_legal(mv("a4")));
    assert!(why(&full, "a4xa7").contains("capture is forfeited"));
    let some_free = at(
        "BBB/.../.../.WW.../.../.../..B w 1 0",
        "standard,protection=full",
    );
    assert!(why(&some_free, "a4xa7").contains("no piece in a mill may be taken"));
    assert!(some_free.is_legal(mv("a4xg1")));
    let none = at(
        "BBB/.../.../.WW.../.../.../..B w 1 0",
        "standard,protection=none",
    );
    assert!(none.is_legal(mv("a4xa7")) && none.is_legal(mv("a4xg1")));
    // captures=per-mill: g7 closes two mills and must take two, each allowed in turn.
    let two = at(
        "WW./B.B/.../.....W/.../B../..W w 5 6",
        "standard,captures=per-mill",
    );
    assert!(two.is_legal(mv("g7xb6xf6")) && two.is_legal(mv("g7xf6xb6")));
    assert!(why(&two, "g7xb6").contains("closes two mills"));
    assert!(why(&two, "g7xb6xa1").contains("a1 holds no black piece"));
    // A move closing one mill takes one piece, whatever the rules.
    let one = at(
        "WW./B.B/.../....../.../B../... w 5 6",
        "standard,captures=per-mill",
    );
    assert!(why(&one, "g7xb6xf6").contains("earns one capture"));
    // The last piece the opponent may lose: one capture, as the rules say.
    let last = at(
        "WW./..B/.../.....W/.../.../..W w 5 1",
        "standard,captures=per-mill",
    );
    assert!(last.is_legal(mv("g7xf6")));
    assert_eq!(last.play(mv("g7xf6")).unwrap().pieces(B).count(), 0);
}
