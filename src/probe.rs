//! `morris probe`: the tablebase value of a position.

use crate::args::PositionArgs;
use crate::tb::TbDir;
use morris_engine::{Outcome, Position};
use morris_solver::Verdict;
use morris_tablebase::sector::SectorId;
use morris_tablebase::{Tablebase, Wdl};

/// Look a position up in the tablebases.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  morris probe --fen \"W.B/.W./.../B....W/.../.../B.. w 0 0\"\n  morris probe --variant no-flying --fen \"...\" --tb /data/tb"
)]
pub struct Args {
    #[command(flatten)]
    position: PositionArgs,

    #[command(flatten)]
    tb: TbDir,
}

/// Describe a value for people.
pub fn describe(v: Verdict) -> String {
    match (v.wdl, v.dtm) {
        (Wdl::Win, Some(d)) => format!("win for the side to move, DTM {}", crate::tb::plies(d)),
        (Wdl::Loss, Some(d)) => format!("loss for the side to move, DTM {}", crate::tb::plies(d)),
        (Wdl::Win, None) => "win for the side to move".to_string(),
        (Wdl::Loss, None) => "loss for the side to move".to_string(),
        (Wdl::Draw, _) => "draw".to_string(),
    }
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
        outln!("game over: {end}");
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
                describe(v.into()),
                pos.variant(),
                dir.display()
            );
            let keeping = keeping_moves(&tb, &pos, v.wdl())?;
            outln!("moves that keep it: {}", keeping.join(" "));
        }
        Some(v) => outln!("{} ({} sector {sector})", describe(v.into()), pos.variant()),
        None => outln!(
            "not covered: {} sector {sector} is not in {} (run `morris generate --variant {} {generate}`)",
            pos.variant(),
            dir.display(),
            pos.variant()
        ),
    }
    Ok(())
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
            Some(end) => match end.outcome {
                Outcome::Win(c) if c == next.side_to_move() => Wdl::Win,
                Outcome::Win(_) => Wdl::Loss,
                Outcome::Draw => Wdl::Draw,
            },
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
