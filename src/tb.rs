//! Arguments and helpers shared by the tablebase commands.

use crate::args::VariantArg;
use clap::{Args, ValueEnum};
use morris_engine::Variant;
use std::path::PathBuf;

/// Where the tablebases live.
#[derive(Args, Debug, Clone)]
pub struct TbDir {
    /// Tablebase directory [default: $MORRIS_TB_DIR, else ./tablebases].
    #[arg(long = "tb", value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

impl TbDir {
    /// The directory to use.
    pub fn path(&self) -> PathBuf {
        self.dir
            .clone()
            .unwrap_or_else(morris_tablebase::tablebase::default_dir)
    }
}

/// One variant or both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Variants {
    /// The Standard game only.
    Standard,
    /// The No-flying game only.
    NoFlying,
    /// Both games.
    Both,
}

impl Variants {
    /// The name for people ("Standard", "No-flying" or "Standard or No-flying").
    pub fn name(self) -> &'static str {
        match self {
            Variants::Standard => "Standard",
            Variants::NoFlying => "No-flying",
            Variants::Both => "Standard or No-flying",
        }
    }

    /// The variants named.
    pub fn list(self) -> Vec<Variant> {
        match self {
            Variants::Standard => vec![Variant::Standard],
            Variants::NoFlying => vec![Variant::NoFlying],
            Variants::Both => Variant::ALL.to_vec(),
        }
    }
}

impl From<VariantArg> for Variants {
    fn from(v: VariantArg) -> Variants {
        match v {
            VariantArg::Standard => Variants::Standard,
            VariantArg::NoFlying => Variants::NoFlying,
        }
    }
}

/// Bytes as MiB or GiB, for people.
pub fn human_bytes(b: u64) -> String {
    if b >= 1 << 30 {
        format!("{:.2} GiB", b as f64 / f64::from(1u32 << 30))
    } else {
        format!("{:.0} MiB", b as f64 / f64::from(1u32 << 20))
    }
}

/// `n` plies, in words: "1 ply", "25 plies".
pub fn plies(n: impl Into<u64>) -> String {
    match n.into() {
        1 => "1 ply".to_string(),
        n => format!("{n} plies"),
    }
}
