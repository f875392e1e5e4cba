//! A lock-free transposition table.
//!
//! Each slot is two `AtomicU64`: the key xor the data, and the data. A reader accepts
//! a slot only when the two xor to its key, so a slot torn by concurrent writers reads
//! as a miss, never as another position's entry. Data layout (bits): 0..16 score
//! (`i16`, mate scores relative to the node), 16..24 depth, 24..26 bound, 26 the
//! *heuristic* flag (the score depends on a heuristic leaf or a repetition), 32..56 the
//! best move (from, to, capture bytes; `0xFF` for none), 56..64 the search that
//! stored it (its generation, modulo 256).
//!
//! Slots come in buckets of four, one bucket a 64-byte cache line, so a probe costs one
//! miss: a key may sit in any slot of its bucket. A new entry replaces its own key's
//! entry, else takes an empty slot, else replaces the entry worth least: the shallowest,
//! once four plies are taken off for every search since it was stored. Deep entries
//! near the root, which save the most work, thus survive the flood of shallow ones in
//! long proof searches, and entries of past searches give way to the current one's.
//!
//! Keys ([`key`]) cover everything that changes a value: the points, the hands, the
//! side to move and the variant.

use morris_engine::{mix64, Color, Move, Point, Position, Symmetry};
use morris_sys::AtomicWords;
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

/// The key of a position, and the symmetry that maps it onto the frame its entry's
/// move is stored in. While pieces remain in hand, positions equal up to a symmetry of
/// the board share one entry: the placing phase is full of such transpositions (the
/// search of the empty board meets each class up to 16 times). Afterwards the
/// position itself: there they are rare and canonicalising costs more.
///
/// The state takes 57 bits ([`Position::packed`]) and the rule set the 7 above them
/// ([`morris_engine::Rules::code`]: 0 and 1 for the classic games, as the variant's
/// bit was before); a bijective mixer spreads them over the 64 bits, so two different
/// states, or the same board under two rule sets, never share a key.
pub fn key(pos: &Position) -> (u64, Symmetry) {
    let packed = pos.packed() | u64::from(pos.rules().code()) << 57;
    if !pos.pieces_in_hand() {
        return (mix64(packed), Symmetry::IDENTITY);
    }
    // `Position::canonical` on the two boards alone: the hands and the side to move,
    // above bit 48 of the packed state, are the same under every symmetry, so the
    // least packed state is the one with the least boards (and no position is copied;
    // this runs at every placing node).
    let (white, black) = (pos.pieces(Color::White), pos.pieces(Color::Black));
    let boards =
        |s: Symmetry| u64::from(s.apply(white).bits()) | u64::from(s.apply(black).bits()) << 24;
    let mut best = (boards(Symmetry::IDENTITY), Symmetry::IDENTITY);
    for &s in &Symmetry::ALL[1..] {
        let b = boards(s);
        if b < best.0 {
            best = (b, s);
        }
    }
    (mix64(packed & !((1 << 48) - 1) | best.0), best.1)
}

/// A table too large for the memory available.
#[derive(Debug, thiserror::Error)]
#[error("cannot allocate a transposition table of {mb} MiB")]
pub struct TableError {
    /// The size asked for, in MiB.
    pub mb: usize,
    /// Why the allocation was refused.
    #[source]
    pub source: std::io::Error,
}

/// Slots a bucket, one bucket a cache line.
const BUCKET: usize = 4;

/// Words a bucket: two a slot, 64 bytes.
const WORDS: usize = 2 * BUCKET;

/// The table.
pub struct TranspositionTable {
    /// The buckets, `WORDS` words each. The mapping is page-aligned, so every bucket
    /// is one cache line and a probe reads one line from memory; huge pages are asked
    /// for, since at gigabytes 4 KiB pages make nearly every probe a TLB miss too.
    words: AtomicWords<AtomicU64>,
    mask: usize,
    /// The search the table serves now ([`TranspositionTable::new_search`]), kept with
    /// each entry: entries of earlier searches are the first to go.
    generation: AtomicU64,
}

/// The low bits of a key choose its bucket, so a slot's own key never needs them.
fn bucket_of(key: u64, mask: usize) -> usize {
    key as usize & mask
}

