//! The placement pass: the sectors with pieces in hand ([`PlacementSector`]), solved
//! in one pass from their successors.
//!
//! Order. Every turn of the placing phase takes a piece from a hand, so the pieces in
//! hand strictly decrease and no position repeats: the sectors form a DAG, and each
//! position's value is the best over its successors, which lie in sectors with one
//! piece fewer in hand (placement sectors, or movement sectors once both hands are
//! empty). [`PlacementSector::all`] lists the sectors fewest pieces in hand first, so
//! a single pass in that order solves them all; nothing is propagated backwards.
//!
//! Values are [`Value`]s. Rule 1 of RULES.md applies after every turn, so a side that
//! places its last piece while holding fewer than three loses by its own move: such
//! positions have values the parity of the DTM cannot express ("loss in 1", and "win
//! in 0" for a stored position whose opponent has just lost that way), stored in the
//! inverted form. A position that is over already (an opponent with an empty hand and
//! at most two pieces) keeps its outcome with DTM 0.
//!
//! Colours do not matter to the rules (only the side to move, the board and the hands
//! do), so every position is solved as White to move with hands `[us_hand,
//! them_hand]`, whichever colour the game would give it.
//!
//! ```
//! use morris_engine::Rules;
//! use morris_builder::placement::solve_game;
//! use morris_builder::Silent;
//! use morris_tablebase::{PlacementSector, Value};
//!
//! // Two pieces a side: no mill can close, and White, placing first, places its last
//! // piece holding two and loses by that move, the third of the game.
//! let game = solve_game(Rules::STANDARD, 2, &|_| None, &Silent).unwrap();
//! let start: PlacementSector = "0-0+2-2".parse().unwrap();
//! let (_, values) = game.iter().find(|(s, _)| *s == start).unwrap();
//! assert_eq!(Value(values[0]), Value::loss(3));
//! ```

use crate::progress::Observer;
use morris_engine::{
    tables::{in_mills, MILLS},
    Bitboard, Board, Captures, Color, Move, Point, Position, Protection, Rules, Setup,
    PIECES_PER_PLAYER, POINT_COUNT,
};
use morris_sys::prefetch;
use morris_tablebase::combin::{compress, BINOM};
use morris_tablebase::index::{SectorIndex, UsSet};
use morris_tablebase::{PlacementSector, Sector, SectorId, SuccessorSector, Value};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};
use std::sync::Arc;
use thiserror::Error;

/// Why a placement sector could not be solved.
#[derive(Debug, Error)]
pub enum PlacementError {
    /// A sector that placements lead to was not supplied.
    #[error("sector {needed} is needed to solve {sector} but is missing")]
    MissingSuccessor {
        /// The sector being solved.
        sector: PlacementSector,
        /// The sector its placements reach.
        needed: SuccessorSector,
    },
    /// A supplied sector has the wrong number of entries.
    #[error("sector {0} has {1} entries, expected {2}")]
    WrongSize(SuccessorSector, usize, u64),
    /// A supplied sector holds a raw value the encoding does not define.
    #[error("sector {sector} holds the undefined value {value:#06x} at entry {index}")]
    BadValue {
        /// The sector read.
        sector: SuccessorSector,
        /// The entry.
        index: u64,
        /// The raw value found.
        value: u16,
    },
    /// The output could not be allocated.
    #[error("cannot allocate the {0} entries of sector {1}")]
    Memory(u64, PlacementSector),
    /// A distance too long for the encoding.
    #[error("a distance of {0} plies in sector {1} exceeds the encoding")]
    DtmOverflow(u32, PlacementSector),
    /// The index or the engine produced a state that cannot be: a bug, reported
    /// rather than checked around.
    #[error("internal inconsistency: {0}")]
    Inconsistent(String),
}

/// One solved sector a placement leads to.
struct Target<'a> {
    sector: SuccessorSector,
    index: Arc<SectorIndex>,
    values: &'a [u16],
}

/// Whether a piece of `us` placed on an empty point closes two mills at once: a
/// point that is the third of two lines of which `us` holds the other two each.
fn closes_two_mills(us: Bitboard, them: Bitboard) -> bool {
    let (mut once, mut twice) = (Bitboard::EMPTY, Bitboard::EMPTY);
    for &m in MILLS.iter().filter(|&&m| (us & m).count() == 2) {
        let third = m & !us;
        twice |= once & third;
        once |= third;
    }
    !(twice & !(us | them)).is_empty()
}

