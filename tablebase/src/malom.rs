//! Reading Malom's perfect database of the Standard game (Gévay and Danner, "Calculating
//! ultra-strong and extended solutions for Nine Men's Morris, Morabaraba, and Lasker
//! Morris", IEEE TCIAIG 2015; program and database: github.com/ggevay/malom), to
//! compare two independent solutions. Only the reading is here; nothing of it is
//! used to answer a probe of our own tables.
//!
//! The format, as Malom's source writes it (`Malom_megoldas/sector.cpp`, `hash.cpp`,
//! `common.h`, `eval_elem.*`, `sec_val.cpp`, with `DD` defined: the ultra-strong
//! solution):
//!
//! - A sector `std_W_B_WF_BF.sec2` holds the positions with `W` white and `B` black
//!   stones on the board and `WF`, `BF` still to place, White to move (Malom swaps
//!   the colours so that the side to move is always "white").
//! - The file: a 64-byte header (`i32` version 2, `i32` entry size 3, `i32` offset of
//!   the second field 12, `u8` stone-difference flag 0, zeros), then one 3-byte
//!   little-endian entry per hash value, then the `em_set`: an `i32` count and that
//!   many `(i32 index, i32 key2)` pairs (a `std::map`, so in increasing index order)
//!   for the entries whose second field does not fit in 12 bits. No checksum.
//! - An entry holds two signed 12-bit fields: `key1` (bits 0..12) and `key2` (bits
//!   12..24); `key2 = -2048` means "look the entry up in the em_set". `key1 != 0`: a
//!   value; its absolute sector value is `key1 + sval` (`sval` the sector's value
//!   from `std.secval`): `virt_win_val` a win, `virt_loss_val` a loss (then `key2` is
//!   the depth: plies to the end, odd for a win, even for a loss), anything else a
//!   draw that settles in the sector of that value (the ultra-strong refinement of a
//!   draw). `key1 == 0`, `key2 >= 0`: a draw that settles in this sector itself (a
//!   "count" left over when the solution was done). `key1 == 0`, `key2 < 0`: the
//!   position is not the canonical one of its class: apply symmetry `-(key2 + 1)`.
//! - Positions are hashed as Ralph Gasser did: the white stones are reduced to the
//!   least set (as a 24-bit integer, in Malom's point numbering) of their orbit under
//!   the 16 symmetries; orbits are numbered in increasing order of that least set; the
//!   black stones are "collapsed" onto the `24 - W` points white leaves empty and ranked
//!   in colex order (`hash = orbit * C(24 - W, B) + rank`). A white set fixed by some
//!   symmetries leaves several entries for one position: the least board (`white |
//!   black << 24`) of them holds the value, the others a symmetry pointing to it.
//! - Malom's points: three rings of eight bits (bits 0..8, 8..16, 16..24), each ring in
//!   circular order, even bits on the midpoints of the sides (which connect to the
//!   other rings: bits `k`, `k + 8`, `k + 16`), odd bits on the corners. [`to_ours`]
//!   maps them onto our points by an isomorphism of the board (mills and adjacency are
//!   kept; a test checks it against Malom's own mill and adjacency masks). Malom's
//!   drawing may differ from ours by a symmetry of the board, which changes no value.
//!
//! Every file is checked when opened (name, length, header, em_set) and every entry
//! when read (a value that cannot occur, a symmetry that does not lead to the
//! canonical entry): a damaged or foreign file is an error naming the file and the
//! problem, never a panic. With no checksum, a changed byte that still decodes to a
//! plausible value cannot be told from a true one.

use crate::sector::{PlacementSector, Sector, SectorId};
use morris_engine::{Bitboard, Position};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Size of a sector file's header.
pub const HEADER_SIZE: usize = 64;

/// Bytes an entry.
const ENTRY_SIZE: usize = 3;

/// The `key2` field value meaning "in the em_set".
const SPEC_FIELD2: i32 = -2048;

