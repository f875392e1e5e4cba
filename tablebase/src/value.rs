//! Stored values and their counts.
//!
//! A [`Value`] is what a table holds for a position: win, draw or loss for the side
//! to move with the distance to the end of the game (DTM), in a 16-bit encoding that
//! the file formats narrow to one byte; [`SectorStats`] counts a sector's values, as
//! every file's header records them.

use std::fmt;

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

    /// The value of a position from the values of its successors (each for its own
    /// side to move, a finished game as [`Value::finished`] values it): a win in one
    /// more than the quickest lost successor, else a draw if a successor draws, else
    /// a loss in one more than the slowest won successor (a loss in 0 without
    /// successors). `None` when a distance leaves the encoding or a successor's
    /// distance is not known.
    pub fn best_of(children: impl IntoIterator<Item = Value>) -> Option<Value> {
        let (mut win, mut loss, mut draw) = (None::<u16>, None::<u16>, false);
        for c in children {
            if c.is_distance_unknown() {
                return None;
            }
            match (c.wdl(), c.dtm()) {
                (Wdl::Loss, Some(d)) => win = Some(win.map_or(d + 1, |w| w.min(d + 1))),
                (Wdl::Win, Some(d)) => loss = Some(loss.map_or(d + 1, |l| l.max(d + 1))),
                _ => draw = true,
            }
        }
        let fits = |d: u16| d <= Value::MAX_DTM;
        match (win, draw, loss) {
            (Some(d), _, _) => fits(d).then(|| Value::win(d)),
            (None, true, _) => Some(Value::DRAW),
            (None, false, l) => {
                let d = l.unwrap_or(0);
                fits(d).then(|| Value::loss(d))
            }
        }
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

/// Counts of a solved sector.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SectorStats {
    /// Positions up to symmetry.
    pub positions: u64,
    /// Won for the side to move.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost for the side to move.
    pub losses: u64,
    /// Longest win, in plies (0 if none).
    pub longest_win: u16,
    /// Longest loss, in plies (0 if none).
    pub longest_loss: u16,
}

impl SectorStats {
    /// The counts of a slice of stored values.
    pub fn of(values: &[u16]) -> SectorStats {
        let mut s = SectorStats::default();
        for &v in values {
            s.add(Value(v));
        }
        s
    }

    /// Add the counts of `other` (a sector summed into a total).
    pub fn merge(&mut self, other: &SectorStats) {
        self.positions += other.positions;
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
        self.longest_win = self.longest_win.max(other.longest_win);
        self.longest_loss = self.longest_loss.max(other.longest_loss);
    }

    /// Count one more position of value `v`.
    pub fn add(&mut self, v: Value) {
        self.add_many(v, 1);
    }

    /// Count `n` more positions of value `v` (none: nothing changes).
    pub fn add_many(&mut self, v: Value, n: u64) {
        if n == 0 {
            return;
        }
        self.positions += n;
        let d = v.dtm().unwrap_or(0);
        match v.wdl() {
            Wdl::Draw => self.draws += n,
            Wdl::Win => {
                self.wins += n;
                self.longest_win = self.longest_win.max(d);
            }
            Wdl::Loss => {
                self.losses += n;
                self.longest_loss = self.longest_loss.max(d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_encode_parity() {
        assert_eq!(Value::decided(0).wdl(), Wdl::Loss);
        assert_eq!(Value::decided(1).wdl(), Wdl::Win);
        assert_eq!(Value::DRAW.wdl(), Wdl::Draw);
        assert_eq!(Value::decided(26).dtm(), Some(26));
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

    /// Stats count by result, not by the parity of the distance: placement values may
    /// be inverted ("win in 0", "loss in 1").
    #[test]
    fn stats_count_inverted_values_by_their_result() {
        let values = [Value::win(0).0, Value::loss(1).0, Value::win(3).0, 0];
        let stats = SectorStats::of(&values);
        assert_eq!((stats.wins, stats.draws, stats.losses), (2, 1, 1));
        assert_eq!((stats.longest_win, stats.longest_loss), (3, 1));
    }
}
