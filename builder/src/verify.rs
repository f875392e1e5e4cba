//! Independent check of stored values: every position's value is recomputed from the
//! values of its successors with the engine's own move generator (not the
//! generator's unmove code or counters) and compared with what is stored.
//!
//! Local consistency is enough for correctness: a win must have a successor lost in
//! one ply less, a loss only won successors and the largest DTM plus one, a draw no lost
//! successor and some drawn one. Wins and losses then form chains of strictly
//! decreasing DTM down to finished games, and no drawn position hides a forced result.
//!
//! A sector stored without distances (a compact `.wdl` file) is checked for its results
//! alone ([`Stored::ResultsOnly`]): a position's result computed from its successors'
//! depends only on their results, so theirs may be read with any distance of the right
//! parity (see [`CompactFile::raw_codes`]). That check is weaker: without distances,
//! positions that repeat could carry a consistent but wrong labelling.
//!
//! A sector whose distances are not stored but follow from its successors' (a
//! one-sided compact set, see [`SectorId::distances_derived`]) is read, where another
//! sector's check needs it, with the distances its successors give it
//! ([`derive_codes`]), its results checked against its `.wdl` file on the way.
//!
//! Files: [`check_sector`] recomputes a sector from the files of the sectors it
//! [`reads`], each read from its best [`Source`]; [`compare`] and [`compare_compact`]
//! check a compact file value by value against another file of its sector.

use crate::copy::ValueCopy;
use morris_engine::{Bitboard, Color, Position, Rules, Setup, MAX_MOVES};
use morris_sys::prefetch;
use morris_tablebase::compact::{CompactFile, Kind};
use morris_tablebase::file::{decode_byte, encode_byte, FileError, Problem, SectorFile};
use morris_tablebase::index::{SectorIndex, UsSet};
use morris_tablebase::{PlacementSector, Sector, SectorId, SectorStats, Value};
use rayon::prelude::*;
use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Arc;

/// What the stored values of the sector checked hold, and so what is compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stored {
    /// Values with their distances: the whole value is compared.
    Values,
    /// Win, draw or loss alone (the codes' distances stand in): only the result is
    /// compared, and a disagreement is shown without distances.
    ResultsOnly,
    /// No values (a `.wdl` file without values, whose sector's values follow from
    /// its successors'): nothing is compared, the values are only computed.
    Nothing,
}

impl Stored {
    /// Whether a stored value agrees with the one computed from the successors, and
    /// the two as they are shown when not.
    fn compare(self, stored: Value, computed: Value) -> Option<(Value, Value)> {
        match self {
            Stored::Values => (stored != computed).then_some((stored, computed)),
            Stored::Nothing => None,
            Stored::ResultsOnly => (stored.wdl() != computed.wdl()).then(|| {
                (
                    Value::wdl_only(stored.wdl()),
                    Value::wdl_only(computed.wdl()),
                )
            }),
        }
    }
}

/// The first disagreement found in a sector, and how many there are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatches {
    /// Number of positions whose stored value disagrees with their successors.
    pub count: u64,
    /// One of them: index, stored value, value recomputed from successors.
    pub example: Option<(u64, Value, Value)>,
}

/// The position `(us, them)` of a sector with White to move, as an engine position.
///
/// # Errors
/// The engine's reason when the sets do not make a valid position (overlapping, or
/// more than nine pieces a side): a bug in whoever produced them, never a position
/// to stand in for.
pub fn to_position(
    rules: impl Into<Rules>,
    us: Bitboard,
    them: Bitboard,
) -> Result<Position, morris_engine::SetupError> {
    let rules: Rules = rules.into();
    let setup = Setup {
        pieces: [us, them],
        hand: [0, 0],
        side_to_move: Color::White,
    };
    Position::from_setup(&setup, rules)
}

/// Where the value of a successor is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The game is over: the side to move has lost.
    Lost,
    /// Entry `i` of the sector with the colours exchanged (a move without capture).
    Swapped(usize),
    /// Entry `i` of the sector a capture leads to.
    Capture(usize),
}

/// The successors of one position, located but not yet read: the first half of
/// [`value_from_successors`], kept apart so that the reads of one position can wait
/// while the next position's successors are located.
#[derive(Clone, Debug)]
pub struct Successors {
    /// The position is a finished game (its side to move is blocked).
    ended: bool,
    slots: [Lookup; MAX_MOVES],
    len: usize,
}

impl Default for Successors {
    fn default() -> Successors {
        Successors {
            ended: false,
            slots: [Lookup::Lost; MAX_MOVES],
            len: 0,
        }
    }
}

impl Successors {
    /// Locate the successors of `pos` with `locate` (the side to move's pieces first;
    /// it may start loading the entry), replacing what the buffer held.
    pub fn locate(&mut self, pos: &Position, locate: impl Fn(Bitboard, Bitboard) -> Lookup) {
        self.ended = pos.end().is_some();
        self.len = 0;
        if self.ended {
            return;
        }
        let moves = pos.legal_moves();
        for (slot, &m) in self.slots.iter_mut().zip(moves.iter()) {
            let next = pos.play_unchecked(m);
            *slot = if next.is_reduced(next.side_to_move()) {
                Lookup::Lost
            } else {
                locate(next.us(), next.them())
            };
        }
        self.len = moves.len();
    }