/// The solver of one sector.
struct Solver<'a> {
    rules: Rules,
    sector: PlacementSector,
    /// By pieces captured: where a placement without (0), with one (1) and with two
    /// (2, per-mill captures only) captures leads.
    targets: [Option<Target<'a>>; 3],
    /// Whether the rules protect as the classic games do, on the nine board, so that
    /// the fast way of [`Solver::solve`] applies (else every position is solved by the
    /// engine's moves).
    classic_protection: bool,
    /// Whether a placement closing two mills takes two pieces (`captures=per-mill`):
    /// the fast way then takes the positions where no placement closes two mills,
    /// whose moves are those of the classic rules.
    per_mill: bool,
}

/// The successors' side-to-move sets of the positions whose opponent has one set
/// `them`, located in their targets once: a placement leaves `them` to move with
/// its pieces intact, or with one captured.
struct NextMovers<'s> {
    /// `them` itself, in the target of placements that capture nothing.
    quiet: Option<UsSet<'s>>,
    /// `them` less the piece on each point, in the target of captures (built on
    /// first use: most positions close no mill).
    captured: [Option<UsSet<'s>>; POINT_COUNT],
}

impl<'a> Solver<'a> {
    /// The engine position of `(us, them)` in this sector, White to move.
    fn position(&self, us: Bitboard, them: Bitboard) -> Result<Position, PlacementError> {
        let setup = Setup {
            pieces: [us, them],
            hand: [self.sector.us_hand, self.sector.them_hand],
            side_to_move: Color::White,
        };
        Position::from_setup(&setup, self.rules).map_err(|e| {
            PlacementError::Inconsistent(format!(
                "a board of sector {} is no position: {e}",
                self.sector
            ))
        })
    }

