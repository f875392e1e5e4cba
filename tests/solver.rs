//! Search tests: the solver against the tablebases it can also run without.
//!
//! The Standard and No-flying sectors up to four pieces a side are generated once per
//! run (into a temporary directory that is removed as soon as the files are mapped)
//! and serve as the oracle: every exact answer of the search, with or without
//! tablebases, must agree with them in value and distance, and every line it returns
//! must end the game in exactly the distance it claims.

mod common;

use morris_engine::Board;

use common::Rng;
use morris_builder::{driver, verify::to_position, Observer, Reporter};
use morris_engine::{Bitboard, Color, Move, Outcome, Point, Position, Setup, Variant};
use morris_solver::{
    analyze, Limits, Provenance, SearchResult, Searcher, Verdict, MATE, MATE_BOUND,
};
use morris_tablebase::{OpenOptions, Sector, SectorIndex, Tablebase, Value, Wdl};
use std::sync::OnceLock;

struct Quiet;
impl Observer for Quiet {}
impl Reporter for Quiet {}

fn sectors() -> Vec<Sector> {
    [(3, 3), (3, 4), (4, 3), (4, 4)]
        .iter()
        .map(|&(us, them)| Sector::new(us, them).unwrap())
        .collect()
}

/// Both variants, every sector up to 4-4, generated once per test process.
fn tablebase() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for variant in Variant::ALL {
            driver::generate_into(dir.path(), variant, &sectors(), &Quiet)
                .unwrap_or_else(|e| panic!("generating {variant} up to 4-4: {e}"));
        }
        // The files stay mapped after the directory is removed.
        Tablebase::open(dir.path(), OpenOptions::default()).expect("the generated tablebase opens")
    })
}

fn value_only() -> Limits {
    Limits {
        value_only: true,
        ..Limits::default()
    }
}

fn depth(d: u32) -> Limits {
    Limits {
        depth: Some(d),
        ..Limits::default()
    }
}

/// Game values as integers for the side to move, independent of the solver's own
/// scores: a win in `d` plies is `WIN - d`, a loss in `d` is `-(WIN - d)`, a draw 0.
const WIN: i32 = 10_000;

fn score_of(v: impl Into<Verdict>) -> i32 {
    let v: Verdict = v.into();
    match (v.wdl, v.dtm) {
        (Wdl::Win, Some(d)) => WIN - i32::from(d),
        (Wdl::Loss, Some(d)) => -(WIN - i32::from(d)),
        _ => 0,
    }
}

/// The parent's value of a move from the value of the position it leads to.
fn back(child: i32) -> i32 {
    match child {
        0 => 0,
        c if c > 0 => -(c - 1),
        c => -(c + 1),
    }
}

/// The value of a finished game for its side to move.
fn terminal(pos: &Position) -> Option<i32> {
    pos.end().map(|end| match end.outcome() {
        Outcome::Win(c) if c == pos.side_to_move() => WIN,
        Outcome::Win(_) => -WIN,
        Outcome::Draw => 0,
    })
}

/// The exact value of a position by brute-force minimax down to finished games or
/// positions the tablebases cover, at most `plies` deep.
fn exact(tb: &Tablebase, pos: &Position, plies: u32) -> i32 {
    if let Some(s) = terminal(pos) {
        return s;
    }
    if let Some(v) = tb.value(pos).expect("intact tables") {
        return score_of(v);
    }
    assert!(plies > 0, "{pos} is not within reach of the tablebases");
    pos.legal_moves()
        .iter()
        .map(|&m| back(exact(tb, &pos.play_unchecked(m), plies - 1)))
        .max()
        .expect("a position that is not over has a move")
}

/// Indices `0..size` spread over the sector by a fixed multiplicative step.
fn spread(size: u64, n: u64, salt: u64) -> Vec<u64> {
    (0..n)
        .map(|k| (k.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(salt)) % size)
        .collect()
}

/// Positions of a sector (White to move) whose stored value satisfies `keep`, evenly
/// spaced over the sector, at most `n`.
fn positions_with(
    variant: Variant,
    sector: Sector,
    n: usize,
    keep: impl Fn(Value) -> bool,
) -> Vec<Position> {
    let values = tablebase().file(variant, sector).unwrap().values().unwrap();
    let index = SectorIndex::get(Board::Nine, sector.us as usize, sector.them as usize);
    let all: Vec<u64> = (0..values.len() as u64)
        .filter(|&i| keep(Value(values[i as usize])))
        .collect();
    let step = (all.len() / n.max(1)).max(1);
    all.iter()
        .step_by(step)
        .take(n)
        .map(|&i| {
            let (us, them) = index.position(i);
            to_position(variant, us, them).expect("a valid position")
        })
        .collect()
}

