//! `morris moves`: list the legal moves.

use crate::args::PositionArgs;

/// Print every legal move, one per line, in canonical notation.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  morris moves\n  morris moves --moves \"a7 b6 d7 f6\"   # includes g7xb6 and the other captures"
)]
pub struct Args {
    #[command(flatten)]
    position: PositionArgs,
}

/// Run the command. A finished game has no moves; its end goes to standard error.
///
/// # Errors
/// An input error for a bad position.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let game = args.position.game()?;
    if let Some(end) = game.end() {
        errln!("game over: {end}");
        return Ok(());
    }
    let mut moves: Vec<String> = game
        .position()
        .legal_moves()
        .iter()
        .map(ToString::to_string)
        .collect();
    moves.sort();
    for m in moves {
        outln!("{m}");
    }
    Ok(())
}
