//! Retrograde generation of a pair of sectors.
//!
//! Phases (each reported to the [`Observer`]):
//! 1. **Initialise**: every position's moves are generated. Captures lead into an
//!    already solved smaller sector (or end the game), whose values are read now;
//!    moves without capture stay in the pair and are counted.
//! 2. **Propagate**, level by level: at level `L` every position decided with DTM `L`
//!    is taken back one move. A lost position makes each predecessor a win in `L + 1`;
//!    a won one decrements each predecessor's counter of undecided moves, and a
//!    predecessor whose counter reaches zero is lost in `max(L + 1, its worst capture)`.
//!    A win found through a capture waits as *tentative* until its level comes, and a
//!    quicker win found by propagation replaces it. Levels are processed in increasing
//!    order, so every DTM is exact.
//! 3. **Draws**: what never resolves is a draw.
//!
//! Symmetry: entries are orbits (see [`morris_tablebase::index`]), and taking back the moves of a
//! representative reaches each predecessor orbit `|Stab(X)| / |Stab(P)|` times per
//! forward move. Counters therefore start at `moves * 16 / |Stab(P)|` and each
//! backward move subtracts `16 / |Stab(X)|`, which sums to exactly the start value.
//!
//! Working state: one `AtomicU32` per position, the counter in the high 16 bits and
//! the working value in the low 16, so that a backward move touches one cache line.
//! Working value: `FINAL | dtm` decided; `TENTATIVE | dtm` a win through a capture not
//! yet confirmed; otherwise undecided, with `NO_LOSS` set when a capture reaches a draw
//! and the low bits holding the loss DTM its captures alone would give.
//!
//! Each level visits only its own positions: every position decided (or tentatively
//! won) is listed, when its value is written, under its level, and a level's list is
//! sorted before it is taken back. A long sector has a few hundred levels, most of them
//! holding a small share of its positions; scanning the sector for each (as an earlier
//! version did, skipping only the blocks with nothing at the level) read the whole
//! working state a few hundred times and took most of the propagation's time.
//!
//! Working layout. Both sides of a pair keep their working state in the order of the
//! index of the side whose mover has more pieces (the *major* side), by the larger
//! set: the major side's position `(us, them)` at `index(us, them)`, the other
//! (*flipped*) side's at `index(them, us)`. The stored order of the flipped side (by
//! its own side to move's set) is restored when its values are written out. Then
//! every predecessor of a major-side position (the flipped side moved last, the larger
//! set unchanged) lies in the same block as the position, and the predecessors of a
//! block of flipped-side positions (the major side moved last, from one set) lie in
//! the few blocks one move away from that set. Blocks by the larger set are small
//! (`C(24 - big, small)` entries: 1,820 for 8 against 4), so the updates of a level
//! stay within a few dozen kilobytes at a time instead of striking the whole state at
//! random. A pair of one sector (both sides with as many pieces) has one side and
//! keeps the stored order; there the positions decided at a level are first sorted by
//! the opponent's set, which is the side to move's set in the predecessors, and taken
//! back in that order, so that they too strike a few blocks at a time.
//!
//! Taking a position back first computes all its predecessors' indices, prefetching
//! each slot, and meanwhile the predecessors of the position three before it are
//! updated (a pipeline three positions deep: in a pair of one sector, whose updates
//! are the most scattered, one position deep left the propagation waiting for
//! memory): the cache misses overlap with the index arithmetic instead of following
//! it. The initialisation generates the moves of a chunk of positions, prefetching
//! the values their captures reach, before it reads them.

use crate::progress::{Observer, Silent};
use morris_engine::{
    capturable_of, Bitboard, Geometry, Protection, Rules, POINT_COUNT, SYMMETRY_COUNT,
};
use morris_sys::{prefetch, AtomicWords};
use morris_tablebase::combin::{compress, rank};
use morris_tablebase::index::{RankMap, UsSet};
use morris_tablebase::{Sector, SectorIndex, Value};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use thiserror::Error;

const FINAL: u16 = 0x8000;
const TENTATIVE: u16 = 0x4000;
const NO_LOSS: u16 = 0x2000;
const FINAL_MAX: u16 = 0x7FFF;
const TENTATIVE_MAX: u16 = 0x3FFF;
const LOSS_MAX: u16 = 0x1FFF;

/// Why a pair could not be generated.
#[derive(Debug, Error)]
pub enum GenerateError {
    /// A sector that captures lead to was not supplied.
    #[error("sector {needed} is needed to solve {sector} but is missing")]
    MissingDependency {
        /// The sector being solved.
        sector: Sector,
        /// The sector its captures reach.
        needed: Sector,
    },
    /// A supplied sector has the wrong number of entries.
    #[error("sector {0} has {1} entries, expected {2}")]
    WrongSize(Sector, usize, u64),
    /// The working memory could not be had.
    #[error("cannot allocate the working memory of sector {0}: {1}")]
    Memory(Sector, std::io::Error),
    /// A distance too long for the working encoding.
    #[error("a distance of {0} plies in sector {1} exceeds the working encoding")]
    DtmOverflow(u32, Sector),
}

/// One sector being solved.
struct WorkSector<'a> {
    sector: Sector,
    /// The index of the sector's stored values.
    index: Arc<SectorIndex>,
    /// Whether the working state holds position `(us, them)` at the working index of
    /// `(them, us)` (the side with fewer pieces to move: see "Working layout").
    flipped: bool,
    /// Per position, in the working layout: counter of undecided moves << 16 | working
    /// value.
    words: AtomicWords,
    /// Empty, with room for the stored values (reserved before solving).
    out: Vec<u16>,
    /// Where captures lead: `None` when a capture ends the game.
    capture: Option<(Arc<SectorIndex>, &'a [u16])>,
    /// The positions decided (or tentatively won) at each level still to come.
    frontier: Frontier,
}

