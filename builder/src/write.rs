//! Writing raw sector files (the format of `morris_tablebase::file`), safely: to a
//! temporary name, synced, then renamed, so that a file with the final name is always
//! complete and an interrupted run leaves nothing that looks finished. The compact
//! files of [`crate::pack`] and the conversions of [`crate::convert`] are written the
//! same way.

use morris_engine::Rules;
use morris_tablebase::file::{
    decode_byte, encode_byte, file_name, FileError, Header, Problem, BLOCK, ENCODING_DTM8,
    HEADER_LEN, VERSION,
};
use morris_tablebase::{SectorId, SectorStats, Value};
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

/// Write a sector's values (raw [`Value`]s, movement or placement) to `dir` in one
/// byte an entry, safely (temporary file, sync, rename).
///
/// # Errors
/// A [`FileError`] naming the file: [`Problem::Unencodable`] for a value one byte
/// cannot hold (nothing is written then), or a failure to write; no file with the
/// final name is left behind unless it is complete.
pub fn write_sector(
    dir: &Path,
    rules: impl Into<Rules>,
    sector: impl Into<SectorId>,
    values: &[u16],
) -> Result<Header, FileError> {
    let rules: Rules = rules.into();
    let mut chunks = values.chunks(BLOCK);
    let mut index = 0u64;
    let fill = |codes: &mut [u8]| {
        // `write_blocks` asks for exactly `values.len()` codes, block by block.
        for (code, &raw) in codes.iter_mut().zip(chunks.next().unwrap_or_default()) {
            *code = encode_byte(Value(raw)).ok_or(Problem::Unencodable {
                index,
                value: Value(raw),
                encoding: ENCODING_DTM8,
            })?;
            index += 1;
        }
        Ok(())
    };
    let len = values.len() as u64;
    write_blocks(dir, rules, sector.into(), len, fill, |_| Ok(()))
}

/// Write a file of `entries` entries under the sector's name; `fill` gives the codes of
/// each block in turn. The counts of the header are taken from the codes written.
/// `accept` sees the header before the file gets its final name, and may refuse it.
pub(crate) fn write_blocks(
    dir: &Path,
    rules: Rules,
    sector: SectorId,
    entries: u64,
    mut fill: impl FnMut(&mut [u8]) -> Result<(), Problem>,
    accept: impl FnOnce(&Header) -> Result<(), Problem>,
) -> Result<Header, FileError> {
    write_safely(dir, &file_name(rules, sector), |file| {
        let mut out = BufWriter::with_capacity(1 << 20, file);
        // The header's checksums are known at the end; it is written last, in place.
        out.write_all(&[0; HEADER_LEN])?;
        let mut sums: Vec<u8> = Vec::new();
        let mut stats = SectorStats::default();
        let mut block = [0u8; BLOCK];
        let mut left = entries;
        while left > 0 {
            let n = usize::try_from(left.min(BLOCK as u64)).unwrap_or(BLOCK);
            let codes = &mut block[..n];
            fill(codes)?;
            for &c in codes.iter() {
                stats.add(decode_byte(c));
            }
            sums.extend_from_slice(&xxh3_64(codes).to_le_bytes());
            out.write_all(codes)?;
            left -= n as u64;
        }
        out.write_all(&sums)?;
        out.flush()?;
        drop(out);
        let header = Header {
            version: VERSION,
            rules,
            sector,
            entries,
            checksum: xxh3_64(&sums),
            stats,
        };
        accept(&header)?;
        write_at(file, &header.encode(), 0)?;
        Ok(header)
    })
}

/// Write the file `name` in `dir` safely: `body` writes it under a temporary name
/// (`<name>.tmp`; a stale file or a link planted there is removed, not written
/// through), which is synced, then renamed to `name`, and the rename is made durable.
/// When anything fails the temporary file is removed: a file with the final name is
/// always complete.
///
/// # Errors
/// A [`FileError`] naming the final file: what `body` returned, or a failure to
/// create, sync or rename.
pub(crate) fn write_safely<T>(
    dir: &Path,
    name: &str,
    body: impl FnOnce(&File) -> Result<T, Problem>,
) -> Result<T, FileError> {
    let path = dir.join(name);
    let tmp = dir.join(format!("{name}.tmp"));
    let write = || -> Result<T, Problem> {
        match fs::remove_file(&tmp) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e.into()),
            _ => {}
        }
        let file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        let done = body(&file)?;
        file.sync_all()?;
        drop(file);
        fs::rename(&tmp, &path)?;
        // Make the rename itself durable.
        File::open(dir)?.sync_all()?;
        Ok(done)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        FileError::new(&path, e)
    })
}

