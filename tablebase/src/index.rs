//! Dense indexing of a sector's positions up to the 16 board symmetries.
//!
//! A sector is `(us, them)`: the side to move has `us` pieces on the board, its
//! opponent `them`, both hands empty. Colours are normalised: a position is a pair of
//! disjoint point sets `(u, t)`, `u` the side to move's.
//!
//! Scheme. Every `us`-set is mapped by a symmetry to the least set (as an integer) of
//! its orbit, its *canonical set*; canonical sets are numbered in increasing order.
//! For a canonical set `S` with trivial stabiliser every `them`-set in the other
//! `n - us` points is a distinct orbit, ranked by colex rank within those points. For
//! the few canonical sets fixed by some symmetry, only the least `them`-set of each
//! orbit under the stabiliser is kept, numbered in increasing order, and a table maps
//! every `them`-rank to the number of its orbit's least member. The index of a position
//! is `offset[S] + sub-index`, so the index is a bijection between `0..size` and the
//! orbits of the sector's positions: `size` is the number of positions up to symmetry.
//!
//! The points are the board's: the 24 of the nine and twelve boards (which share
//! every index), or the 16 of the six board ([`Layout`]). Sets are bit masks over the
//! board's own points, ranked within them, so the six board's indices are as dense as
//! a board of 16 points allows.
//!
//! The index is a pure function of the sector, never written to a table file: a file
//! stores values in index order. The tables of canonical sets of every size a side can
//! have are computed at build time and embedded in the binary ([`crate::sets`]); the
//! rest (block offsets, the orbit tables of symmetric blocks) is built on first use.

use crate::combin::{binom, expand, rank, rank_within, unrank};
use morris_engine::{Bitboard, Board, Symmetry, POINT_COUNT};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The points an index numbers: every board's index is that of its points.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Layout {
    /// The 24 points of the nine and twelve boards.
    All,
    /// The 16 points of the six board (the outer and inner squares).
    Six,
}

impl Layout {
    /// Both layouts.
    pub const ALL: [Layout; 2] = [Layout::All, Layout::Six];

    /// The layout of a board's points.
    pub const fn of(board: Board) -> Layout {
        match board {
            Board::Nine | Board::Twelve => Layout::All,
            Board::Six => Layout::Six,
        }
    }

    /// The points as a bit mask.
    pub const fn points(self) -> u32 {
        match self {
            Layout::All => crate::sets::ALL_POINTS,
            // The outer and inner squares, bytes 0 and 2 (checked against the
            // board's geometry by a test).
            Layout::Six => 0x00FF_00FF,
        }
    }

    /// The number of points.
    pub const fn count(self) -> usize {
        self.points().count_ones() as usize
    }

    const fn slot(self) -> usize {
        self as usize
    }
}

/// The canonical `k`-sets of the board and, for every `k`-set, the way to its
/// canonical set.
#[derive(Debug)]
pub struct SetTable {
    /// For every colex rank: the number of its canonical set times 16, plus a
    /// symmetry mapping the set to its canonical set (one lookup for both).
    canon_of_rank: &'static [u32],
    /// Canonical sets in increasing order.
    sets: &'static [u32],
    /// For every canonical set: the symmetries that fix it, as a 16-bit mask.
    stabiliser: &'static [u16],
    /// For every canonical set, and one past the last: the number of symmetric
    /// canonical sets (those with a non-trivial stabiliser) before it. A symmetric
    /// set's own number among them, which numbers its orbit tables.
    before: Vec<u32>,
    /// For every symmetric canonical set (by its number among them): the orbits of
    /// the opponent's sets of each size on the other points
    /// ([`crate::sets::block_orbits`]).
    orbits: &'static [[u32; POINT_COUNT + 1]],
}

/// The tables of [`crate::sets`] computed at build time, aligned for reading in place.
#[repr(C, align(8))]
struct Aligned<T: ?Sized>(T);

static EMBEDDED: &Aligned<[u8]> = &Aligned(*include_bytes!(concat!(env!("OUT_DIR"), "/sets.bin")));

/// The arrays of a [`SetTable`] other than `before`: ranks to canonical
/// sets, canonical sets, stabilisers, orbit counts of the symmetric sets.
type Tables = (
    &'static [u32],
    &'static [u32],
    &'static [u16],
    &'static [[u32; POINT_COUNT + 1]],
);

