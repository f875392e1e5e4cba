//! Probe latency of raw against compact tables: p50 and p99 of single probes, cold
//! (a fresh tablebase: nothing decompressed yet; the system's page cache as found)
//! and warm (the same positions again), over random movement positions of the
//! sectors both sets hold, then over random placement positions of those.
//!
//! ```sh
//! MORRIS_BENCH_RAW=/data/tb MORRIS_BENCH_COMPACT=/data/tb-compact cargo bench --bench probe_latency
//! ```
//!
//! With the raw set alone it measures the raw files by kind instead: random positions
//! of the movement sectors, then of the placement sectors present. Without either
//! variable it says so and measures nothing.

use morris_engine::{Color, Position, Rules, Setup};
use morris_tablebase::{Mapper, OpenOptions, PlacementSector, Sector, SectorFile, Tablebase};
use std::path::Path;
use std::time::Instant;

// Few enough that the blocks of all of them fit the default cache of compact blocks,
// so the second pass is warm for both forms.
const PROBES: usize = 4_000;

fn open(dir: &Path) -> Tablebase {
    // SAFETY: the benchmark only reads the sets named, which nobody rewrites while it
    // runs (the same condition of use as the `morris` commands).
    let mapper = unsafe { Mapper::new() };
    let options = OpenOptions {
        mapper: Some(mapper),
        ..OpenOptions::default()
    };
    Tablebase::open(dir, options).expect("a good set")
}

/// A fixed sequence of pseudo-random numbers (xorshift).
fn random() -> impl FnMut() -> u64 {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// Random positions (a fixed sequence) of `sectors` (a placement sector's in the
/// colours a game gives it); none when there is no sector.
fn sample(sectors: &[(Rules, &SectorFile, Option<PlacementSector>)]) -> Vec<Position> {
    if sectors.is_empty() {
        return Vec::new();
    }
    let mut next = random();
    (0..PROBES)
        .map(|_| {
            let (variant, file, placement) = sectors[(next() % sectors.len() as u64) as usize];
            let (us, them) = file.index().position(next() % file.index().size());
            let setup = placement.map_or(
                Setup {
                    pieces: [us, them],
                    hand: [0, 0],
                    side_to_move: Color::White,
                },
                |p| p.game_setup(us, them),
            );
            Position::from_setup(&setup, variant).expect("a position")
        })
        .collect()
}

/// Random positions of the placement sectors of a set that `keep` accepts.
fn placement_positions(
    raw: &Tablebase,
    keep: impl Fn(Rules, PlacementSector) -> bool,
) -> Vec<Position> {
    let sectors: Vec<_> = raw
        .placement_sectors()
        .filter(|(v, s, _)| keep(*v, *s))
        .map(|(v, s, f)| (v, f, Some(s)))
        .collect();
    sample(&sectors)
}

/// Random positions of the movement sectors of a set that `keep` accepts.
fn positions(raw: &Tablebase, keep: impl Fn(Rules, Sector) -> bool) -> Vec<Position> {
    let sectors: Vec<_> = raw
        .sectors()
        .filter(|(v, s, _)| keep(*v, *s))
        .map(|(v, _, f)| (v, f, None))
        .collect();
    assert!(!sectors.is_empty(), "no movement sector to probe");
    sample(&sectors)
}

/// p50 and p99 of probing each position once, in microseconds.
fn latencies(tb: &Tablebase, positions: &[Position]) -> (f64, f64) {
    let mut times: Vec<f64> = positions
        .iter()
        .map(|p| {
            let t = Instant::now();
            let v = tb.value(p).expect("a good set");
            let elapsed = t.elapsed().as_secs_f64() * 1e6;
            assert!(v.is_some());
            elapsed
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[times.len() * 99 / 100])
}

/// Cold, then warm, p50 and p99 of probing `positions` in a fresh tablebase of `dir`.
fn report(name: &str, dir: &Path, positions: &[Position]) {
    let tb = open(dir);
    let cold = latencies(&tb, positions);
    let warm = latencies(&tb, positions);
    println!(
        "{name:<20} {} probes: cold p50 {:.2} us, p99 {:.2} us; warm p50 {:.2} us, p99 {:.2} us",
        positions.len(),
        cold.0,
        cold.1,
        warm.0,
        warm.1
    );
}

fn main() {
    let raw = std::env::var_os("MORRIS_BENCH_RAW");
    let compact = std::env::var_os("MORRIS_BENCH_COMPACT");
    match (raw, compact) {
        (Some(raw), Some(compact)) => {
            let (raw, compact) = (Path::new(&raw), Path::new(&compact));
            let compact_set = open(compact);
            let raw_set = open(raw);
            let movement = positions(&raw_set, |v, s| compact_set.compact(v, s).is_some());
            let placement = placement_positions(&raw_set, |v, s| compact_set.compact(v, s).is_some());
            drop((compact_set, raw_set));
            report("raw", raw, &movement);
            report("compact", compact, &movement);
            if !placement.is_empty() {
                report("raw (placement)", raw, &placement);
                report("compact (placement)", compact, &placement);
            }
        }
        (Some(raw), None) => {
            let raw = Path::new(&raw);
            let tb = open(raw);
            let movement = positions(&tb, |_, _| true);
            let placement = placement_positions(&tb, |_, _| true);
            drop(tb);
            report("movement", raw, &movement);
            if !placement.is_empty() {
                report("placement", raw, &placement);
            }
        }
        _ => println!(
            "probe_latency: set MORRIS_BENCH_RAW (and MORRIS_BENCH_COMPACT to compare it with a compact set)"
        ),
    }
}