    /// The value of the position from its successors' values, read with `read`.
    pub fn value(&self, read: impl Fn(Lookup) -> Value) -> Value {
        if self.ended {
            // In a sector a finished game is a blocked side to move: lost now.
            return Value::decided(0);
        }
        // Distances in u32: a corrupt neighbour's value must not overflow.
        let (mut best_win, mut worst_loss, mut draw) = (None::<u32>, 0u32, false);
        for &slot in &self.slots[..self.len] {
            let v = match slot {
                Lookup::Lost => Value::decided(0),
                _ => read(slot),
            };
            match v.dtm().map(u32::from) {
                None => draw = true,
                Some(d) if d % 2 == 0 => best_win = Some(best_win.map_or(d + 1, |b| b.min(d + 1))),
                Some(d) => worst_loss = worst_loss.max(d + 1),
            }
        }
        // A distance beyond the encoding saturates: it then differs from anything stored.
        let decided = |d: u32| Value(u16::try_from(d + 1).unwrap_or(u16::MAX));
        match best_win {
            Some(d) => decided(d),
            None if draw => Value::DRAW,
            None => decided(worst_loss),
        }
    }
}

/// The value of a position computed from its successors. `locate` says where each
/// successor's value is stored (the side to move's pieces first; it may start loading
/// the entry); `read` reads it. All successors are located before any is read.
/// Finished games are looked up as such.
pub fn value_from_successors(
    pos: &Position,
    locate: impl Fn(Bitboard, Bitboard) -> Lookup,
    read: impl Fn(Lookup) -> Value,
) -> Value {
    let mut successors = Successors::default();
    successors.locate(pos, locate);
    successors.value(read)
}

/// Recompute every value of `sector` from its successors. `values(s)` gives the stored
/// values of a sector (the sector itself, its swapped sector (colours exchanged), and where captures lead). The
/// sectors read at random are copied into memory with huge pages first (as much
/// memory as they take on disk). `stored` says what the sector's own values hold.
///
/// # Errors
/// A sector that is needed but not supplied, or memory that cannot be had.
pub fn verify_sector<'a>(
    rules: impl Into<Rules>,
    sector: Sector,
    values: &dyn Fn(Sector) -> Option<&'a [u8]>,
    stored: Stored,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Mismatches, VerifyError> {
    recompute_sector(rules.into(), sector, values, stored, progress, None)
}

/// [`verify_sector`], writing each position's recomputed value (encoded as the raw
/// files store it) to `out` when given.
fn recompute_sector<'a>(
    rules: Rules,
    sector: Sector,
    values: &dyn Fn(Sector) -> Option<&'a [u8]>,
    stored: Stored,
    progress: &(dyn Fn(u64) + Sync),
    out: Option<&[AtomicU8]>,
) -> Result<Mismatches, VerifyError> {
    let missing = VerifyError::Missing;
    let own = values(sector).ok_or(missing(sector))?;
    // A successor's values must be the whole sector's: none (a file without values)
    // is a missing sector, another length a bug, never an index out of bounds.
    let copy = |s: Sector, v: &[u8]| {
        let size = SectorId::from(s).index(rules.board()).size();
        if v.len() as u64 != size {
            return Err(if v.is_empty() {
                missing(s)
            } else {
                VerifyError::Inconsistent(format!(
                    "sector {s} has {} entries, expected {size}",
                    v.len()
                ))
            });
        }
        ValueCopy::decode(v).map_err(|e| VerifyError::Memory(s, e))
    };
    let swapped = copy(
        sector.swapped(),
        values(sector.swapped()).ok_or(missing(sector.swapped()))?,
    )?;
    let capture = match sector.after_capture() {
        Some(t) => Some((t, copy(t, values(t).ok_or(missing(t))?)?)),
        None => None,
    };
    let swapped = swapped.values();
    let board = rules.board();
    let index = SectorId::from(sector).index(board);
    let swapped_index = SectorId::from(sector.swapped()).index(board);
    let capture_index = capture
        .as_ref()
        .map(|(t, v)| (SectorId::from(*t).index(board), v.values()));
    // Set when the index hands out something no sector holds: the check then fails
    // as a whole instead of counting made-up values.
    let impossible = std::sync::Mutex::new(None::<String>);
    let fail = |why: String| {
        let mut first = impossible.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert(why);
    };
    let locate = |us: Bitboard, them: Bitboard| -> Lookup {
        if (us.count() as u8, them.count() as u8) == (sector.them, sector.us) {
            let i = swapped_index.index(us, them) as usize;
            prefetch(swapped, i);
            Lookup::Swapped(i)
        } else {
            // A successor has one piece fewer on the side that did not move: it lies
            // in the sector captures lead to, which exists because the successor was
            // not reduced.
            match &capture_index {
                Some((ci, cv)) => {
                    debug_assert_eq!(
                        (ci.us(), ci.them()),
                        (us.count() as usize, them.count() as usize)
                    );
                    let i = ci.index(us, them) as usize;
                    prefetch(cv, i);
                    Lookup::Capture(i)
                }
                None => {
                    fail(format!(
                        "a capture from sector {sector} reached {}-{}, which is no sector",
                        us.count(),
                        them.count()
                    ));
                    Lookup::Lost
                }
            }
        }
    };
    let read = |slot: Lookup| -> Value {
        match (slot, &capture_index) {
            (Lookup::Swapped(i), _) => Value(swapped[i]),
            (Lookup::Capture(i), Some((_, cv))) => Value(cv[i]),
            (Lookup::Capture(_), None) => {
                fail(format!("sector {sector} has no capture sector to read"));
                Value::DRAW
            }
            (Lookup::Lost, _) => Value::decided(0),
        }
    };
    let count = AtomicU64::new(0);
    let example = std::sync::Mutex::new(None);
    let check = |i: u64, successors: &Successors| {
        let computed = successors.value(read);
        if let Some(out) = out {
            // A value no byte holds is also a mismatch, counted below.
            out[i as usize].store(encode_byte(computed).unwrap_or(0), Relaxed);
        }
        if stored == Stored::Nothing {
            return;
        }
        let ours = own.get(i as usize).map_or(Value::DRAW, |&b| decode_byte(b));
        if let Some((ours, theirs)) = stored.compare(ours, computed) {
            count.fetch_add(1, Relaxed);
            let mut ex = example.lock().unwrap_or_else(|e| e.into_inner());
            if ex.is_none() {
                *ex = Some((i, ours, theirs));
            }
        }
    };
    (0..index.blocks()).into_par_iter().for_each(|block| {
        // Pipelined one position deep: a position's successors are located (and
        // prefetched) before the previous position's are read.
        // The references are swapped, not the buffers (each holds kilobytes).
        let (mut first, mut second) = (Successors::default(), Successors::default());
        let (mut next, mut ready) = (&mut first, &mut second);
        let mut previous: Option<u64> = None;
        let mut n = 0;
        for (i, us, them) in index.block_positions(block) {
            let pos = match to_position(rules, us, them) {
                Ok(pos) => pos,
                Err(e) => {
                    fail(format!("entry {i} of sector {sector} is no position: {e}"));
                    return;
                }
            };
            next.locate(&pos, locate);
            if let Some(j) = previous {
                check(j, ready);
            }
            std::mem::swap(&mut next, &mut ready);
            previous = Some(i);
            n += 1;
        }
        if let Some(j) = previous {
            check(j, ready);
        }
        progress(n);
    });
    if let Some(why) = impossible.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(VerifyError::Inconsistent(why));
    }
    Ok(Mismatches {
        count: count.into_inner(),
        example: example.into_inner().unwrap_or_else(|e| e.into_inner()),
    })
}