/// The embedded tables of the `k`-sets, if `k` is embedded and the blob reads as
/// this machine's numbers (little-endian, aligned; always on the platforms built for).
fn embedded(k: usize) -> Option<Tables> {
    if k > crate::sets::EMBEDDED_MAX || cfg!(target_endian = "big") {
        return None;
    }
    let mut rest: &'static [u8] = &EMBEDDED.0;
    // The next array of `count` items of `size` bytes, padded to 8.
    let mut take = |count: usize, size: usize| -> Option<&'static [u8]> {
        let len = count.checked_mul(size)?;
        let padded = len.div_ceil(8) * 8;
        let (head, tail) = (rest.get(..len)?, rest.get(padded..)?);
        rest = tail;
        Some(head)
    };
    for size in 0..=k {
        let counts: &[u64] = bytemuck::try_cast_slice(take(3, 8)?).ok()?;
        let [ranks, sets, symmetric] = [0, 1, 2].map(|i| counts[i] as usize);
        let tables = (
            bytemuck::try_cast_slice(take(ranks, 4)?).ok()?,
            bytemuck::try_cast_slice(take(sets, 4)?).ok()?,
            bytemuck::try_cast_slice(take(sets, 2)?).ok()?,
            bytemuck::try_cast_slice(take(symmetric, 4 * (POINT_COUNT + 1))?).ok()?,
        );
        if size == k {
            return (ranks == binom(POINT_COUNT, k) as usize).then_some(tables);
        }
    }
    None
}

impl SetTable {
    fn build(layout: Layout, k: usize) -> SetTable {
        let embedded = if layout == Layout::All {
            embedded(k)
        } else {
            None
        };
        let (canon_of_rank, sets, stabiliser, orbits) = embedded.unwrap_or_else(|| {
            // Sizes beyond a side's pieces, and the six board: computed, and kept for
            // the process.
            let d = crate::sets::compute(k, layout.points());
            (
                &*Box::leak(d.canon_of_rank.into_boxed_slice()),
                &*Box::leak(d.sets.into_boxed_slice()),
                &*Box::leak(d.stabiliser.into_boxed_slice()),
                &*Box::leak(d.orbits.into_boxed_slice()),
            )
        });
        let mut before = Vec::with_capacity(stabiliser.len() + 1);
        before.push(0);
        for &stab in stabiliser {
            before.push(before[before.len() - 1] + u32::from(stab != 1));
        }
        SetTable {
            canon_of_rank,
            sets,
            stabiliser,
            before,
            orbits,
        }
    }

    /// The shared table for `k`-sets of the board's points, read from the embedded
    /// tables (or computed) on first use.
    ///
    /// # Panics
    /// If `k` is more than the board's points.
    pub fn get(board: Board, k: usize) -> &'static SetTable {
        static TABLES: [[OnceLock<SetTable>; POINT_COUNT + 1]; 2] =
            [const { [const { OnceLock::new() }; POINT_COUNT + 1] }; 2];
        let layout = Layout::of(board);
        assert!(
            k <= layout.count(),
            "{k} pieces do not fit on the {board} board"
        );
        TABLES[layout.slot()][k].get_or_init(|| SetTable::build(layout, k))
    }

    /// Number of canonical sets.
    pub fn len(&self) -> usize {
        self.sets.len()
    }

    /// Whether there are no canonical sets (never: there is always one).
    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }
}

/// Extra tables for a canonical set with a non-trivial stabiliser.
#[derive(Debug)]
struct Symmetric {
    /// For every `them`-rank: the sub-index of its orbit.
    sub_of_rank: Vec<u32>,
    /// For every sub-index: the `them`-rank of the orbit's least member.
    rank_of_sub: Vec<u32>,
}

impl Symmetric {
    /// Number the orbits of `them`-sets in the points `mask` (the board's points
    /// outside the canonical set) under the symmetries of `stabiliser` (a 16-bit mask).
    fn build(mask: u32, stabiliser: u16, them: usize) -> Symmetric {
        let free = mask.count_ones() as usize;
        // The identity maps every set to itself: only the others can give a less one.
        let syms: Vec<Symmetry> = Symmetry::ALL
            .into_iter()
            .filter(|&s| s != Symmetry::IDENTITY && stabiliser & (1 << s.index()) != 0)
            .collect();
        let plain = binom(free, them);
        let mut sub_of_rank = vec![0u32; plain as usize];
        let mut rank_of_sub = Vec::new();
        // Walk the them-sets in colex order: the next combination of the compressed
        // bits (Gosper's rule), spread onto the free points.
        let mut compressed = if them == 0 { 0 } else { unrank(0, free, them) };
        for r in 0..plain {
            let bits = expand(compressed, mask);
            compressed = next_combination(compressed);
            let least = syms
                .iter()
                .map(|s| s.apply(Bitboard::from_bits_truncate(bits)).bits())
                .fold(bits, u32::min);
            sub_of_rank[r as usize] = if least == bits {
                rank_of_sub.push(r as u32);
                (rank_of_sub.len() - 1) as u32
            } else {
                sub_of_rank[rank_within(least, mask) as usize]
            };
        }
        Symmetric {
            sub_of_rank,
            rank_of_sub,
        }
    }
}