/// Play `line` from `pos`, checking that it is legal, that every position on the way
/// has exactly one ply less to go by the tablebases (where they cover it), and that
/// the game ends exactly at its end, won by the right side.
fn check_line_ends_game(tb: &Tablebase, pos: &Position, line: &[Move], value: impl Into<Verdict>) {
    let value: Verdict = value.into();
    let dtm = value.dtm.expect("a decided value") as usize;
    assert_eq!(
        line.len(),
        dtm,
        "{pos}: line {line:?} does not have the {dtm} plies of {value}"
    );
    let winner = if value.wdl == Wdl::Win {
        pos.side_to_move()
    } else {
        pos.side_to_move().opponent()
    };
    let mut p = *pos;
    for (k, &m) in line.iter().enumerate() {
        assert!(
            p.end().is_none(),
            "{pos}: game over after {k} plies of {line:?}"
        );
        assert!(
            p.is_legal(m),
            "{pos}: {m} is illegal after {k} plies of {line:?}"
        );
        if let Some(v) = tb.value(&p).expect("intact tables") {
            assert_eq!(
                v.dtm(),
                Some((dtm - k) as u16),
                "{pos}: after {k} plies of {line:?}, {p} is {v}, not {} plies from the end",
                dtm - k
            );
        }
        p = p.play_unchecked(m);
    }
    let end = p
        .end()
        .unwrap_or_else(|| panic!("{pos}: the game is not over after {line:?}: {p}"));
    assert_eq!(
        end.outcome(),
        Outcome::Win(winner),
        "{pos}: {line:?} ends in {end}, expected a win for {winner}"
    );
}

fn check_no_estimate_in_mate_band(pos: &Position, r: &SearchResult) {
    if r.provenance == Provenance::Estimate {
        assert!(r.value.is_none(), "{pos}: an estimate with a value: {r:?}");
        assert!(
            r.score.abs() <= MATE_BOUND,
            "{pos}: an estimate scores in the mate band: {r:?}"
        );
    }
}

#[test]
fn search_without_tablebases_agrees_with_them_where_it_proves_a_result() {
    let tb = tablebase();
    let (mut searched, mut proved) = (0, 0);
    for variant in Variant::ALL {
        for sector in sectors() {
            // Flying multiplies the moves: keep the Standard searches shallower.
            let d = match (variant, sector.us, sector.them) {
                (Variant::NoFlying, _, _) => 9,
                (Variant::Standard, 3, 4) => 5,
                _ => 7,
            };
            let index = SectorIndex::get(Board::Nine, sector.us as usize, sector.them as usize);
            let mut sample: Vec<Position> = spread(index.size(), 30, u64::from(d))
                .into_iter()
                .map(|i| {
                    let (us, them) = index.position(i);
                    to_position(variant, us, them).expect("a valid position")
                })
                .collect();
            // Uniform samples are mostly far from the end: add some within reach.
            sample.extend(positions_with(variant, sector, 15, |v| {
                v.dtm().is_some_and(|t| (1..=d as u16).contains(&t))
            }));
            // One searcher per sector: its table carries over from search to search.
            let mut searcher = Searcher::new(None, 16).unwrap();
            for pos in sample {
                let stored = tb.value(&pos).expect("intact tables").unwrap();
                let r = searcher.search(&pos, depth(d), &[]).unwrap();
                searched += 1;
                check_no_estimate_in_mate_band(&pos, &r);
                match r.provenance {
                    Provenance::Proof | Provenance::Terminal => {
                        proved += 1;
                        assert_eq!(
                            r.value,
                            Some(Verdict::from(stored)),
                            "{variant} {pos}: search says {:?} ({:?}), tablebase {stored}",
                            r.value,
                            r.provenance
                        );
                        assert_ne!(
                            stored.wdl(),
                            Wdl::Draw,
                            "{variant} {pos}: a draw proved without tablebases"
                        );
                    }
                    Provenance::Estimate => assert!(
                        stored.dtm().is_none_or(|t| t > d as u16),
                        "{variant} {pos}: {stored} is within depth {d}, but the search only \
                         estimates {:+}",
                        r.score
                    ),
                    Provenance::ProvenBound => {
                        // The result is proven; the distance is only an upper bound.
                        let v = r.value.expect("a proven result has a value");
                        assert_eq!(v.wdl, stored.wdl(), "{variant} {pos}: {r:?} vs {stored}");
                        assert!(v.dtm >= stored.dtm(), "{variant} {pos}: {r:?} vs {stored}");
                    }
                    Provenance::Tablebase => panic!("{pos}: tablebase answer without tablebases"),
                    Provenance::ValueProof => panic!("{pos}: a value-only answer not asked for"),
                }
            }
        }
    }
    eprintln!("{proved} of {searched} positions decided by search");
    assert!(
        proved >= 180,
        "only {proved} of {searched} positions were decided by search"
    );
}

#[test]
fn known_wins_and_losses_in_n_are_found_exactly() {
    let tb = tablebase();
    for variant in Variant::ALL {
        for dtm in 1..=5u16 {
            let mut found = 0;
            for sector in sectors() {
                // The wide Standard sectors with flying are slow to search to depth 5.
                if variant == Variant::Standard && dtm == 5 && sector != Sector::new(3, 3).unwrap()
                {
                    continue;
                }
                for pos in positions_with(variant, sector, 2, |v| v.dtm() == Some(dtm)) {
                    found += 1;
                    let want = Value::decided(dtm);
                    let r = Searcher::new(None, 16)
                        .unwrap()
                        .search(&pos, depth(8), &[])
                        .unwrap();
                    assert_eq!(r.provenance, Provenance::Proof, "{variant} {pos}: {r:?}");
                    assert_eq!(r.value, Some(Verdict::from(want)), "{variant} {pos}: {r:?}");
                    let mate = MATE - i32::from(dtm);
                    let score = if dtm % 2 == 1 { mate } else { -mate };
                    assert_eq!(r.score, score, "{variant} {pos}: {r:?}");
                    let best = r.best.expect("a best move");
                    assert_eq!(r.pv.first(), Some(&best), "{pos}: {r:?}");
                    assert!(pos.is_legal(best), "{pos}: best move {best} is illegal");
                    let child = pos.play_unchecked(best);
                    assert_eq!(
                        back(exact(tb, &child, 0)),
                        score_of(want),
                        "{variant} {pos}: best move {best} does not keep {want}"
                    );
                    check_line_ends_game(tb, &pos, &r.pv, want);
                }
            }
            assert!(found >= 2, "{variant}: no position with DTM {dtm}");
        }
    }
}

