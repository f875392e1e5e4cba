//! Arguments shared by the subcommands: the variant and the position.

use clap::{Args, ValueEnum};
use morris_engine::{notation, Position, Variant};

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

    /// The full-state hashes of the positions before the current one, when it was
    /// given as moves (for repetitions).
    pub fn history(&self) -> Vec<u64> {
        let Ok(start) = (match &self.fen {
            Some(fen) => notation::parse_position(fen, Variant::from(self.variant)),
            None => Ok(Position::start(Variant::from(self.variant))),
        }) else {
            return Vec::new();
        };
        let mut out = vec![start.hash()];
        if let Some(Ok(line)) = self
            .moves
            .as_ref()
            .map(|m| notation::parse_moves(&start, m))
        {
            out.extend(line.iter().map(|(_, p)| p.hash()));
        }
        out.pop();
        out
    }

    /// The position these arguments name.
    ///
    /// # Errors
    /// [`InputError`] naming the bad token.
    pub fn position(&self) -> Result<Position, InputError> {
        let variant = Variant::from(self.variant);
        let mut pos = match &self.fen {
            Some(fen) => {
                notation::parse_position(fen, variant).map_err(|e| InputError(e.to_string()))?
            }
            None => Position::start(variant),
        };
        if let Some(moves) = &self.moves {
            let line = notation::parse_moves(&pos, moves).map_err(|e| InputError(e.to_string()))?;
            if let Some(&(_, last)) = line.last() {
                pos = last;
            }
        }
        Ok(pos)
    }
}

/// Limits of a search.
#[derive(Args, Debug, Clone)]
pub struct SearchArgs {
    /// Largest search depth in plies [default: until exact].
    #[arg(long, value_name = "PLIES")]
    pub depth: Option<u32>,

    /// Time limit in seconds [default: none].
    #[arg(long, value_name = "SECONDS")]
    pub time: Option<f64>,

    /// Node limit [default: none].
    #[arg(long, value_name = "N")]
    pub nodes: Option<u64>,

    /// Transposition table size in MiB.
    #[arg(long, value_name = "MB", default_value_t = 64)]
    pub hash: usize,
}

impl SearchArgs {
    /// The limits these arguments set.
    ///
    /// # Errors
    /// [`InputError`] for a negative or non-finite time, or a zero depth.
    pub fn limits(&self) -> Result<morris_solver::Limits, InputError> {
        let time = match self.time {
            None => None,
            Some(t) if t.is_finite() && t > 0.0 => Some(std::time::Duration::from_secs_f64(t)),
            Some(t) => {
                return Err(InputError(format!(
                    "--time {t} is not a positive number of seconds"
                )))
            }
        };
        if self.depth == Some(0) {
            return Err(InputError("--depth must be at least 1".into()));
        }
        Ok(morris_solver::Limits {
            depth: self.depth,
            time,
            nodes: self.nodes,
        })
    }
}