/// The index of one sector.
#[derive(Debug)]
pub struct SectorIndex {
    us: usize,
    them: usize,
    /// The points of the board ([`Layout::points`]).
    points: u32,
    sets: &'static SetTable,
    /// The size of a block whose set no symmetry but the identity fixes: every
    /// `them`-set of the free points.
    plain: u64,
    /// For every symmetric canonical set (by its number among them), its orbit
    /// tables, built on first use (most searches touch few blocks; generation
    /// builds them in parallel).
    symmetric: Vec<OnceLock<Symmetric>>,
    /// `deficit[j]`: how many positions fewer than `plain` each the first `j`
    /// symmetric blocks hold together. Block `i` starts at
    /// `i * plain - deficit[before[i]]` ([`SectorIndex::offset`]); only the
    /// symmetric blocks take memory of their own, so that a sector that a probe
    /// touches once costs little.
    deficit: Vec<u64>,
}

impl SectorIndex {
    fn build(board: Board, us: usize, them: usize) -> SectorIndex {
        let points = Layout::of(board).points();
        assert!(
            us + them <= points.count_ones() as usize,
            "sector does not fit on the board"
        );
        let sets = SetTable::get(board, us);
        let free = points.count_ones() as usize - us;
        let plain = binom(free, them);
        let mut deficit = Vec::with_capacity(sets.orbits.len() + 1);
        deficit.push(0u64);
        for orbits in sets.orbits {
            let lost = plain - u64::from(orbits[them]);
            deficit.push(deficit[deficit.len() - 1] + lost);
        }
        let symmetric = (1..deficit.len()).map(|_| OnceLock::new()).collect();
        SectorIndex {
            us,
            them,
            points,
            sets,
            plain,
            symmetric,
            deficit,
        }
    }

    /// The first index of block `i`; for `i` the number of blocks, the size.
    #[inline]
    fn offset(&self, i: usize) -> u64 {
        i as u64 * self.plain - self.deficit[self.sets.before[i] as usize]
    }

    /// The orbit tables of block `i`, if it is symmetric.
    #[inline]
    fn tables(&self, i: usize) -> Option<&Symmetric> {
        if self.sets.stabiliser[i] == 1 {
            return None;
        }
        let slot = self.sets.before[i] as usize;
        Some(self.symmetric[slot].get_or_init(|| {
            let (set, stab) = (self.sets.sets[i], self.sets.stabiliser[i]);
            Symmetric::build(self.outside(set), stab, self.them)
        }))
    }

    /// The board's points outside `set`.
    #[inline]
    fn outside(&self, set: u32) -> u32 {
        !set & self.points
    }