/// The largest `key2` stored in the entry itself.
const MAX_FIELD2: i32 = 2047;

/// The name of the sector-value file of the Standard game.
pub const SECVAL_NAME: &str = "std.secval";

/// A damaged, truncated or foreign Malom file, named.
#[derive(Debug, thiserror::Error)]
pub enum MalomError {
    /// The file cannot be read.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// The file is not what its name says, or is damaged.
    #[error("{}: {problem}", path.display())]
    Bad {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
}

fn bad(path: &Path, problem: impl Into<String>) -> MalomError {
    MalomError::Bad {
        path: path.to_path_buf(),
        problem: problem.into(),
    }
}

fn io(path: &Path, error: std::io::Error) -> MalomError {
    MalomError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// A Malom sector: stones on the board and to place of the side to move ("white")
/// and of its opponent.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct MalomSector {
    /// Stones of the side to move on the board.
    pub w: u8,
    /// Stones of the opponent on the board.
    pub b: u8,
    /// Stones of the side to move still to place.
    pub wf: u8,
    /// Stones of the opponent still to place.
    pub bf: u8,
}

impl MalomSector {
    /// The sector, if each side has at most nine stones on the board and in hand.
    pub fn new(w: u8, b: u8, wf: u8, bf: u8) -> Option<MalomSector> {
        (w + wf <= 9 && b + bf <= 9).then_some(MalomSector { w, b, wf, bf })
    }

    /// The sector of a file name `std_W_B_WF_BF.sec2`.
    pub fn from_file_name(name: &str) -> Option<MalomSector> {
        let body = name.strip_prefix("std_")?.strip_suffix(".sec2")?;
        let mut n = [0u8; 4];
        let mut parts = body.split('_');
        for slot in &mut n {
            let p = parts.next()?;
            if p.len() != 1 {
                return None;
            }
            *slot = p.parse().ok()?;
        }
        if parts.next().is_some() {
            return None;
        }
        MalomSector::new(n[0], n[1], n[2], n[3])
    }

    /// The file name Malom gives this sector.
    pub fn file_name(self) -> String {
        format!("std_{}_{}_{}_{}.sec2", self.w, self.b, self.wf, self.bf)
    }

    /// Our sector of the same positions: `W-B` when both hands are empty, else
    /// `W-B+WF-BF`; `None` when our tables have no such sector.
    pub fn ours(self) -> Option<SectorId> {
        if self.wf == 0 && self.bf == 0 {
            Sector::new(self.w, self.b).map(SectorId::Movement)
        } else {
            PlacementSector::new(self.w, self.b, self.wf, self.bf).map(SectorId::Placement)
        }
    }

    /// The sector of a position (the side to move as Malom's "white").
    pub fn of(pos: &Position) -> Option<MalomSector> {
        let count = |b: Bitboard| u8::try_from(b.count()).ok();
        let side = pos.side_to_move();
        MalomSector::new(
            count(pos.us())?,
            count(pos.them())?,
            pos.hand(side),
            pos.hand(side.opponent()),
        )
    }

    /// Number of entries of its file (symmetric duplicates included).
    pub fn entry_count(self) -> u64 {
        orbit_mins(self.w).len() as u64 * binom(24 - u32::from(self.w), u32::from(self.b))
    }
}

impl fmt::Display for MalomSector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "std_{}_{}_{}_{}", self.w, self.b, self.wf, self.bf)
    }
}

/// Malom's value of a position for the side to move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MalomValue {
    /// Won; `depth` plies to the end under Malom's rules (odd).
    Win {
        /// Malom's `key2`.
        depth: u32,
    },
    /// Lost; `depth` plies to the end under Malom's rules (even).
    Loss {
        /// Malom's `key2`.
        depth: u32,
    },
    /// Drawn; under ultra-strong play the game settles in a sector of this value (0:
    /// a sector of value zero, as the start).
    Draw {
        /// The absolute sector value (`key1 + sval`).
        sector_value: i16,
    },
}

