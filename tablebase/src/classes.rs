//! Draw classes: where a drawn game settles, the refinement of the strong solution
//! that lets a perfect player choose among its drawing moves (an *ultra-strong*
//! solution, after Gévay and Danner).
//!
//! Every movement sector `X-Y` has a **stay class**: the expected score margin of the
//! side with `X` pieces over the positions of the sector pair (`X-Y` and `Y-X`
//! together), win 1, draw 1/2, loss 0, as the values' counts give it, in percent
//! points from -100 to 100: `round(100 * (2 e - 1))` with
//! `e = (W(X-Y) + D(X-Y)/2 + L(Y-X) + D(Y-X)/2) / (N(X-Y) + N(Y-X))`. It is symmetric
//! (`Y-X` has the negated class) and 0 for the sectors of equal material. A drawn
//! position's **class**, for its side to move, is the stay class of the sector where
//! the game stays for ever when each side, among the moves that keep its value
//! (draws), steers towards the class best for itself: a higher class is better. The
//! builder (`morris-builder`, `classes`) computes it pair by pair from the
//! smallest material up; [`Class::distance`] is the number of plies in which the side
//! ahead of its sector's stay class forces the game out of the pair, so that play
//! which follows the classes makes progress.
//!
//! One file per rules and sector, `<rules>-<sector>.cls` beside the value files:
//! a block file ([`crate::blocks`]) whose blocks cover `2^k` positions each in the
//! order of the value file and store the entries of their drawn positions alone,
//! little-endian throughout (`n` entries, `b` blocks):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `MORRISCL` |
//! | 8 | 4 | format version: 3 (2 is read too, see below) |
//! | 12 | 1 | rules: 0 standard, 1 no-flying |
//! | 13 | 1, 1 | pieces of the side to move, of the opponent on the board |
//! | 15 | 1, 1 | pieces in hand of the side to move, of the opponent |
//! | 17 | 1 | the sector's stay class (`i8`; 0 for a placement sector) |
//! | 18 | 1 | `k`, log2 of the entries of a block: 10 to 20 |
//! | 19 | 1 | codec: 1 zstd |
//! | 20 | 1 | the compression level used (for information) |
//! | 21 | 3 | zero |
//! | 24 | 8 | entry count `n` |
//! | 32 | 8 | the block-checksum field of the value file the classes were built from |
//! | 40 | 8 | xxh3-64 of the block index |
//! | 48 | 8 | drawn entries |
//! | 56 | 8 | length of the compressed data `d` |
//! | 64 | 56 | zero |
//! | 120 | 8 | xxh3-64 of bytes 0..120 |
//! | 128 | 16 b | per block: end offset of its data, xxh3-64 of it |
//! | 128 + 16 b | d | the compressed blocks |
//!
//! A block holds, for its `m` drawn positions in order, their `m` classes (`i8`)
//! and then their `m` distances (`u8`), compressed alone: the value file says which
//! positions are drawn, so a decided position costs nothing, and the two planes
//! compress better apart. A reader expands a block with the values of its positions
//! ([`ClassFile::class`]), and the expanded block is what the cache keeps; a block
//! whose drawn entries are not as many as the values' draws is damaged. A class is
//! therefore read only for a position the values say is drawn, as
//! [`crate::Tablebase::class`] does. A file whose value file changed (another
//! checksum) is refused: classes belong to the values they were computed from.
//!
//! A one-sided set has no class file for the sectors whose classes follow from their
//! successors' ([`SectorId::distances_derived`]); [`crate::Tablebase::class`] finds
//! them by a one-ply search ([`combine`]).
//!
//! Format version 2 stored every entry, two bytes a position
//! (`class as u8 << 8 | distance` where drawn, "don't care" elsewhere); it is still
//! read, and `morris generate` rewrites such a file in version 3 from its entries.
//! Format version 1 (raw entries, `0x8000` for a decided position) is refused by
//! name; `morris generate` builds such a file again.

use crate::blocks::{BlockCache, BlockFile, Layout};
use crate::file::{check_size, open_header, FileError, Problem, HEADER_LEN};
use crate::sector::SectorId;
use crate::value::SectorStats;
use morris_engine::Rules;
use rayon::prelude::*;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use xxhash_rust::xxh3::xxh3_64;

