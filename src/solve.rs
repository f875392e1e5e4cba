//! `morris solve`: the exact value of a position, its best move and line.

use crate::args::{PositionArgs, SearchArgs};
use crate::describe;
use crate::progress::Progress;
use crate::report::{Report, Search};
use crate::tb::TbDir;
use morris_builder::driver;
use morris_engine::{notation, Board, EndReason, Game, Position, Rules};
use morris_solver::{ClassInfo, Limits, Provenance, SearchResult, Searcher};
use morris_tablebase::compact::{compact_name, Kind};
use morris_tablebase::{Sector, Tablebase};
use std::path::Path;
use std::time::Instant;

/// The built-in position: a Standard three-against-three endgame that White, to move,
/// wins in 25 plies.
pub const DEFAULT_POSITION: &str = "WB./W../.../.....W/.../.../BB. w 0 0";

/// Solve a position: value for the side to move, DTM, best move and line.
#[derive(clap::Args)]
#[command(
    after_help = "With no position, solves a built-in three-against-three endgame, generating the\n\
small tablebase it needs first if it is missing.\n\n\
Examples:\n  morris solve\n  morris solve --moves \"d6 d2 f4 b4\" --time 10\n  \
morris solve --fen \"W../.B./W../B....W/.../..B/... b 0 0\" --tb /data/tb\n  \
morris solve --fen \".../.../.../....../.../.../... w 9 9\" --value-only --depth 18 --hash 4096\n  \
morris solve --moves \"d6 d2 f4\" --time 5 --json"
)]
pub struct Args {
    #[command(flatten)]
    position: PositionArgs,

    #[command(flatten)]
    search: SearchArgs,

    #[command(flatten)]
    tb: TbDir,

    /// Print JSON: the document of README's "JSON output", as `probe`, `analyze` and
    /// the API of `serve` write it.
    ///
    /// The position, its value for the side to move with how it was obtained and the
    /// search's depth, the best moves, the line, and the search's time limit, time,
    /// nodes and depth; "moves" is null (`analyze` gives every move).
    #[arg(long)]
    json: bool,
}

/// Whether every sector `sector` needs has a compact value file in `dir` (a compact
/// set, as `generate --compact` or `pack` leave it; the file is checked when the
/// tables are opened).
fn compact_present(dir: &Path, rules: Rules, sector: Sector) -> bool {
    driver::plan(&[sector])
        .into_iter()
        .all(|s| dir.join(compact_name(rules, s, Kind::Wdl)).is_file())
}

/// Make sure `sector` and what it needs are present, raw or compact, generating them
/// (raw) with progress bars when they are not.
fn ensure_sectors(dir: &Path, rules: Rules, sector: Sector) -> anyhow::Result<()> {
    if !driver::is_finished(dir, rules, &[sector]) && !compact_present(dir, rules, sector) {
        eprintln!(
            "generating the {rules} tablebase for sector {sector} into {} (once)",
            dir.display()
        );
        let progress =
            Progress::on_stderr(driver::positions(rules.board(), &driver::plan(&[sector])));
        driver::generate_into(dir, rules, &[sector], &progress)?;
        progress.finish();
    }
    Ok(())
}

/// Print a search result; `by_class`: the best moves are those of the best draw class.
pub fn report(
    pos: &Position,
    r: &SearchResult,
    best_moves: &[morris_engine::Move],
    class: Option<&ClassInfo>,
    by_class: bool,
) {
    outln!("position:  {pos} ({})", pos.rules());
    match (r.provenance, r.value) {
        (Provenance::Terminal, _) => {
            if let Some(end) = pos.end() {
                outln!("value:     game over: {end}");
            }
        }
        (Provenance::ProvenBound, Some(v)) => outln!(
            "value:     {}, proven; the distance is an upper bound",
            describe::value_for(v, pos.side_to_move())
        ),
        (_, Some(v)) => match class {
            Some(c) => outln!(
                "value:     {}, {}",
                describe::value_for(v, pos.side_to_move()),
                describe::class(c)
            ),
            None => outln!("value:     {}", describe::value_for(v, pos.side_to_move())),
        },
        (_, None) => outln!(
            "value:     estimate {:+} for {} (the side to move), not exact",
            r.score,
            pos.side_to_move()
        ),
    }
    if best_moves.len() > 1 {
        let all: Vec<String> = best_moves.iter().map(ToString::to_string).collect();
        let order = if by_class {
            "all keep the value, in the best draw class"
        } else {
            "all keep the value"
        };
        outln!("best moves: {} ({order})", all.join(" "));
    } else if let Some(m) = r.best {
        outln!("best move: {m}");
    }
    if !r.pv.is_empty() {
        let line: Vec<String> = r.pv.iter().map(ToString::to_string).collect();
        outln!(
            "line:      {} ({})",
            line.join(" "),
            crate::tb::plies(line.len() as u64)
        );
    }
    outln!("obtained:  {}", describe::obtained(r.provenance, r.depth));
    let secs = r.time.as_secs_f64();
    outln!(
        "search:    {} nodes in {secs:.3} s ({:.2} M nodes/s), hash hits {:.1}%, hash full {:.1}%, tablebase hits {}",
        r.stats.nodes,
        r.stats.nodes as f64 / secs.max(1e-9) / 1e6,
        r.stats.hit_rate(),
        r.stats.table_fill as f64 / 10.0,
        r.stats.tb_hits
    );
}

