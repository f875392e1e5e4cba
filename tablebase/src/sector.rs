//! Sectors: the sets of positions a table file holds, and the order of generation.
//!
//! A [`Sector`] holds the positions with both hands empty in which the side to move
//! has `us` pieces and its opponent `them`, each from 3 to 9. A move without a capture
//! leads from `(us, them)` to `(them, us)`, so those two are solved together (a
//! *pair*); a capture leads to `(them - 1, us)`, which has fewer pieces and is solved
//! earlier, or, with `them = 3`, ends the game.
//!
//! A [`PlacementSector`] holds the positions in which the side to move has `us` pieces
//! on the board and `us_hand` in hand, its opponent `them` and `them_hand`, for the
//! hands a game produces: the side to move has a piece to place, and as many in hand
//! as its opponent (White to move) or one more (Black to move). Board counts run from
//! 0 to 9, board plus hand is at most 9 a side. Colours are normalised to the side to
//! move, as in movement sectors: a position is a pair of disjoint point sets `(u, t)`,
//! numbered by the movement index of `(us, them)` ([`crate::index::SectorIndex`]); the hands are
//! part of the sector, not of the index. Every turn of the placing phase takes a piece
//! from a hand, so the placement sectors form a DAG: [`PlacementSector::all`] lists
//! them fewest pieces in hand first, each after the sectors its placements reach
//! ([`PlacementSector::successors`]).
//!
//! [`SectorId`] names either kind: what a table file holds.

use crate::index::{orbit_count, SectorIndex};
use morris_engine::{Bitboard, Board, Captures, Color, Position, Rules, Setup, PIECES_PER_PLAYER};
use std::fmt;
use std::sync::Arc;

/// Fewest pieces a side has in a sector (two means the game is over).
pub const MIN_PIECES: u8 = 3;
/// Most pieces a side has in a sector.
pub const MAX_PIECES: u8 = 9;

/// The positions with both hands empty and these piece counts, colours normalised to
/// the side to move.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Sector {
    /// Pieces of the side to move.
    pub us: u8,
    /// Pieces of the opponent.
    pub them: u8,
}

impl Sector {
    /// The sector, if both counts are within 3..=9.
    pub fn new(us: u8, them: u8) -> Option<Sector> {
        let ok = |n| (MIN_PIECES..=MAX_PIECES).contains(&n);
        (ok(us) && ok(them)).then_some(Sector { us, them })
    }

    /// The sector with the two counts exchanged (a colour swap, not a board
    /// symmetry): where a move without capture leads, the opponent then to move.
    pub fn swapped(self) -> Sector {
        Sector {
            us: self.them,
            them: self.us,
        }
    }

    /// The sector reached by a capture, or `None` when a capture ends the game.
    pub fn after_capture(self) -> Option<Sector> {
        Sector::new(self.them - 1, self.us)
    }

    /// Every sector, in an order in which each one's captures lead only to sectors
    /// earlier in the list and each pair `(a, b)`, `(b, a)` is adjacent.
    pub fn all() -> Vec<Sector> {
        let mut out = Vec::new();
        for total in 2 * MIN_PIECES..=2 * MAX_PIECES {
            for us in MIN_PIECES..=MAX_PIECES {
                // `us` past `total` has no partner (and must not wrap around).
                let Some(them) = total.checked_sub(us) else {
                    continue;
                };
                if us <= them {
                    if let Some(s) = Sector::new(us, them) {
                        out.push(s);
                        if us != them {
                            out.push(s.swapped());
                        }
                    }
                }
            }
        }
        out
    }

    /// The sectors needed to solve this one: itself, its swapped sector and everything its
    /// captures reach, transitively, in generation order.
    pub fn closure(self) -> Vec<Sector> {
        let mut need = vec![self, self.swapped()];
        let mut i = 0;
        while i < need.len() {
            if let Some(next) = need[i].after_capture() {
                for s in [next, next.swapped()] {
                    if !need.contains(&s) {
                        need.push(s);
                    }
                }
            }
            i += 1;
        }
        Sector::all()
            .into_iter()
            .filter(|s| need.contains(s))
            .collect()
    }
}

impl fmt::Display for Sector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.us, self.them)
    }
}

impl std::str::FromStr for Sector {
    type Err = String;

