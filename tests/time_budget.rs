//! The time limit of `analyze`, `solve` and the searches behind them: one budget spent
//! over every move, and passes that keep their work when the time runs out. Depths are
//! compared with searches run in the same test, never with fixed timings.

mod common;
mod serve_util;

use common::{ok, refused};
use std::sync::OnceLock;
use std::time::Instant;
use tempfile::TempDir;

/// White (to move) has five pieces and Black four: outside the 4-a-side tables, 11
/// legal moves.
const MIDGAME: &str = "WW./.B./W.B/BW..BW/.../.../... w 0 0";
/// The empty board of the Standard game.
const EMPTY: &str = ".../.../.../....../.../.../... w 9 9";

/// Held by each test that compares depths reached in given times: they run one at a
/// time, so that none slows another down.
fn alone() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The whole 4-a-side game (movement and placement), generated once per process.
fn four() -> &'static str {
    static DIR: OnceLock<TempDir> = OnceLock::new();
    let dir = DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let path = dir.path().to_str().expect("a UTF-8 path").to_string();
        ok(&["generate", "--max-pieces", "4", "--tb", &path]);
        dir
    });
    dir.path().to_str().expect("a UTF-8 path")
}

/// Every move of `analyze --json` with the depth it reached.
fn analyze_depths(fen: &str, time: &str) -> Vec<(String, u64)> {
    let out = ok(&[
        "analyze",
        "--json",
        "--time",
        time,
        "--tb",
        four(),
        "--fen",
        fen,
    ]);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    doc["moves"]
        .as_array()
        .expect("a list of moves")
        .iter()
        .map(|m| {
            let mv = m["move"].as_str().expect("a move").to_string();
            let depth = m["depth"]
                .as_u64()
                .unwrap_or_else(|| panic!("no depth: {m}"));
            (mv, depth)
        })
        .collect()
}

/// The depth `solve` says it reached (`obtained: ... at depth N`).
fn solved_depth(args: &[&str]) -> u64 {
    let out = ok(args);
    let line = out
        .lines()
        .find(|l| l.starts_with("obtained:"))
        .unwrap_or_else(|| panic!("no 'obtained' line in {out}"));
    line.rsplit_once("at depth ")
        .and_then(|(_, d)| d.trim().parse().ok())
        .unwrap_or_else(|| panic!("no depth in '{line}'"))
}

/// Every move gets its share of the budget: each reaches at least the depth a lone
/// search of the position it leads to reaches in half its share of the time.
#[test]
fn analyze_spends_the_budget_over_every_move() {
    let _alone = alone();
    let time = 2.0;
    let moves = analyze_depths(MIDGAME, "2");
    assert_eq!(moves.len(), 11, "{moves:?}");
    let share = time / moves.len() as f64 / 2.0;
    let start = morris_engine::notation::parse_position(MIDGAME, morris_engine::Variant::Standard)
        .expect("the position");
    for (mv, depth) in &moves {
        let m = start
            .legal_moves()
            .iter()
            .copied()
            .find(|m| m.to_string() == *mv)
            .unwrap_or_else(|| panic!("{mv} is not legal"));
        let child = start.play_unchecked(m).to_string();
        let alone = solved_depth(&[
            "solve",
            "--time",
            &format!("{share}"),
            "--tb",
            four(),
            "--fen",
            &child,
        ]);
        assert!(
            *depth >= alone,
            "{mv}: depth {depth} in the analysis, {alone} for a lone search of {share} s"
        );
    }
}

/// More time gives deeper results: every move of a 4-second analysis is deeper than
/// the shallowest of a 1-second one.
#[test]
fn more_time_analyzes_deeper() {
    let _alone = alone();
    let short = analyze_depths(MIDGAME, "1");
    let long = analyze_depths(MIDGAME, "4");
    let shallowest = short.iter().map(|m| m.1).min().expect("moves");
    let shallowest_long = long.iter().map(|m| m.1).min().expect("moves");
    assert!(
        shallowest_long > shallowest,
        "--time 4 reaches {long:?}, --time 1 {short:?}"
    );
}

/// In the placing phase, with tables that the end of the placing phase does not reach,
/// `solve --time 4` deepens over the whole budget: at least as deep as `--depth N`
/// gets in a quarter of it.
#[test]
fn solve_in_the_placing_phase_keeps_deepening_to_the_deadline() {
    let _alone = alone();
    let tb = four();
    let quarter = 1.0;
    let mut reached = 0;
    for depth in 1..40u32 {
        let clock = Instant::now();
        let d = depth.to_string();
        let got = solved_depth(&["solve", "--fen", EMPTY, "--depth", &d, "--tb", tb]);
        if clock.elapsed().as_secs_f64() > quarter {
            break;
        }
        assert_eq!(got, u64::from(depth));
        reached = depth;
    }
    assert!(reached >= 3, "depth {reached} in {quarter} s");
    let timed = solved_depth(&["solve", "--fen", EMPTY, "--time", "4", "--tb", tb]);
    assert!(
        timed >= u64::from(reached),
        "--time 4 reached depth {timed}, --depth {reached} takes under {quarter} s"
    );
}

/// The same in `analyze`: its moves deepen to the deadline from the empty board.
#[test]
fn analyze_in_the_placing_phase_deepens_every_move() {
    let _alone = alone();
    let moves = analyze_depths(EMPTY, "2");
    assert_eq!(moves.len(), 24);
    let shallowest = moves.iter().map(|m| m.1).min().expect("moves");
    assert!(shallowest >= 4, "{moves:?}");
}

/// A time limit beyond a year is refused with a number a person can read.
#[test]
fn absurd_time_limits_are_refused_readably() {
    for (time, shown) in [("1e308", "1e308"), ("1e30", "1e30"), ("inf", "inf")] {
        let err = refused(&["solve", "--time", time, "--fen", EMPTY]);
        assert!(err.contains(&format!("--time {shown} ")), "{time}: {err}");
        assert!(err.len() < 200, "{time}: {err}");
    }
}

/// The JSON API spends its `time` over every move as `analyze` does: it uses the
/// budget (not a share of it a move), and its moves reach the depths of `analyze`.
#[test]
fn the_api_spends_its_time_over_every_move() {
    let _alone = alone();
    let server = serve_util::Server::start(std::path::Path::new(four()), &[]);
    let path = format!("/api/position?fen={}&time=2", serve_util::enc(MIDGAME));
    let doc = server.json(&path);
    let spent = doc["search"]["time_ms"].as_u64().expect("time_ms");
    assert!(
        spent >= 1000,
        "a 2 s budget, {spent} ms searched: {}",
        doc["search"]
    );
    let moves = doc["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 11);
    let api = moves
        .iter()
        .map(|m| {
            m["depth"]
                .as_u64()
                .unwrap_or_else(|| panic!("no depth: {m}"))
        })
        .min()
        .expect("moves");
    let cli = analyze_depths(MIDGAME, "2")
        .iter()
        .map(|m| m.1)
        .min()
        .expect("moves");
    assert!(
        api + 1 >= cli,
        "API depth {api}, analyze --time 2 depth {cli}"
    );
    assert_eq!(doc["search"]["depth"].as_u64(), Some(api + 1));
}