impl TranspositionTable {
    /// A table of at most `mb` megabytes: the largest power of two of 16-byte slots
    /// that fits (at least one bucket of four). The memory is mapped zeroed and
    /// touched only as entries land in it.
    ///
    /// # Errors
    /// [`TableError`] when the memory cannot be had.
    pub fn new(mb: usize) -> Result<TranspositionTable, TableError> {
        let fit = mb.max(1).saturating_mul(1 << 20) / 16 / BUCKET;
        let n = (1usize << (usize::BITS - 1 - fit.leading_zeros())).max(1);
        let words = n
            .checked_mul(WORDS)
            .ok_or_else(|| std::io::Error::other("table too large"))
            .and_then(AtomicWords::zeroed)
            .map_err(|source| TableError { mb, source })?;
        Ok(TranspositionTable {
            words,
            mask: n - 1,
            generation: AtomicU64::new(0),
        })
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.words.as_slice().len() / 2
    }

    /// Whether the table has no slots (never).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of buckets.
    fn buckets(&self) -> usize {
        self.mask + 1
    }

    /// The slots of bucket `b`, as (key xor data, data) pairs.
    fn bucket(&self, b: usize) -> &[[AtomicU64; 2]] {
        let words = &self.words.as_slice()[b * WORDS..(b + 1) * WORDS];
        let (slots, _) = words.as_chunks::<2>();
        slots
    }

    /// Forget everything.
    pub fn clear(&self) {
        for w in self.words.as_slice() {
            w.store(0, Relaxed);
        }
    }

