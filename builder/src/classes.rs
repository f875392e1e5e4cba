//! Draw classes of every drawn position (see [`morris_tablebase::classes`] for what a
//! class is), computed from the value tables.
//!
//! **A movement pair** `A = X-Y`, `B = Y-X` is a game over its drawn positions: a
//! value-keeping move of a drawn position leads to a drawn position, of the other
//! sector of the pair (a move without capture) or of a smaller pair whose classes are
//! known (a capture: an *exit*, worth the negated class of the position it reaches for
//! the side that makes it). Play that never leaves the pair is worth the pair's stay
//! class. For the side `P` with `X` pieces, and each threshold `t` above its stay
//! class, from the highest down, the positions where `P` forces an exit worth at least
//! `t` form an attractor, grown from the previous threshold's: a position of `P`
//! joins when one move reaches it, one of the opponent when every drawing move does.
//! Positions join level by level (breadth first), so each one's distance (plies to
//! the exit) is the least `P` can force and the most the opponent can delay. The same
//! for the opponent and its thresholds above its own stay class; the two attractors
//! are disjoint, and what neither reaches stays at the pair's stay class.
//!
//! The computation works on the value generator's arrays, not on a graph: one word a
//! position and perspective (its state, and for the opponent's positions a counter
//! of drawing moves not yet in the attractor, weighted by symmetry as the value
//! generator weighs its counters) and one byte (the best exit of the position's
//! mover). Moves are generated forward once, to count; a position that joins is taken
//! back by the value generator's backward moves. Each threshold's sweep touches only
//! what joins: the whole pair costs one pass over its moves, one backward pass per
//! side, and a pass over the exits to sort them by threshold. A symmetric pair
//! (`X = Y`) needs one side's sweep only: the other is its mirror image.
//!
//! **A placement sector** is acyclic: a drawn position's class is the best negated
//! class of its drawn successors, read from the sectors placed after it (placement
//! sectors with fewer pieces in hand, and the movement sectors where placing ends).
//!
//! [`verify_classes`] checks a sector's classes by a separate path: each drawn
//! position's class and distance from its successors' alone, through the engine's
//! move generator (the best successor's class; for the side ahead of its stay class
//! one more than the least distance among the successors that keep its class, for
//! the side behind one more than the most), which the distances make a complete
//! check: no cycle of positions can claim an exit that no move reaches.
//!
//! Memory: a pair of `n` positions a side takes `2n` words and bytes and its two
//! sectors' classes (about 7 bytes a position of the pair), besides the classes of
//! the two sectors its captures reach; the value files are read through their
//! mappings. Only the classes a sector needs are held: those of other sectors are
//! read again from their files when needed.

use crate::pack::write_blocks;
use crate::verify::{derive_codes, Source};
use crate::write::{write_at, write_safely};
use morris_engine::tables::{closes_mill, in_mills, ADJACENT};
use morris_engine::{notation, Bitboard, Position, Rules, SYMMETRY_COUNT};
use morris_sys::{prefetch, AtomicWords};
use morris_tablebase::blocks::BlockCache;
use morris_tablebase::classes::{self, Class, ClassFile, DECIDED};
use morris_tablebase::compact::CompactHeader;
use morris_tablebase::file::{decode_byte, Problem};
use morris_tablebase::{
    FileError, PlacementSector, Sector, SectorId, SectorIndex, SectorStats, Tablebase, Wdl,
};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicI8, Ordering::Relaxed};
use std::sync::Arc;
use thiserror::Error;

/// Why classes could not be computed, written or checked.
#[derive(Debug, Error)]
pub enum ClassError {
    /// A table file.
    #[error(transparent)]
    File(#[from] FileError),
    /// The values of a sector the classes need are not in the tables.
    #[error("the values of sector {0} are needed but missing")]
    MissingValues(SectorId),
    /// A move leads to a position no table covers.
    #[error("no table covers position {0}")]
    NoSector(String),
    /// The classes of a sector this one's moves reach are not there.
    #[error("the classes of sector {0} are needed but missing")]
    MissingClasses(SectorId),
    /// A distance too long for the class encoding.
    #[error("a draw of sector {0} leaves its pair in more than 255 plies, which the class encoding cannot store")]
    Distance(SectorId),
    /// The working memory could not be had.
    #[error("cannot allocate the working memory of the classes of sector {0}")]
    Memory(SectorId),
    /// The values contradict themselves (a draw without a drawing move).
    #[error("sector {sector}: {what}")]
    Inconsistent {
        /// The sector.
        sector: SectorId,
        /// What was found.
        what: String,
    },
}

fn inconsistent(sector: impl Into<SectorId>, what: impl Into<String>) -> ClassError {
    ClassError::Inconsistent {
        sector: sector.into(),
        what: what.into(),
    }
}

/// The class entries of the sectors at hand: one `u16` an entry ([`Class::encode`];
/// a decided position's entry means nothing, unless built here: then [`DECIDED`]).
#[derive(Default)]
pub struct Store {
    sectors: HashMap<SectorId, Arc<[u16]>>,
    /// The values of sectors that have compact files only, decoded once for the
    /// sectors at work.
    decoded: std::sync::Mutex<HashMap<SectorId, Arc<[u8]>>>,
}

impl Store {
    /// The class entries of a sector, if at hand.
    pub fn get(&self, sector: SectorId) -> Option<&Arc<[u16]>> {
        self.sectors.get(&sector)
    }

    /// Keep a sector's entries.
    pub fn insert(&mut self, sector: SectorId, entries: Arc<[u16]>) {
        self.sectors.insert(sector, entries);
    }

    /// Drop every sector but those of `keep`.
    pub fn retain(&mut self, keep: &[SectorId]) {
        self.sectors.retain(|s, _| keep.contains(s));
        if let Ok(d) = self.decoded.get_mut() {
            d.retain(|s, _| keep.contains(s));
        }
    }

