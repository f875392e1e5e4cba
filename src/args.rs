//! Arguments shared by the subcommands: the variant and the position.

use clap::{Args, ValueEnum};
use morris_engine::{notation, Game, Position, Rules, Variant};
use std::time::Duration;

/// Bad input from the user: reported on one line with exit status 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(pub String);

/// The rules to play by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum VariantArg {
    /// Three pieces with an empty hand may fly.
    #[default]
    Standard,
    /// Nobody flies.
    NoFlying,
}

impl From<VariantArg> for Variant {
    fn from(v: VariantArg) -> Variant {
        match v {
            VariantArg::Standard => Variant::Standard,
            VariantArg::NoFlying => Variant::NoFlying,
        }
    }
}

/// A position: a position string, moves from it (or from the start), or the start.
#[derive(Args, Debug, Clone)]
pub struct PositionArgs {
    /// Rules: standard (flying at three pieces) or no-flying.
    #[arg(long, value_enum, default_value_t = VariantArg::Standard)]
    pub variant: VariantArg,

    /// House rules instead of --variant: a preset (standard, no-flying) and switches,
    /// e.g. "standard,captures=per-mill" or "no-flying,protection=none,pieces=6"
    /// (pieces=3..12, flying=yes|no, captures=one|per-mill,
    /// protection=standard|none|full; board=nine|six|twelve; presets six-mens and
    /// twelve-mens). Commands read the rules' own tablebases (`morris generate
    /// --rules SPEC`) and search where there are none.
    #[arg(long, value_name = "SPEC", conflicts_with = "variant")]
    pub rules: Option<String>,

    /// Position string, ours (".../.../.../....../.../.../... w 9 9") or Sanmill's
    /// ("********/********/******** w p p 0 9 0 9 0 0 0 0 0 0 0 0 1"). Default: the start.
    #[arg(long, value_name = "STRING")]
    pub fen: Option<String>,

    /// Moves played from the position (or from the start), e.g. "d6 d2 f4 b4xd2".
    #[arg(long, value_name = "MOVES", allow_hyphen_values = true)]
    pub moves: Option<String>,
}

impl PositionArgs {
    /// Whether neither a position string nor moves were given.
    pub fn is_default(&self) -> bool {
        self.fen.is_none() && self.moves.is_none()
    }

    /// The rules these arguments name: `--rules`, else `--variant`.
    ///
    /// # Errors
    /// [`InputError`] naming what is wrong with the spec.
    pub fn rules(&self) -> Result<Rules, InputError> {
        match &self.rules {
            Some(spec) => Rules::parse(spec).map_err(|e| InputError(e.to_string())),
            None => Ok(Variant::from(self.variant).into()),
        }
    }

    /// The game these arguments name: the start (or `--fen`) and the `--moves` played
    /// from it, with the threefold rule applied.
    ///
    /// # Errors
    /// [`InputError`] naming the bad token.
    pub fn game(&self) -> Result<Game, InputError> {
        let rules = self.rules()?;
        let start = match &self.fen {
            Some(fen) => {
                notation::parse_position(fen, rules).map_err(|e| InputError(e.to_string()))?
            }
            None => Position::start(rules),
        };
        notation::parse_game(&start, self.moves.as_deref().unwrap_or(""))
            .map_err(|e| InputError(e.to_string()))
    }
}

/// How to choose among the moves that keep a position's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StrategyArg {
    /// Every value-keeping move alike: the strong solution.
    Perfect,
    /// Among drawing moves, the one that steers to the best draw class (where the
    /// game settles), as the class files tell; plain perfect play without them.
    Classes,
    /// As `classes` once every piece is placed (the traps alone while placing), then,
    /// in a draw or a loss, the move that leaves the opponent the largest share of
    /// replies that give its value away.
    Ultra,
}

impl StrategyArg {
    /// The solver's strategy.
    pub fn strategy(self) -> morris_solver::Strategy {
        match self {
            StrategyArg::Perfect => morris_solver::Strategy::Perfect,
            StrategyArg::Classes => morris_solver::Strategy::Classes,
            StrategyArg::Ultra => morris_solver::Strategy::Ultra,
        }
    }
}

