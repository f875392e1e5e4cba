//! Search for Nine Men's Morris over the tablebases (work in progress).
#![forbid(unsafe_code)]
#![warn(missing_docs)]
