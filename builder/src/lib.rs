//! Building the tablebases of Nine Men's Morris, which the crate `morris-tablebase`
//! reads: every movement sector by retrograde analysis, every placement sector by one
//! pass from its successors, written resumably into a directory, verified by an
//! independent recomputation, packed into compact files, converted from older format
//! versions.
//!
//! - [`generate`]: parallel retrograde analysis of a pair of movement sectors.
//! - [`placement`]: the placement pass, the sectors with pieces in hand.
//! - [`driver`]: generating a set of sectors into a directory, resumably.
//! - [`mod@write`]: writing raw files safely (temporary name, sync, rename).
//! - [`verify`]: an independent recomputation of stored values, and checks of files.
//! - [`pack`]: compact files from raw ones.
//! - [`classes`]: draw classes of the drawn positions, and their check.
//! - [`convert`]: raw files of older format versions rewritten in the current one.
//! - [`progress`]: what a long computation tells of its progress.
//!
//! Data flows one way: this crate reads and writes the formats of `morris-tablebase`
//! (which never depends on it), and takes its huge-page arrays from `morris-sys`.
//!
//! ```
//! use morris_builder::{driver, generate::solve_pair, Silent};
//! use morris_engine::Rules;
//! use morris_tablebase::{OpenOptions, Sector, SectorStats, Tablebase};
//!
//! // The sector of three pieces a side, solved in memory.
//! let sector = Sector::new(3, 3).unwrap();
//! let solved = solve_pair(Rules::STANDARD, sector, &|_| None, &Silent).unwrap();
//! let stats = SectorStats::of(&solved[0].1);
//! assert_eq!((stats.wins, stats.draws, stats.losses), (140_621, 269, 28_736));
//! assert_eq!(stats.longest_loss, 26);
//!
//! // The same, generated into a directory and probed from there.
//! let dir = std::env::temp_dir().join(format!("morris-builder-doc-{}", std::process::id()));
//! driver::generate_into(&dir, Rules::STANDARD, &[sector], &Silent)?;
//! let tb = Tablebase::open(&dir, OpenOptions::default())?;
//! assert!(tb.contains(Rules::STANDARD, sector));
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![cfg_attr(not(test), forbid(unsafe_code))]
#![cfg_attr(test, deny(unsafe_code))]
#![warn(missing_docs)]

pub mod classes;
pub mod convert;
mod copy;
pub mod driver;
pub mod generate;
pub mod pack;
pub mod placement;
pub mod progress;
pub mod verify;
pub mod write;

pub use driver::{generate_game_into, generate_into, DriverError, Reporter, SectorReport};
pub use generate::{solve_pair, GenerateError};
pub use placement::{solve_placement, PlacementError};
pub use progress::{Observer, Silent};
