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
//! joins when one move reaches it, one of the opponent when every move does (a
//! counter of moves left). Positions join in breadth-first order, so each one's
//! distance (plies to the exit) is the least `P` can force and the most the opponent
//! can delay. The same for the opponent and its thresholds above its own stay class;
//! the two attractors are disjoint, and what neither reaches stays at the pair's stay
//! class. Each threshold's sweep touches only what joins: the whole pair costs one
//! pass over its moves per side, plus one per threshold over the exits.
//!
//! **A placement sector** is acyclic: a drawn position's class is the best negated
//! class of its drawn successors, read from the sectors placed after it (placement
//! sectors with fewer pieces in hand, and the movement sectors where placing ends).
//!
//! [`verify_classes`] checks a sector's classes by a separate path: each drawn
//! position's class and distance from its successors' alone (the best successor's
//! class; for the side ahead of its stay class one more than the least distance
//! among the successors that keep its class, for the side behind one more than the
//! most), which the distances make a complete check: no cycle of positions can claim
//! an exit that no move reaches.

use crate::write::write_safely;
use morris_engine::{notation, Position, Variant};
use morris_tablebase::classes::{self, Class, ClassFile, DECIDED};
use morris_tablebase::file::Problem;
use morris_tablebase::{
    FileError, PlacementSector, Sector, SectorId, SectorIndex, SectorStats, Tablebase, Wdl,
};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;
use thiserror::Error;
use xxhash_rust::xxh3::xxh3_64;

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
    /// The values contradict themselves (a draw without a drawing move).
    #[error("sector {sector}: {what}")]
    Inconsistent {
        /// The sector.
        sector: SectorId,
        /// What was found.
        what: String,
    },
}

/// Classes of the sectors built or read so far.
#[derive(Default)]
pub struct Store {
    sectors: HashMap<SectorId, Arc<[u16]>>,
}

impl Store {
    /// The class entries of a sector, if known.
    pub fn get(&self, sector: SectorId) -> Option<&Arc<[u16]>> {
        self.sectors.get(&sector)
    }

    /// Keep a sector's entries.
    pub fn insert(&mut self, sector: SectorId, entries: Arc<[u16]>) {
        self.sectors.insert(sector, entries);
    }

    /// The class of a drawn position (its sector must be stored).
    fn class_of(&self, pos: &Position, from: SectorId) -> Result<Class, ClassError> {
        let sector = Tablebase::sector_id_of(pos).ok_or_else(|| ClassError::Inconsistent {
            sector: from,
            what: "a move leads to a position of no sector".into(),
        })?;
        let entries = self.get(sector).ok_or(ClassError::MissingClasses(sector))?;
        let (us, them) = sector.board();
        let index =
            SectorIndex::get(usize::from(us), usize::from(them)).index(pos.us(), pos.them());
        let entry = usize::try_from(index)
            .ok()
            .and_then(|i| entries.get(i).copied());
        entry
            .and_then(Class::decode)
            .ok_or_else(|| ClassError::Inconsistent {
                sector: from,
                what: format!("a drawn successor in sector {sector} has no class"),
            })
    }
}

/// The value of a position from the tables, or the error naming the missing sector.
fn is_draw(tb: &Tablebase, pos: &Position) -> Result<bool, ClassError> {
    if pos.end().is_some() {
        return Ok(false);
    }
    match tb.value(pos)? {
        Some(v) => Ok(v.wdl() == Wdl::Draw),
        None => Err(match Tablebase::sector_id_of(pos) {
            Some(s) => ClassError::MissingValues(s),
            None => ClassError::NoSector(notation::setup_to_string(&pos.to_setup())),
        }),
    }
}

/// The header counts of a sector's values.
fn stats(tb: &Tablebase, variant: Variant, sector: SectorId) -> Result<SectorStats, ClassError> {
    if let Some(f) = tb.file(variant, sector) {
        return Ok(f.header().stats);
    }
    tb.compact(variant, sector)
        .and_then(|c| c.answering())
        .map(|f| f.header().stats)
        .ok_or(ClassError::MissingValues(sector))
}

/// The checksum field of a sector's value file (raw, else compact), which a class
/// file records.
fn values_checksum(tb: &Tablebase, variant: Variant, sector: SectorId) -> Result<u64, ClassError> {
    if let Some(f) = tb.file(variant, sector) {
        return Ok(f.header().checksum);
    }
    tb.compact(variant, sector)
        .and_then(|c| c.answering())
        .and_then(|f| f.header().source)
        .ok_or(ClassError::MissingValues(sector))
}

