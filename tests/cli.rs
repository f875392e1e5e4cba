//! Command-line tests: run the built `morris` binary and check what it prints and how
//! it exits. Good input exits 0; bad input exits 2 with exactly one line on standard
//! error, `error: ...`, that names the offending token, and never a panic.

mod common;

use common::{morris, ok, refused, text};

const START_OURS: &str = ".../.../.../....../.../.../... w 9 9";
const START_SANMILL: &str = "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1";

/// White a7 g7 d6, Black b4 a1 g1, nobody holds a piece: both fly in Standard.
const FLYING: &str = "W.W/.W./.../.B..../.../.../B.B w 0 0";

/// After "a7 b6 d7 f6 g7xb6": the same position in both notations.
const AFTER_G7XB6_OURS: &str = "WWW/..B/.../....../.../.../... b 6 7";
const AFTER_G7XB6_SANMILL: &str = "********/*@******/OO*****O b p p 3 6 1 7 0 0 0 0 0 0 0 0 1";

/// Bad input: exit 2, one line `error: ...` naming `token`, nothing on stdout.
fn bad(args: &[&str], token: &str) {
    let error = refused(args);
    assert!(
        error.contains(token),
        "morris {args:?}: error does not name {token:?}: {error:?}"
    );
}

fn lines(s: &str) -> Vec<&str> {
    s.lines().collect()
}

fn field<'a>(out: &'a str, key: &str) -> &'a str {
    out.lines()
        .find_map(|l| l.strip_prefix(key))
        .unwrap_or_else(|| panic!("no line starting with {key:?} in:\n{out}"))
        .trim()
}

// ---------------------------------------------------------------- show

#[test]
fn show_start() {
    let out = ok(&["show"]);
    assert!(out.starts_with("7  .-----------.-----------.\n"), "{out}");
    assert!(out.contains("4  .---.---.       .---.---.\n"), "{out}");
    assert!(out.contains("1  .-----------.-----------.\n"), "{out}");
    assert!(out.contains("   a   b   c   d   e   f   g\n"), "{out}");
    assert!(!out.contains('W') && !out.contains('B'), "{out}");
    assert_eq!(field(&out, "position:"), START_OURS);
    assert_eq!(field(&out, "sanmill:"), START_SANMILL);
    assert_eq!(field(&out, "variant:"), "standard");
    assert_eq!(field(&out, "white:"), "0 on board, 9 in hand, placing");
    assert_eq!(field(&out, "black:"), "0 on board, 9 in hand, placing");
    assert_eq!(field(&out, "to move:"), "white (24 legal moves)");
}

#[test]
fn show_after_moves() {
    let out = ok(&["show", "--moves", "a7 b6 d7 f6 g7xb6"]);
    assert!(out.starts_with("7  W-----------W-----------W\n"), "{out}");
    assert!(out.contains("6  |   .-------.-------B   |\n"), "{out}");
    let diagram: String = out.lines().take(13).collect();
    assert_eq!(diagram.matches('W').count(), 3, "{out}");
    assert_eq!(diagram.matches('B').count(), 1, "{out}");
    assert_eq!(field(&out, "position:"), AFTER_G7XB6_OURS);
    assert_eq!(field(&out, "sanmill:"), AFTER_G7XB6_SANMILL);
    assert_eq!(field(&out, "white:"), "3 on board, 6 in hand, placing");
    assert_eq!(field(&out, "black:"), "1 on board, 7 in hand, placing");
    assert_eq!(field(&out, "to move:"), "black (20 legal moves)");
}

#[test]
fn show_accepts_both_position_strings() {
    let by_moves = ok(&["show", "--moves", "a7 b6 d7 f6 g7xb6"]);
    assert_eq!(ok(&["show", "--fen", AFTER_G7XB6_OURS]), by_moves);
    assert_eq!(ok(&["show", "--fen", AFTER_G7XB6_SANMILL]), by_moves);
    // The capture may stand as its own token, and commas separate too.
    assert_eq!(
        ok(&["show", "--moves", "A7, b6 d7,f6 G7 XB6"]),
        by_moves,
        "loose move list"
    );
    assert_eq!(
        ok(&[
            "show",
            "--fen",
            START_SANMILL,
            "--moves",
            "a7 b6 d7 f6 g7xb6"
        ]),
        by_moves
    );
    assert_eq!(ok(&["show", "--fen", START_OURS]), ok(&["show"]));
}

