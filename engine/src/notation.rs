//! Text formats: points, moves, move lists and position strings.
//!
//! - Points `a1`..`g7`, any letter case.
//! - Moves `d6` (place), `a1-a4` (slide or fly), a capture appended as `xg7`:
//!   `d6xg7`, `a1-a4xg7` (two under `captures=per-mill`: `d6xa1xg7`). In a move list a capture may also stand as its own token
//!   after its move (`d6 xg7`), as some programs write it.
//! - Our position string: the points rank by rank from the top (rank 7 to rank 1, each
//!   left to right, ranks separated by `/`), `W` white, `B` black, `.` empty; then the
//!   side to move `w`/`b`, White's hand and Black's hand. The start is
//!   `.../.../.../....../.../.../... w 9 9`.
//! - Sanmill's position string: `<inner8>/<middle8>/<outer8> <w|b> <phase> <action>
//!   <wOn> <wHand> <bOn> <bHand> <wRemove> <bRemove> ...`, rings clockwise from the top
//!   midpoint (inner `d5 e5 e4 e3 d3 c3 c4 c5`), `O` white, `@` black, `*` empty.
//!   Positions awaiting a removal (action `r`) are rejected: our moves are atomic, so
//!   such a position is given as the one before the mill-closing move.

use crate::board::{Bitboard, Point};
use crate::game::Game;
use crate::geometry::Board;
use crate::moves::Move;
use crate::position::{Color, IllegalMove, Position, Setup, SetupError};
use crate::rules::Rules;
use std::fmt;
use thiserror::Error;

/// What is wrong with a piece of text.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseError {
    /// Not a point name.
    #[error("'{0}' is not a point (expected a1..g7, one of the 24 points of the board)")]
    Point(String),
    /// Not a move.
    #[error("'{token}' is not a move: {why} (expected d6, a1-a4, d6xg7 or a1-a4xg7)")]
    Move {
        /// The offending token.
        token: String,
        /// What is wrong.
        why: String,
    },
    /// A well-formed move that is illegal where it is played.
    #[error("move {number} '{token}' is illegal: {reason}")]
    Illegal {
        /// The offending token.
        token: String,
        /// 1-based index of the move in its list.
        number: usize,
        /// Why the rules refuse it.
        reason: IllegalMove,
    },
    /// A malformed position string.
    #[error("bad position string: {0}")]
    Position(String),
    /// A well-formed position string describing an invalid position.
    #[error("invalid position: {0}")]
    Setup(#[from] SetupError),
}

fn position_error(msg: impl Into<String>) -> ParseError {
    ParseError::Position(msg.into())
}

/// Parse a point name such as `d6` or `D6`.
///
/// # Errors
/// [`ParseError::Point`] naming the token.
pub fn parse_point(s: &str) -> Result<Point, ParseError> {
    match s.as_bytes() {
        [f, r] => Point::from_coords(*f, *r),
        _ => None,
    }
    .ok_or_else(|| ParseError::Point(s.to_string()))
}

/// Parse a move in any notation this module accepts, without a position.
///
/// # Errors
/// [`ParseError::Move`] naming the token and the problem.
pub fn parse_move(s: &str) -> Result<Move, ParseError> {
    let bad = |why: &str| ParseError::Move {
        token: s.to_string(),
        why: why.to_string(),
    };
    let point = |t: &str| parse_point(t).map_err(|_| bad(&format!("'{t}' is not a point")));
    let lower = s.to_ascii_lowercase();
    let mut parts = lower.split('x');
    let body = parts.next().unwrap_or("");
    let captures = parts
        .map(point)
        .collect::<Result<Vec<Point>, ParseError>>()?;
    if body.is_empty() && !captures.is_empty() {
        return Err(bad("no destination before the capture"));
    }
    if body.is_empty() {
        return Err(bad("empty move"));
    }
    let m = match body.split_once('-') {
        Some((from, to)) => {
            let (from, to) = (point(from)?, point(to)?);
            if from == to {
                return Err(bad("a move must change points"));
            }
            Move::shift(from, to)
        }
        None => Move::place(point(body)?),
    };
    if captures.contains(&m.to()) {
        return Err(bad("a piece cannot take its own point"));
    }
    Ok(match captures[..] {
        [] => m,
        [c] => m.with_capture(c),
        [a, b] if a == b => return Err(bad("the same piece taken twice")),
        [a, b] => m.with_captures(a, b),
        _ => return Err(bad("a move takes at most two pieces")),
    })
}

