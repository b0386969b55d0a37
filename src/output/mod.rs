//! Writing results.