impl MalomValue {
    /// Win, draw or loss for the side to move.
    pub fn wdl(self) -> crate::Wdl {
        match self {
            MalomValue::Win { .. } => crate::Wdl::Win,
            MalomValue::Loss { .. } => crate::Wdl::Loss,
            MalomValue::Draw { .. } => crate::Wdl::Draw,
        }
    }

    /// Malom's depth of a decided position, `None` for a draw.
    pub fn depth(self) -> Option<u32> {
        match self {
            MalomValue::Win { depth } | MalomValue::Loss { depth } => Some(depth),
            MalomValue::Draw { .. } => None,
        }
    }
}

impl fmt::Display for MalomValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MalomValue::Win { depth } => write!(f, "win (depth {depth})"),
            MalomValue::Loss { depth } => write!(f, "loss (depth {depth})"),
            MalomValue::Draw { sector_value } => write!(f, "draw (sector value {sector_value})"),
        }
    }
}

/// Malom's sector values (`std.secval`): the values of the virtual win and loss, and
/// one value a sector.
#[derive(Clone, Debug)]
pub struct SectorValues {
    /// The value of a won position.
    pub virt_win: i16,
    /// The value of a lost position.
    pub virt_loss: i16,
    values: HashMap<MalomSector, i16>,
}

impl SectorValues {
    /// Read `std.secval`.
    ///
    /// # Errors
    /// The file cannot be read or is not a sector-value file, named.
    pub fn open(path: &Path) -> Result<SectorValues, MalomError> {
        let text = std::fs::read(path).map_err(|e| io(path, e))?;
        let text = std::str::from_utf8(&text).map_err(|_| bad(path, "not a text file"))?;
        SectorValues::parse(text).map_err(|problem| bad(path, problem))
    }

    /// Parse the text of `std.secval`: `virt_loss_val: L`, `virt_win_val: W`, a count,
    /// then one `W B WF BF  value` line a sector.
    ///
    /// # Errors
    /// What is wrong, with its line number.
    pub fn parse(text: &str) -> Result<SectorValues, String> {
        let mut lines = text.lines().enumerate();
        let mut header = |key: &str| -> Result<i16, String> {
            let (n, line) = lines.next().ok_or("ends before its header")?;
            line.strip_prefix(key)
                .and_then(|v| v.trim().parse().ok())
                .ok_or_else(|| format!("line {}: expected `{key} N`", n + 1))
        };
        let virt_loss = header("virt_loss_val:")?;
        let virt_win = header("virt_win_val:")?;
        if virt_win <= 0 || virt_loss != -virt_win || virt_win > MAX_FIELD2 as i16 {
            return Err(format!(
                "virt_win_val {virt_win} and virt_loss_val {virt_loss} are not opposite"
            ));
        }
        let (n, line) = lines.next().ok_or("ends before the sector count")?;
        let count: usize = line
            .trim()
            .parse()
            .map_err(|_| format!("line {}: expected the sector count", n + 1))?;
        let mut values = HashMap::new();
        for (n, line) in lines.by_ref().take(count) {
            let f: Vec<i32> = line
                .split_whitespace()
                .map(str::parse)
                .collect::<Result<_, _>>()
                .map_err(|_| format!("line {}: expected `W B WF BF  value`", n + 1))?;
            let sector = match f[..] {
                [w, b, wf, bf, _] => [w, b, wf, bf]
                    .iter()
                    .all(|x| (0..=9).contains(x))
                    .then(|| MalomSector::new(w as u8, b as u8, wf as u8, bf as u8))
                    .flatten(),
                _ => None,
            }
            .ok_or_else(|| format!("line {}: expected `W B WF BF  value`", n + 1))?;
            let value = f[4];
            if value.abs() >= i32::from(virt_win) {
                return Err(format!("line {}: value {value} out of range", n + 1));
            }
            if values.insert(sector, value as i16).is_some() {
                return Err(format!("line {}: sector {sector} given twice", n + 1));
            }
        }
        if values.len() != count {
            return Err(format!("says {count} sectors but holds {}", values.len()));
        }
        if lines.any(|(_, l)| !l.trim().is_empty()) {
            return Err(format!("text after its {count} sectors"));
        }
        Ok(SectorValues {
            virt_win,
            virt_loss,
            values,
        })
    }

