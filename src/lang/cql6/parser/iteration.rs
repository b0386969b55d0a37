//! Keywords of square and piece iteration: `square [all] x in S` and `piece [all] x in S`.
//!
//! The Unicode form `x ∊ S` is read before the keywords, in [`Parser::parse_word`].
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/iteration.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;
use crate::ir::VariableFilter;

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &["piece", "square", "all"];

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

impl<'s> Parser<'s> {
    pub(super) fn parse_iteration(&mut self, name: String, piece: bool, forall: bool, sp: Span) -> PResult<FilterId> {
        if name.len() == 1 && letter_mask(name.chars().next().unwrap_or(' ')).is_some() {
            self.error("a single piece letter cannot be a variable name", sp);
            return Err(());
        }
        // A name keeps its kind: CQL 6.2 refuses a piece loop over a square variable and a
        // square loop over a piece variable.
        if let Some(v) = self.ir.find_var(&name) {
            let kind = self.ir.vars[v.0 as usize].kind;
            let clash = if piece { kind != VarKind::Piece } else { kind == VarKind::Piece };
            if clash {
                let (this, other) = if piece { ("piece", "square or value") } else { ("square", "piece") };
                self.error_hint(
                    format!("`{name}` is a {other} variable, so it cannot run over {this}s"),
                    sp,
                    Some("use another name for this loop".into()),
                );
                return Err(());
            }
        }
        let var = self.ir.var(&name, if piece { VarKind::Piece } else { VarKind::Square });
        // The domain is a whole set expression up to a `――` (`match_set` in CQL 6.2): `◭E∊♖♗♕→V`.
        let domain = self.parse_expr(BP_DASH)?;
        let body = self.parse_expr(BP_OR)?;
        let s = Self::join(sp, self.ir.span(body));
        Ok(self.add(
            if piece {
                Filter::Variables(VariableFilter::PieceIter { var, domain, body, forall })
            } else {
                Filter::Variables(VariableFilter::SquareIter { var, domain, body, forall })
            },
            s,
        ))
    }
}