    /// Parse `W-B` (pieces of the side to move, then of the opponent).
    fn from_str(s: &str) -> Result<Sector, String> {
        let bad =
            || format!("sector '{s}' is not US-THEM with both counts from 3 to 9, like 3-3 or 8-9");
        let (a, b) = s.split_once('-').ok_or_else(bad)?;
        let a: u8 = a.trim().parse().map_err(|_| bad())?;
        let b: u8 = b.trim().parse().map_err(|_| bad())?;
        Sector::new(a, b).ok_or_else(bad)
    }
}

/// What a tablebase file holds: a movement sector or a placement sector.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum SectorId {
    /// Both hands empty.
    Movement(Sector),
    /// Pieces in hand.
    Placement(PlacementSector),
}

impl SectorId {
    /// The sectors one turn of this sector leads to under `rules`: for a movement
    /// sector its swapped sector and the sector a capture reaches, for a placement
    /// sector [`PlacementSector::successors`]. Turns that end the game lead nowhere.
    pub fn successors(self, rules: impl Into<Rules>) -> Vec<SectorId> {
        match self {
            SectorId::Movement(m) => [Some(m.swapped()), m.after_capture()]
                .into_iter()
                .flatten()
                .map(SectorId::Movement)
                .collect(),
            SectorId::Placement(p) => p
                .successors(rules)
                .into_iter()
                .map(SectorId::from)
                .collect(),
        }
    }

    /// Whether a compact set made one-sided leaves out this sector's distances (its
    /// `.dtm` file), to be found at probe time by a one-ply search over its
    /// successors. The candidates are one side of each unequal movement pair (the
    /// side to move with fewer pieces, whose distance files are the larger) and the
    /// placement sectors with White to move; a candidate is left out only when no
    /// sector its turns reach is a candidate, so every successor keeps its distances.
    pub fn distances_derived(self, rules: impl Into<Rules>) -> bool {
        fn candidate(s: SectorId) -> bool {
            match s {
                SectorId::Movement(m) => m.us < m.them,
                SectorId::Placement(p) => p.white_to_move(),
            }
        }
        candidate(self) && !self.successors(rules).into_iter().any(candidate)
    }

    /// The setup of board `(us, them)` of this sector (the side to move's pieces
    /// first): White to move in a movement sector, the colours a game gives it in a
    /// placement sector ([`PlacementSector::game_setup`]).
    pub fn setup(self, us: Bitboard, them: Bitboard) -> Setup {
        match self {
            SectorId::Movement(_) => Setup {
                pieces: [us, them],
                hand: [0, 0],
                side_to_move: Color::White,
            },
            SectorId::Placement(p) => p.game_setup(us, them),
        }
    }

    /// Board counts `(us, them)`: the movement index that numbers its positions.
    pub fn board(self) -> (u8, u8) {
        match self {
            SectorId::Movement(s) => (s.us, s.them),
            SectorId::Placement(p) => (p.us, p.them),
        }
    }

    /// The index that numbers its positions on `board`.
    pub fn index(self, board: Board) -> Arc<SectorIndex> {
        let (us, them) = self.board();
        SectorIndex::get(board, usize::from(us), usize::from(them))
    }

    /// Number of positions up to symmetry on `board` (entries of its table).
    pub fn size(self, board: Board) -> u64 {
        let (us, them) = self.board();
        orbit_count(board, usize::from(us), usize::from(them))
    }
}

impl From<Sector> for SectorId {
    fn from(s: Sector) -> SectorId {
        SectorId::Movement(s)
    }
}

impl From<PlacementSector> for SectorId {
    fn from(p: PlacementSector) -> SectorId {
        SectorId::Placement(p)
    }
}

impl std::str::FromStr for SectorId {
    type Err = String;

    /// Parse a movement sector `US-THEM` or a placement sector
    /// `US-THEM+USHAND-THEMHAND`.
    fn from_str(s: &str) -> Result<SectorId, String> {
        if s.contains('+') {
            s.parse().map(SectorId::Placement)
        } else {
            s.parse().map(SectorId::Movement)
        }
    }
}

impl fmt::Display for SectorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SectorId::Movement(s) => s.fmt(f),
            SectorId::Placement(p) => p.fmt(f),
        }
    }
}

/// The positions with these counts on the board and in hand, colours normalised to
/// the side to move (see the module documentation for which counts are valid).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct PlacementSector {
    /// Pieces of the side to move on the board.
    pub us: u8,
    /// Pieces of the opponent on the board.
    pub them: u8,
    /// Pieces of the side to move in hand (at least one).
    pub us_hand: u8,
    /// Pieces of the opponent in hand: `us_hand` or `us_hand - 1`.
    pub them_hand: u8,
}

