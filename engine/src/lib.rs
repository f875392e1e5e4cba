//! The rules of Nine Men's Morris, exactly as `RULES.md` states them, for the Standard
//! and the No-flying game, and the house rules of the family as data ([`Rules`]:
//! pieces a side, flying, captures per mill, protection): a `u32` bitboard board,
//! const-built connection and mill tables, the 16 symmetries, legal move generation,
//! the end of the game, threefold repetition, perft and the text formats.
//!
//! ```
//! use morris_engine::{perft, Position, Variant, notation};
//!
//! let start = Position::start(Variant::Standard);
//! assert_eq!(start.legal_moves().len(), 24);
//! assert_eq!(perft(&start, 3), Some(12144));
//!
//! // White closes a mill on the top line and takes b6.
//! let line = notation::parse_moves(&start, "a7 b6 d7 f6 g7xb6").unwrap();
//! let (last, pos) = *line.last().unwrap();
//! assert_eq!(last.to_string(), "g7xb6");
//! assert_eq!(pos.to_string(), "WWW/..B/.../....../.../.../... b 6 7");
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod board;
pub mod game;
pub mod geometry;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod position;
pub mod rules;
pub mod symmetry;
pub mod tables;

pub use board::{Bitboard, Point, Points, POINT_COUNT};
pub use game::Game;
pub use geometry::{Board, Geometry};
pub use moves::{Move, MoveList, MAX_MOVES};
pub use notation::ParseError;
pub use perft::{perft, perft_divide};
pub use position::{
    capturable_of, mix64, Color, EndReason, GameEnd, IllegalMove, Outcome, Phase, Position, Setup,
    SetupError, Wdl, PIECES_PER_PLAYER,
};
pub use rules::{Captures, Protection, Rules, RulesError, Variant, MAX_PIECES, MIN_PIECES};
pub use symmetry::{Symmetry, SYMMETRY_COUNT};
