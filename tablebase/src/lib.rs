//! Tablebases for the movement phase of Nine Men's Morris (work in progress).
#![warn(missing_docs)]

pub mod combin;
pub mod generate;
pub mod index;
pub mod sector;
pub mod verify;

pub use generate::{solve_pair, GenerateError, Observer, SectorStats, Silent};
pub use index::SectorIndex;
pub use sector::{Sector, Value, Wdl};