/// Run the command.
///
/// # Errors
/// A bad position, bad limits, or a bad tablebase file.
pub fn run(args: &Args) -> anyhow::Result<()> {
    let limits = args.search.limits()?;
    let dir = args.tb.path();
    let rules = args.position.rules()?;
    let game = if args.position.is_default() && rules.board() != Board::Nine {
        // The built-in endgame is a nine-board position: on the other boards, the start.
        Game::new(Position::start(rules))
    } else if args.position.is_default() {
        let pos = notation::parse_position(DEFAULT_POSITION, rules)?;
        if let Some(sector) = Tablebase::sector_of(&pos) {
            ensure_sectors(&dir, rules.tables(), sector)?;
        }
        Game::new(pos)
    } else {
        args.position.game()?
    };
    let pos = *game.position();
    if let Some(end) = game.end().filter(|_| args.json) {
        outln!(
            "{}",
            serde_json::to_string_pretty(&Report::finished(&game, end))?
        );
        return Ok(());
    }
    if let Some(end) = game.end().filter(|e| e.reason() == EndReason::Threefold) {
        outln!("position:  {pos} ({})", pos.rules());
        outln!("value:     game over: {end}");
        return Ok(());
    }
    // The time limit counts opening the files and allocating the table, which for a
    // large table takes seconds.
    let start = Instant::now();
    let limits = Limits {
        start: Some(start),
        ..limits
    };
    let tb = args.tb.open()?;
    let mut searcher = Searcher::new(Some(&tb), args.search.hash)?;
    searcher.set_strategy(args.search.strategy.strategy());
    crate::args::warn_classes(&tb, args.search.strategy, &dir);
    let result = searcher.search(&pos, limits, &game.history())?;
    let best_moves = searcher.tablebase_best_moves(&pos)?;
    let class = match result.value {
        Some(v) if v.wdl == morris_tablebase::Wdl::Draw && result.provenance.is_exact() => {
            searcher.class_info(&pos)?
        }
        _ => None,
    };
    // Where the strategy steers by class, the best of the drawing moves are those of
    // the best class, as `analyze` and `probe` count them (the moves come ranked, best
    // first); `ultra` while placing takes every drawing move, and sets traps among them.
    let ranked = match class {
        Some(_) if args.search.strategy.strategy().steers_by_class(&pos) => {
            morris_solver::strategy::rank_draws(&tb, &pos, &best_moves)?
        }
        _ => None,
    };
    let by_class = ranked.is_some();
    let best_moves = match ranked {
        Some(ranked) => {
            let top = ranked.first().map(|r| r.1);
            ranked
                .into_iter()
                .filter(|r| Some(r.1) == top)
                .map(|r| r.0)
                .collect()
        }
        None => best_moves,
    };
    if let Some(e) = searcher.class_failure() {
        errln!("warning: {e}; plain perfect play in its sector");
    }
    if args.json {
        let search = Search::new(&result, limits.time, start.elapsed());
        let mut report = Report::solved(&game, &result, &best_moves, search);
        report.value.class = class.as_ref().map(crate::report::ClassJson::of);
        outln!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    report(&pos, &result, &best_moves, class.as_ref(), by_class);
    Ok(())
}