#[test]
fn tablebase_answers_come_with_a_line_that_ends_the_game_in_dtm_plies() {
    let tb = tablebase();
    let mut searcher = Searcher::new(Some(tb), 16).unwrap();
    let built_in = morris_engine::notation::parse_position(
        "WB./W../.../.....W/.../.../BB. w 0 0",
        Variant::Standard,
    )
    .unwrap();
    let mut cases = vec![built_in];
    for variant in Variant::ALL {
        for sector in sectors() {
            let stats = tb.file(variant, sector).unwrap().header().stats;
            let longest = [stats.longest_win, stats.longest_loss];
            // The longest distances, a few ordinary ones, and some draws.
            cases.extend(positions_with(variant, sector, 2, |v| {
                v.dtm().is_some_and(|d| d > 0 && longest.contains(&d))
            }));
            cases.extend(positions_with(variant, sector, 4, |v| {
                v.dtm().is_some_and(|d| d > 0)
            }));
            cases.extend(positions_with(variant, sector, 2, |v| v == Value::DRAW));
        }
    }
    let mut longest = 0;
    for pos in cases {
        let stored = tb.value(&pos).expect("intact tables").unwrap();
        // Without the line (as `analyze` asks for each move): the same value, no line.
        let bare = Limits {
            no_line: true,
            ..Limits::default()
        };
        let r = searcher.search(&pos, bare, &[]).unwrap();
        assert_eq!(r.value, Some(Verdict::from(stored)), "{pos}: {r:?}");
        assert!(r.pv.is_empty() && r.best.is_none(), "{pos}: {r:?}");
        let r = searcher.search(&pos, Limits::default(), &[]).unwrap();
        assert_eq!(r.provenance, Provenance::Tablebase, "{pos}: {r:?}");
        assert_eq!(r.value, Some(Verdict::from(stored)), "{pos}: {r:?}");
        assert_eq!(r.best, r.pv.first().copied(), "{pos}: {r:?}");
        if stored.wdl() == Wdl::Draw {
            assert_eq!(r.score, 0, "{pos}: {r:?}");
            let mut p = pos;
            for &m in &r.pv {
                assert!(p.is_legal(m), "{pos}: {m} in {:?} is illegal", r.pv);
                p = p.play_unchecked(m);
                assert_eq!(
                    tb.value(&p).expect("intact tables"),
                    Some(Value::DRAW),
                    "{pos}: {:?} leaves the draw",
                    r.pv
                );
            }
        } else {
            check_line_ends_game(tb, &pos, &r.pv, stored);
            longest = longest.max(r.pv.len());
        }
    }
    assert!(
        longest >= 60,
        "the longest line checked has {longest} plies"
    );
}

/// Positions with pieces in hand whose every line reaches the tablebases within two
/// plies: at most four pieces a side once placed. A side with a piece in hand has four
/// in all, so that it never places its last piece with fewer than three on the board
/// (that case has its own test, `a_side_that_places_its_last_piece_into_defeat_loses`).
fn placement_positions(variant: Variant, n: usize, seed: u64) -> Vec<Position> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < n {
        // Hands: one each, or one for a single side (either to move).
        let hand = [[1, 1], [1, 0], [0, 1]][rng.below(3)];
        let total = [0, 1].map(|c| {
            if hand[c] > 0 {
                4
            } else {
                3 + rng.below(2) as u8
            }
        });
        let mut free: Vec<usize> = (0..24).collect();
        let mut pieces = [Bitboard::EMPTY; 2];
        for c in 0..2 {
            for _ in 0..total[c] - hand[c] {
                let p = free.swap_remove(rng.below(free.len()));
                pieces[c] |= Point::from_index(p).bit();
            }
        }
        let side_to_move = if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        let setup = Setup {
            pieces,
            hand,
            side_to_move,
        };
        let pos = Position::from_setup(&setup, variant).unwrap();
        if pos.end().is_none() {
            out.push(pos);
        }
    }
    out
}