/// Parse a list of moves played from `start`, separated by white space or commas, with
/// the position after each. A capture may stand as its own `xg7` token after its move.
/// The threefold rule applies (see [`parse_game`]).
///
/// # Errors
/// [`ParseError::Move`] for a malformed token, [`ParseError::Illegal`] for a move the
/// rules refuse (game over included), each naming the token.
pub fn parse_moves(start: &Position, text: &str) -> Result<Vec<(Move, Position)>, ParseError> {
    let game = parse_game(start, text)?;
    Ok(game
        .moves()
        .iter()
        .copied()
        .zip(game.positions()[1..].iter().copied())
        .collect())
}

/// Play a list of moves (as [`parse_moves`] reads them) from `start` as a [`Game`], so
/// the threefold rule applies as in a game record: a move after the game ended by
/// repetition is refused.
///
/// # Errors
/// As [`parse_moves`], with [`IllegalMove::GameOver`] for a move after a threefold
/// repetition.
pub fn parse_game(start: &Position, text: &str) -> Result<Game, ParseError> {
    let mut game = Game::new(*start);
    let most = if start.rules().captures() == crate::rules::Captures::PerMill {
        2
    } else {
        1
    };
    for (number, token) in move_tokens(text, most).iter().enumerate() {
        let m = parse_move(token)?;
        game.play(m).map_err(|reason| ParseError::Illegal {
            token: token.clone(),
            number: number + 1,
            reason,
        })?;
    }
    Ok(game)
}

/// The move tokens of a list, a separate capture token joined to its move (up to `most`
/// captures a move).
fn move_tokens(text: &str, most: usize) -> Vec<String> {
    let mut tokens: Vec<String> = Vec::new();
    for t in text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
    {
        match tokens.last_mut() {
            Some(prev)
                if t.len() > 1
                    && t.as_bytes()[0].eq_ignore_ascii_case(&b'x')
                    && prev.matches(['x', 'X']).count() < most =>
            {
                prev.push_str(t)
            }
            _ => tokens.push(t.to_string()),
        }
    }
    tokens
}

/// The points in reading order: rank 7 to rank 1, each left to right.
fn reading_order() -> impl Iterator<Item = Point> {
    (b'1'..=b'7')
        .rev()
        .flat_map(|r| (b'a'..=b'g').filter_map(move |f| Point::from_coords(f, r)))
}

/// Sanmill's ring order: inner, middle, outer, each clockwise from the top midpoint.
fn sanmill_order() -> impl Iterator<Item = Point> {
    [2usize, 1, 0]
        .into_iter()
        .flat_map(|ring| (0..8).map(move |k| Point::from_index(ring * 8 + (k + 1) % 8)))
}

/// Our position string for a setup.
pub fn setup_to_string(setup: &Setup) -> String {
    let mut board = String::new();
    let mut rank = 0;
    for p in reading_order() {
        if rank != 0 && p.rank() != rank {
            board.push('/');
        }
        rank = p.rank();
        board.push(piece_char(setup, p, ['W', 'B', '.']));
    }
    let side = match setup.side_to_move {
        Color::White => 'w',
        Color::Black => 'b',
    };
    format!("{board} {side} {} {}", setup.hand[0], setup.hand[1])
}

fn piece_char(setup: &Setup, p: Point, chars: [char; 3]) -> char {
    if setup.pieces[0].contains(p) {
        chars[0]
    } else if setup.pieces[1].contains(p) {
        chars[1]
    } else {
        chars[2]
    }
}

/// Sanmill's position string for a setup (no removal pending, move number 1).
pub fn setup_to_sanmill(setup: &Setup) -> String {
    let mut board = String::new();
    for (i, p) in sanmill_order().enumerate() {
        if i > 0 && i % 8 == 0 {
            board.push('/');
        }
        board.push(piece_char(setup, p, ['O', '@', '*']));
    }
    let side = match setup.side_to_move {
        Color::White => 'w',
        Color::Black => 'b',
    };
    let placing = setup.hand.iter().any(|&h| h > 0);
    let phase = if placing { 'p' } else { 'm' };
    let action = if setup.hand[setup.side_to_move.index()] > 0 {
        'p'
    } else {
        's'
    };
    format!(
        "{board} {side} {phase} {action} {} {} {} {} 0 0 0 0 0 0 0 0 1",
        setup.pieces[0].count(),
        setup.hand[0],
        setup.pieces[1].count(),
        setup.hand[1]
    )
}