/// Where the positions after one turn of a placement sector lie.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum SuccessorSector {
    /// Pieces remain in hand.
    Placement(PlacementSector),
    /// Both hands are empty.
    Movement(Sector),
}

impl From<SuccessorSector> for SectorId {
    fn from(s: SuccessorSector) -> SectorId {
        match s {
            SuccessorSector::Placement(p) => SectorId::Placement(p),
            SuccessorSector::Movement(m) => SectorId::Movement(m),
        }
    }
}

impl SuccessorSector {
    /// Board counts `(us, them)`: the sector of the index that numbers its positions.
    pub fn board(self) -> (usize, usize) {
        match self {
            SuccessorSector::Placement(p) => (usize::from(p.us), usize::from(p.them)),
            SuccessorSector::Movement(s) => (usize::from(s.us), usize::from(s.them)),
        }
    }
}

impl fmt::Display for SuccessorSector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SuccessorSector::Placement(p) => p.fmt(f),
            SuccessorSector::Movement(s) => s.fmt(f),
        }
    }
}

impl PlacementSector {
    /// The sector, if the counts are ones a game produces (see the module docs).
    pub fn new(us: u8, them: u8, us_hand: u8, them_hand: u8) -> Option<PlacementSector> {
        let fits = |board: u8, hand: u8| u16::from(board) + u16::from(hand) <= 9;
        let hands = us_hand >= 1 && (them_hand == us_hand || them_hand + 1 == us_hand);
        (hands && fits(us, us_hand) && fits(them, them_hand)).then_some(PlacementSector {
            us,
            them,
            us_hand,
            them_hand,
        })
    }

    /// The sector of a position, if it has pieces in hand in a way a game produces.
    pub fn of(pos: &Position) -> Option<PlacementSector> {
        let (side, other) = (pos.side_to_move(), pos.side_to_move().opponent());
        let count = |c: Color| u8::try_from(pos.pieces(c).count()).ok();
        PlacementSector::new(count(side)?, count(other)?, pos.hand(side), pos.hand(other))
    }

    /// Whether the side to move is White in a game (both hands equal).
    pub fn white_to_move(self) -> bool {
        self.us_hand == self.them_hand
    }

    /// The setup of board `(us, them)` of this sector in the colours a game gives it:
    /// White moves when the hands are equal, Black when it holds one more.
    pub fn game_setup(self, us: Bitboard, them: Bitboard) -> Setup {
        if self.white_to_move() {
            Setup {
                pieces: [us, them],
                hand: [self.us_hand, self.them_hand],
                side_to_move: Color::White,
            }
        } else {
            Setup {
                pieces: [them, us],
                hand: [self.them_hand, self.us_hand],
                side_to_move: Color::Black,
            }
        }
    }

    /// Number of positions up to symmetry on `board` (entries of its table).
    pub fn size(self, board: Board) -> u64 {
        orbit_count(board, usize::from(self.us), usize::from(self.them))
    }

    /// Pieces on the board and in hand of the side to move and of its opponent.
    pub fn material(self) -> (u8, u8) {
        (self.us + self.us_hand, self.them + self.them_hand)
    }

    /// The sector a placement leads to when it takes `captured` pieces (0, 1, or 2
    /// under the per-mill capture rule); `None` when every such position has ended the
    /// game by rule 1 (a side with an empty hand and at most two pieces), or when the
    /// captures cannot happen (too few opponent pieces on the board, or too few of
    /// ours after the placement to close as many mills: three for one, five for two).
    pub fn after_placement(self, captured: u8) -> Option<SectorId> {
        let closing = match captured {
            0 => 0,
            1 => 3,
            2 => 5,
            _ => return None,
        };
        if self.them < captured || self.us + 1 < closing {
            return None;
        }
        // The opponent moves next: its counts come first.
        let (us, them) = (self.them - captured, self.us + 1);
        let (us_hand, them_hand) = (self.them_hand, self.us_hand - 1);
        let reduced = |board: u8, hand: u8| hand == 0 && board <= 2;
        if reduced(us, us_hand) || reduced(them, them_hand) {
            return None;
        }
        if us_hand == 0 && them_hand == 0 {
            Sector::new(us, them).map(SectorId::Movement)
        } else {
            PlacementSector::new(us, them, us_hand, them_hand).map(SectorId::Placement)
        }
    }