#[test]
fn placement_positions_are_proved_through_the_tablebases() {
    let tb = tablebase();
    let mut seen = [0; 3];
    for variant in Variant::ALL {
        let mut searcher = Searcher::new(Some(tb), 16).unwrap();
        for pos in placement_positions(variant, 40, 7) {
            let want = exact(tb, &pos, 2);
            let r = searcher.search(&pos, Limits::default(), &[]).unwrap();
            assert_eq!(r.provenance, Provenance::Proof, "{variant} {pos}: {r:?}");
            let value = r.value.expect("a proof has a value");
            assert_eq!(
                score_of(value),
                want,
                "{variant} {pos}: search says {value}, minimax over the tablebases {want}"
            );
            seen[usize::from(want > 0) + usize::from(want >= 0)] += 1;
            let best = r.best.expect("a best move");
            assert_eq!(
                back(exact(tb, &pos.play_unchecked(best), 1)),
                want,
                "{variant} {pos}: best move {best} does not keep {value}"
            );
            if value.wdl != Wdl::Draw {
                check_line_ends_game(tb, &pos, &r.pv, value);
            }
            // Value only: the same result, and a move that keeps it (any for a loss).
            let mut fresh = Searcher::new(Some(tb), 16).unwrap();
            let v = fresh.search(&pos, value_only(), &[]).unwrap();
            assert_eq!(
                v.provenance,
                Provenance::ValueProof,
                "{variant} {pos}: {v:?}"
            );
            assert_eq!(
                v.value,
                Some(Verdict {
                    wdl: value.wdl,
                    dtm: None
                }),
                "{variant} {pos}"
            );
            let best = v.best.expect("a best move");
            let kept = back(exact(tb, &pos.play_unchecked(best), 1));
            assert!(
                want < 0 || kept.signum() == want.signum(),
                "{variant} {pos}: value-only best move {best} does not keep {value}"
            );
        }
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "losses, draws, wins among the samples: {seen:?}"
    );
}

/// Threads searching together over one table (lazy SMP) prove what one thread proves:
/// the same value and distance, a best move that keeps it and, for a decided game, a
/// line that ends it; on a roomy table and on one crowded enough that the threads
/// overwrite each other's entries.
#[test]
fn parallel_searches_prove_what_one_thread_proves() {
    let tb = tablebase();
    for variant in Variant::ALL {
        let mut crowded = Searcher::new(Some(tb), 1).unwrap();
        for pos in placement_positions(variant, 24, 11) {
            let want = exact(tb, &pos, 2);
            let mut roomy = Searcher::new(Some(tb), 16).unwrap();
            for (searcher, threads) in [(&mut roomy, 2), (&mut crowded, 3)] {
                for value_only in [false, true] {
                    let limits = Limits {
                        threads,
                        value_only,
                        ..Limits::default()
                    };
                    let r = searcher.search(&pos, limits, &[]).unwrap();
                    let value = r.value.expect("a proof has a value");
                    let got = if value_only {
                        assert_eq!(r.provenance, Provenance::ValueProof, "{variant} {pos}");
                        match value.wdl {
                            Wdl::Win => 1,
                            Wdl::Draw => 0,
                            Wdl::Loss => -1,
                        }
                    } else {
                        assert_eq!(r.provenance, Provenance::Proof, "{variant} {pos}");
                        if value.wdl != Wdl::Draw {
                            check_line_ends_game(tb, &pos, &r.pv, value);
                        }
                        score_of(value)
                    };
                    let want = if value_only { want.signum() } else { want };
                    assert_eq!(got, want, "{variant} {pos}, {threads} threads");
                    let best = r.best.expect("a best move");
                    let kept = back(exact(tb, &pos.play_unchecked(best), 1));
                    let kept = if value_only { kept.signum() } else { kept };
                    assert!(
                        want < 0 || kept == want,
                        "{variant} {pos}, {threads} threads: best move {best} does not keep {want}"
                    );
                }
            }
        }
    }
}

/// The exact value by minimax over the tablebases, as [`exact`], remembering every
/// position it solved: deep placement trees revisit most of them.
fn exact_memo(
    tb: &Tablebase,
    pos: &Position,
    memo: &mut std::collections::HashMap<u64, i32>,
) -> i32 {
    if let Some(&s) = memo.get(&pos.hash()) {
        return s;
    }
    let s = match terminal(pos) {
        Some(s) => s,
        None => match tb.value(pos).expect("intact tables") {
            Some(v) => score_of(v),
            None => pos
                .legal_moves()
                .iter()
                .map(|&m| back(exact_memo(tb, &pos.play_unchecked(m), memo)))
                .max()
                .expect("a position that is not over has a move"),
        },
    };
    memo.insert(pos.hash(), s);
    s
}

/// Positions of the game of four pieces a side, reached from its empty board by
/// random placements, with 1 to 5 placements left (every one of its finished
/// placements lies in the sectors up to 4-4).
fn four_piece_game_positions(variant: Variant, n: usize, seed: u64) -> Vec<Position> {
    let start = Setup {
        pieces: [Bitboard::EMPTY; 2],
        hand: [4, 4],
        side_to_move: Color::White,
    };
    let start = Position::from_setup(&start, variant).expect("the game of four starts");
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let mut pos = start;
        for _ in 0..3 + rng.below(5) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.play_unchecked(moves[rng.below(moves.len())]);
        }
        if pos.end().is_none() && pos.pieces_in_hand() {
            out.push(pos);
        }
    }
    out
}