    /// The shared index of sector `(us, them)` on the board's points, built on first
    /// use (the nine and twelve boards share theirs).
    ///
    /// # Panics
    /// If the pieces do not fit on the board.
    pub fn get(board: Board, us: usize, them: usize) -> Arc<SectorIndex> {
        type Cache = Vec<((Layout, usize, usize), Arc<SectorIndex>)>;
        static CACHE: Mutex<Cache> = Mutex::new(Vec::new());
        let key = (Layout::of(board), us, them);
        let lookup = |cache: &Cache| {
            cache
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| Arc::clone(v))
        };
        if let Some(found) = lookup(&CACHE.lock().unwrap_or_else(|e| e.into_inner())) {
            return found;
        }
        let built = Arc::new(SectorIndex::build(board, us, them));
        let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = lookup(&cache) {
            return found;
        }
        cache.push((key, Arc::clone(&built)));
        built
    }

    /// The points of the board the index numbers.
    pub fn points(&self) -> Bitboard {
        Bitboard::from_bits_truncate(self.points)
    }

    /// Pieces of the side to move.
    pub fn us(&self) -> usize {
        self.us
    }

    /// Pieces of the opponent.
    pub fn them(&self) -> usize {
        self.them
    }

    /// Number of positions up to symmetry.
    pub fn size(&self) -> u64 {
        self.offset(self.sets.len())
    }

    /// Number of canonical `us`-sets (blocks of the index).
    pub fn blocks(&self) -> usize {
        self.sets.len()
    }

    /// Whether some symmetry other than the identity fixes block `i`'s `us`-set (only
    /// then can a position of the block have a non-trivial stabiliser).
    pub fn is_symmetric_block(&self, i: usize) -> bool {
        self.sets.stabiliser[i] != 1
    }

    /// The canonical `us`-set of a block and its range of indices.
    pub fn block(&self, i: usize) -> (Bitboard, std::ops::Range<u64>) {
        (
            Bitboard::from_bits_truncate(self.sets.sets[i]),
            self.offset(i)..self.offset(i + 1),
        )
    }

    /// The block of `(us, them)`, the opponent's set moved along with `us` onto the
    /// block's canonical set, and the index.
    #[inline]
    fn locate(&self, us: Bitboard, them: Bitboard) -> (usize, u32, u64) {
        debug_assert_eq!(us.count() as usize, self.us);
        self.with_us(us).locate(them)
    }

    /// Prefetch what locating a position whose side to move has set `us` reads first,
    /// its set's entry in the table of canonical sets: a caller that locates many
    /// positions of scattered sets issues these a batch ahead, so that the misses
    /// overlap instead of stalling each location.
    #[inline]
    pub fn prefetch_us(&self, us: Bitboard) {
        morris_sys::prefetch(self.sets.canon_of_rank, self.us_rank(us));
    }

    /// The row of side-to-move set `us` in the table of canonical sets: its colex rank
    /// among the sets of its size on the index's points.
    #[inline]
    fn us_rank(&self, us: Bitboard) -> usize {
        (if self.points == crate::sets::ALL_POINTS {
            rank(us.bits())
        } else {
            rank_within(us.bits(), self.points)
        }) as usize
    }

    /// What the index of a position depends on through the side to move's set alone,
    /// for indexing many positions that share it (every placement that captures
    /// nothing leads to positions whose side to move has the same pieces).
    #[inline]
    pub fn with_us(&self, us: Bitboard) -> UsSet<'_> {
        let entry = self.sets.canon_of_rank[self.us_rank(us)];
        let block = (entry >> 4) as usize;
        UsSet {
            index: self,
            block,
            symmetry: Symmetry::ALL[(entry & 0xF) as usize],
            mask: self.outside(self.sets.sets[block]),
            us,
            map: RankMap {
                offset: self.offset(block),
                sub: self.tables(block).map(|t| t.sub_of_rank.as_slice()),
            },
        }
    }

    /// The index of the position `(us, them)` and the size of its stabiliser (the
    /// number of symmetries that fix it, 1 for most positions).
    ///
    /// The sets must be disjoint with the sector's piece counts; anything else gives
    /// a meaningless index (checked in debug builds).
    #[inline]
    pub fn index_with_stabiliser(&self, us: Bitboard, them: Bitboard) -> (u64, u32) {
        let (block, them, index) = self.locate(us, them);
        if self.sets.stabiliser[block] == 1 {
            return (index, 1);
        }
        // The canonical set's stabiliser fixes `us`; count those that fix `them` too.
        let stab = self.sets.stabiliser[block];
        let fixing = Symmetry::ALL
            .iter()
            .filter(|s| {
                stab & (1 << s.index()) != 0
                    && s.apply(Bitboard::from_bits_truncate(them)).bits() == them
            })
            .count() as u32;
        (index, fixing)
    }

    /// The index of the position `(us, them)` and the block it lies in (see
    /// [`SectorIndex::index_with_stabiliser`]).
    #[inline]
    pub fn index_and_block(&self, us: Bitboard, them: Bitboard) -> (u64, usize) {
        let (block, _, index) = self.locate(us, them);
        (index, block)
    }

    /// The index of the position `(us, them)` (see [`SectorIndex::index_with_stabiliser`]).
    #[inline]
    pub fn index(&self, us: Bitboard, them: Bitboard) -> u64 {
        self.locate(us, them).2
    }

    /// The representative position `(us, them)` of an index.
    ///
    /// # Panics
    /// If `index >= self.size()`.
    pub fn position(&self, index: u64) -> (Bitboard, Bitboard) {
        self.block_position(self.block_of(index), index)
    }

    /// The block that index `index` lies in.
    ///
    /// # Panics
    /// If `index >= self.size()`.
    pub fn block_of(&self, index: u64) -> usize {
        assert!(index < self.size(), "index out of range");
        // The last block starting at or before `index`.
        let (mut lo, mut hi) = (0, self.sets.len() - 1);
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if self.offset(mid) <= index {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }

    /// The representative position of an index known to lie in block `block`.
    #[inline]
    pub fn block_position(&self, block: usize, index: u64) -> (Bitboard, Bitboard) {
        debug_assert!((self.offset(block)..self.offset(block + 1)).contains(&index));
        let sub = index - self.offset(block);
        let them_rank = match self.tables(block) {
            None => sub,
            Some(t) => u64::from(t.rank_of_sub[sub as usize]),
        };
        let set = self.sets.sets[block];
        let mask = self.outside(set);
        let them = expand(
            unrank(them_rank, mask.count_ones() as usize, self.them),
            mask,
        );
        (
            Bitboard::from_bits_truncate(set),
            Bitboard::from_bits_truncate(them),
        )
    }

    /// The index cut into pieces of at most `size` positions, none across two
    /// blocks: `(block, range of indices)`, in index order.
    pub fn pieces(&self, size: u64) -> Vec<(usize, std::ops::Range<u64>)> {
        let size = size.max(1);
        (0..self.blocks())
            .flat_map(|b| {
                let range = self.block(b).1;
                (range.start..range.end)
                    .step_by(size as usize)
                    .map(move |start| (b, start..(start + size).min(range.end)))
            })
            .collect()
    }

    /// Every position of block `i` as `(index, us, them)`, in index order.
    pub fn block_positions(
        &self,
        i: usize,
    ) -> impl Iterator<Item = (u64, Bitboard, Bitboard)> + '_ {
        self.positions_in(i, self.offset(i)..self.offset(i + 1))
    }

    /// The positions of the indices `range`, all in block `i`, as `(index, us,
    /// them)`, in index order.
    ///
    /// # Panics
    /// Only through a debug assertion when `range` leaves the block.
    pub fn positions_in(
        &self,
        i: usize,
        range: std::ops::Range<u64>,
    ) -> impl Iterator<Item = (u64, Bitboard, Bitboard)> + '_ {
        let start = self.offset(i);
        debug_assert!(start <= range.start && range.end <= self.offset(i + 1));
        let set = Bitboard::from_bits_truncate(self.sets.sets[i]);
        let mask = self.outside(set.bits());
        let plain = self.tables(i).is_none();
        // A plain block holds every set in colex order: each is the next combination
        // of the last, so only the first is unranked. A symmetric block's orbits are
        // decoded one by one.
        let mut next = if plain && range.start < range.end {
            unrank(range.start - start, mask.count_ones() as usize, self.them)
        } else {
            0
        };
        range.map(move |index| {
            let them = if plain {
                let them = Bitboard::from_bits_truncate(expand(next, mask));
                next = next_combination(next);
                them
            } else {
                self.block_position(i, index).1
            };
            (index, set, them)
        })
    }
}