    /// The sectors whose values this one is solved from under `rules`: a placement
    /// without capture, with one, and (per-mill captures) with two.
    pub fn successors(self, rules: impl Into<Rules>) -> Vec<SuccessorSector> {
        let most = match rules.into().captures() {
            Captures::One => 1,
            Captures::PerMill => 2,
        };
        (0..=most)
            .filter_map(|captured| self.after_placement(captured))
            .map(|s| match s {
                SectorId::Movement(m) => SuccessorSector::Movement(m),
                SectorId::Placement(p) => SuccessorSector::Placement(p),
            })
            .collect()
    }

    /// Every sector of a game with `max_pieces` pieces a side (at most 9; more counts
    /// as 9), fewest pieces in hand first, so that each sector's successors come
    /// before it. Includes the sectors in which a side holds fewer than three pieces
    /// on the board and in hand: it loses only when its hand is empty.
    pub fn all(max_pieces: u8) -> Vec<PlacementSector> {
        PlacementSector::counts(max_pieces.min(PIECES_PER_PLAYER))
            .filter_map(|(us, them, us_hand, them_hand)| {
                PlacementSector::new(us, them, us_hand, them_hand)
            })
            .collect()
    }

    /// The counts `(us, them, us_hand, them_hand)` of the placement positions of a
    /// game of `pieces` a side, in the order of [`PlacementSector::all`]: the side to
    /// move holds `us_hand` pieces and the opponent as many or one fewer. Any number
    /// of pieces, also beyond what a sector holds (to plan the larger games).
    pub fn counts(pieces: u8) -> impl Iterator<Item = (u8, u8, u8, u8)> {
        (1..=2 * pieces).flat_map(move |in_hand| {
            let (us_hand, them_hand) = (in_hand.div_ceil(2), in_hand / 2);
            (0..=pieces - us_hand).flat_map(move |us| {
                (0..=pieces - them_hand).map(move |them| (us, them, us_hand, them_hand))
            })
        })
    }
}

impl fmt::Display for PlacementSector {
    /// Board counts, then hands, side to move first: `3-4+5-4` is three pieces on the
    /// board and five in hand against four and four.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}-{}+{}-{}",
            self.us, self.them, self.us_hand, self.them_hand
        )
    }
}

impl std::str::FromStr for PlacementSector {
    type Err = String;