/// Per level still to be taken back, the working indices of the positions of one side
/// decided (or tentatively won) at it, so that a level visits only its own positions
/// instead of scanning the sector: a long sector has a few hundred levels, most of
/// them holding a small share of its positions. Filled through [`Pending`] buffers in
/// pieces of [`PIECE`] indices. An index may be listed twice (two threads marking one
/// win) or at a level its position no longer has (a tentative win found quicker):
/// [`Frontier::take`] sorts and deduplicates, and the level checks the slot.
#[derive(Default)]
struct Frontier {
    levels: Mutex<Vec<Vec<Vec<u32>>>>,
}

/// Positions of a block whose indices are stepped through rather than decoded when
/// at least one in `DENSE` is wanted ([`Generator::decode`]).
const DENSE: u64 = 16;

/// Indices a [`Pending`] buffer gathers for one level before it hands them over.
const PIECE: usize = 4096;

impl Frontier {
    /// The positions listed at `level` (working indices below `size`), in index
    /// order, each once.
    fn take(&self, level: u16, size: usize) -> Vec<u32> {
        let pieces = {
            let mut levels = self.levels.lock().unwrap_or_else(|e| e.into_inner());
            levels
                .get_mut(usize::from(level))
                .map(std::mem::take)
                .unwrap_or_default()
        };
        let mut list = sorted(pieces, size);
        list.dedup();
        list
    }
}

/// Indices of a bucket of [`sorted`]: `1 << BUCKET_BITS`.
const BUCKET_BITS: u32 = 16;

/// The indices of `pieces`, all below `size`, in one sorted list.
///
/// Distributed by their high bits into buckets of `1 << BUCKET_BITS` indices, then
/// each bucket sorted on its own: two passes over the list and sorts that stay in
/// cache, where one comparison sort of a level of a few hundred million entries took a
/// tenth of the propagation.
fn sorted(pieces: Vec<Vec<u32>>, size: usize) -> Vec<u32> {
    sorted_by_index(pieces, size, |i| i)
}

/// As [`sorted`], entries that carry their index (below `size`) in the bits `index`
/// gives, ordered by the whole entry: by index first where the index is the high bits.
fn sorted_by_index<T: Copy + Ord + Default + Send>(
    pieces: Vec<Vec<T>>,
    size: usize,
    index: impl Fn(T) -> u32,
) -> Vec<T> {
    let n = pieces.iter().map(Vec::len).sum();
    let buckets = (size >> BUCKET_BITS) + 1;
    if n < buckets * 4 {
        let mut list = Vec::with_capacity(n);
        for piece in pieces {
            list.extend_from_slice(&piece);
        }
        list.par_sort_unstable();
        return list;
    }
    let bucket = |i: T| (index(i) >> BUCKET_BITS) as usize;
    // The start of each bucket in the list, then where its next index goes.
    let mut starts = vec![0usize; buckets + 1];
    for &i in pieces.iter().flatten() {
        starts[bucket(i) + 1] += 1;
    }
    for b in 1..=buckets {
        starts[b] += starts[b - 1];
    }
    let mut next = starts.clone();
    let mut list = vec![T::default(); n];
    for piece in pieces {
        for i in piece {
            let b = bucket(i);
            list[next[b]] = i;
            next[b] += 1;
        }
    }
    let mut slices = Vec::with_capacity(buckets);
    let mut rest = list.as_mut_slice();
    for b in 0..buckets {
        let (head, tail) = rest.split_at_mut(starts[b + 1] - starts[b]);
        slices.push(head);
        rest = tail;
    }
    slices
        .into_par_iter()
        .with_min_len(64)
        .for_each(|s| s.sort_unstable());
    list
}

/// A task's buffer of positions newly decided in one side, by level, handed to the
/// side's [`Frontier`] piece by piece and when dropped.
struct Pending<'f> {
    frontier: &'f Frontier,
    lists: Vec<(u16, Vec<u32>)>,
}