    fn target(&self, k: usize) -> Result<&Target<'a>, PlacementError> {
        self.targets[k].as_ref().ok_or_else(|| {
            PlacementError::Inconsistent(format!(
                "a placement from sector {} reached a position of no sector",
                self.sector
            ))
        })
    }

    fn next_movers(&self, them: Bitboard) -> NextMovers<'_> {
        NextMovers {
            quiet: self.targets[0].as_ref().map(|t| t.index.with_us(them)),
            captured: [None; POINT_COUNT],
        }
    }

    /// The successors of position `(us, them)`, the opponent's set `them` the one
    /// `movers` was made for: the values known at once (games that end) go into
    /// `best`, the entries to read from the targets onto `reads` ([`Reads`]).
    fn solve<'s>(
        &'s self,
        us: Bitboard,
        them: Bitboard,
        movers: &mut NextMovers<'s>,
        best: &mut Best,
        reads: &mut Reads,
    ) -> Result<(), PlacementError> {
        // The opponent's hand is empty (our last placement ends the placing phase).
        let last = self.sector.them_hand == 0;
        let (quiet, quiet_target) = match (movers.quiet, &self.targets[0]) {
            (Some(q), Some(target))
                if self.classic_protection
                    && q.is_canonical()
                    && (!last || (them.count() >= 3 && us.count() >= 2))
                    && !(self.per_mill && closes_two_mills(us, them)) =>
            {
                (q, target)
            }
            _ => {
                let pos = self.position(us, them)?;
                return self.solve_generic(&pos, movers, best, reads);
            }
        };
        // The fast way. Neither this position nor one after a placement that captures
        // nothing can be over: while the opponent holds a piece everyone can place,
        // and a side reduced to two by such a placement would have left no target;
        // after our last placement both sides keep three or more (checked above), and a
        // successor whose side to move is blocked is a movement position like any
        // other, its loss read from its table. So those placements need no engine
        // position: their successors are `(them, us + p)`, indexed in `them`'s block
        // by the colex rank of `us + p` among the points outside `them`, computed for
        // every `p` at once.
        let empty = Bitboard::FULL & !(us | them);
        // The points where a piece of ours closes a mill: the third of each line of
        // which we hold two.
        let closing = MILLS
            .iter()
            .filter(|&&m| (us & m).count() == 2)
            .fold(Bitboard::EMPTY, |b, &m| b | (m & !us))
            & empty;
        let quiet_points = if them.is_empty() {
            // No piece to take: a closed mill captures nothing.
            empty
        } else {
            // The placements that close a mill, each with every capture the rules
            // allow (a piece outside the opponent's mills, any when all stand in
            // mills): `them` less the piece taken moves next, in the capture target.
            // While the opponent holds a piece none ends the game (we have at least
            // three after closing a mill); after our last placement, a capture that
            // leaves the opponent two pieces wins at once.
            if !closing.is_empty() && last && them.count() <= 3 {
                best.add(Value::loss(0));
            } else if !closing.is_empty() {
                let free = them & !in_mills(them);
                let capturable = if free.is_empty() { them } else { free };
                let target = self.target(1)?;
                for x in capturable {
                    let mover = *movers.captured[x.index()]
                        .get_or_insert_with(|| target.index.with_us(them & !x.bit()));
                    for c in closing {
                        reads.push(target, 1, mover.index(us | c.bit()));
                    }
                }
            }
            empty & !closing
        };
        // Colex rank of `us + p` among the points outside `them` (numbered 0.. in
        // order, where `us` is `ours` and `p` is `q`): the terms of our points below
        // `q`, then `q`'s, then ours above `q`, each one place later.
        let outside = !them.bits() & Bitboard::FULL.bits();
        let ours = compress(us.bits(), outside);
        let mut points = [0usize; PIECES_PER_PLAYER as usize];
        let mut n = 0;
        for (q, slot) in Bitboard::from_bits_truncate(ours)
            .iter()
            .zip(points.iter_mut())
        {
            *slot = q.index();
            n += 1;
        }
        let (mut below, mut above) = ([0u64; 10], [0u64; 10]);
        for j in 0..n {
            below[j + 1] = below[j] + BINOM[points[j]][j + 1];
        }
        for j in (0..n).rev() {
            above[j] = above[j + 1] + BINOM[points[j]][j + 2];
        }
        for q in Bitboard::from_bits_truncate(compress(quiet_points.bits(), outside))
            .iter()
            .map(Point::index)
        {
            let j = (ours & ((1 << q) - 1)).count_ones() as usize;
            let rank = below[j] + BINOM[q][j + 1] + above[j];
            reads.push(quiet_target, 0, quiet.index_of_rank(rank));
        }
        Ok(())
    }

    /// The successors of `pos`, each made by the engine (as [`Solver::solve`]).
    fn solve_generic<'s>(
        &'s self,
        pos: &Position,
        movers: &mut NextMovers<'s>,
        best: &mut Best,
        reads: &mut Reads,
    ) -> Result<(), PlacementError> {
        if let Some(end) = pos.end() {
            best.over = Some(Value::finished(pos, end));
            return Ok(());
        }
        for &m in pos.legal_moves().iter() {
            self.successor(pos, m, movers, best, reads)?;
        }
        Ok(())
    }

    /// The position after move `m` of `pos`: its value into `best` if the game is
    /// over, else its entry onto `reads`.
    fn successor<'s>(
        &'s self,
        pos: &Position,
        m: Move,
        movers: &mut NextMovers<'s>,
        best: &mut Best,
        reads: &mut Reads,
    ) -> Result<(), PlacementError> {
        let next = pos.play_unchecked(m);
        if let Some(end) = next.end() {
            best.add(Value::finished(&next, end));
            return Ok(());
        }
        let lost = pos.them() & !next.us();
        let (k, mover) = match (lost.count(), lost.bits().trailing_zeros() as usize) {
            (0, _) => (0, Some(&mut movers.quiet)),
            (1, p) => (1, Some(&mut movers.captured[p])),
            // Two pieces taken (per-mill captures): rare, located each time.
            _ => (2, None),
        };
        let target = self.target(k)?;
        let mover = match mover {
            Some(m) => *m.get_or_insert_with(|| target.index.with_us(next.us())),
            None => target.index.with_us(next.us()),
        };
        reads.push(target, k, mover.index(next.them()));
        Ok(())
    }

    /// The values of a batch of positions, from the values known at once and the
    /// entries to read, `ends[i]` entries of `reads` ending position `i`'s. The reads
    /// are independent loads, issued in one loop so that their misses overlap.
    fn finish(
        &self,
        bests: &mut [Best],
        ends: &[usize],
        reads: &Reads,
        values: &mut Vec<u16>,
    ) -> Result<(), PlacementError> {
        // The entries were prefetched as they were listed; by now most are in cache.
        // An entry beyond its target reads as the undefined value, and a position
        // that met one is read again the checked way for the error.
        let tables: [&[u16]; 3] =
            std::array::from_fn(|k| self.targets[k].as_ref().map_or(&[][..], |t| t.values));
        let mut start = 0;
        for (best, &end) in bests.iter_mut().zip(ends) {
            let mut key = best.key;
            for &r in &reads.0[start..end] {
                let raw = tables[(r & 3) as usize]
                    .get((r >> 2) as usize)
                    .copied()
                    .unwrap_or(UNSOLVED);
                key = key.max(Best::key(raw));
            }
            if key >= Best::MALFORMED {
                for &r in &reads.0[start..end] {
                    read(self.target((r & 3) as usize)?, (r >> 2) as usize)?;
                }
            }
            best.key = key;
            start = end;
            values.push(match best.over {
                Some(v) => v.0,
                None => best.value(self.sector)?.0,
            });
        }
        Ok(())
    }
}