#[test]
fn show_sanmill_moving_phase() {
    // Sanmill: inner ring d5 e5 e4 e3 d3 c3 c4 c5, middle d6 f6 f4 f2 d2 b2 b4 b6,
    // outer d7 g7 g4 g1 d1 a1 a4 a7.
    let sanmill = "********/O*****@*/*O*@*@*O w m s 3 0 3 0 0 0 0 0 0 0 0 0 1";
    let out = ok(&["show", "--fen", sanmill]);
    assert_eq!(field(&out, "position:"), FLYING);
    assert_eq!(field(&out, "sanmill:"), sanmill);
    assert!(out.starts_with("7  W-----------.-----------W\n"), "{out}");
    assert!(out.contains("6  |   .-------W-------.   |\n"), "{out}");
    assert!(out.contains("4  .---B---.       .---.---.\n"), "{out}");
    assert!(out.contains("1  B-----------.-----------B\n"), "{out}");
    assert_eq!(field(&out, "white:"), "3 on board, 0 in hand, flying");
    assert_eq!(field(&out, "black:"), "3 on board, 0 in hand, flying");
    assert_eq!(field(&out, "to move:"), "white (56 legal moves)");
    // Sanmill's trailing fields are optional, and our string gives the same output.
    let short = "********/O*****@*/*O*@*@*O w m s 3 0 3 0";
    assert_eq!(ok(&["show", "--fen", short]), out);
    assert_eq!(ok(&["show", "--fen", FLYING]), out);
}

#[test]
fn show_round_trips_its_own_strings() {
    for args in [
        vec!["show"],
        vec!["show", "--moves", "d6 d2 f4 b4 b6 f6 d5 d3 d7xb4"],
        vec!["show", "--fen", FLYING],
        vec!["show", "--variant", "no-flying", "--fen", FLYING],
        vec!["show", "--fen", "WW./BBB/.../....../.../.../..B w 1 0"],
    ] {
        let out = ok(&args);
        let variant: Vec<&str> = if args.contains(&"no-flying") {
            vec!["--variant", "no-flying"]
        } else {
            vec![]
        };
        for key in ["position:", "sanmill:"] {
            let fen = field(&out, key);
            let mut again = vec!["show", "--fen", fen];
            again.extend(&variant);
            assert_eq!(ok(&again), out, "{key} {fen}");
        }
    }
}

#[test]
fn show_reports_a_finished_game() {
    let out = ok(&["show", "--fen", "WWW/.../.../....../.../.../..B b 0 0"]);
    assert_eq!(
        field(&out, "game over:"),
        "white wins: black has an empty hand and at most two pieces"
    );
    assert!(!out.contains("to move:"), "{out}");
    // Black to move, every piece blocked.
    let blocked = "BW./.../.../W....W/.../.../BWB b 0 0";
    let out = ok(&["show", "--variant", "no-flying", "--fen", blocked]);
    assert_eq!(
        field(&out, "game over:"),
        "white wins: black is to move and is blocked"
    );
    // In Standard the three black pieces fly out.
    let out = ok(&["show", "--fen", blocked]);
    assert_eq!(field(&out, "to move:"), "black (51 legal moves)");
}

// ---------------------------------------------------------------- moves

#[test]
fn moves_at_the_start() {
    let out = ok(&["moves"]);
    let mut expected: Vec<String> =
        "a1 a4 a7 b2 b4 b6 c3 c4 c5 d1 d2 d3 d5 d6 d7 e3 e4 e5 f2 f4 f6 g1 g4 g7"
            .split(' ')
            .map(String::from)
            .collect();
    expected.sort();
    assert_eq!(lines(&out), expected);
    assert_eq!(lines(&out).len(), 24);
}

#[test]
fn moves_with_captures() {
    let out = ok(&["moves", "--moves", "a7 b6 d7 f6"]);
    assert!(lines(&out).contains(&"g7xb6"), "{out}");
    assert!(lines(&out).contains(&"g7xf6"), "{out}");
    assert!(!lines(&out).contains(&"g7"), "{out}");
    assert_eq!(
        lines(&out),
        [
            "a1", "a4", "b2", "b4", "c3", "c4", "c5", "d1", "d2", "d3", "d5", "d6", "e3", "e4",
            "e5", "f2", "f4", "g1", "g4", "g7xb6", "g7xf6"
        ]
    );
}

