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

/// A stored value: `0` is a draw, `n > 0` a decided position with DTM `n - 1` plies.
/// The side to move wins exactly when the DTM is odd (it makes the last move).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Value(pub u16);

impl Value {
    /// A draw.
    pub const DRAW: Value = Value(0);

    /// A decided position with this distance to the end of the game.
    ///
    /// # Panics
    /// If `dtm` is `u16::MAX` (no room in the encoding).
    pub fn decided(dtm: u16) -> Value {
        assert!(dtm < u16::MAX, "DTM beyond the 16-bit encoding");
        Value(dtm + 1)
    }

    /// Win, draw or loss for the side to move.
    pub fn wdl(self) -> Wdl {
        match self.dtm() {
            None => Wdl::Draw,
            Some(d) if d % 2 == 1 => Wdl::Win,
            Some(_) => Wdl::Loss,
        }
    }

    /// Plies to the end of the game under optimal play, `None` for a draw.
    pub fn dtm(self) -> Option<u16> {
        self.0.checked_sub(1)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.wdl(), self.dtm()) {
            (Wdl::Draw, _) | (_, None) => f.write_str("draw"),
            (Wdl::Win, Some(d)) => write!(f, "win in {d}"),
            (Wdl::Loss, Some(d)) => write!(f, "loss in {d}"),
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
}