/// Entries of the targets to read: index times four plus the target's number.
#[derive(Default)]
struct Reads(Vec<u64>);

impl Reads {
    /// List entry `index` of `target`, number `k`, and prefetch it: it is read when
    /// the batch is finished ([`Solver::finish`]).
    #[inline]
    fn push(&mut self, target: &Target<'_>, k: usize, index: u64) {
        prefetch(target.values, index as usize);
        self.0.push(index << 2 | k as u64);
    }
}

/// The best of the successors' values seen so far, for the side to move.
#[derive(Default)]
struct Best {
    /// The position itself is over: its value, whatever the successors.
    over: Option<Value>,
    /// The greatest [`Best::key`] of the successors seen, 0 for none.
    key: u32,
}

impl Best {
    /// The key of a successor whose value is the undefined raw value: above every
    /// other.
    const MALFORMED: u32 = 0x4_0000;

    /// A successor's raw value (for its own side to move) as a key that orders the
    /// moves to it from worst to best for the side that makes them: a loss in `d + 1`
    /// for a successor won in `d` (the longer the better), then a draw, then a win in
    /// `d + 1` for one lost in `d` (the shorter the better). A decided value whose
    /// distance is not known counts as distance 0. Computed without a branch on the
    /// result, which is what varies from one successor to the next.
    #[inline]
    fn key(raw: u16) -> u32 {
        let field = u32::from(raw & 0x7FFF);
        let inverted = u32::from(raw >> 15);
        if field == 0 {
            return if inverted == 0 {
                0x2_0000
            } else {
                Best::MALFORMED
            };
        }
        let d = field - 1;
        let plies = if d <= u32::from(Value::MAX_DTM) { d } else { 0 } + 1;
        // The successor's side to move wins exactly when the parity and the
        // inversion disagree.
        if (d & 1) != inverted {
            0x1_0000 + plies
        } else {
            0x3_FFFF - plies
        }
    }

    fn add(&mut self, v: Value) {
        self.key = self.key.max(Best::key(v.0));
    }

    fn value(&self, sector: PlacementSector) -> Result<Value, PlacementError> {
        let fit = |d: u32| {
            u16::try_from(d)
                .ok()
                .filter(|&d| d <= Value::MAX_DTM)
                .ok_or(PlacementError::DtmOverflow(d, sector))
        };
        Ok(match self.key {
            // No legal move at all cannot happen with a piece in hand and a free point;
            // it would read as a loss now.
            0 => Value::loss(0),
            k if k < 0x2_0000 => Value::loss(fit(k - 0x1_0000)?),
            0x2_0000 => Value::DRAW,
            k if k < Best::MALFORMED => Value::win(fit(0x3_FFFF - k)?),
            _ => {
                return Err(PlacementError::Inconsistent(
                    "an undefined value was taken as a successor's".into(),
                ))
            }
        })
    }
}

/// Entry `i` of a target, checked.
fn read(target: &Target<'_>, i: usize) -> Result<Value, PlacementError> {
    let raw = *target.values.get(i).ok_or_else(|| {
        PlacementError::Inconsistent(format!("entry {i} lies beyond sector {}", target.sector))
    })?;
    let v = Value(raw);
    if v.is_well_formed() {
        Ok(v)
    } else {
        Err(PlacementError::BadValue {
            sector: target.sector,
            index: i as u64,
            value: raw,
        })
    }
}

