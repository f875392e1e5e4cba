//! A lock-free transposition table.
//!
//! Each slot is two `AtomicU64`: the key xor the data, and the data. A reader accepts
//! a slot only when the two xor to its key, so a slot torn by concurrent writers reads
//! as a miss, never as another position's entry. Data layout (bits): 0..16 score
//! (`i16`, mate scores relative to the node), 16..24 depth, 24..26 bound, 26 the
//! *heuristic* flag (the score depends on a heuristic leaf or a repetition), 32..56 the
//! best move (from, to, capture bytes; `0xFF` for none).
//!
//! Slots come in buckets of two: a key may sit in either. A new entry replaces its own
//! key's entry; otherwise it takes the first slot if it was searched at least as deep
//! as what is there, else the second. Deep entries near the root, which save the most
//! work, thus survive the flood of shallow ones in long proof searches.

use morris_engine::{Move, Point};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// What a stored score means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The exact score.
    Exact,
    /// At least the score (a cut-off).
    Lower,
    /// At most the score (no move reached alpha).
    Upper,
}

/// A decoded entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Score, relative to the node.
    pub score: i32,
    /// Depth searched.
    pub depth: u8,
    /// Bound type.
    pub bound: Bound,
    /// Whether the score rests on a heuristic leaf or a repetition.
    pub heuristic: bool,
    /// Best move found, if any.
    pub best: Option<Move>,
}

const NONE: u64 = 0xFF;

fn encode_move(m: Option<Move>) -> u64 {
    match m {
        None => NONE | NONE << 8 | NONE << 16,
        Some(m) => {
            let p = |p: Option<Point>| p.map_or(NONE, |p| p.index() as u64);
            p(m.from()) | (m.to().index() as u64) << 8 | p(m.capture()) << 16
        }
    }
}

fn decode_move(bits: u64) -> Option<Move> {
    let point = |b: u64| Point::new((b & 0xFF) as usize);
    let to = point(bits >> 8)?;
    let m = match point(bits) {
        Some(from) => Move::shift(from, to),
        None => Move::place(to),
    };
    Some(match point(bits >> 16) {
        Some(c) => m.with_capture(c),
        None => m,
    })
}

/// The table.
pub struct TranspositionTable {
    slots: Vec<[AtomicU64; 2]>,
    mask: usize,
}

impl TranspositionTable {
    /// A table of at most `mb` megabytes: the largest power of two of 16-byte slots
    /// that fits (at least one bucket).
    pub fn new(mb: usize) -> TranspositionTable {
        let fit = (mb.max(1) << 20) / 16;
        let n = (1usize << (usize::BITS - 1 - fit.leading_zeros())).max(2);
        TranspositionTable {
            slots: (0..n)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
            mask: n - 1,
        }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the table has no slots (never).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Forget everything.
    pub fn clear(&self) {
        for s in &self.slots {
            s[0].store(0, Relaxed);
            s[1].store(0, Relaxed);
        }
    }

    /// The entry for `key`, if stored and intact.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let first = key as usize & self.mask & !1;
        let data = [first, first + 1]
            .into_iter()
            .map(|i| &self.slots[i])
            .find_map(|slot| {
                let (a, data) = (slot[0].load(Relaxed), slot[1].load(Relaxed));
                (a ^ data == key && data != 0).then_some(data)
            })?;
        let bound = match (data >> 24) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        Some(Entry {
            score: i32::from(data as u16 as i16),
            depth: (data >> 16) as u8,
            bound,
            heuristic: data & (1 << 26) != 0,
            best: decode_move(data >> 32),
        })
    }

    /// Store an entry for `key`.
    pub fn store(&self, key: u64, e: Entry) {
        let bound = match e.bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let data = u64::from(e.score.clamp(i16::MIN.into(), i16::MAX.into()) as i16 as u16)
            | u64::from(e.depth) << 16
            | bound << 24
            | u64::from(e.heuristic) << 26
            | encode_move(e.best) << 32;
        let first = key as usize & self.mask & !1;
        let holds = |i: usize| {
            let slot: &[AtomicU64; 2] = &self.slots[i];
            slot[0].load(Relaxed) ^ slot[1].load(Relaxed) == key
        };
        let depth_at = |i: usize| (self.slots[i][1].load(Relaxed) >> 16) as u8;
        let i = if holds(first) {
            first
        } else if holds(first + 1) || e.depth < depth_at(first) {
            first + 1
        } else {
            first
        };
        let slot = &self.slots[i];
        slot[0].store(key ^ data, Relaxed);
        slot[1].store(data, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_other_keys_miss() {
        let tt = TranspositionTable::new(1);
        let a1 = Point::from_index(6);
        let a4 = Point::from_index(7);
        let g7 = Point::from_index(2);
        for best in [
            None,
            Some(Move::place(a1)),
            Some(Move::shift(a1, a4).with_capture(g7)),
        ] {
            let e = Entry {
                score: -29_990,
                depth: 17,
                bound: Bound::Lower,
                heuristic: true,
                best,
            };
            tt.store(0xDEAD_BEEF, e);
            assert_eq!(tt.probe(0xDEAD_BEEF), Some(e));
            assert_eq!(tt.probe(0xDEAD_BEEF ^ (1 << 40)), None);
        }
    }

    fn entry(depth: u8) -> Entry {
        Entry {
            score: i32::from(depth),
            depth,
            bound: Bound::Exact,
            heuristic: false,
            best: None,
        }
    }

    #[test]
    fn the_size_is_the_largest_power_of_two_that_fits() {
        assert_eq!(TranspositionTable::new(1).len(), 1 << 16);
        assert_eq!(TranspositionTable::new(3).len(), 1 << 17);
        assert_eq!(TranspositionTable::new(4).len(), 1 << 18);
    }

    #[test]
    fn a_deep_entry_survives_shallow_ones_of_its_bucket() {
        let tt = TranspositionTable::new(1);
        let n = tt.len() as u64;
        // Keys 5, 5 + n, 5 + 2n, ... share a bucket.
        tt.store(5, entry(20));
        for k in 1..50 {
            tt.store(5 + k * n, entry(3));
        }
        assert_eq!(tt.probe(5), Some(entry(20)));
        assert_eq!(
            tt.probe(5 + 49 * n),
            Some(entry(3)),
            "the newest shallow one"
        );
        assert_eq!(tt.probe(5 + 48 * n), None, "replaced");
        // A deeper one takes the first slot; a key's own entry is replaced in place.
        tt.store(5 + 60 * n, entry(30));
        assert_eq!(tt.probe(5), None);
        tt.store(5 + 49 * n, entry(4));
        assert_eq!(tt.probe(5 + 49 * n), Some(entry(4)));
        assert_eq!(tt.probe(5 + 60 * n), Some(entry(30)));
    }
}