/// The value-only search (static order, no shallow iterations, enhanced transposition
/// cutoffs) against minimax over the tablebases, through up to five placements, with a
/// table large enough to keep everything and one of a single MiB shared by every
/// search, where entries are replaced all the time.
#[test]
fn value_only_proofs_through_the_placing_phase_agree_with_minimax() {
    let tb = tablebase();
    let mut seen = [0; 3];
    for variant in Variant::ALL {
        let mut memo = std::collections::HashMap::new();
        let mut crowded = Searcher::new(Some(tb), 1).unwrap();
        for pos in four_piece_game_positions(variant, 200, 14) {
            let want = exact_memo(tb, &pos, &mut memo).signum();
            seen[(want + 1) as usize] += 1;
            let mut roomy = Searcher::new(Some(tb), 8).unwrap();
            for searcher in [&mut roomy, &mut crowded] {
                let r = searcher.search(&pos, value_only(), &[]).unwrap();
                assert_eq!(r.provenance, Provenance::ValueProof, "{variant} {pos}");
                let got = match r.value.expect("a proof has a value").wdl {
                    Wdl::Win => 1,
                    Wdl::Draw => 0,
                    Wdl::Loss => -1,
                };
                assert_eq!(got, want, "{variant} {pos}: search {got}, minimax {want}");
                let best = r.best.expect("a best move");
                let kept = back(exact_memo(tb, &pos.play_unchecked(best), &mut memo)).signum();
                assert!(
                    want < 0 || kept == want,
                    "{variant} {pos}: best move {best} does not keep {want}"
                );
            }
        }
    }
    assert!(
        seen.iter().all(|&n| n > 0),
        "losses, draws, wins among the samples: {seen:?}"
    );
}

/// The time limit of an analysis is one budget: a budget spent before the call leaves
/// every move a one-ply result (the first round runs whatever the clock says), reported
/// as one round; with the time to do it, the same analysis proves every move's value.
#[test]
fn analysis_spends_one_budget_over_every_move() {
    let tb = tablebase();
    let start = Setup {
        pieces: [Bitboard::EMPTY; 2],
        hand: [4, 4],
        side_to_move: Color::White,
    };
    let pos = Position::from_setup(&start, Variant::Standard).unwrap();
    let spent = Limits {
        time: Some(std::time::Duration::from_secs(1)),
        start: std::time::Instant::now().checked_sub(std::time::Duration::from_secs(2)),
        value_only: true,
        ..Limits::default()
    };
    let mut searcher = Searcher::new(Some(tb), 16).unwrap();
    let mut rounds = Vec::new();
    let analysis = morris_solver::analyze_with(&mut searcher, &pos, spent, &[], |d, moves| {
        rounds.push((d, moves.len()));
    })
    .unwrap();
    let legal = pos.legal_moves().len();
    assert_eq!(rounds, vec![(1, legal)]);
    assert_eq!(analysis.moves.len(), legal);
    for a in &analysis.moves {
        assert_eq!(a.result.provenance, Provenance::Estimate, "{}", a.mv);
        assert!(a.result.depth <= 1, "{}: depth {}", a.mv, a.result.depth);
    }
    assert_eq!(analysis.root.provenance, Provenance::Estimate);
    // With the time to do it, the same analysis proves the value of every move, and
    // so the position's (a draw: the 4-a-side game is drawn).
    let mut searcher = Searcher::new(Some(tb), 16).unwrap();
    let time = Limits {
        time: Some(std::time::Duration::from_secs(600)),
        ..value_only()
    };
    let mut depths = Vec::new();
    let proved = morris_solver::analyze_with(&mut searcher, &pos, time, &[], |d, _| {
        depths.push(d);
    })
    .unwrap();
    assert!(proved
        .moves
        .iter()
        .all(|a| a.result.provenance == Provenance::ValueProof));
    assert_eq!(proved.root.provenance, Provenance::ValueProof);
    assert_eq!(proved.root.value, Some(Verdict::DRAW));
    // One round a ply until every value is proven.
    let want: Vec<u32> = (1..=*depths.last().unwrap()).collect();
    assert_eq!(depths, want);
}

/// With a time limit, every move is deepened: no move is left at a shallow depth
/// while another is searched deep, and a root found exact by its moves is exact.
#[test]
fn analysis_deepens_every_move_together() {
    // White (to move) has five pieces and Black four: outside the 4-a-side tables.
    let pos = morris_engine::notation::parse_position(
        "WW./.B./W.B/BW..BW/.../.../... w 0 0",
        Variant::Standard,
    )
    .unwrap();
    let tb = tablebase();
    let limits = Limits {
        time: Some(std::time::Duration::from_millis(1500)),
        ..Limits::default()
    };
    let mut searcher = Searcher::new(Some(tb), 16).unwrap();
    let analysis = analyze(&mut searcher, &pos, limits, &[]).unwrap();
    let depths: Vec<u32> = analysis.moves.iter().map(|a| a.result.depth).collect();
    let (lo, hi) = (depths.iter().min().unwrap(), depths.iter().max().unwrap());
    assert!(
        *lo >= 4,
        "every move searched at least 4 plies deep: {depths:?}"
    );
    // A move is one round ahead of another at most (unless its value is exact).
    for a in &analysis.moves {
        assert!(
            a.result.provenance.is_exact() || a.result.depth <= lo + 1,
            "{}: depth {} while another move has {lo} ({depths:?})",
            a.mv,
            a.result.depth
        );
    }
    assert!(hi >= lo);
    assert_eq!(analysis.root.best, Some(analysis.moves[0].mv));
    assert_eq!(analysis.root.score, analysis.moves[0].score);
    assert_eq!(analysis.root.depth, lo + 1);
}

