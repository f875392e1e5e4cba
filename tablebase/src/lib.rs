//! Tablebases for the movement phase of Nine Men's Morris (work in progress).
#![warn(missing_docs)]

pub mod combin;
pub mod index;