    /// Make sure the classes of `needed` are at hand, reading them from `dir`, and
    /// drop every other sector's (so that memory holds what one sector's work needs).
    ///
    /// # Errors
    /// [`ClassError::MissingClasses`] for a sector without a class file, or the
    /// problem of a damaged or stale one.
    pub fn hold(
        &mut self,
        dir: &Path,
        tb: &Tablebase,
        rules: impl Into<Rules>,
        needed: &[SectorId],
    ) -> Result<(), ClassError> {
        let rules: Rules = rules.into();
        self.retain(needed);
        for &s in needed {
            if self.get(s).is_none() {
                let entries = match finished(dir, tb, self, rules, s)? {
                    Some(e) => e,
                    // A sector of a one-sided set: its classes from its successors'.
                    None if s.distances_derived(rules) => derive_entries(dir, tb, rules, s)?.into(),
                    None => return Err(ClassError::MissingClasses(s)),
                };
                self.insert(s, entries);
            }
        }
        Ok(())
    }
}

/// A sector's values as raw codes (encoding 2 of `morris_tablebase::file`): mapped
/// from its raw file, or decoded from its compact file.
pub struct Values<'a> {
    codes: Codes<'a>,
}

enum Codes<'a> {
    Mapped(&'a [u8]),
    Decoded(Arc<[u8]>),
}

impl Values<'_> {
    #[inline]
    fn codes(&self) -> &[u8] {
        match &self.codes {
            Codes::Mapped(c) => c,
            Codes::Decoded(c) => c,
        }
    }

    /// Whether entry `i` is a draw.
    #[inline]
    fn drawn(&self, i: u64) -> bool {
        decode_byte(self.codes()[i as usize]).wdl() == Wdl::Draw
    }

    /// Ask for entry `i`'s cache line ahead of its use.
    #[inline]
    fn prefetch(&self, i: u64) {
        prefetch(self.codes(), i as usize);
    }
}

/// The values of a sector, every block checked: the raw file's mapping, else its
/// compact file decoded (kept in `store` for the sectors that follow).
fn values<'a>(
    tb: &'a Tablebase,
    store: &Store,
    rules: Rules,
    sector: SectorId,
) -> Result<Values<'a>, ClassError> {
    if let Some(f) = tb.file(rules, sector) {
        return Ok(Values {
            codes: Codes::Mapped(f.entries()?),
        });
    }
    if let Some(c) = store
        .decoded
        .lock()
        .ok()
        .and_then(|d| d.get(&sector).cloned())
    {
        return Ok(Values {
            codes: Codes::Decoded(c),
        });
    }
    let codes: Arc<[u8]> = match tb.derived_values(rules, sector) {
        // A sparse set's: found from the successors' values.
        Some(own) => {
            let source = |s: SectorId| match tb.file(rules, s) {
                Some(f) => Some(Source::Raw(f)),
                None => tb.compact(rules, s)?.answering().map(Source::Compact),
            };
            derive_codes(rules, sector, Source::Compact(own), source)
                .map_err(|e| inconsistent(sector, e.to_string()))?
                .into()
        }
        None => tb
            .compact(rules, sector)
            .and_then(|c| c.answering())
            .ok_or(ClassError::MissingValues(sector))?
            .raw_codes()?
            .into(),
    };
    if let Ok(mut d) = store.decoded.lock() {
        d.insert(sector, Arc::clone(&codes));
    }
    Ok(Values {
        codes: Codes::Decoded(codes),
    })
}

/// A sector as successors reach it: its index, values and classes.
struct Reached<'a> {
    sector: SectorId,
    index: Arc<SectorIndex>,
    values: Values<'a>,
    classes: Arc<[u16]>,
}

impl<'a> Reached<'a> {
    fn new(
        tb: &'a Tablebase,
        store: &Store,
        rules: Rules,
        sector: SectorId,
    ) -> Result<Reached<'a>, ClassError> {
        Ok(Reached {
            sector,
            index: sector.index(rules.board()),
            values: values(tb, store, rules, sector)?,
            classes: Arc::clone(
                store
                    .get(sector)
                    .ok_or(ClassError::MissingClasses(sector))?,
            ),
        })
    }

    /// The class of the position `(us, them)` of this sector if it is drawn.
    #[inline]
    fn class(
        &self,
        us: Bitboard,
        them: Bitboard,
        from: SectorId,
    ) -> Result<Option<Class>, ClassError> {
        self.class_at(self.index.index(us, them), from)
    }

    /// The class of entry `j` of this sector if it is drawn.
    #[inline]
    fn class_at(&self, j: u64, from: SectorId) -> Result<Option<Class>, ClassError> {
        if !self.values.drawn(j) {
            return Ok(None);
        }
        Class::decode(self.classes[j as usize])
            .map(Some)
            .ok_or_else(|| {
                inconsistent(
                    from,
                    format!("a drawn successor in sector {} has no class", self.sector),
                )
            })
    }
}

/// The header counts of a sector's values.
fn stats(tb: &Tablebase, rules: Rules, sector: SectorId) -> Result<SectorStats, ClassError> {
    if let Some(f) = tb.file(rules, sector) {
        return Ok(f.header().stats);
    }
    compact_header(tb, rules, sector)
        .map(|h| h.stats)
        .ok_or(ClassError::MissingValues(sector))
}

/// The header of a sector's compact file that answers, else of its `.wdl` file
/// without values (a sparse set's, which records the counts and the raw file's
/// checksum too).
fn compact_header(tb: &Tablebase, rules: Rules, sector: SectorId) -> Option<&CompactHeader> {
    tb.compact(rules, sector)
        .and_then(|c| c.answering())
        .or_else(|| tb.derived_values(rules, sector))
        .map(|f| f.header())
}

/// The checksum field of a sector's value file (raw, else compact), which a class
/// file records.
fn values_checksum(tb: &Tablebase, rules: Rules, sector: SectorId) -> Result<u64, ClassError> {
    if let Some(f) = tb.file(rules, sector) {
        return Ok(f.header().checksum);
    }
    compact_header(tb, rules, sector)
        .and_then(|h| h.source)
        .ok_or(ClassError::MissingValues(sector))
}

/// The stay class of a movement sector (for its side to move).
pub fn stay_of(tb: &Tablebase, rules: impl Into<Rules>, sector: Sector) -> Result<i8, ClassError> {
    let rules: Rules = rules.into();
    let own = stats(tb, rules, sector.into())?;
    let swapped = stats(tb, rules, sector.swapped().into())?;
    Ok(classes::stay_class(&own, &swapped))
}

/// The position of board `(us, them)` of a sector ([`SectorId::setup`]).
fn entry_position(rules: Rules, sector: SectorId, us: Bitboard, them: Bitboard) -> Position {
    Position::from_setup(&sector.setup(us, them), rules).expect("an index yields valid positions")
}