fn parse_side(token: Option<&str>) -> Result<Color, ParseError> {
    match token {
        Some("w" | "W") => Ok(Color::White),
        Some("b" | "B") => Ok(Color::Black),
        Some(t) => Err(position_error(format!("side to move '{t}' is not w or b"))),
        None => Err(position_error("the side to move is missing")),
    }
}

fn parse_count(token: Option<&str>, what: &str) -> Result<u8, ParseError> {
    let t = token.ok_or_else(|| position_error(format!("{what} is missing")))?;
    // Up to the most pieces a rule set gives a side; the rules then check the count.
    Some(t)
        .filter(|t| (1..=2).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|t| t.parse::<u8>().ok())
        .filter(|&n| n <= crate::rules::MAX_PIECES)
        .ok_or_else(|| {
            position_error(format!(
                "{what} '{t}' is not a number from 0 to {}",
                crate::rules::MAX_PIECES
            ))
        })
}

/// Parse our position string.
///
/// # Errors
/// [`ParseError::Position`] naming the bad part.
pub fn parse_setup(text: &str) -> Result<Setup, ParseError> {
    let mut tokens = text.split_whitespace();
    let board = tokens
        .next()
        .ok_or_else(|| position_error("empty position string"))?;
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 7 {
        return Err(position_error(format!(
            "board '{board}' has {} ranks separated by '/', expected 7",
            ranks.len()
        )));
    }
    let mut pieces = [Bitboard::EMPTY; 2];
    let mut points = reading_order().peekable();
    for (ranks_row, rank) in ranks.iter().enumerate() {
        let rank_digit = b'7' - ranks_row as u8;
        let row: Vec<Point> =
            std::iter::from_fn(|| points.next_if(|p| p.rank() == rank_digit)).collect();
        if rank.chars().count() != row.len() {
            return Err(position_error(format!(
                "rank {} '{rank}' has {} points, expected {}",
                rank_digit as char,
                rank.chars().count(),
                row.len()
            )));
        }
        for (c, p) in rank.chars().zip(row) {
            match c {
                'W' | 'w' => pieces[0] |= p.bit(),
                'B' | 'b' => pieces[1] |= p.bit(),
                '.' => {}
                _ => return Err(position_error(format!("'{c}' on {p} is not W, B or '.'"))),
            }
        }
    }
    let side_to_move = parse_side(tokens.next())?;
    let hand = [
        parse_count(tokens.next(), "White's hand")?,
        parse_count(tokens.next(), "Black's hand")?,
    ];
    if let Some(extra) = tokens.next() {
        return Err(position_error(format!(
            "unexpected '{extra}' after the hands"
        )));
    }
    Ok(Setup {
        pieces,
        hand,
        side_to_move,
    })
}