#[test]
fn moves_exact_list_when_sliding() {
    let out = ok(&["moves", "--variant", "no-flying", "--fen", FLYING]);
    assert_eq!(
        lines(&out),
        [
            "a7-a4", "a7-d7", "d6-b6", "d6-d5", "d6-d7xa1", "d6-d7xb4", "d6-d7xg1", "d6-f6",
            "g7-d7", "g7-g4"
        ]
    );
}

#[test]
fn moves_are_sorted_and_distinct() {
    for args in [
        vec!["moves", "--fen", FLYING],
        vec!["moves", "--moves", "d6 d2 f4 b4 b6 f6 d5 d3"],
    ] {
        let out = ok(&args);
        let got = lines(&out);
        let mut sorted = got.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(got, sorted, "{args:?}");
    }
}

#[test]
fn moves_of_a_finished_game() {
    let out = morris(["moves", "--fen", "WWW/.../.../....../.../.../..B b 0 0"]).output();
    assert!(out.status.success());
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert!(text(&out.stderr).starts_with("game over: white wins"));
}

#[test]
fn flying_depends_on_the_variant() {
    let standard = ok(&["moves", "--fen", FLYING]);
    let no_flying = ok(&["moves", "--variant", "no-flying", "--fen", FLYING]);
    // Flights: 3 pieces to 18 empty points, d6 to d7 closes a mill taking one of 3.
    assert_eq!(lines(&standard).len(), 3 * 18 - 1 + 3);
    assert_eq!(lines(&no_flying).len(), 10);
    assert!(lines(&standard).contains(&"a7-e3"), "{standard}");
    assert!(!lines(&no_flying).contains(&"a7-e3"), "{no_flying}");
    assert_eq!(ok(&["perft", "1", "--fen", FLYING]).trim(), "perft 1: 56");
    assert_eq!(
        ok(&["perft", "1", "--variant", "no-flying", "--fen", FLYING]).trim(),
        "perft 1: 10"
    );
    let show = ok(&["show", "--variant", "no-flying", "--fen", FLYING]);
    assert_eq!(field(&show, "variant:"), "no-flying");
    assert_eq!(field(&show, "white:"), "3 on board, 0 in hand, sliding");
    assert_eq!(field(&show, "to move:"), "white (10 legal moves)");
}

// ---------------------------------------------------------------- perft

#[test]
fn perft_from_the_start() {
    for (depth, total) in [(1, 24), (2, 552), (3, 12144), (4, 255024)] {
        let out = ok(&["perft", &depth.to_string()]);
        assert_eq!(out, format!("perft {depth}: {total}\n"));
        let out = ok(&["perft", &depth.to_string(), "--variant", "no-flying"]);
        assert_eq!(out, format!("perft {depth}: {total}\n"), "no-flying");
    }
}

fn check_divide(args: &[&str], depth: u32) -> u64 {
    let out = ok(args);
    let all = lines(&out);
    let (last, divide) = all.split_last().expect("perft prints a total");
    let total: u64 = last
        .strip_prefix(&format!("perft {depth}: "))
        .unwrap_or_else(|| panic!("bad total line {last:?}"))
        .parse()
        .unwrap();
    let mut sum = 0;
    let mut names = Vec::new();
    for line in divide {
        let (m, n) = line.split_once(": ").expect("divide line 'move: count'");
        names.push(m);
        sum += n.parse::<u64>().unwrap();
    }
    assert_eq!(sum, total, "{args:?}");
    // One line for each legal move, sorted.
    let mut moves_args = vec!["moves"];
    moves_args.extend(&args[2..]);
    moves_args.retain(|a| *a != "--divide");
    let moves = ok(&moves_args);
    assert_eq!(names, lines(&moves), "{args:?}");
    total
}

#[test]
fn perft_divide_sums_to_the_total() {
    assert_eq!(check_divide(&["perft", "4", "--divide"], 4), 255024);
    assert_eq!(check_divide(&["perft", "1", "--divide"], 1), 24);
    check_divide(&["perft", "3", "--divide", "--moves", "a7 b6 d7 f6"], 3);
    check_divide(&["perft", "3", "--divide", "--fen", FLYING], 3);
    check_divide(
        &[
            "perft",
            "3",
            "--divide",
            "--variant",
            "no-flying",
            "--fen",
            FLYING,
        ],
        3,
    );
}