    /// The sector of a value other than zero (they are unique), if any.
    pub fn sector_of(&self, value: i16) -> Option<MalomSector> {
        (value != 0)
            .then(|| {
                self.values
                    .iter()
                    .find(|(_, &v)| v == value)
                    .map(|(&s, _)| s)
            })
            .flatten()
    }

    /// The value of a sector, if the file gives one.
    pub fn get(&self, sector: MalomSector) -> Option<i16> {
        self.values.get(&sector).copied()
    }
}

/// `n` choose `k`.
fn binom(n: u32, k: u32) -> u64 {
    if k > n {
        return 0;
    }
    (0..u64::from(k)).fold(1, |acc, i| acc * (u64::from(n) - i) / (i + 1))
}

/// Where Malom's symmetry `op` takes a point, in Malom's order (`symmetries.cpp`:
/// rot90, rot180, rot270, the reflections about the vertical axis, the horizontal
/// axis, the back-slash and the slash diagonal; then the swap of the inner and outer
/// rings alone and after each of those seven; the identity last, as op 15).
const fn malom_symmetry(op: usize, bit: usize) -> usize {
    let (ring, k) = (bit / 8, bit % 8);
    let ring = if op >= 7 && op < 15 { 2 - ring } else { ring };
    let turn = match op {
        0..=6 => op,
        8..=14 => op - 8,
        _ => 7,
    };
    let k = match turn {
        0 => (k + 2) % 8,
        1 => (k + 4) % 8,
        2 => (k + 6) % 8,
        3 => (12 - k) % 8, // tt_fuggoleges: k -> 4 - k
        4 => (8 - k) % 8,  // tt_vizszintes: k -> -k
        5 => (10 - k) % 8, // tt_bslash: k -> 2 - k
        6 => (14 - k) % 8, // tt_slash: k -> 6 - k
        _ => k,
    };
    ring * 8 + k
}

/// Byte tables of the 16 symmetries: `SYM[op][byte][value]`.
static SYM: [[[u32; 256]; 3]; 16] = {
    let mut t = [[[0u32; 256]; 3]; 16];
    let mut op = 0;
    while op < 16 {
        let mut byte = 0;
        while byte < 3 {
            let mut v = 0;
            while v < 256 {
                let mut out = 0u32;
                let mut i = 0;
                while i < 8 {
                    if v >> i & 1 == 1 {
                        out |= 1 << malom_symmetry(op, byte * 8 + i);
                    }
                    i += 1;
                }
                t[op][byte][v] = out;
                v += 1;
            }
            byte += 1;
        }
        op += 1;
    }
    t
};

/// Malom's symmetry `op` applied to a 24-bit set in Malom's numbering.
fn sym24(op: usize, a: u32) -> u32 {
    let t = &SYM[op];
    t[0][(a & 0xFF) as usize] | t[1][(a >> 8 & 0xFF) as usize] | t[2][(a >> 16 & 0xFF) as usize]
}

/// Our point of each Malom bit: same ring, slot `k + 1` (Malom's even bits, the
/// midpoints, are our odd slots).
const TO_OURS: [u8; 24] = {
    let mut t = [0u8; 24];
    let mut bit = 0;
    while bit < 24 {
        t[bit] = ((bit / 8) * 8 + (bit % 8 + 1) % 8) as u8;
        bit += 1;
    }
    t
};

