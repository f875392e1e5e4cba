//! How a player picks among the moves that keep a position's value, by the
//! tablebases, and the seeded generator that makes such choices reproducible.
//!
//! Every surface that plays by the tables (the match runner's players, the engine
//! protocol's `Strategy` option) asks [`Strategy::candidates`]; the searcher's best
//! moves follow the same order ([`order_by_traps`]).

use morris_engine::{Color, Move, Position};
use morris_tablebase::{FileError, SectorId, Tablebase, Value, Wdl};
use std::collections::HashMap;

/// How to choose among value-keeping moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Strategy {
    /// Any move that keeps the value: a draw with any drawing move, a win or a loss
    /// with any move that keeps its distance (the quickest win, the slowest loss).
    Perfect,
    /// The ultra-strong solution's choice alone: as [`Strategy::Perfect`], but among
    /// the drawing moves only those that steer to the best draw class (see
    /// [`morris_tablebase::classes`]), then the quickest way there (the slowest for
    /// the side behind); plain perfect play where a sector has no class file.
    Classes,
    /// Play that presses a fallible opponent: as [`Strategy::Classes`] once the
    /// pieces are placed, then the drawing moves that go least round in circles
    /// ([`Seen::staleness`]), then, in a draw or a loss, the moves that leave the
    /// opponent the largest share of replies giving its value away ([`most_traps`]).
    /// While pieces are still being placed the traps alone decide among the drawing
    /// moves: there a class ranks a draw that settles only after every piece is
    /// placed, and steering by it from the empty board cost points against a
    /// fallible opponent (measured in `docs/RESULTS.md`, "Ultra-strong against
    /// perfect play, the full No-flying game").
    #[default]
    Ultra,
}

impl Strategy {
    /// Every strategy, in the order they are offered.
    pub const ALL: [Strategy; 3] = [Strategy::Perfect, Strategy::Classes, Strategy::Ultra];

    /// The name in option values and player names.
    pub const fn name(self) -> &'static str {
        match self {
            Strategy::Perfect => "perfect",
            Strategy::Classes => "classes",
            Strategy::Ultra => "ultra",
        }
    }

    /// Whether drawing moves are told apart by their draw classes (in a review and
    /// an analysis, and, for the moves this strategy plays, where
    /// [`Strategy::steers_by_class`] says so).
    pub const fn uses_classes(self) -> bool {
        matches!(self, Strategy::Classes | Strategy::Ultra)
    }

    /// Whether this strategy chooses among the drawing moves of `pos` by their
    /// classes: [`Strategy::Classes`] always, [`Strategy::Ultra`] once both hands
    /// are empty.
    pub fn steers_by_class(self, pos: &Position) -> bool {
        match self {
            Strategy::Perfect => false,
            Strategy::Classes => true,
            Strategy::Ultra => pos.hand(Color::White) == 0 && pos.hand(Color::Black) == 0,
        }
    }

    /// Whether equally good moves of a draw or a loss are told apart by the traps
    /// they set ([`most_traps`]).
    pub const fn sets_traps(self) -> bool {
        matches!(self, Strategy::Ultra)
    }

    /// The names of every strategy, for messages: `perfect, classes or ultra`.
    pub fn names() -> String {
        let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
        match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
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
    /// leads to (a move that ends the game needs no table). `history` holds the
    /// full-state hashes ([`Position::hash`]) of the game's positions before `pos`:
    /// in a draw, [`Strategy::Ultra`] prefers the moves that go least round in
    /// circles ([`Seen::staleness`]).
    ///
    /// # Errors
    /// [`FileError`] when a table file read is damaged.
    pub fn candidates(
        self,
        tb: &Tablebase,
        pos: &Position,
        history: &[u64],
    ) -> Result<Option<Vec<Move>>, FileError> {
        let Some(value) = tb.value(pos)? else {
            return Ok(None);
        };
        let mut keeping = Vec::new();
        for &m in pos.legal_moves().iter() {
            let Some(theirs) = value_after(tb, pos, m)? else {
                return Ok(None);
            };
            if keeps(value, theirs) {
                keeping.push(m);
            }
        }
        if self.steers_by_class(pos) && value.wdl() == Wdl::Draw {
            if let Some(ranked) = rank_draws(tb, pos, &keeping)? {
                let best = ranked.first().map(|r| (r.1, r.2));
                keeping = ranked
                    .into_iter()
                    .filter(|r| Some((r.1, r.2)) == best)
                    .map(|r| r.0)
                    .collect();
            }
        }
        if self.sets_traps() && value.wdl() == Wdl::Draw && keeping.len() > 1 {
            let seen = Seen::new(pos, history);
            let least = keeping.iter().map(|&m| seen.staleness(pos, m)).min();
            keeping.retain(|&m| Some(seen.staleness(pos, m)) == least);
        }
        if self.sets_traps() && value.wdl() != Wdl::Win && keeping.len() > 1 {
            keeping = most_traps(tb, pos, &keeping)?;
        }
        Ok(Some(keeping))
    }
}

/// The positions of a game so far, counted, for the repetitions a move may lead to.
pub struct Seen(HashMap<u64, u32>);