#[test]
fn analyze_lists_every_move_best_first_with_the_value_it_leads_to() {
    let tb = tablebase();
    let mut cases = Vec::new();
    for variant in Variant::ALL {
        for sector in sectors() {
            cases.extend(positions_with(variant, sector, 3, |v| v.wdl() == Wdl::Win));
            cases.extend(positions_with(variant, sector, 1, |v| v.wdl() == Wdl::Draw));
            cases.extend(positions_with(variant, sector, 2, |v| {
                v.wdl() == Wdl::Loss && v.dtm() > Some(0)
            }));
        }
        cases.extend(placement_positions(variant, 6, 99));
    }
    let mut searcher = Searcher::new(Some(tb), 16).unwrap();
    for pos in cases {
        let moves = analyze(&mut searcher, &pos, Limits::default(), &[])
            .unwrap()
            .moves;
        let legal = pos.legal_moves();
        assert_eq!(moves.len(), legal.len(), "{pos}: not every move analysed");
        for m in legal.iter() {
            assert!(moves.iter().any(|a| a.mv == *m), "{pos}: {m} is missing");
        }
        let mut previous = i32::MAX;
        for a in &moves {
            let child = pos.play_unchecked(a.mv);
            let want = exact(tb, &child, 1);
            let r = &a.result;
            assert!(r.provenance.is_exact(), "{pos} {}: {r:?}", a.mv);
            let got = match r.provenance {
                Provenance::Terminal => terminal(&child).unwrap(),
                _ => score_of(r.value.expect("an exact value")),
            };
            assert_eq!(got, want, "{pos}: {} leads to {r:?}, expected {want}", a.mv);
            let for_mover = back(want);
            assert!(
                for_mover <= previous,
                "{pos}: {} ({for_mover}) listed after a worse move ({previous}): {:?}",
                a.mv,
                moves.iter().map(|a| a.mv.to_string()).collect::<Vec<_>>()
            );
            previous = for_mover;
        }
        let root = searcher.search(&pos, Limits::default(), &[]).unwrap();
        assert_eq!(
            moves[0].score, root.score,
            "{pos}: the first move's score is not the position's"
        );
        assert_eq!(score_of(root.value.unwrap()), exact(tb, &pos, 2), "{pos}");
    }
}

#[test]
fn analyze_shares_one_search_among_moves_equal_up_to_symmetry() {
    let tb = tablebase();
    for variant in Variant::ALL {
        // The empty board with three pieces each to place: 24 moves, 4 up to symmetry
        // (outer or middle ring, corner or midpoint; the inner ring mirrors the outer).
        let pos = morris_engine::notation::parse_position(
            ".../.../.../....../.../.../... w 3 3",
            variant,
        )
        .unwrap();
        for limits in [Limits::default(), value_only()] {
            let mut searcher = Searcher::new(Some(tb), 16).unwrap();
            let moves = analyze(&mut searcher, &pos, limits, &[]).unwrap().moves;
            assert_eq!(moves.len(), 24);
            let searched = moves.iter().filter(|a| a.result.stats.nodes > 0).count();
            assert_eq!(searched, 4, "{variant}: one search per class of moves");
            for a in &moves {
                // Each move against a search of its own, from a fresh table.
                let alone = Searcher::new(Some(tb), 16)
                    .unwrap()
                    .search(&pos.play_unchecked(a.mv), limits, &[])
                    .unwrap();
                assert_eq!(a.result.value, alone.value, "{variant} {}", a.mv);
                if !limits.value_only {
                    // (Value-only scores are bounds that depend on the table's contents.)
                    assert_eq!(
                        a.score,
                        morris_solver::parent_score(alone.score),
                        "{variant} {}",
                        a.mv
                    );
                }
            }
        }
    }
}

/// A drawn No-flying position in which White is a piece up, so that a shallow search
/// scores it clearly above zero, and no move ends the game.
fn drawn_with_white_ahead() -> Position {
    positions_with(Variant::NoFlying, Sector::new(4, 3).unwrap(), 200, |v| {
        v == Value::DRAW
    })
    .into_iter()
    .find(|pos| {
        let moves = pos.legal_moves();
        moves.len() >= 2
            && moves
                .iter()
                .all(|&m| m.capture().is_none() && pos.play_unchecked(m).end().is_none())
    })
    .expect("a drawn 4-3 position")
}

#[test]
fn positions_repeated_from_the_history_score_as_draws() {
    let pos = drawn_with_white_ahead();
    let children: Vec<u64> = pos
        .legal_moves()
        .iter()
        .map(|&m| pos.play_unchecked(m).hash())
        .collect();
    for d in [1, 3, 5] {
        let free = Searcher::new(None, 16)
            .unwrap()
            .search(&pos, depth(d), &[])
            .unwrap();
        assert_eq!(
            free.provenance,
            Provenance::Estimate,
            "{pos} depth {d}: {free:?}"
        );
        assert!(
            free.score > 0,
            "{pos} depth {d}: a piece up scores {}",
            free.score
        );
        // Every move repeats a position of the game: nothing but a draw is left.
        let repeated = Searcher::new(None, 16)
            .unwrap()
            .search(&pos, depth(d), &children)
            .unwrap();
        assert_eq!(repeated.score, 0, "{pos} depth {d}: {repeated:?}");
        assert_eq!(
            repeated.provenance,
            Provenance::Estimate,
            "{pos}: {repeated:?}"
        );
        assert_eq!(repeated.value, None, "{pos}: {repeated:?}");
        assert!(
            repeated.best.is_some_and(|m| pos.is_legal(m)),
            "{pos}: {repeated:?}"
        );
    }
}