/// A set of points in Malom's numbering as our bitboard.
pub fn to_ours(malom: u32) -> Bitboard {
    let mut out = 0u32;
    for (bit, &ours) in TO_OURS.iter().enumerate() {
        if malom >> bit & 1 == 1 {
            out |= 1 << ours;
        }
    }
    Bitboard::from_bits_truncate(out)
}

/// Our bitboard as a set of points in Malom's numbering.
pub fn from_ours(ours: Bitboard) -> u32 {
    let bits = ours.bits();
    let mut out = 0u32;
    for (bit, &o) in TO_OURS.iter().enumerate() {
        if bits >> o & 1 == 1 {
            out |= 1 << bit;
        }
    }
    out
}

/// The least member of each orbit of `w`-point sets, increasing: orbit `i` of Malom's
/// hash is `orbit_mins(w)[i]`. Computed once a count.
fn orbit_mins(w: u8) -> &'static [u32] {
    static CACHE: [std::sync::OnceLock<Vec<u32>>; 25] = [const { std::sync::OnceLock::new() }; 25];
    CACHE[usize::from(w.min(24))].get_or_init(|| {
        let w = u32::from(w.min(24));
        let mut mins = Vec::new();
        let mut set: u32 = (1 << w) - 1;
        while set < 1 << 24 {
            if (0..16).all(|op| sym24(op, set) >= set) {
                mins.push(set);
            }
            if set == 0 {
                break;
            }
            set = next_choose(set);
        }
        mins
    })
}

/// The next set of the same size in increasing order (Gosper's hack), past `1 << 24`
/// after the last.
fn next_choose(x: u32) -> u32 {
    let c = x & x.wrapping_neg();
    let r = x + c;
    (((r ^ x) >> 2) / c) | r
}

/// The black set collapsed onto the points white leaves empty (bit `j` of the result:
/// the `j`-th empty point).
fn collapse(white: u32, black: u32) -> u32 {
    let (mut r, mut j) = (0u32, 0);
    for i in 0..24 {
        if white >> i & 1 == 0 {
            r |= (black >> i & 1) << j;
            j += 1;
        }
    }
    r
}

/// The inverse of [`collapse`].
fn uncollapse(white: u32, collapsed: u32) -> u32 {
    let (mut r, mut j) = (0u32, 0);
    for i in 0..24 {
        if white >> i & 1 == 0 {
            r |= (collapsed >> j & 1) << i;
            j += 1;
        }
    }
    r
}

/// Colex rank of a set among the sets of its size.
fn colex_rank(set: u32) -> u64 {
    let mut rank = 0;
    let mut k = 1;
    for i in 0..32 {
        if set >> i & 1 == 1 {
            rank += binom(i, k);
            k += 1;
        }
    }
    rank
}

/// The `k`-set of colex rank `rank`.
fn colex_unrank(mut rank: u64, k: u32) -> u32 {
    let mut set = 0;
    for k in (1..=k).rev() {
        let mut i = k - 1;
        while binom(i + 1, k) <= rank {
            i += 1;
        }
        rank -= binom(i, k);
        set |= 1 << i;
    }
    set
}

/// One entry of a sector file, decoded.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Entry {
    Value(MalomValue),
    Sym(usize),
}

/// One Malom sector file, read and checked.
pub struct MalomFile {
    sector: MalomSector,
    path: PathBuf,
    sval: i16,
    virt_win: i16,
    virt_loss: i16,
    draws_ok: Vec<i16>,
    entries: Vec<u8>,
    em_set: HashMap<u32, i32>,
    orbits: &'static [u32],
    black_sets: u64,
}

/// A position of a Malom file, in our point numbering: the side to move's stones
/// (`us`), the opponent's (`them`), and Malom's value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MalomEntry {
    /// Stones of the side to move.
    pub us: Bitboard,
    /// Stones of the opponent.
    pub them: Bitboard,
    /// Malom's value.
    pub value: MalomValue,
}

