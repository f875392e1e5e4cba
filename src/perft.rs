//! `morris perft`: count move sequences, to test and time move generation.

use crate::args::{InputError, PositionArgs};
use std::time::Instant;

/// The deepest count accepted. From the start the counts grow about 19 times a ply
/// (`perft 7` is 1,873,562,112) and then by the number of empty points: near 16 plies
/// they pass `u64::MAX`, and long before that they take years.
const MAX_DEPTH: u32 = 16;

/// Count the move sequences of DEPTH plies (a capture is part of its move).
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  morris perft 5            # 5140800 from the start\n  morris perft 3 --divide --moves \"d6 d2\""
)]
pub struct Args {
    /// Plies to count (1 to 16).
    #[arg(value_parser = depth)]
    depth: u32,

    /// Print the count below each first move.
    #[arg(long)]
    divide: bool,

    #[command(flatten)]
    position: PositionArgs,
}

/// Parse a depth: 1 to [`MAX_DEPTH`].
fn depth(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if (1..=MAX_DEPTH).contains(&n) => Ok(n),
        _ => Err(format!(
            "'{s}' is not a depth from 1 to {MAX_DEPTH} plies (deeper counts do not fit in 64 bits)"
        )),
    }
}

/// Run the command.
///
/// # Errors
/// An input error for a bad position, or for a count that does not fit in 64 bits.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let game = args.position.game()?;
    let pos = game.position();
    let clock = Instant::now();
    // A game that has ended (threefold included) has no moves, as `moves` says; inside
    // the counted tree only the position's own end counts, as perft counts sequences
    // of moves from a position.
    let (lines, total) = if game.end().is_some() {
        (Vec::new(), Some(0))
    } else if args.divide {
        let lines = morris_engine::perft_divide(pos, args.depth).map(|mut lines| {
            lines.sort_by_key(|(m, _)| m.to_string());
            lines
        });
        let total = lines
            .as_ref()
            .and_then(|l| l.iter().try_fold(0u64, |sum, (_, n)| sum.checked_add(*n)));
        (lines.unwrap_or_default(), total)
    } else {
        (Vec::new(), morris_engine::perft(pos, args.depth))
    };
    let Some(total) = total else {
        return Err(InputError(format!(
            "perft {} of {pos} counts more sequences than 64 bits hold",
            args.depth
        ))
        .into());
    };
    for (m, n) in &lines {
        outln!("{m}: {n}");
    }
    let secs = clock.elapsed().as_secs_f64();
    outln!("perft {}: {total}", args.depth);
    errln!(
        "{total} leaves in {secs:.3} s ({:.1} M leaves/s)",
        total as f64 / secs.max(1e-9) / 1e6
    );
    Ok(())
}
