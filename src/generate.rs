//! `morris generate`: solve movement and placement sectors into tablebase files.

use crate::progress::Progress;
use crate::tb::{human_bytes, TbOut, Variants};
use morris_builder::driver::{self, Reporter, SectorReport};
use morris_tablebase::sector::MAX_PIECES as MAX_TABLE_PIECES;
use morris_tablebase::{PlacementSector, Sector, SectorId};
use std::time::Instant;

/// Generate tablebases by retrograde analysis, resuming from finished files.
#[derive(clap::Args)]
#[command(
    after_help = "Movement sectors are US-THEM: pieces of the side to move, then of the opponent, both hands empty.\n\
Each is solved with its swapped sector (US-THEM with THEM-US), after the sectors its captures reach.\n\
Placement sectors are US-THEM+USHAND-THEMHAND (pieces on the board, then in hand), each solved\n\
after every sector its placements reach. --max-pieces N generates every movement and placement\n\
sector of the game of N pieces a side.\n\n\
Examples:\n  morris generate --max-pieces 4              # the whole game of 4 pieces a side, Standard\n  \
morris generate --variant both --sector 5-4   # 5-4, 4-5 and what they need, both games\n  \
morris generate --sector 6-5+1-1              # a placement sector and what it needs\n  \
morris generate --max-pieces 5 --compact      # compact files only, no raw set on disk\n  \
morris generate --variant no-flying --tb /data/tb --threads 2\n  \
morris generate --rules standard,captures=per-mill --max-pieces 5   # a house rule's tables"
)]
pub struct Args {
    /// Which game(s).
    #[arg(long, value_enum, default_value_t = Variants::Standard)]
    variant: Variants,

    /// House rules instead of --variant, e.g. "standard,captures=per-mill" or
    /// "no-flying,protection=none" (see `morris show --help`); their files are named by
    /// the rules' fingerprint (n9f1c2p0-3-3.tb). Draw classes are built for the two
    /// classic games only.
    #[arg(long, value_name = "SPEC", conflicts_with = "variant")]
    rules: Option<String>,

    /// Pieces a side, on the board and in hand (3 to 9): every sector of that game
    /// [default: the rules' pieces, 9 for --variant].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(3..=9))]
    max_pieces: Option<u8>,

    /// Only these sectors (and what they need), e.g. --sector 3-3 --sector 8-9 --sector 6-5+1-1.
    #[arg(long, value_name = "SECTOR", conflicts_with = "max_pieces")]
    sector: Vec<SectorId>,

    #[command(flatten)]
    tb: TbOut,

    /// Leave out the draw classes (built by default after the values: where each drawn
    /// position settles, for ultra-strong play).
    #[arg(long)]
    no_classes: bool,

    /// Write compact files (`.wdl` and `.dtm`, as `morris pack` makes them at the same
    /// --level) instead of raw ones: a sector's raw file stays only while sectors
    /// still to be solved read it, then it is packed and removed (raw files of the
    /// run's sectors already in the directory too).
    #[arg(long)]
    compact: bool,

    /// With --compact: the zstd level of the files the set keeps, 1 (fast) to 22
    /// (smallest) [default: that of `morris pack`, 7]. Level 12 writes `.dtm` files
    /// about 5% smaller at about three times the packing time.
    #[arg(long, value_parser = clap::value_parser!(i32).range(1..=22), requires = "compact")]
    level: Option<i32>,

    /// With --compact: which sectors keep a .dtm file (see `morris pack --help`) and a
    /// class file: with one-side, the others' distances and classes come from a
    /// one-ply search over their successors; with sparse, their values too (their
    /// .wdl files hold the header alone once the classes are built).
    #[arg(long, value_enum, default_value_t = crate::pack::DistancesArg::OneSide, requires = "compact")]
    distances: crate::pack::DistancesArg,

    /// Worker threads, 1 to 1024 [default: all cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=crate::tb::MAX_THREADS))]
    threads: Option<u16>,
}