/// The sectors whose classes a sector's classes are computed from: a movement
/// sector's own pair and where its captures lead, a placement sector's successors.
pub fn dependencies(rules: Rules, sector: SectorId) -> Vec<SectorId> {
    match sector {
        SectorId::Movement(s) => {
            let mut out = vec![sector, s.swapped().into()];
            out.extend(s.after_capture().map(SectorId::from));
            out.dedup();
            out
        }
        SectorId::Placement(p) => std::iter::once(sector)
            .chain(p.successors(rules).into_iter().map(SectorId::from))
            .collect(),
    }
}

// ---- a movement pair ----

/// The state of a position not (yet) in the attractor.
const UNSETTLED: u16 = 0x8000;
/// The state of a decided position (never part of the game over draws).
const NOT_DRAWN: u16 = 0x8100;
/// An output entry not yet given a class.
const UNSET: u16 = 0x8200;
/// The best exit of a position without drawing captures.
const NO_EXIT: i8 = i8::MIN;
/// The largest counter: at most 3 pieces flying to 21 points or 9 pieces sliding
/// along 4 lines, each weighted by at most 16 symmetries.
const COUNTER_MAX: u32 = 0xFFFF;

#[inline]
fn state(word: u32) -> u16 {
    word as u16
}

/// The successors of one drawn position, waiting to be read (see
/// [`Pair::initialise`]).
#[derive(Default)]
struct Successors {
    /// The position's node and entry; `None` before the first.
    node: Option<(usize, u64)>,
    /// Its symmetry weight (16 over the size of its stabiliser).
    weight: u32,
    /// Entries of its moves without capture, in the other side's sector.
    quiet: Vec<u64>,
    /// Entries of its captures, in the sector they reach.
    captures: Vec<u64>,
}

/// One pair being solved: node `side * n + i` is entry `i` of side `side`'s sector
/// (side 0 the sector asked for, side 1 its swapped one; for a symmetric pair both
/// are the same sector, side 1 with the other player to move).
struct Pair<'a> {
    rules: Rules,
    sectors: [Sector; 2],
    index: [Arc<SectorIndex>; 2],
    values: [&'a Values<'a>; 2],
    /// Where each side's captures lead; `None` where a capture ends the game.
    exits: [Option<&'a Reached<'a>>; 2],
    n: usize,
    symmetric: bool,
    /// Per node: counter << 16 | state.
    words: AtomicWords,
    /// Per node: the best exit for its mover ([`NO_EXIT`] without one).
    best: Vec<AtomicI8>,
}

