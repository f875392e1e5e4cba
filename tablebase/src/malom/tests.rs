use super::*;
use crate::SectorIndex;
use morris_engine::tables::{ADJACENT, MILLS};
use morris_engine::{Board, Symmetry, Wdl};

/// Malom's mill masks (`movegen.cpp`, Standard).
const MALOM_MILLS: [u32; 16] = [
    14, 56, 224, 131, 3584, 14336, 57344, 33536, 917504, 3670016, 14680064, 8585216, 65793, 263172,
    1052688, 4210752,
];

/// Malom's neighbours of each point (`movegen.cpp`, Standard `slide_adjmasks`).
const MALOM_ADJACENT: [u32; 24] = [
    386, 5, 1034, 20, 4136, 80, 16544, 65, 98817, 1280, 264708, 5120, 1058832, 20480, 4235328,
    16640, 8519936, 327680, 656384, 1310720, 2625536, 5242880, 10502144, 4259840,
];

/// Malom's orbit counts of white sets (`wrappers.h`, `f_inv_count`).
const MALOM_ORBITS: [usize; 10] = [1, 4, 30, 158, 757, 2830, 8774, 22188, 46879, 82880];

#[test]
fn the_point_mapping_keeps_mills_and_adjacency() {
    let mut ours: Vec<u32> = MILLS.iter().map(|m| m.bits()).collect();
    let mut mapped: Vec<u32> = MALOM_MILLS.iter().map(|&m| to_ours(m).bits()).collect();
    ours.sort_unstable();
    mapped.sort_unstable();
    assert_eq!(ours, mapped);
    for (bit, &adj) in MALOM_ADJACENT.iter().enumerate() {
        let p = to_ours(1 << bit).first().unwrap();
        assert_eq!(
            ADJACENT[p.index()],
            to_ours(adj),
            "neighbours of Malom bit {bit}"
        );
    }
    for set in [0, 1, 0x00F0_F00F, 0x00FF_FFFF, 0x0012_3456] {
        assert_eq!(from_ours(to_ours(set)), set);
    }
}

#[test]
fn malom_symmetries_are_the_sixteen_board_symmetries_in_its_order() {
    // Spot values from symmetries_slow.cpp.
    assert_eq!(sym24(0, 1 << 6), 1 << 0); // rot90: bit 6 -> 0
    assert_eq!(sym24(3, 1 << 5), 1 << 7); // tt_fuggoleges: 5 -> 7
    assert_eq!(sym24(4, 1 << 9), 1 << 15); // tt_vizszintes: 9 -> 15
    assert_eq!(sym24(5, 1 << 19), 1 << 23); // tt_bslash: 19 -> 23
    assert_eq!(sym24(6, 1 << 8), 1 << 14); // tt_slash: 8 -> 14
    assert_eq!(sym24(7, 1 << 3), 1 << 19); // swap: 3 -> 19
    assert_eq!(sym24(8, 1 << 0), 1 << 18); // swap(rot90): 0 -> 2 -> 18
    assert_eq!(sym24(15, 0x0012_3456), 0x0012_3456);
    // Each keeps the mills, and together they are our sixteen.
    let mut mills: Vec<u32> = MALOM_MILLS.to_vec();
    mills.sort_unstable();
    let mut images = Vec::new();
    for op in 0..16 {
        let mut m: Vec<u32> = MALOM_MILLS.iter().map(|&x| sym24(op, x)).collect();
        m.sort_unstable();
        assert_eq!(m, mills, "op {op}");
        let probe = 0x0000_0107 | 1 << 13 | 1 << 22;
        images.push(to_ours(sym24(op, probe)).bits());
    }
    let probe = to_ours(0x0000_0107 | 1 << 13 | 1 << 22);
    let mut ours: Vec<u32> = Symmetry::ALL
        .iter()
        .map(|s| s.apply(probe).bits())
        .collect();
    images.sort_unstable();
    ours.sort_unstable();
    images.dedup();
    assert_eq!(images.len(), 16);
    assert_eq!(images, ours);
}

#[test]
fn orbit_counts_are_malom_s() {
    for (w, &n) in MALOM_ORBITS.iter().enumerate() {
        assert_eq!(orbit_mins(w as u8).len(), n, "{w} white stones");
    }
    assert_eq!(MalomSector::new(3, 3, 0, 0).unwrap().entry_count(), 210_140);
    assert_eq!(MalomSector::new(4, 3, 0, 0).unwrap().entry_count(), 862_980);
}