/// The magic bytes of a class file.
pub const MAGIC: [u8; 8] = *b"MORRISCL";
/// The format version of class files written now: blocks of drawn entries only.
pub const VERSION: u32 = 3;
/// The earlier format version, still read: blocks of every entry.
pub const VERSION_ALL_ENTRIES: u32 = 2;
/// The entry the builder keeps in memory for a decided position (never a class);
/// files store "don't care" there.
pub const DECIDED: u16 = 0x8000;
/// The block sizes a class file may have (log2 of its entries).
pub const BLOCK_LOG2_RANGE: std::ops::RangeInclusive<u8> = 10..=20;
/// Codec byte of zstd.
pub const CODEC_ZSTD: u8 = 1;
/// The largest class magnitude.
pub const MAX_CLASS: i8 = 100;

/// The class of a drawn position for its side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Class {
    /// The stay class of the sector where the game settles, for the side to move
    /// (-100 to 100, higher is better).
    pub class: i8,
    /// Plies until the game leaves the sector pair for the one it settles in, when
    /// the side to move's class differs from its sector's stay class (the side ahead
    /// forces it in this many plies at most, the side behind delays it as long as it
    /// can); 0 where the game stays (and in the placement phase, which always moves on).
    pub distance: u8,
}

impl Class {
    /// The stored entry of the class.
    pub fn encode(self) -> u16 {
        u16::from(self.class as u8) << 8 | u16::from(self.distance)
    }

    /// The class an entry holds; `None` for [`DECIDED`] or an entry out of range.
    pub fn decode(entry: u16) -> Option<Class> {
        let class = (entry >> 8) as u8 as i8;
        (class.unsigned_abs() <= MAX_CLASS as u8).then_some(Class {
            class,
            distance: entry as u8,
        })
    }
}

/// The class of a drawn position from its drawing moves: for each, the class it
/// leads to for the side to move (the successor's class negated) and that
/// successor's distance when it lies in the position's own movement pair (0 for a
/// move that leaves the pair, and in the placement phase). `stay` is the stay class of
/// a movement position's sector (`None` in the placement phase). The best class wins;
/// the distance, where the class differs from the stay class, is one more than the
/// shortest (the side ahead forces the exit) or the longest (the side behind delays
/// it) among the moves to that class. `None` without a drawing move.
pub fn combine(children: &[(i8, u8)], stay: Option<i8>) -> Option<Class> {
    let best = children.iter().map(|c| c.0).max()?;
    let keeping = children
        .iter()
        .filter(|c| c.0 == best)
        .map(|c| u16::from(c.1));
    let distance = match stay {
        Some(stay) if best > stay => keeping.min().map_or(0, |d| d + 1),
        Some(stay) if best < stay => keeping.max().map_or(0, |d| d + 1),
        _ => 0,
    };
    Some(Class {
        class: best,
        distance: u8::try_from(distance).unwrap_or(u8::MAX),
    })
}

/// The stay class of the sector pair whose counts are `own` (the side with `X`
/// pieces to move) and `swapped` (the side with `Y` pieces to move): the expected
/// score margin of the `X` side in percent points, 0 for an empty pair.
pub fn stay_class(own: &SectorStats, swapped: &SectorStats) -> i8 {
    // f64::round rounds half away from zero: the swapped pair gets the exact negation.
    (100.0 * (2.0 * expected_score(own, swapped) - 1.0)).round() as i8
}

/// The expected score of the `X` side over the pair whose counts are `own` and
/// `swapped` (as [`stay_class`]): win 1, draw 1/2, loss 0; 1/2 for an empty pair.
pub fn expected_score(own: &SectorStats, swapped: &SectorStats) -> f64 {
    let count = |s: &SectorStats| s.wins + s.draws + s.losses;
    let total = (count(own) + count(swapped)) as f64;
    if total == 0.0 {
        return 0.5;
    }
    let half = (own.draws + swapped.draws) as f64 / 2.0;
    (own.wins as f64 + swapped.losses as f64 + half) / total
}