#[test]
fn a_shuttle_back_to_a_position_of_the_game_is_a_draw() {
    // White shuttles a piece out and back while Black does the same: the four
    // positions of the cycle are the game so far, and the root is its fifth.
    let root = drawn_with_white_ahead();
    let quiet = |p: &Position| -> Vec<Move> {
        p.legal_moves()
            .iter()
            .copied()
            .filter(|&m| m.capture().is_none() && p.play_unchecked(m).end().is_none())
            .collect()
    };
    let back_move = |m: Move| Move::shift(m.to(), m.from().unwrap());
    let (c1, c2, c3) = quiet(&root)
        .into_iter()
        .flat_map(|w| {
            let c1 = root.play_unchecked(w);
            quiet(&c1).into_iter().map(move |b| (w, c1, b))
        })
        .find_map(|(w, c1, b)| {
            let c2 = c1.play_unchecked(b);
            let c3 = c2.play(back_move(w)).ok()?;
            let again = c3.play(back_move(b)).ok()?;
            (again == root && c3.end().is_none()).then_some((c1, c2, c3))
        })
        .expect("a shuttle out and back for both sides");
    let history = [root.hash(), c1.hash(), c2.hash(), c3.hash()];
    let tb = tablebase();
    for d in [2, 4, 6] {
        // Within the search, White's shuttle now leads to a repetition: a draw.
        let mut searcher = Searcher::new(None, 16).unwrap();
        let with = searcher.search(&root, depth(d), &history).unwrap();
        assert_eq!(with.provenance, Provenance::Estimate, "{root}: {with:?}");
        assert!(with.score >= 0, "{root}: a draw is at hand, yet {with:?}");
        // Without the history the same search is an estimate of a drawn position too.
        let without = Searcher::new(None, 16)
            .unwrap()
            .search(&root, depth(d), &[])
            .unwrap();
        assert_eq!(
            without.provenance,
            Provenance::Estimate,
            "{root}: {without:?}"
        );
        // The table of the search with history must not spoil one without.
        let again = searcher.search(&root, depth(d), &[]).unwrap();
        assert_eq!(
            (again.score, again.provenance),
            (without.score, without.provenance),
            "{root} depth {d}: a reused searcher differs from a fresh one"
        );
        assert_eq!(tb.value(&root).expect("intact tables"), Some(Value::DRAW));
    }
    // analyze() sees the same repetitions.
    let moves = analyze(
        &mut Searcher::new(None, 16).unwrap(),
        &root,
        depth(4),
        &history,
    )
    .unwrap()
    .moves;
    let shuttle = moves
        .iter()
        .find(|a| root.play_unchecked(a.mv) == c1)
        .expect("the shuttle move is analysed");
    // Black can answer with its own shuttle, back to a position of the game: a draw at
    // worst for Black, so nothing better than a draw for White.
    assert!(
        shuttle.score <= 0 && shuttle.result.provenance == Provenance::Estimate,
        "{root}: {} returns to {c1}, a position of the game, yet scores {}",
        shuttle.mv,
        shuttle.score
    );
}

#[test]
fn a_win_through_a_repeated_position_is_not_claimed() {
    let tb = tablebase();
    let mut checked = 0;
    for pos in positions_with(Variant::NoFlying, Sector::new(4, 4).unwrap(), 40, |v| {
        v.dtm() == Some(3)
    }) {
        // The winning moves lead to positions of the game: repeating one is a draw.
        let winning: Vec<Move> = pos
            .legal_moves()
            .iter()
            .copied()
            .filter(|&m| back(exact(tb, &pos.play_unchecked(m), 0)) == WIN - 3)
            .collect();
        if winning
            .iter()
            .any(|&m| pos.play_unchecked(m).end().is_some())
        {
            continue;
        }
        checked += 1;
        let history: Vec<u64> = winning
            .iter()
            .map(|&m| pos.play_unchecked(m).hash())
            .collect();
        let r = Searcher::new(None, 16)
            .unwrap()
            .search(&pos, depth(6), &history)
            .unwrap();
        assert!(
            r.score >= 0 && r.score < MATE - 3,
            "{pos}: with {winning:?} repeating, {r:?}"
        );
        if let Some(best) = r.best.filter(|_| r.provenance == Provenance::Proof) {
            assert!(!winning.contains(&best), "{pos}: {r:?}");
            assert_eq!(
                back(exact(tb, &pos.play_unchecked(best), 0)),
                score_of(r.value.unwrap()),
                "{pos}: {r:?}"
            );
        }
        let free = Searcher::new(None, 16)
            .unwrap()
            .search(&pos, depth(6), &[])
            .unwrap();
        assert_eq!(
            free.value,
            Some(Verdict::from(Value::decided(3))),
            "{pos}: {free:?}"
        );
    }
    assert!(checked >= 10, "only {checked} positions checked");
}

#[test]
fn analyze_scores_a_move_back_to_a_position_of_the_game_as_search_does() {
    // No-flying, White to move wins in 3 only by b6-b4; the position after it is
    // already in the game.
    let pos = morris_engine::notation::parse_position(
        "BWB/W../.../B....W/.../.../.WB w 0 0",
        Variant::NoFlying,
    )
    .unwrap();
    let win = morris_engine::notation::parse_move("b6-b4").unwrap();
    assert_eq!(
        tablebase().value(&pos).expect("intact tables"),
        Some(Value::decided(3))
    );
    let history = [pos.play_unchecked(win).hash()];
    let root = Searcher::new(None, 16)
        .unwrap()
        .search(&pos, depth(6), &history)
        .unwrap();
    assert!(root.score < MATE_BOUND, "{root:?}");
    let moves = analyze(
        &mut Searcher::new(None, 16).unwrap(),
        &pos,
        depth(6),
        &history,
    )
    .unwrap()
    .moves;
    let repeated = moves.iter().find(|a| a.mv == win).unwrap();
    assert_eq!(
        repeated.score, 0,
        "search() scores {win} a draw by repetition (root {:+}), analyze() {}",
        root.score, repeated.score
    );
}