impl MalomFile {
    /// Open and check a sector file: its name, length, header and em_set.
    ///
    /// # Errors
    /// A file that cannot be read, whose name is no Malom Standard sector, whose
    /// length, header or em_set is wrong, or whose sector `values` does not know.
    pub fn open(path: &Path, values: &SectorValues) -> Result<MalomFile, MalomError> {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let sector = MalomSector::from_file_name(name).ok_or_else(|| {
            bad(
                path,
                "not a Malom Standard sector file (expected a name std_W_B_WF_BF.sec2)",
            )
        })?;
        let meta = std::fs::metadata(path).map_err(|e| io(path, e))?;
        if !meta.is_file() {
            return Err(bad(path, "not a regular file"));
        }
        let n = sector.entry_count();
        let least = HEADER_SIZE as u64 + ENTRY_SIZE as u64 * n + 4;
        if meta.len() < least {
            return Err(bad(
                path,
                format!(
                    "truncated: {} bytes, a sector of {n} entries needs at least {least}",
                    meta.len()
                ),
            ));
        }
        let data = std::fs::read(path).map_err(|e| io(path, e))?;
        MalomFile::from_bytes(path, sector, &data, values)
    }

    /// Check and take the bytes of a sector file (see [`MalomFile::open`]).
    ///
    /// # Errors
    /// As [`MalomFile::open`].
    pub fn from_bytes(
        path: &Path,
        sector: MalomSector,
        data: &[u8],
        values: &SectorValues,
    ) -> Result<MalomFile, MalomError> {
        let n = sector.entry_count();
        let entries_end = HEADER_SIZE as u64 + ENTRY_SIZE as u64 * n;
        if (data.len() as u64) < entries_end + 4 {
            return Err(bad(
                path,
                format!(
                    "truncated: {} bytes, a sector of {n} entries needs at least {}",
                    data.len(),
                    entries_end + 4
                ),
            ));
        }
        let int =
            |at: usize| i32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
        let header = [int(0), int(4), int(8)];
        if header != [2, ENTRY_SIZE as i32, 12] || data[12] != 0 {
            return Err(bad(
                path,
                format!(
                    "not a sector of Malom's ultra-strong Standard solution: header says version {}, entry size {}, field offset {}, stone-difference flag {} (expected 2, 3, 12, 0)",
                    header[0], header[1], header[2], data[12]
                ),
            ));
        }
        if data[13..HEADER_SIZE].iter().any(|&b| b != 0) {
            return Err(bad(path, "damaged header: its reserved bytes are not zero"));
        }
        let entries_end = entries_end as usize;
        let count = int(entries_end);
        let expected = u64::try_from(count)
            .ok()
            .map(|c| entries_end as u64 + 4 + 8 * c);
        if expected != Some(data.len() as u64) {
            return Err(bad(
                path,
                format!(
                    "length {} bytes does not match {n} entries and an em_set of {count} (truncated, or not this sector's file)",
                    data.len()
                ),
            ));
        }
        let sval = values.get(sector).ok_or_else(|| {
            bad(
                path,
                format!("{SECVAL_NAME} gives no value for sector {sector}"),
            )
        })?;
        let entries = data[HEADER_SIZE..entries_end].to_vec();
        let mut em_set = HashMap::new();
        let mut last: Option<u32> = None;
        for i in 0..count as usize {
            let at = entries_end + 4 + 8 * i;
            let (key, value) = (int(at), int(at + 4));
            let key = u32::try_from(key)
                .ok()
                .filter(|&k| u64::from(k) < n && last.is_none_or(|l| k > l))
                .ok_or_else(|| {
                    bad(
                        path,
                        format!("damaged em_set: index {key} out of order or range"),
                    )
                })?;
            if value.abs() <= MAX_FIELD2 {
                return Err(bad(
                    path,
                    format!(
                        "damaged em_set: entry {key} holds {value}, which fits in the entry itself"
                    ),
                ));
            }
            last = Some(key);
            em_set.insert(key, value);
        }
        let spec = (0..n as usize)
            .filter(|&h| field2(&entries, h) == SPEC_FIELD2)
            .count();
        if spec != em_set.len()
            || em_set
                .keys()
                .any(|&k| field2(&entries, k as usize) != SPEC_FIELD2)
        {
            return Err(bad(
                path,
                "damaged: the entries that point to the em_set are not the ones it holds",
            ));
        }
        let mut draws_ok: Vec<i16> = values.values.values().copied().collect();
        draws_ok.push(0);
        draws_ok.sort_unstable();
        draws_ok.dedup();
        Ok(MalomFile {
            sector,
            path: path.to_path_buf(),
            sval,
            virt_win: values.virt_win,
            virt_loss: values.virt_loss,
            draws_ok,
            entries,
            em_set,
            orbits: orbit_mins(sector.w),
            black_sets: binom(24 - u32::from(sector.w), u32::from(sector.b)),
        })
    }