/// The name of the class file of a sector.
pub fn file_name(rules: impl Into<Rules>, sector: impl Into<SectorId>) -> String {
    let rules: Rules = rules.into();
    format!("{}-{}.cls", rules.table_name(), sector.into())
}

/// The rules and sector a class file name stands for, if it is one.
pub fn parse_file_name(name: &str) -> Option<(Rules, SectorId)> {
    let stem = name.strip_suffix(".cls")?;
    let (rules, sector) = crate::file::parse_file_name(&format!("{stem}.tb"))?;
    Some((rules, sector))
}

/// The decoded header of a class file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The format version: [`VERSION`], or [`VERSION_ALL_ENTRIES`] for a file of an
    /// earlier build.
    pub version: u32,
    /// The rules.
    pub rules: Rules,
    /// The sector.
    pub sector: SectorId,
    /// The sector's stay class (0 for a placement sector).
    pub stay: i8,
    /// Entries.
    pub entries: u64,
    /// The checksum field of the value file the classes come from.
    pub values: u64,
    /// Drawn entries.
    pub draws: u64,
    /// log2 of the entries of a block.
    pub block_log2: u8,
    /// The zstd level it was written with.
    pub level: u8,
    /// xxh3-64 of the block index.
    pub index_sum: u64,
    /// Bytes of compressed data.
    pub data_len: u64,
}

impl Header {
    /// Where the file's index and blocks lie.
    pub fn layout(&self) -> Layout {
        Layout {
            entries: self.entries,
            width: 2,
            block_log2: self.block_log2,
            index_sum: self.index_sum,
            data_len: self.data_len,
        }
    }

    /// The length of the file the header describes.
    pub fn file_len(&self) -> u64 {
        self.layout().file_len()
    }

    /// The header's bytes.
    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[0..8].copy_from_slice(&MAGIC);
        h[8..12].copy_from_slice(&self.version.to_le_bytes());
        h[12] = self.rules.table_index() as u8;
        (h[13], h[14]) = self.sector.board();
        if let SectorId::Placement(p) = self.sector {
            (h[15], h[16]) = (p.us_hand, p.them_hand);
        }
        h[17] = self.stay as u8;
        h[18] = self.block_log2;
        h[19] = CODEC_ZSTD;
        h[20] = self.level;
        h[24..32].copy_from_slice(&self.entries.to_le_bytes());
        h[32..40].copy_from_slice(&self.values.to_le_bytes());
        h[40..48].copy_from_slice(&self.index_sum.to_le_bytes());
        h[48..56].copy_from_slice(&self.draws.to_le_bytes());
        h[56..64].copy_from_slice(&self.data_len.to_le_bytes());
        let sum = xxh3_64(&h[0..120]);
        h[120..128].copy_from_slice(&sum.to_le_bytes());
        h
    }

    /// Decode and check a header against the rules and sector its name says.
    fn decode(h: &[u8; HEADER_LEN], rules: Rules, sector: SectorId) -> Result<Header, Problem> {
        let u64_at = |i: usize| u64::from_le_bytes(h[i..i + 8].try_into().unwrap_or_default());
        if h[0..8] != MAGIC {
            return Err(Problem::Magic);
        }
        let version = u32::from_le_bytes([h[8], h[9], h[10], h[11]]);
        if version != VERSION && version != VERSION_ALL_ENTRIES {
            return Err(Problem::ClassVersion {
                found: version,
                newest: VERSION,
            });
        }
        if xxh3_64(&h[0..120]) != u64_at(120) {
            return Err(Problem::HeaderChecksum);
        }
        if let Some(at) = (21..24).chain(64..120).find(|&i| h[i] != 0) {
            return Err(Problem::Reserved(at));
        }
        if h[19] != CODEC_ZSTD {
            return Err(Problem::Codec(h[19]));
        }
        if !BLOCK_LOG2_RANGE.contains(&h[18]) {
            return Err(Problem::BlockSize(h[18]));
        }
        let found_variant = Rules::from_table_index(usize::from(h[12]));
        if found_variant != Some(rules.tables()) {
            return Err(Problem::Rules {
                expected: rules,
                found: found_variant.map_or(format!("unknown ({})", h[12]), |v| v.table_name()),
            });
        }
        let found = if (h[15], h[16]) == (0, 0) {
            format!("{}-{}", h[13], h[14])
        } else {
            format!("{}-{}+{}-{}", h[13], h[14], h[15], h[16])
        };
        if found != sector.to_string() {
            return Err(Problem::Sector {
                expected: sector,
                found,
            });
        }
        let stay = h[17] as i8;
        if stay.unsigned_abs() > MAX_CLASS as u8
            || (matches!(sector, SectorId::Placement(_)) && stay != 0)
        {
            return Err(Problem::Implausible {
                index: 0,
                entries: 0,
            });
        }
        Ok(Header {
            version,
            rules,
            sector,
            stay,
            entries: u64_at(24),
            values: u64_at(32),
            index_sum: u64_at(40),
            draws: u64_at(48),
            data_len: u64_at(56),
            block_log2: h[18],
            level: h[20],
        })
    }
}