/// The stay class of a movement sector (for its side to move).
pub fn stay_of(tb: &Tablebase, variant: Variant, sector: Sector) -> Result<i8, ClassError> {
    let own = stats(tb, variant, sector.into())?;
    let swapped = stats(tb, variant, sector.swapped().into())?;
    Ok(classes::stay_class(&own, &swapped))
}

/// The position of board `(us, them)` of a sector ([`SectorId::setup`]).
fn entry_position(
    variant: Variant,
    sector: SectorId,
    us: morris_engine::Bitboard,
    them: morris_engine::Bitboard,
) -> Position {
    Position::from_setup(&sector.setup(us, them), variant).expect("an index yields valid positions")
}

/// The drawn successors of a drawn position, each as where it lies: inside the pair
/// (node) or an exit worth `payoff` (for the mover).
struct Moves {
    inside: Vec<u32>,
    exits: Vec<i8>,
}

/// The pair's graph of drawn positions: node `side * n + i` is entry `i` of the pair's
/// sector `side` (0 the sector asked for, 1 its swapped one; for a sector of equal
/// counts both are the same sector, seen by either player).
struct Graph {
    n: usize,
    drawn: Vec<bool>,
    /// Forward moves inside the pair, per node (CSR).
    start: Vec<u32>,
    inside: Vec<u32>,
    /// Exit payoffs per node (CSR), for the node's mover, distinct.
    exit_start: Vec<u32>,
    exits: Vec<i8>,
}

/// The other sector of a pair, as moves without capture reach it: the sector, its
/// index, and the first node of its side in the pair's graph.
struct Other<'a> {
    sector: Sector,
    index: &'a SectorIndex,
    first: usize,
}

fn successors_of(
    tb: &Tablebase,
    store: &Store,
    pos: &Position,
    sector: SectorId,
    other: &Other<'_>,
) -> Result<Moves, ClassError> {
    let mut moves = Moves {
        inside: Vec::new(),
        exits: Vec::new(),
    };
    for &m in pos.legal_moves().iter() {
        let next = pos.play_unchecked(m);
        if next.is_reduced(next.side_to_move()) || !is_draw(tb, &next)? {
            continue;
        }
        let counts = (next.us().count() as u8, next.them().count() as u8);
        if counts == (other.sector.us, other.sector.them) {
            let j = other.index.index(next.us(), next.them()) as usize;
            moves.inside.push((other.first + j) as u32);
        } else {
            moves.exits.push(-store.class_of(&next, sector)?.class);
        }
    }
    moves.inside.sort_unstable();
    moves.inside.dedup();
    moves.exits.sort_unstable();
    moves.exits.dedup();
    Ok(moves)
}

