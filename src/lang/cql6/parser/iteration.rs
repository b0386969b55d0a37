//! Keywords of square and piece iteration: `square [all] x in S` and `piece [all] x in S`.
//!
//! The Unicode form `x ∊ S` is read before the keywords, in [`Parser::parse_word`].
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/iteration.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;

impl Parser<'_> {
    /// An iteration over squares or pieces: `square`, `piece` (also `piece T = S`).
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_iteration_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        match w {
            "square" | "piece" => {
                let forall = self.eat_word("all");
                let t = self.bump();
                let name = match t.tok {
                    Tok::Word(n) => n,
                    Tok::Pieces { .. } => {
                        self.error_hint(
                            "a single piece letter cannot be a variable name",
                            t.span,
                            Some("use a longer name".into()),
                        );
                        return Err(());
                    }
                    _ => {
                        self.error(format!("expected a variable name after `{w}`"), t.span);
                        return Err(());
                    }
                };
                // `piece T = S`: the ASCII spelling of `◭T=S`, a piece variable given the
                // piece standing on the one square of S.
                if w == "piece" && !forall && self.peek().tok == Tok::Sym(Sym::Assign) {
                    return self.parse_piece_assign(name, sp).map(Some);
                }
                if !self.eat_word("in") && !self.eat_sym(Sym::Element) {
                    let s = self.span_here();
                    self.error(format!("expected `in` after `{w} {name}`"), s);
                    return Err(());
                }
                self.parse_iteration(name, w == "piece", forall, sp)
            }
            _ => return Ok(None),
        }
        .map(Some)
    }
}
