//! The CQL 6 front-end (stub wiring while the parser is written).
pub mod lexer;
use crate::ir::{Ir, Span};
use crate::lang::{Diagnostic, Error};
/// Parse a cql6 query into IR.
pub fn parse(_source: &str) -> Result<Ir, Error> {
    Err(Error { diagnostics: vec![Diagnostic::new("the cql6 front-end is not built yet", Span::new(0, 0))] })
}

/// Rewrite a CQL 6 script with ASCII spellings (stand-in until the front-end lands).
pub fn to_ascii(_source: &str) -> Result<String, Error> {
    Err(Error { diagnostics: vec![Diagnostic::new("the cql6 front-end is not built yet", Span::new(0, 0))] })
}

/// Rewrite a CQL 6 script with Unicode spellings (stand-in until the front-end lands).
pub fn to_unicode(_source: &str) -> Result<String, Error> {
    Err(Error { diagnostics: vec![Diagnostic::new("the cql6 front-end is not built yet", Span::new(0, 0))] })
}