impl Graph {
    fn build(
        tb: &Tablebase,
        store: &Store,
        variant: Variant,
        a: Sector,
    ) -> Result<Graph, ClassError> {
        let sides = [a, a.swapped()];
        let index = sides.map(|s| SectorIndex::get(usize::from(s.us), usize::from(s.them)));
        let n = index[0].size() as usize;
        if 2 * n as u64 >= u64::from(u32::MAX) {
            return Err(ClassError::Inconsistent {
                sector: a.into(),
                what: "too many positions for this computation".into(),
            });
        }
        const CHUNK: usize = 1 << 12;
        // Each chunk's nodes in compact form (no allocation a node survives the chunk),
        // joined in order below.
        struct Chunk {
            drawn: Vec<bool>,
            inside_len: Vec<u32>,
            inside: Vec<u32>,
            exit_len: Vec<u32>,
            exits: Vec<i8>,
        }
        let chunks: Vec<Result<Chunk, ClassError>> = (0..2 * n)
            .into_par_iter()
            .step_by(CHUNK)
            .map(|first| {
                let mut c = Chunk {
                    drawn: Vec::with_capacity(CHUNK),
                    inside_len: Vec::with_capacity(CHUNK),
                    inside: Vec::new(),
                    exit_len: Vec::with_capacity(CHUNK),
                    exits: Vec::new(),
                };
                for node in first..(first + CHUNK).min(2 * n) {
                    let (side, i) = (node / n, node % n);
                    let (us, them) = index[side].position(i as u64);
                    let pos = entry_position(variant, sides[side].into(), us, them);
                    let moves = if is_draw(tb, &pos)? {
                        let o = 1 - side;
                        let other = Other {
                            sector: sides[o],
                            index: &index[o],
                            first: o * n,
                        };
                        let m = successors_of(tb, store, &pos, sides[side].into(), &other)?;
                        if m.inside.is_empty() && m.exits.is_empty() {
                            return Err(ClassError::Inconsistent {
                                sector: a.into(),
                                what: "a drawn position has no drawing move".into(),
                            });
                        }
                        Some(m)
                    } else {
                        None
                    };
                    c.drawn.push(moves.is_some());
                    let m = moves.unwrap_or(Moves {
                        inside: Vec::new(),
                        exits: Vec::new(),
                    });
                    c.inside_len.push(m.inside.len() as u32);
                    c.exit_len.push(m.exits.len() as u32);
                    c.inside.extend(m.inside);
                    c.exits.extend(m.exits);
                }
                c.inside.shrink_to_fit();
                c.exits.shrink_to_fit();
                Ok(c)
            })
            .collect();
        let mut g = Graph {
            n,
            drawn: Vec::with_capacity(2 * n),
            start: Vec::with_capacity(2 * n + 1),
            inside: Vec::new(),
            exit_start: Vec::with_capacity(2 * n + 1),
            exits: Vec::new(),
        };
        g.start.push(0);
        g.exit_start.push(0);
        for chunk in chunks {
            let c = chunk?;
            g.drawn.extend(&c.drawn);
            for (&li, &le) in c.inside_len.iter().zip(&c.exit_len) {
                g.start.push(g.start[g.start.len() - 1] + li);
                g.exit_start.push(g.exit_start[g.exit_start.len() - 1] + le);
            }
            g.inside.extend(c.inside);
            g.exits.extend(c.exits);
        }
        Ok(g)
    }

    fn inside(&self, node: usize) -> &[u32] {
        &self.inside[self.start[node] as usize..self.start[node + 1] as usize]
    }

    fn exits(&self, node: usize) -> &[i8] {
        &self.exits[self.exit_start[node] as usize..self.exit_start[node + 1] as usize]
    }

    /// Predecessors inside the pair (CSR).
    fn predecessors(&self) -> (Vec<u32>, Vec<u32>) {
        let nodes = self.drawn.len();
        let mut count = vec![0u32; nodes + 1];
        for &t in &self.inside {
            count[t as usize + 1] += 1;
        }
        for i in 0..nodes {
            count[i + 1] += count[i];
        }
        let mut fill = count.clone();
        let mut pred = vec![0u32; self.inside.len()];
        for node in 0..nodes {
            for &t in self.inside(node) {
                pred[fill[t as usize] as usize] = node as u32;
                fill[t as usize] += 1;
            }
        }
        (count, pred)
    }
}

/// What one player's sweep settled: per node, the class for that player and the
/// distance; `None` where it forces nothing above its stay class.
fn sweep(
    g: &Graph,
    pred: &(Vec<u32>, Vec<u32>),
    player: usize,
    stay: i8,
    sector: SectorId,
    settled: &mut [Option<(i8, u8)>],
) -> Result<(), ClassError> {
    let nodes = g.drawn.len();
    let side = |node: usize| node / g.n;
    // Exits by their payoff for `player`, above its stay class.
    let mut targets: Vec<(i8, u32)> = Vec::new();
    for node in 0..nodes {
        for &e in g.exits(node) {
            let p = if side(node) == player { e } else { -e };
            if p > stay {
                targets.push((p, node as u32));
            }
        }
    }
    targets.sort_unstable_by(|x, y| y.cmp(x));
    let mut left: Vec<u32> = (0..nodes)
        .map(|n| (g.inside(n).len() + g.exits(n).len()) as u32)
        .collect();
    let mut queue: Vec<u32> = Vec::new();
    let mut k = 0;
    while k < targets.len() {
        let t = targets[k].0;
        queue.clear();
        while k < targets.len() && targets[k].0 == t {
            let node = targets[k].1 as usize;
            k += 1;
            if settled[node].is_some() {
                continue;
            }
            if side(node) == player {
                settled[node] = Some((t, 1));
                queue.push(node as u32);
            } else {
                left[node] -= 1;
                if left[node] == 0 {
                    settled[node] = Some((t, 1));
                    queue.push(node as u32);
                }
            }
        }
        let mut q = 0;
        while q < queue.len() {
            let m = queue[q] as usize;
            q += 1;
            let d = settled[m].map_or(0, |s| s.1);
            let next = d.checked_add(1).ok_or(ClassError::Distance(sector))?;
            for &p in &pred.1[pred.0[m] as usize..pred.0[m + 1] as usize] {
                let p = p as usize;
                if settled[p].is_some() {
                    continue;
                }
                if side(p) == player {
                    settled[p] = Some((t, next));
                    queue.push(p as u32);
                } else {
                    left[p] -= 1;
                    if left[p] == 0 {
                        settled[p] = Some((t, next));
                        queue.push(p as u32);
                    }
                }
            }
        }
    }
    Ok(())
}

