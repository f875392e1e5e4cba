//! Move generation benchmarks: listing and counting the legal moves of fixed positions,
//! playing a move, and perft from the start.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use morris_engine::notation::parse_moves;
use morris_engine::{perft, Position, Setup, Variant};

/// Positions with their names: opening (placing), middlegame (sliding with captures
/// about), flying (three pieces each, Standard).
fn positions() -> Vec<(&'static str, Position)> {
    let start = Position::start(Variant::Standard);
    // Eight pieces placed; g7 closes a mill for White.
    let opening = parse_moves(&start, "a7 b6 d7 f6 d6 d2 f4 b4")
        .unwrap()
        .last()
        .unwrap()
        .1;
    let fen = |s: &str| {
        s.parse::<Setup>()
            .unwrap()
            .position(Variant::Standard)
            .unwrap()
    };
    // Seven against five, sliding; d6-f6 closes a mill.
    let middlegame = fen("W.B/.W./WB./B.W.W./BB./W.W/... w 0 0");
    let flying = fen("W.W/.W./.../.B..../.../.../B.B w 0 0");
    vec![
        ("start", start),
        ("opening", opening),
        ("middlegame", middlegame),
        ("flying", flying),
    ]
}

fn legal_moves(c: &mut Criterion) {
    let mut group = c.benchmark_group("legal_moves");
    for (name, pos) in positions() {
        group.bench_with_input(BenchmarkId::from_parameter(name), &pos, |b, pos| {
            b.iter(|| black_box(pos).legal_moves().len())
        });
    }
    group.finish();
}

fn count_legal_moves(c: &mut Criterion) {
    let mut group = c.benchmark_group("count_legal_moves");
    for (name, pos) in positions() {
        group.bench_with_input(BenchmarkId::from_parameter(name), &pos, |b, pos| {
            b.iter(|| black_box(pos).count_legal_moves())
        });
    }
    group.finish();
}

fn play_unchecked(c: &mut Criterion) {
    let mut group = c.benchmark_group("play_unchecked");
    for (name, pos) in positions() {
        let moves = pos.legal_moves();
        group.throughput(Throughput::Elements(moves.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &pos, |b, pos| {
            b.iter(|| {
                moves
                    .iter()
                    .map(|&m| black_box(pos).play_unchecked(m).packed())
                    .fold(0, |a, p| a ^ p)
            })
        });
    }
    group.finish();
}

fn perft_from_start(c: &mut Criterion) {
    let start = Position::start(Variant::Standard);
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (depth, leaves) in [(4u32, 255_024u64), (5, 5_140_800)] {
        group.throughput(Throughput::Elements(leaves));
        group.bench_with_input(BenchmarkId::from_parameter(depth), &depth, |b, &d| {
            b.iter(|| perft(black_box(&start), d))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    legal_moves,
    count_legal_moves,
    play_unchecked,
    perft_from_start
);
criterion_main!(benches);