impl Pair<'_> {
    fn id(&self) -> SectorId {
        self.sectors[0].into()
    }

    fn node(&self, side: usize, i: u64) -> usize {
        side * self.n + i as usize
    }

    fn board(&self, node: usize) -> (usize, u64, Bitboard, Bitboard) {
        let (side, i) = (node / self.n, (node % self.n) as u64);
        let (us, them) = self.index[side].position(i);
        (side, i, us, them)
    }

    fn flies(&self, pieces: Bitboard) -> bool {
        self.rules.flying() && pieces.count() == 3
    }

    /// Count each drawn position's drawing moves inside the pair and find its best
    /// exit, side `s`.
    ///
    /// Pipelined one position deep, as the value generator takes positions back: a
    /// position's successors are computed and their entries prefetched before the
    /// previous position's are read, so that the cache misses of the reads (at random
    /// over the other sector and the sectors captures reach) overlap with the index
    /// arithmetic instead of following it.
    fn initialise(&self, s: usize) -> Result<(), ClassError> {
        let index = &self.index[s];
        let words = self.words.as_slice();
        (0..index.blocks()).into_par_iter().try_for_each(|b| {
            let symmetric = index.is_symmetric_block(b);
            let (mut ready, mut next) = (Successors::default(), Successors::default());
            for (i, us, them) in index.block_positions(b) {
                let node = self.node(s, i);
                if !self.values[s].drawn(i) {
                    words[node].store(u32::from(NOT_DRAWN), Relaxed);
                    continue;
                }
                self.successors(s, i, us, them, &mut next);
                next.weight = if symmetric {
                    SYMMETRY_COUNT as u32 / index.index_with_stabiliser(us, them).1
                } else {
                    SYMMETRY_COUNT as u32
                };
                self.count(s, &ready)?;
                std::mem::swap(&mut ready, &mut next);
            }
            self.count(s, &ready)
        })
    }

    /// The successors of the drawn position `(us, them)`, entry `i` of side `s`, into
    /// `out`: the entries of its moves without capture (in the other side's sector)
    /// and of its captures (in the sector they reach), each prefetched.
    fn successors(&self, s: usize, i: u64, us: Bitboard, them: Bitboard, out: &mut Successors) {
        let o = 1 - s;
        out.node = Some((self.node(s, i), i));
        out.quiet.clear();
        out.captures.clear();
        let empty = !(us | them);
        let free = them & !in_mills(them);
        let capturable = if free.is_empty() { them } else { free };
        let flies = self.flies(us);
        for from in us {
            let own = us ^ from.bit();
            let targets = if flies {
                empty
            } else {
                ADJACENT[from.index()] & empty
            };
            for to in targets {
                let mover = own | to.bit();
                if !closes_mill(own, to.index()) {
                    let j = self.index[o].index(them, mover);
                    self.values[o].prefetch(j);
                    out.quiet.push(j);
                    continue;
                }
                // Without a sector to reach, the capture ends the game: a win.
                let Some(exit) = self.exits[s] else { continue };
                for c in capturable {
                    let j = exit.index.index(them ^ c.bit(), mover);
                    exit.values.prefetch(j);
                    prefetch(&exit.classes, j as usize);
                    out.captures.push(j);
                }
            }
        }
    }

    /// Read the successors of a position (see [`Pair::successors`]): count its
    /// drawing moves and find its best exit.
    fn count(&self, s: usize, succ: &Successors) -> Result<(), ClassError> {
        let Some((node, i)) = succ.node else {
            return Ok(());
        };
        let o = 1 - s;
        let quiet = succ
            .quiet
            .iter()
            .filter(|&&j| self.values[o].drawn(j))
            .count() as u32;
        let mut best = NO_EXIT;
        if let Some(exit) = self.exits[s] {
            for &j in &succ.captures {
                if let Some(class) = exit.class_at(j, self.id())? {
                    best = best.max(-class.class);
                }
            }
        }
        if quiet == 0 && best == NO_EXIT {
            return Err(inconsistent(
                self.sectors[s],
                format!("entry {i} is a draw without a drawing move"),
            ));
        }
        let counter = quiet * succ.weight;
        if counter > COUNTER_MAX {
            return Err(inconsistent(self.sectors[s], "too many moves to count"));
        }
        self.words.as_slice()[node].store(counter << 16 | u32::from(UNSETTLED), Relaxed);
        self.best[node].store(best, Relaxed);
        Ok(())
    }

    /// Side 1 of a symmetric pair from side 0: the same boards with the other player
    /// to move have the same moves.
    fn mirror(&self) {
        let words = self.words.as_slice();
        let (first, second) = words.split_at(self.n);
        second
            .par_iter()
            .zip(first.par_iter())
            .for_each(|(to, from)| to.store(from.load(Relaxed), Relaxed));
        let (first, second) = self.best.split_at(self.n);
        second
            .par_iter()
            .zip(first.par_iter())
            .for_each(|(to, from)| to.store(from.load(Relaxed), Relaxed));
    }

    /// Forget the states of a sweep, keeping the counters.
    fn reset(&self) {
        self.words.as_slice().par_iter().for_each(|w| {
            let v = w.load(Relaxed);
            if state(v) != NOT_DRAWN {
                w.store(v & 0xFFFF_0000 | u32::from(UNSETTLED), Relaxed);
            }
        });
    }

    /// Where the opponent node `node` joins at the latest: the least exit value of
    /// its drawing captures for the sweep's player (every exit must be worth that).
    fn limit(&self, node: usize) -> i8 {
        match self.best[node].load(Relaxed) {
            NO_EXIT => i8::MAX,
            b => -b,
        }
    }

    /// The attractors of player `pl` (whose positions are side `pl`'s) above its stay
    /// class `stay`: the states of the nodes that join hold the class for `pl`.
    fn sweep(&self, pl: usize, stay: i8) -> Result<(), ClassError> {
        let words = self.words.as_slice();
        let bucket = |t: i8| (i32::from(t) + 128) as usize;
        // Seeds: the player's positions by their best exit, the opponent's with only
        // exits by their least.
        let seeds = (0..2 * self.n)
            .into_par_iter()
            .fold(
                || vec![Vec::new(); 256],
                |mut buckets: Vec<Vec<u32>>, node| {
                    let w = words[node].load(Relaxed);
                    if state(w) == NOT_DRAWN {
                        return buckets;
                    }
                    let t = if node / self.n == pl {
                        self.best[node].load(Relaxed)
                    } else if w >> 16 == 0 {
                        self.limit(node)
                    } else {
                        return buckets;
                    };
                    if t > stay && t != i8::MAX {
                        buckets[bucket(t)].push(node as u32);
                    }
                    buckets
                },
            )
            .reduce(
                || vec![Vec::new(); 256],
                |mut a, mut b| {
                    for (x, y) in a.iter_mut().zip(b.iter_mut()) {
                        x.append(y);
                    }
                    a
                },
            );
        let mut pending: Vec<Vec<u32>> = vec![Vec::new(); 256];
        for t in (i32::from(stay) + 1..=i32::from(classes::MAX_CLASS)).rev() {
            let t = t as i8;
            let mut frontier: Vec<u32> = Vec::new();
            let first = Class {
                class: t,
                distance: 1,
            }
            .encode();
            for &node in seeds[bucket(t)].iter().chain(&pending[bucket(t)]) {
                let slot = &words[node as usize];
                let w = slot.load(Relaxed);
                if state(w) == UNSETTLED {
                    slot.store(w & 0xFFFF_0000 | u32::from(first), Relaxed);
                    frontier.push(node);
                }
            }
            pending[bucket(t)] = Vec::new();
            let mut d = 1u8;
            while !frontier.is_empty() {
                let next = d.checked_add(1).ok_or(ClassError::Distance(self.id()))?;
                let enc = Class {
                    class: t,
                    distance: next,
                }
                .encode();
                let found: Vec<(Vec<u32>, Vec<u32>)> = frontier
                    .par_chunks(1 << 12)
                    .map(|chunk| self.take_back(chunk, pl, stay, t, enc))
                    .collect::<Result<_, _>>()?;
                frontier = Vec::new();
                for (joined, later) in found {
                    frontier.extend(joined);
                    for node in later {
                        pending[bucket(self.limit(node as usize))].push(node);
                    }
                }
                d = next;
            }
        }
        Ok(())
    }

    /// Take back the moves into the nodes of `chunk`, which joined the attractor at
    /// threshold `t`: their predecessors that join now (state `enc`), and those whose
    /// last drawing move inside the pair just joined but whose captures hold them to
    /// a lower threshold (they join there).
    fn take_back(
        &self,
        chunk: &[u32],
        pl: usize,
        stay: i8,
        t: i8,
        enc: u16,
    ) -> Result<(Vec<u32>, Vec<u32>), ClassError> {
        let words = self.words.as_slice();
        let (mut joined, mut later) = (Vec::new(), Vec::new());
        for &m in chunk {
            let (sm, _, us, them) = self.board(m as usize);
            let prev = 1 - sm;
            // The opponent's positions count moves; the player's join at one.
            let counting = prev != pl;
            let weight = if counting {
                SYMMETRY_COUNT as u32 / self.index[sm].index_with_stabiliser(us, them).1
            } else {
                0
            };
            let empty = !(us | them);
            let movable = them & !in_mills(them);
            let flies = self.flies(them);
            for to in movable {
                let rest = them ^ to.bit();
                let origins = if flies {
                    empty
                } else {
                    ADJACENT[to.index()] & empty
                };
                for from in origins {
                    let p = self.node(prev, self.index[prev].index(rest | from.bit(), us));
                    let slot = &words[p];
                    let w = slot.load(Relaxed);
                    if state(w) != UNSETTLED {
                        continue;
                    }
                    if !counting {
                        if slot
                            .compare_exchange(w, w & 0xFFFF_0000 | u32::from(enc), Relaxed, Relaxed)
                            .is_ok()
                        {
                            joined.push(p as u32);
                        }
                        continue;
                    }
                    let before = slot.fetch_sub(weight << 16, Relaxed);
                    let left = before >> 16;
                    if left < weight {
                        return Err(inconsistent(self.id(), "a move counted back twice"));
                    }
                    if left == weight {
                        let limit = self.limit(p);
                        if limit >= t {
                            slot.store(u32::from(enc), Relaxed);
                            joined.push(p as u32);
                        } else if limit > stay {
                            later.push(p as u32);
                        }
                    }
                }
            }
        }
        Ok((joined, later))
    }

    /// Write the classes a sweep of player `pl` found into the entries of the pair's
    /// sectors (`out[k]` for side `k`; one sector for a symmetric pair), each for the
    /// entry's side to move.
    fn record(&self, pl: usize, out: &mut [Vec<u16>]) -> Result<(), ClassError> {
        let words = self.words.as_slice();
        for (k, entries) in out.iter_mut().enumerate() {
            // A symmetric pair's one sector: entry `i` with either player to move.
            let looks: Vec<usize> = if self.symmetric { vec![0, 1] } else { vec![k] };
            entries.par_iter_mut().enumerate().try_for_each(|(i, e)| {
                for &s in &looks {
                    let st = state(words[self.node(s, i as u64)].load(Relaxed));
                    if st == NOT_DRAWN || st == UNSETTLED {
                        continue;
                    }
                    let c = Class::decode(st).ok_or_else(|| {
                        inconsistent(self.id(), "a working state that is no class")
                    })?;
                    if *e != UNSET {
                        return Err(inconsistent(
                            self.id(),
                            "both players force an exit better than staying",
                        ));
                    }
                    let class = if s == pl { c.class } else { -c.class };
                    *e = Class {
                        class,
                        distance: c.distance,
                    }
                    .encode();
                }
                Ok(())
            })?;
        }
        Ok(())
    }
}