#[test]
fn perft_of_a_finished_game_is_zero() {
    let out = ok(&[
        "perft",
        "2",
        "--divide",
        "--fen",
        "WWW/.../.../....../.../.../..B b 0 0",
    ]);
    assert_eq!(out, "perft 2: 0\n");
}

// ---------------------------------------------------------------- bad input

/// (arguments, the token the error must name)
const BAD_INPUTS: &[(&[&str], &str)] = &[
    // Malformed points and moves.
    (&["show", "--moves", "d4"], "'d4'"),
    (&["show", "--moves", "h1"], "'h1'"),
    (&["show", "--moves", "a0"], "'a0'"),
    (&["show", "--moves", "a8"], "'a8'"),
    (&["show", "--moves", "a"], "'a'"),
    (&["show", "--moves", "a77"], "'a77'"),
    (&["show", "--moves", "a7 b6 7a"], "'7a'"),
    (&["show", "--moves", "é7"], "'é7'"),
    (&["show", "--moves", "a7-"], "'a7-'"),
    (&["show", "--moves", "-a7"], "'-a7'"),
    (&["show", "--moves", "a7-a7"], "'a7-a7'"),
    (&["show", "--moves", "a7--a4"], "'a7--a4'"),
    (&["show", "--moves", "a1-a4-a7"], "'a1-a4-a7'"),
    (&["show", "--moves", "a7x"], "'a7x'"),
    (&["show", "--moves", "a7xx"], "'a7xx'"),
    (&["show", "--moves", "d6xd6"], "'d6xd6'"),
    (&["show", "--moves", "d6xg7xa1"], "'d6xg7xa1'"),
    (&["show", "--moves", "x"], "'x'"),
    (&["show", "--moves", "xb6"], "'xb6'"),
    (&["show", "--moves", "a7 b6 x"], "'x'"),
    (&["moves", "--moves", "a7 b6 d7 f6 g7xb6 xf6"], "'xf6'"),
    (&["perft", "1", "--moves", "a7 b6;"], "'b6;'"),
    // Illegal moves.
    (&["show", "--moves", "a7 a7"], "'a7'"),
    (&["show", "--moves", "a7 b6 d7 f6 g7"], "'g7'"),
    (
        &["show", "--moves", "a7 b6 d7 d6 a1 f6xa1 g1 g4 g7xd6"],
        "'g7xd6'",
    ),
    (
        &[
            "show",
            "--fen",
            "WW./BBB/.../....../.../.../..B w 1 0",
            "--moves",
            "g7xd6",
        ],
        "'g7xd6'",
    ),
    (
        &[
            "show",
            "--variant",
            "no-flying",
            "--fen",
            FLYING,
            "--moves",
            "a7-b6",
        ],
        "'a7-b6'",
    ),
    (
        &[
            "show",
            "--variant",
            "no-flying",
            "--fen",
            FLYING,
            "--moves",
            "g7-g1",
        ],
        "'g7-g1'",
    ),
    (&["show", "--fen", FLYING, "--moves", "a7-a1"], "'a7-a1'"),
    (&["show", "--fen", FLYING, "--moves", "b4-b6"], "'b4-b6'"),
    (&["show", "--fen", FLYING, "--moves", "d6"], "'d6'"),
    (&["show", "--fen", FLYING, "--moves", "d6-d7"], "'d6-d7'"),
    (
        &["show", "--fen", FLYING, "--moves", "d6-d7xa7"],
        "'d6-d7xa7'",
    ),
    (&["show", "--moves", "a7-d7"], "'a7-d7'"),
    (&["show", "--moves", "a7xb6"], "'a7xb6'"),
    (&["show", "--moves", "a7 b6 d7 f6 g7xa1"], "'g7xa1'"),
    (
        &[
            "moves",
            "--fen",
            "WWW/.../.../....../.../.../..B b 0 0",
            "--moves",
            "a1",
        ],
        "'a1'",
    ),
    // Our position strings.
    (&["show", "--fen", "xx"], "'xx'"),
    (&["show", "--fen", "..././... w 9 9"], "'..././...'"),
    (
        &["show", "--fen", "..../.../.../....../.../.../... w 9 9"],
        "'....'",
    ),
    (
        &["show", "--fen", ".../.../.../...../.../.../... w 9 9"],
        "'.....'",
    ),
    (
        &["show", "--fen", ".../.../.../....../.../.../.../... w 9 9"],
        "'.../.../.../....../.../.../.../...'",
    ),
    (
        &["show", "--fen", "..X/.../.../....../.../.../... w 9 9"],
        "'X'",
    ),
    (
        &["show", "--fen", ".../.../.../...0../.../.../... w 9 9"],
        "'0'",
    ),
    (&["show", "--fen", ".../.../.../....../.../.../..."], "side"),
    (
        &["show", "--fen", ".../.../.../....../.../.../... x 9 9"],
        "'x'",
    ),
    (
        &["show", "--fen", ".../.../.../....../.../.../... white 9 9"],
        "'white'",
    ),
    (
        &["show", "--fen", ".../.../.../....../.../.../... w 9"],
        "Black's hand",
    ),
    (
        &["show", "--fen", ".../.../.../....../.../.../... w 10 9"],
        "10 in hand: at most 9",
    ),
    (
        &["show", "--fen", ".../.../.../....../.../.../... w 13 9"],
        "'13'",
    ),
    (
        &[
            "show",
            "--rules",
            "standard,pieces=6",
            "--fen",
            ".../.../.../....../.../.../... w 7 6",
        ],
        "7 in hand: at most 6",
    ),
    (
        &["show", "--rules", "standard,captures=all"],
        "one or per-mill",
    ),
    (&["generate", "--rules", "twelve-mens"], "give --max-pieces"),
    (
        &["generate", "--rules", "six-mens", "--max-pieces", "9"],
        "hold at most 8 pieces a side",
    ),
    (
        &["generate", "--rules", "six-mens,pieces=9"],
        "give --max-pieces",
    ),
    (
        &["generate", "--rules", "six-mens", "--sector", "9-8"],
        "does not fit on the six board",
    ),
    (
        &["show", "--rules", "twelve-mens,captures=per-mill"],
        "three mills",
    ),
    (
        &[
            "show",
            "--rules",
            "six-mens",
            "--fen",
            ".../W../.../....../.../.../... w 0 0",
        ],
        "b6 is not a point of the six board",
    ),
    (&["show", "--rules", "six-mens", "--moves", "b6"], "b6"),
    (
        &["show", "--rules", "standard", "--variant", "no-flying"],
        "cannot be used with",
    ),
    (
        &["show", "--fen", ".../.../.../....../.../.../... w -1 9"],
        "'-1'",
    ),
    (
        &["show", "--fen", ".../.../.../....../.../.../... w 9 nine"],
        "'nine'",
    ),
    (
        &["show", "--fen", ".../.../.../....../.../.../... w 9 256"],
        "'256'",
    ),
    (
        &["show", "--fen", ".../.../.../....../.../.../... w 9 9 0"],
        "'0'",
    ),
    (
        &["show", "--fen", "WWW/WWW/WWW/W...../.../.../... w 0 0"],
        "white has 10 pieces on the board",
    ),
    (
        &["show", "--fen", "WWW/WWW/WWW/....../.../.../... w 1 0"],
        "white has 9 pieces on the board and 1 in hand",
    ),
    (
        &["show", "--fen", "BBB/.../.../....../.../.../... b 0 7"],
        "black has 3 pieces on the board and 7 in hand",
    ),
    (&["show", "--fen", ""], "empty position string"),
    // Sanmill's position strings.
    (
        &[
            "show",
            "--fen",
            "********/********/******** w p r 0 9 0 9 0 0 0 0 0 0 0 0 1",
        ],
        "'r'",
    ),
    (
        &["show", "--fen", "********/********/******** w p q 0 9 0 9"],
        "'q'",
    ),
    (
        &["show", "--fen", "********/********/******** w z p 0 9 0 9"],
        "'z'",
    ),
    (
        &["show", "--fen", "********/********/******** o p p 0 9 0 9"],
        "'o'",
    ),
    (
        &["show", "--fen", "********/********/******* w p p 0 9 0 9"],
        "'********/********/*******'",
    ),
    (
        &["show", "--fen", "********/********/********* w p p 0 9 0 9"],
        "'********/********/*********'",
    ),
    (
        &["show", "--fen", "********/***#****/******** w p p 0 9 0 9"],
        "'#'",
    ),
    (
        &["show", "--fen", "********/********/X******* w p p 0 9 0 9"],
        "'X'",
    ),
    (
        &["show", "--fen", "********/********/O******* w p p 0 9 0 9"],
        "board shows 1",
    ),
    (
        &["show", "--fen", "********/********/@@****** w p p 0 9 3 6"],
        "said to have 3",
    ),
    (
        &["show", "--fen", "********/********/******** w p p 0 10 0 9"],
        "10 in hand: at most 9",
    ),
    (
        &["show", "--fen", "********/********/******** w p p 0 9 0"],
        "Black's hand",
    ),
    (
        &["show", "--fen", "********/********/******** w p"],
        "action",
    ),
    (
        &[
            "show",
            "--fen",
            "********/********/******** w p p 0 9 0 9 1 0 0 0 0 0 0 0 1",
        ],
        "'1'",
    ),
    (
        &[
            "show",
            "--fen",
            "********/********/******** w p p 0 9 0 9 0 2 0 0 0 0 0 0 1",
        ],
        "'2'",
    ),
    (
        &[
            "show",
            "--fen",
            "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 one",
        ],
        "'one'",
    ),
    (
        &["show", "--fen", "OOOOOOOO/O*******/******** w m s 9 1 0 0"],
        "white has 9 pieces on the board and 1 in hand",
    ),
    // Each subcommand reads the position the same way.
    (&["moves", "--fen", "xx"], "'xx'"),
    (&["perft", "3", "--fen", "xx"], "'xx'"),
    (&["perft", "3", "--moves", "a7 a7"], "'a7'"),
];

