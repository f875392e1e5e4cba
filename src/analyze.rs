//! `morris analyze`: every legal move with the value of the position it leads to.

use crate::args::{PositionArgs, SearchArgs};
use crate::solve::describe_value;
use crate::tb::TbDir;
use morris_engine::{Color, EndReason, Position};
use morris_solver::{analyze_with, Limits, MoveAnalysis, Provenance, Searcher, Verdict};
use morris_tablebase::Wdl;

/// List every legal move, best first: quickest win, then draws, then slowest loss.
#[derive(clap::Args)]
#[command(
    after_help = "Each move is shown with the value of the position it leads to, like the chess\n\
tablebase explorers; in the text output also as a result for the side that plays it.\n\
The time limit is one budget for the whole analysis, spent over every move: the moves\n\
are deepened together, one ply a round, and each keeps the result of the deepest round\n\
it completed (its depth, in plies searched after the move, is shown); each completed\n\
round is reported on standard error. More time gives every move a deeper result.\n\n\
Examples:\n  morris analyze --fen \"WB./W../.../.....W/.../.../BB. w 0 0\"\n  \
morris analyze --moves \"d6 d2 f4\" --time 2 --json"
)]
pub struct Args {
    #[command(flatten)]
    position: PositionArgs,

    #[command(flatten)]
    search: SearchArgs,

    #[command(flatten)]
    tb: TbDir,

    /// Print JSON: the position's value, then every move with the value of the
    /// position it leads to (for the side to move there).
    #[arg(long)]
    json: bool,
}

fn wdl_name(v: Verdict) -> &'static str {
    match v.wdl {
        Wdl::Win => "win",
        Wdl::Draw => "draw",
        Wdl::Loss => "loss",
    }
}

fn value_json(value: Option<Verdict>, score: i32, provenance: Provenance) -> serde_json::Value {
    match value {
        // A proven result whose distance is only an upper bound keeps `exact: false`.
        Some(v) => serde_json::json!({
            "wdl": wdl_name(v), "dtm": v.dtm, "exact": provenance.is_exact(), "provenance": provenance.name(),
        }),
        None => serde_json::json!({
            "wdl": null, "dtm": null, "exact": false, "provenance": provenance.name(), "score": score,
        }),
    }
}

/// The JSON document of an analysis.
fn to_json(
    pos: &Position,
    root: &morris_solver::SearchResult,
    moves: &[MoveAnalysis],
) -> serde_json::Value {
    serde_json::json!({
        "position": pos.to_string(),
        "variant": pos.variant().name(),
        "side_to_move": pos.side_to_move().name(),
        "perspective": "\"value\" is for the side to move in the analysed position; each move's \"value\" is for the side to move in the position the move leads to (the opponent), as in chess tablebase explorers",
        "value": value_json(root.value, root.score, root.provenance),
        "moves": moves.iter().map(|a| {
            let mut v = value_json(a.result.value, a.result.score, a.result.provenance);
            v["move"] = serde_json::Value::from(a.mv.to_string());
            v["depth"] = serde_json::Value::from(a.result.depth);
            v
        }).collect::<Vec<_>>(),
    })
}

/// What a move leads to, in words for the side that plays it (`mover`).
fn move_verdict(a: &MoveAnalysis, mover: Color) -> String {
    match a.result.value {
        Some(v) => {
            let within = if a.result.provenance.is_exact() {
                ""
            } else {
                "at most "
            };
            let for_mover = match (v.wdl, v.dtm) {
                (Wdl::Loss, Some(d)) => format!("{mover} wins in {within}{}", d + 1),
                (Wdl::Win, Some(d)) => format!("{mover} loses in {within}{}", d + 1),
                (Wdl::Loss, None) => format!("{mover} wins"),
                (Wdl::Win, None) => format!("{mover} loses"),
                (Wdl::Draw, _) => "draw".to_string(),
            };
            format!("{for_mover:<22} (leads to {} for {})", v, mover.opponent())
        }
        None => format!("estimate {:+} for {mover}", a.score),
    }
}

/// How the position's value was obtained, with the depth of a search.
fn obtained(root: &morris_solver::SearchResult) -> String {
    match root.provenance {
        Provenance::Terminal | Provenance::Tablebase => root.provenance.name().to_string(),
        p => format!("{} at depth {}", p.name(), root.depth),
    }
}

/// Run the command.
///
/// # Errors
/// A bad position, bad limits, or a bad tablebase file.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let limits = args.search.limits()?;
    let game = args.position.game()?;
    let pos = *game.position();
    if let Some(end) = game.end().filter(|e| e.reason() == EndReason::Threefold) {
        outln!("position: {pos} ({})", pos.variant());
        outln!("game over: {end}");
        return Ok(());
    }
    let tb = args.tb.open()?;
    let mut searcher = Searcher::new(Some(&tb), args.search.hash)?;
    let history = game.history();
    let clock = std::time::Instant::now();
    // One budget for every move and the root, counted from here.
    let limits = Limits {
        start: Some(clock),
        ..limits
    };
    let mover = pos.side_to_move();
    let analysis = analyze_with(&mut searcher, &pos, limits, &history, |depth, moves| {
        if let Some(best) = moves.first() {
            eprintln!(
                "analyze: depth {depth} done, best {} {} ({:.1} s)",
                best.mv,
                move_verdict(best, mover),
                clock.elapsed().as_secs_f64()
            );
        }
    })?;
    let (root, moves) = (&analysis.root, &analysis.moves);
    let secs = clock.elapsed().as_secs_f64();
    let nodes = root.stats.nodes;
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&to_json(&pos, root, moves))?
        );
        return Ok(());
    }
    outln!("position: {pos} ({})", pos.variant());
    match (root.value, pos.end()) {
        (_, Some(end)) => outln!("game over: {end}"),
        (Some(v), None) => outln!(
            "value:    {} ({})",
            describe_value(v, pos.side_to_move()),
            obtained(root)
        ),
        (None, None) => outln!(
            "value:    estimate {:+} for {} ({})",
            root.score,
            pos.side_to_move(),
            obtained(root)
        ),
    }
    for a in moves {
        outln!(
            "  {:<12} {:<60} depth {}",
            a.mv.to_string(),
            move_verdict(a, mover),
            a.result.depth
        );
    }
    outln!(
        "search:   {nodes} nodes in {secs:.3} s ({:.2} M nodes/s)",
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}
