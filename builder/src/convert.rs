//! Converting the raw files of older format versions (1: movement, one `u16` a value;
//! 2: placement, one byte a value and one checksum over the payload) to the current
//! one, without solving anything again: the old payload is checked against its
//! checksum and its values against the counts of its header as it is read, and the
//! old file is replaced (by a rename, see [`crate::write`]) only when both agree.

use crate::write::write_blocks;
use morris_engine::Rules;
use morris_tablebase::file::{
    encode_byte, file_name, read_header, FileError, Header, Problem, BLOCK, ENCODING_DTM8, VERSION,
};
use morris_tablebase::{SectorId, Value};
use std::io::{BufReader, Read};
use std::path::Path;
use xxhash_rust::xxh3::Xxh3;

/// What [`convert_file`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Converted {
    /// The file was of the current version already: left as it is.
    Current,
    /// Rewritten from an old version.
    From {
        /// The old format version.
        version: u32,
        /// The old file's length in bytes.
        old_len: u64,
    },
}

/// Rewrite the file of `rules` and `sector` in `dir`, written in an older format
/// version, in the current one, safely (temporary file, sync, rename over the old
/// file). The old payload is checked against its checksum and its values against the
/// counts of its header as it is read; nothing replaces the old file unless both
/// agree. A file of the current version is left as it is (so a run can be resumed).
///
/// # Errors
/// A [`FileError`] naming the file: a damaged or unreadable old file, or a failure
/// to write (the old file is then left as it was).
pub fn convert_file(
    dir: &Path,
    rules: impl Into<Rules>,
    sector: impl Into<SectorId>,
) -> Result<Converted, FileError> {
    let rules: Rules = rules.into();
    let sector = sector.into();
    let (file, old) = read_header(&dir.join(file_name(rules, sector)), rules, sector)?;
    if old.version == VERSION {
        return Ok(Converted::Current);
    }
    let width = usize::try_from(old.entry_width()).unwrap_or(1);
    let mut input = BufReader::with_capacity(1 << 20, file);
    let mut raw = vec![0u8; BLOCK * width];
    let hash = std::cell::RefCell::new(Xxh3::new());
    let mut index = 0u64;
    // A value one byte cannot hold is judged after the payload's checksum: in a
    // damaged payload it is the damage, reported as such.
    let unencodable = std::cell::Cell::new(None::<(u64, Value)>);
    let fill = |codes: &mut [u8]| {
        let bytes = &mut raw[..codes.len() * width];
        input.read_exact(bytes)?;
        hash.borrow_mut().update(bytes);
        if width == 1 {
            codes.copy_from_slice(bytes);
        } else {
            for (code, pair) in codes.iter_mut().zip(bytes.chunks_exact(2)) {
                let value = Value(u16::from_le_bytes([pair[0], pair[1]]));
                *code = encode_byte(value).unwrap_or_else(|| {
                    if unencodable.get().is_none() {
                        unencodable.set(Some((index, value)));
                    }
                    0
                });
                index += 1;
            }
        }
        Ok(())
    };
    // Nothing replaces the old file unless it was good.
    let accept = |new: &Header| {
        if hash.borrow().digest() != old.checksum {
            Err(Problem::Checksum {
                first: 0,
                last: old.entries.saturating_sub(1),
            })
        } else if let Some((index, value)) = unencodable.get() {
            Err(Problem::Unencodable {
                index,
                value,
                encoding: ENCODING_DTM8,
            })
        } else if new.stats != old.stats {
            Err(Problem::Counts)
        } else {
            Ok(())
        }
    };
    write_blocks(dir, rules, sector, old.entries, fill, accept)?;
    Ok(Converted::From {
        version: old.version,
        old_len: old.file_len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::tests::sample;
    use morris_engine::Board;
    use morris_tablebase::file::HEADER_LEN;
    use morris_tablebase::index::orbit_count;
    use morris_tablebase::{Sector, SectorFile, SectorStats};
    use std::path::PathBuf;
    use xxhash_rust::xxh3::xxh3_64;

    /// A file of an older version, written as earlier versions of morris did: version
    /// 1 (movement, one `u16` a value) or 2 (placement, one byte a value), one xxh3
    /// over the payload.
    fn write_old(dir: &Path, rules: Rules, sector: SectorId, values: &[u16]) -> PathBuf {
        let (version, encoding, payload): (u32, u8, Vec<u8>) = match sector {
            SectorId::Movement(_) => (1, 1, values.iter().flat_map(|v| v.to_le_bytes()).collect()),
            SectorId::Placement(_) => {
                let codes = values.iter().map(|&v| encode_byte(Value(v)).expect("fits"));
                (2, 2, codes.collect())
            }
        };
        let stats = SectorStats::of(values);
        let mut h = Header {
            version,
            rules,
            sector,
            entries: values.len() as u64,
            checksum: xxh3_64(&payload),
            stats,
        }
        .encode();
        h[8..12].copy_from_slice(&version.to_le_bytes());
        (h[15], h[62]) = (encoding, 0);
        let sum = xxh3_64(&h[0..64]);
        h[64..72].copy_from_slice(&sum.to_le_bytes());
        let path = dir.join(file_name(rules, sector));
        std::fs::write(&path, [&h[..], &payload].concat()).expect("written");
        path
    }

    #[test]
    fn old_files_are_refused_by_name_and_converted_exactly() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let m = SectorId::Movement(Sector::new(4, 3).expect("a sector"));
        let p = SectorId::Placement("3-3+3-3".parse().expect("a sector"));
        for sector in [m, p] {
            let (us, them) = sector.board();
            let n = orbit_count(Board::Nine, usize::from(us), usize::from(them));
            assert!(n > 3 * BLOCK as u64, "{sector}: {n}");
            let mut values = sample(n);
            if matches!(sector, SectorId::Movement(_)) {
                // Movement files hold no inverted values.
                values.iter_mut().for_each(|v| *v &= 0x7FFF);
            }
            let path = write_old(dir.path(), Rules::STANDARD, sector, &values);
            let err = SectorFile::open(&path, Rules::STANDARD, sector).expect_err("old");
            assert!(matches!(err.problem, Problem::OldVersion(_)), "{err}");
            assert!(!err.problem.is_bad_file());
            assert!(err.to_string().contains("morris convert"), "{err}");
            let from = convert_file(dir.path(), Rules::STANDARD, sector).expect("converted");
            assert!(
                matches!(from, Converted::From { version: 1 | 2, .. }),
                "{from:?}"
            );
            let file = SectorFile::open(&path, Rules::STANDARD, sector).expect("current");
            assert_eq!(file.values().expect("good"), values, "{sector}");
            assert_eq!(file.header().stats, SectorStats::of(&values));
            assert_eq!(
                convert_file(dir.path(), Rules::STANDARD, sector).expect("current"),
                Converted::Current
            );
        }
        // A damaged old file is refused whole and kept as it was; nothing is left over.
        let values = sample(orbit_count(Board::Nine, 3, 3));
        let p = SectorId::Placement("3-3+3-3".parse().expect("a sector"));
        let path = write_old(dir.path(), Rules::NO_FLYING, p, &values);
        let mut bytes = std::fs::read(&path).expect("read");
        bytes[HEADER_LEN + 5000] ^= 1;
        std::fs::write(&path, &bytes).expect("written");
        let err = convert_file(dir.path(), Rules::NO_FLYING, p).expect_err("damaged");
        assert!(matches!(err.problem, Problem::Checksum { .. }), "{err}");
        assert_eq!(std::fs::read(&path).expect("kept"), bytes);
        assert!(!dir.path().join("no-flying-3-3+3-3.tb.tmp").exists());
    }
}
