//! Property tests of the text formats: every position string and move the engine
//! writes reads back to the same value, and no input string, however broken, makes a
//! parser panic.

use morris_engine::notation::{
    parse_any_setup, parse_move, parse_moves, parse_point, parse_position, parse_sanmill,
    parse_setup, setup_to_sanmill, setup_to_string,
};
use morris_engine::{Bitboard, Color, Move, Point, Position, Setup, Variant, POINT_COUNT};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// A valid setup: disjoint sets of at most nine points each, hands so that board plus
/// hand is at most nine, either side to move.
fn setup() -> impl Strategy<Value = Setup> {
    (
        Just(Point::ALL.to_vec()).prop_shuffle(),
        0..=9usize,
        0..=9usize,
        any::<(u8, u8)>(),
        any::<bool>(),
    )
        .prop_map(|(points, w, b, (hw, hb), black)| {
            let mut pieces = [Bitboard::EMPTY; 2];
            for &p in &points[..w] {
                pieces[0] |= p.bit();
            }
            for &p in &points[w..w + b] {
                pieces[1] |= p.bit();
            }
            Setup {
                pieces,
                hand: [hw % (10 - w as u8), hb % (10 - b as u8)],
                side_to_move: if black { Color::Black } else { Color::White },
            }
        })
}

fn variant() -> impl Strategy<Value = Variant> {
    prop::sample::select(Variant::ALL.to_vec())
}

fn point() -> impl Strategy<Value = Point> {
    prop::sample::select(Point::ALL.to_vec())
}

/// Any move the notation can write: a placement or a shift between two different
/// points, with or without a capture elsewhere than the destination.
fn any_move() -> impl Strategy<Value = Move> {
    (
        prop::option::of(point()),
        point(),
        prop::option::of(point()),
    )
        .prop_filter("a move changes points", |(from, to, _)| *from != Some(*to))
        .prop_filter("a capture is not on the destination", |(_, to, c)| {
            *c != Some(*to)
        })
        .prop_map(|(from, to, capture)| {
            let m = match from {
                Some(from) => Move::shift(from, to),
                None => Move::place(to),
            };
            match capture {
                Some(c) => m.with_capture(c),
                None => m,
            }
        })
}

/// A random game: each seed picks one legal move until the game ends.
fn play(start: Position, seeds: &[u16]) -> Vec<(Move, Position)> {
    // Played as a game, so a line stops where a game record stops: at the end of the
    // game, threefold repetition included.
    let mut game = morris_engine::Game::new(start);
    let mut line = Vec::new();
    for &seed in seeds {
        let moves = game.position().legal_moves();
        if moves.is_empty() || game.end().is_some() {
            break;
        }
        let m = moves[usize::from(seed) % moves.len()];
        game.play(m).expect("a legal move of a game in progress");
        line.push((m, *game.position()));
    }
    line
}