impl Seen {
    /// The positions of `history` (full-state hashes of the positions before `pos`)
    /// and `pos` itself.
    pub fn new(pos: &Position, history: &[u64]) -> Seen {
        let mut counts = HashMap::new();
        for &h in history.iter().chain(std::iter::once(&pos.hash())) {
            *counts.entry(h).or_insert(0) += 1;
        }
        Seen(counts)
    }

    /// How much a move `m` of `pos` goes round in circles: 2 when the position it
    /// leads to has been seen, 1 when a reply of the opponent there repeats a
    /// position for the third time (the opponent may then end the game by
    /// repetition), else 0. A drawn game that goes round in circles ends in a draw
    /// and sets no traps.
    pub fn staleness(&self, pos: &Position, m: Move) -> u8 {
        let next = pos.play_unchecked(m);
        if self.0.contains_key(&next.hash()) {
            return 2;
        }
        if next.end().is_none()
            && next.legal_moves().iter().any(|&r| {
                self.0
                    .get(&next.play_unchecked(r).hash())
                    .is_some_and(|&n| n >= 2)
            })
        {
            return 1;
        }
        0
    }
}

/// The value, for the opponent, of the position a move `m` of `pos` leads to: the
/// game's end, or the tables' value; `None` when they do not cover it.
fn value_after(tb: &Tablebase, pos: &Position, m: Move) -> Result<Option<Value>, FileError> {
    let next = pos.play_unchecked(m);
    match next.end() {
        Some(end) => Ok(Some(Value::finished(&next, end))),
        None => tb.value(&next),
    }
}

/// A share of replies as `(errors, replies)`: `a` before `b` when it is larger
/// (`a.0 / a.1 > b.0 / b.1`, by cross-multiplication).
fn more_traps(a: (u64, u64), b: (u64, u64)) -> std::cmp::Ordering {
    (b.0 * a.1).cmp(&(a.0 * b.1))
}

/// The trap share ([`trap_share`]) after each of `moves` of `pos`; `None` when a
/// position is not covered.
fn shares(
    tb: &Tablebase,
    pos: &Position,
    moves: &[Move],
) -> Result<Option<Vec<(u64, u64)>>, FileError> {
    let mut shares = Vec::with_capacity(moves.len());
    for &m in moves {
        match trap_share(tb, &pos.play_unchecked(m))? {
            Some(share) => shares.push(share),
            None => return Ok(None),
        }
    }
    Ok(Some(shares))
}

/// Of the moves `moves` of `pos`, all equally good by the tables, those after which
/// the opponent has the largest share of replies that give its value away (a draw
/// for a loss, a win for a draw or a loss): against a fallible opponent they are the
/// likeliest to gain. Every move when a reply's position is not covered.
///
/// # Errors
/// [`FileError`] when a table file read is damaged.
pub fn most_traps(tb: &Tablebase, pos: &Position, moves: &[Move]) -> Result<Vec<Move>, FileError> {
    let Some(shares) = shares(tb, pos, moves)? else {
        return Ok(moves.to_vec());
    };
    let Some(&top) = shares.iter().min_by(|a, b| more_traps(**a, **b)) else {
        return Ok(Vec::new());
    };
    Ok(moves
        .iter()
        .zip(&shares)
        .filter(|(_, &s)| more_traps(s, top).is_eq())
        .map(|(&m, _)| m)
        .collect())
}

/// Reorder `moves` of `pos` (a draw or a loss; all equally good by the tables up to
/// `key`, lower first) so that, among moves of equal `key`, those after which the
/// opponent has a larger share of replies giving its value away come first
/// ([`most_traps`]'s order). Unchanged when a reply's position is not covered.
///
/// # Errors
/// [`FileError`] when a table file read is damaged.
pub fn order_by_traps<K: Ord + Copy>(
    tb: &Tablebase,
    pos: &Position,
    moves: &mut [(Move, K)],
) -> Result<(), FileError> {
    let plain: Vec<Move> = moves.iter().map(|m| m.0).collect();
    let Some(shares) = shares(tb, pos, &plain)? else {
        return Ok(());
    };
    let mut keyed: Vec<((Move, K), (u64, u64))> = moves.iter().copied().zip(shares).collect();
    // The sort is stable.
    keyed.sort_by(|(x, a), (y, b)| x.1.cmp(&y.1).then(more_traps(*a, *b)));
    for (slot, (m, _)) in moves.iter_mut().zip(keyed) {
        *slot = m;
    }
    Ok(())
}

/// For the side to move in `pos`: how many of its replies give its value away, and
/// how many replies it has (`(0, 1)` when the game is over); `None` when `pos` or a
/// position a reply leads to is not covered by the tables.
fn trap_share(tb: &Tablebase, pos: &Position) -> Result<Option<(u64, u64)>, FileError> {
    if pos.end().is_some() {
        return Ok(Some((0, 1)));
    }
    let Some(value) = tb.value(pos)? else {
        return Ok(None);
    };
    let replies = pos.legal_moves();
    let mut errors = 0;
    for &r in replies.iter() {
        let Some(theirs) = value_after(tb, pos, r)? else {
            return Ok(None);
        };
        if theirs.wdl().opposite() < value.wdl() {
            errors += 1;
        }
    }
    Ok(Some((errors, replies.len().max(1) as u64)))
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
        assert_eq!(Strategy::Perfect.candidates(&tb, &pos, &[]).unwrap(), None);
    }
}