    /// The sector.
    pub fn sector(&self) -> MalomSector {
        self.sector
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of entries (symmetric duplicates included).
    pub fn len(&self) -> u64 {
        self.entries.len() as u64 / ENTRY_SIZE as u64
    }

    /// Whether the file has no entry (never: every sector has a position).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn corrupt(&self, h: u64, problem: impl fmt::Display) -> MalomError {
        bad(&self.path, format!("damaged: entry {h} {problem}"))
    }

    /// Decode entry `h`.
    fn entry(&self, h: u64) -> Result<Entry, MalomError> {
        let i = h as usize;
        let a = &self.entries[ENTRY_SIZE * i..ENTRY_SIZE * i + ENTRY_SIZE];
        let raw = u32::from(a[0]) | u32::from(a[1]) << 8 | u32::from(a[2]) << 16;
        let key1 = sign_extend12(raw & 0xFFF);
        let mut key2 = sign_extend12(raw >> 12);
        if key2 == SPEC_FIELD2 {
            key2 = *self
                .em_set
                .get(&(h as u32))
                .ok_or_else(|| self.corrupt(h, "points to an em_set entry that is not there"))?;
        }
        if key1 == 0 {
            return if key2 >= 0 {
                Ok(Entry::Value(MalomValue::Draw {
                    sector_value: self.sval,
                }))
            } else if key2 >= -16 {
                Ok(Entry::Sym((-(key2 + 1)) as usize))
            } else {
                Err(self.corrupt(
                    h,
                    format_args!("names symmetry {}, there are 16", -(key2 + 1)),
                ))
            };
        }
        let akey1 = key1 + i32::from(self.sval);
        let depth = u32::try_from(key2);
        if akey1 == i32::from(self.virt_win) {
            match depth {
                Ok(depth) if depth % 2 == 1 => Ok(Entry::Value(MalomValue::Win { depth })),
                _ => Err(self.corrupt(h, format_args!("is a win with depth {key2}, not odd"))),
            }
        } else if akey1 == i32::from(self.virt_loss) {
            match depth {
                Ok(depth) if depth % 2 == 0 => Ok(Entry::Value(MalomValue::Loss { depth })),
                _ => Err(self.corrupt(h, format_args!("is a loss with depth {key2}, not even"))),
            }
        } else {
            i16::try_from(akey1)
                .ok()
                .filter(|v| self.draws_ok.binary_search(v).is_ok())
                .map(|sector_value| Entry::Value(MalomValue::Draw { sector_value }))
                .ok_or_else(|| {
                    self.corrupt(
                        h,
                        format_args!("has the value {akey1}, which is no sector's"),
                    )
                })
        }
    }

