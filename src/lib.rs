//! cqlrs — a chess query engine.
//!
//! The pipeline, top to bottom: [`input`] (files, decompression, game splitting) →
//! [`pgn`] (game tree with variations) → [`lang`] (CQL 6, legacy and YACPDB front-ends)
//! → [`ir`] (typed filters) → [`eval`] (positions, game tree, piece identity) →
//! [`output`] (PGN, numbers, JSON, counts) → [`cli`].

pub mod cli;
pub mod eval;
pub mod input;
pub mod ir;
pub mod lang;
pub mod output;
pub mod pgn;
pub mod scan;
