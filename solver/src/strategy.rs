//! How a player picks among the moves that keep a position's value, by the
//! tablebases, and the seeded generator that makes such choices reproducible.
//!
//! Every surface that plays by the tables (the match runner's `perfect` player, the
//! engine protocol's `Strategy` option) asks [`Strategy::candidates`]; a further
//! strategy (ultra: the best draw class, then the distance) is one more variant and
//! one more arm there.

use morris_engine::{Move, Position};
use morris_tablebase::{FileError, Tablebase};

/// How to choose among value-keeping moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Strategy {
    /// Any move that keeps the value: win, draw or loss.
    #[default]
    Perfect,
}

impl Strategy {
    /// Every strategy, in the order they are offered.
    pub const ALL: [Strategy; 1] = [Strategy::Perfect];

    /// The name in option values and player names.
    pub const fn name(self) -> &'static str {
        match self {
            Strategy::Perfect => "perfect",
        }
    }

    /// The strategy of a name (any letter case).
    pub fn from_name(name: &str) -> Option<Strategy> {
        Strategy::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(name))
    }

    /// The moves this strategy may play in `pos` (a game not over), all equally good
    /// to it; `None` when the tables do not hold `pos` or a position one of its moves
    /// leads to (a move that ends the game needs no table).
    ///
    /// # Errors
    /// [`FileError`] when a table file read is damaged.
    pub fn candidates(
        self,
        tb: &Tablebase,
        pos: &Position,
    ) -> Result<Option<Vec<Move>>, FileError> {
        let Some(value) = tb.value(pos)? else {
            return Ok(None);
        };
        let mut keeping = Vec::new();
        for &m in pos.legal_moves().iter() {
            let next = pos.play_unchecked(m);
            let theirs = match next.end() {
                Some(end) => end.value_for(next.side_to_move()),
                None => match tb.value(&next)? {
                    Some(v) => v.wdl(),
                    None => return Ok(None),
                },
            };
            if theirs.opposite() == value.wdl() {
                keeping.push(m);
            }
        }
        match self {
            Strategy::Perfect => Ok(Some(keeping)),
        }
    }
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A small seeded generator (SplitMix64): the same seed gives the same choices on
/// every machine.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub const fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n`, uniformly (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        // Rejection keeps it uniform: the top values of a partial last block are drawn again.
        let n = n as u64;
        let limit = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < limit {
                return (x % n) as usize;
            }
        }
    }

    /// One element chosen uniformly, `None` from an empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        (!items.is_empty()).then(|| items[self.below(items.len())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in Strategy::ALL {
            assert_eq!(Strategy::from_name(s.name()), Some(s));
            assert_eq!(Strategy::from_name(&s.name().to_uppercase()), Some(s));
        }
        assert_eq!(Strategy::from_name("ultra"), None);
    }

    #[test]
    fn the_generator_is_seeded_and_covers_its_range() {
        let draw = |seed| {
            let mut r = Rng::new(seed);
            (0..64).map(|_| r.below(7)).collect::<Vec<_>>()
        };
        assert_eq!(draw(1), draw(1));
        assert_ne!(draw(1), draw(2));
        let mut seen = [0u32; 7];
        let mut r = Rng::new(9);
        for _ in 0..7000 {
            seen[r.below(7)] += 1;
        }
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
        assert_eq!(Rng::new(3).pick::<u8>(&[]), None);
    }

    /// Without tables nothing is covered.
    #[test]
    fn an_empty_tablebase_offers_no_candidates() {
        let tb = Tablebase::default();
        let pos = Position::start(morris_engine::Variant::Standard);
        assert_eq!(Strategy::Perfect.candidates(&tb, &pos).unwrap(), None);
    }
}