impl<'f> Pending<'f> {
    fn new(frontier: &'f Frontier) -> Pending<'f> {
        Pending {
            frontier,
            lists: Vec::new(),
        }
    }

    /// List working index `i` at `level`.
    #[inline]
    fn push(&mut self, level: u16, i: usize) {
        let at = match self.lists.iter().position(|(l, _)| *l == level) {
            Some(at) => at,
            None => {
                self.lists.push((level, Vec::with_capacity(PIECE)));
                self.lists.len() - 1
            }
        };
        let list = &mut self.lists[at].1;
        list.push(i as u32);
        if list.len() == PIECE {
            let full = std::mem::replace(list, Vec::with_capacity(PIECE));
            self.hand_over([(level, full)]);
        }
    }

    fn hand_over(&self, lists: impl IntoIterator<Item = (u16, Vec<u32>)>) {
        let mut levels = self
            .frontier
            .levels
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for (level, list) in lists {
            let l = usize::from(level);
            if levels.len() <= l {
                levels.resize_with(l + 1, Vec::new);
            }
            levels[l].push(list);
        }
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        let lists = std::mem::take(&mut self.lists);
        self.hand_over(lists.into_iter().filter(|(_, list)| !list.is_empty()));
    }
}

const VALUE_MASK: u32 = 0xFFFF;

/// The working value of a slot word.
#[inline]
fn value_of(word: u32) -> u16 {
    (word & VALUE_MASK) as u16
}

/// A slot word with its value replaced.
#[inline]
fn with_value(word: u32, value: u16) -> u32 {
    (word & !VALUE_MASK) | u32::from(value)
}

/// The predecessors of one position decided at `level`, waiting to be updated.
struct Batch {
    level: u16,
    /// Amount each counter drops by (after a win), 0 after a loss.
    weight: u16,
    /// The working index of each predecessor (sector sizes fit in 32 bits).
    preds: [u32; MAX_PREDECESSORS],
    len: usize,
}

impl Batch {
    fn new(level: u16) -> Batch {
        Batch {
            level,
            weight: 0,
            preds: [0; MAX_PREDECESSORS],
            len: 0,
        }
    }
}

/// The moves of one position, counted before the values its captures reach are read
/// ([`Generator::initialise`]).
#[derive(Clone, Copy, Default)]
struct Moves {
    /// The position's working index.
    index: u64,
    us: Bitboard,
    them: Bitboard,
    moves: u32,
    /// Moves that close no mill (or whose capture is forfeited): they stay in the pair.
    quiet: u32,
    /// Whether a capture ends the game.
    game_ends: bool,
    /// The end of the position's capture targets in the chunk's list.
    end: usize,
}

/// Positions taken back between the computation of a position's predecessors (their
/// slots prefetched) and their update ([`Generator::take_back`]).
const PIPELINE: usize = 3;

/// Positions whose moves are generated before their capture values are read.
const CHUNK: usize = 16;

/// Most predecessors of one position: a flying side moves one of 3 pieces from one of
/// at most 21 empty points; a sliding side one of at most 9 pieces along at most 4
/// connections.
const MAX_PREDECESSORS: usize = 64;

/// Solve, in memory, every movement sector with at most `max` pieces a side (the
/// movement phase of a game of `max` pieces a side), in generation order.
///
/// # Errors
/// As [`solve_pair`].
pub fn solve_movement(
    rules: impl Into<Rules>,
    max: u8,
) -> Result<Vec<(Sector, Vec<u16>)>, GenerateError> {
    let rules: Rules = rules.into();
    let mut all: Vec<(Sector, Vec<u16>)> = Vec::new();
    for s in Sector::all()
        .into_iter()
        .filter(|s| s.us.max(s.them) <= max)
    {
        if all.iter().any(|(t, _)| *t == s) {
            continue;
        }
        let lookup = |s: Sector| all.iter().find(|(t, _)| *t == s).map(|(_, v)| v.as_slice());
        let pair = solve_pair(rules, s, &lookup, &Silent)?;
        all.extend(pair);
    }
    Ok(all)
}

/// Solve the pair of `sector` (the sector and its swapped sector, colours exchanged) under `rules`.
///
/// `captured(s)` must return the stored values of every sector a capture reaches
/// (`sector.after_capture()` and its swapped sector's). Returns the stored values of the
/// sector and, if different, of its swapped sector.
///
/// # Errors
/// [`GenerateError`] for a missing or wrongly sized dependency, or a distance beyond
/// the working encoding.
pub fn solve_pair<'a>(
    rules: impl Into<Rules>,
    sector: Sector,
    captured: &dyn Fn(Sector) -> Option<&'a [u16]>,
    observer: &dyn Observer,
) -> Result<Vec<(Sector, Vec<u16>)>, GenerateError> {
    let rules: Rules = rules.into();
    let mut sectors = vec![sector];
    if sector.swapped() != sector {
        sectors.push(sector.swapped());
    }
    // The working layout (see the module's documentation).
    let major = if sector.us >= sector.them {
        sector
    } else {
        sector.swapped()
    };
    let board = rules.board();
    let work = SectorIndex::get(board, major.us as usize, major.them as usize);
    let mut sides = Vec::new();
    for &s in &sectors {
        let index = SectorIndex::get(board, s.us as usize, s.them as usize);
        let capture = match s.after_capture() {
            None => None,
            Some(t) => {
                let values = captured(t).ok_or(GenerateError::MissingDependency {
                    sector: s,
                    needed: t,
                })?;
                let tindex = SectorIndex::get(board, t.us as usize, t.them as usize);
                if values.len() as u64 != tindex.size() {
                    return Err(GenerateError::WrongSize(t, values.len(), tindex.size()));
                }
                Some((tindex, values))
            }
        };
        let n = index.size();
        let memory = |e| GenerateError::Memory(s, e);
        // The output is reserved before solving, so that a lack of memory stops the
        // run at once rather than after minutes of work.
        let mut out = Vec::new();
        out.try_reserve_exact(n as usize).map_err(|_| {
            memory(std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                "out of memory",
            ))
        })?;
        sides.push(WorkSector {
            sector: s,
            flipped: s.us < s.them,
            words: AtomicWords::zeroed(n as usize).map_err(memory)?,
            out,
            frontier: Frontier::default(),
            index,
            capture,
        });
    }
    let gen = Generator {
        rules,
        geo: rules.geometry(),
        work,
        sides,
        max_level: AtomicU64::new(0),
    };
    let total: u64 = gen.sides.iter().map(|s| s.index.size()).sum();
    observer.phase("initialise", total);
    for k in 0..gen.sides.len() {
        gen.initialise(k, observer)?;
    }
    observer.phase("propagate", total);
    let mut level = 0u64;
    while level <= gen.max_level.load(Relaxed) {
        let mut done = 0;
        for k in 0..gen.sides.len() {
            done += gen.propagate_level(k, level as u16)?;
        }
        observer.advance(done);
        level += 1;
    }
    observer.phase("draws", total);
    let work = gen.work;
    let out = gen
        .sides
        .into_iter()
        .map(|side| {
            let mut values = side.out;
            let words = side.words.as_slice();
            // Into the capacity reserved at the start: no allocation here.
            if side.flipped {
                values.resize(words.len(), 0);
                unflip(&side.index, &work, words, &mut values);
            } else {
                words
                    .par_iter()
                    .map(|w| stored(w.load(Relaxed)))
                    .collect_into_vec(&mut values);
            }
            (side.sector, values)
        })
        .collect();
    Ok(out)
}

