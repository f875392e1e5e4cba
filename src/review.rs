//! `morris review`: a game gone through ply by ply by the tablebases.

use crate::args::{PositionArgs, StrategyArg};
use crate::report::ReviewJson;
use crate::tb::TbDir;
use morris_engine::{Color, Wdl};
use morris_solver::review::{self, Mark, Outcome};

/// Review a game ply by ply by the tablebases.
///
/// Each ply's value before and after for its player, blunders, inaccuracies and only
/// moves, the best alternative, and a summary per player.
#[derive(clap::Args)]
#[command(
    after_help = "A blunder loses value (a win given up for a draw or a loss, a draw for a loss); an\n\
inaccuracy keeps it but not at its best (a slower win, a quicker loss, a draw of a worse\n\
class where class files are present); an only move is one where every other move loses\n\
value. Plies whose positions the tables do not cover are listed as not judged.\n\n\
Examples:\n  morris review --moves \"d6 d2 f4 b4\" --tb /data/tb\n  \
morris review --fen \"W../.B./W../B....W/.../..B/... b 0 0\" --moves \"b4-b2 d7-g7\" --json"
)]
pub struct Args {
    #[command(flatten)]
    position: PositionArgs,

    #[command(flatten)]
    tb: TbDir,

    /// How draws are judged: `ultra` (the default) and `classes` by their draw class
    /// where class files are present, `perfect` all alike.
    #[arg(long, value_enum, default_value_t = StrategyArg::Ultra)]
    strategy: StrategyArg,

    /// Print JSON: every ply and the summary per player.
    #[arg(long)]
    json: bool,
}

/// An outcome in words.
fn words(o: &Outcome) -> String {
    match (o.wdl, o.dtm, o.class) {
        (Wdl::Win, Some(d), _) => format!("win in {d}"),
        (Wdl::Loss, Some(d), _) => format!("loss in {d}"),
        (Wdl::Win, None, _) => "win".into(),
        (Wdl::Loss, None, _) => "loss".into(),
        (Wdl::Draw, _, Some(c)) => format!("draw (class {c:+})"),
        (Wdl::Draw, _, None) => "draw".into(),
    }
}

/// Run the command.
///
/// # Errors
/// A bad position or move list, or a damaged tablebase file.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let game = args.position.game()?;
    if game.moves().is_empty() {
        return Err(crate::args::InputError(
            "nothing to review: give the game's moves with --moves (from the start, or from --fen)"
                .into(),
        )
        .into());
    }
    let tb = args.tb.open()?;
    crate::args::warn_classes(&tb, args.strategy, &args.tb.path());
    let r = review::review(&tb, &game, args.strategy.strategy())?;
    let start = game.positions()[0];
    if args.json {
        let doc = ReviewJson::of(&r, &start);
        outln!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    outln!(
        "review of {} plies from {start} ({})",
        r.plies.len(),
        start.rules()
    );
    for (i, p) in r.plies.iter().enumerate() {
        let who = p.before.side_to_move();
        let head = format!("{:>4}. {who:<5} {:<10}", i + 1, p.played.to_string());
        match &p.verdict {
            Err(why) => outln!("{head} not judged: {why}"),
            Ok(j) => {
                let only = if j.only_move { ", only move" } else { "" };
                let change = format!("{} -> {}", words(&j.best), words(&j.played));
                let tail = match j.mark {
                    Mark::Best => format!("best{only}"),
                    Mark::Inaccuracy | Mark::Blunder => {
                        let best: Vec<String> = j
                            .best_moves
                            .iter()
                            .take(3)
                            .map(ToString::to_string)
                            .collect();
                        format!(
                            "{}{only}; best {}",
                            j.mark.name().to_uppercase(),
                            best.join(" ")
                        )
                    }
                };
                outln!("{head} {change:<38} {tail}");
            }
        }
    }
    for c in [Color::White, Color::Black] {
        let s = r.summary(c);
        outln!(
            "{c}: {} plies judged ({} not), {} best, {} inaccuracies, {} blunders; only moves {} of {} found",
            s.judged,
            s.unjudged,
            s.best,
            s.inaccuracies,
            s.blunders,
            s.only_moves_found,
            s.only_moves
        );
    }
    Ok(())
}