/// Write all of `bytes` at `offset` of `file`.
pub(crate) fn write_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.write_all_at(bytes, offset)
    }
    #[cfg(not(unix))]
    {
        use std::io::{Seek, SeekFrom};
        let mut f = file;
        f.seek(SeekFrom::Start(offset))?;
        f.write_all(bytes)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use morris_engine::Board;
    use morris_tablebase::index::orbit_count;
    use morris_tablebase::{Mapper, PlacementSector, Sector, SectorFile};

    /// The promise of mapping, made by tests that change no file while it is mapped.
    #[allow(unsafe_code)]
    pub(crate) fn mapper() -> Mapper {
        // SAFETY: the tests change a file only after its mappings are dropped, or
        // write a new file under another name.
        unsafe { Mapper::new() }
    }

    #[test]
    fn a_placement_file_round_trips_and_refuses_what_one_byte_cannot_hold() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let p: PlacementSector = "2-1+1-1".parse().expect("a sector");
        let n = p.size(Board::Nine) as usize;
        let values: Vec<u16> = (0..n)
            .map(|i| {
                [
                    Value::DRAW,
                    Value::win(0),
                    Value::loss(1),
                    Value::decided(235),
                ][i % 4]
                    .0
            })
            .collect();
        let header = write_sector(dir.path(), Rules::STANDARD, p, &values).expect("written");
        assert_eq!(
            (header.stats.longest_win, header.stats.longest_loss),
            (235, 1)
        );
        let path = dir.path().join("standard-2-1+1-1.tb");
        let len = std::fs::metadata(&path).expect("written").len();
        assert_eq!(
            len,
            HEADER_LEN as u64 + n as u64 + 8 * n.div_ceil(BLOCK) as u64
        );
        for file in [
            SectorFile::open(&path, Rules::STANDARD, p).expect("opens"),
            SectorFile::open_mapped(&path, Rules::STANDARD, p, mapper()).expect("opens"),
        ] {
            assert_eq!(file.header().sector, SectorId::Placement(p));
            assert_eq!(file.values().expect("checked"), values);
            for (i, &raw) in values.iter().enumerate() {
                assert_eq!(file.value(i as u64).expect("a value"), Value(raw));
            }
            assert!(file.value(n as u64).is_err());
        }
        // A movement name does not open a placement file, nor the other way round.
        let moved = dir.path().join("standard-3-3.tb");
        std::fs::copy(&path, &moved).expect("copied");
        let err = SectorFile::open(
            &moved,
            Rules::STANDARD,
            Sector::new(3, 3).expect("a sector"),
        )
        .expect_err("refused");
        assert!(matches!(err.problem, Problem::Sector { .. }), "{err}");
        let mut bad = values.clone();
        bad[n - 1] = Value::decided(300).0;
        std::fs::remove_file(&path).expect("removed");
        let err = write_sector(dir.path(), Rules::STANDARD, p, &bad).expect_err("refused");
        assert!(
            matches!(err.problem, Problem::Unencodable { index, .. } if index == n as u64 - 1),
            "{err}"
        );
        assert!(!path.exists());
        assert!(!dir.path().join("standard-2-1+1-1.tb.tmp").exists());
    }

    /// Every layer of the opening refuses a damaged placement file, naming it.
    #[test]
    fn each_damage_to_a_placement_file_is_refused() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let p: PlacementSector = "2-2+2-1".parse().expect("a sector");
        let values: Vec<u16> = (0..p.size(Board::Nine)).map(|i| (i % 3) as u16).collect();
        write_sector(dir.path(), Rules::NO_FLYING, p, &values).expect("written");
        let path = dir.path().join(file_name(Rules::NO_FLYING, p));
        let good = std::fs::read(&path).expect("read");
        // Patch header bytes, then make the header checksum match again so that the
        // check after it is the one that fires.
        let resum = |b: &mut Vec<u8>| {
            let sum = xxh3_64(&b[0..64]);
            b[64..72].copy_from_slice(&sum.to_le_bytes());
        };
        type Damage = Box<dyn Fn(&mut Vec<u8>)>;
        type Case = (&'static str, Damage, fn(&Problem) -> bool);
        let cases: Vec<Case> = vec![
            ("short", Box::new(|b| b.truncate(100)), |p| {
                matches!(p, Problem::Truncated(100))
            }),
            ("magic", Box::new(|b| b[0] ^= 1), |p| {
                matches!(p, Problem::Magic)
            }),
            ("header sum", Box::new(|b| b[61] ^= 1), |p| {
                matches!(p, Problem::HeaderChecksum)
            }),
            ("reserved", Box::new(|b| b[100] = 1), |p| {
                matches!(p, Problem::Reserved(100))
            }),
            (
                "version",
                Box::new(move |b| {
                    b[8] = 4;
                    resum(b)
                }),
                |p| matches!(p, Problem::Version(4)),
            ),
            (
                "old version",
                Box::new(move |b| {
                    b[8] = 1;
                    resum(b)
                }),
                |p| matches!(p, Problem::Encoding(2)),
            ),
            (
                "encoding",
                Box::new(move |b| {
                    b[15] = 1;
                    resum(b)
                }),
                |p| matches!(p, Problem::Encoding(1)),
            ),
            (
                "rules",
                Box::new(move |b| {
                    b[12] = 0;
                    resum(b)
                }),
                |p| matches!(p, Problem::Rules { .. }),
            ),
            (
                "board",
                Box::new(move |b| {
                    b[13] = 3;
                    resum(b)
                }),
                |p| matches!(p, Problem::Sector { .. }),
            ),
            (
                "hand",
                Box::new(move |b| {
                    b[60] = 3;
                    resum(b)
                }),
                |p| matches!(p, Problem::Sector { .. }),
            ),
            (
                "entries",
                Box::new(move |b| {
                    b[16] ^= 1;
                    resum(b)
                }),
                |p| matches!(p, Problem::Entries { .. }),
            ),
            ("padded", Box::new(|b| b.push(0)), |p| {
                matches!(p, Problem::Length { .. })
            }),
            (
                "cut",
                Box::new(|b| {
                    b.pop();
                }),
                |p| matches!(p, Problem::Length { .. }),
            ),
            (
                "block size",
                Box::new(move |b| {
                    b[62] = 11;
                    resum(b)
                }),
                |p| matches!(p, Problem::BlockSize(11)),
            ),
            ("payload", Box::new(|b| b[HEADER_LEN + 7] ^= 0x40), |p| {
                matches!(p, Problem::Checksum { first: 0, .. })
            }),
            (
                "block sums",
                Box::new(|b| *b.last_mut().expect("bytes") ^= 1),
                |p| matches!(p, Problem::BlockSums),
            ),
        ];
        for (name, damage, expected) in cases {
            let mut bytes = good.clone();
            damage(&mut bytes);
            std::fs::write(&path, &bytes).expect("written");
            let err = SectorFile::open(&path, Rules::NO_FLYING, p)
                .and_then(|f| f.check_payload())
                .expect_err(name);
            assert!(expected(&err.problem), "{name}: {err}");
            assert!(err.to_string().contains("no-flying-2-2+2-1.tb"), "{err}");
        }
        std::fs::remove_file(&path).expect("removed");
        std::fs::create_dir(&path).expect("a directory");
        let err = SectorFile::open(&path, Rules::NO_FLYING, p).expect_err("a directory");
        assert!(matches!(err.problem, Problem::NotRegular), "{err}");
    }

    /// Values of every kind, several blocks' worth.
    pub(crate) fn sample(n: u64) -> Vec<u16> {
        let kinds = [
            Value::DRAW,
            Value::win(1),
            Value::loss(2),
            Value::win(203),
            Value::win(0),
        ];
        (0..n).map(|i| kinds[(i * 7 % 5) as usize].0).collect()
    }

    #[test]
    fn a_damaged_block_fails_only_the_reads_it_holds() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let sector = Sector::new(4, 3).expect("a sector");
        let n = orbit_count(Board::Nine, 4, 3);
        let values: Vec<u16> = sample(n).iter().map(|v| v & 0x7FFF).collect();
        write_sector(dir.path(), Rules::STANDARD, sector, &values).expect("written");
        let path = dir.path().join("standard-4-3.tb");
        let mut bytes = std::fs::read(&path).expect("read");
        let damaged = 2 * BLOCK + 17;
        bytes[HEADER_LEN + damaged] ^= 0x10;
        std::fs::write(&path, &bytes).expect("written");
        for file in [
            SectorFile::open(&path, Rules::STANDARD, sector).expect("opens"),
            SectorFile::open_mapped(&path, Rules::STANDARD, sector, mapper()).expect("opens"),
        ] {
            for i in [0, BLOCK - 1, BLOCK, 3 * BLOCK, n as usize - 1] {
                assert_eq!(
                    file.value(i as u64).expect("a good block"),
                    Value(values[i])
                );
            }
            for i in [2 * BLOCK, damaged, 3 * BLOCK - 1] {
                let err = file.value(i as u64).expect_err("the damaged block");
                assert!(
                    matches!(err.problem, Problem::Checksum { first, last }
                        if first == 2 * BLOCK as u64 && last == 3 * BLOCK as u64 - 1),
                    "{err}"
                );
                assert!(err.to_string().contains("standard-4-3.tb"), "{err}");
            }
            assert!(file.entries().is_err());
            assert!(file.check_payload().is_err());
        }
    }
}