/// A side-to-move set located in an index: its block and the symmetry that takes it
/// to the block's canonical set (see [`SectorIndex::with_us`]).
#[derive(Clone, Copy)]
pub struct UsSet<'a> {
    index: &'a SectorIndex,
    block: usize,
    symmetry: Symmetry,
    mask: u32,
    us: Bitboard,
    /// The block's indices by rank (looked up once: a set often indexes many positions).
    map: RankMap<'a>,
}

impl<'a> UsSet<'a> {
    /// The block, the opponent's set moved with `us`, and the index of `(us, them)`.
    #[inline]
    fn locate(&self, them: Bitboard) -> (usize, u32, u64) {
        debug_assert_eq!(them.count() as usize, self.index.them);
        debug_assert!((self.us & them).is_empty());
        let them = self.symmetry.apply(them).bits();
        (
            self.block,
            them,
            self.map.index(rank_within(them, self.mask)),
        )
    }

    /// The index of the position `(us, them)` and `them` moved by the symmetry that
    /// takes `us` onto its block's canonical set: `(canonical set, moved them)` is the
    /// position as its block holds it (a representative of its orbit).
    #[inline]
    pub fn index_and_moved(&self, them: Bitboard) -> (u64, Bitboard) {
        let (_, moved, index) = self.locate(them);
        (index, Bitboard::from_bits_truncate(moved))
    }

    /// The block of every position with this side-to-move set.
    #[inline]
    pub fn block(&self) -> usize {
        self.block
    }

    /// The index of the position `(us, them)`, `us` the set this was made for (the
    /// same as [`SectorIndex::index`]).
    #[inline]
    pub fn index(&self, them: Bitboard) -> u64 {
        self.locate(them).2
    }