    /// Start a new search: what the earlier ones stored stays, but gives way first.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Relaxed);
    }

    /// Slots in use per thousand, from the first thousand buckets (as engines report
    /// "hashfull").
    pub fn fill_permille(&self) -> usize {
        let sample = self.buckets().min(1000);
        let used: usize = (0..sample)
            .map(|b| {
                self.bucket(b)
                    .iter()
                    .filter(|s| s[1].load(Relaxed) != 0)
                    .count()
            })
            .sum();
        used * 1000 / (sample * BUCKET)
    }

    /// The entry for `key`, if stored and intact.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let bucket = self.bucket(bucket_of(key, self.mask));
        let data = bucket.iter().find_map(|slot| {
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

    /// Store an entry for `key`: over its own key's entry, else in an empty slot, else
    /// over the entry worth least, the shallowest after four plies of depth are taken
    /// off for every search since it was stored.
    pub fn store(&self, key: u64, e: Entry) {
        let bound = match e.bound {
            Bound::Exact => 1,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let generation = self.generation.load(Relaxed) & 0xFF;
        let data = u64::from(e.score.clamp(i16::MIN.into(), i16::MAX.into()) as i16 as u16)
            | u64::from(e.depth) << 16
            | bound << 24
            | u64::from(e.heuristic) << 26
            | encode_move(e.best) << 32
            | generation << 56;
        let bucket = self.bucket(bucket_of(key, self.mask));
        let worth = |data: u64| {
            let age = generation.wrapping_sub(data >> 56) & 0xFF;
            i64::from((data >> 16) as u8) - 4 * age as i64
        };
        let mut victim = 0;
        let mut least = i64::MAX;
        for (i, slot) in bucket.iter().enumerate() {
            let (a, old) = (slot[0].load(Relaxed), slot[1].load(Relaxed));
            if a ^ old == key || old == 0 {
                victim = i;
                break;
            }
            if worth(old) < least {
                least = worth(old);
                victim = i;
            }
        }
        let slot = &bucket[victim];
        slot[0].store(key ^ data, Relaxed);
        slot[1].store(data, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use morris_engine::Variant;

    #[test]
    fn entries_round_trip_and_other_keys_miss() {
        let tt = TranspositionTable::new(1).unwrap();
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
        let tt = TranspositionTable::new(1).unwrap();
        assert_eq!(
            tt.words.as_slice().as_ptr() as usize % 64,
            0,
            "buckets on lines"
        );
        assert_eq!(std::mem::size_of::<[[AtomicU64; 2]; BUCKET]>(), 64);
        assert_eq!(TranspositionTable::new(1).unwrap().len(), 1 << 16);
        assert_eq!(TranspositionTable::new(3).unwrap().len(), 1 << 17);
        assert_eq!(TranspositionTable::new(4).unwrap().len(), 1 << 18);
    }

    #[test]
    fn a_deep_entry_survives_shallow_ones_of_its_bucket() {
        let tt = TranspositionTable::new(1).unwrap();
        let n = tt.buckets() as u64;
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
        // A key's own entry is replaced in place, even by a shallower one.
        tt.store(5 + 49 * n, entry(2));
        assert_eq!(tt.probe(5 + 49 * n), Some(entry(2)));
        // A deeper one replaces the shallowest, never the deep one.
        tt.store(5 + 60 * n, entry(30));
        assert_eq!(tt.probe(5 + 49 * n), None);
        assert_eq!(tt.probe(5 + 60 * n), Some(entry(30)));
        assert_eq!(tt.probe(5), Some(entry(20)));
    }

    #[test]
    fn entries_of_past_searches_give_way() {
        let tt = TranspositionTable::new(1).unwrap();
        let n = tt.buckets() as u64;
        for k in 0..4 {
            tt.store(7 + k * n, entry(10 + k as u8));
        }
        // Two searches later the deepest old entry (13, aged to 5) is worth less than a
        // new one of 6 plies, which replaces the shallowest old one.
        tt.new_search();
        tt.new_search();
        tt.store(7 + 9 * n, entry(6));
        assert_eq!(tt.probe(7 + 9 * n), Some(entry(6)));
        assert_eq!(tt.probe(7), None, "the shallowest old entry went");
        tt.store(7 + 10 * n, entry(6));
        assert_eq!(tt.probe(7 + 10 * n), Some(entry(6)));
        assert_eq!(tt.probe(7 + n), None, "then the next old one");
        // Then the other old ones, worth 4 and 5 now, before any new entry.
        for k in 11..20 {
            tt.store(7 + k * n, entry(6));
        }
        assert_eq!(tt.probe(7 + 19 * n), Some(entry(6)));
        assert_eq!(tt.probe(7 + 2 * n), None, "aged 12 is worth 4");
        assert_eq!(tt.probe(7 + 3 * n), None, "aged 13 is worth 5");
    }

    #[test]
    fn the_fill_is_counted_per_thousand() {
        let tt = TranspositionTable::new(1).unwrap();
        assert_eq!(tt.fill_permille(), 0);
        for k in 0..500u64 {
            tt.store(k, entry(1));
        }
        // 500 of the first 1000 buckets hold one of their four slots each.
        assert_eq!(tt.fill_permille(), 125);
    }

    /// Keys as the search makes them (mixed bits), forced into bucket 42 of a 1 MiB
    /// table.
    fn bucket_keys(tt: &TranspositionTable) -> Vec<u64> {
        let mask = tt.mask as u64;
        (1..=4u64).map(|k| (mix64(k) & !mask) | 42).collect()
    }

    /// Two entries for the key numbered `k`, differing in every field from each other
    /// and from those of the other keys.
    fn entries(k: usize) -> [Entry; 2] {
        let point = Point::from_index;
        [
            Entry {
                score: -29_000 + k as i32,
                depth: 3 + k as u8,
                bound: Bound::Lower,
                heuristic: true,
                best: Some(Move::shift(point(k), point(k + 8)).with_capture(point(20))),
            },
            Entry {
                score: 100 * k as i32,
                depth: 40 + k as u8,
                bound: Bound::Upper,
                heuristic: false,
                best: Some(Move::place(point(k + 12))),
            },
        ]
    }

    #[test]
    fn a_slot_torn_between_two_writes_reads_as_a_miss() {
        let tt = TranspositionTable::new(1).unwrap();
        let keys = bucket_keys(&tt);
        // The two words each write leaves in the first slot of an empty table's
        // bucket 42.
        let writes: Vec<[u64; 2]> = (0..keys.len())
            .flat_map(|k| entries(k).map(|e| (keys[k], e)))
            .map(|(key, e)| {
                tt.clear();
                tt.store(key, e);
                [
                    tt.bucket(42)[0][0].load(Relaxed),
                    tt.bucket(42)[0][1].load(Relaxed),
                ]
            })
            .collect();
        tt.clear();
        // The first word of one write with the second of another, as writers racing
        // on the slot or a reader between a writer's two stores see it.
        for (i, first) in writes.iter().enumerate() {
            for (j, second) in writes.iter().enumerate().filter(|&(j, _)| j != i) {
                tt.bucket(42)[0][0].store(first[0], Relaxed);
                tt.bucket(42)[0][1].store(second[1], Relaxed);
                for &key in &keys {
                    assert_eq!(tt.probe(key), None, "writes {i} and {j} torn");
                }
            }
        }
    }

    #[test]
    fn concurrent_writers_never_tear_an_entry() {
        let tt = TranspositionTable::new(1).unwrap();
        let keys = bucket_keys(&tt);
        let (mut hits, mut misses) = (0u64, 0u64);
        let writing = std::sync::atomic::AtomicUsize::new(keys.len());
        std::thread::scope(|s| {
            for (k, &key) in keys.iter().enumerate() {
                let (tt, writing) = (&tt, &writing);
                s.spawn(move || {
                    for i in 0..100_000 {
                        tt.store(key, entries(k)[i % 2]);
                    }
                    writing.fetch_sub(1, Relaxed);
                });
            }
            // Read while anyone writes, and once more after.
            let mut last = false;
            while !last {
                last = writing.load(Relaxed) == 0;
                for (k, &key) in keys.iter().enumerate() {
                    match tt.probe(key) {
                        Some(e) => {
                            assert!(entries(k).contains(&e), "key {k}: a torn entry {e:?}");
                            hits += 1;
                        }
                        None => misses += 1,
                    }
                }
            }
        });
        // The check ran on entries, not only on misses.
        assert!(hits > 0, "{hits} hits, {misses} misses");
    }

    #[test]
    fn keys_tell_the_variants_apart() {
        let fen = "W.B/.W./B../W.B..W/.B./.../... w 5 5";
        let standard = morris_engine::notation::parse_position(fen, Variant::Standard).unwrap();
        let no_flying = standard.with_variant(Variant::NoFlying);
        assert_ne!(key(&standard).0, key(&no_flying).0);
        assert_eq!(key(&standard).1, key(&no_flying).1);
        // Positions equal up to a symmetry share a key while pieces are in hand.
        let turned = standard.transformed(Symmetry::ALL[5]);
        assert_eq!(key(&turned).0, key(&standard).0);
    }

    /// The key of a placing position is that of `Position::canonical`, with its
    /// symmetry, for every symmetry of a few positions.
    #[test]
    fn keys_of_placing_positions_are_those_of_the_canonical_position() {
        for fen in [
            "W.B/.W./B../W.B..W/.B./.../... w 5 5",
            ".../.../.../....../.../.../... b 9 8",
            "WB./B.W/.../.....W/.../..B/W.. b 3 4",
        ] {
            let pos = morris_engine::notation::parse_position(fen, Variant::NoFlying).unwrap();
            for s in Symmetry::ALL {
                let turned = pos.transformed(s);
                let (canonical, sym) = turned.canonical();
                let (k, ksym) = key(&turned);
                assert_eq!(k, mix64(canonical.packed() | 1 << 57), "{fen} under {s:?}");
                assert_eq!(turned.transformed(ksym), canonical, "{fen} under {s:?}");
                assert_eq!(ksym, sym, "{fen} under {s:?}");
            }
        }
    }

    #[test]
    fn a_table_too_large_is_an_error() {
        for mb in [1 << 40, usize::MAX] {
            // Kept opaque: an optimiser may drop an allocation nobody uses, and assume
            // it succeeded.
            let table = std::hint::black_box(TranspositionTable::new(mb));
            let e = table.err().expect("no such memory");
            assert_eq!(e.mb, mb);
            assert_eq!(
                e.to_string(),
                format!("cannot allocate a transposition table of {mb} MiB")
            );
        }
    }
}
