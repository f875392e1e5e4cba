//! `morris play`: a game against the engine in the terminal.

use crate::args::PositionArgs;
use crate::tb::TbDir;
use clap::ValueEnum;
use morris_engine::{notation, Color, Position};
use morris_solver::{Limits, Searcher};
use std::io::{BufRead, Write};
use std::time::Duration;

/// The colour the person plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorArg {
    /// Moves first.
    White,
    /// Moves second.
    Black,
}

/// Play a game against the engine: type moves like d6, a1-a4 or d6xg7.
#[derive(clap::Args)]
#[command(
    after_help = "At the prompt: a move (d6, a1-a4, d6xg7, or d6 xg7), 'moves' for the legal moves,\n\
'undo' to take back your last move, 'quit' to stop.\n\n\
Examples:\n  morris play\n  morris play --color black --variant no-flying --time 5"
)]
pub struct Args {
    /// The colour you play.
    #[arg(long, value_enum, default_value_t = ColorArg::White)]
    color: ColorArg,

    /// Engine thinking time per move, in seconds.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 2.0,
        allow_hyphen_values = true
    )]
    time: f64,

    /// Transposition table size in MiB.
    #[arg(long, value_name = "MB", default_value_t = 64, value_parser = crate::args::hash_mb)]
    hash: usize,

    #[command(flatten)]
    position: PositionArgs,

    #[command(flatten)]
    tb: TbDir,
}

fn show(pos: &Position) {
    out!("\n{}", notation::position_diagram(pos));
    outln!(
        "white: {} on board, {} in hand    black: {} on board, {} in hand",
        pos.pieces(Color::White).count(),
        pos.hand(Color::White),
        pos.pieces(Color::Black).count(),
        pos.hand(Color::Black)
    );
}

/// Run the command.
///
/// # Errors
/// A bad position, a bad time, a bad tablebase file, or a failure to read input.
pub fn run(args: &Args) -> anyhow::Result<()> {
    if !(args.time.is_finite() && args.time > 0.0) {
        return Err(crate::args::InputError(format!(
            "--time {} is not a positive number of seconds",
            args.time
        ))
        .into());
    }
    let human = match args.color {
        ColorArg::White => Color::White,
        ColorArg::Black => Color::Black,
    };
    let mut game = args.position.game()?;
    let tb = args.tb.open()?;
    let mut searcher = Searcher::new(Some(&tb), args.hash)?;
    let limits = Limits {
        // A time too long to represent is no limit.
        time: Some(Duration::try_from_secs_f64(args.time).unwrap_or(Duration::MAX)),
        ..Limits::default()
    };
    let rules = args.position.rules()?;
    outln!(
        "{} game; you play {human}. Type a move, 'moves', 'undo' or 'quit'.",
        match rules.variant() {
            Some(morris_engine::Variant::Standard) => "Standard".to_string(),
            Some(morris_engine::Variant::NoFlying) => "No-flying".to_string(),
            None => format!("House-rules ({rules})"),
        }
    );
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        let pos = *game.position();
        show(&pos);
        if let Some(end) = game.end() {
            outln!("game over: {end}");
            return Ok(());
        }
        if pos.side_to_move() != human {
            let r = searcher.search(&pos, limits, &game.history())?;
            let Some(m) = r.best else {
                anyhow::bail!("the engine found no move");
            };
            let verdict = match r.value {
                Some(v) => format!(
                    "{} for the engine, {}",
                    crate::describe::value(v),
                    r.provenance.name()
                ),
                None => format!("estimate {:+}", r.score),
            };
            outln!("engine plays {m}   ({verdict})");
            game.play(m)?;
            continue;
        }
        out!("your move> ");
        std::io::stdout().flush()?;
        let Some(line) = lines.next() else {
            outln!();
            return Ok(());
        };
        let line = line?;
        match line.trim() {
            "" => continue,
            "quit" | "q" | "exit" => return Ok(()),
            "moves" => {
                let moves: Vec<String> =
                    pos.legal_moves().iter().map(ToString::to_string).collect();
                outln!("{}", moves.join(" "));
            }
            "undo" => {
                // Take back the engine's reply and your move.
                game.undo();
                if game.position().side_to_move() != human {
                    game.undo();
                }
            }
            text => match notation::parse_moves(&pos, text) {
                Ok(line) if line.len() == 1 => {
                    if let Err(e) = game.play(line[0].0) {
                        outln!("illegal: {e}");
                    }
                }
                Ok(_) => outln!("one move at a time, please"),
                Err(e) => outln!("{e}"),
            },
        }
    }
}