/// The classes of a movement pair: the entries of `a` and of its swapped sector (the
/// same sector once when the counts are equal), [`DECIDED`] for decided positions.
/// `store` must hold the classes of the sectors the pair's captures reach.
///
/// # Errors
/// A [`ClassError`]: missing values or classes, a damaged file, a distance too long,
/// no memory.
pub fn movement_pair(
    tb: &Tablebase,
    store: &Store,
    rules: impl Into<Rules>,
    a: Sector,
) -> Result<Vec<(Sector, Vec<u16>)>, ClassError> {
    let rules: Rules = rules.into();
    let symmetric = a == a.swapped();
    let sectors = [a, a.swapped()];
    let index = sectors.map(|s| SectorId::from(s).index(rules.board()));
    let n = index[0].size() as usize;
    if 2 * n as u64 >= u64::from(u32::MAX) {
        return Err(inconsistent(a, "too many positions for this computation"));
    }
    let own = values(tb, store, rules, a.into())?;
    let swapped = if symmetric {
        None
    } else {
        Some(values(tb, store, rules, a.swapped().into())?)
    };
    let exits: Vec<Option<Reached>> = sectors
        .iter()
        .map(|s| {
            s.after_capture()
                .map(|t| Reached::new(tb, store, rules, t.into()))
                .transpose()
        })
        .collect::<Result<_, _>>()?;
    let memory = |_| ClassError::Memory(a.into());
    let mut best = Vec::new();
    best.try_reserve_exact(2 * n).map_err(memory)?;
    best.extend((0..2 * n).map(|_| AtomicI8::new(NO_EXIT)));
    let pair = Pair {
        rules,
        sectors,
        index,
        values: [&own, swapped.as_ref().unwrap_or(&own)],
        exits: [exits[0].as_ref(), exits[1].as_ref()],
        n,
        symmetric,
        words: AtomicWords::zeroed(2 * n).map_err(|_| ClassError::Memory(a.into()))?,
        best,
    };
    pair.initialise(0)?;
    if symmetric {
        pair.mirror();
    } else {
        pair.initialise(1)?;
    }
    let mut out: Vec<Vec<u16>> = Vec::new();
    for k in 0..if symmetric { 1 } else { 2 } {
        let mut entries = Vec::new();
        entries.try_reserve_exact(n).map_err(memory)?;
        let words = pair.words.as_slice();
        (0..n)
            .into_par_iter()
            .map(|i| {
                if state(words[k * n + i].load(Relaxed)) == NOT_DRAWN {
                    DECIDED
                } else {
                    UNSET
                }
            })
            .collect_into_vec(&mut entries);
        out.push(entries);
    }
    let stay = stay_of(tb, rules, a)?;
    pair.sweep(0, stay)?;
    pair.record(0, &mut out)?;
    if !symmetric {
        pair.reset();
        pair.sweep(1, -stay)?;
        pair.record(1, &mut out)?;
    }
    drop(pair);
    for (k, entries) in out.iter_mut().enumerate() {
        let stays = Class {
            class: if k == 0 { stay } else { -stay },
            distance: 0,
        }
        .encode();
        entries.par_iter_mut().for_each(|e| {
            if *e == UNSET {
                *e = stays;
            }
        });
    }
    Ok(sectors.into_iter().zip(out).collect())
}

// ---- a placement sector ----

/// The sector of `pos` among `reached`, with its index.
fn reached_by<'r, 'a>(reached: &'r [Reached<'a>], pos: &Position) -> Option<&'r Reached<'a>> {
    let s = Tablebase::sector_id_of(pos)?;
    reached.iter().find(|r| r.sector == s)
}