/// Why a sector could not be verified.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// A sector that is needed is missing (or was found bad).
    #[error("sector {0} is missing or bad")]
    Missing(Sector),
    /// The index or the engine produced a state that cannot be: a bug, reported
    /// rather than checked around.
    #[error("internal inconsistency: {0}")]
    Inconsistent(String),
    /// The copy of a sector could not be allocated.
    #[error("cannot allocate memory for a copy of sector {0}: {1}")]
    Memory(Sector, std::io::Error),
    /// The distances of a sector that does not store them cannot be found: some of
    /// its results disagree with its successors'.
    #[error("the distances of sector {0} cannot be found from its successors: {1} of its results disagree with theirs")]
    Derived(SectorId, u64),
    /// The values of a sector found from its successors' do not give the counts its
    /// `.wdl` file (without values) records.
    #[error("the values of sector {0} found from its successors' do not give the counts its .wdl file records")]
    DerivedCounts(SectorId),
    /// A sector that placements reach is missing (or was found bad).
    #[error("sector {0} is missing or bad")]
    MissingSector(SectorId),
}

/// Recompute every value of placement sector `sector` from its successors and compare
/// with the stored ones. Independent of the placement solver: each successor is
/// played by the engine, its sector found from its own piece counts and hands (not
/// from the solver's successor table), a finished game valued by the engine's
/// [`Position::end`], and the stored entries read through their file encoding.
/// `values(s)` gives the checked entries of a sector (the sector itself and every
/// sector its placements reach); `stored` says what the sector's own values hold.
///
/// # Errors
/// A sector that is needed but not supplied, or a state that cannot be.
pub fn verify_placement<'a>(
    rules: impl Into<Rules>,
    sector: PlacementSector,
    values: &(dyn Fn(SectorId) -> Option<&'a [u8]> + Sync),
    stored: Stored,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Mismatches, VerifyError> {
    recompute_placement(rules.into(), sector, values, stored, progress, None)
}

/// [`verify_placement`], writing each position's recomputed value (encoded as the
/// raw files store it) to `out` when given.
fn recompute_placement<'a>(
    rules: Rules,
    sector: PlacementSector,
    values: &(dyn Fn(SectorId) -> Option<&'a [u8]> + Sync),
    stored: Stored,
    progress: &(dyn Fn(u64) + Sync),
    out: Option<&[AtomicU8]>,
) -> Result<Mismatches, VerifyError> {
    let own = values(sector.into()).ok_or(VerifyError::MissingSector(sector.into()))?;
    let index = SectorId::from(sector).index(rules.board());
    if stored != Stored::Nothing && own.len() as u64 != index.size() {
        return Err(VerifyError::Inconsistent(format!(
            "sector {sector} has {} entries, expected {}",
            own.len(),
            index.size()
        )));
    }
    let count = AtomicU64::new(0);
    let example = std::sync::Mutex::new(None);
    // Taken by the opponent's set first (the index of the swapped board numbers
    // the positions so), as the solver takes them: the successors of consecutive
    // positions then lie close together in their sectors, which matters when those
    // are read from files through the page cache; the stored values are read at
    // random instead, one a position.
    let order = SectorIndex::get(
        rules.board(),
        usize::from(sector.them),
        usize::from(sector.us),
    );
    const CHUNK: u64 = 1 << 14;
    order
        .pieces(CHUNK)
        .into_par_iter()
        .try_for_each(|(b, range)| {
            // The sectors this chunk's successors lie in, with their index (filled
            // through shared references, so that the located sets below may borrow
            // the indexes).
            type Seen<'a> = (SectorId, &'a [u8], Arc<SectorIndex>);
            let seen: [OnceCell<Seen<'a>>; 4] = Default::default();
            // The successors' side-to-move sets met in this chunk (the opponent's set,
            // less a captured piece), located once in their sector's index.
            let mut movers: Vec<(usize, Bitboard, UsSet<'_>)> = Vec::new();
            let mut lookup = |next: &Position| -> Result<Value, VerifyError> {
                let counts = (next.us().count() as u8, next.them().count() as u8);
                let id = if next.pieces_in_hand() {
                    PlacementSector::of(next).map(SectorId::Placement)
                } else {
                    Sector::new(counts.0, counts.1).map(SectorId::Movement)
                }
                .ok_or_else(|| {
                    VerifyError::Inconsistent(format!(
                        "a placement from sector {sector} reached a position of no sector"
                    ))
                })?;
                let k = seen
                    .iter()
                    .position(|c| c.get().is_none_or(|(t, _, _)| *t == id))
                    .ok_or_else(|| {
                        VerifyError::Inconsistent(format!(
                            "placements from sector {sector} reach more than {} sectors",
                            seen.len()
                        ))
                    })?;
                let (_, v, ix) = match seen[k].get() {
                    Some(entry) => entry,
                    None => {
                        let v = values(id).ok_or(VerifyError::MissingSector(id))?;
                        let ix = id.index(rules.board());
                        seen[k].get_or_init(|| (id, v, ix))
                    }
                };
                let mover = match movers.iter().find(|(s, u, _)| *s == k && *u == next.us()) {
                    Some(&(_, _, m)) => m,
                    None => {
                        let m = ix.with_us(next.us());
                        movers.push((k, next.us(), m));
                        m
                    }
                };
                let i = mover.index(next.them());
                usize::try_from(i)
                    .ok()
                    .and_then(|i| v.get(i).map(|&b| decode_byte(b)))
                    .ok_or_else(|| VerifyError::Inconsistent(format!("entry {i} lies beyond {id}")))
            };
            // The chunk's positions, their entries and stored values first, in loops of
            // independent loads (the entries lie at random in the sector).
            let boards: Vec<(Bitboard, Bitboard, usize)> = range
                .clone()
                .map(|j| {
                    let (them, us) = order.block_position(b, j);
                    (us, them, index.index(us, them) as usize)
                })
                .collect();
            let own_values: Vec<Value> = boards
                .iter()
                .map(|&(_, _, i)| own.get(i).map(|&b| decode_byte(b)).unwrap_or_default())
                .collect();
            for (&(us, them, i), &own_value) in boards.iter().zip(&own_values) {
                let setup = Setup {
                    pieces: [us, them],
                    hand: [sector.us_hand, sector.them_hand],
                    side_to_move: Color::White,
                };
                let pos = Position::from_setup(&setup, rules).map_err(|e| {
                    VerifyError::Inconsistent(format!(
                        "entry {i} of sector {sector} is no position: {e}"
                    ))
                })?;
                let computed = match pos.end() {
                    Some(end) => Some(Value::finished(&pos, end)),
                    None => {
                        let mut children = Vec::with_capacity(MAX_MOVES);
                        for &m in pos.legal_moves().iter() {
                            let next = pos.play_unchecked(m);
                            children.push(match next.end() {
                                Some(end) => Value::finished(&next, end),
                                None => lookup(&next)?,
                            });
                        }
                        Value::best_of(children)
                    }
                };
                // A distance beyond the encoding is a mismatch, shown as the undefined value.
                let computed = computed.unwrap_or(Value(0x8000));
                if let Some(out) = out {
                    // A value no byte holds is also a mismatch, counted below.
                    out[i].store(encode_byte(computed).unwrap_or(0), Relaxed);
                }
                if let Some((ours, theirs)) = stored.compare(own_value, computed) {
                    count.fetch_add(1, Relaxed);
                    let mut ex = example.lock().unwrap_or_else(|e| e.into_inner());
                    if ex.is_none() {
                        *ex = Some((i as u64, ours, theirs));
                    }
                }
            }
            progress(range.end - range.start);
            Ok(())
        })?;
    Ok(Mismatches {
        count: count.into_inner(),
        example: example.into_inner().unwrap_or_else(|e| e.into_inner()),
    })
}

/// The sectors whose files the full check of `sector` reads: the sector, its swapped
/// sector and the sector its captures reach; for a placement sector, the sector and
/// the sectors its placements reach under `rules`.
pub fn reads(rules: Rules, sector: SectorId) -> Vec<SectorId> {
    match sector {
        SectorId::Movement(m) => [Some(m), Some(m.swapped()), m.after_capture()]
            .into_iter()
            .flatten()
            .map(SectorId::Movement)
            .collect(),
        SectorId::Placement(p) => std::iter::once(sector)
            .chain(p.successors(rules).into_iter().map(SectorId::from))
            .collect(),
    }
}

/// Where the values of a sector are read from for a full check.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// Its raw file.
    Raw(&'a SectorFile),
    /// A compact file: the values of a `.dtm` file, the results alone of a `.wdl`
    /// file.
    Compact(&'a CompactFile),
}

impl<'a> Source<'a> {
    /// The sector's codes as a raw file stores them (a `.wdl` file's with stand-in
    /// distances), checked; none from a `.wdl` file without values.
    ///
    /// # Errors
    /// A damaged or unreadable file, named.
    pub fn codes(self) -> Result<Cow<'a, [u8]>, FileError> {
        match self {
            Source::Raw(f) => f.entries().map(Cow::Borrowed),
            Source::Compact(f) if f.is_derived() => Ok(Cow::Owned(Vec::new())),
            Source::Compact(f) => f.raw_codes().map(Cow::Owned),
        }
    }

    /// What the codes hold.
    pub fn stored(self) -> Stored {
        match self {
            Source::Compact(f) if f.is_derived() => Stored::Nothing,
            Source::Compact(f) if f.header().kind == Kind::Wdl => Stored::ResultsOnly,
            _ => Stored::Values,
        }
    }
}

/// Recompute the values of `sector` that `own` holds from its successors, each read
/// from the file `source` gives for its sector (see [`reads`]); a sector without a
/// file, or whose file cannot be read, is missing to the check.
///
/// # Errors
/// As [`verify_sector`] and [`verify_placement`].
pub fn check_sector<'a>(
    rules: impl Into<Rules>,
    sector: SectorId,
    own: Source<'a>,
    source: impl Fn(SectorId) -> Option<Source<'a>>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Mismatches, VerifyError> {
    let rules: Rules = rules.into();
    if own.stored() == Stored::Nothing {
        // Nothing stored to compare: its values are found, and checked against the
        // counts of its header.
        derive_with_progress(rules, sector, own, &source, progress)?;
        return Ok(Mismatches {
            count: 0,
            example: None,
        });
    }
    let mut codes: HashMap<SectorId, Cow<'a, [u8]>> = HashMap::new();
    for s in reads(rules, sector) {
        let Some(file) = (if s == sector { Some(own) } else { source(s) }) else {
            continue;
        };
        let derived = s != sector
            && file.stored() != Stored::Values
            && s.successors(rules)
                .into_iter()
                .all(|t| source(t).is_some_and(|f| f.stored() == Stored::Values));
        if derived {
            codes.insert(s, Cow::Owned(derive_codes(rules, s, file, &source)?));
        } else if s == sector || file.stored() != Stored::Nothing {
            // (A successor's file without values gives nothing to read: missing.)
            if let Ok(c) = file.codes() {
                codes.insert(s, c);
            }
        }
    }
    recompute(rules, sector, &codes, own.stored(), progress, None)
}

/// Recompute `sector` from `codes` (its own and its successors').
fn recompute(
    rules: Rules,
    sector: SectorId,
    codes: &HashMap<SectorId, Cow<'_, [u8]>>,
    stored: Stored,
    progress: &(dyn Fn(u64) + Sync),
    out: Option<&[AtomicU8]>,
) -> Result<Mismatches, VerifyError> {
    let entries = |s: SectorId| codes.get(&s).map(|c| &c[..]);
    let lookup = |s| entries(SectorId::Movement(s));
    match sector {
        SectorId::Movement(m) => recompute_sector(rules, m, &lookup, stored, progress, out),
        SectorId::Placement(p) => recompute_placement(rules, p, &entries, stored, progress, out),
    }
}

/// The values of a sector stored without distances (`own`, its `.wdl` file, with
/// or without values) with the distances its successors' values give them, as a raw
/// file would hold them; every successor is read from the file `source` gives for
/// its sector, which must hold distances. For a `.wdl` file without values, the
/// values found must give the counts of its header.
///
/// # Errors
/// [`VerifyError::Derived`] when a result of `own` disagrees with its successors'
/// (its own check names the position), [`VerifyError::DerivedCounts`] when the counts
/// do not match, or as [`check_sector`].
pub fn derive_codes<'a>(
    rules: impl Into<Rules>,
    sector: SectorId,
    own: Source<'a>,
    source: impl Fn(SectorId) -> Option<Source<'a>>,
) -> Result<Vec<u8>, VerifyError> {
    derive_with_progress(rules.into(), sector, own, &source, &|_| {})
}