/// The stored value of a slot word after propagation: a distance plus one, or 0 for
/// a draw.
#[inline]
fn stored(word: u32) -> u16 {
    let v = value_of(word);
    if v & FINAL != 0 {
        (v & FINAL_MAX) + 1
    } else {
        0
    }
}

/// Write into `values`, in the stored order of `index`, the stored values of a flipped
/// side whose working state `words` is laid out by `work` (the other side's index).
fn unflip(index: &SectorIndex, work: &SectorIndex, words: &[AtomicU32], values: &mut [u16]) {
    let mut pieces = Vec::with_capacity(index.blocks());
    let mut rest = values;
    for b in 0..index.blocks() {
        let len = index.block(b).1.end - index.block(b).1.start;
        let (head, tail) = rest.split_at_mut(len as usize);
        pieces.push((b, head));
        rest = tail;
    }
    pieces.into_par_iter().for_each(|(b, out)| {
        // The reads are scattered: a batch of indices is computed and prefetched
        // before it is read.
        const BATCH: usize = 32;
        let mut at = [0usize; BATCH];
        let mut positions = index.block_positions(b);
        for chunk in out.chunks_mut(BATCH) {
            for slot in at.iter_mut().take(chunk.len()) {
                let (_, us, them) = positions.next().expect("one position per entry");
                *slot = work.index(them, us) as usize;
                prefetch(words, *slot);
            }
            for (value, &i) in chunk.iter_mut().zip(&at) {
                *value = stored(words[i].load(Relaxed));
            }
        }
    });
}

/// What the predecessors of the positions of one working block have in common.
enum Origins<'w> {
    /// A block of the major side: every predecessor's side to move has the block's
    /// set (they all lie in the flipped side's block of the same number), located
    /// once; where the set is located without a symmetry, the block's
    /// rank map, the points outside the set and each point's bit among them.
    Same(UsSet<'w>, Option<(RankMap<'w>, u32, [u32; POINT_COUNT])>),
    /// A block of the flipped side: the major side's moves back from the block's set
    /// (or, in a pair of one sector, the moves back of the opponent's set, when the
    /// positions are taken back by that set: [`Generator::propagate_transposed`]),
    /// as the point each came from and the set it leaves, located once; a move applies
    /// to a position where that point is empty. Then the moves back of its pieces in
    /// mills, which apply only where the capture was forfeited
    /// ([`Generator::forfeits`]).
    Moves(Vec<(Bitboard, UsSet<'w>)>, Vec<(Bitboard, UsSet<'w>)>),
}

struct Generator<'a> {
    rules: Rules,
    /// The board of the rules.
    geo: &'static Geometry,
    /// The index of the working layout: the major side's.
    work: Arc<SectorIndex>,
    sides: Vec<WorkSector<'a>>,
    max_level: AtomicU64,
}