/// The classes of a placement sector, from those of the sectors its placements reach
/// (which `store` must hold), [`DECIDED`] for decided positions.
///
/// # Errors
/// A [`ClassError`]: missing values or classes, a damaged file, a drawn position
/// without a drawing move.
pub fn placement_sector(
    tb: &Tablebase,
    store: &Store,
    rules: impl Into<Rules>,
    sector: PlacementSector,
) -> Result<Vec<u16>, ClassError> {
    let rules: Rules = rules.into();
    let id = SectorId::Placement(sector);
    let index = id.index(rules.board());
    let own = values(tb, store, rules, id)?;
    let reached: Vec<Reached> = sector
        .successors(rules)
        .into_iter()
        .map(|s| Reached::new(tb, store, rules, s.into()))
        .collect::<Result<_, _>>()?;
    // In chunks: every drawn position's successors are located (and their entries
    // prefetched) first, then read, so that the reads' cache misses overlap.
    const CHUNK: u64 = 1 << 10;
    let chunks: Vec<Vec<u16>> = (0..index.size().div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| -> Result<Vec<u16>, ClassError> {
            let range = c * CHUNK..((c + 1) * CHUNK).min(index.size());
            // Per entry: where its successors' locations end in `at` (none: decided).
            let mut ends: Vec<Option<usize>> = Vec::with_capacity(CHUNK as usize);
            let mut at: Vec<(u8, u64)> = Vec::new();
            for i in range.clone() {
                if !own.drawn(i) {
                    ends.push(None);
                    continue;
                }
                let (us, them) = index.position(i);
                let pos = entry_position(rules, id, us, them);
                for &m in pos.legal_moves().iter() {
                    let next = pos.play_unchecked(m);
                    if next.end().is_some() {
                        continue;
                    }
                    let k = Tablebase::sector_id_of(&next)
                        .and_then(|s| reached.iter().position(|r| r.sector == s))
                        .ok_or_else(|| {
                            ClassError::NoSector(notation::setup_to_string(&next.to_setup()))
                        })?;
                    let r = &reached[k];
                    let j = r.index.index(next.us(), next.them());
                    r.values.prefetch(j);
                    prefetch(&r.classes, j as usize);
                    at.push((k as u8, j));
                }
                ends.push(Some(at.len()));
            }
            let mut out = Vec::with_capacity(ends.len());
            let mut start = 0;
            for (i, end) in range.zip(ends) {
                let Some(end) = end else {
                    out.push(DECIDED);
                    continue;
                };
                let mut best: Option<i8> = None;
                for &(k, j) in &at[start..end] {
                    if let Some(c) = reached[usize::from(k)].class_at(j, id)? {
                        best = Some(best.map_or(-c.class, |b| b.max(-c.class)));
                    }
                }
                start = end;
                let class = best.ok_or_else(|| {
                    inconsistent(id, format!("entry {i} is a draw without a drawing move"))
                })?;
                out.push(Class { class, distance: 0 }.encode());
            }
            Ok(out)
        })
        .collect::<Result<_, _>>()?;
    Ok(chunks.concat())
}

// ---- files ----

/// log2 of the entries of a class file's block: 64 Ki entries (128 KiB), where
/// zstd finds the long runs of a sector's classes (0.15 bits a position for the
/// five-piece Standard game's largest sectors, measured).
pub const BLOCK_LOG2: u8 = 16;

/// The zstd level of class files.
pub const LEVEL: i32 = 9;

/// Write a sector's classes under its class file name, safely (temporary name, sync,
/// rename). `entries` holds [`DECIDED`] for decided positions, which the file does
/// not store (its blocks hold the drawn positions' entries alone).
///
/// # Errors
/// A [`FileError`] naming the file.
pub fn write_classes(
    dir: &Path,
    tb: &Tablebase,
    rules: impl Into<Rules>,
    sector: SectorId,
    entries: &[u16],
) -> Result<classes::Header, ClassError> {
    let rules: Rules = rules.into();
    let stay = match sector {
        SectorId::Movement(s) => stay_of(tb, rules, s)?,
        SectorId::Placement(_) => 0,
    };
    let block = 1usize << BLOCK_LOG2;
    let blocks: Vec<&[u16]> = entries.chunks(block).collect();
    let draws = entries.par_iter().filter(|&&e| e != DECIDED).count() as u64;
    let values = values_checksum(tb, rules, sector)?;
    let name = classes::file_name(rules, sector);
    let header = write_safely(dir, &name, |file| -> Result<classes::Header, Problem> {
        // A block stores its drawn positions' classes, then their distances.
        let (index_sum, data_len) = write_blocks(file, blocks.len(), LEVEL, |b| {
            let drawn = || blocks[b].iter().filter(|&&e| e != DECIDED);
            let mut bytes: Vec<u8> = drawn().map(|&e| (e >> 8) as u8).collect();
            bytes.extend(drawn().map(|&e| e as u8));
            bytes
        })?;
        let header = classes::Header {
            version: classes::VERSION,
            rules,
            sector,
            stay,
            entries: entries.len() as u64,
            values,
            draws,
            block_log2: BLOCK_LOG2,
            level: LEVEL as u8,
            index_sum,
            data_len,
        };
        write_at(file, &header.encode(), 0)?;
        Ok(header)
    })?;
    Ok(header)
}

/// The classes of a sector already in `dir`, if its file is there, good (every block
/// checked), and built from the values the tables hold now; `Err` says why a present
/// file cannot be used. Decided positions' entries mean nothing.
///
/// # Errors
/// A [`ClassError`] naming the file: damaged, or built from other values.
pub fn finished(
    dir: &Path,
    tb: &Tablebase,
    store: &Store,
    rules: impl Into<Rules>,
    sector: SectorId,
) -> Result<Option<Arc<[u16]>>, ClassError> {
    let rules: Rules = rules.into();
    Ok(current(dir, tb, store, rules, sector)?.map(|(_, entries)| entries.into()))
}

/// A sector's class file in `dir` and its entries (every block checked, [`DECIDED`]
/// where the values say the position is not drawn), if it is there and was built
/// from the values the tables hold now (see [`finished`]).
fn current(
    dir: &Path,
    tb: &Tablebase,
    store: &Store,
    rules: Rules,
    sector: SectorId,
) -> Result<Option<(ClassFile, Vec<u16>)>, ClassError> {
    let path = dir.join(classes::file_name(rules, sector));
    if !path.exists() {
        return Ok(None);
    }
    // Read once, block by block: no cache to keep.
    let file = ClassFile::open(&path, rules, sector, Arc::new(BlockCache::new(0)))?;
    if file.header().values != values_checksum(tb, rules, sector)? {
        return Err(ClassError::File(FileError::new(
            &path,
            std::io::Error::other("was built from other values than the tables hold now"),
        )));
    }
    let own = values(tb, store, rules, sector)?;
    let entries = file.entries(&|i| own.drawn(i))?;
    Ok(Some((file, entries)))
}

// ---- the check ----

/// Check every class of a sector from its successors' classes (see the module
/// docs): the number of entries that disagree, and the first of them. `store` must
/// hold the classes of the sector and of those it depends on ([`dependencies`]).
///
/// # Errors
/// A [`ClassError`] when what the check reads is missing or damaged.
pub fn verify_classes(
    tb: &Tablebase,
    store: &Store,
    rules: impl Into<Rules>,
    sector: SectorId,
) -> Result<(u64, Option<u64>), ClassError> {
    let rules: Rules = rules.into();
    let deps = dependencies(rules, sector);
    let reached: Vec<Reached> = deps
        .iter()
        .map(|&s| Reached::new(tb, store, rules, s))
        .collect::<Result<_, _>>()?;
    let own = &reached[0];
    let stay = match sector {
        SectorId::Movement(s) => Some(stay_of(tb, rules, s)?),
        SectorId::Placement(_) => None,
    };
    let bad: Vec<u64> = (0..own.index.size())
        .into_par_iter()
        .map(|i| -> Result<Option<u64>, ClassError> {
            if !own.values.drawn(i) {
                return Ok(None);
            }
            let (u, t) = own.index.position(i);
            let pos = entry_position(rules, sector, u, t);
            let expected = expected_class(&reached, &pos, stay, sector)?;
            let ok = Class::decode(own.classes[i as usize]) == Some(expected);
            Ok((!ok).then_some(i))
        })
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    Ok((bad.len() as u64, bad.first().copied()))
}

