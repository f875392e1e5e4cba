//! Reading the tablebases of Nine Men's Morris: every position with both hands empty
//! and three to nine pieces a side, and the positions with pieces in hand (placement
//! sectors), for the Standard and the No-flying game, with its exact value and
//! distance to the end of the game (DTM).
//!
//! - [`classes`]: draw classes (where a drawn game settles), their files.
//! - [`sector`]: the sets of positions a file holds, movement and placement.
//! - [`value`]: stored values and their counts.
//! - [`index`]: a dense numbering of each sector's positions up to symmetry.
//! - [`mod@file`]: the self-checking raw format, its header, layered opening.
//! - [`blocks`]: the container of independently compressed blocks both use.
//! - [`compact`]: compressed win/draw/loss and DTM files, read in place.
//! - [`malom`]: a reader of Malom's perfect database, to cross-check ours.
//! - [`mod@tablebase`]: a directory of files behind one [`Tablebase::open`] and one
//!   [`Tablebase::probe`].
//!
//! Building the files (generation, the placement pass, verification, packing) is the
//! job of the crate `morris-builder`, which depends on this one; the mappings live in
//! `morris-sys`, so this crate has no `unsafe`.
//!
//! ```
//! use morris_engine::{notation, Rules};
//! use morris_tablebase::tablebase::OpenOptions;
//! use morris_tablebase::{PlacementSector, SectorIndex, Tablebase};
//!
//! // Positions are numbered up to the 16 symmetries of the board.
//! assert_eq!(SectorIndex::get(morris_engine::Board::Nine, 3, 3).size(), 169_626);
//! let start: PlacementSector = "0-0+9-9".parse().unwrap();
//! assert_eq!(start.size(morris_engine::Board::Nine), 1);
//!
//! // A directory without files covers nothing; a probe says so, and never guesses.
//! let tb = Tablebase::open(std::path::Path::new("no-such-dir"), OpenOptions::default())?;
//! let pos = notation::parse_position("WB./W../.../.....W/.../.../BB. w 0 0", Rules::STANDARD)?;
//! assert_eq!(Tablebase::sector_id_of(&pos).unwrap().to_string(), "3-3");
//! assert_eq!(tb.probe(&pos)?, None);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod blocks;
pub mod classes;
pub mod combin;
pub mod compact;
pub mod file;
pub mod index;
pub mod malom;
pub mod sector;
mod sets;
pub mod tablebase;
pub mod value;

pub use file::{FileError, SectorFile};
pub use index::SectorIndex;
pub use morris_sys::Mapper;
pub use sector::{PlacementSector, Sector, SectorId, SuccessorSector};
pub use tablebase::{OpenOptions, Probe, Tablebase};
pub use value::{SectorStats, Value, Wdl};