#[test]
fn bad_input_is_one_error_line_with_status_2() {
    for (args, token) in BAD_INPUTS {
        bad(args, token);
    }
}

#[test]
fn illegal_moves_say_which_move_and_why() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["show", "--moves", "a7 a7"],
            "move 2 'a7' is illegal: a7 is not empty",
        ),
        (
            &["show", "--moves", "a7 b6 d7 f6 g7"],
            "move 5 'g7' is illegal: it closes a mill",
        ),
        (
            &["show", "--moves", "a7 b6 d7 d6 a1 f6xa1 g1 g4 g7xd6"],
            "move 9 'g7xd6' is illegal: d6 stands in a mill",
        ),
        (
            &[
                "show",
                "--variant",
                "no-flying",
                "--fen",
                FLYING,
                "--moves",
                "a7-b6",
            ],
            "move 1 'a7-b6' is illegal: a7 and b6 are not joined by a line",
        ),
        (
            &["show", "--moves", "a7xb6"],
            "move 1 'a7xb6' is illegal: it closes no mill",
        ),
    ];
    for (args, message) in cases {
        let stderr = refused(args);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

/// Errors found by the argument parser itself (clap): unknown variant, depth 0,
/// missing or unknown arguments. Status 2, `error:` first, the token named.
const CLAP_ERRORS: &[(&[&str], &str)] = &[
    (&["show", "--variant", "foo"], "'foo'"),
    (&["show", "--variant", ""], "--variant"),
    (&["perft", "0"], "'0'"),
    (&["perft", "abc"], "'abc'"),
    (&["perft", "-1"], "'-1'"),
    (&["perft", "99999999999"], "'99999999999'"),
    (&["perft"], "<DEPTH>"),
    (&["show", "--fen"], "--fen"),
    (&["show", "--bogus"], "'--bogus'"),
    (&["solve-everything"], "'solve-everything'"),
];

#[test]
fn argument_errors_exit_2_and_name_the_token() {
    for (args, token) in CLAP_ERRORS {
        let stderr = refused(args);
        assert!(stderr.contains(token), "{args:?}: {stderr:?}");
    }
}

#[test]
fn argument_errors_are_one_line() {
    for (args, token) in CLAP_ERRORS {
        bad(args, token);
    }
}

#[cfg(unix)]
#[test]
fn non_utf8_arguments_are_refused() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    morris([
        OsStr::new("show"),
        OsStr::new("--moves"),
        OsStr::from_bytes(b"a7 \xff"),
    ])
    .fails(common::BAD_INPUT);
}

