//! Independent check of stored values: every position's value is recomputed from the
//! values of its successors with the engine's own move generator (not the
//! generator's unmove code or counters) and compared with what is stored.
//!
//! Local consistency is enough for correctness: a win must have a successor lost in
//! one ply less, a loss only won successors and the largest DTM plus one, a draw no lost
//! successor and some drawn one. Wins and losses then form chains of strictly
//! decreasing DTM down to finished games, and no drawn position hides a forced result.

use crate::index::SectorIndex;
use crate::sector::{Sector, Value};
use morris_engine::{Bitboard, Color, Position, Setup, Variant};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// The first disagreement found in a sector, and how many there are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatches {
    /// Number of positions whose stored value disagrees with their successors.
    pub count: u64,
    /// One of them: index, stored value, value recomputed from successors.
    pub example: Option<(u64, Value, Value)>,
}

/// The position `(us, them)` of a sector with White to move, as an engine position.
pub fn to_position(variant: Variant, us: Bitboard, them: Bitboard) -> Position {
    let setup = Setup {
        pieces: [us, them],
        hand: [0, 0],
        side_to_move: Color::White,
    };
    // Disjoint sets of at most nine pieces each always make a valid position.
    Position::from_setup(&setup, variant).unwrap_or_else(|_| Position::start(variant))
}

/// The value of a position computed from its successors, each looked up with `probe`
/// (the side to move's pieces first). Finished games are looked up as such.
pub fn value_from_successors(pos: &Position, probe: &dyn Fn(Bitboard, Bitboard) -> Value) -> Value {
    if pos.end().is_some() {
        // In a sector a finished game is a blocked side to move: lost now.
        return Value::decided(0);
    }
    // Distances in u32: a corrupt neighbour's value must not overflow.
    let (mut best_win, mut worst_loss, mut draw) = (None::<u32>, 0u32, false);
    for &m in pos.legal_moves().iter() {
        let next = pos.play_unchecked(m);
        let v = if next.is_reduced(next.side_to_move()) {
            Value::decided(0)
        } else {
            probe(next.us(), next.them())
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

/// Recompute every value of `sector` from its successors. `values(s)` gives the stored
/// values of a sector (the sector itself, its mirror, and where captures lead).
pub fn verify_sector<'a>(
    variant: Variant,
    sector: Sector,
    values: &dyn Fn(Sector) -> Option<&'a [u16]>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<Mismatches, Sector> {
    let own = values(sector).ok_or(sector)?;
    let mirror = values(sector.mirror()).ok_or(sector.mirror())?;
    let capture = match sector.after_capture() {
        Some(t) => Some((t, values(t).ok_or(t)?)),
        None => None,
    };
    let index = SectorIndex::get(sector.us as usize, sector.them as usize);
    let mirror_index = SectorIndex::get(sector.them as usize, sector.us as usize);
    let capture_index = capture.map(|(t, v)| (SectorIndex::get(t.us as usize, t.them as usize), v));
    let probe = |us: Bitboard, them: Bitboard| -> Value {
        let (u, t) = (us.count() as u8, them.count() as u8);
        if (u, t) == (sector.them, sector.us) {
            Value(mirror[mirror_index.index(us, them) as usize])
        } else if let Some((ci, cv)) = &capture_index {
            debug_assert_eq!((ci.us(), ci.them()), (u as usize, t as usize));
            Value(cv[ci.index(us, them) as usize])
        } else {
            Value::DRAW
        }
    };
    let count = AtomicU64::new(0);
    let example = std::sync::Mutex::new(None);
    (0..index.blocks()).into_par_iter().for_each(|b| {
        let mut n = 0;
        for (i, us, them) in index.block_positions(b) {
            let stored = Value(own[i as usize]);
            let computed = value_from_successors(&to_position(variant, us, them), &probe);
            if stored != computed {
                count.fetch_add(1, Relaxed);
                let mut ex = example.lock().unwrap_or_else(|e| e.into_inner());
                if ex.is_none() {
                    *ex = Some((i, stored, computed));
                }
            }
            n += 1;
        }
        progress(n);
    });
    Ok(Mismatches {
        count: count.into_inner(),
        example: example.into_inner().unwrap_or_else(|e| e.into_inner()),
    })
}
