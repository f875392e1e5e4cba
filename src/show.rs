//! `morris show`: draw the board and describe the position.

use crate::args::PositionArgs;
use morris_engine::{notation, Board, Color, GameEnd, Position};

/// Draw the board of a position, with both position strings and the state of play.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  morris show\n  morris show --moves \"d6 d2 f4 b4\"\n  morris show --variant no-flying --fen \"W../.B./.../W.B..W/.../.../... b 0 0\"\n  morris show --rules six-mens --moves \"d7 d5 a4\""
)]
pub struct Args {
    #[command(flatten)]
    position: PositionArgs,
}

/// Run the command.
///
/// # Errors
/// An input error for a bad position.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let game = args.position.game()?;
    out!("{}", describe(game.position(), game.end()));
    Ok(())
}

fn describe(pos: &Position, end: Option<GameEnd>) -> String {
    let setup = pos.to_setup();
    let mut out = notation::position_diagram(pos);
    out.push('\n');
    out.push_str(&format!("position: {pos}\n"));
    if pos.rules().board() != Board::Six {
        // Sanmill has no six board.
        out.push_str(&format!(
            "sanmill:  {}\n",
            notation::setup_to_sanmill(&setup)
        ));
    }
    out.push_str(&format!("variant:  {}\n", pos.rules()));
    for c in Color::ALL {
        let phase = pos.phase(c);
        out.push_str(&format!(
            "{:<6}    {} on board, {} in hand, {phase}\n",
            format!("{c}:"),
            pos.pieces(c).count(),
            pos.hand(c)
        ));
    }
    match end {
        Some(end) => out.push_str(&format!("game over: {end}\n")),
        None => out.push_str(&format!(
            "to move:  {} ({} legal moves)\n",
            pos.side_to_move(),
            pos.count_legal_moves()
        )),
    }
    out
}