/// The classes of a movement pair: the entries of `a` and of its swapped sector (the
/// same sector once when the counts are equal).
///
/// # Errors
/// A [`ClassError`]: missing values or classes, a damaged file, a distance too long.
pub fn movement_pair(
    tb: &Tablebase,
    store: &Store,
    variant: Variant,
    a: Sector,
) -> Result<Vec<(Sector, Vec<u16>)>, ClassError> {
    let g = Graph::build(tb, store, variant, a)?;
    let pred = g.predecessors();
    let stay = stay_of(tb, variant, a)?;
    let nodes = g.drawn.len();
    // Per node: the class for player 0's sweep, then player 1's, converted below.
    let mut first: Vec<Option<(i8, u8)>> = vec![None; nodes];
    sweep(&g, &pred, 0, stay, a.into(), &mut first)?;
    let mut second: Vec<Option<(i8, u8)>> = vec![None; nodes];
    sweep(&g, &pred, 1, -stay, a.into(), &mut second)?;
    let n = g.n;
    let entry = |node: usize| -> Result<u16, ClassError> {
        if !g.drawn[node] {
            return Ok(DECIDED);
        }
        let side = node / n;
        // Class for the mover of `node`: a sweep's class is for its player.
        let mover = |player: usize, c: i8| if side == player { c } else { -c };
        let class = match (first[node], second[node]) {
            (Some(_), Some(_)) => {
                return Err(ClassError::Inconsistent {
                    sector: a.into(),
                    what: "both players force an exit better than staying".into(),
                })
            }
            (Some((c, d)), None) => Class {
                class: mover(0, c),
                distance: d,
            },
            (None, Some((c, d))) => Class {
                class: mover(1, c),
                distance: d,
            },
            (None, None) => Class {
                class: if side == 0 { stay } else { -stay },
                distance: 0,
            },
        };
        Ok(class.encode())
    };
    let own: Vec<u16> = (0..n).map(entry).collect::<Result<_, _>>()?;
    let swapped: Vec<u16> = (n..2 * n).map(entry).collect::<Result<_, _>>()?;
    if a == a.swapped() {
        if own != swapped {
            return Err(ClassError::Inconsistent {
                sector: a.into(),
                what: "the classes of the two players differ in a symmetric pair".into(),
            });
        }
        Ok(vec![(a, own)])
    } else {
        Ok(vec![(a, own), (a.swapped(), swapped)])
    }
}

/// The classes of a placement sector, from those of the sectors its placements reach.
///
/// # Errors
/// A [`ClassError`]: missing values or classes, a damaged file, a drawn position
/// without a drawing move.
pub fn placement_sector(
    tb: &Tablebase,
    store: &Store,
    variant: Variant,
    sector: PlacementSector,
) -> Result<Vec<u16>, ClassError> {
    let index = SectorIndex::get(usize::from(sector.us), usize::from(sector.them));
    let id = SectorId::Placement(sector);
    (0..index.size())
        .into_par_iter()
        .map(|i| {
            let (us, them) = index.position(i);
            let pos = entry_position(variant, id, us, them);
            if !is_draw(tb, &pos)? {
                return Ok(DECIDED);
            }
            let mut best: Option<i8> = None;
            for &m in pos.legal_moves().iter() {
                let next = pos.play_unchecked(m);
                if is_draw(tb, &next)? {
                    let c = -store.class_of(&next, id)?.class;
                    best = Some(best.map_or(c, |b| b.max(c)));
                }
            }
            let class = best.ok_or_else(|| ClassError::Inconsistent {
                sector: id,
                what: format!("entry {i} is a draw without a drawing move"),
            })?;
            Ok(Class { class, distance: 0 }.encode())
        })
        .collect()
}