/// The moves of a line written the way some other programs do: commas or several
/// spaces between moves, captures as their own token, any letter case.
fn loose_text(line: &[(Move, Position)], style: u8) -> String {
    let sep = match style % 3 {
        0 => " ",
        1 => ", ",
        _ => "  \t",
    };
    line.iter()
        .map(|(m, _)| {
            let s = m.to_string();
            let s = if style & 4 != 0 {
                s.replace('x', " x")
            } else {
                s
            };
            if style & 8 != 0 {
                s.to_ascii_uppercase()
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join(sep)
}

#[test]
fn every_point_round_trips() {
    for (i, &p) in Point::ALL.iter().enumerate() {
        assert_eq!(p.index(), i);
        let name = p.to_string();
        assert_eq!(name.len(), 2);
        assert_eq!(parse_point(&name), Ok(p));
        assert_eq!(parse_point(&name.to_ascii_uppercase()), Ok(p));
    }
    let mut valid = 0;
    for file in b'a'..=b'z' {
        for rank in b'0'..=b'9' {
            let name = String::from_utf8(vec![file, rank]).unwrap();
            if parse_point(&name).is_ok() {
                valid += 1;
                assert_eq!(parse_point(&name).unwrap().to_string(), name);
            }
        }
    }
    assert_eq!(valid, POINT_COUNT);
    assert!(parse_point("d4").is_err(), "the centre is not a point");
}

#[test]
fn sample_strings_parse_as_documented() {
    let start = Position::start(Variant::Standard);
    assert_eq!(
        parse_position(".../.../.../....../.../.../... w 9 9", Variant::Standard),
        Ok(start)
    );
    assert_eq!(
        parse_position(
            "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1",
            Variant::Standard
        ),
        Ok(start)
    );
    let setup = parse_setup("W.W/.W./.../.B..../.../.../B.B b 0 1").unwrap();
    let p = |s| parse_point(s).unwrap();
    assert_eq!(
        setup.pieces[0],
        p("a7").bit() | p("g7").bit() | p("d6").bit()
    );
    assert_eq!(
        setup.pieces[1],
        p("b4").bit() | p("a1").bit() | p("g1").bit()
    );
    assert_eq!(setup.hand, [0, 1]);
    assert_eq!(setup.side_to_move, Color::Black);
    assert_eq!(
        setup_to_sanmill(&setup),
        "********/O*****@*/*O*@*@*O b p p 3 0 3 1 0 0 0 0 0 0 0 0 1"
    );
}

proptest! {
    #![proptest_config(Config::with_cases(2000))]

    #[test]
    fn our_string_round_trips(s in setup(), v in variant()) {
        let text = setup_to_string(&s);
        prop_assert_eq!(parse_setup(&text), Ok(s));
        prop_assert_eq!(parse_any_setup(&text), Ok(s));
        prop_assert_eq!(text.parse::<Setup>(), Ok(s));
        prop_assert_eq!(s.to_string(), text.clone());
        let pos = s.position(v).unwrap();
        prop_assert_eq!(pos.to_string(), text.clone());
        prop_assert_eq!(parse_position(&text, v), Ok(pos));
        // Padding with white space changes nothing.
        prop_assert_eq!(parse_setup(&format!("  {}\t", text.replace(' ', "   "))), Ok(s));
    }

    #[test]
    fn sanmill_string_round_trips(s in setup(), v in variant()) {
        let text = setup_to_sanmill(&s);
        prop_assert_eq!(parse_sanmill(&text), Ok(s));
        prop_assert_eq!(parse_any_setup(&text), Ok(s));
        prop_assert_eq!(parse_position(&text, v), Ok(s.position(v).unwrap()));
        // Both notations describe the same position.
        prop_assert_eq!(parse_any_setup(&setup_to_string(&parse_sanmill(&text).unwrap())), Ok(s));
        // Sanmill's move counters are optional.
        let short: Vec<&str> = text.split(' ').take(8).collect();
        prop_assert_eq!(parse_sanmill(&short.join(" ")), Ok(s));
    }

    #[test]
    fn move_round_trips(m in any_move()) {
        let text = m.to_string();
        prop_assert_eq!(parse_move(&text), Ok(m));
        prop_assert_eq!(parse_move(&text.to_ascii_uppercase()), Ok(m));
        prop_assert_eq!(format!("{m:?}"), text.clone());
        prop_assert_eq!(m.is_placement(), !text.contains('-'));
        prop_assert_eq!(m.capture().is_some(), text.contains('x'));
        prop_assert_eq!(m.without_capture().to_string(), text.split('x').next().unwrap());
    }
}

proptest! {
    #![proptest_config(Config::with_cases(500))]

    #[test]
    fn written_games_replay(
        v in variant(),
        seeds in prop::collection::vec(any::<u16>(), 0..120),
        style in any::<u8>(),
    ) {
        let start = Position::start(v);
        let line = play(start, &seeds);
        let text = line.iter().map(|(m, _)| m.to_string()).collect::<Vec<_>>().join(" ");
        prop_assert_eq!(parse_moves(&start, &text), Ok(line.clone()));
        prop_assert_eq!(parse_moves(&start, &loose_text(&line, style)), Ok(line.clone()));
        // Every position along the way reads back from its own string.
        for (_, pos) in &line {
            prop_assert_eq!(parse_position(&pos.to_string(), v), Ok(*pos));
            prop_assert_eq!(
                parse_position(&setup_to_sanmill(&pos.to_setup()), v),
                Ok(*pos)
            );
        }
        // A move after the end of the game is refused, naming it.
        if let Some((_, last)) = line.last() {
            if last.end().is_some() || line.len() < seeds.len() {
                let err = parse_moves(&start, &format!("{text} a1-a4")).unwrap_err();
                prop_assert!(err.to_string().contains("'a1-a4'"), "{}", err);
            }
        }
    }

    #[test]
    fn games_from_set_up_positions_replay(
        s in setup(),
        v in variant(),
        seeds in prop::collection::vec(any::<u16>(), 0..60),
        style in any::<u8>(),
    ) {
        let start = s.position(v).unwrap();
        let line = play(start, &seeds);
        prop_assert_eq!(parse_moves(&start, &loose_text(&line, style)), Ok(line.clone()));
    }

    #[test]
    fn every_legal_move_parses_and_plays(s in setup(), v in variant()) {
        let pos = s.position(v).unwrap();
        for &m in pos.legal_moves().iter() {
            let text = m.to_string();
            prop_assert_eq!(parse_move(&text), Ok(m));
            prop_assert_eq!(parse_moves(&pos, &text), Ok(vec![(m, pos.play_unchecked(m))]));
        }
    }
}

// ------------------------------------------------------------ no input panics

/// Characters the formats are made of, and a few that they are not.
const ALPHABET: &[char] = &[
    'a',
    'b',
    'c',
    'd',
    'e',
    'f',
    'g',
    'h',
    'A',
    'D',
    'G',
    '0',
    '1',
    '2',
    '3',
    '4',
    '5',
    '6',
    '7',
    '8',
    '9',
    '-',
    'x',
    'X',
    '/',
    '.',
    'W',
    'B',
    'w',
    'O',
    '@',
    '*',
    'p',
    'm',
    'r',
    's',
    'n',
    'o',
    ' ',
    ',',
    '\t',
    '\n',
    '+',
    'é',
    '\u{85}',
    '\u{2028}',
    '\0',
    '\u{1F600}',
];

/// Whole tokens of the formats: points, moves, boards, fields.
const TOKENS: &[&str] = &[
    "a1",
    "d6",
    "g7",
    "D4",
    "h8",
    "a1-a4",
    "d6xg7",
    "a1-a4xg7",
    "x",
    "xg7",
    "-",
    "--",
    "xx",
    "...",
    "......",
    "W..",
    ".B.",
    "WWW",
    "/",
    "//",
    "********",
    "O*@*****",
    "OOOOOOOOO",
    "w",
    "b",
    "W",
    "p",
    "m",
    "r",
    "s",
    "0",
    "9",
    "10",
    "255",
    "256",
    "-1",
    "+3",
    "99999999999999999999",
    " ",
    "  ",
    ",",
    "\t",
    "é",
    "\u{0}",
    "X",
];

/// Texts the engine writes, to be mutated.
fn valid_texts() -> Vec<String> {
    let start = Position::start(Variant::Standard);
    let line = parse_moves(&start, "d6 d2 f4 b4 b6 f6 d5 d3 d7xb4 a1 e4 g1 c4").unwrap();
    let mut texts = vec![
        setup_to_string(&Setup::START),
        setup_to_sanmill(&Setup::START),
        "W.W/.W./.../.B..../.../.../B.B w 0 0".to_string(),
        "********/O*****@*/*O*@*@*O w m s 3 0 3 0 0 0 0 0 0 0 0 0 1".to_string(),
        "a7 b6 d7 f6 g7xb6".to_string(),
        "a7, b6 d7 f6 G7 XB6".to_string(),
        "a1-a4xg7".to_string(),
        line.iter()
            .map(|(m, _)| m.to_string())
            .collect::<Vec<_>>()
            .join(" "),
    ];
    for (_, pos) in &line {
        texts.push(pos.to_string());
        texts.push(setup_to_sanmill(&pos.to_setup()));
    }
    texts
}

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize),
    Insert(usize, char),
    Replace(usize, char),
    Swap(usize, usize),
    Duplicate(usize, usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let c = || prop::sample::select(ALPHABET.to_vec());
    prop_oneof![
        any::<usize>().prop_map(Edit::Delete),
        (any::<usize>(), c()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (any::<usize>(), c()).prop_map(|(i, c)| Edit::Replace(i, c)),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Edit::Swap(i, j)),
        (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Edit::Duplicate(i, j)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let n = chars.len();
        match *e {
            Edit::Delete(i) if n > 0 => {
                chars.remove(i % n);
            }
            Edit::Insert(i, c) => chars.insert(i % (n + 1), c),
            Edit::Replace(i, c) if n > 0 => chars[i % n] = c,
            Edit::Swap(i, j) if n > 0 => chars.swap(i % n, j % n),
            Edit::Duplicate(i, len) if n > 0 => {
                let i = i % n;
                let piece: Vec<char> = chars[i..(i + len % 8).min(n)].to_vec();
                chars.splice(i..i, piece);
            }
            Edit::Truncate(i) => chars.truncate(i % (n + 1)),
            _ => {}
        }
    }
    chars.into_iter().collect()
}

/// Feed a string to every parser; where one accepts it, what it read must survive a
/// round trip through the canonical text.
/// Returns whether some parser accepted the text.
fn parse_everything(text: &str) -> Result<bool, TestCaseError> {
    let mut accepted = false;
    if let Ok(p) = parse_point(text) {
        accepted = true;
        prop_assert_eq!(parse_point(&p.to_string()), Ok(p));
    }
    if let Ok(m) = parse_move(text) {
        accepted = true;
        prop_assert_eq!(parse_move(&m.to_string()), Ok(m));
    }
    if let Ok(s) = parse_any_setup(text) {
        accepted = true;
        prop_assert_eq!(parse_setup(&setup_to_string(&s)), Ok(s));
    }
    let _ = parse_setup(text);
    let _ = parse_sanmill(text);
    for v in Variant::ALL {
        if let Ok(pos) = parse_position(text, v) {
            prop_assert_eq!(parse_position(&pos.to_string(), v), Ok(pos));
            prop_assert_eq!(
                parse_position(&setup_to_sanmill(&pos.to_setup()), v),
                Ok(pos)
            );
        }
        let start = Position::start(v);
        if let Ok(line) = parse_moves(&start, text) {
            accepted |= !line.is_empty();
            let again = line
                .iter()
                .map(|(m, _)| m.to_string())
                .collect::<Vec<_>>()
                .join(" ");
            prop_assert_eq!(parse_moves(&start, &again), Ok(line));
        }
    }
    Ok(accepted)
}

#[test]
fn no_string_makes_a_parser_panic() {
    const CASES: u32 = 4000;
    let texts = valid_texts();
    let mut total = 0;
    let mut run = |name: &str, strategy: BoxedStrategy<String>, min_accepted: u32| {
        let mut runner = TestRunner::new(Config::with_cases(CASES));
        let count = std::cell::Cell::new(0u32);
        let accepted = std::cell::Cell::new(0u32);
        runner
            .run(&strategy, |text| {
                count.set(count.get() + 1);
                accepted.set(accepted.get() + u32::from(parse_everything(&text)?));
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let count = count.get();
        assert!(count >= CASES, "{name}: only {count} strings");
        eprintln!("{name}: {count} strings, {} accepted", accepted.get());
        assert!(
            accepted.get() >= min_accepted,
            "{name}: only {} of {count} strings were accepted by some parser",
            accepted.get()
        );
        total += count;
    };
    run(
        "random bytes",
        prop::collection::vec(any::<u8>(), 0..80)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned())
            .boxed(),
        0,
    );
    run("random unicode", any::<String>().boxed(), 0);
    run(
        "mutated valid strings",
        (
            prop::sample::select(texts),
            prop::collection::vec(edit(), 1..4),
        )
            .prop_map(|(t, edits)| apply(&t, &edits))
            .boxed(),
        100,
    );
    run(
        "token soup",
        prop::collection::vec(
            prop_oneof![
                prop::sample::select(TOKENS.to_vec()).prop_map(String::from),
                prop::sample::select(ALPHABET.to_vec()).prop_map(String::from),
            ],
            0..24,
        )
        .prop_map(|tokens| tokens.concat())
        .boxed(),
        1,
    );
    run(
        "move lists",
        prop::collection::vec(
            prop_oneof![
                3 => point().prop_map(|p| p.to_string()),
                1 => (point(), point()).prop_map(|(a, b)| format!("{a}-{b}")),
                1 => point().prop_map(|p| format!("x{p}")),
                1 => any_move().prop_map(|m| m.to_string().to_ascii_uppercase()),
            ],
            0..12,
        )
        .prop_map(|tokens| tokens.join(" "))
        .boxed(),
        100,
    );
    assert!(total >= 10_000, "{total} strings");
    eprintln!("{total} strings parsed");
}
