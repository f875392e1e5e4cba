//! Colours, variants, positions and the rules of a turn.
//!
//! A [`Setup`] is an unvalidated position with public fields; [`Position`] is a
//! validated one: no point is taken twice and each colour has at most its rules'
//! pieces on the board plus in hand. Every `Position` carries its [`Rules`], so move
//! generation cannot mix the rules of two games. The end of the game is decided exactly as
//! RULES.md orders it: first a player with an empty hand and at most two pieces loses,
//! then a side to move without a legal move loses. Threefold repetition needs the
//! history and lives in [`crate::Game`].

use crate::board::{Bitboard, Point};
use crate::geometry::{Board, Geometry, NINE, SIX, TWELVE};
use crate::moves::{Move, MoveList};
use crate::rules::{Captures, Protection, Rules, Variant};
use crate::symmetry::Symmetry;
use std::fmt;
use thiserror::Error;

/// Pieces each player starts with in the two classic games.
pub const PIECES_PER_PLAYER: u8 = 9;

/// A player. White moves first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Color {
    /// The first player.
    White = 0,
    /// The second player.
    Black = 1,
}

impl Color {
    /// Both colours, White first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// The other colour.
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for White, 1 for Black.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `"white"` or `"black"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a player moves now: the phase of the game for one side.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Phase {
    /// A piece is still in hand: the player places.
    Placing,
    /// The hand is empty: the player slides a piece to an adjacent point.
    Sliding,
    /// The hand is empty and three pieces are left, in a variant with flying: the
    /// player moves a piece to any empty point.
    Flying,
}

impl Phase {
    /// `"placing"`, `"sliding"` or `"flying"`.
    pub const fn name(self) -> &'static str {
        match self {
            Phase::Placing => "placing",
            Phase::Sliding => "sliding",
            Phase::Flying => "flying",
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The game-theoretic value of a position for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Wdl {
    /// The side to move loses.
    Loss,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins.
    Win,
}

impl Wdl {
    /// The value for the other side.
    pub const fn opposite(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// `"win"`, `"draw"` or `"loss"`.
    pub const fn name(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// This colour won.
    Win(Color),
    /// Threefold repetition.
    Draw,
}

/// Why a game ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EndReason {
    /// The loser has an empty hand and at most two pieces on the board.
    TwoPieces,
    /// The loser is to move and has no legal move.
    Blocked,
    /// The same position occurred for the third time with the same side to move.
    Threefold,
}

/// The end of a game: who won and by which rule. A win is by rule 1 or 2 of RULES.md,
/// a draw by repetition: no value says "a win by repetition".
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GameEnd {
    /// The loser has an empty hand and at most two pieces on the board.
    TwoPieces {
        /// Who won.
        winner: Color,
    },
    /// The loser is to move and has no legal move.
    Blocked {
        /// Who won.
        winner: Color,
    },
    /// The same position occurred for the third time with the same side to move.
    Threefold,
}

impl GameEnd {
    /// The result.
    pub const fn outcome(self) -> Outcome {
        match self {
            GameEnd::TwoPieces { winner } | GameEnd::Blocked { winner } => Outcome::Win(winner),
            GameEnd::Threefold => Outcome::Draw,
        }
    }

    /// The rule that ended the game.
    pub const fn reason(self) -> EndReason {
        match self {
            GameEnd::TwoPieces { .. } => EndReason::TwoPieces,
            GameEnd::Blocked { .. } => EndReason::Blocked,
            GameEnd::Threefold => EndReason::Threefold,
        }
    }

    /// The winner, if the game was not drawn.
    pub const fn winner(self) -> Option<Color> {
        match self {
            GameEnd::TwoPieces { winner } | GameEnd::Blocked { winner } => Some(winner),
            GameEnd::Threefold => None,
        }
    }

    /// The value of the finished game for `side`.
    pub fn value_for(self, side: Color) -> Wdl {
        match self.winner() {
            Some(w) if w == side => Wdl::Win,
            Some(_) => Wdl::Loss,
            None => Wdl::Draw,
        }
    }
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            GameEnd::TwoPieces { winner: c } => write!(
                f,
                "{c} wins: {} has an empty hand and at most two pieces",
                c.opponent()
            ),
            GameEnd::Blocked { winner: c } => {
                write!(f, "{c} wins: {} is to move and is blocked", c.opponent())
            }
            GameEnd::Threefold => f.write_str("draw by threefold repetition"),
        }
    }
}

/// An unvalidated position, as parsed from text. Turn it into a [`Position`] with
/// [`Setup::position`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Setup {
    /// Pieces on the board, by colour index.
    pub pieces: [Bitboard; 2],
    /// Pieces in hand, by colour index.
    pub hand: [u8; 2],
    /// The side to move.
    pub side_to_move: Color,
}

impl Setup {
    /// The start of the game: empty board, nine pieces in each hand, White to move.
    pub const START: Setup = Setup {
        pieces: [Bitboard::EMPTY; 2],
        hand: [PIECES_PER_PLAYER; 2],
        side_to_move: Color::White,
    };

    /// Validate the setup for a rule set (or a [`Variant`]).
    ///
    /// # Errors
    /// [`SetupError`] naming the first problem found.
    pub fn position(&self, rules: impl Into<Rules>) -> Result<Position, SetupError> {
        Position::from_setup(self, rules)
    }
}

/// Why a [`Setup`] is not a valid position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SetupError {
    /// A point holds pieces of both colours.
    #[error("point {0} holds both a white and a black piece")]
    Overlap(Point),
    /// A colour has more pieces on the board plus in hand than its rules give it.
    #[error(
        "{color} has {on_board} pieces on the board and {in_hand} in hand: at most {most} in all"
    )]
    TooManyPieces {
        /// The colour.
        color: Color,
        /// Pieces on the board.
        on_board: u32,
        /// Pieces in hand.
        in_hand: u32,
        /// Pieces a side has under the rules.
        most: u8,
    },
    /// A piece stands on a point the board does not have (the middle square's points
    /// on the six board).
    #[error("{0} is not a point of the {1} board")]
    OffBoard(Point, Board),
}

/// Why a move cannot be played in a position.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum IllegalMove {
    /// The game is already over.
    #[error("the game is over")]
    GameOver,
    /// The side to move has pieces in hand and must place.
    #[error("{0} has pieces in hand and must place, not move")]
    MustPlace(Color),
    /// The side to move has no pieces in hand.
    #[error("{0} has no pieces in hand to place")]
    NothingToPlace(Color),
    /// The target point is taken.
    #[error("{0} is not empty")]
    Occupied(Point),
    /// The piece to move is not the mover's.
    #[error("{0} holds no {1} piece")]
    NotOwnPiece(Point, Color),
    /// A slide that is not along one connection.
    #[error("{0} and {1} are not joined by a line ({2} may not fly)")]
    NotAdjacent(Point, Point, Color),
    /// The move (written without a capture) closes a mill and must take a piece.
    #[error("it closes a mill: say which piece it takes, like {0}x<point>")]
    MissingCapture(Move),
    /// The move closes no mill and so takes nothing.
    #[error("it closes no mill, so it cannot take {0}")]
    UnexpectedCapture(Point),
    /// The capture names no opponent piece.
    #[error("{0} holds no {1} piece to take")]
    NothingToTake(Point, Color),
    /// The capture names a piece protected by a mill.
    #[error("{0} stands in a mill and other {1} pieces do not")]
    Protected(Point, Color),
    /// The capture names a piece in a mill, which `protection=full` never lets a mill
    /// take.
    #[error("{0} stands in a mill, and no piece in a mill may be taken under these rules")]
    FullyProtected(Point),
    /// Every piece the mill could take stands in a mill: under `protection=full` the
    /// capture is forfeited and the move is written without one.
    #[error(
        "every {0} piece stands in a mill, so the capture is forfeited: write the move without it"
    )]
    Forfeited(Color),
    /// The move closes two mills under `captures=per-mill` and names one capture
    /// where two can be made.
    #[error("it closes two mills: say which two pieces it takes, like {0}x<point>x<point>")]
    MissingSecondCapture(Move),
    /// Two captures for a move that earns one.
    #[error("it earns one capture, not two")]
    ExtraCapture,
}

/// A validated position: the 24 points, both hands and the side to move, under a
/// rule set.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    pieces: [Bitboard; 2],
    hand: [u8; 2],
    side: Color,
    rules: Rules,
}

impl Position {
    /// The start of the game for a rule set (or a [`Variant`]): the empty board, every
    /// piece in hand, White to move.
    pub fn start(rules: impl Into<Rules>) -> Position {
        let rules = rules.into();
        Position {
            pieces: Setup::START.pieces,
            hand: [rules.pieces(); 2],
            side: Color::White,
            rules,
        }
    }

    /// Validate a setup.
    ///
    /// # Errors
    /// [`SetupError::Overlap`] when a point holds both colours,
    /// [`SetupError::TooManyPieces`] when a colour has more pieces than the rules give.
    pub fn from_setup(setup: &Setup, rules: impl Into<Rules>) -> Result<Position, SetupError> {
        let rules = rules.into();
        let both = setup.pieces[0] & setup.pieces[1];
        if let Some(p) = both.first() {
            return Err(SetupError::Overlap(p));
        }
        let off = (setup.pieces[0] | setup.pieces[1]) & !rules.geometry().points();
        if let Some(p) = off.first() {
            return Err(SetupError::OffBoard(p, rules.board()));
        }
        for color in Color::ALL {
            let on_board = setup.pieces[color.index()].count();
            let in_hand = u32::from(setup.hand[color.index()]);
            if on_board + in_hand > u32::from(rules.pieces()) {
                return Err(SetupError::TooManyPieces {
                    color,
                    on_board,
                    in_hand,
                    most: rules.pieces(),
                });
            }
        }
        Ok(Position {
            pieces: setup.pieces,
            hand: setup.hand,
            side: setup.side_to_move,
            rules,
        })
    }

    /// The unvalidated form of this position.
    pub const fn to_setup(&self) -> Setup {
        Setup {
            pieces: self.pieces,
            hand: self.hand,
            side_to_move: self.side,
        }
    }

    /// The rules this position is played under.
    pub const fn rules(&self) -> Rules {
        self.rules
    }

    /// The classic game this position is played in, if its rules are one of the two
    /// ([`Rules::variant`]); `None` under a house rule.
    pub const fn variant(&self) -> Option<Variant> {
        self.rules.variant()
    }

    /// The same position under another variant's rules.
    pub const fn with_variant(self, variant: Variant) -> Position {
        self.with_rules(variant.rules())
    }

    /// The same position under other rules. The caller keeps the hands within the
    /// new rules' pieces.
    pub const fn with_rules(mut self, rules: Rules) -> Position {
        self.rules = rules;
        self
    }

    /// The side to move.
    pub const fn side_to_move(&self) -> Color {
        self.side
    }

    /// The pieces of a colour on the board.
    pub const fn pieces(&self, color: Color) -> Bitboard {
        self.pieces[color as usize]
    }

    /// The pieces of a colour in hand.
    pub const fn hand(&self, color: Color) -> u8 {
        self.hand[color as usize]
    }

    /// The pieces of the side to move.
    pub const fn us(&self) -> Bitboard {
        self.pieces[self.side as usize]
    }

    /// The pieces of the opponent of the side to move.
    pub const fn them(&self) -> Bitboard {
        self.pieces[self.side.opponent() as usize]
    }

    /// The empty points.
    pub const fn empty(&self) -> Bitboard {
        self.empty_on(self.rules.geometry())
    }

    /// [`Position::empty`] on board `g`, the board of the rules.
    #[inline(always)]
    const fn empty_on(&self, g: &Geometry) -> Bitboard {
        Bitboard::from_bits_truncate(
            !(self.pieces[0].bits() | self.pieces[1].bits()) & g.points().bits(),
        )
    }

    /// Whether a piece is still in either hand: the placing phase has not ended for
    /// both players (a tablebase covers only positions where it has).
    pub const fn pieces_in_hand(&self) -> bool {
        self.hand[0] + self.hand[1] > 0
    }

    /// Whether the colour has lost by rule 1: empty hand and at most two pieces.
    pub const fn is_reduced(&self, color: Color) -> bool {
        self.hand[color as usize] == 0 && self.pieces[color as usize].count() <= 2
    }

    /// How `color` moves now, whoever is to move: placing with a piece in hand, else
    /// flying or sliding.
    pub const fn phase(&self, color: Color) -> Phase {
        if self.hand[color as usize] > 0 {
            Phase::Placing
        } else if self.rules.flying() && self.pieces[color as usize].count() == 3 {
            Phase::Flying
        } else {
            Phase::Sliding
        }
    }

    /// Whether the side to move flies (moves a piece to any empty point).
    pub const fn flies(&self) -> bool {
        self.rules.flying() && self.hand[self.side as usize] == 0 && self.us().count() == 3
    }

    /// The opponent pieces a mill may take: those outside mills, or all of them when
    /// every one stands in a mill (under `protection=none` every one, under
    /// `protection=full` only those outside mills). Empty when the opponent has no
    /// piece on the board, or none it may take.
    #[inline]
    pub fn capturable(&self) -> Bitboard {
        capturable_of(self.them(), self.rules)
    }

    /// How the game has ended in this position, by rules 1 and 2 of RULES.md, if it has.
    ///
    /// When both players are reduced (possible only in a set-up position) the side to
    /// move is the loser. Threefold repetition needs a history: see [`crate::Game`].
    pub fn end(&self) -> Option<GameEnd> {
        let us = self.side;
        if self.is_reduced(us) {
            Some(GameEnd::TwoPieces {
                winner: us.opponent(),
            })
        } else if self.is_reduced(us.opponent()) {
            Some(GameEnd::TwoPieces { winner: us })
        } else if !self.has_move() {
            Some(GameEnd::Blocked {
                winner: us.opponent(),
            })
        } else {
            None
        }
    }

    /// Whether the side to move has a move, ignoring rule 1.
    fn has_move(&self) -> bool {
        let empty = self.empty();
        if self.hand[self.side as usize] > 0 || self.flies() {
            !empty.is_empty()
        } else {
            !(self.rules.geometry().neighbours(self.us()) & empty).is_empty()
        }
    }

    /// The destinations of a piece on `from` (a slide, or a flight).
    #[inline]
    fn targets(&self, from: Point) -> Bitboard {
        self.targets_in(self.rules.geometry(), self.empty(), self.flies(), from)
    }

    /// [`Position::targets`] with the board, the empty points and whether the side
    /// to move flies given.
    #[inline(always)]
    fn targets_in(&self, g: &Geometry, empty: Bitboard, flies: bool, from: Point) -> Bitboard {
        if flies {
            empty
        } else {
            g.adjacent(from) & empty
        }
    }

    /// Every legal move; empty when the game is over.
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        list
    }

    /// [`Position::legal_moves`] written into `list`, which is cleared first: a caller
    /// that keeps a list a ply (a search, perft) neither fills nor copies a new one
    /// at every node.
    pub fn legal_moves_into(&self, list: &mut MoveList) {
        list.clear();
        // Monomorphised per board: each copy reads its board's tables at fixed
        // addresses and tests the lines a point can lie on, two (three at the twelve
        // board's corners), as the constant tables of one board did.
        match self.rules.board() {
            Board::Nine => self.moves_on::<{ Board::Nine.lines_through_max() }>(&NINE, list),
            Board::Six => self.moves_on::<{ Board::Six.lines_through_max() }>(&SIX, list),
            Board::Twelve => self.moves_on::<{ Board::Twelve.lines_through_max() }>(&TWELVE, list),
        }
    }

    /// The legal moves on board `g` (the board of the rules), at most `LINES` lines
    /// through a point.
    #[inline(always)]
    fn moves_on<const LINES: usize>(&self, g: &Geometry, list: &mut MoveList) {
        if self.is_reduced(Color::White) || self.is_reduced(Color::Black) {
            return;
        }
        let us = self.us();
        let empty = self.empty_on(g);
        let capturable = capturable_on(self.them(), self.rules.protection(), g);
        let per_mill = self.rules.captures() == Captures::PerMill;
        let emit = |list: &mut MoveList, m: Move, own: Bitboard| {
            if capturable.is_empty() || !g.closes_mill_with::<LINES>(own, m.to().index()) {
                list.push(m);
            } else if per_mill && g.mills_closed(own, m.to().index()) == 2 {
                self.push_double_captures(list, m);
            } else {
                for c in capturable {
                    list.push(m.with_capture(c));
                }
            }
        };
        if self.hand[self.side as usize] > 0 {
            for to in empty {
                emit(list, Move::place(to), us);
            }
        } else {
            let flies = self.flies();
            for from in us {
                let own = us ^ from.bit();
                for to in self.targets_in(g, empty, flies, from) {
                    emit(list, Move::shift(from, to), own);
                }
            }
        }
    }

    /// The moves taking two pieces for a move `m` that closes two mills under
    /// `captures=per-mill`: each first capture the rules allow, then each second one
    /// they allow after it (none when the opponent has none left to take), every set
    /// of captures once.
    fn push_double_captures(&self, list: &mut MoveList, m: Move) {
        let them = self.them();
        let start = list.len();
        for first in capturable_of(them, self.rules) {
            let second = capturable_of(them ^ first.bit(), self.rules);
            if second.is_empty() {
                list.push(m.with_capture(first));
            }
            for c in second {
                let taken = m.with_captures(first, c);
                if !list[start..].contains(&taken) {
                    list.push(taken);
                }
            }
        }
    }

    /// The number of legal moves, without listing them (as `legal_moves().len()`).
    pub fn count_legal_moves(&self) -> u64 {
        // Monomorphised per board, as `legal_moves_into`.
        match self.rules.board() {
            Board::Nine => self.count_on::<{ Board::Nine.lines_through_max() }>(&NINE),
            Board::Six => self.count_on::<{ Board::Six.lines_through_max() }>(&SIX),
            Board::Twelve => self.count_on::<{ Board::Twelve.lines_through_max() }>(&TWELVE),
        }
    }

    /// The number of legal moves on board `g` (the board of the rules), at most
    /// `LINES` lines through a point.
    #[inline(always)]
    fn count_on<const LINES: usize>(&self, g: &Geometry) -> u64 {
        if self.is_reduced(Color::White) || self.is_reduced(Color::Black) {
            return 0;
        }
        let us = self.us();
        let empty = self.empty_on(g);
        // Moves without regard to captures, and how many of them close a mill: each of
        // those counts once per piece it may take (the capturable set is only computed
        // when a mill can be closed at all).
        let (moves, closing) = if self.hand[self.side as usize] > 0 {
            let closing = empty
                .iter()
                .filter(|to| g.closes_mill_with::<LINES>(us, to.index()))
                .count() as u64;
            // Only a placement can close two mills (see `MAX_MOVES`): under
            // captures=per-mill, where one may, the list tells.
            if closing > 0 && self.rules.captures() == Captures::PerMill {
                return self.legal_moves().len() as u64;
            }
            (u64::from(empty.count()), closing)
        } else {
            let (mut moves, mut closing) = (0, 0);
            let flies = self.flies();
            for from in us {
                let own = us ^ from.bit();
                let targets = self.targets_in(g, empty, flies, from);
                closing += targets
                    .iter()
                    .filter(|to| g.closes_mill_with::<LINES>(own, to.index()))
                    .count() as u64;
                moves += u64::from(targets.count());
            }
            (moves, closing)
        };
        if closing == 0 {
            return moves;
        }
        let capturable = capturable_on(self.them(), self.rules.protection(), g);
        let captures = u64::from(capturable.count().max(1));
        moves + closing * (captures - 1)
    }

    /// Check a move against the rules, saying what is wrong with an illegal one.
    ///
    /// # Errors
    /// The [`IllegalMove`] reason.
    pub fn check(&self, m: Move) -> Result<(), IllegalMove> {
        if self.is_reduced(Color::White) || self.is_reduced(Color::Black) {
            return Err(IllegalMove::GameOver);
        }
        let side = self.side;
        let to = m.to();
        if !self.empty().contains(to) {
            return Err(IllegalMove::Occupied(to));
        }
        let own = match m.from() {
            None if self.hand[side as usize] == 0 => return Err(IllegalMove::NothingToPlace(side)),
            None => self.us(),
            Some(_) if self.hand[side as usize] > 0 => return Err(IllegalMove::MustPlace(side)),
            Some(from) => {
                if !self.us().contains(from) {
                    return Err(IllegalMove::NotOwnPiece(from, side));
                }
                if !self.targets(from).contains(to) {
                    return Err(IllegalMove::NotAdjacent(from, to, side));
                }
                self.us() ^ from.bit()
            }
        };
        let capturable = self.capturable();
        let g = self.rules.geometry();
        let closes = g.closes_mill(own, to.index());
        if closes && capturable.is_empty() && !self.them().is_empty() {
            // Only under protection=full: every piece stands in a mill.
            return match m.capture() {
                None => Ok(()),
                Some(_) => Err(IllegalMove::Forfeited(side.opponent())),
            };
        }
        let mill = closes && !capturable.is_empty();
        match (mill, m.capture()) {
            (true, None) => Err(IllegalMove::MissingCapture(m)),
            (false, Some(c)) => Err(IllegalMove::UnexpectedCapture(c)),
            (true, Some(_)) => {
                for c in m.captures() {
                    if !self.them().contains(c) {
                        return Err(IllegalMove::NothingToTake(c, side.opponent()));
                    }
                }
                let double = self.rules.captures() == Captures::PerMill
                    && g.mills_closed(own, to.index()) == 2;
                if !double {
                    return match m.second_capture() {
                        Some(_) => Err(IllegalMove::ExtraCapture),
                        None => self.check_capture(m.capture(), capturable),
                    };
                }
                let mut legal = MoveList::new();
                self.push_double_captures(&mut legal, m.without_capture());
                if legal.contains(&m) {
                    return Ok(());
                }
                // Say what is wrong: a capture the rules refuse first, a second one
                // they refuse after it, or one capture where two can be made.
                let after = |c: Point| capturable_of(self.them() ^ c.bit(), self.rules);
                match (m.capture(), m.second_capture()) {
                    (Some(a), Some(b)) if a == b => {
                        Err(IllegalMove::NothingToTake(b, side.opponent()))
                    }
                    (Some(a), Some(b)) if capturable.contains(a) => {
                        self.check_capture(Some(b), after(a))
                    }
                    (Some(a), Some(b)) if capturable.contains(b) => {
                        self.check_capture(Some(a), after(b))
                    }
                    (Some(a), _) if !capturable.contains(a) => {
                        self.check_capture(Some(a), capturable)
                    }
                    _ => Err(IllegalMove::MissingSecondCapture(m)),
                }
            }
            _ => Ok(()),
        }
    }

    /// Why the rules refuse the capture of `c` (an opponent piece) where `capturable`
    /// are the pieces they allow, if they do.
    fn check_capture(&self, c: Option<Point>, capturable: Bitboard) -> Result<(), IllegalMove> {
        match c {
            Some(c) if !capturable.contains(c) => Err(match self.rules.protection() {
                Protection::Full => IllegalMove::FullyProtected(c),
                _ => IllegalMove::Protected(c, self.side.opponent()),
            }),
            _ => Ok(()),
        }
    }

    /// Whether a move is legal here.
    pub fn is_legal(&self, m: Move) -> bool {
        self.check(m).is_ok()
    }

    /// The position after a move, checked first.
    ///
    /// # Errors
    /// The [`IllegalMove`] reason when the move is not legal.
    pub fn play(&self, m: Move) -> Result<Position, IllegalMove> {
        self.check(m)?;
        Ok(self.play_unchecked(m))
    }

    /// The position after a move known to be legal (from [`Position::legal_moves`]).
    /// An illegal move gives a position that may not follow the rules.
    #[inline]
    pub fn play_unchecked(&self, m: Move) -> Position {
        // Fields computed apart and put together at the end, with no indexing by the
        // side to move: a copy changed in place by variable index made the next
        // reads of the position wait on partial stores (a fifth of a placement
        // verification's time went there).
        let white = matches!(self.side, Color::White);
        let [w, b] = self.pieces;
        let (mut own, mut opp) = if white { (w, b) } else { (b, w) };
        let [hw, hb] = self.hand;
        let (mut own_hand, opp_hand) = if white { (hw, hb) } else { (hb, hw) };
        match m.from() {
            None => own_hand -= 1,
            Some(from) => own = Bitboard(own.0 ^ from.bit().0),
        }
        own = Bitboard(own.0 | m.to().bit().0);
        opp = Bitboard(opp.0 & !m.taken().0);
        Position {
            pieces: if white { [own, opp] } else { [opp, own] },
            hand: if white {
                [own_hand, opp_hand]
            } else {
                [opp_hand, own_hand]
            },
            side: self.side.opponent(),
            rules: self.rules,
        }
    }

    /// The full state packed injectively into 57 bits: White's points, Black's points,
    /// both hands and the side to move.
    pub const fn packed(&self) -> u64 {
        self.pieces[0].bits() as u64
            | (self.pieces[1].bits() as u64) << 24
            | (self.hand[0] as u64) << 48
            | (self.hand[1] as u64) << 52
            | (self.side as u64) << 56
    }

    /// A 64-bit hash of the full state (points, hands, side to move), for
    /// transposition tables. Distinct states differ in their `packed` form, which the
    /// hash scrambles with a bijective mixer, so two states collide only through the
    /// table index, never in the full 64 bits.
    pub const fn hash(&self) -> u64 {
        mix64(self.packed())
    }

    /// The position with a symmetry of the board applied to both colours' pieces
    /// (hands, side to move and rules unchanged): the same game, board turned.
    pub const fn transformed(&self, sym: Symmetry) -> Position {
        let mut out = *self;
        out.pieces = [sym.apply(self.pieces[0]), sym.apply(self.pieces[1])];
        out
    }

    /// The representative of the position's class under the 16 symmetries (the one
    /// with the least [`Position::packed`] form) and a symmetry that maps the position
    /// onto it. Positions that are the same up to a symmetry of the board, and only
    /// those, have the same representative.
    pub fn canonical(&self) -> (Position, Symmetry) {
        let mut best = (*self, Symmetry::IDENTITY);
        for &s in &Symmetry::ALL[1..] {
            let t = self.transformed(s);
            if t.packed() < best.0.packed() {
                best = (t, s);
            }
        }
        best
    }

    /// The key of the threefold rule: the 24 points and the side to move, hands ignored.
    pub const fn repetition_key(&self) -> u64 {
        self.packed() & !(0xFF << 48)
    }
}

/// The pieces of `them` a mill may take under the protection rule of `rules`, on its
/// board (empty: the capture is forfeited, under full protection with every piece in
/// a mill). Inlined always: it sits in the move counter's hot path, where a call cost
/// perft 4% of its instructions.
#[inline(always)]
pub fn capturable_of(them: Bitboard, rules: Rules) -> Bitboard {
    capturable_on(them, rules.protection(), rules.geometry())
}

/// [`capturable_of`] under `protection` on board `g`.
#[inline(always)]
fn capturable_on(them: Bitboard, protection: Protection, g: &Geometry) -> Bitboard {
    match protection {
        Protection::Standard => {
            let free = them & !g.in_mills(them);
            if free.is_empty() {
                them
            } else {
                free
            }
        }
        Protection::None => them,
        Protection::Full => them & !g.in_mills(them),
    }
}

/// A bijective 64-bit mixer (the splitmix64 finaliser): spreads a key's bits over
/// all 64, for hashing.
pub const fn mix64(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_position;

    fn phases(text: &str, variant: Variant) -> [Phase; 2] {
        let pos = parse_position(text, variant).expect("a position");
        Color::ALL.map(|c| pos.phase(c))
    }

    #[test]
    fn a_side_places_with_a_piece_in_hand_then_flies_at_three_where_the_variant_lets_it() {
        use Phase::*;
        // White: three on the board and one in hand; Black: three, hand empty.
        let placing = "WWW/.../.../....../.../.../BBB w 1 0";
        // White: four; Black: three; both hands empty. The phase is a side's,
        // whoever is to move.
        let moving = "WWW/W../.../....../.../.../BBB b 0 0";
        assert_eq!(phases(placing, Variant::Standard), [Placing, Flying]);
        assert_eq!(phases(placing, Variant::NoFlying), [Placing, Sliding]);
        assert_eq!(phases(moving, Variant::Standard), [Sliding, Flying]);
        assert_eq!(phases(moving, Variant::NoFlying), [Sliding, Sliding]);
        assert_eq!(Flying.to_string(), "flying");
    }
}
