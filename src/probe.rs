//! `morris probe`: the tablebase value of a position.

use crate::args::PositionArgs;
use crate::args::StrategyArg;
use crate::describe;
use crate::report::{ClassJson, MoveReport, Report, Value};
use crate::tb::TbDir;
use morris_engine::{Game, Position};
use morris_solver::Searcher;
use morris_tablebase::sector::SectorId;
use morris_tablebase::{Tablebase, Wdl};

/// Look a position up in the tablebases.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  morris probe --fen \"W.B/.W./.../B....W/.../.../B.. w 0 0\"\n  morris probe --variant no-flying --fen \"...\" --tb /data/tb\n  morris probe --moves \"d6 d2 f4\" --json"
)]
pub struct Args {
    #[command(flatten)]
    position: PositionArgs,

    #[command(flatten)]
    tb: TbDir,

    /// How to rank the moves that keep the value: `ultra` (the default) orders drawing
    /// moves by draw class where class files are present.
    #[arg(long, value_enum, default_value_t = StrategyArg::Ultra)]
    strategy: StrategyArg,

    /// Print JSON: the document of README's "JSON output", as `solve`, `analyze` and
    /// the API of `serve` write it.
    ///
    /// The position, its tablebase value, and every move best first with the table's
    /// value of the position it leads to (for the opponent) and the result for the
    /// mover. No search: "line", "search" and each move's "depth" are null; a
    /// position the tables do not hold has the value "obtained": "not covered". The
    /// tables know no history: a repetition in `--moves` ends the game, but is not
    /// looked ahead for.
    #[arg(long)]
    json: bool,
}

/// Run the command.
///
/// # Errors
/// A bad position or a bad tablebase file.
pub fn run(args: &Args) -> anyhow::Result<()> {
    // The game's end, not the position's: a threefold repetition in `--moves` ends
    // the game as it does for every other command, whatever the table says.
    let game = args.position.game()?;
    if let Some(end) = game.end() {
        if args.json {
            outln!(
                "{}",
                serde_json::to_string_pretty(&Report::finished(&game, end))?
            );
        } else {
            outln!("game over: {end}");
        }
        return Ok(());
    }
    if args.json {
        let tb = args.tb.open()?;
        let mut searcher = Searcher::new(Some(&tb), 1)?;
        searcher.set_strategy(args.strategy.strategy());
        let report = probed(&tb, &searcher, &game)?;
        outln!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let pos = *game.position();
    let Some(sector) = Tablebase::sector_id_of(&pos) else {
        outln!("not covered: the tablebases hold positions with both hands empty and 3 to 9 pieces a side, and positions with the hands a game produces");
        return Ok(());
    };
    // What generates the missing sector: a placement sector comes with its whole game.
    let generate = match sector {
        SectorId::Movement(_) => format!("--sector {sector}"),
        SectorId::Placement(p) => {
            let (us, them) = p.material();
            format!("--max-pieces {}", us.max(them))
        }
    };
    let dir = args.tb.path();
    let tb = args.tb.open()?;
    match tb.value(&pos)? {
        Some(v) if v.is_distance_unknown() => {
            outln!(
                "{} ({} sector {sector}; distance unknown: only its .wdl file is in {})",
                describe::value(v.into()),
                pos.rules(),
                dir.display()
            );
            let keeping = keeping_moves(&tb, &pos, v.wdl())?;
            outln!("moves that keep it: {}", keeping.join(" "));
        }
        Some(v) => {
            let mut searcher = Searcher::new(Some(&tb), 1)?;
            searcher.set_strategy(args.strategy.strategy());
            crate::args::warn_classes(&tb, args.strategy, &dir);
            let class = if v.wdl() == Wdl::Draw {
                searcher.class_info(&pos)?
            } else {
                None
            };
            match &class {
                Some(c) => outln!(
                    "{} ({} sector {sector}), {}",
                    describe::value(v.into()),
                    pos.rules(),
                    describe::class(c)
                ),
                None => outln!(
                    "{} ({} sector {sector})",
                    describe::value(v.into()),
                    pos.rules()
                ),
            }
            if class.is_some() {
                let mut ranked = Vec::new();
                for m in searcher.tablebase_best_moves(&pos)? {
                    let next = pos.play_unchecked(m);
                    ranked.push(match searcher.class_info(&next)? {
                        Some(c) => format!("{m} ({})", describe::class_for_mover(&c)),
                        None => m.to_string(),
                    });
                }
                // As the strategy ranks them: `perfect` takes any of them.
                let strategy = args.strategy.strategy();
                let label = if strategy.steers_by_class(&pos) {
                    "drawing moves, best class first"
                } else if strategy.sets_traps() {
                    "drawing moves, most traps first"
                } else {
                    "drawing moves"
                };
                outln!("{label}: {}", ranked.join(", "));
            }
            if let Some(e) = searcher.class_failure() {
                errln!("warning: {e}; plain perfect play in its sector");
            }
        }
        None => outln!(
            "not covered: {} sector {sector} is not in {} (run `morris generate --variant {} {generate}`)",
            pos.rules(),
            dir.display(),
            pos.rules()
        ),
    }
    Ok(())
}

/// The tables' value of a game's position (not finished) and every move's.
///
/// # Errors
/// A damaged file, named.
fn probed(tb: &Tablebase, searcher: &Searcher<'_>, game: &Game) -> anyhow::Result<Report> {
    let pos = game.position();
    let value = |p: &Position| -> anyhow::Result<Value> {
        Ok(match p.end() {
            Some(end) => Value::finished(p, end),
            None => {
                let v = tb.value(p)?;
                let class = match v {
                    Some(v) if v.wdl() == Wdl::Draw => searcher.class_info(p)?,
                    _ => None,
                };
                Value {
                    class: class.as_ref().map(ClassJson::of),
                    ..Value::table(v.map(Into::into))
                }
            }
        })
    };
    let mut moves = Vec::new();
    for &m in pos.legal_moves().iter() {
        let child = pos.play_unchecked(m);
        moves.push(MoveReport::new(pos, m, value(&child)?, None));
    }
    Ok(Report::probed(
        game,
        value(pos)?,
        moves,
        searcher.strategy(),
    ))
}

/// The moves of a covered position that keep its value `wdl`, from the values of
/// the positions they lead to (every move, when the position is lost).
///
/// # Errors
/// A damaged file, named; a successor the tablebases do not cover.
fn keeping_moves(tb: &Tablebase, pos: &Position, wdl: Wdl) -> anyhow::Result<Vec<String>> {
    let mut keeping = Vec::new();
    for &m in pos.legal_moves().iter() {
        let next = pos.play_unchecked(m);
        let theirs = match next.end() {
            Some(end) => end.value_for(next.side_to_move()),
            None => match tb.value(&next)? {
                Some(v) => v.wdl(),
                None => anyhow::bail!(
                    "the position after {m} is not in the tablebases: cannot tell which moves keep the value"
                ),
            },
        };
        let ours = match theirs {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        };
        if ours == wdl {
            keeping.push(m.to_string());
        }
    }
    Ok(keeping)
}
