//! cqlrs — a chess query engine.
//!
//! The pipeline, top to bottom: [`input`] (files, decompression, game splitting) →
//! [`pgn`] (game tree with variations) → [`lang`] (CQL 6, legacy and YACPDB front-ends)
//! → [`ir`] (typed filters) → [`eval`] (positions, game tree, piece identity) →
//! [`output`] (PGN, numbers, JSON, counts) → [`cli`].

/// How deeply a query may nest, in source levels (parentheses, braces, filters
/// inside filters). The one number every limit on nesting is derived from: the CQL 6
/// parser refuses deeper text ([`lang::cql6`]), the transform expander and normalizer
/// walk IR up to twice as deep (a transform adds levels), and the evaluator allows a
/// little more than that, so a query that compiles always evaluates. The YACPDB and
/// legacy front-ends, whose levels cost more, take a fraction of it.
pub const NESTING_LIMIT: usize = 200;

#[cfg(feature = "cli")]
pub mod cli;
pub mod compile;
pub mod diag;
pub mod eval;
pub mod index;
pub mod input;
pub mod ir;
pub mod lang;
pub mod output;
pub mod pgn;
pub mod scan;
pub mod survey;

pub use compile::{CompileError, CompileOptions};
pub use eval::{FileAccess, FilePolicy, FileUse, Query};
pub use lang::Syntax;
