//! The placement tablebases against an independent naive solver, for small complete
//! games (every side holding `N` pieces, on the board and in hand), under every rule
//! set that has tables: the three boards, flying or not, one capture or one a mill,
//! and the three protection rules.
//!
//! The oracle is plain recursive minimax with a memo over full positions: no index,
//! no symmetry, no colour normalisation (every position has the colours and hands a
//! game gives it), and the rules only through the engine's `legal_moves`, `play` and
//! `end` (themselves checked against the naive model of `tests/oracle.rs` under every
//! switch). Positions with pieces in hand never repeat, so the recursion is finite and
//! its values exact: the winner takes the shortest win, the loser the longest loss,
//! and a finished game has DTM 0. Positions with both hands empty take their values
//! from the movement oracle of `tests/movement_oracle` (its own board, move generation
//! and value iteration), never from the movement tables under test. The movement
//! oracle knows no per-mill captures, and needs none: on the nine and six boards only
//! a placement can close two mills at once, and the twelve board has no per-mill
//! tables.
//!
//! The library side is `placement::solve_game` over movement sectors from
//! `solve_pair`. Every entry of every placement sector is compared, value and DTM,
//! with the oracle's value of its position; then every position the oracle solved on
//! the way (all members of each orbit, either colour to move) is looked up through
//! `PlacementSector::of` and the index, and compared too.

mod movement_oracle;

use morris_builder::placement::solve_game;
use morris_builder::Silent;
use morris_engine::{Bitboard, Board, Captures, Color, Outcome, Position, Rules, Setup, Variant};
use morris_tablebase::{PlacementSector, Sector, SectorIndex, Value, Wdl};
use movement_oracle::{ByteMap, Oracle};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::time::Instant;

/// The oracle's value of a position for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Naive {
    Win(u16),
    Draw,
    Loss(u16),
}

impl Naive {
    /// Larger is better for the side to move: quicker wins, then draws, then slower
    /// losses.
    fn rank(self) -> (u8, i32) {
        match self {
            Naive::Win(d) => (2, -i32::from(d)),
            Naive::Draw => (1, 0),
            Naive::Loss(d) => (0, i32::from(d)),
        }
    }

    /// The value of a position for the side that moved into one valued `self`.
    fn before(self) -> Naive {
        match self {
            Naive::Win(d) => Naive::Loss(d + 1),
            Naive::Draw => Naive::Draw,
            Naive::Loss(d) => Naive::Win(d + 1),
        }
    }

    fn of(v: Value) -> Naive {
        match (v.wdl(), v.dtm()) {
            (Wdl::Win, Some(d)) => Naive::Win(d),
            (Wdl::Loss, Some(d)) => Naive::Loss(d),
            _ => Naive::Draw,
        }
    }
}

/// A hasher for the memo's `u64` keys (packed positions): the splitmix64 finaliser.
#[derive(Default)]
struct Mix(u64);