/// Parse Sanmill's position string.
///
/// # Errors
/// [`ParseError::Position`] naming the bad part, including a pending removal.
pub fn parse_sanmill(text: &str) -> Result<Setup, ParseError> {
    let mut tokens = text.split_whitespace();
    let board = tokens
        .next()
        .ok_or_else(|| position_error("empty position string"))?;
    let rings: Vec<&str> = board.split('/').collect();
    if rings.len() != 3 || rings.iter().any(|r| r.chars().count() != 8) {
        return Err(position_error(format!(
            "Sanmill board '{board}' must be three rings of 8 points separated by '/'"
        )));
    }
    let mut pieces = [Bitboard::EMPTY; 2];
    for (c, p) in rings.concat().chars().zip(sanmill_order()) {
        match c {
            'O' => pieces[0] |= p.bit(),
            '@' => pieces[1] |= p.bit(),
            '*' => {}
            'X' => {
                return Err(position_error(format!(
                "marked point 'X' on {p} belongs to a Sanmill rule variant this game does not have"
            )))
            }
            _ => return Err(position_error(format!("'{c}' on {p} is not O, @ or *"))),
        }
    }
    let side_to_move = parse_side(tokens.next())?;
    match tokens.next() {
        Some("r" | "n" | "p" | "m" | "o") => {}
        Some(t) => {
            return Err(position_error(format!(
                "phase '{t}' is not one of r, n, p, m, o"
            )))
        }
        None => return Err(position_error("the phase is missing")),
    }
    match tokens.next() {
        Some("p" | "s") => {}
        Some("r") => {
            return Err(position_error(
                "action 'r' (a removal is pending) is not supported: moves here are atomic, so give the position before the mill-closing move, or the moves that lead to it",
            ))
        }
        Some(t) => return Err(position_error(format!("action '{t}' is not one of p, s, r"))),
        None => return Err(position_error("the action is missing")),
    }
    let names = [
        "White's count on board",
        "White's hand",
        "Black's count on board",
        "Black's hand",
    ];
    let mut counts = [0u8; 4];
    for (n, name) in counts.iter_mut().zip(names) {
        *n = parse_count(tokens.next(), name)?;
    }
    for (color, on_board) in [(0, counts[0]), (1, counts[2])] {
        if pieces[color].count() != u32::from(on_board) {
            return Err(position_error(format!(
                "{} is said to have {on_board} pieces on the board but the board shows {}",
                Color::ALL[color],
                pieces[color].count()
            )));
        }
    }
    for who in ["White", "Black"] {
        match tokens.next() {
            Some("0") | None => {}
            Some(t) => {
                return Err(position_error(format!(
                    "{who}'s pending removals '{t}': a position awaiting a removal is not supported; give the position before the mill-closing move"
                )))
            }
        }
    }
    if let Some(t) = tokens.find(|t| t.parse::<i64>().is_err()) {
        return Err(position_error(format!(
            "trailing field '{t}' is not a number"
        )));
    }
    Ok(Setup {
        pieces,
        hand: [counts[1], counts[3]],
        side_to_move,
    })
}

/// Parse a position string in our format or Sanmill's, telling them apart by the
/// board (seven ranks or three rings).
///
/// # Errors
/// [`ParseError`] naming the bad part.
pub fn parse_any_setup(text: &str) -> Result<Setup, ParseError> {
    let board = text.split_whitespace().next().unwrap_or("");
    if board.split('/').count() == 3 {
        parse_sanmill(text)
    } else {
        parse_setup(text)
    }
}

/// Parse a position string (ours or Sanmill's) and validate it for a variant.
///
/// # Errors
/// [`ParseError`] naming the bad part, or [`ParseError::Setup`] for an invalid position.
pub fn parse_position(text: &str, rules: impl Into<Rules>) -> Result<Position, ParseError> {
    Ok(parse_any_setup(text)?.position(rules)?)
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&setup_to_string(self))
    }
}

impl fmt::Display for Position {
    /// Our position string.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&setup_to_string(&self.to_setup()))
    }
}

impl std::str::FromStr for Setup {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Setup, ParseError> {
        parse_any_setup(s)
    }
}

/// A drawing of the nine board, `W` White, `B` Black, `.` empty, with coordinates.
pub fn diagram(setup: &Setup) -> String {
    diagram_on(setup, Board::Nine)
}

/// A drawing of a position on its board ([`diagram_on`]).
pub fn position_diagram(pos: &Position) -> String {
    diagram_on(&pos.to_setup(), pos.rules().board())
}