/// Tell on standard error what ultra-strong play will lack: class files that cannot
/// be used (named), or none at all.
pub fn warn_classes(
    tb: &morris_tablebase::Tablebase,
    strategy: StrategyArg,
    dir: &std::path::Path,
) {
    if strategy == StrategyArg::Perfect {
        return;
    }
    for e in tb.class_problems() {
        errln!("warning: {e}; plain perfect play in its sector");
    }
    let any = tb.sectors().any(|(v, s, _)| tb.has_classes(v, s));
    if !any && tb.sectors().next().is_some() {
        if tb.sectors().all(|(v, _, _)| v.variant().is_none()) {
            errln!("note: draw classes exist for standard and no-flying only: plain perfect play under house rules");
            return;
        }
        errln!(
            "note: no draw class files in {}: plain perfect play (run `morris generate` to build them)",
            dir.display()
        );
    }
}

/// Limits of a search.
#[derive(Args, Debug, Clone)]
pub struct SearchArgs {
    /// How to choose among the moves that keep the value: `ultra` (the default)
    /// steers draws towards the best draw class where class files are present once
    /// every piece is placed, and sets the most traps; `classes` the class alone, in
    /// every phase; `perfect` any of them.
    #[arg(long, value_enum, default_value_t = StrategyArg::Ultra)]
    pub strategy: StrategyArg,

    /// Largest search depth in plies [default: until exact].
    #[arg(long, value_name = "PLIES")]
    pub depth: Option<u32>,

    /// Time limit in seconds [default: 60 when neither --depth nor --nodes is given].
    #[arg(long, value_name = "SECONDS", allow_hyphen_values = true)]
    pub time: Option<f64>,

    /// Node limit [default: none].
    #[arg(long, value_name = "N")]
    pub nodes: Option<u64>,

    /// Transposition table size in MiB (1 to 8192).
    #[arg(long, value_name = "MB", default_value_t = 64, value_parser = hash_mb)]
    pub hash: usize,

    /// Prove only win, draw or loss, not the distance: far fewer nodes (for opening
    /// positions); no line is shown.
    #[arg(long)]
    pub value_only: bool,

    /// Threads searching together over the one table (1 to 64).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub threads: u16,
}

impl SearchArgs {
    /// The limits these arguments set.
    ///
    /// # Errors
    /// [`InputError`] for a time that is not from 0 to a year, or a zero depth.
    pub fn limits(&self) -> Result<morris_solver::Limits, InputError> {
        let time = match self.time {
            None if self.depth.is_none() && self.nodes.is_none() => Some(Duration::from_secs(60)),
            None => None,
            Some(t) => Some(seconds("--time", t)?),
        };
        if self.depth == Some(0) {
            return Err(InputError("--depth must be at least 1".into()));
        }
        Ok(morris_solver::Limits {
            depth: self.depth,
            time,
            nodes: self.nodes,
            value_only: self.value_only,
            threads: usize::from(self.threads),
            ..morris_solver::Limits::default()
        })
    }
}

/// The longest time limit: a year, far beyond any search one waits for, and short
/// enough that a deadline this far ahead is a valid clock reading.
pub const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// A time limit of `t` seconds, given with `flag`.
///
/// # Errors
/// [`InputError`] naming the flag and the value unless `t` is above 0 and at most
/// [`MAX_SECONDS`].
pub fn seconds(flag: &str, t: f64) -> Result<Duration, InputError> {
    if t > 0.0 && t <= MAX_SECONDS {
        Ok(Duration::from_secs_f64(t))
    } else {
        // A huge number in exponent form, not hundreds of digits.
        let shown = if t.is_finite() && t.abs() >= 1e9 {
            format!("{t:e}")
        } else {
            t.to_string()
        };
        Err(InputError(format!(
            "{flag} {shown} is not a positive number of seconds up to {MAX_SECONDS} (a year)"
        )))
    }
}

/// Parse a transposition-table size in MiB: 1 to 8192 (8 GiB, a third of this
/// machine's memory).
pub fn hash_mb(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=8192).contains(&n) => Ok(n),
        _ => Err(format!("'{s}' is not a size from 1 to 8192 MiB")),
    }
}
