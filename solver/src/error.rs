//! What can go wrong in a search.

use crate::score::MAX_DISTANCE;
use morris_tablebase::FileError;
use std::path::PathBuf;

/// A search that cannot give an answer it can stand by.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// A tablebase file the search read is damaged.
    #[error(transparent)]
    Tablebase(#[from] FileError),
    /// A tablebase distance that, added to the plies from the root, does not fit the
    /// search's mate scores: no real game is that long, so the file is suspect.
    #[error(
        "{}: a distance of {dtm} plies, {ply} plies from the root, is beyond the \
         {MAX_DISTANCE} plies the search's scores hold",
        file.display()
    )]
    Distance {
        /// The file the value came from.
        file: PathBuf,
        /// The stored distance to the end of the game.
        dtm: u16,
        /// Plies from the root to the position.
        ply: usize,
    },
}
