//! Argument lists `( … )` of keywords and the arguments of `comment`, `message` and
//! `str`, with small helpers shared by the keyword families.
//! Part of the CQL 6 parser ([`super`]).

use super::*;
use crate::ir::{HeaderFilter, NumberFilter};

impl<'s> Parser<'s> {
    /// Arguments in parentheses: `(a b …)`, each one filter.
    pub(super) fn parse_args(&mut self) -> PResult<Vec<FilterId>> {
        self.parse_arg_list(false)
    }

    /// The arguments of `comment`, `message` or `str` in parentheses, each read by
    /// [`Parser::parse_converter_arg`].
    pub(super) fn parse_converter_args(&mut self) -> PResult<Vec<FilterId>> {
        self.parse_arg_list(true)
    }

    pub(super) fn parse_arg_list(&mut self, converter: bool) -> PResult<Vec<FilterId>> {
        self.expect_sym(Sym::LParen, "`(`")?;
        let saved = std::mem::replace(&mut self.in_sequence, false);
        let saved_top = std::mem::replace(&mut self.path_top, false);
        let saved_args = std::mem::replace(&mut self.in_args, true);
        let mut args = Vec::new();
        let r = loop {
            if self.eat_sym(Sym::RParen) {
                break Ok(());
            }
            if self.at_eof() || self.at_sym(Sym::RBrace) {
                let sp = self.span_here();
                self.error("expected `)` closing the argument list", sp);
                break Err(());
            }
            self.eat_sym(Sym::Comma);
            let arg = if converter { self.parse_converter_arg(BP_OR) } else { self.parse_expr(BP_OR) };
            match arg {
                Ok(a) => args.push(a),
                Err(()) => break Err(()),
            }
        };
        self.in_sequence = saved;
        self.path_top = saved_top;
        self.in_args = saved_args;
        r.map(|_| args)
    }

    pub(super) fn args_exact(&mut self, name: &str, n: usize, sp: Span) -> PResult<Vec<FilterId>> {
        let args = self.parse_args()?;
        if args.len() != n {
            self.error(format!("`{name}` takes {n} argument(s), got {}", args.len()), sp);
            return Err(());
        }
        Ok(args)
    }

    pub(super) fn tight_arg(&mut self, f: impl FnOnce(FilterId) -> Filter, sp: Span) -> PResult<FilterId> {
        let a = self.parse_expr(BP_POSTFIX)?;
        let s = Self::join(sp, self.ir.span(a));
        Ok(self.add(f(a), s))
    }

    pub(super) fn color_word(&mut self) -> Option<Color> {
        if self.eat_word("white") {
            Some(Color::White)
        } else if self.eat_word("black") {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// A string filter followed by a string literal is a substring search.
    pub(super) fn maybe_contains(&mut self, hay: FilterId, sp: Span) -> FilterId {
        // An empty string is not a search string (`Tokens::match_nonemptyquotedstring`).
        if let Tok::Str(s) = self.peek().tok.clone() {
            if !s.is_empty() {
                let at = self.pos;
                let t = self.bump();
                let needle = self.add(Filter::Numbers(NumberFilter::Str(s.clone())), t.span);
                let search = self.add(
                    Filter::Numbers(NumberFilter::Contains { haystack: hay, needle, ignore_case: false }),
                    Self::join(sp, t.span),
                );
                self.implicit_search = Some((search, at, hay));
                return search;
            }
        }
        hay
    }

    /// One argument of `comment`, `message`, `str` or `///`, read as CQL 6.2 reads it
    /// (`Tokens::match_strconstituent`): `fen` followed by a quoted string is the current
    /// FEN, the string being the next argument; and an argument that is exactly an implicit
    /// search (`event "x"`, `player white "x"`, not in parentheses) is the searched text,
    /// its string again being the next argument, so `comment("Event: " event " at " site)`
    /// writes the event and then " at ".
    pub(super) fn parse_converter_arg(&mut self, binding: u8) -> PResult<FilterId> {
        if self.at_word("fen") && matches!(self.peek_at(1).tok, Tok::Str(_)) {
            let t = self.bump();
            return Ok(self.add(Filter::Header(HeaderFilter::CurrentFen), t.span));
        }
        let parenthesized = self.at_sym(Sym::LParen);
        self.implicit_search = None;
        let f = self.parse_expr(binding)?;
        match self.implicit_search.take() {
            Some((search, at, hay)) if search == f && !parenthesized && at + 1 == self.pos => {
                self.pos = at;
                self.tree.shorten_last(at);
                Ok(hay)
            }
            _ => Ok(f),
        }
    }

    /// Is the token `n` places ahead a comparison or arithmetic operator (so a number
    /// before it is the start of an expression, not a range)?
    pub(super) fn operator_at(&self, n: usize) -> bool {
        matches!(&self.peek_at(n).tok, Tok::Sym(s) if cmp_op(*s).is_some()
            || matches!(s, Sym::Plus | Sym::Minus | Sym::Star | Sym::Slash | Sym::Percent))
    }

    /// Refuse a number right after `year`, `ply`, … : CQL 6.2 would read it as a filter of
    /// its own and stop at the first game. In an argument list it is the next argument.
    pub(super) fn no_range_after(&mut self, word: &str) {
        // In an argument list, or when an operator follows (`ply 3 != x`), the number
        // starts the next filter.
        if self.in_args || self.operator_at(1) {
            return;
        }
        if let Tok::Number(_) = self.peek().tok {
            let sp = self.span_here();
            self.error_hint(
                format!("`{word}` takes no range"),
                sp,
                Some(format!("compare instead, e.g. `1900 <= {word} <= 1950`")),
            );
        }
    }

    pub(super) fn simple(&mut self, f: Filter, sp: Span) -> PResult<FilterId> {
        Ok(self.add(f, sp))
    }
}