#[test]
fn no_subcommand_is_an_error_and_help_is_not() {
    let out = morris(Vec::<&str>::new()).output();
    assert_eq!(out.status.code(), Some(common::BAD_INPUT));
    assert!(!text(&out.stderr).contains("panicked"));
    for sub in ["show", "moves", "perft"] {
        let help = ok(&[sub, "--help"]);
        assert!(help.contains("--variant"), "{sub}: {help}");
        assert!(help.contains("--fen"), "{sub}: {help}");
        assert!(help.contains("--moves"), "{sub}: {help}");
    }
    assert!(ok(&["--version"]).starts_with("morris "));
}

/// A move list is a game record: the threefold rule applies to it literally.
#[test]
fn move_lists_apply_the_threefold_rule() {
    let fen = "WB./W../.../.....W/.../.../BB. w 0 0";
    let shuttle = "g4-f4 d7-d6 f4-g4 d6-d7 g4-f4 d7-d6 f4-g4 d6-d7";
    let shown = ok(&["show", "--fen", fen, "--moves", shuttle]);
    assert!(
        shown.contains("game over: draw by threefold repetition"),
        "{shown}"
    );
    // Two repetitions are not yet a draw.
    let twice = shuttle.rsplitn(5, ' ').last().unwrap();
    assert!(!ok(&["show", "--fen", fen, "--moves", twice]).contains("game over"));
    assert_eq!(ok(&["moves", "--fen", fen, "--moves", shuttle]), "");
    let err = refused(&[
        "moves",
        "--fen",
        fen,
        "--moves",
        &format!("{shuttle} g4-f4"),
    ]);
    assert!(
        err.contains("move 9 'g4-f4' is illegal: the game is over"),
        "{err}"
    );
}

