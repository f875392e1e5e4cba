//! Sectors, stored values and the order of generation.
//!
//! A [`Sector`] holds the positions with both hands empty in which the side to move
//! has `us` pieces and its opponent `them`, each from 3 to 9. A move without a capture
//! leads from `(us, them)` to `(them, us)`, so those two are solved together (a
//! *pair*); a capture leads to `(them - 1, us)`, which has fewer pieces and is solved
//! earlier, or, with `them = 3`, ends the game.

use std::fmt;

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
                let them = total - us;
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
    Placement(crate::placement::PlacementSector),
}

impl SectorId {
    /// Board counts `(us, them)`: the movement index that numbers its positions.
    pub fn board(self) -> (u8, u8) {
        match self {
            SectorId::Movement(s) => (s.us, s.them),
            SectorId::Placement(p) => (p.us, p.them),
        }
    }
}

impl From<Sector> for SectorId {
    fn from(s: Sector) -> SectorId {
        SectorId::Movement(s)
    }
}

impl From<crate::placement::PlacementSector> for SectorId {
    fn from(p: crate::placement::PlacementSector) -> SectorId {
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

pub use morris_engine::Wdl;

/// A stored value for the side to move.
///
/// Encoding: `0` is a draw; `n` with `1 <= n <= 0x7FFF` is a decided position with DTM
/// `n - 1`, won exactly when the DTM is odd (the side to move makes the last move);
/// `0x8000 | n` is a decided position with DTM `n - 1` whose result is the *opposite*
/// of what that parity says (an *inverted* value).
///
/// Inverted values arise only in the placing phase, where rule 1 of RULES.md can make
/// the mover lose by its own move: a side that places its last piece while holding
/// fewer than three loses, so "loss in 1" is possible, and a position whose opponent
/// has just lost that way is "win in 0". Movement positions never need them, so every
/// movement value is below `0x8000`. `0x8000` itself (inverted, no distance) is no
/// value: [`Value::is_well_formed`] rejects it, and it reads as a draw.
///
/// Two raw values stand for a decided position whose distance is not known (read from
/// a compact win/draw/loss table without its DTM table, see [`crate::compact`]):
/// `0x7FFF` a loss and `0xFFFF` a win ([`Value::wdl_only`]); their [`Value::dtm`] is
/// `None`, and no file of one byte a value can hold them.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Value(pub u16);

/// The bit that marks a decided value whose result is the opposite of its DTM parity.
const INVERTED: u16 = 0x8000;

impl Value {
    /// A draw.
    pub const DRAW: Value = Value(0);

    /// The longest distance the encoding holds.
    pub const MAX_DTM: u16 = 0x7FFD;

    /// A loss whose distance is not known.
    pub const LOSS_UNKNOWN: Value = Value(0x7FFF);

    /// A win whose distance is not known.
    pub const WIN_UNKNOWN: Value = Value(0xFFFF);

    /// The value of a result without its distance: a draw, or a decided position
    /// whose [`Value::dtm`] is `None`.
    pub fn wdl_only(wdl: Wdl) -> Value {
        match wdl {
            Wdl::Win => Value::WIN_UNKNOWN,
            Wdl::Draw => Value::DRAW,
            Wdl::Loss => Value::LOSS_UNKNOWN,
        }
    }

    /// Whether this is a decided value whose distance is not known.
    pub fn is_distance_unknown(self) -> bool {
        self == Value::WIN_UNKNOWN || self == Value::LOSS_UNKNOWN
    }

    /// A decided position with this distance to the end of the game, won exactly when
    /// the distance is odd (always the case in the movement phase).
    ///
    /// # Panics
    /// If `dtm` exceeds [`Value::MAX_DTM`] (no room in the encoding).
    pub fn decided(dtm: u16) -> Value {
        assert!(dtm <= Value::MAX_DTM, "DTM beyond the encoding");
        Value(dtm + 1)
    }

    /// A win for the side to move in `dtm` plies (inverted when `dtm` is even).
    ///
    /// # Panics
    /// If `dtm` exceeds [`Value::MAX_DTM`].
    pub fn win(dtm: u16) -> Value {
        Value::with_result(dtm, true)
    }

    /// A loss for the side to move in `dtm` plies (inverted when `dtm` is odd).
    ///
    /// # Panics
    /// If `dtm` exceeds [`Value::MAX_DTM`].
    pub fn loss(dtm: u16) -> Value {
        Value::with_result(dtm, false)
    }

    /// The value of a finished game for the side to move of `pos`: won, lost or
    /// drawn now, DTM 0.
    pub fn finished(pos: &morris_engine::Position, end: morris_engine::GameEnd) -> Value {
        match end.value_for(pos.side_to_move()) {
            Wdl::Win => Value::win(0),
            Wdl::Loss => Value::loss(0),
            Wdl::Draw => Value::DRAW,
        }
    }

    fn with_result(dtm: u16, win: bool) -> Value {
        let plain = Value::decided(dtm);
        if (dtm % 2 == 1) == win {
            plain
        } else {
            Value(INVERTED | plain.0)
        }
    }

    /// Whether the result is the opposite of what the DTM's parity says.
    pub fn is_inverted(self) -> bool {
        self.0 & INVERTED != 0 && self.stored_dtm().is_some()
    }

    /// Whether the raw value is one the encoding defines (every value but `0x8000`).
    pub fn is_well_formed(self) -> bool {
        self.0 != INVERTED
    }

    /// Win, draw or loss for the side to move.
    pub fn wdl(self) -> Wdl {
        // The two values of unknown distance hold the parity of distance 0x7FFE.
        match self.stored_dtm() {
            None => Wdl::Draw,
            Some(d) if (d % 2 == 1) != self.is_inverted() => Wdl::Win,
            Some(_) => Wdl::Loss,
        }
    }

    /// Plies to the end of the game under optimal play, `None` for a draw.
    pub fn dtm(self) -> Option<u16> {
        self.stored_dtm().filter(|&d| d <= Value::MAX_DTM)
    }

    /// The distance field of the encoding, the unknown distance included.
    fn stored_dtm(self) -> Option<u16> {
        (self.0 & !INVERTED).checked_sub(1)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.wdl(), self.dtm()) {
            (Wdl::Draw, _) => f.write_str("draw"),
            (Wdl::Win, Some(d)) => write!(f, "win in {d}"),
            (Wdl::Loss, Some(d)) => write!(f, "loss in {d}"),
            (Wdl::Win, None) => f.write_str("win"),
            (Wdl::Loss, None) => f.write_str("loss"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn values_encode_parity() {
        assert_eq!(Value::decided(0).wdl(), Wdl::Loss);
        assert_eq!(Value::decided(1).wdl(), Wdl::Win);
        assert_eq!(Value::DRAW.wdl(), Wdl::Draw);
        assert_eq!(Value::decided(26).dtm(), Some(26));
        assert_eq!("8-9".parse::<Sector>(), Ok(Sector { us: 8, them: 9 }));
        assert!("2-9".parse::<Sector>().is_err());
    }

    #[test]
    fn inverted_values_flip_the_result_of_parity() {
        // Every result with every distance round-trips through the constructors, and
        // only the results that parity cannot express set the bit.
        for dtm in [0, 1, 2, 3, 26, 27, Value::MAX_DTM - 1, Value::MAX_DTM] {
            let (win, loss) = (Value::win(dtm), Value::loss(dtm));
            assert_eq!((win.wdl(), win.dtm()), (Wdl::Win, Some(dtm)));
            assert_eq!((loss.wdl(), loss.dtm()), (Wdl::Loss, Some(dtm)));
            assert_eq!(win.is_inverted(), dtm % 2 == 0);
            assert_eq!(loss.is_inverted(), dtm % 2 == 1);
            let plain = if dtm % 2 == 1 { win } else { loss };
            assert_eq!(plain, Value::decided(dtm));
            assert!(plain.0 < 0x8000);
            assert!(win.is_well_formed() && loss.is_well_formed());
        }
        assert_eq!(Value::win(0), Value(0x8001));
        assert_eq!(Value::loss(1), Value(0x8002));
        assert_eq!(Value::win(0).to_string(), "win in 0");
        assert_eq!(Value::loss(1).to_string(), "loss in 1");
        assert_eq!(Value::win(2).to_string(), "win in 2");
        assert_eq!(Value::decided(4).to_string(), "loss in 4");
        // The one raw value with the bit and no distance is no value.
        assert!(!Value(0x8000).is_well_formed());
        assert_eq!(
            (Value(0x8000).wdl(), Value(0x8000).dtm()),
            (Wdl::Draw, None)
        );
        assert!(!Value(0x8000).is_inverted());
    }

    #[test]
    fn values_without_distance_keep_their_result() {
        for wdl in [Wdl::Win, Wdl::Draw, Wdl::Loss] {
            let v = Value::wdl_only(wdl);
            assert_eq!((v.wdl(), v.dtm()), (wdl, None));
            assert!(v.is_well_formed());
            assert_eq!(v.is_distance_unknown(), wdl != Wdl::Draw);
        }
        assert_eq!(Value::WIN_UNKNOWN.to_string(), "win");
        assert_eq!(Value::LOSS_UNKNOWN.to_string(), "loss");
        // The longest distance is still a distance.
        assert_eq!(Value::win(Value::MAX_DTM).dtm(), Some(Value::MAX_DTM));
        assert!(!Value::loss(Value::MAX_DTM).is_distance_unknown());
    }

    #[test]
    #[should_panic(expected = "DTM beyond the encoding")]
    fn a_distance_beyond_the_encoding_is_refused() {
        let _ = Value::win(Value::MAX_DTM + 1);
    }
}