fn derive_with_progress<'a>(
    rules: Rules,
    sector: SectorId,
    own: Source<'a>,
    source: &dyn Fn(SectorId) -> Option<Source<'a>>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Vec<u8>, VerifyError> {
    let mut codes: HashMap<SectorId, Cow<'a, [u8]>> = HashMap::new();
    for s in reads(rules, sector) {
        let file = if s == sector { Some(own) } else { source(s) };
        let file = file.filter(|f| s == sector || f.stored() != Stored::Nothing);
        if let Some(c) = file.and_then(|f| f.codes().ok()) {
            codes.insert(s, c);
        }
    }
    let size = usize::try_from(sector.size(rules.board()))
        .map_err(|_| VerifyError::Inconsistent(format!("sector {sector} is too large")))?;
    let out: Vec<AtomicU8> = std::iter::repeat_with(|| AtomicU8::new(0))
        .take(size)
        .collect();
    let m = recompute(rules, sector, &codes, own.stored(), progress, Some(&out))?;
    if m.count > 0 {
        return Err(VerifyError::Derived(sector, m.count));
    }
    let codes: Vec<u8> = out.into_iter().map(AtomicU8::into_inner).collect();
    if let Source::Compact(f) = own {
        if f.is_derived() {
            let mut found = SectorStats::default();
            for &c in &codes {
                found.add(decode_byte(c));
            }
            let h = &f.header().stats;
            let counts =
                |s: &SectorStats| (s.wins, s.draws, s.losses, s.longest_win, s.longest_loss);
            if counts(&found) != counts(h) {
                return Err(VerifyError::DerivedCounts(sector));
            }
        }
    }
    Ok(codes)
}