    /// Whether `us` is its block's canonical set itself: then the index of `(us,
    /// them)` depends on `them` only through its colex rank among the points outside
    /// `us` ([`UsSet::index_of_rank`]), which a caller can compute incrementally.
    #[inline]
    pub fn is_canonical(&self) -> bool {
        self.symmetry == Symmetry::IDENTITY
    }

    /// Where [`UsSet::is_canonical`] holds, the block's map from ranks to indices,
    /// resolved once for many lookups (the same as [`UsSet::index_of_rank`]).
    #[inline]
    pub fn rank_map(&self) -> Option<RankMap<'a>> {
        self.is_canonical().then_some(self.map)
    }

    /// The index of `(us, them)` from the colex rank of `them` among the points
    /// outside `us`, in increasing order. Only meaningful where
    /// [`UsSet::is_canonical`] holds (checked in debug builds).
    #[inline]
    pub fn index_of_rank(&self, them_rank: u64) -> u64 {
        debug_assert!(self.is_canonical());
        self.map.index(them_rank)
    }
}

/// The indices of one block by the colex rank of the opponent's set among the points
/// outside the block's canonical set ([`UsSet::rank_map`]).
#[derive(Clone, Copy)]
pub struct RankMap<'a> {
    offset: u64,
    sub: Option<&'a [u32]>,
}

impl RankMap<'_> {
    /// The index of the position whose opponent's set has colex rank `rank`.
    #[inline]
    pub fn index(&self, rank: u64) -> u64 {
        self.offset
            + match self.sub {
                None => rank,
                Some(t) => u64::from(t[rank as usize]),
            }
    }
}

/// The next larger integer with as many set bits (Gosper's hack); 0 stays 0.
fn next_combination(x: u32) -> u32 {
    if x == 0 {
        return 0;
    }
    let low = x & x.wrapping_neg();
    let ripple = x.wrapping_add(low);
    ripple | (((x ^ ripple) >> 2) / low)
}

/// Number of positions with `us` and `them` pieces up to symmetry, by Burnside's
/// lemma: the average over the 16 symmetries of the placements each one fixes. A
/// placement is fixed when every cycle of the symmetry's permutation is wholly ours,
/// theirs or empty. Cheap, and independent of the index tables: it checks file sizes
/// before any index is built. Zero where the pieces do not fit on the board.
pub fn orbit_count(board: Board, us: usize, them: usize) -> u64 {
    let layout = Layout::of(board);
    if us + them > layout.count() {
        return 0;
    }
    // Remembered: opening a set of tables checks hundreds of files against it.
    type Known = [[AtomicU64; POINT_COUNT + 1]; POINT_COUNT + 1];
    static KNOWN: [Known; 2] =
        [const { [const { [const { AtomicU64::new(0) }; POINT_COUNT + 1] }; POINT_COUNT + 1] }; 2];
    let slot = &KNOWN[layout.slot()][us][them];
    match slot.load(Ordering::Relaxed) {
        0 => {
            let n = burnside(layout, us, them);
            slot.store(n, Ordering::Relaxed);
            n
        }
        n => n,
    }
}

