//! `morris puzzles`: training positions from the tables, where exactly one move keeps
//! the win (or saves the draw), with the solution line.

use crate::args::VariantArg;
use crate::report::PuzzleJson;
use crate::tb::TbDir;
use clap::ValueEnum;
use morris_engine::{notation, Variant};
use morris_solver::puzzles::{self, Goal, Search};
use morris_solver::{Rng, Searcher};
use morris_tablebase::SectorId;

/// What the puzzles ask.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GoalArg {
    /// Exactly one move keeps the win.
    Win,
    /// The position is drawn and exactly one move keeps the draw.
    Draw,
    /// Either.
    Any,
}

/// Training positions: one move keeps the win or saves the draw.
#[derive(clap::Args)]
#[command(
    after_help = "Positions are drawn at random (seeded) from the sectors asked for; by default from\n\
the endgames players practise most, those of them present in the tables: 3-3, 3-4, 4-3,\n\
5-4, 4-5, 7-4 and 4-7 (pieces of the side to move first). Placement sectors are asked\n\
for like 3-4+5-4 (pieces on the board, then in hand).\n\n\
Examples:\n  morris puzzles --tb /data/tb\n  \
morris puzzles --sector 3-4 --goal win --min-dtm 15 --count 5\n  \
morris puzzles --sector 5-4+1-1 --goal draw --json"
)]
pub struct Args {
    /// Rules: standard (flying at three pieces) or no-flying.
    #[arg(long, value_enum, default_value_t = VariantArg::Standard)]
    variant: VariantArg,

    /// Sectors to draw positions from (repeatable).
    #[arg(long, value_name = "SECTOR")]
    sector: Vec<SectorId>,

    /// What the puzzles ask.
    #[arg(long, value_enum, default_value_t = GoalArg::Any)]
    goal: GoalArg,

    /// Wins at least this many plies long.
    #[arg(long, value_name = "PLIES", default_value_t = puzzles::MIN_DTM)]
    min_dtm: u16,

    /// Wins at most this many plies long.
    #[arg(long, value_name = "PLIES", default_value_t = u16::MAX)]
    max_dtm: u16,

    /// Puzzles a sector.
    #[arg(long, value_name = "N", default_value_t = 3)]
    count: usize,

    /// Positions tried a sector at most.
    #[arg(long, value_name = "N", default_value_t = puzzles::TRIES)]
    tries: u64,

    /// Seed of the choice: the same seed gives the same puzzles.
    #[arg(long, default_value_t = 1)]
    seed: u64,

    #[command(flatten)]
    tb: TbDir,

    /// Print JSON: a list of puzzles, each with its position, sector, goal, distance,
    /// solution and line.
    #[arg(long)]
    json: bool,
}

/// Run the command.
///
/// # Errors
/// Bad options, no sector to draw from, a damaged tablebase file.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let variant = Variant::from(args.variant);
    let tb = args.tb.open()?;
    let sectors: Vec<SectorId> = if args.sector.is_empty() {
        puzzles::classics(&tb, variant)
    } else {
        args.sector.clone()
    };
    if sectors.is_empty() {
        return Err(crate::args::InputError(format!(
            "no sector to draw puzzles from: none of 3-3, 3-4, 4-3, 5-4, 4-5, 7-4, 4-7 of the {variant} game is in {} (run `morris generate --variant {} --sector 4-3`, or name a sector with --sector)",
            args.tb.path().display(),
            variant.name()
        ))
        .into());
    }
    if let Some(&missing) = sectors.iter().find(|&&s| !tb.contains(variant, s)) {
        return Err(crate::args::InputError(format!(
            "sector {missing} of the {variant} game is not in {}",
            args.tb.path().display()
        ))
        .into());
    }
    let goal = match args.goal {
        GoalArg::Win => Some(Goal::Win),
        GoalArg::Draw => Some(Goal::Draw),
        GoalArg::Any => None,
    };
    let searcher = Searcher::new(Some(&tb), 1)?;
    let mut rng = Rng::new(args.seed);
    let mut out = Vec::new();
    for &sector in &sectors {
        let want = Search {
            sector,
            goal,
            min_dtm: args.min_dtm,
            max_dtm: args.max_dtm,
            min_moves: 2,
        };
        let found = puzzles::find(&tb, variant, &want, args.count, args.tries, &mut rng)?;
        if found.len() < args.count && !args.json {
            errln!(
                "sector {sector}: {} puzzles found in {} tries",
                found.len(),
                args.tries
            );
        }
        for p in &found {
            out.push(PuzzleJson::of(p, sector, &searcher)?);
        }
    }
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(());
    }
    for (i, p) in out.iter().enumerate() {
        let setup = notation::parse_position(&p.position, variant)?.to_setup();
        let task = match p.dtm {
            Some(d) => format!("{} to move and win (in {d} plies)", p.side_to_move),
            None => format!("{} to move and hold the draw", p.side_to_move),
        };
        outln!(
            "puzzle {} (sector {}): {task}; one of {} moves keeps it",
            i + 1,
            p.sector,
            p.legal_moves
        );
        out!("{}", notation::diagram(&setup));
        outln!("position: {}", p.position);
        outln!("solution: {}", p.solution);
        outln!("line:     {}\n", p.line.join(" "));
    }
    Ok(())
}