/// Positions solved together by one task (and between two progress reports).
const CHUNK: u64 = 1 << 14;

/// Positions whose successors' entries are gathered before any is read.
const BATCH: usize = 256;

/// What an entry holds until it is solved: the one raw value the encoding leaves
/// undefined, so that an entry the pass missed cannot pass for a value.
const UNSOLVED: u16 = 0x8000;

/// Solve placement sector `sector` under `rules`: one [`Value`] (its raw `u16`) per
/// index of the board `(us, them)`.
///
/// `lookup(s)` must return the values of every sector in `sector.successors()`
/// (placement sectors solved before, movement sectors from the movement tables).
/// The positions are solved in parallel on rayon's pool.
///
/// Order. The positions are taken by the opponent's set first, as the index of the
/// swapped board `(them, us)` numbers them: every successor's side to move is that
/// opponent (less a captured piece), which the successor's index takes as its block,
/// so the successors of consecutive positions lie in a few blocks of their sectors
/// and are read from cache rather than memory. Only the result is written at random.
///
/// # Errors
/// [`PlacementError`] for a missing or wrongly sized successor sector, an undefined
/// value in one, a distance beyond the encoding, or memory that cannot be had.
pub fn solve_placement<'a>(
    rules: impl Into<Rules>,
    sector: PlacementSector,
    lookup: &dyn Fn(SuccessorSector) -> Option<&'a [u16]>,
    observer: &dyn Observer,
) -> Result<Vec<u16>, PlacementError> {
    let rules: Rules = rules.into();
    let mut targets = [None, None, None];
    let successors = sector.successors(rules);
    for (k, slot) in targets.iter_mut().enumerate() {
        let Some(next) = sector
            .after_placement(k as u8)
            .and_then(|s| successors.iter().copied().find(|t| SectorId::from(*t) == s))
        else {
            continue;
        };
        let values = lookup(next).ok_or(PlacementError::MissingSuccessor {
            sector,
            needed: next,
        })?;
        let (us, them) = next.board();
        let index = SectorIndex::get(rules.board(), us, them);
        if values.len() as u64 != index.size() {
            return Err(PlacementError::WrongSize(next, values.len(), index.size()));
        }
        *slot = Some(Target {
            sector: next,
            index,
            values,
        });
    }
    let solver = Solver {
        rules,
        sector,
        targets,
        classic_protection: rules.protection() == Protection::Standard
            && rules.board() == Board::Nine,
        per_mill: rules.captures() == Captures::PerMill,
    };
    let (us, them) = (usize::from(sector.us), usize::from(sector.them));
    let index = SectorIndex::get(rules.board(), us, them);
    let order = SectorIndex::get(rules.board(), them, us);
    let n = index.size();
    let memory = || PlacementError::Memory(n, sector);
    let len = usize::try_from(n).map_err(|_| memory())?;
    // Reserved before solving, so that a lack of memory stops the run at once.
    let mut out: Vec<AtomicU16> = Vec::new();
    out.try_reserve_exact(len).map_err(|_| memory())?;
    out.resize_with(len, || AtomicU16::new(UNSOLVED));
    observer.phase("placement", n);
    order
        .pieces(CHUNK)
        .into_par_iter()
        .try_for_each(|(b, range)| {
            // The piece's positions and where their values go, found first in a loop
            // of independent lookups; then solved; then stored, in a loop of
            // independent writes, so that the misses of the scattered results overlap
            // instead of stalling each solution.
            let boards: Vec<(Bitboard, Bitboard)> = order
                .positions_in(b, range.clone())
                .map(|(_, them, us)| (them, us))
                .collect();
            for &(_, us) in &boards {
                index.prefetch_us(us);
            }
            let slots: Vec<u64> = boards
                .iter()
                .map(|&(them, us)| index.index(us, them))
                .collect();
            // Solved in batches: the successors' entries of a batch first, then their
            // values read together (see `Solver::finish`).
            let mut values = Vec::with_capacity(boards.len());
            let (mut bests, mut ends, mut reads) = (Vec::new(), Vec::new(), Reads::default());
            // The opponent's set is the block's, the same for the whole piece.
            let mut movers = None;
            for batch in boards.chunks(BATCH) {
                bests.clear();
                ends.clear();
                reads.0.clear();
                for &(them, us) in batch {
                    let movers = movers.get_or_insert_with(|| solver.next_movers(them));
                    let mut best = Best::default();
                    solver.solve(us, them, movers, &mut best, &mut reads)?;
                    bests.push(best);
                    ends.push(reads.0.len());
                }
                solver.finish(&mut bests, &ends, &reads, &mut values)?;
            }
            for (&slot, &v) in slots.iter().zip(&values) {
                out[slot as usize].store(v, Relaxed);
            }
            observer.advance(range.end - range.start);
            Ok(())
        })?;
    let out: Vec<u16> = out.into_iter().map(AtomicU16::into_inner).collect();
    match out.iter().position(|&v| v == UNSOLVED) {
        None => Ok(out),
        Some(i) => Err(PlacementError::Inconsistent(format!(
            "entry {i} of sector {sector} was not reached by the pass"
        ))),
    }
}