    /// Parse `US-THEM+USHAND-THEMHAND`, like `3-4+5-4`.
    fn from_str(s: &str) -> Result<PlacementSector, String> {
        let bad = || {
            format!(
                "placement sector '{s}' is not US-THEM+USHAND-THEMHAND (board counts, then \
                 hands, like 3-4+5-4) with the side to move holding a piece to place and as \
                 many as its opponent or one more, and at most 9 a side"
            )
        };
        let pair = |text: &str| -> Result<(u8, u8), String> {
            let (a, b) = text.split_once('-').ok_or_else(bad)?;
            Ok((
                a.trim().parse().map_err(|_| bad())?,
                b.trim().parse().map_err(|_| bad())?,
            ))
        };
        let (board, hands) = s.split_once('+').ok_or_else(bad)?;
        let ((us, them), (us_hand, them_hand)) = (pair(board)?, pair(hands)?);
        PlacementSector::new(us, them, us_hand, them_hand).ok_or_else(bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use morris_engine::Rules;

    #[test]
    fn generation_order_respects_captures_and_pairs() {
        let all = Sector::all();
        assert_eq!(all.len(), 49);
        for (i, s) in all.iter().enumerate() {
            if let Some(t) = s.after_capture() {
                let j = all.iter().position(|x| *x == t).unwrap();
                assert!(j < i, "{s} needs {t}");
            }
            let m = all.iter().position(|x| *x == s.swapped()).unwrap();
            assert!(m.abs_diff(i) <= 1);
        }
        assert_eq!(Sector::new(3, 4).unwrap().closure().len(), 3);
    }

    #[test]
    fn movement_sectors_parse_and_print() {
        assert_eq!("8-9".parse::<Sector>(), Ok(Sector { us: 8, them: 9 }));
        assert_eq!(Sector { us: 8, them: 9 }.to_string(), "8-9");
        assert!("2-9".parse::<Sector>().is_err());
    }

    fn sector(text: &str) -> PlacementSector {
        text.parse().expect("a placement sector")
    }

    /// Full-game counts: with at least three pieces a side on the board and in hand,
    /// 497 sectors; the published 449 (17,856,741,338 positions) leave out the 48 in
    /// which the opponent of the side to move has no piece on the board, except the
    /// start of the game (22,481 positions, most of them unreachable). With the
    /// sectors of a side holding fewer than three, 615.
    #[test]
    fn the_full_game_has_the_published_counts() {
        let all = PlacementSector::all(9);
        let size = |s: &[PlacementSector]| s.iter().map(|s| s.size(Board::Nine)).sum::<u64>();
        assert_eq!(all.len(), 615);
        assert_eq!(size(&all), 17_874_891_168);
        let three: Vec<_> = all
            .iter()
            .copied()
            .filter(|s| s.material().0 >= 3 && s.material().1 >= 3)
            .collect();
        assert_eq!(three.len(), 497);
        assert_eq!(size(&three), 17_856_763_819);
        let start = sector("0-0+9-9");
        let (left_out, published): (Vec<_>, Vec<_>) =
            three.iter().partition(|&&s| s.them == 0 && s != start);
        assert_eq!((left_out.len(), size(&left_out)), (48, 22_481));
        assert_eq!((published.len(), size(&published)), (449, 17_856_741_338));
    }

    #[test]
    fn successors_come_first_and_stay_in_the_game() {
        for max in 0..=9 {
            let all = PlacementSector::all(max);
            for (i, s) in all.iter().enumerate() {
                assert!(s.material().0 <= max && s.material().1 <= max);
                for next in s.successors(Rules::STANDARD) {
                    match next {
                        SuccessorSector::Placement(p) => {
                            let j = all.iter().position(|t| *t == p);
                            assert!(j.is_some_and(|j| j < i), "{s} needs {p}");
                        }
                        SuccessorSector::Movement(m) => {
                            assert!(m.us <= max && m.them <= max, "{s} needs {m}");
                            assert_eq!(s.us_hand + s.them_hand, 1);
                        }
                    }
                }
            }
        }
        assert!(PlacementSector::all(0).is_empty());
        assert_eq!(PlacementSector::all(1).len(), 3);
        assert_eq!(PlacementSector::all(12), PlacementSector::all(9));
    }

    #[test]
    fn successor_sectors_follow_the_counts() {
        use SuccessorSector::{Movement, Placement};
        // White to move: Black moves next with one piece more in hand.
        assert_eq!(
            sector("3-4+5-5").successors(Rules::STANDARD),
            vec![Placement(sector("4-4+5-4")), Placement(sector("3-4+5-4"))]
        );
        // Black's last placement leads to the movement phase.
        assert_eq!(
            sector("4-5+1-0").successors(Rules::STANDARD),
            vec![
                Movement(Sector::new(5, 5).expect("a sector")),
                Movement(Sector::new(4, 5).expect("a sector"))
            ]
        );
        // A capture that leaves White two pieces with an empty hand ends the game.
        assert_eq!(
            sector("4-3+1-0").successors(Rules::STANDARD),
            vec![Movement(Sector::new(3, 5).expect("a sector"))]
        );
        // Two pieces can close no mill; placing the last of them loses at once.
        assert_eq!(sector("1-3+1-1").successors(Rules::STANDARD), vec![]);
        assert_eq!(sector("1-0+3-3").after_placement(1), None);
        // Per-mill captures: a placement closing two mills takes two, which needs
        // five of ours after it and two of theirs.
        let per_mill = Rules::STANDARD.with_captures(Captures::PerMill);
        assert_eq!(
            sector("4-3+3-3").successors(per_mill),
            vec![
                Placement(sector("3-5+3-2")),
                Placement(sector("2-5+3-2")),
                Placement(sector("1-5+3-2"))
            ]
        );
        assert_eq!(sector("3-3+3-3").successors(per_mill).len(), 2);
        assert_eq!(sector("4-1+3-3").successors(per_mill).len(), 2);
    }

    #[test]
    fn sectors_parse_and_print() {
        let s = sector("3-4+5-4");
        assert_eq!((s.us, s.them, s.us_hand, s.them_hand), (3, 4, 5, 4));
        assert_eq!(s.to_string(), "3-4+5-4");
        assert!(!s.white_to_move());
        for bad in [
            "3-4",
            "3-4+4-5",
            "3-4+0-0",
            "5-4+5-4",
            "3-4+5-3",
            "x-4+5-4",
            "3-4+5-4-1",
            "",
        ] {
            assert!(bad.parse::<PlacementSector>().is_err(), "{bad}");
        }
        let start = Position::start(Rules::STANDARD);
        assert_eq!(PlacementSector::of(&start), Some(sector("0-0+9-9")));
        let played = start.play(start.legal_moves()[0]).expect("a legal move");
        assert_eq!(PlacementSector::of(&played), Some(sector("0-1+9-8")));
    }
}
