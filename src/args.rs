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
