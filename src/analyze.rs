//! `morris analyze`: every legal move with the value of the position it leads to.

use crate::args::{PositionArgs, SearchArgs};
use crate::describe;
use crate::report::{Report, Search};
use crate::tb::TbDir;
use morris_engine::{Color, EndReason};
use morris_solver::{analyze_with, Limits, MoveAnalysis, Searcher};
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

    /// Print JSON: the document of README's "JSON output", as `probe`, `solve` and the
    /// API of `serve` write it.
    ///
    /// The position, its value for the side to move, the best moves and line, every
    /// move best first with its parts, the position it leads to, that position's
    /// value (for the opponent), the result for the mover and its search depth, and
    /// the search's time limit, time, nodes and depth.
    #[arg(long)]
    json: bool,
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
                (Wdl::Draw, _) => match &a.class {
                    Some(c) => format!("draw, {}", describe::class_for_mover(c)),
                    None => "draw".to_string(),
                },
            };
            format!("{for_mover:<22} (leads to {} for {})", v, mover.opponent())
        }
        None => format!("estimate {:+} for {mover}", a.score),
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
    if let Some(end) = game.end().filter(|_| args.json) {
        outln!(
            "{}",
            serde_json::to_string_pretty(&Report::finished(&game, end))?
        );
        return Ok(());
    }
    if let Some(end) = game.end().filter(|e| e.reason() == EndReason::Threefold) {
        outln!("position: {pos} ({})", pos.rules());
        outln!("game over: {end}");
        return Ok(());
    }
    let tb = args.tb.open()?;
    let mut searcher = Searcher::new(Some(&tb), args.search.hash)?;
    searcher.set_strategy(args.search.strategy.strategy());
    crate::args::warn_classes(&tb, args.search.strategy, &args.tb.path());
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
        let search = Search::new(root, limits.time, clock.elapsed());
        let report = Report::analysis(&game, &analysis, search, args.search.strategy.strategy());
        outln!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    outln!("position: {pos} ({})", pos.rules());
    match (root.value, pos.end()) {
        (_, Some(end)) => outln!("game over: {end}"),
        (Some(v), None) => {
            let class = match v.wdl {
                Wdl::Draw if root.provenance.is_exact() => searcher
                    .class_info(&pos)?
                    .map(|c| format!(", {}", describe::class(&c))),
                _ => None,
            };
            outln!(
                "value:    {}{} ({})",
                describe::value_for(v, pos.side_to_move()),
                class.unwrap_or_default(),
                describe::obtained(root.provenance, root.depth)
            );
        }
        (None, None) => outln!(
            "value:    estimate {:+} for {} ({})",
            root.score,
            pos.side_to_move(),
            describe::obtained(root.provenance, root.depth)
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
    if let Some(e) = searcher.class_failure() {
        errln!("warning: {e}; plain perfect play in its sector");
    }
    outln!(
        "search:   {nodes} nodes in {secs:.3} s ({:.2} M nodes/s)",
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}