impl Hasher for Mix {
    fn finish(&self) -> u64 {
        let mut x = self.0;
        x ^= x >> 30;
        x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x ^= x >> 27;
        x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// The naive solver of one rule set's placing phase.
struct NaiveSolver<'a> {
    movement: &'a Oracle,
    /// Engine point set to the movement oracle's point set.
    to_oracle: ByteMap,
    /// Every position with pieces in hand solved so far, by `Position::packed`.
    memo: HashMap<u64, Naive, BuildHasherDefault<Mix>>,
}

impl NaiveSolver<'_> {
    fn new(movement: &Oracle) -> NaiveSolver<'_> {
        // Engine bits off the board (the six board's middle square) map to nothing.
        let mut oracle_point = [None; 24];
        for p in 0..movement.g.points {
            let engine = movement.g.to_engine.apply(1 << p);
            oracle_point[engine.trailing_zeros() as usize] = Some(p);
        }
        NaiveSolver {
            movement,
            to_oracle: ByteMap::new(|e| oracle_point[e].map_or(0, |p| 1 << p)),
            memo: HashMap::default(),
        }
    }

    fn value(&mut self, pos: &Position) -> Naive {
        if let Some(end) = pos.end() {
            return match end.outcome() {
                Outcome::Win(c) if c == pos.side_to_move() => Naive::Win(0),
                Outcome::Win(_) => Naive::Loss(0),
                Outcome::Draw => Naive::Draw,
            };
        }
        if !pos.pieces_in_hand() {
            let (us, them) = (pos.us(), pos.them());
            let table = self
                .movement
                .table(us.count() as usize, them.count() as usize);
            let g = &self.movement.g;
            let (u, t) = (
                self.to_oracle.apply(us.bits()),
                self.to_oracle.apply(them.bits()),
            );
            return match table.get(g, u, t) {
                0 => Naive::Draw,
                n if n % 2 == 0 => Naive::Win(u16::from(n - 1)),
                n => Naive::Loss(u16::from(n - 1)),
            };
        }
        if let Some(&v) = self.memo.get(&pos.packed()) {
            return v;
        }
        let mut best = None::<Naive>;
        for &m in pos.legal_moves().iter() {
            let next = pos.play(m).expect("a generated move is legal");
            let v = self.value(&next).before();
            if best.is_none_or(|b| v.rank() > b.rank()) {
                best = Some(v);
            }
        }
        let v = best.expect("a side with a piece in hand and a free point can place it");
        self.memo.insert(pos.packed(), v);
        v
    }
}

/// The position of a placement sector's entry in the colours a game gives it.
fn game_position(rules: Rules, s: PlacementSector, us: Bitboard, them: Bitboard) -> Position {
    let setup = s.game_setup(us, them);
    Position::from_setup(&setup, rules).expect("a sector entry is a valid position")
}

/// The movement sectors of a game of `max` pieces a side, from the generator.
fn movement_tables(rules: Rules, max: u8) -> Vec<(Sector, Vec<u16>)> {
    morris_builder::generate::solve_movement(rules, max).expect("movement sectors solve")
}

/// The oracle's movement values of a game of `max` pieces a side.
fn movement_oracle(rules: Rules, max: u8) -> Oracle {
    let flying = if rules.flying() {
        Variant::Standard
    } else {
        Variant::NoFlying
    };
    let mut oracle = Oracle::on_board(flying, rules.protection(), rules.board());
    if max >= 3 {
        oracle.solve(usize::from(max), usize::from(max));
    }
    oracle
}

/// Compare every placement value of the game of `max` pieces a side under `rules`
/// with the oracle.
fn check_game(rules: impl Into<Rules>, max: u8) -> Vec<(PlacementSector, Vec<u16>)> {
    let rules: Rules = rules.into();
    let clock = Instant::now();
    let moves = movement_tables(rules, max);
    let lookup = |s: Sector| {
        moves
            .iter()
            .find(|(t, _)| *t == s)
            .map(|(_, v)| v.as_slice())
    };
    let game = solve_game(rules, max, &lookup, &Silent).expect("the game solves");
    let library = clock.elapsed();
    let movement = movement_oracle(rules, max);
    let mut naive = NaiveSolver::new(&movement);
    let mut entries = 0u64;
    let mut wrong = Vec::new();
    for (sector, values) in &game {
        let index = SectorIndex::get(
            rules.board(),
            usize::from(sector.us),
            usize::from(sector.them),
        );
        assert_eq!(values.len() as u64, index.size(), "{sector}");
        for (i, &raw) in values.iter().enumerate() {
            let (us, them) = index.position(i as u64);
            let pos = game_position(rules, *sector, us, them);
            let (mine, theirs) = (naive.value(&pos), Naive::of(Value(raw)));
            assert!(Value(raw).is_well_formed(), "{sector} entry {i}: {raw:#x}");
            if mine != theirs {
                wrong.push(format!(
                    "{sector} entry {i}: oracle {mine:?}, tables {theirs:?} ({})",
                    Value(raw)
                ));
            }
            entries += 1;
        }
    }
    let oracle = clock.elapsed() - library;
    // Every position the oracle met, in its own colours and orientation.
    let mut positions = 0u64;
    for (&packed, &mine) in &naive.memo {
        let bits = |shift: u32| Bitboard::from_bits_truncate((packed >> shift) as u32 & 0xFF_FFFF);
        let setup = Setup {
            pieces: [bits(0), bits(24)],
            hand: [(packed >> 48 & 0xF) as u8, (packed >> 52 & 0xF) as u8],
            side_to_move: if packed >> 56 & 1 == 0 {
                Color::White
            } else {
                Color::Black
            },
        };
        let pos = Position::from_setup(&setup, rules).expect("the oracle's own position");
        let sector = PlacementSector::of(&pos).expect("a game position has a sector");
        let (_, values) = game
            .iter()
            .find(|(s, _)| *s == sector)
            .unwrap_or_else(|| panic!("{sector} belongs to the game"));
        let index = SectorIndex::get(
            rules.board(),
            usize::from(sector.us),
            usize::from(sector.them),
        );
        let theirs = Naive::of(Value(values[index.index(pos.us(), pos.them()) as usize]));
        if mine != theirs {
            wrong.push(format!(
                "{sector} position {setup:?}: oracle {mine:?}, tables {theirs:?}"
            ));
        }
        positions += 1;
    }
    let start = Position::from_setup(
        &Setup {
            pieces: [Bitboard::EMPTY; 2],
            hand: [max; 2],
            side_to_move: Color::White,
        },
        rules,
    )
    .expect("the start of the game");
    eprintln!(
        "{rules}, {max} pieces a side: start {:?}; {} sectors, {entries} entries, {positions} \
         positions; tables {:.1} s, oracle {:.1} s",
        naive.value(&start),
        game.len(),
        library.as_secs_f64(),
        oracle.as_secs_f64()
    );
    assert!(
        wrong.is_empty(),
        "{rules}, {max} pieces a side: {} disagreements, first: {}",
        wrong.len(),
        wrong[0]
    );
    assert_eq!(game.len(), PlacementSector::all(max).len());
    game
}