/// Solve every placement sector of a game with `max_pieces` pieces a side, in memory,
/// in the order of [`PlacementSector::all`]. `movement(s)` must return the values of
/// the movement sectors the game reaches (both counts from 3 to `max_pieces`).
///
/// # Errors
/// As [`solve_placement`]; a missing movement sector is named.
pub fn solve_game<'a>(
    rules: impl Into<Rules>,
    max_pieces: u8,
    movement: &dyn Fn(Sector) -> Option<&'a [u16]>,
    observer: &dyn Observer,
) -> Result<Vec<(PlacementSector, Vec<u16>)>, PlacementError> {
    let rules: Rules = rules.into();
    let mut solved: Vec<(PlacementSector, Vec<u16>)> = Vec::new();
    for sector in PlacementSector::all(max_pieces) {
        let lookup = |s: SuccessorSector| match s {
            SuccessorSector::Movement(m) => movement(m),
            SuccessorSector::Placement(p) => solved
                .iter()
                .find(|(t, _)| *t == p)
                .map(|(_, v)| v.as_slice()),
        };
        let values = solve_placement(rules, sector, &lookup, observer)?;
        solved.push((sector, values));
    }
    Ok(solved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::Silent;
    use morris_tablebase::Wdl;

    fn sector(text: &str) -> PlacementSector {
        text.parse().expect("a placement sector")
    }

    fn movement(rules: Rules, max: u8) -> Vec<(Sector, Vec<u16>)> {
        crate::generate::solve_movement(rules, max).expect("solved")
    }

    fn find<'a>(game: &'a [(PlacementSector, Vec<u16>)], text: &str) -> &'a [u16] {
        let s = sector(text);
        game.iter()
            .find(|(t, _)| *t == s)
            .map(|(_, v)| v.as_slice())
            .expect("solved")
    }

    /// The best of successors the way it was first written: a win in one more than
    /// the quickest lost successor, else a draw, else a loss in one more than the
    /// slowest won one (distances unknown counting as 0).
    fn reference(children: &[u16]) -> Option<Value> {
        let (mut win, mut loss, mut draw) = (None::<u32>, 0u32, false);
        for &c in children {
            let v = Value(c);
            let d = v.dtm().map_or(0, u32::from);
            match v.wdl() {
                Wdl::Loss => win = Some(win.map_or(d + 1, |w| w.min(d + 1))),
                Wdl::Draw => draw = true,
                Wdl::Win => loss = loss.max(d + 1),
            }
        }
        let fit = |d: u32| u16::try_from(d).ok().filter(|&d| d <= Value::MAX_DTM);
        match win {
            Some(d) => fit(d).map(Value::win),
            None if draw => Some(Value::DRAW),
            None => fit(loss).map(Value::loss),
        }
    }

    #[test]
    fn the_best_successor_by_key_is_the_best_by_value() {
        // Every raw value alone, and every pair of values from the ends of the ranges
        // and around the inverted bit.
        let sector = sector("4-4+1-1");
        let best_of = |children: &[u16]| {
            let mut best = Best::default();
            for &c in children {
                best.add(Value(c));
            }
            best.value(sector).ok()
        };
        assert_eq!(best_of(&[]), Some(Value::loss(0)));
        for raw in 0..=u16::MAX {
            if raw != UNSOLVED {
                assert_eq!(best_of(&[raw]), reference(&[raw]), "{raw:#06x}");
            }
        }
        let some: Vec<u16> = (0..40)
            .chain(0x7FF8..0x8000)
            .chain(0x8001..0x8028)
            .chain(0xFFF8..=0xFFFF)
            .collect();
        for &a in &some {
            for &b in &some {
                assert_eq!(best_of(&[a, b]), reference(&[a, b]), "{a:#06x} {b:#06x}");
                assert_eq!(best_of(&[a, b, 0x8005]), reference(&[a, b, 0x8005]));
            }
        }
        // The undefined value is no successor's.
        assert!(best_of(&[3, UNSOLVED]).is_none());
    }

    #[test]
    fn small_games_have_the_values_rule_1_forces() {
        // Two pieces a side: no mill can ever close, and White places its last piece
        // first, holding two: it loses by that move. So the start is a loss in 3.
        let game = solve_game(Rules::STANDARD, 2, &|_| None, &Silent).expect("solved");
        assert_eq!(Value(find(&game, "0-0+2-2")[0]).to_string(), "loss in 3");
        assert!(find(&game, "1-1+1-1")
            .iter()
            .all(|&v| Value(v) == Value::loss(1)));
        assert!(find(&game, "1-2+1-0")
            .iter()
            .all(|&v| Value(v) == Value::win(0)));
    }

    fn board(points: &str) -> Bitboard {
        points
            .split_whitespace()
            .map(|p| morris_engine::notation::parse_point(p).expect("a point"))
            .collect()
    }

    #[test]
    fn a_last_placement_that_closes_a_mill_wins_at_once() {
        let moves = movement(Rules::NO_FLYING, 3);
        let lookup = |s: Sector| {
            moves
                .iter()
                .find(|(t, _)| *t == s)
                .map(|(_, v)| v.as_slice())
        };
        let game = solve_game(Rules::NO_FLYING, 3, &lookup, &Silent).expect("solved");
        let value = |s: &str, us: &str, them: &str| {
            let s = sector(s);
            let index = SectorIndex::get(Board::Nine, usize::from(s.us), usize::from(s.them));
            Value(find(&game, &s.to_string())[index.index(board(us), board(them)) as usize])
        };
        // Black places g7, takes a piece: White is left two with an empty hand.
        assert_eq!(value("2-3+1-0", "a7 d7", "a1 d1 b2"), Value::win(1));
        // White closes the same mill and takes a piece; Black, left one on the board
        // and one in hand, must place it and lose by its own move: a win in 2.
        assert_eq!(value("2-2+1-1", "a7 d7", "a1 d1"), Value::win(2));
        // White's last placement leaves it two pieces: lost by that move.
        assert_eq!(value("1-0+1-1", "a7", ""), Value::loss(1));
    }

    #[test]
    fn a_missing_or_short_successor_is_named() {
        let s = sector("4-5+1-0");
        let five = Sector::new(5, 5).expect("a sector");
        let err = solve_placement(Rules::STANDARD, s, &|_| None, &Silent);
        assert!(
            matches!(err, Err(PlacementError::MissingSuccessor { sector, needed })
                if sector == s && needed == SuccessorSector::Movement(five)),
            "{err:?}"
        );
        let short = vec![0u16; 3];
        let err = solve_placement(Rules::STANDARD, s, &|_| Some(short.as_slice()), &Silent);
        assert!(
            matches!(err, Err(PlacementError::WrongSize(SuccessorSector::Movement(m), 3, _)) if m == five),
            "{err:?}"
        );
        // The quiet successor of 2-2+1-1 filled with the one undefined raw value,
        // the capturing one with draws.
        let s = sector("2-2+1-1");
        let next = sector("2-3+1-0");
        let quiet = vec![0x8000u16; next.size(Board::Nine) as usize];
        let capture = vec![0u16; sector("1-3+1-0").size(Board::Nine) as usize];
        let lookup = |s: SuccessorSector| match s {
            SuccessorSector::Placement(p) if p == next => Some(quiet.as_slice()),
            _ => Some(capture.as_slice()),
        };
        let err = solve_placement(Rules::STANDARD, s, &lookup, &Silent);
        assert!(
            matches!(err, Err(PlacementError::BadValue { sector: SuccessorSector::Placement(p), value: 0x8000, .. }) if p == next),
            "{err:?}"
        );
    }
}
