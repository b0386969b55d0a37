//! The CQL 6 front-end: script text (Unicode or ASCII spelling) to IR.
//!
//! Takes in: a CQL 6.x script. Gives out: an [`Ir`] with the `cql(...)` header in
//! `Ir::settings` and the body as the root filter (an implicit `and`), or every
//! problem found (at most 20) as an [`Error`]. Also converts scripts between the
//! Unicode and ASCII spellings ([`to_ascii`], [`to_unicode`]).
//! Must never: panic on any input, evaluate anything, expand transforms.

pub mod convert;
pub mod lexer;
pub mod lower;
pub mod parser;
pub mod syntax;
pub mod types;

pub use convert::{to_ascii, to_unicode};

use crate::diag::Span;
use crate::diag::{Diagnostic, Error};
use crate::ir::Ir;
use crate::lang::Syntax;

/// Stack given to the parsing thread: nesting is bounded by [`parser::MAX_DEPTH`], and
/// this leaves ample room for that depth even in unoptimised builds.
const PARSER_STACK_BYTES: usize = 256 << 20;

/// Is `word` a key of the `hhdb` filter (`composer`, `cooked`, `(c)` …)? The command
/// line's `-hhdb` reads its words with this.
pub fn hhdb_key(word: &str) -> bool {
    parser::hhdb::is_key(word)
}

/// Parse a CQL 6 script into IR.
pub fn parse(source: &str) -> Result<Ir, Error> {
    parse_with_syntax(source).0
}

/// Parse a CQL 6 script into IR and give its syntax tree as well: the constructs read,
/// with their places in the text (also for a refused script, as far as it was read).
pub fn parse_with_syntax(source: &str) -> (Result<Ir, Error>, syntax::SyntaxTree) {
    // Run on a thread with a known, large stack so that the nesting limit, not the
    // caller's stack size, decides how deep a query may go.
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("cql6-parser".into())
            .stack_size(PARSER_STACK_BYTES)
            .spawn_scoped(scope, || parse_here(source))
            .ok()
            .and_then(|handle| handle.join().ok())
            .unwrap_or_else(|| parse_here(source))
    })
}

fn parse_here(source: &str) -> (Result<Ir, Error>, syntax::SyntaxTree) {
    if Syntax::detect(source) == Syntax::Legacy {
        let start = source.find('(').unwrap_or(0);
        let refusal = Error {
            diagnostics: vec![Diagnostic::new("this is not a CQL 6 script", Span::new(start, start + 6))
                .with_hint("this looks like legacy CQL syntax `(match …)`; use the legacy front-end")],
        };
        return (Err(refusal), syntax::SyntaxTree::default());
    }
    let lexed = lexer::lex(source);
    let mut diagnostics = lexed.diagnostics;
    let mut p = parser::Parser::new(source, lexed.tokens);
    p.parse_script();
    let tree = std::mem::take(&mut p.tree).finish();
    diagnostics.extend(p.diags);
    if diagnostics.is_empty() {
        diagnostics = types::check(&p.ir, &p.kinds, source, 20);
    }
    if diagnostics.is_empty() {
        diagnostics = types::ignored_values(&p.ir);
    }
    let ir = if diagnostics.is_empty() {
        Ok(p.ir)
    } else {
        diagnostics.sort_by_key(|d| d.span.start);
        diagnostics.truncate(20);
        Err(Error { diagnostics })
    };
    (ir, tree)
}

#[cfg(test)]
mod tests;