/// Run the command.
///
/// # Errors
/// An input error for bad options; a failure to write or solve.
pub fn run(args: &Args) -> anyhow::Result<()> {
    crate::tb::start_threads(args.threads)?;
    let games = args
        .variant
        .with_rules(args.rules.as_deref())
        .map_err(|e| anyhow::anyhow!(e))?;
    // The plan depends on the rules only through the captures, which the classic
    // games share: the first game's plan serves all.
    let rules = games[0];
    let whole_game = args.sector.is_empty();
    // The game of `--sector` is given by its sectors.
    let max_pieces = if whole_game {
        crate::tb::game_pieces(args.rules.as_deref(), args.max_pieces)
            .map_err(|e| anyhow::anyhow!(e))?
    } else {
        MAX_TABLE_PIECES
    };
    let (movement, placement): (Vec<Sector>, Vec<PlacementSector>) = if whole_game {
        let movement = Sector::all()
            .into_iter()
            .filter(|s| s.us <= max_pieces && s.them <= max_pieces)
            .collect();
        (movement, PlacementSector::all(max_pieces))
    } else {
        driver::plan_sectors(rules, &args.sector)
    };
    let dir = args.tb.path();
    let plan = driver::plan(&movement);
    let sectors = plan.len() + placement.len();
    let board = rules.board();
    let too_big = plan
        .iter()
        .map(|&s| SectorId::from(s))
        .chain(placement.iter().map(|&p| p.into()));
    if let Some(s) = too_big.into_iter().find(|s| s.size(board) == 0) {
        return Err(anyhow::anyhow!(crate::args::InputError(format!(
            "sector {s} does not fit on the {board} board ({} points): its tablebases hold at most {} pieces a side",
            board.geometry().point_count(),
            crate::tb::table_pieces(board)
        ))));
    }
    let per_variant =
        driver::positions(board, &plan) + placement.iter().map(|p| p.size(board)).sum::<u64>();
    let total = per_variant * games.len() as u64;
    let progress = Progress::new(total);
    progress.log(&format!(
        "generating {sectors} sectors ({per_variant} positions) per variant into {} on {} threads",
        dir.display(),
        rayon::current_num_threads()
    ));
    let clock = Instant::now();
    let mut reports = Vec::new();
    let output = if args.compact {
        driver::Output::Compact {
            distances: args.distances.into(),
            level: args.level,
        }
    } else {
        driver::Output::Raw
    };
    for &variant in &games {
        reports.extend(if whole_game {
            driver::generate_game_as(&dir, variant, max_pieces, output, &progress)?
        } else {
            driver::generate_into_as(&dir, variant, &args.sector, output, &progress)?
        });
    }
    progress.finish();
    if !args.no_classes {
        let tb = args.tb.open()?;
        let order = driver::plan(&movement);
        for &variant in &games {
            if variant.variant().is_none() {
                outln!(
                    "classes {}: not built (draw classes exist for standard and no-flying only; ultra plays as perfect under {variant})",
                    variant.table_name()
                );
                continue;
            }
            let clock = Instant::now();
            // A one-sided compact set leaves out the class files of the same sectors
            // as the distances.
            let one_sided = args.compact && args.distances != crate::pack::DistancesArg::All;
            let built = morris_builder::classes::build_into_as(
                &dir,
                &tb,
                variant,
                &order,
                &placement,
                one_sided,
                &|line| errln!("{line}"),
            )?;
            let new: Vec<_> = built.iter().filter(|r| !r.skipped).collect();
            outln!(
                "classes {}: {} sectors built, {} already finished; {} drawn positions in {:.1} s",
                variant.table_name(),
                new.len(),
                built.len() - new.len(),
                new.iter().map(|r| r.draws).sum::<u64>(),
                clock.elapsed().as_secs_f64()
            );
        }
    }
    if args.compact && args.distances == crate::pack::DistancesArg::Sparse {
        // The values of the sectors a sparse set leaves to the one-ply search stay in
        // their `.wdl` files until the classes are built from them.
        let run: Vec<SectorId> = plan
            .iter()
            .flat_map(|&s| [s.into(), s.swapped().into()])
            .chain(placement.iter().map(|&p| p.into()))
            .collect();
        for &variant in &games {
            let thinned = morris_builder::pack::thin(&dir, variant, &run)?;
            if !thinned.is_empty() {
                outln!(
                    "{}: {} .wdl files now hold their header alone: their sectors' values follow from their successors'",
                    variant.table_name(),
                    thinned.len()
                );
            }
        }
    }
    let solved: Vec<&SectorReport> = reports.iter().filter(|r| !r.skipped).collect();
    let positions: u64 = solved.iter().map(|r| r.stats.positions).sum();
    let secs = clock.elapsed().as_secs_f64();
    outln!(
        "done: {} sectors solved, {} already finished; {positions} positions in {secs:.1} s ({:.2} M positions/s); peak memory {}",
        solved.len(),
        reports.len() - solved.len(),
        positions as f64 / secs.max(1e-9) / 1e6,
        // The peak is reset for each pair: the run's peak is the largest pair's.
        solved
            .iter()
            .filter_map(|r| r.peak_memory)
            .max()
            .or_else(driver::peak_memory)
            .map_or("unknown".into(), human_bytes)
    );
    Ok(())
}