/// What a drawn position's class must be, given its successors' stored classes.
fn expected_class(
    reached: &[Reached],
    pos: &Position,
    stay: Option<i8>,
    sector: SectorId,
) -> Result<Class, ClassError> {
    let mut children: Vec<(i8, u8)> = Vec::new();
    for &m in pos.legal_moves().iter() {
        let next = pos.play_unchecked(m);
        if next.end().is_some() {
            continue;
        }
        let r = reached_by(reached, &next)
            .ok_or_else(|| ClassError::NoSector(notation::setup_to_string(&next.to_setup())))?;
        let Some(c) = r.class(next.us(), next.them(), sector)? else {
            continue;
        };
        // A move that leaves the pair (a capture) is an exit: distance 0.
        let same_pair = match (r.sector, sector) {
            (SectorId::Movement(s), SectorId::Movement(o)) => s == o.swapped(),
            _ => false,
        };
        children.push((-c.class, if same_pair { c.distance } else { 0 }));
    }
    Ok(classes::combine(&children, stay).unwrap_or(Class {
        class: i8::MIN,
        distance: 0,
    }))
}

/// The classes of a sector whose class file a one-sided set leaves out
/// ([`SectorId::distances_derived`]): each drawn position's from its successors' class
/// files in `dir` by a one-ply search, as [`verify_classes`] expects them
/// ([`DECIDED`] for decided positions).
///
/// # Errors
/// A [`ClassError`]: a successor's class file missing or damaged, a drawn position
/// without a drawing move.
pub fn derive_entries(
    dir: &Path,
    tb: &Tablebase,
    rules: impl Into<Rules>,
    sector: SectorId,
) -> Result<Vec<u16>, ClassError> {
    let rules: Rules = rules.into();
    let mut deps = Store::default();
    let successors: Vec<SectorId> = dependencies(rules, sector)
        .into_iter()
        .filter(|&s| s != sector)
        .collect();
    deps.hold(dir, tb, rules, &successors)?;
    if let SectorId::Placement(p) = sector {
        // The placement pass is itself a one-ply search.
        return placement_sector(tb, &deps, rules, p);
    }
    let index = sector.index(rules.board());
    let own = values(tb, &deps, rules, sector)?;
    let reached: Vec<Reached> = successors
        .iter()
        .map(|&s| Reached::new(tb, &deps, rules, s))
        .collect::<Result<_, _>>()?;
    let stay = match sector {
        SectorId::Movement(s) => Some(stay_of(tb, rules, s)?),
        SectorId::Placement(_) => None,
    };
    (0..index.size())
        .into_par_iter()
        .map(|i| -> Result<u16, ClassError> {
            if !own.drawn(i) {
                return Ok(DECIDED);
            }
            let (u, t) = index.position(i);
            let pos = entry_position(rules, sector, u, t);
            let c = expected_class(&reached, &pos, stay, sector)?;
            if c.class == i8::MIN {
                return Err(inconsistent(
                    sector,
                    format!("entry {i} is a draw without a drawing move"),
                ));
            }
            Ok(c.encode())
        })
        .collect()
}

/// Check the classes of `sector` from the class files in `dir` (its own and those it
/// depends on, held in `store`, which keeps what the next sector may share).
///
/// # Errors
/// As [`verify_classes`], and a missing or damaged class file it reads.
pub fn verify_sector(
    dir: &Path,
    tb: &Tablebase,
    store: &mut Store,
    rules: impl Into<Rules>,
    sector: SectorId,
) -> Result<(u64, Option<u64>), ClassError> {
    let rules: Rules = rules.into();
    store.hold(dir, tb, rules, &dependencies(rules, sector))?;
    verify_classes(tb, store, rules, sector)
}

// ---- the build ----

/// What happened to one sector's classes.
#[derive(Clone, Debug)]
pub struct ClassReport {
    /// The sector.
    pub sector: SectorId,
    /// Drawn positions (entries with a class).
    pub draws: u64,
    /// Time to compute it (a movement pair's time is its first sector's), zero when
    /// skipped.
    pub time: std::time::Duration,
    /// Whether its file was already there and good.
    pub skipped: bool,
}