/// Check every value of compact file `file` against the raw file of the same sector:
/// the full value for a `.dtm` file, win, draw or loss for a `.wdl` file; and the
/// header's counts and longest distances against the raw file's.
///
/// # Errors
/// A [`FileError`] naming this file: [`Problem::Differs`] for the first entry
/// that differs, [`Problem::CountsDiffer`] for the header, each naming the raw
/// file; or the error of whichever file is damaged.
pub fn compare(file: &CompactFile, raw: &SectorFile) -> Result<(), FileError> {
    compare_codes(file, raw.path(), &raw.header().stats, raw.entries()?, true)
}

/// Check every value of compact file `file` against another compact file of the same
/// sector, as [`compare`] does against a raw file: win, draw or loss when either file
/// is a `.wdl` file, the full value when both are `.dtm` files.
///
/// # Errors
/// As [`compare`], naming `other` where it differs.
pub fn compare_compact(file: &CompactFile, other: &CompactFile) -> Result<(), FileError> {
    let full = other.header().kind == Kind::Dtm;
    let codes = other.raw_codes()?;
    compare_codes(file, other.path(), &other.header().stats, &codes, full)
}

/// Compare `file` with the codes of `other` (encoding 2; with distances when `full`).
fn compare_codes(
    file: &CompactFile,
    other: &Path,
    stats: &SectorStats,
    codes: &[u8],
    full: bool,
) -> Result<(), FileError> {
    if codes.len() as u64 != file.header().entries {
        return Err(error(
            file,
            Problem::Entries {
                sector: file.header().sector,
                found: file.header().entries,
                expected: codes.len() as u64,
            },
        ));
    }
    // The counts and longest distances too: a `.wdl` file's longest win and loss
    // bound the scores a search gives its values, and nothing else checks them.
    if file.header().stats != *stats {
        return Err(error(
            file,
            Problem::CountsDiffer {
                other: other.to_path_buf(),
            },
        ));
    }
    // What is compared: the stored code, or its result alone.
    let kind = if full { file.header().kind } else { Kind::Wdl };
    let ours = |c: u8| match (file.header().kind, kind) {
        (Kind::Dtm, Kind::Wdl) => Kind::Wdl.map(c),
        _ => c,
    };
    file.for_each_block(|first, block| {
        let start = usize::try_from(first).unwrap_or(usize::MAX);
        let theirs = &codes[start..start + block.len()];
        match block
            .iter()
            .zip(theirs)
            .position(|(&c, &raw)| ours(c) != kind.map(raw))
        {
            None => Ok(()),
            Some(i) => Err(error(
                file,
                Problem::Differs {
                    index: first + i as u64,
                    other: other.to_path_buf(),
                },
            )),
        }
    })
}