/// [`orbit_count`], computed.
fn burnside(layout: Layout, us: usize, them: usize) -> u64 {
    let off_board = !layout.points() & crate::sets::ALL_POINTS;
    let mut total = 0u64;
    for s in Symmetry::ALL {
        // ways[a][b]: colourings of the cycles so far with a ours and b theirs,
        // updated in place from the largest counts down (each cycle is used once).
        let mut ways = [[0u64; POINT_COUNT + 1]; POINT_COUNT + 1];
        ways[0][0] = 1;
        for len in crate::sets::cycle_lengths(s, off_board) {
            for a in (0..=us).rev() {
                for b in (0..=them).rev() {
                    let mut add = 0;
                    if a >= len {
                        add += ways[a - len][b];
                    }
                    if b >= len {
                        add += ways[a][b - len];
                    }
                    ways[a][b] += add;
                }
            }
        }
        total += ways[us][them];
    }
    total / 16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables embedded at build time are those computed now, for every size a
    /// side can have; the blob is what the build script wrote.
    #[test]
    fn the_embedded_set_tables_are_the_computed_ones() {
        assert_eq!(&EMBEDDED.0, crate::sets::blob().as_slice());
        for k in 0..=crate::sets::EMBEDDED_MAX {
            let d = crate::sets::compute(k, Layout::All.points());
            let (canon, sets, stab, orbits) = embedded(k).expect("embedded");
            assert_eq!(canon, d.canon_of_rank.as_slice(), "{k}");
            assert_eq!(sets, d.sets.as_slice(), "{k}");
            assert_eq!(stab, d.stabiliser.as_slice(), "{k}");
            assert_eq!(orbits, d.orbits.as_slice(), "{k}");
        }
        assert!(embedded(crate::sets::EMBEDDED_MAX + 1).is_none());
        // Beyond: computed, and consistent with the orbit count.
        let big = SectorIndex::get(Board::Nine, 10, 4);
        assert_eq!(big.size(), orbit_count(Board::Nine, 10, 4));
    }

    /// Each layout's points are its boards' points, and the twelve board shares the
    /// nine board's index.
    #[test]
    fn layouts_are_the_boards_points() {
        for board in Board::ALL {
            assert_eq!(
                Layout::of(board).points(),
                board.geometry().points().bits(),
                "{board}"
            );
        }
        assert!(Arc::ptr_eq(
            &SectorIndex::get(Board::Nine, 3, 4),
            &SectorIndex::get(Board::Twelve, 3, 4)
        ));
        assert!(!Arc::ptr_eq(
            &SectorIndex::get(Board::Nine, 3, 4),
            &SectorIndex::get(Board::Six, 3, 4)
        ));
    }

    use std::collections::HashSet;

    fn canonical(us: u32, them: u32) -> (u32, u32) {
        Symmetry::ALL
            .iter()
            .map(|s| {
                (
                    s.apply(Bitboard::from_bits_truncate(us)).bits(),
                    s.apply(Bitboard::from_bits_truncate(them)).bits(),
                )
            })
            .min()
            .unwrap_or((us, them))
    }

    /// Exhaustive over small sectors of a board: every position maps to an index
    /// whose representative is in its orbit, and the index counts the orbits exactly.
    fn check_exact_orbit_numbering(board: Board, sectors: &[(usize, usize)]) {
        let points = Layout::of(board).points();
        let n = points.count_ones() as usize;
        for &(u, t) in sectors {
            let idx = SectorIndex::get(board, u, t);
            let mut orbits = HashSet::new();
            let mut hit = vec![false; idx.size() as usize];
            for ur in 0..binom(n, u) {
                let us = expand(unrank(ur, n, u), points);
                for tr in 0..binom(n - u, t) {
                    let them = expand(unrank(tr, n - u, t), !us & points);
                    let (i, stab) = idx.index_with_stabiliser(
                        Bitboard::from_bits_truncate(us),
                        Bitboard::from_bits_truncate(them),
                    );
                    assert_eq!(
                        i,
                        idx.index(
                            Bitboard::from_bits_truncate(us),
                            Bitboard::from_bits_truncate(them)
                        )
                    );
                    let (ru, rt) = idx.position(i);
                    assert_eq!((ru | rt).bits() & !points, 0, "{board}: off the board");
                    assert_eq!(canonical(ru.bits(), rt.bits()), canonical(us, them));
                    let fixing = Symmetry::ALL
                        .iter()
                        .filter(|s| {
                            s.apply(Bitboard::from_bits_truncate(us)).bits() == us
                                && s.apply(Bitboard::from_bits_truncate(them)).bits() == them
                        })
                        .count() as u32;
                    assert_eq!(stab, fixing);
                    orbits.insert(canonical(us, them));
                    hit[i as usize] = true;
                }
            }
            assert_eq!(idx.size() as usize, orbits.len(), "{board} sector {u}-{t}");
            assert_eq!(
                idx.size(),
                orbit_count(board, u, t),
                "{board} sector {u}-{t}"
            );
            assert!(hit.iter().all(|&h| h));
            for b in 0..idx.blocks() {
                for (i, us, them) in idx.block_positions(b) {
                    assert_eq!(idx.position(i), (us, them));
                    assert_eq!(idx.index(us, them), i);
                }
                // Any part of a block starts where the whole block's walk is.
                let range = idx.block(b).1;
                let len = range.end - range.start;
                for (from, to) in [(len / 3, len), (len / 2, len / 2 + 1), (len, len)] {
                    let part = range.start + from..range.start + to;
                    let walked: Vec<_> = idx.positions_in(b, part.clone()).collect();
                    let whole: Vec<_> = idx
                        .block_positions(b)
                        .filter(|(i, _, _)| part.contains(i))
                        .collect();
                    assert_eq!(walked, whole, "{board} sector {u}-{t} block {b}");
                }
            }
        }
    }

    #[test]
    fn index_is_an_exact_orbit_numbering() {
        check_exact_orbit_numbering(Board::Nine, &[(1, 1), (2, 2), (3, 3), (2, 4), (3, 2)]);
    }

    /// The six board's 16 points: every sector of up to four pieces a side, and
    /// some with more (the full board's 8-8 included).
    #[test]
    fn six_board_index_is_an_exact_orbit_numbering() {
        let mut sectors: Vec<(usize, usize)> =
            (0..=4).flat_map(|u| (0..=4).map(move |t| (u, t))).collect();
        sectors.extend([(5, 3), (3, 6), (6, 6), (8, 8), (7, 9), (16, 0)]);
        check_exact_orbit_numbering(Board::Six, &sectors);
        // Its points fall into two orbits: corners and midpoints.
        assert_eq!(SectorIndex::get(Board::Six, 1, 0).size(), 2);
        assert_eq!(orbit_count(Board::Six, 9, 8), 0);
    }

    /// Placement sectors number boards with zero to two pieces a side as well.
    #[test]
    fn index_numbers_boards_with_few_pieces_exactly() {
        let small: Vec<(usize, usize)> = (0..=4)
            .flat_map(|u| (0..=4 - u).map(move |t| (u, t)))
            .collect();
        check_exact_orbit_numbering(Board::Nine, &small);
        assert_eq!(SectorIndex::get(Board::Nine, 0, 0).size(), 1);
        // The 24 points fall into four orbits: corners and midpoints, each of the
        // outer and inner squares together or of the middle square.
        assert_eq!(SectorIndex::get(Board::Nine, 1, 0).size(), 4);
        assert_eq!(SectorIndex::get(Board::Nine, 0, 1).size(), 4);
    }

    #[test]
    #[ignore = "exhaustive over 60 million positions; run with --ignored"]
    fn index_is_an_exact_orbit_numbering_up_to_four_pieces() {
        check_exact_orbit_numbering(Board::Nine, &[(4, 3), (3, 4), (4, 4)]);
    }

    /// For every size of set and both layouts: the canonical sets are the least
    /// members of their orbits, numbered in increasing order, each fixed by its
    /// stabiliser, and every set's entry names its canonical set and a symmetry that
    /// maps it there (the identity for a canonical set itself).
    #[test]
    fn every_set_knows_its_canonical_set() {
        for board in [Board::Nine, Board::Six] {
            let points = Layout::of(board).points();
            let n = points.count_ones() as usize;
            for k in 0..=n {
                let table = SetTable::get(board, k);
                assert!(table.sets.windows(2).all(|w| w[0] < w[1]), "k = {k}");
                for r in 0..binom(n, k) {
                    let set = Bitboard::from_bits_truncate(expand(unrank(r, n, k), points));
                    let least = Symmetry::ALL
                        .iter()
                        .map(|s| s.apply(set).bits())
                        .min()
                        .expect("16 images");
                    let entry = table.canon_of_rank[r as usize];
                    let (block, sym) =
                        ((entry >> 4) as usize, Symmetry::ALL[(entry & 0xF) as usize]);
                    let at = format!("{board}, k = {k}, rank {r}");
                    assert_eq!(table.sets[block], least, "{at}");
                    assert_eq!(sym.apply(set).bits(), least, "{at}");
                    if set.bits() == least {
                        assert_eq!(sym, Symmetry::IDENTITY, "{at}");
                        let fixed = Symmetry::ALL
                            .iter()
                            .filter(|s| s.apply(set) == set)
                            .fold(0u16, |m, s| m | 1 << s.index());
                        assert_eq!(table.stabiliser[block], fixed, "{at}");
                    }
                }
            }
        }
    }

    #[test]
    fn three_against_three_has_the_published_orbit_count() {
        // 140,621 wins + 28,736 losses + 269 draws (Standard, side to move).
        assert_eq!(SectorIndex::get(Board::Nine, 3, 3).size(), 169_626);
    }
}

#[cfg(test)]
mod burnside {
    use super::*;
    use crate::sector::Sector;

    fn check_sizes(board: Board, max: u8) {
        for s in Sector::all()
            .into_iter()
            .filter(|s| s.us.max(s.them) <= max)
        {
            let index = SectorIndex::get(board, s.us as usize, s.them as usize);
            assert_eq!(
                index.size(),
                orbit_count(board, s.us as usize, s.them as usize),
                "sector {s}"
            );
        }
    }

    #[test]
    fn sector_sizes_are_orbit_counts_up_to_six_pieces() {
        check_sizes(Board::Nine, 6);
        check_sizes(Board::Six, 8);
    }

    #[test]
    fn every_sector_size_is_its_orbit_count() {
        check_sizes(Board::Nine, 9);
    }
}