#[test]
fn limits_stop_the_search() {
    let start = Position::start(Variant::Standard);
    let unlimited = Searcher::new(None, 16)
        .unwrap()
        .search(&start, depth(6), &[])
        .unwrap();
    let limits = Limits {
        depth: Some(6),
        nodes: Some(unlimited.stats.nodes / 4),
        ..Limits::default()
    };
    let r = Searcher::new(None, 16)
        .unwrap()
        .search(&start, limits, &[])
        .unwrap();
    assert_eq!(r.provenance, Provenance::Estimate, "{r:?}");
    assert!(r.depth < 6, "{r:?}");
    assert!(r.stats.nodes < unlimited.stats.nodes, "{r:?}");
    assert!(r.best.is_some_and(|m| start.is_legal(m)), "{r:?}");
    let r = Searcher::new(None, 16)
        .unwrap()
        .search(&start, depth(3), &[])
        .unwrap();
    assert_eq!((r.depth, r.provenance), (3, Provenance::Estimate), "{r:?}");
    assert!(!r.pv.is_empty() && r.pv.len() <= 4, "{r:?}");
    let mut p = start;
    for &m in &r.pv {
        assert!(p.is_legal(m), "{r:?}");
        p = p.play_unchecked(m);
    }
}

#[test]
fn the_node_limit_is_kept_within_the_checking_interval() {
    let start = Position::start(Variant::Standard);
    for limit in [5_000, 20_000, 50_000] {
        let limits = Limits {
            nodes: Some(limit),
            ..Limits::default()
        };
        let r = Searcher::new(None, 16)
            .unwrap()
            .search(&start, limits, &[])
            .unwrap();
        assert!(
            r.stats.nodes <= limit + 1024,
            "--nodes {limit}: searched {} nodes",
            r.stats.nodes
        );
    }
}

/// Positions where the side to move places its last piece: it loses if it then has
/// fewer than three on the board (RULES.md, end of the game, rule 1).
#[test]
fn a_side_that_places_its_last_piece_into_defeat_loses() {
    let tb = tablebase();
    // Black to move places its last piece and has two on the board: Black loses in 1.
    let lost = morris_engine::notation::parse_position(
        ".W./.W./.W./...B../.../W../... b 0 1",
        Variant::Standard,
    )
    .unwrap();
    // White closes a1-d1-g1 and takes a black piece; Black then has one on the board
    // and one in hand, and must place it: White wins in 2.
    let won = morris_engine::notation::parse_position(
        "B../.../.../...B../.../.../WW. w 1 1",
        Variant::Standard,
    )
    .unwrap();
    assert_eq!(exact(tb, &lost, 1), -(WIN - 1));
    assert_eq!(exact(tb, &won, 2), WIN - 2);
    for (pos, wdl, dtm) in [(lost, Wdl::Loss, 1), (won, Wdl::Win, 2)] {
        for mut searcher in [
            Searcher::new(None, 16).unwrap(),
            Searcher::new(Some(tb), 16).unwrap(),
        ] {
            let r = searcher.search(&pos, Limits::default(), &[]).unwrap();
            assert_eq!(r.provenance, Provenance::Proof, "{pos}: {r:?}");
            let mate = MATE - dtm;
            let score = if wdl == Wdl::Win { mate } else { -mate };
            assert_eq!(r.score, score, "{pos}: {r:?}");
            let value = r.value.expect("a proof has a value");
            assert_eq!(
                (value.wdl, value.dtm),
                (wdl, Some(dtm as u16)),
                "{pos}: the search reports {value}"
            );
        }
    }
}

/// A node limit holds for each move's search of an analysis with a time limit too: a
/// move that reaches it stops deepening, the others go on to their own.
#[test]
fn analysis_with_a_node_limit_deepens_each_move_to_its_own() {
    let pos = morris_engine::notation::parse_position(
        "WW./.B./W.B/BW..BW/.../.../... w 0 0",
        Variant::Standard,
    )
    .unwrap();
    let nodes = 20_000;
    let limits = Limits {
        time: Some(std::time::Duration::from_secs(600)),
        nodes: Some(nodes),
        ..Limits::default()
    };
    let analysis = analyze(&mut Searcher::new(None, 16).unwrap(), &pos, limits, &[]).unwrap();
    for a in &analysis.moves {
        let alone = Searcher::new(None, 16)
            .unwrap()
            .search(&pos.play_unchecked(a.mv), depth_and_nodes(nodes), &[])
            .unwrap();
        assert!(
            a.result.depth + 1 >= alone.depth,
            "{}: depth {} in the analysis, {} alone within {nodes} nodes",
            a.mv,
            a.result.depth,
            alone.depth
        );
    }
}

fn depth_and_nodes(nodes: u64) -> Limits {
    Limits {
        nodes: Some(nodes),
        ..Limits::default()
    }
}