fn error(file: &CompactFile, problem: Problem) -> FileError {
    FileError::new(file.path(), problem)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::solve_pair;
    use crate::pack::pack_sector;
    use crate::pack::tests::{open, packed_3_3};
    use crate::progress::Silent;
    use crate::write::write_sector;
    use morris_tablebase::Wdl;

    /// Every placement value of the games of up to three pieces a side, as the
    /// placement solver wrote them in one byte each, agrees with its successors; a
    /// changed value does not.
    #[test]
    fn placement_values_agree_with_their_successors() {
        for rules in [Rules::STANDARD, Rules::NO_FLYING] {
            let three = Sector::new(3, 3).expect("a sector");
            let (_, movement) = solve_pair(rules, three, &|_| None, &Silent)
                .expect("solved")
                .remove(0);
            let lookup = |s: Sector| (s == three).then_some(movement.as_slice());
            let game = crate::placement::solve_game(rules, 3, &lookup, &Silent).expect("solved");
            let bytes: Vec<(PlacementSector, Vec<u8>)> =
                game.iter().map(|(s, v)| (*s, codes(v))).collect();
            let movement = codes(&movement);
            let check = |bytes: &[(PlacementSector, Vec<u8>)], sector: PlacementSector| {
                let values = |id: SectorId| match id {
                    SectorId::Movement(m) => (m == three).then_some(movement.as_slice()),
                    SectorId::Placement(p) => bytes
                        .iter()
                        .find(|(t, _)| *t == p)
                        .map(|(_, b)| b.as_slice()),
                };
                verify_placement(rules, sector, &values, Stored::Values, &|_| {}).expect("verified")
            };
            for (sector, _) in &bytes {
                let m = check(&bytes, *sector);
                assert_eq!(m.count, 0, "{rules} {sector}: {m:?}");
            }
            // A changed entry of the largest sector is found, and only it.
            let k = (0..bytes.len())
                .max_by_key(|&k| bytes[k].1.len())
                .expect("sectors");
            let mut damaged = bytes.clone();
            let entry = &mut damaged[k].1[100];
            *entry = if *entry == 0 { 2 } else { 0 };
            let m = check(&damaged, damaged[k].0);
            assert_eq!(m.count, 1, "{rules}: {m:?}");
            assert_eq!(m.example.map(|e| e.0), Some(100));
            // A missing successor is named.
            let none = |_: SectorId| None;
            assert!(matches!(
                verify_placement(rules, bytes[k].0, &none, Stored::Values, &|_| {}),
                Err(VerifyError::MissingSector(_))
            ));
        }
    }

    /// The codes of values as a file stores them.
    fn codes(values: &[u16]) -> Vec<u8> {
        let codes = values
            .iter()
            .map(|&raw| morris_tablebase::file::encode_byte(Value(raw)));
        codes.collect::<Option<Vec<u8>>>().expect("fits a byte")
    }

    /// Sectors up to 4 against 3 of `rules`, solved by the generator, as stored.
    fn solved(rules: Rules) -> Vec<(Sector, Vec<u8>)> {
        let mut all: Vec<(Sector, Vec<u16>)> = Vec::new();
        for (us, them) in [(3, 3), (3, 4)] {
            let sector = Sector::new(us, them).expect("a sector");
            let lookup = |s: Sector| all.iter().find(|(t, _)| *t == s).map(|(_, v)| v.as_slice());
            let pair = solve_pair(rules, sector, &lookup, &Silent).expect("solved");
            all.extend(pair);
        }
        all.iter().map(|(s, v)| (*s, codes(v))).collect()
    }

    fn check(rules: Rules, all: &[(Sector, Vec<u8>)], sector: Sector) -> Mismatches {
        let lookup = |s: Sector| all.iter().find(|(t, _)| *t == s).map(|(_, v)| v.as_slice());
        verify_sector(rules, sector, &lookup, Stored::Values, &|_| {}).expect("all sectors present")
    }

    #[test]
    fn generated_values_agree_and_a_changed_value_is_found() {
        for rules in [Rules::STANDARD, Rules::NO_FLYING] {
            let mut all = solved(rules);
            for (sector, _) in &all {
                let m = check(rules, &all, *sector);
                assert_eq!(
                    m,
                    Mismatches {
                        count: 0,
                        example: None
                    },
                    "{rules} {sector}"
                );
            }
            // Change one value of 4-3, a win in 1 into a win in 3: that position's
            // successors still say 1, and no other position of 4-3 reads it (its
            // moves lead to 3-4).
            let k = all
                .iter()
                .position(|(s, _)| *s == Sector::new(4, 3).expect("a sector"));
            let k = k.expect("4-3 solved");
            let i = all[k].1.iter().position(|&v| v == 2).expect("a win in 1");
            all[k].1[i] = 4;
            let m = check(rules, &all, all[k].0);
            assert_eq!(m.count, 1, "{rules}");
            assert_eq!(m.example, Some((i as u64, Value(4), Value(2))), "{rules}");
        }
    }

    /// The codes of a `.wdl` file read in raw form: results with a stand-in distance.
    fn results_only(codes: &[u8]) -> Vec<u8> {
        codes
            .iter()
            .map(|&c| match decode_byte(c).wdl() {
                Wdl::Loss => 1,
                Wdl::Draw => 0,
                Wdl::Win => 2,
            })
            .collect()
    }

    /// Sectors stored without distances agree with their successors by their results,
    /// whether the successors have distances or not; a changed result is found, and
    /// shown without distances; and such codes do not pass as values.
    #[test]
    fn results_alone_are_checked_from_their_successors() {
        let rules = Rules::STANDARD;
        let mut all = solved(rules);
        let k = all
            .iter()
            .position(|(s, _)| *s == Sector::new(3, 4).expect("a sector"))
            .expect("3-4 solved");
        let sector = all[k].0;
        let results = results_only(&all[k].1);
        let run = |all: &[(Sector, Vec<u8>)], stored| {
            let lookup = |s: Sector| all.iter().find(|(t, _)| *t == s).map(|(_, v)| v.as_slice());
            verify_sector(rules, sector, &lookup, stored, &|_| {}).expect("present")
        };
        // 3-4 alone without distances, then every sector.
        all[k].1 = results.clone();
        assert_eq!(run(&all, Stored::ResultsOnly).count, 0);
        assert!(
            run(&all, Stored::Values).count > 0,
            "stand-ins are no values"
        );
        let every: Vec<(Sector, Vec<u8>)> =
            all.iter().map(|(s, v)| (*s, results_only(v))).collect();
        assert_eq!(run(&every, Stored::ResultsOnly).count, 0);
        let i = results.iter().position(|&c| c == 2).expect("a win");
        all[k].1[i] = 1;
        let m = run(&all, Stored::ResultsOnly);
        assert_eq!(m.count, 1);
        assert_eq!(
            m.example,
            Some((
                i as u64,
                Value::wdl_only(Wdl::Loss),
                Value::wdl_only(Wdl::Win)
            ))
        );
    }

    /// The same for a placement sector, read beside movement sectors with distances.
    #[test]
    fn placement_results_alone_are_checked_from_their_successors() {
        let rules = Rules::NO_FLYING;
        let three = Sector::new(3, 3).expect("a sector");
        let (_, movement) = solve_pair(rules, three, &|_| None, &Silent)
            .expect("solved")
            .remove(0);
        let lookup = |s: Sector| (s == three).then_some(movement.as_slice());
        let game = crate::placement::solve_game(rules, 3, &lookup, &Silent).expect("solved");
        let movement = codes(&movement);
        let bytes: Vec<(PlacementSector, Vec<u8>)> = game
            .iter()
            .map(|(s, v)| (*s, results_only(&codes(v))))
            .collect();
        let check = |bytes: &[(PlacementSector, Vec<u8>)], sector| {
            let values = |id: SectorId| match id {
                SectorId::Movement(m) => (m == three).then_some(movement.as_slice()),
                SectorId::Placement(p) => bytes
                    .iter()
                    .find(|(t, _)| *t == p)
                    .map(|(_, b)| b.as_slice()),
            };
            verify_placement(rules, sector, &values, Stored::ResultsOnly, &|_| {})
                .expect("verified")
        };
        for (sector, _) in &bytes {
            assert_eq!(check(&bytes, *sector).count, 0, "{sector}");
        }
        let k = (0..bytes.len())
            .max_by_key(|&k| bytes[k].1.len())
            .expect("sectors");
        let mut changed = bytes.clone();
        let i = changed[k].1.iter().position(|&c| c != 0).expect("decided");
        changed[k].1[i] = if changed[k].1[i] == 1 { 2 } else { 1 };
        let m = check(&changed, changed[k].0);
        assert_eq!(m.count, 1, "{m:?}");
        assert_eq!(m.example.map(|e| e.0), Some(i as u64));
    }

    #[test]
    fn sets_that_make_no_position_are_an_error() {
        let a = Bitboard::from_bits_truncate(0b111);
        assert!(to_position(Rules::STANDARD, a, Bitboard::from_bits_truncate(0b111_000)).is_ok());
        assert!(to_position(Rules::STANDARD, a, Bitboard::from_bits_truncate(0b1_100)).is_err());
        assert!(to_position(
            Rules::STANDARD,
            Bitboard::from_bits_truncate(0x3FF),
            Bitboard::from_bits_truncate(0)
        )
        .is_err());
    }

    #[test]
    fn a_missing_sector_is_named() {
        let all = solved(Rules::STANDARD);
        let three = Sector::new(3, 3).expect("a sector");
        let without: Vec<_> = all.into_iter().filter(|(s, _)| *s != three).collect();
        // Captures from 3-4 leave 3 against 3, given as `three_three`: absent, empty
        // (a file that holds no values) or of the wrong length. It is missing in the
        // first two cases, refused in the third, and never read out of bounds.
        let check = |three_three: Option<&[u8]>| {
            let lookup = |s: Sector| {
                if s == three {
                    three_three
                } else {
                    without
                        .iter()
                        .find(|(t, _)| *t == s)
                        .map(|(_, v)| v.as_slice())
                }
            };
            let four = Sector::new(3, 4).expect("a sector");
            verify_sector(Rules::STANDARD, four, &lookup, Stored::Values, &|_| {})
        };
        assert!(matches!(check(None), Err(VerifyError::Missing(s)) if s == three));
        assert!(matches!(check(Some(&[])), Err(VerifyError::Missing(s)) if s == three));
        let err = check(Some(&[0u8; 7]));
        assert!(matches!(err, Err(VerifyError::Inconsistent(_))), "{err:?}");
    }

    /// The codes in raw form: a `.dtm` file's as the raw file stores them, a `.wdl`
    /// file's standing for the same results; and a file compared with another file of
    /// its sector names that file where they differ.
    #[test]
    fn raw_codes_and_comparisons_between_compact_files() {
        let (dir, raw, values) = packed_3_3();
        let wdl = open(dir.path(), Kind::Wdl, 0);
        let dtm = open(dir.path(), Kind::Dtm, 0);
        assert_eq!(dtm.raw_codes().expect("good"), raw.entries().expect("good"));
        let stand_ins = wdl.raw_codes().expect("good");
        assert_eq!(stand_ins.len(), values.len());
        for (&c, &v) in stand_ins.iter().zip(&values) {
            assert_eq!(decode_byte(c).wdl(), Value(v).wdl());
        }
        compare_compact(&wdl, &dtm).expect("the same results");
        compare_compact(&dtm, &wdl).expect("the same results");
        compare_compact(&dtm, &dtm).expect("the same values");

        // Packed from values with one win made longer: same counts, another value.
        let other = tempfile::tempdir().expect("a temporary directory");
        let three = Sector::new(3, 3).expect("a sector");
        let mut changed = values.clone();
        let i = changed.iter().position(|&v| v == 2).expect("a win in 1");
        changed[i] = 4;
        write_sector(other.path(), Rules::STANDARD, three, &changed).expect("written");
        let path = other.path().join("standard-3-3.tb");
        let changed_raw = SectorFile::open(&path, Rules::STANDARD, three).expect("opens");
        pack_sector(&changed_raw, other.path(), Kind::Dtm, 3).expect("packed");
        let changed_dtm = open(other.path(), Kind::Dtm, 0);
        let e = compare(&dtm, &changed_raw).expect_err("differs");
        assert!(
            matches!(&e.problem, Problem::Differs { index, other } if *index == i as u64 && *other == path),
            "{e}"
        );
        assert!(e
            .to_string()
            .contains(&format!("entry {i} differs from {}", path.display())));
        let e = compare_compact(&changed_dtm, &dtm).expect_err("differs");
        assert!(
            matches!(&e.problem, Problem::Differs { index, other } if *index == i as u64 && other == dtm.path()),
            "{e}"
        );
        // Results alone agree.
        compare_compact(&wdl, &changed_dtm).expect("the same results");
        // A win made a loss changes the counts: the header differs first.
        let mut lost = values.clone();
        lost[i] = 1;
        write_sector(other.path(), Rules::STANDARD, three, &lost).expect("written");
        let lost_raw = SectorFile::open(&path, Rules::STANDARD, three).expect("opens");
        let e = compare(&wdl, &lost_raw).expect_err("differs");
        assert!(matches!(e.problem, Problem::CountsDiffer { .. }), "{e}");
    }
}