impl Generator<'_> {
    /// The side that moves without capture from side `k` reach.
    fn other(&self, k: usize) -> usize {
        (k + 1) % self.sides.len()
    }

    /// Side `k`'s position `(us, them)` as the working layout holds it.
    #[inline]
    fn laid_out(&self, k: usize, us: Bitboard, them: Bitboard) -> (Bitboard, Bitboard) {
        if self.sides[k].flipped {
            (them, us)
        } else {
            (us, them)
        }
    }

    /// The number of symmetries that fix side `k`'s position `(us, them)`.
    fn stabiliser(&self, k: usize, us: Bitboard, them: Bitboard) -> u32 {
        let (x, y) = self.laid_out(k, us, them);
        self.work.index_with_stabiliser(x, y).1
    }

    /// Whether a mill closed against `victims` takes nothing: full protection, and
    /// every one of them in a mill.
    #[inline]
    fn forfeits(&self, victims: Bitboard) -> bool {
        self.rules.protection() == Protection::Full
            && capturable_of(victims, self.rules.with_protection(Protection::Full)).is_empty()
    }

    /// The pieces of `movers` that may have made the last move into a position where
    /// `victims` is to move without a capture: those outside mills (a piece in a mill
    /// closed it, and took), or any where the capture was forfeited.
    #[inline]
    fn moved_last(&self, movers: Bitboard, victims: Bitboard) -> Bitboard {
        if self.forfeits(victims) {
            movers
        } else {
            movers & !self.geo.in_mills(movers)
        }
    }

    fn flies(&self, pieces: Bitboard) -> bool {
        self.rules.flying() && pieces.count() == 3
    }

    fn check(&self, dtm: u32, limit: u16, k: usize) -> Result<u16, GenerateError> {
        // The stored form adds one to the distance and keeps bit 15 for inverted
        // values (see `Value`), so the working encoding may not use all of its room.
        if dtm > u32::from(limit.min(Value::MAX_DTM)) {
            return Err(GenerateError::DtmOverflow(dtm, self.sides[k].sector));
        }
        // Nearly every call finds the maximum at least as large: a plain load keeps
        // the shared line from bouncing between the threads' caches.
        if u64::from(dtm) > self.max_level.load(Relaxed) {
            self.max_level.fetch_max(u64::from(dtm), Relaxed);
        }
        Ok(dtm as u16)
    }

    /// Compute every position's working value and counter of side `k`, in the
    /// working layout. (Going through the major side in the flipped side's stored
    /// order, so that its capture reads stay together, was measured slower: its slots
    /// are then written at random.)
    ///
    /// In chunks of [`CHUNK`] positions: the moves of every position of a chunk are
    /// generated first, prefetching the values its captures reach, then the values
    /// are read, so that the misses of a chunk overlap.
    fn initialise(&self, k: usize, observer: &dyn Observer) -> Result<(), GenerateError> {
        let side = &self.sides[k];
        let init = || {
            (
                Vec::with_capacity(CHUNK * MAX_PREDECESSORS),
                Pending::new(&side.frontier),
            )
        };
        (0..self.work.blocks())
            .into_par_iter()
            .try_for_each_init(init, |(targets, pending), b| {
                let symmetric = self.work.is_symmetric_block(b);
                let mut positions = self.work.block_positions(b);
                let mut chunk = [Moves::default(); CHUNK];
                let mut done = 0;
                loop {
                    targets.clear();
                    let mut n = 0;
                    for (i, x, y) in positions.by_ref().take(CHUNK) {
                        let (us, them) = self.laid_out(k, x, y);
                        chunk[n] = self.moves(k, i, us, them, targets);
                        n += 1;
                    }
                    if n == 0 {
                        break;
                    }
                    let mut start = 0;
                    for m in &chunk[..n] {
                        let (val, cnt) =
                            self.initial_value(k, m, &targets[start..m.end], symmetric)?;
                        start = m.end;
                        side.words.as_slice()[m.index as usize]
                            .store(u32::from(cnt) << 16 | u32::from(val), Relaxed);
                        if val & FINAL != 0 {
                            pending.push(val & FINAL_MAX, m.index as usize);
                        } else if val & TENTATIVE != 0 {
                            pending.push(val & TENTATIVE_MAX, m.index as usize);
                        }
                    }
                    done += n as u64;
                }
                observer.advance(done);
                Ok(())
            })
    }

    /// Count the moves of side `k`'s position `(us, them)` (working index `index`),
    /// appending to `targets` the indices its captures reach, each prefetched.
    #[inline]
    fn moves(
        &self,
        k: usize,
        index: u64,
        us: Bitboard,
        them: Bitboard,
        targets: &mut Vec<u32>,
    ) -> Moves {
        let side = &self.sides[k];
        let empty = self.geo.points() & !(us | them);
        let capturable = capturable_of(them, self.rules);
        // Full protection with every opponent piece in a mill: a mill closed takes
        // nothing, and the move stays in the pair like any other.
        let forfeit = capturable.is_empty();
        let flies = self.flies(us);
        let (mut moves, mut quiet, mut game_ends) = (0u32, 0u32, false);
        for from in us {
            let own = us ^ from.bit();
            let to_points = if flies {
                empty
            } else {
                self.geo.adjacent(from) & empty
            };
            for to in to_points {
                moves += 1;
                if forfeit || !self.geo.closes_mill(own, to.index()) {
                    quiet += 1;
                    continue;
                }
                let Some((tindex, values)) = &side.capture else {
                    game_ends = true;
                    continue;
                };
                let mover = own | to.bit();
                for c in capturable {
                    let i = tindex.index(them ^ c.bit(), mover) as usize;
                    prefetch(values, i);
                    targets.push(i as u32);
                }
            }
        }
        Moves {
            index,
            us,
            them,
            moves,
            quiet,
            game_ends,
            end: targets.len(),
        }
    }

    /// The working value and counter of a position before propagation, from its
    /// moves `m` and the indices `targets` its captures reach.
    #[inline]
    fn initial_value(
        &self,
        k: usize,
        m: &Moves,
        targets: &[u32],
        symmetric: bool,
    ) -> Result<(u16, u16), GenerateError> {
        let (mut best_win, mut worst_loss, mut no_loss) = (u32::MAX, 0u32, false);
        if let Some((_, values)) = &self.sides[k].capture {
            for &i in targets {
                match Value(values[i as usize]).dtm() {
                    None => no_loss = true,
                    Some(d) if d % 2 == 1 => worst_loss = worst_loss.max(u32::from(d) + 1),
                    Some(d) => best_win = best_win.min(u32::from(d) + 1),
                }
            }
        }
        if m.game_ends {
            best_win = 1;
        }
        Ok(if m.moves == 0 {
            (FINAL, 0)
        } else if best_win != u32::MAX {
            (TENTATIVE | self.check(best_win, TENTATIVE_MAX, k)?, 0)
        } else if m.quiet == 0 {
            if no_loss {
                (0, 0)
            } else {
                (FINAL | self.check(worst_loss, FINAL_MAX, k)?, 0)
            }
        } else {
            let weight = if symmetric {
                SYMMETRY_COUNT as u32 / self.stabiliser(k, m.us, m.them)
            } else {
                SYMMETRY_COUNT as u32
            };
            let flags = if no_loss { NO_LOSS } else { 0 };
            (
                flags | self.check(worst_loss, LOSS_MAX, k)?,
                (m.quiet * weight) as u16,
            )
        })
    }

    /// Take back every position of side `k` decided at `level`; returns their number.
    ///
    /// The level's positions come from the side's [`Frontier`] in index order, so
    /// that they are taken back block by block (see "Working layout"); a pair of one
    /// sector reorders them first ([`Generator::propagate_transposed`]).
    fn propagate_level(&self, k: usize, level: u16) -> Result<u64, GenerateError> {
        if self.sides.len() == 1 {
            return self.propagate_transposed(level);
        }
        let side = &self.sides[k];
        let pk = self.other(k);
        let list = side.frontier.take(level, side.words.as_slice().len());
        // Counted per block: one shared counter would bounce between the threads.
        self.groups(&list)
            .into_par_iter()
            .map_init(
                || (Pending::new(&self.sides[pk].frontier), Vec::new()),
                |(pending, decoded), (b, range)| {
                    let origins = self.origins(k, self.work.block(b).0);
                    // Only this task updates the predecessors of a major-side block: they
                    // all lie in the flipped side's block of the same number.
                    let exclusive = matches!(origins, Origins::Same(..));
                    self.decode_decided(k, b, &list[range], level, decoded);
                    let positions = decoded.iter().map(|&(_, x, y)| self.laid_out(k, x, y));
                    self.take_back(k, b, positions, &origins, exclusive, level, pending)?;
                    Ok(decoded.len() as u64)
                },
            )
            .try_reduce(|| 0, |a, b| Ok(a + b))
    }

    /// Take back `positions` of side `k`, all in working block `b` and decided at
    /// `level`, whose predecessors have `origins` in common; `exclusive` as for
    /// [`Generator::apply`], `pending` the predecessors' side's buffer.
    ///
    /// Pipelined [`PIPELINE`] positions deep: the predecessors of a position are
    /// computed (and their slots prefetched) while those of the positions before it
    /// are updated, so that the cache misses overlap with the index arithmetic.
    #[allow(clippy::too_many_arguments)]
    fn take_back(
        &self,
        k: usize,
        b: usize,
        positions: impl Iterator<Item = (Bitboard, Bitboard)>,
        origins: &Origins<'_>,
        exclusive: bool,
        level: u16,
        pending: &mut Pending<'_>,
    ) -> Result<(), GenerateError> {
        let pk = self.other(k);
        let symmetric = self.work.is_symmetric_block(b);
        // A ring of batches used in turn (moving the batches themselves would copy
        // their 256-byte arrays at every position): a position's predecessors are
        // updated `PIPELINE` positions after they were prefetched.
        let mut batches: [Batch; PIPELINE + 1] = std::array::from_fn(|_| Batch::new(level));
        let mut n = 0;
        for (us, them) in positions {
            self.predecessors(k, us, them, symmetric, origins, &mut batches[n]);
            n = (n + 1) % batches.len();
            self.apply(pk, &batches[n], exclusive, pending)?;
        }
        for _ in 0..PIPELINE {
            n = (n + 1) % batches.len();
            self.apply(pk, &batches[n], exclusive, pending)?;
        }
        Ok(())
    }

    /// The positions of working block `b` at the sorted, distinct indices `entries`,
    /// as `(index, x, y)` in the working layout, into `out`: stepped through the
    /// block where they lie dense (one step to the next combination is much cheaper
    /// than decoding an index), each decoded where they are few.
    fn decode(&self, b: usize, entries: &[u32], out: &mut Vec<(u32, Bitboard, Bitboard)>) {
        out.clear();
        let (Some(&first), Some(&last)) = (entries.first(), entries.last()) else {
            return;
        };
        let span = u64::from(first)..u64::from(last) + 1;
        if entries.len() as u64 * DENSE >= span.end - span.start {
            let mut wanted = entries.iter().peekable();
            for (i, x, y) in self.work.positions_in(b, span) {
                if wanted.next_if_eq(&&(i as u32)).is_some() {
                    out.push((i as u32, x, y));
                }
            }
        } else {
            for &i in entries {
                let (x, y) = self.work.block_position(b, u64::from(i));
                out.push((i, x, y));
            }
        }
    }

    /// As [`Generator::decode`], the listed positions of side `k` in block `b` that
    /// are still decided at `level` (see [`Frontier`]), tentative wins of the level
    /// confirmed.
    fn decode_decided(
        &self,
        k: usize,
        b: usize,
        entries: &[u32],
        level: u16,
        out: &mut Vec<(u32, Bitboard, Bitboard)>,
    ) {
        let words = self.sides[k].words.as_slice();
        self.decode(b, entries, out);
        out.retain(|&(i, ..)| self.confirm(&words[i as usize], level));
    }

    /// A sorted list of working indices cut by block: each block with the range of
    /// the list in it.
    fn groups(&self, list: &[u32]) -> Vec<(usize, std::ops::Range<usize>)> {
        self.groups_by(list, |&i| u64::from(i))
    }

    /// As [`Generator::groups`], a list of entries sorted by the working index
    /// `index` gives.
    fn groups_by<T>(
        &self,
        list: &[T],
        index: impl Fn(&T) -> u64,
    ) -> Vec<(usize, std::ops::Range<usize>)> {
        let mut groups = Vec::new();
        let mut at = 0;
        while at < list.len() {
            let b = self.work.block_of(index(&list[at]));
            let end = self.work.block(b).1.end;
            let len = list[at..].partition_point(|i| index(i) < end);
            groups.push((b, at..at + len));
            at += len;
        }
        groups
    }

    /// Whether `slot` holds a position decided at `level`; a tentative win of that
    /// level is confirmed.
    #[inline]
    fn confirm(&self, slot: &AtomicU32, level: u16) -> bool {
        let v = value_of(slot.load(Relaxed));
        if v == TENTATIVE | level {
            // Counters of tentative wins still receive decrements (only their value is
            // ignored), so confirm the win in a loop that keeps whatever counter the
            // slot holds.
            let _ = slot.fetch_update(Relaxed, Relaxed, |w| {
                (value_of(w) == TENTATIVE | level).then(|| with_value(w, FINAL | level))
            });
            true
        } else {
            v == FINAL | level
        }
    }

    /// Take back every position decided at `level` in a pair of one sector.
    ///
    /// A position's predecessors share its side to move's set and differ in the
    /// opponent's, so in the stored order (by the side to move's set) they lie
    /// anywhere in the sector. The positions decided at the level are therefore
    /// numbered by the index of the position with the colours exchanged, whose block
    /// is the opponent's set, and sorted (each with its side to move's set as that
    /// block sees it, so that no index is decoded twice): a block's positions, taken
    /// back together, all reach the few blocks one move away from its set, and the
    /// moves back of that set are located once per block (as for the flipped side of
    /// a pair of two sectors).
    fn propagate_transposed(&self, level: u16) -> Result<u64, GenerateError> {
        let side = &self.sides[0];
        let work = &self.work;
        let words = side.words.as_slice();
        let list = side.frontier.take(level, words.len());
        // Each position with the colours exchanged, as its index (high 32 bits) and
        // the side to move's set moved along with the opponent's onto the block's
        // canonical set (low 32 bits): sorted, these are taken back without decoding
        // the index again.
        let exchanged: Vec<Vec<u64>> = self
            .groups(&list)
            .into_par_iter()
            .fold(
                || (Vec::new(), Vec::new()),
                |(mut exchanged, mut decoded), (b, range)| {
                    self.decode_decided(0, b, &list[range], level, &mut decoded);
                    for &(_, us, them) in &decoded {
                        let (i, moved) = work.with_us(them).index_and_moved(us);
                        exchanged.push(i << 32 | u64::from(moved.bits()));
                    }
                    (exchanged, decoded)
                },
            )
            .map(|(exchanged, _)| exchanged)
            .collect();
        drop(list);
        let list = sorted_by_index(exchanged, words.len(), |e| (e >> 32) as u32);
        self.groups_by(&list, |e| e >> 32)
            .into_par_iter()
            .try_for_each_init(
                || Pending::new(&side.frontier),
                |pending, (b, range)| {
                    // The opponent's set is the block's: it moved last.
                    let (set, _) = work.block(b);
                    let positions = list[range]
                        .iter()
                        .map(|&e| (Bitboard::from_bits_truncate(e as u32), set));
                    self.take_back(
                        0,
                        b,
                        positions,
                        &self.moves_back(set),
                        false,
                        level,
                        pending,
                    )
                },
            )?;
        Ok(list.len() as u64)
    }

    /// What the predecessors of every position of side `k` in the working block of
    /// canonical set `set` have in common (see [`Origins`]), in a pair of two
    /// sectors.
    fn origins(&self, k: usize, set: Bitboard) -> Origins<'_> {
        if !self.sides[k].flipped {
            // The flipped side moved last: the major side's set stays.
            let at = self.work.with_us(set);
            // Ranks of the opponent's sets are computed from their packed bits, which
            // a move changes in two places.
            let fast = at.rank_map().map(|map| {
                let mask = !set.bits() & self.geo.points().bits();
                let mut packed = [0u32; POINT_COUNT];
                for p in Bitboard::from_bits_truncate(mask) {
                    packed[p.index()] = compress(p.bit().bits(), mask);
                }
                (map, mask, packed)
            });
            return Origins::Same(at, fast);
        }
        self.moves_back(set)
    }

    /// The moves back of a side that moved last and now has the canonical set `set`
    /// ([`Origins::Moves`]): each leads to one set, whatever the other side's pieces.
    fn moves_back(&self, set: Bitboard) -> Origins<'_> {
        let flies = self.flies(set);
        let moves_back = |pieces: Bitboard| {
            let mut moves = Vec::new();
            for to in pieces {
                let rest = set ^ to.bit();
                let free = self.geo.points() & !set;
                let origins = if flies {
                    free
                } else {
                    self.geo.adjacent(to) & free
                };
                for from in origins {
                    moves.push((from.bit(), self.work.with_us(rest | from.bit())));
                }
            }
            moves
        };
        let in_mill = self.geo.in_mills(set);
        // The moves of pieces standing in a mill, which count only where the capture
        // was forfeited (see `moved_last`).
        let forfeited = if self.rules.protection() == Protection::Full {
            moves_back(in_mill)
        } else {
            Vec::new()
        };
        Origins::Moves(moves_back(set & !in_mill), forfeited)
    }

    /// Fill `batch` with the predecessors (in side `other(k)`) of position
    /// `(us, them)` of side `k`, decided at the batch's level, prefetching their
    /// slots; `symmetric` says whether its working block can have a non-trivial
    /// stabiliser, `origins` is what [`Generator::origins`] gives for the block.
    fn predecessors(
        &self,
        k: usize,
        us: Bitboard,
        them: Bitboard,
        symmetric: bool,
        origins: &Origins<'_>,
        batch: &mut Batch,
    ) {
        let pk = self.other(k);
        let words = self.sides[pk].words.as_slice();
        let empty = self.geo.points() & !(us | them);
        // The opponent moved last; a piece standing in a mill closed it, so its move
        // captured and came from another sector, unless the capture was forfeited (full
        // protection, every piece of ours in a mill), when any piece may have moved.
        let movable = self.moved_last(them, us);
        let flies = self.flies(them);
        batch.weight = if batch.level.is_multiple_of(2) {
            0
        } else if symmetric {
            (SYMMETRY_COUNT as u32 / self.stabiliser(k, us, them)) as u16
        } else {
            SYMMETRY_COUNT as u16
        };
        let mut n = 0;
        let mut push = |i: u64| {
            prefetch(words, i as usize);
            batch.preds[n] = i as u32;
            n += 1;
        };
        // The moves back of the side that moved last: to where it stands, from an
        // empty point.
        let back = movable.into_iter().flat_map(|to| {
            let origins = if flies {
                empty
            } else {
                self.geo.adjacent(to) & empty
            };
            origins.into_iter().map(move |from| (to, from))
        });
        match origins {
            Origins::Moves(moves, forfeited) => {
                let forfeited = if self.forfeits(us) {
                    forfeited.as_slice()
                } else {
                    &[]
                };
                for &(from, at) in moves.iter().chain(forfeited) {
                    if (from & us).is_empty() {
                        push(at.index(us));
                    }
                }
            }
            Origins::Same(_, Some((map, mask, packed))) => {
                let packed_them = compress(them.bits(), *mask);
                for (to, from) in back {
                    let moved = (packed_them ^ packed[to.index()]) | packed[from.index()];
                    push(map.index(rank(moved)));
                }
            }
            Origins::Same(at, None) => {
                for (to, from) in back {
                    push(at.index((them ^ to.bit()) | from.bit()));
                }
            }
        }
        batch.len = n;
    }

    /// Update the predecessors in side `pk` of a position taken back (see
    /// [`Generator::predecessors`]): after a loss each becomes a
    /// win, after a win each counter drops, and a counter at zero makes a loss.
    ///
    /// `exclusive`: no other thread updates these predecessors at this level, so a
    /// counter drops by a plain load and store instead of a locked subtraction (a
    /// locked instruction also keeps the later loads from overlapping its miss).
    fn apply(
        &self,
        pk: usize,
        batch: &Batch,
        exclusive: bool,
        pending: &mut Pending<'_>,
    ) -> Result<(), GenerateError> {
        let slots = self.sides[pk].words.as_slice();
        let preds = &batch.preds[..batch.len];
        let next = u32::from(batch.level) + 1;
        let weight = u32::from(batch.weight);
        let lost = batch.level.is_multiple_of(2);
        let mut words = [0u32; MAX_PREDECESSORS];
        for (w, &i) in words.iter_mut().zip(preds) {
            *w = slots[i as usize].load(Relaxed);
        }
        for (&i, &w) in preds.iter().zip(&words) {
            let i = i as usize;
            if lost {
                self.mark_win(pk, i, next, w, pending)?;
            } else {
                let before = if exclusive {
                    // Not `w`: a position can be reached twice from one position.
                    let before = slots[i].load(Relaxed);
                    slots[i].store(before - (weight << 16), Relaxed);
                    before
                } else {
                    slots[i].fetch_sub(weight << 16, Relaxed)
                };
                if before >> 16 == weight {
                    self.mark_loss(pk, i, next, before, pending)?;
                }
            }
        }
        Ok(())
    }

    /// Make position `i` of side `k` a win in `dtm` unless it already wins as fast;
    /// `cur` is a recent load of its slot.
    ///
    /// A plain store, no compare-and-swap: wins are marked only at levels where
    /// losses are taken back, when no counter drops and every thread that marks a
    /// position writes the same word (its counter and `FINAL | dtm`), so a race, or
    /// a `cur` that another predecessor of the same batch already marked, writes
    /// what is there. A tentative win as quick as `dtm` stays, to be confirmed at its
    /// own level; a slower one is replaced (a quicker one is final by now).
    fn mark_win(
        &self,
        k: usize,
        i: usize,
        dtm: u32,
        cur: u32,
        pending: &mut Pending<'_>,
    ) -> Result<(), GenerateError> {
        let v = value_of(cur);
        if v & FINAL != 0 || (v & TENTATIVE != 0 && u32::from(v & TENTATIVE_MAX) <= dtm) {
            return Ok(());
        }
        let level = self.check(dtm, FINAL_MAX, k)?;
        let side = &self.sides[k];
        side.words.as_slice()[i].store(with_value(cur, FINAL | level), Relaxed);
        pending.push(level, i);
        Ok(())
    }

    /// The last undecided move of position `i` of side `k` turned out won for the
    /// opponent (`word` is the slot as that last decrement found it): the position is
    /// lost unless a capture already wins or draws.
    fn mark_loss(
        &self,
        k: usize,
        i: usize,
        at_least: u32,
        word: u32,
        pending: &mut Pending<'_>,
    ) -> Result<(), GenerateError> {
        let v = value_of(word);
        if v & (FINAL | TENTATIVE | NO_LOSS) != 0 {
            return Ok(());
        }
        let dtm = at_least.max(u32::from(v & LOSS_MAX));
        let level = self.check(dtm, FINAL_MAX, k)?;
        // With the counter at zero no decrement comes any more, and at a level where
        // wins are confirmed no win is marked, so nothing else writes this slot now.
        self.sides[k].words.as_slice()[i].store(u32::from(FINAL | level), Relaxed);
        pending.push(level, i);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use morris_engine::Board;

    /// A distance beyond the working encoding is an error naming the sector, never a
    /// wrapped value: 3-4 solved over a 3-3 whose every position is "lost in 32764".
    #[test]
    fn a_distance_beyond_the_encoding_is_an_error() {
        let three = Sector::new(3, 3).expect("a sector");
        let four = Sector::new(3, 4).expect("a sector");
        let size = SectorIndex::get(Board::Nine, 3, 3).size() as usize;
        let far_losses = vec![Value::decided(32_764).0; size];
        let captured = |s: Sector| (s == three).then_some(far_losses.as_slice());
        let err = solve_pair(Rules::STANDARD, four, &captured, &Silent).map(|_| ());
        assert!(
            matches!(err, Err(GenerateError::DtmOverflow(d, s)) if d > u32::from(TENTATIVE_MAX) && s == four),
            "{err:?}"
        );
    }
}
