//! Probe latency of raw against compact tables: p50 and p99 of single probes, cold
//! (a fresh tablebase: nothing decompressed yet; the system's page cache as found)
//! and warm (the same positions again), over random movement positions of the
//! sectors both sets hold.
//!
//! ```sh
//! MORRIS_BENCH_RAW=/data/tb MORRIS_BENCH_COMPACT=/data/tb-compact cargo bench --bench probe_latency
//! ```
//!
//! Without both variables it says so and measures nothing.

use morris_engine::{Color, Position, Setup};
use morris_tablebase::Tablebase;
use std::path::Path;
use std::time::Instant;

// Few enough that the blocks of all of them fit the default cache of compact blocks,
// so the second pass is warm for both forms.
const PROBES: usize = 4_000;

fn open(dir: &Path) -> Tablebase {
    // SAFETY: the benchmark only reads the sets named, which nobody rewrites while it
    // runs (the same condition of use as the `morris` commands).
    unsafe { Tablebase::open_mapped(dir) }.expect("a good set")
}

/// Random positions (a fixed sequence) of the movement sectors in both sets.
fn positions(raw: &Tablebase, compact: &Tablebase) -> Vec<Position> {
    let sectors: Vec<_> = raw
        .sectors()
        .filter(|(v, s, _)| compact.compact(*v, *s).is_some())
        .map(|(v, s, f)| (v, s, f.index().size(), f))
        .collect();
    assert!(!sectors.is_empty(), "no movement sector in both sets");
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..PROBES)
        .map(|_| {
            let (variant, _, size, file) = sectors[(next() % sectors.len() as u64) as usize];
            let (us, them) = file.index().position(next() % size);
            let setup = Setup {
                pieces: [us, them],
                hand: [0, 0],
                side_to_move: Color::White,
            };
            Position::from_setup(&setup, variant).expect("a position")
        })
        .collect()
}

/// p50 and p99 of probing each position once, in microseconds.
fn latencies(tb: &Tablebase, positions: &[Position]) -> (f64, f64) {
    let mut times: Vec<f64> = positions
        .iter()
        .map(|p| {
            let t = Instant::now();
            let v = tb.probe(p).expect("a good set");
            let elapsed = t.elapsed().as_secs_f64() * 1e6;
            assert!(v.is_some());
            elapsed
        })
        .collect();
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], times[times.len() * 99 / 100])
}

fn main() {
    let (Some(raw), Some(compact)) = (
        std::env::var_os("MORRIS_BENCH_RAW"),
        std::env::var_os("MORRIS_BENCH_COMPACT"),
    ) else {
        println!(
            "probe_latency: set MORRIS_BENCH_RAW and MORRIS_BENCH_COMPACT to two sets to compare"
        );
        return;
    };
    let positions = positions(&open(Path::new(&raw)), &open(Path::new(&compact)));
    for (name, dir) in [("raw", &raw), ("compact", &compact)] {
        let tb = open(Path::new(dir));
        let cold = latencies(&tb, &positions);
        let warm = latencies(&tb, &positions);
        println!(
            "{name:<8} {PROBES} probes: cold p50 {:.2} us, p99 {:.2} us; warm p50 {:.2} us, p99 {:.2} us",
            cold.0, cold.1, warm.0, warm.1
        );
    }
}