/// An opened class file: header and length checked at opening, the block index and
/// each block checked when first read.
#[derive(Debug)]
pub struct ClassFile {
    header: Header,
    blocks: BlockFile,
}

impl ClassFile {
    /// Open the class file of `rules` and `sector` at `path`, checking its header
    /// and length, with decompressed blocks kept in `cache`.
    ///
    /// # Errors
    /// A [`FileError`] naming the file and the first problem found.
    pub fn open(
        path: &Path,
        rules: impl Into<Rules>,
        sector: SectorId,
        cache: Arc<BlockCache>,
    ) -> Result<ClassFile, FileError> {
        let rules: Rules = rules.into();
        let err = |p: Problem| FileError::new(path, p);
        let (file, len, raw) = open_header(path)?;
        let header = Header::decode(&raw, rules, sector).map_err(err)?;
        check_size((rules, sector), header.entries, header.file_len(), len).map_err(err)?;
        Ok(ClassFile {
            header,
            blocks: BlockFile::new(path, file, header.layout(), cache),
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        self.blocks.path()
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The class of entry `index`, which must be a drawn position (a decided one's
    /// entry means nothing). `drawn(first, len)` says which positions of the entries
    /// `first..first + len` are drawn, by the values: a block of the file stores the
    /// classes of its drawn positions alone.
    ///
    /// # Errors
    /// A [`FileError`] naming the file: a damaged block (or one whose drawn entries
    /// are not as many as the values' draws), and [`Problem::Implausible`] for an
    /// index beyond the sector or an entry that is no class; or what `drawn` returns.
    pub fn class(
        &self,
        index: u64,
        drawn: impl FnOnce(u64, usize) -> Result<Vec<bool>, FileError>,
    ) -> Result<Class, FileError> {
        let e = if self.header.version == VERSION_ALL_ENTRIES {
            self.blocks.entry(index)?
        } else {
            self.blocks.entry_expanded(index, |b, stored| {
                let first = b * self.blocks.layout().block();
                let mask = drawn(first, self.blocks.layout().block_len(b))?;
                self.expand(b, &stored, &mask)
            })?
        };
        Class::decode(e).ok_or_else(|| {
            FileError::new(
                self.path(),
                Problem::Implausible {
                    index,
                    entries: self.header.entries,
                },
            )
        })
    }

    /// A block's entries (two bytes each, [`DECIDED`] where the position is not
    /// drawn) from its stored bytes: the classes of its drawn positions, then their
    /// distances.
    fn expand(&self, b: u64, stored: &[u8], drawn: &[bool]) -> Result<Vec<u8>, FileError> {
        if self.header.version == VERSION_ALL_ENTRIES {
            return Ok(stored.to_vec());
        }
        let m = drawn.iter().filter(|&&d| d).count();
        if stored.len() != 2 * m {
            return Err(self.blocks.damaged(b));
        }
        let (classes, distances) = stored.split_at(m);
        let mut out = Vec::with_capacity(2 * drawn.len());
        let mut k = 0;
        for &d in drawn {
            let e = if d {
                k += 1;
                u16::from(classes[k - 1]) << 8 | u16::from(distances[k - 1])
            } else {
                DECIDED
            };
            out.extend_from_slice(&e.to_le_bytes());
        }
        Ok(out)
    }

    /// Every entry, each block checked, decompressed on the threads of the current
    /// rayon pool (the cache is left alone); [`DECIDED`] (or, in a file of the
    /// earlier format, anything) for the positions `drawn(index)` says are not drawn.
    ///
    /// # Errors
    /// A [`FileError`] naming the file: the first damaged block, or no memory.
    pub fn entries(&self, drawn: &(dyn Fn(u64) -> bool + Sync)) -> Result<Vec<u16>, FileError> {
        let n = usize::try_from(self.header.entries).unwrap_or(usize::MAX);
        let mut out = Vec::new();
        out.try_reserve_exact(n).map_err(|_| {
            FileError::new(
                self.path(),
                std::io::Error::new(
                    std::io::ErrorKind::OutOfMemory,
                    "cannot allocate memory to decode the file",
                ),
            )
        })?;
        out.resize(n, 0);
        let block = 1usize << self.header.block_log2;
        out.par_chunks_mut(block)
            .enumerate()
            .try_for_each(|(b, chunk)| {
                let first = (b * block) as u64;
                let stored = if self.header.version == VERSION_ALL_ENTRIES {
                    self.blocks.load_block(b as u64)?
                } else {
                    self.blocks.load_selected(b as u64)?
                };
                let mask: Vec<bool> = (0..chunk.len() as u64).map(|i| drawn(first + i)).collect();
                let bytes = self.expand(b as u64, &stored, &mask)?;
                for ((e, c), &d) in chunk.iter_mut().zip(bytes.chunks_exact(2)).zip(&mask) {
                    *e = if d {
                        u16::from_le_bytes([c[0], c[1]])
                    } else {
                        DECIDED
                    };
                }
                Ok(())
            })?;
        Ok(out)
    }
}

/// The class files in `dir` (by name: rules, sector, path), sorted; an absent
/// directory has none.
///
/// # Errors
/// A [`FileError`] naming the directory when it cannot be read.
pub fn class_names(dir: &Path) -> Result<Vec<(Rules, SectorId, PathBuf)>, FileError> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(FileError::new(dir, e)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| FileError::new(dir, e))?;
        let name = entry.file_name();
        if let Some((v, s)) = name.to_str().and_then(parse_file_name) {
            found.push((v, s, entry.path()));
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::SectorStats;

    #[test]
    fn entries_round_trip_and_decided_is_no_class() {
        for class in -100i8..=100 {
            for distance in [0u8, 1, 77, 255] {
                let c = Class { class, distance };
                assert_eq!(Class::decode(c.encode()), Some(c));
                assert_ne!(c.encode(), DECIDED);
            }
        }
        assert_eq!(Class::decode(DECIDED), None);
        assert_eq!(Class::decode(0x6500), None, "class 101 is out of range");
    }

    #[test]
    fn stay_classes_are_symmetric() {
        let s = |wins, draws, losses| SectorStats {
            wins,
            draws,
            losses,
            ..SectorStats::default()
        };
        let (a, b) = (s(70, 20, 10), s(5, 30, 65));
        // e = (70 + 65 + 25) / 200 = 0.8: margin 60.
        assert_eq!(stay_class(&a, &b), 60);
        assert_eq!(stay_class(&b, &a), -60);
        let c = s(10, 80, 10);
        assert_eq!(stay_class(&c, &c), 0);
        // Half a point rounds away from zero both ways.
        let (d, e) = (s(1, 0, 0), s(0, 0, 199));
        assert_eq!(stay_class(&d, &e), -stay_class(&e, &d));
    }

    #[test]
    fn names_round_trip() {
        let s: SectorId = "4-3"
            .parse::<crate::Sector>()
            .map(SectorId::Movement)
            .unwrap();
        assert_eq!(file_name(Rules::STANDARD, s), "standard-4-3.cls");
        assert_eq!(
            parse_file_name("standard-4-3.cls"),
            Some((Rules::STANDARD, s))
        );
        assert_eq!(parse_file_name("standard-4-3.tb"), None);
    }
}