#[test]
fn collapse_and_colex_round_trip() {
    let white = 0b1011_0000_0000_0000_0001_0110;
    for rank in 0..binom(18, 3) {
        let set = colex_unrank(rank, 3);
        assert_eq!(set.count_ones(), 3);
        assert_eq!(colex_rank(set), rank);
        let black = uncollapse(white, set);
        assert_eq!(black & white, 0);
        assert_eq!(collapse(white, black), set);
    }
    // Colex order is the order of next_choose.
    let mut set = 0b111u32;
    for rank in 0..200 {
        assert_eq!(colex_rank(set), rank);
        set = next_choose(set);
    }
}

#[test]
fn file_names() {
    let s = MalomSector::from_file_name("std_3_4_5_5.sec2").unwrap();
    assert_eq!((s.w, s.b, s.wf, s.bf), (3, 4, 5, 5));
    assert_eq!(s.file_name(), "std_3_4_5_5.sec2");
    assert_eq!(s.ours().unwrap().to_string(), "3-4+5-5");
    assert_eq!(
        MalomSector::new(4, 3, 0, 0)
            .unwrap()
            .ours()
            .unwrap()
            .to_string(),
        "4-3"
    );
    assert_eq!(MalomSector::new(2, 2, 0, 0).unwrap().ours(), None);
    for bad in [
        "std_3_4_5_5.sec",
        "mora_3_4_5_5.sec2",
        "std_3_4_5.sec2",
        "std_3_4_5_5_1.sec2",
        "std_9_9_1_0.sec2",
        "std_10_1_0_0.sec2",
        "std_a_1_0_0.sec2",
    ] {
        assert_eq!(MalomSector::from_file_name(bad), None, "{bad}");
    }
}

const SECVAL: &str =
    "virt_loss_val: -299\nvirt_win_val: 299\n3\n1 1 8 8  5\n3 3 0 0  0\n4 3 0 0  -40\n";

#[test]
fn sector_values_parse_and_refuse() {
    let v = SectorValues::parse(SECVAL).unwrap();
    assert_eq!((v.virt_loss, v.virt_win), (-299, 299));
    assert_eq!(v.get(MalomSector::new(4, 3, 0, 0).unwrap()), Some(-40));
    assert_eq!(v.get(MalomSector::new(3, 4, 0, 0).unwrap()), None);
    for bad in [
        "",
        "virt_loss_val: -299\nvirt_win_val: 298\n0\n",
        "virt_loss_val: -299\nvirt_win_val: 299\n2\n1 1 8 8  5\n",
        "virt_loss_val: -299\nvirt_win_val: 299\n1\n1 1 8 8\n",
        "virt_loss_val: -299\nvirt_win_val: 299\n1\n1 1 8 8  300\n",
        "virt_loss_val: -299\nvirt_win_val: 299\n1\n1 1 8 8  5\nextra\n",
    ] {
        assert!(SectorValues::parse(bad).is_err(), "{bad:?}");
    }
}

/// The value the synthetic files give a canonical position: every kind, and depths
/// too large for the entry (the em_set).
fn synthetic_value(h: u64) -> MalomValue {
    match h % 5 {
        0 => MalomValue::Win {
            depth: (h % 4000) as u32 | 1,
        },
        1 => MalomValue::Loss {
            depth: (h % 300) as u32 & !1,
        },
        2 => MalomValue::Draw { sector_value: 0 },
        3 => MalomValue::Draw { sector_value: 5 },
        _ => MalomValue::Draw { sector_value: -40 },
    }
}