/// Write a sector's classes under its class file name, safely (temporary name, sync,
/// rename).
///
/// # Errors
/// A [`FileError`] naming the file.
pub fn write_classes(
    dir: &Path,
    tb: &Tablebase,
    variant: Variant,
    sector: SectorId,
    entries: &[u16],
) -> Result<classes::Header, ClassError> {
    let stay = match sector {
        SectorId::Movement(s) => stay_of(tb, variant, s)?,
        SectorId::Placement(_) => 0,
    };
    let mut payload = Vec::with_capacity(2 * entries.len());
    for e in entries {
        payload.extend_from_slice(&e.to_le_bytes());
    }
    let header = classes::Header {
        variant,
        sector,
        stay,
        entries: entries.len() as u64,
        values: values_checksum(tb, variant, sector)?,
        checksum: xxh3_64(&payload),
        draws: entries.iter().filter(|&&e| e != DECIDED).count() as u64,
    };
    let name = classes::file_name(variant, sector);
    write_safely(dir, &name, |file| -> Result<(), Problem> {
        let mut out = BufWriter::with_capacity(1 << 20, file);
        out.write_all(&header.encode())?;
        out.write_all(&payload)?;
        out.flush()?;
        Ok(())
    })?;
    Ok(header)
}

/// The classes of a sector already in `dir`, if its file is there, good, and built
/// from the values the tables hold now; `Err` says why a present file cannot be used.
///
/// # Errors
/// A [`ClassError`] naming the file: damaged, or built from other values.
pub fn finished(
    dir: &Path,
    tb: &Tablebase,
    variant: Variant,
    sector: SectorId,
) -> Result<Option<Arc<[u16]>>, ClassError> {
    let path = dir.join(classes::file_name(variant, sector));
    if !path.exists() {
        return Ok(None);
    }
    let file = ClassFile::open(&path, variant, sector)?;
    if file.header().values != values_checksum(tb, variant, sector)? {
        return Err(ClassError::File(FileError::new(
            &path,
            std::io::Error::other("was built from other values than the tables hold now"),
        )));
    }
    Ok(Some(file.entries()?.into()))
}

/// Check every class of a sector from its successors' classes (see the module
/// docs): the number of entries that disagree, and the first of them.
///
/// # Errors
/// A [`ClassError`] when what the check reads is missing or damaged.
pub fn verify_classes(
    tb: &Tablebase,
    store: &Store,
    variant: Variant,
    sector: SectorId,
) -> Result<(u64, Option<u64>), ClassError> {
    let own = store
        .get(sector)
        .ok_or(ClassError::MissingClasses(sector))?;
    let (us, them) = sector.board();
    let index = SectorIndex::get(usize::from(us), usize::from(them));
    let stay = match sector {
        SectorId::Movement(s) => Some(stay_of(tb, variant, s)?),
        SectorId::Placement(_) => None,
    };
    let bad: Vec<u64> = (0..index.size())
        .into_par_iter()
        .map(|i| -> Result<Option<u64>, ClassError> {
            let (u, t) = index.position(i);
            let pos = entry_position(variant, sector, u, t);
            let stored = own[i as usize];
            let expected = expected_class(tb, store, &pos, stay, sector)?;
            let ok = match expected {
                None => stored == DECIDED,
                Some(e) => Class::decode(stored) == Some(e),
            };
            Ok((!ok).then_some(i))
        })
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
        .collect();
    Ok((bad.len() as u64, bad.first().copied()))
}