/// A drawing of a board, `W` White, `B` Black, `.` empty, with coordinates: the six
/// board without the middle square, the twelve board with its diagonals.
pub fn diagram_on(setup: &Setup, board: Board) -> String {
    const NINE: [&str; 13] = [
        "7  *-----------*-----------*",
        "   |           |           |",
        "6  |   *-------*-------*   |",
        "   |   |       |       |   |",
        "5  |   |   *---*---*   |   |",
        "   |   |   |       |   |   |",
        "4  *---*---*       *---*---*",
        "   |   |   |       |   |   |",
        "3  |   |   *---*---*   |   |",
        "   |   |       |       |   |",
        "2  |   *-------*-------*   |",
        "   |           |           |",
        "1  *-----------*-----------*",
    ];
    const SIX: [&str; 13] = [
        "7  *-----------*-----------*",
        "   |           |           |",
        "6  |           |           |",
        "   |           |           |",
        "5  |       *---*---*       |",
        "   |       |       |       |",
        "4  *-------*       *-------*",
        "   |       |       |       |",
        "3  |       *---*---*       |",
        "   |           |           |",
        "2  |           |           |",
        "   |           |           |",
        "1  *-----------*-----------*",
    ];
    const TWELVE: [&str; 13] = [
        "7  *-----------*-----------*",
        "   | \\         |         / |",
        "6  |   *-------*-------*   |",
        "   |   | \\     |     / |   |",
        "5  |   |   *---*---*   |   |",
        "   |   |   |       |   |   |",
        "4  *---*---*       *---*---*",
        "   |   |   |       |   |   |",
        "3  |   |   *---*---*   |   |",
        "   |   | /     |     \\ |   |",
        "2  |   *-------*-------*   |",
        "   | /         |         \\ |",
        "1  *-----------*-----------*",
    ];
    let template = match board {
        Board::Nine => &NINE,
        Board::Six => &SIX,
        Board::Twelve => &TWELVE,
    };
    let on_board = board.geometry().points();
    let mut out = String::new();
    let mut points = reading_order().filter(|&p| on_board.contains(p));
    for line in template {
        for c in line.chars() {
            match c {
                '*' => match points.next() {
                    Some(p) => out.push(piece_char(setup, p, ['W', 'B', '.'])),
                    None => out.push(c),
                },
                _ => out.push(c),
            }
        }
        out.push('\n');
    }
    out.push_str("   a   b   c   d   e   f   g\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Variant;

    #[test]
    fn start_strings() {
        let s = Setup::START;
        assert_eq!(setup_to_string(&s), ".../.../.../....../.../.../... w 9 9");
        assert_eq!(
            setup_to_sanmill(&s),
            "********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1"
        );
        assert_eq!(parse_any_setup(&setup_to_sanmill(&s)).unwrap(), s);
        assert_eq!(parse_any_setup(&setup_to_string(&s)).unwrap(), s);
    }

    #[test]
    fn sanmill_ring_order_matches_the_issue() {
        let names: Vec<String> = sanmill_order().map(|p| p.to_string()).collect();
        assert_eq!(
            names.join(" "),
            "d5 e5 e4 e3 d3 c3 c4 c5 d6 f6 f4 f2 d2 b2 b4 b6 d7 g7 g4 g1 d1 a1 a4 a7"
        );
    }

    #[test]
    fn moves_parse_in_every_form() {
        let p = |s| parse_point(s).unwrap();
        assert_eq!(parse_move("d6").unwrap(), Move::place(p("d6")));
        assert_eq!(parse_move("A1-A4").unwrap(), Move::shift(p("a1"), p("a4")));
        assert_eq!(
            parse_move("d6xg7").unwrap(),
            Move::place(p("d6")).with_capture(p("g7"))
        );
        assert_eq!(
            parse_move("a1-a4XG7").unwrap(),
            Move::shift(p("a1"), p("a4")).with_capture(p("g7"))
        );
        for bad in [
            "",
            "d4",
            "a1-",
            "-a4",
            "a1-a1",
            "x",
            "xg7",
            "d6x",
            "d6xd6",
            "a1--a4",
            "a1-a4-a7",
            "d6xg7xg7",
            "d6xa1xd6",
            "d6xa1xb2xc3",
            "d6xa1x",
        ] {
            assert!(parse_move(bad).is_err(), "{bad}");
        }
        // Two captures (captures=per-mill), in either order, one move.
        let two = Move::place(p("d6")).with_captures(p("g7"), p("a1"));
        assert_eq!(parse_move("d6xg7xa1").unwrap(), two);
        assert_eq!(parse_move("d6xa1xg7").unwrap(), two);
        assert_eq!(two.captures().count(), 2);
        assert_eq!(parse_move(&two.to_string()).unwrap(), two);
    }

    #[test]
    fn separate_capture_tokens_join_their_move() {
        let start = Position::start(Variant::Standard);
        let joined = parse_moves(&start, "a7 b6 d7 f6 g7xb6").unwrap();
        let split = parse_moves(&start, "a7, b6 d7 f6 g7 XB6").unwrap();
        assert_eq!(joined, split);
        assert_eq!(joined.len(), 5);
    }

    #[test]
    fn diagram_shows_pieces() {
        let start = Position::start(Variant::Standard);
        let (_, pos) = *parse_moves(&start, "a7 g1").unwrap().last().unwrap();
        let d = diagram(&pos.to_setup());
        assert!(d.starts_with("7  W-----------.-----------.\n"), "{d}");
        assert!(d.contains("1  .-----------.-----------B\n"), "{d}");
    }
}
