//! The legacy front-end: the S-expression language of CQL 1–3 and Scidb's CQL-S.
//!
//! Takes in: the text of a `(match …)` script. Gives out: an [`Ir`] that the evaluator runs
//! once per game (`settings.per_game`), built from the same filters a CQL 6 script of the
//! same meaning would use (see `docs/legacy.md`).
//! Must never: evaluate anything, panic on any input, or recurse without bound (list
//! nesting is limited by [`syntax::MAX_DEPTH`]).
//!
//! Stages: [`syntax`] reads items and lists, [`designator`] reads piece designators and
//! ranges, [`lower`] turns the match list into IR, reading every keyword through the one
//! table [`lower::keywords::KEYWORDS`] (in the order of docs/legacy.md's keyword index).

pub mod designator;
pub mod lower;
pub mod syntax;

use crate::diag::Span;
use crate::diag::{Diagnostic, Error};
use crate::ir::Ir;

/// Parse a legacy `(match …)` script into IR.
///
/// The root is `And(match-list conditions…, Find{Forward, body: position list}…)`,
/// wrapped in one `IdentityIter` per `:forany` tag; it is evaluated once at the start
/// position of each game, so each `Find` searches the whole game.
pub fn parse(source: &str) -> Result<Ir, Error> {
    if let Some(d) = looks_like_cql6(source) {
        return Err(Error { diagnostics: vec![d] });
    }
    let top = syntax::read(source).map_err(|d| Error { diagnostics: vec![d] })?;
    lower::Lowerer::new().script(&top, source).map_err(|d| Error { diagnostics: vec![d] })
}

/// A diagnostic when the text is CQL 6 rather than the old syntax (`cql(` header).
fn looks_like_cql6(source: &str) -> Option<Diagnostic> {
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        let code = line.split(';').next().unwrap_or("");
        let trimmed = code.trim_start();
        if let Some(rest) = trimmed.strip_prefix("cql") {
            if rest.trim_start().starts_with('(') {
                let start = offset + (code.len() - trimmed.len());
                return Some(
                    Diagnostic::new(
                        "this looks like CQL 6 syntax, not a legacy `(match …)` script",
                        Span::new(start, start + 3),
                    )
                    .with_hint("run it as a CQL 6 script, or write the old form `(match (position …))`"),
                );
            }
        }
        if !trimmed.is_empty() && !trimmed.starts_with("//") {
            return None;
        }
        offset += line.len();
    }
    None
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cqls;