/// What a position's class must be, given its successors' stored classes: `None` for
/// a decided position.
fn expected_class(
    tb: &Tablebase,
    store: &Store,
    pos: &Position,
    stay: Option<i8>,
    sector: SectorId,
) -> Result<Option<Class>, ClassError> {
    if !is_draw(tb, pos)? {
        return Ok(None);
    }
    let mut children: Vec<(i8, u8)> = Vec::new();
    let own = Tablebase::sector_id_of(pos);
    for &m in pos.legal_moves().iter() {
        let next = pos.play_unchecked(m);
        if next.is_reduced(next.side_to_move()) || !is_draw(tb, &next)? {
            continue;
        }
        let c = store.class_of(&next, sector)?;
        // A move that leaves the pair (a capture) is an exit: distance 0.
        let same_pair = match (Tablebase::sector_id_of(&next), own) {
            (Some(SectorId::Movement(s)), Some(SectorId::Movement(o))) => s == o.swapped(),
            _ => false,
        };
        children.push((-c.class, if same_pair { c.distance } else { 0 }));
    }
    let Some(best) = children.iter().map(|c| c.0).max() else {
        return Ok(Some(Class {
            class: i8::MIN,
            distance: 0,
        }));
    };
    let Some(stay) = stay else {
        return Ok(Some(Class {
            class: best,
            distance: 0,
        }));
    };
    let keeping = children
        .iter()
        .filter(|c| c.0 == best)
        .map(|c| u16::from(c.1));
    let distance = if best > stay {
        keeping.min().map(|d| d + 1)
    } else if best < stay {
        keeping.max().map(|d| d + 1)
    } else {
        Some(0)
    };
    Ok(distance
        .and_then(|d| u8::try_from(d).ok())
        .map(|distance| Class {
            class: best,
            distance,
        }))
}

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

/// Build the class files of `movement` (in [`crate::driver::plan`] order: each pair
/// after what its captures reach) and then `placement` (in solving order) into
/// `dir`, whose value tables `tb` holds, resuming from good class files; a damaged
/// class file, or one built from other values, is built again (saying so through
/// `log`).
///
/// # Errors
/// A [`ClassError`]: missing values, a damaged value file, a failure to write.
pub fn build_into(
    dir: &Path,
    tb: &Tablebase,
    variant: Variant,
    movement: &[Sector],
    placement: &[PlacementSector],
    log: &dyn Fn(&str),
) -> Result<Vec<ClassReport>, ClassError> {
    let mut store = Store::default();
    let mut reports = Vec::new();
    let load = |store: &mut Store, sector: SectorId| -> Result<bool, ClassError> {
        if store.get(sector).is_some() {
            return Ok(true);
        }
        match finished(dir, tb, variant, sector) {
            Ok(Some(entries)) => {
                store.insert(sector, entries);
                Ok(true)
            }
            Ok(None) => Ok(false),
            Err(ClassError::File(e)) if !e.problem.is_missing() => {
                log(&format!("{e}; building it again"));
                Ok(false)
            }
            Err(e) => Err(e),
        }
    };
    for &sector in movement {
        let id = SectorId::Movement(sector);
        if store.get(id).is_some() {
            continue;
        }
        let pair: Vec<SectorId> = if sector.swapped() == sector {
            vec![id]
        } else {
            vec![id, sector.swapped().into()]
        };
        let mut have = true;
        for &s in &pair {
            have &= load(&mut store, s)?;
        }
        if have {
            for &s in &pair {
                reports.push(ClassReport {
                    sector: s,
                    draws: count_draws(store.get(s)),
                    time: std::time::Duration::ZERO,
                    skipped: true,
                });
            }
            continue;
        }
        for t in [sector, sector.swapped()]
            .iter()
            .filter_map(|s| s.after_capture())
        {
            if !load(&mut store, t.into())? {
                return Err(ClassError::MissingClasses(t.into()));
            }
        }
        let clock = std::time::Instant::now();
        let built = movement_pair(tb, &store, variant, sector)?;
        let time = clock.elapsed();
        for (s, entries) in built {
            let header = write_classes(dir, tb, variant, s.into(), &entries)?;
            log(&format!(
                "classes {} {s}: {} draws, stay class {:+}, {:.1} s",
                variant.name(),
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
    for &sector in placement {
        let id = SectorId::Placement(sector);
        if load(&mut store, id)? {
            reports.push(ClassReport {
                sector: id,
                draws: count_draws(store.get(id)),
                time: std::time::Duration::ZERO,
                skipped: true,
            });
            continue;
        }
        for s in sector.successors() {
            let s = SectorId::from(s);
            if !load(&mut store, s)? {
                return Err(ClassError::MissingClasses(s));
            }
        }
        let clock = std::time::Instant::now();
        let entries = placement_sector(tb, &store, variant, sector)?;
        let time = clock.elapsed();
        let header = write_classes(dir, tb, variant, id, &entries)?;
        log(&format!(
            "classes {} {sector}: {} draws, {:.1} s",
            variant.name(),
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
    Ok(reports)
}

fn count_draws(entries: Option<&Arc<[u16]>>) -> u64 {
    entries.map_or(0, |e| e.iter().filter(|&&x| x != DECIDED).count() as u64)
}