    /// The board of entry `h` in Malom's numbering: `(white, black)`.
    fn board(&self, h: u64) -> (u32, u32) {
        let (f, g) = (h / self.black_sets, h % self.black_sets);
        let white = self.orbits[f as usize];
        let black = uncollapse(white, colex_unrank(g, u32::from(self.sector.b)));
        (white, black)
    }

    /// The hash of a board whose white set is the least of its orbit.
    fn hash_canonical_white(&self, white: u32, black: u32) -> Option<u64> {
        let f = self.orbits.binary_search(&white).ok()? as u64;
        Some(f * self.black_sets + colex_rank(collapse(white, black)))
    }

    /// The position of entry `h` and its value, or `None` when the entry stands for
    /// a symmetric copy of another (checked: its symmetry must lead to the canonical
    /// entry of its class, and a canonical board must hold a value).
    ///
    /// # Errors
    /// A damaged entry, named with the file.
    ///
    /// # Panics
    /// If `h` is not below [`MalomFile::len`].
    pub fn position(&self, h: u64) -> Result<Option<MalomEntry>, MalomError> {
        assert!(h < self.len(), "entry out of range");
        let (white, black) = self.board(h);
        let least = (0..16)
            .filter(|&op| sym24(op, white) == white)
            .map(|op| sym24(op, black))
            .min()
            .unwrap_or(black);
        match self.entry(h)? {
            Entry::Value(value) if least == black => Ok(Some(MalomEntry {
                us: to_ours(white),
                them: to_ours(black),
                value,
            })),
            Entry::Value(_) => Err(self.corrupt(h, "holds a value where a symmetric copy belongs")),
            Entry::Sym(_) if least == black => {
                Err(self.corrupt(h, "is a canonical position but names a symmetry"))
            }
            Entry::Sym(op) if sym24(op, white) == white && sym24(op, black) == least => Ok(None),
            Entry::Sym(op) => Err(self.corrupt(
                h,
                format_args!("names symmetry {op}, which does not lead to its canonical position"),
            )),
        }
    }

    /// Malom's value of a position of this sector: `us` (the side to move) and `them`
    /// in our numbering.
    ///
    /// # Errors
    /// A damaged entry, named with the file; stone counts that are not this sector's
    /// or overlapping sets (as a [`MalomError::Bad`] naming the file).
    pub fn probe(&self, us: Bitboard, them: Bitboard) -> Result<MalomValue, MalomError> {
        if us.count() != u32::from(self.sector.w)
            || them.count() != u32::from(self.sector.b)
            || !(us & them).is_empty()
        {
            return Err(bad(
                &self.path,
                format!("the position is not one of sector {}", self.sector),
            ));
        }
        let (w, b) = (from_ours(us), from_ours(them));
        let op = (0..16).min_by_key(|&op| sym24(op, w)).unwrap_or(15);
        let (white, black) = (sym24(op, w), sym24(op, b));
        let black = (0..16)
            .filter(|&op| sym24(op, white) == white)
            .map(|op| sym24(op, black))
            .min()
            .unwrap_or(black);
        let h = self
            .hash_canonical_white(white, black)
            .ok_or_else(|| bad(&self.path, "no orbit for the white stones"))?;
        match self.entry(h)? {
            Entry::Value(v) => Ok(v),
            Entry::Sym(_) => Err(self.corrupt(h, "is a canonical position but names a symmetry")),
        }
    }
}

/// The second field (`key2`, bits 12..24) of entry `h`, before the em_set.
fn field2(entries: &[u8], h: usize) -> i32 {
    let a = &entries[ENTRY_SIZE * h..ENTRY_SIZE * h + ENTRY_SIZE];
    sign_extend12(u32::from(a[1]) >> 4 | u32::from(a[2]) << 4)
}

fn sign_extend12(x: u32) -> i32 {
    let x = (x & 0xFFF) as i32;
    if x & 0x800 != 0 {
        x - 0x1000
    } else {
        x
    }
}

#[cfg(test)]
mod tests;
