//! How a player picks among the moves that keep a position's value, by the
//! tablebases, and the seeded generator that makes such choices reproducible.
//!
//! Every surface that plays by the tables (the match runner's `perfect` player, the
//! engine protocol's `Strategy` option) asks [`Strategy::candidates`]; a further
//! strategy (ultra: the best draw class, then the distance) is one more variant and
//! one more arm there.

use morris_engine::{Move, Position};
use morris_tablebase::{FileError, SectorId, Tablebase, Value, Wdl};

/// How to choose among value-keeping moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Strategy {
    /// Any move that keeps the value: a draw with any drawing move, a win or a loss
    /// with any move that keeps its distance (the quickest win, the slowest loss).
    Perfect,
    /// As [`Strategy::Perfect`], but among the drawing moves only those that steer to
    /// the best draw class (see [`morris_tablebase::classes`]), then the quickest way
    /// there (the slowest for the side behind); plain perfect play where a sector has
    /// no class file.
    #[default]
    Ultra,
}

impl Strategy {
    /// Every strategy, in the order they are offered.
    pub const ALL: [Strategy; 2] = [Strategy::Perfect, Strategy::Ultra];

    /// The name in option values and player names.
    pub const fn name(self) -> &'static str {
        match self {
            Strategy::Perfect => "perfect",
            Strategy::Ultra => "ultra",
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
                Some(end) => Value::finished(&next, end),
                None => match tb.value(&next)? {
                    Some(v) => v,
                    None => return Ok(None),
                },
            };
            if keeps(value, theirs) {
                keeping.push(m);
            }
        }
        if self == Strategy::Ultra && value.wdl() == Wdl::Draw {
            if let Some(ranked) = rank_draws(tb, pos, &keeping)? {
                let best = ranked.first().map(|r| (r.1, r.2));
                keeping = ranked
                    .into_iter()
                    .filter(|r| Some((r.1, r.2)) == best)
                    .map(|r| r.0)
                    .collect();
            }
        }
        Ok(Some(keeping))
    }
}

/// Whether a move to a position of value `theirs` (for the opponent) keeps the value
/// `ours`: the opposite result, one ply nearer the end when both distances are known.
fn keeps(ours: Value, theirs: Value) -> bool {
    if theirs.wdl().opposite() != ours.wdl() {
        return false;
    }
    match (ours.dtm(), theirs.dtm()) {
        (Some(d), Some(t)) => ours.wdl() == Wdl::Draw || t + 1 == d,
        _ => true,
    }
}

/// A drawing move, the class it steers to for its mover, and its distance key (lower
/// is better).
pub type Ranked = (Move, i8, i32);

/// The drawing moves `moves` of the drawn position `pos` with what each is worth to
/// its mover under ultra-strong play, best first: the class it steers to, then a key
/// of its distance (the side ahead of its sector's stay class wants the shortest way
/// out, the side behind the longest; lower is better). `None` when a move's class is
/// missing (no class file, or a damaged one: then plain perfect play).
///
/// # Errors
/// [`FileError`] when a value file read is damaged.
pub fn rank_draws(
    tb: &Tablebase,
    pos: &Position,
    moves: &[Move],
) -> Result<Option<Vec<Ranked>>, FileError> {
    let own = Tablebase::sector_id_of(pos);
    let stay = tb.stay_class(pos);
    let mut ranked = Vec::with_capacity(moves.len());
    for &m in moves {
        let next = pos.play_unchecked(m);
        let Ok(Some(c)) = tb.class(&next) else {
            return Ok(None);
        };
        let inside = matches!((own, Tablebase::sector_id_of(&next)),
            (Some(SectorId::Movement(a)), Some(SectorId::Movement(b))) if b == a.swapped());
        let class = -c.class;
        let d = if inside { i32::from(c.distance) } else { 0 };
        let toward = match stay {
            Some(s) if class > s => d,
            Some(s) if class < s => -d,
            _ => 0,
        };
        ranked.push((m, class, toward));
    }
    ranked.sort_by_key(|&(_, class, toward)| (std::cmp::Reverse(class), toward));
    Ok(Some(ranked))
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
        assert_eq!(Strategy::from_name("best"), None);
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
