//! Tablebases of Nine Men's Morris: every position with both hands empty and three to
//! nine pieces a side, and the positions with pieces in hand (placement sectors), for
//! the Standard and the No-flying game, with its exact value and distance to the end
//! of the game (DTM).
//!
//! - [`index`]: a dense numbering of each sector's positions up to symmetry.
//! - [`generate`]: parallel retrograde analysis of a pair of sectors.
//! - [`placement`]: the sectors with pieces in hand, solved in one pass from their
//!   successors.
//! - [`mod@file`]: the self-checking file format, safe writing, layered opening.
//! - [`compact`]: compressed win/draw/loss and DTM files, for download.
//! - [`mod@tablebase`]: a directory of files, memory-mapped, for probing.
//! - [`verify`]: an independent recomputation of stored values.
//!
//! ```
//! use morris_tablebase::{solve_pair, Sector, SectorStats, Silent};
//! use morris_engine::Variant;
//!
//! let sector = Sector::new(3, 3).unwrap();
//! let solved = solve_pair(Variant::Standard, sector, &|_| None, &Silent).unwrap();
//! let stats = SectorStats::of(&solved[0].1);
//! assert_eq!((stats.wins, stats.draws, stats.losses), (140_621, 269, 28_736));
//! assert_eq!(stats.longest_loss, 26);
//! ```

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod combin;
pub mod compact;
pub mod driver;
pub mod file;
pub mod generate;
pub mod index;
mod mmap;
pub mod placement;
pub mod sector;
mod sets;
pub mod tablebase;
pub mod verify;

pub use driver::{generate_game_into, generate_into, Reporter, SectorReport};
pub use file::{FileError, SectorFile};
pub use generate::{solve_pair, GenerateError, Observer, SectorStats, Silent};
pub use index::SectorIndex;
pub use mmap::{prefetch, AtomicWord, AtomicWords};
pub use placement::{solve_placement, PlacementError, PlacementSector, SuccessorSector};
pub use sector::{Sector, Value, Wdl};
pub use tablebase::Tablebase;