/// The table games of a board: flying or not, each capture and protection rule.
fn table_games(board: Board) -> Vec<Rules> {
    Rules::table_games()
        .filter(|r| r.board() == board)
        .collect()
}

/// Every table game of `board` with `max` pieces a side against the oracle.
fn check_board(board: Board, max: u8) {
    let games = table_games(board);
    assert_eq!(games.len(), if board == Board::Twelve { 6 } else { 12 });
    for rules in games {
        check_game(rules, max);
    }
}

/// How many entries of two solutions of the same game differ.
fn differences(a: &[(PlacementSector, Vec<u16>)], b: &[(PlacementSector, Vec<u16>)]) -> usize {
    a.iter()
        .zip(b)
        .map(|((s, x), (t, y))| {
            assert_eq!(s, t);
            x.iter().zip(y).filter(|(p, q)| p != q).count()
        })
        .sum()
}

/// Hand-checked values, so that the oracle itself can be seen to fail.
#[test]
fn oracle_gets_rule_1_right() {
    let movement = movement_oracle(Rules::STANDARD, 3);
    let mut naive = NaiveSolver::new(&movement);
    let pos = |white: &str, black: &str, hand: [u8; 2], side: Color| {
        let board = |s: &str| {
            s.split_whitespace()
                .map(|p| morris_engine::notation::parse_point(p).expect("a point"))
                .collect::<Bitboard>()
        };
        let setup = Setup {
            pieces: [board(white), board(black)],
            hand,
            side_to_move: side,
        };
        Position::from_setup(&setup, Variant::Standard).expect("a valid position")
    };
    // Two pieces a side: no mill ever closes, and White's last placement leaves it
    // two pieces: lost in 3 from the start.
    assert_eq!(
        naive.value(&pos("", "", [2, 2], Color::White)),
        Naive::Loss(3)
    );
    // White closes a7-d7-g7 and takes a piece; Black, one on the board and one in
    // hand, must place it and loses by its own move.
    assert_eq!(
        naive.value(&pos("a7 d7", "a1 d1", [1, 1], Color::White)),
        Naive::Win(2)
    );
    // Black closes the mill with its last piece: White is left two.
    assert_eq!(
        naive.value(&pos("a1 d1 b2", "a7 d7", [0, 1], Color::Black)),
        Naive::Win(1)
    );
    // White has an empty hand and two pieces: Black to move has won already.
    assert_eq!(
        naive.value(&pos("a1 d1", "a7", [0, 1], Color::Black)),
        Naive::Win(0)
    );
}