/// `generate` reads the sectors it builds on into memory, never through a mapping:
/// `--no-mmap` is refused there, not taken and ignored.
#[test]
fn generate_refuses_no_mmap() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let tb = dir.path().to_str().expect("a UTF-8 path");
    let err = refused(&["generate", "--no-mmap", "--sector", "3-3", "--tb", tb]);
    assert!(err.contains("--no-mmap"), "{err}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written"
    );
}

/// `morris help` gives every command a summary of one short line.
#[test]
fn help_summaries_are_one_line_each() {
    let out = ok(&["help"]);
    let commands: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .collect();
    assert!(
        commands
            .iter()
            .any(|l| l.trim_start().starts_with("bench ")),
        "{out}"
    );
    for line in commands {
        assert!(line.len() <= 100, "a summary longer than a line: {line}");
    }
}

// ---------------------------------------------------------------- house rules

#[test]
fn house_rules_change_the_moves_and_the_start() {
    let fen = "WW./B.B/.../.....W/.../B../..W w 5 6";
    let closing = |rules: &str| -> Vec<String> {
        let out = ok(&["moves", "--rules", rules, "--fen", fen]);
        let mut v: Vec<String> = out
            .lines()
            .filter(|m| m.starts_with("g7"))
            .map(String::from)
            .collect();
        v.sort();
        v
    };
    // g7 closes a7-d7-g7 and g1-g4-g7: one capture, or two under captures=per-mill.
    assert_eq!(closing("standard"), ["g7xb2", "g7xb6", "g7xf6"]);
    assert_eq!(
        closing("standard,captures=per-mill"),
        ["g7xb6xb2", "g7xb6xf6", "g7xf6xb2"]
    );
    // Two captures played from a move list, as one move or as tokens of their own.
    for moves in ["g7xb2xb6", "g7 xb6 xb2"] {
        let out = ok(&[
            "show",
            "--rules",
            "standard,captures=per-mill",
            "--fen",
            fen,
            "--moves",
            moves,
        ]);
        assert_eq!(
            field(&out, "position:"),
            "WWW/..B/.../.....W/.../.../..W b 4 6",
            "{moves}"
        );
    }
    bad(
        &[
            "moves",
            "--rules",
            "standard,captures=per-mill",
            "--fen",
            fen,
            "--moves",
            "g7xb2",
        ],
        "two pieces",
    );
    // Pieces a side: the start's hands, and the rule spec as the variant line.
    let out = ok(&["show", "--rules", "no-flying,pieces=6"]);
    assert_eq!(
        field(&out, "position:"),
        ".../.../.../....../.../.../... w 6 6"
    );
    assert_eq!(field(&out, "variant:"), "no-flying,pieces=6");
    // protection=none: a piece in a mill may go although others stand outside.
    let fen = "BBB/.../.../.WW.../.../.../..B w 1 0".to_string();
    let out = ok(&[
        "moves",
        "--rules",
        "standard,protection=none",
        "--fen",
        &fen,
    ]);
    assert!(out.lines().any(|m| m == "a4xa7"), "{out}");
    let out = ok(&["moves", "--fen", &fen]);
    assert!(
        !out.lines().any(|m| m == "a4xa7") && out.lines().any(|m| m == "a4xg1"),
        "{out}"
    );
}