/// Whether the class file of `sector` in `dir` is good and belongs to the values the
/// tables hold: its header (drawn count) when so; a damaged or stale one is reported
/// through `log` and built again.
fn good_file(
    dir: &Path,
    tb: &Tablebase,
    rules: Rules,
    sector: SectorId,
    log: &dyn Fn(&str),
) -> Result<Option<u64>, ClassError> {
    let checked = current(dir, tb, &Store::default(), rules, sector);
    match checked {
        Ok(Some((f, entries))) if f.header().version != classes::VERSION => {
            // A file of the earlier format (every entry stored): rewritten from its
            // entries, which are as good.
            drop(f);
            let header = write_classes(dir, tb, rules, sector, &entries)?;
            log(&format!(
                "{}: rewritten in the format of version {}",
                dir.join(classes::file_name(rules, sector)).display(),
                classes::VERSION
            ));
            Ok(Some(header.draws))
        }
        Ok(found) => Ok(found.map(|(f, _)| f.header().draws)),
        Err(ClassError::File(e)) if !e.problem.is_missing() => {
            log(&format!("{e}; building it again"));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Build the class files of `movement` (in [`crate::driver::plan`] order: each pair
/// after what its captures reach) and then `placement` (in solving order) into
/// `dir`, whose value tables `tb` holds, resuming from good class files; a damaged
/// class file, or one built from other values, is built again (saying so through
/// `log`). Only the classes the sector at work needs are held in memory.
///
/// # Errors
/// A [`ClassError`]: missing values, a damaged value file, a failure to write.
pub fn build_into(
    dir: &Path,
    tb: &Tablebase,
    rules: impl Into<Rules>,
    movement: &[Sector],
    placement: &[PlacementSector],
    log: &dyn Fn(&str),
) -> Result<Vec<ClassReport>, ClassError> {
    build_into_as(dir, tb, rules, movement, placement, false, log)
}

/// [`build_into`], and with `one_sided` a one-sided set: the sectors whose classes
/// follow from their successors' ([`SectorId::distances_derived`]) get no class file
/// (a probe finds their classes by a one-ply search, and a later build that needs them
/// computes them from the files). Such a sector counts as finished when the files it
/// follows from are; class files of such sectors from an earlier build are removed at
/// the end.
///
/// # Errors
/// As [`build_into`], and a failure to remove a file.
pub fn build_into_as(
    dir: &Path,
    tb: &Tablebase,
    rules: impl Into<Rules>,
    movement: &[Sector],
    placement: &[PlacementSector],
    one_sided: bool,
    log: &dyn Fn(&str),
) -> Result<Vec<ClassReport>, ClassError> {
    let rules: Rules = rules.into();
    let left_out = |s: SectorId| one_sided && s.distances_derived(rules);
    let mut store = Store::default();
    let mut reports: Vec<ClassReport> = Vec::new();
    let skipped = |sector: SectorId, draws: u64| ClassReport {
        sector,
        draws,
        time: std::time::Duration::ZERO,
        skipped: true,
    };
    for &sector in movement {
        if reports
            .iter()
            .any(|r| r.sector == SectorId::Movement(sector))
        {
            continue;
        }
        let pair: Vec<Sector> = if sector.swapped() == sector {
            vec![sector]
        } else {
            vec![sector, sector.swapped()]
        };
        let mut done = Vec::new();
        for &s in &pair {
            if left_out(s.into()) {
                continue;
            }
            if let Some(draws) = good_file(dir, tb, rules, s.into(), log)? {
                done.push(skipped(s.into(), draws));
            }
        }
        // A left-out sector is finished with its partner.
        let kept = pair.iter().filter(|&&s| !left_out(s.into())).count();
        if done.len() == kept {
            for &s in &pair {
                if left_out(s.into()) {
                    reports.push(skipped(s.into(), stats(tb, rules, s.into())?.draws));
                }
            }
            reports.extend(done);
            continue;
        }
        let needed: Vec<SectorId> = pair
            .iter()
            .filter_map(|s| s.after_capture())
            .map(SectorId::from)
            .collect();
        store.hold(dir, tb, rules, &needed)?;
        let clock = std::time::Instant::now();
        let built = movement_pair(tb, &store, rules, sector)?;
        let time = clock.elapsed();
        for (s, entries) in built {
            if left_out(s.into()) {
                let draws = entries.iter().filter(|&&e| e != DECIDED).count() as u64;
                log(&format!(
                    "classes {} {s}: {draws} draws, from its successors' (no file), {:.1} s",
                    rules.table_name(),
                    time.as_secs_f64()
                ));
                reports.push(ClassReport {
                    sector: s.into(),
                    draws,
                    time,
                    skipped: false,
                });
                store.insert(s.into(), entries.into());
                continue;
            }
            let header = write_classes(dir, tb, rules, s.into(), &entries)?;
            log(&format!(
                "classes {} {s}: {} draws, stay class {:+}, {:.1} s",
                rules.table_name(),
                header.draws,
                header.stay,
                time.as_secs_f64()
            ));
            reports.push(ClassReport {
                sector: s.into(),
                draws: header.draws,
                time,
                skipped: false,
            });
            store.insert(s.into(), entries.into());
        }
    }
    // The verdicts of good_file, each asked once.
    let mut verdicts: HashMap<SectorId, Option<u64>> = HashMap::new();
    let mut verdict = |id: SectorId| -> Result<Option<u64>, ClassError> {
        if let Some(&v) = verdicts.get(&id) {
            return Ok(v);
        }
        let v = good_file(dir, tb, rules, id, log)?;
        verdicts.insert(id, v);
        Ok(v)
    };
    for (k, &sector) in placement.iter().enumerate() {
        let id = SectorId::Placement(sector);
        if left_out(id) {
            // Built (not written) only when a sector still to build reads it.
            let mut needed = false;
            for &q in &placement[k + 1..] {
                let reads = q
                    .successors(rules)
                    .into_iter()
                    .any(|n| SectorId::from(n) == id);
                if reads && !left_out(q.into()) && verdict(q.into())?.is_none() {
                    needed = true;
                    break;
                }
            }
            if !needed {
                reports.push(skipped(id, stats(tb, rules, id)?.draws));
                continue;
            }
        } else if let Some(draws) = verdict(id)? {
            reports.push(skipped(id, draws));
            continue;
        }
        let needed: Vec<SectorId> = sector
            .successors(rules)
            .into_iter()
            .map(SectorId::from)
            .collect();
        store.hold(dir, tb, rules, &needed)?;
        let clock = std::time::Instant::now();
        let entries = placement_sector(tb, &store, rules, sector)?;
        let time = clock.elapsed();
        if left_out(id) {
            let draws = entries.iter().filter(|&&e| e != DECIDED).count() as u64;
            log(&format!(
                "classes {} {sector}: {draws} draws, for the sectors that read it (no file), {:.1} s",
                rules.table_name(),
                time.as_secs_f64()
            ));
            reports.push(ClassReport {
                sector: id,
                draws,
                time,
                skipped: false,
            });
            store.insert(id, entries.into());
            continue;
        }
        let header = write_classes(dir, tb, rules, id, &entries)?;
        log(&format!(
            "classes {} {sector}: {} draws, {:.1} s",
            rules.table_name(),
            header.draws,
            time.as_secs_f64()
        ));
        reports.push(ClassReport {
            sector: id,
            draws: header.draws,
            time,
            skipped: false,
        });
        store.insert(id, entries.into());
    }
    if one_sided {
        let sectors = movement
            .iter()
            .flat_map(|&s| [s, s.swapped()])
            .map(SectorId::from)
            .chain(placement.iter().map(|&p| p.into()));
        for s in sectors.filter(|&s| left_out(s)) {
            let path = dir.join(classes::file_name(rules, s));
            match std::fs::remove_file(&path) {
                Ok(()) => log(&format!(
                    "{}: removed (its classes follow from its successors')",
                    path.display()
                )),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(ClassError::File(FileError::new(&path, e))),
            }
        }
    }
    Ok(reports)
}
