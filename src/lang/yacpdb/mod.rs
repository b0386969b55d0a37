//! The yacpdb front-end (stub until its issue lands).

use crate::ir::{Ir, Span};
use crate::lang::{Diagnostic, Error};

/// Parse a yacpdb query into IR.
pub fn parse(_source: &str) -> Result<Ir, Error> {
    Err(Error { diagnostics: vec![Diagnostic::new("the yacpdb front-end is not built yet", Span::new(0, 0))] })
}