/// A sector file as Malom writes it (`Sector::save`, `init`): canonical boards hold
/// `value(h)`, the others the first symmetry that reaches their canonical board.
fn write_sector(sector: MalomSector, sval: i16, value: impl Fn(u64) -> MalomValue) -> Vec<u8> {
    let orbits = orbit_mins(sector.w);
    let m = binom(24 - u32::from(sector.w), u32::from(sector.b));
    let mut out = vec![0u8; HEADER_SIZE];
    out[0] = 2;
    out[4] = 3;
    out[8] = 12;
    let mut em = Vec::new();
    for h in 0..orbits.len() as u64 * m {
        let white = orbits[(h / m) as usize];
        let black = uncollapse(white, colex_unrank(h % m, u32::from(sector.b)));
        let board = |op: usize| u64::from(sym24(op, white)) | u64::from(sym24(op, black)) << 24;
        let (mut least, mut op_least) = (board(15), None);
        for op in 0..16 {
            if sym24(op, white) == white && board(op) < least {
                least = board(op);
                op_least = Some(op);
            }
        }
        let (key1, mut key2): (i32, i32) = match op_least {
            Some(op) => (0, -(op as i32) - 1),
            None => match value(h) {
                MalomValue::Win { depth } => (299 - i32::from(sval), depth as i32),
                MalomValue::Loss { depth } => (-299 - i32::from(sval), depth as i32),
                MalomValue::Draw { sector_value } if sector_value == sval => (0, 7),
                MalomValue::Draw { sector_value } => (i32::from(sector_value - sval), 3),
            },
        };
        if key2.abs() > MAX_FIELD2 {
            em.push((h as i32, key2));
            key2 = SPEC_FIELD2;
        }
        let raw = (key1 as u32 & 0xFFF) | (key2 as u32 & 0xFFF) << 12;
        out.extend_from_slice(&raw.to_le_bytes()[..3]);
    }
    out.extend_from_slice(&(em.len() as i32).to_le_bytes());
    for (k, v) in em {
        out.extend_from_slice(&k.to_le_bytes());
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

fn values() -> SectorValues {
    SectorValues::parse(SECVAL).unwrap()
}

#[test]
fn a_synthetic_sector_reads_back_position_by_position() {
    let sector = MalomSector::new(3, 3, 0, 0).unwrap();
    let bytes = write_sector(sector, 0, synthetic_value);
    let file =
        MalomFile::from_bytes(Path::new("std_3_3_0_0.sec2"), sector, &bytes, &values()).unwrap();
    assert_eq!(file.len(), 210_140);
    let mut canonical = 0;
    let mut seen = std::collections::HashSet::new();
    let mut em_values = 0;
    for h in 0..file.len() {
        let Some(e) = file.position(h).unwrap() else {
            continue;
        };
        canonical += 1;
        assert_eq!(e.value, synthetic_value(h), "entry {h}");
        em_values += usize::from(e.value.depth().is_some_and(|d| d > 2047));
        // Every symmetric image probes to the same entry, and each class is met once.
        let (key, _) = (0..16)
            .map(|i| {
                let s = Symmetry::ALL[i];
                (
                    s.apply(e.us).bits() as u64 | (s.apply(e.them).bits() as u64) << 24,
                    i,
                )
            })
            .min()
            .unwrap();
        assert!(seen.insert(key), "entry {h}: class met twice");
        for s in Symmetry::ALL {
            assert_eq!(file.probe(s.apply(e.us), s.apply(e.them)).unwrap(), e.value);
        }
    }
    // Our index numbers the same classes.
    assert_eq!(canonical, SectorIndex::get(Board::Nine, 3, 3).size());
    assert!(em_values > 100, "the test reaches the em_set");
    assert_eq!(synthetic_value(0).wdl(), Wdl::Win);
}

fn temp_copy(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn refused(path: &Path) -> String {
    let e = MalomFile::open(path, &values()).err().expect("refused");
    let text = e.to_string();
    assert!(text.contains(&path.display().to_string()), "{text}");
    text
}

#[test]
fn damaged_files_are_named_and_refused() {
    let dir = tempfile::tempdir().unwrap();
    let sector = MalomSector::new(1, 1, 8, 8).unwrap();
    let good = write_sector(sector, 5, |h| MalomValue::Win {
        depth: if h == 3 { 5001 } else { 1 },
    });
    let path = temp_copy(dir.path(), "std_1_1_8_8.sec2", &good);
    let file = MalomFile::open(&path, &values()).unwrap();
    assert_eq!(file.len(), 4 * 23);
    for h in 0..file.len() {
        file.position(h).unwrap();
    }

    // Truncated: in the entries, and in the em_set.
    let p = temp_copy(dir.path(), "std_1_1_8_8.sec2", &good[..100]);
    assert!(refused(&p).contains("truncated"));
    let p = temp_copy(dir.path(), "std_1_1_8_8.sec2", &good[..good.len() - 1]);
    assert!(refused(&p).contains("does not match"));
    let p = temp_copy(dir.path(), "std_1_1_8_8.sec2", &[]);
    assert!(refused(&p).contains("truncated"));

    // A foreign name, and the right bytes under another sector's name.
    let p = temp_copy(dir.path(), "std_1_1_8_8.sec", &good);
    assert!(refused(&p).contains("not a Malom Standard sector"));
    let p = temp_copy(dir.path(), "std_1_2_8_7.sec2", &good);
    assert!(MalomFile::open(&p, &values()).is_err());
    let p = temp_copy(dir.path(), "std_2_1_7_8.sec2", &good);
    assert!(MalomFile::open(&p, &values()).is_err());

    // Header: version, entry size (the non-ultra format), reserved bytes.
    for (at, problem) in [
        (0, "version"),
        (4, "entry size"),
        (12, "flag"),
        (40, "reserved"),
    ] {
        let mut bad = good.clone();
        bad[at] ^= 0x01;
        let p = temp_copy(dir.path(), "std_1_1_8_8.sec2", &bad);
        assert!(refused(&p).contains(problem), "byte {at}");
    }

    // The em_set: its count, its index, a value that would fit in the entry.
    let em_at = HEADER_SIZE + 3 * 92;
    let mut bad = good.clone();
    bad[em_at] = 2;
    assert!(refused(&temp_copy(dir.path(), "std_1_1_8_8.sec2", &bad)).contains("does not match"));
    let mut bad = good.clone();
    bad[em_at + 4] = 4;
    assert!(refused(&temp_copy(dir.path(), "std_1_1_8_8.sec2", &bad)).contains("em_set"));
    let mut bad = good.clone();
    bad[em_at + 8..em_at + 12].copy_from_slice(&100i32.to_le_bytes());
    assert!(refused(&temp_copy(dir.path(), "std_1_1_8_8.sec2", &bad)).contains("fits"));

    // Entries: one value that no sector has, a win of even depth, a wrong symmetry,
    // a symmetry in place of a value: refused when read, never answered.
    let entry = |h: usize| HEADER_SIZE + 3 * h;
    let canonical = (0..92)
        .find(|&h| file.position(h as u64).unwrap().is_some())
        .unwrap();
    let copy = (0..92)
        .find(|&h| file.position(h as u64).unwrap().is_none())
        .unwrap();
    let mut cases = Vec::new();
    let mut bad = good.clone();
    bad[entry(canonical)] = 0x10; // key1 = 16 - 5 + 5: no sector has 16
    bad[entry(canonical) + 1] &= 0xF0;
    cases.push((bad, canonical, "no sector"));
    let mut bad = good.clone();
    bad[entry(canonical) + 1] = (bad[entry(canonical) + 1] & 0x0F) | 0x20; // depth 2
    bad[entry(canonical) + 2] = 0;
    cases.push((bad, canonical, "not odd"));
    let mut bad = good.clone();
    let raw = (-(14i32) & 0xFFF) as u32; // symmetry 13 for a copy that needs another
    bad[entry(copy)..entry(copy) + 3].copy_from_slice(&(raw << 12).to_le_bytes()[..3]);
    cases.push((bad, copy, "symmetry"));
    let mut bad = good.clone();
    bad[entry(canonical)..entry(canonical) + 3]
        .copy_from_slice(&((0xFFEu32) << 12).to_le_bytes()[..3]);
    cases.push((bad, canonical, "names a symmetry"));
    for (bad, h, problem) in cases {
        let p = temp_copy(dir.path(), "std_1_1_8_8.sec2", &bad);
        let f = MalomFile::open(&p, &values()).unwrap();
        let e = f.position(h as u64).unwrap_err().to_string();
        assert!(e.contains(problem) && e.contains("std_1_1_8_8.sec2"), "{e}");
        let pos = file.position(canonical as u64).unwrap().unwrap();
        if h == canonical {
            assert!(f.probe(pos.us, pos.them).is_err());
        }
    }

    // A sector the value file does not know.
    let other = write_sector(MalomSector::new(2, 2, 7, 7).unwrap(), 0, |_| {
        MalomValue::Loss { depth: 2 }
    });
    let p = temp_copy(dir.path(), "std_2_2_7_7.sec2", &other);
    assert!(refused(&p).contains("no value"));
}

#[test]
#[ignore = "reads Malom's files in ../shared/malom"]
fn malom_s_shared_files_read_in_full() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/malom");
    let values = SectorValues::open(&dir.join(SECVAL_NAME)).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "sec2") {
            continue;
        }
        let file = MalomFile::open(&path, &values).unwrap();
        let mut canonical = 0;
        for h in 0..file.len() {
            canonical += u64::from(file.position(h).unwrap().is_some());
        }
        let s = file.sector();
        let size = SectorIndex::get(Board::Nine, usize::from(s.w), usize::from(s.b)).size();
        assert_eq!(canonical, size, "{}", path.display());
    }
}