#[test]
fn placement_matches_oracle_up_to_two_pieces() {
    for variant in Variant::ALL {
        for max in 1..=2 {
            check_game(variant, max);
        }
    }
}

#[test]
fn placement_matches_oracle_standard_three_pieces() {
    check_game(Variant::Standard, 3);
}

#[test]
fn placement_matches_oracle_no_flying_three_pieces() {
    check_game(Variant::NoFlying, 3);
}

#[test]
fn placement_matches_oracle_on_the_six_board_under_every_rule_set_three_pieces() {
    check_board(Board::Six, 3);
}

/// The protection rules with three pieces on the nine board, and the twelve board's
/// preset (the rest of both boards' three-piece games are `--ignored`).
#[test]
fn placement_matches_oracle_under_each_protection_and_on_the_twelve_board_three_pieces() {
    use morris_engine::Protection;
    for protection in [Protection::None, Protection::Full] {
        check_game(Rules::STANDARD.with_protection(protection), 3);
    }
    check_game(Rules::TWELVE_MENS, 3);
}

#[test]
#[ignore = "slow: the eighteen table games of the nine and twelve boards, 10 to 20 s each in --release; run with --ignored"]
fn placement_matches_oracle_on_the_nine_and_twelve_boards_under_every_rule_set_three_pieces() {
    check_board(Board::Nine, 3);
    check_board(Board::Twelve, 3);
}

#[test]
#[ignore = "slow: 1 to 1.5 minutes and 1.3 GB in --release (the movement oracle solves 4-4, the naive solver visits 20 million positions); run with --ignored"]
fn placement_matches_oracle_standard_four_pieces() {
    check_game(Variant::Standard, 4);
}

#[test]
#[ignore = "slow: 1 to 1.5 minutes and 1.3 GB in --release (the movement oracle solves 4-4, the naive solver visits 20 million positions); run with --ignored"]
fn placement_matches_oracle_no_flying_four_pieces() {
    check_game(Variant::NoFlying, 4);
}

#[test]
#[ignore = "slow: the twelve table games of the nine board, about a minute each in --release; run with --ignored"]
fn placement_matches_oracle_on_the_nine_board_under_every_rule_set_four_pieces() {
    check_board(Board::Nine, 4);
}

#[test]
#[ignore = "slow: the six table games of the twelve board, about a minute each in --release; run with --ignored"]
fn placement_matches_oracle_on_the_twelve_board_under_every_rule_set_four_pieces() {
    check_board(Board::Twelve, 4);
}

#[test]
#[ignore = "slow: the twelve table games of the six board, 10 to 20 s each in --release; run with --ignored"]
fn placement_matches_oracle_on_the_six_board_under_every_rule_set_four_pieces() {
    check_board(Board::Six, 4);
}

/// The whole game of the six board (six pieces a side), under every switch, where
/// the house rules act: a placement closing two mills (five of the mover's pieces)
/// takes two under per-mill captures, and the protection rules change which piece a
/// mill takes. Each game agrees with the oracle entry by entry, and each switch
/// changes values of the preset's game.
#[test]
#[ignore = "slow: twelve games of the six board, 20 to 60 s each in --release; run with --ignored"]
fn six_mens_morris_matches_oracle_under_every_switch() {
    use morris_engine::Protection;
    for flying in [false, true] {
        let base = Rules::SIX_MENS.with_flying(flying);
        let preset = check_game(base, 6);
        for captures in [Captures::One, Captures::PerMill] {
            for protection in [Protection::Standard, Protection::None, Protection::Full] {
                let rules = base.with_captures(captures).with_protection(protection);
                if rules == base {
                    continue;
                }
                let game = check_game(rules, 6);
                let changed = differences(&preset, &game);
                eprintln!("{rules}: {changed} placement entries differ from {base}");
                assert!(
                    changed > 0,
                    "{rules} plays the six-piece game as {base} does"
                );
            }
        }
    }
}
