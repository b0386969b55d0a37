//! Keywords of dictionaries: declaring one with `dictionary`.
//!
//! A declared dictionary's uses and the `persistent`/`local` forms are read by the parser's
//! dictionary helpers.
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/dictionaries.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;
use crate::ir::{GameTreeFilter, NumberFilter, SetFilter, VariableFilter};

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &["dictionary"];

impl Parser<'_> {
    /// A dictionary declaration: `dictionary NAME`.
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_dictionaries_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        match w {
            "dictionary" => self.parse_dictionary_decl(false, false, sp),
            _ => return Ok(None),
        }
        .map(Some)
    }
}

impl<'s> Parser<'s> {
    /// The dictionary a name stands for, if the script declared it as one.
    pub(super) fn dictionary(&self, name: &str) -> Option<VarId> {
        self.ir
            .find_var(name)
            .filter(|v| matches!(self.ir.vars.get(v.0 as usize).map(|i| i.kind), Some(VarKind::Dictionary { .. })))
    }

    /// `dictionary D`, `local dictionary D`, `persistent dictionary D` (the keywords already
    /// read): declare `D`. The declaration itself always matches.
    pub(super) fn parse_dictionary_decl(&mut self, local: bool, persistent: bool, sp: Span) -> PResult<FilterId> {
        let t = self.bump();
        let Tok::Word(name) = t.tok else {
            self.error("expected a dictionary name after `dictionary`", t.span);
            return Err(());
        };
        if KEYWORDS.contains(&name.as_str()) {
            self.error(format!("`{name}` is a keyword and cannot name a dictionary"), t.span);
            return Err(());
        }
        let kind = VarKind::Dictionary { local };
        if let Some(v) = self.ir.find_var(&name) {
            let info = &self.ir.vars[v.0 as usize];
            if info.kind != kind || info.persistent != persistent {
                self.error(format!("`{name}` is already declared as something else"), t.span);
                return Err(());
            }
        }
        let var = self.ir.var(&name, kind);
        if persistent {
            self.ir.vars[var.0 as usize].persistent = true;
        }
        // CQL 6.2 takes a first entry right in the declaration: `dictionary D["a"]="bc"`
        // (`dictionary D[a5]=1` is refused there: CQL 6.2 reads `[a5]` as a designator;
        // `D[ a5 ]` is a key).
        let glued = {
            let t = self.peek();
            let b = self.src.as_bytes();
            matches!(t.tok, Tok::Pieces { .. } | Tok::Squares(_))
                && !b.get(t.span.start as usize + 1).is_some_and(|c| c.is_ascii_whitespace())
        };
        if self.at_dict_key() && !glued {
            return self.parse_dictionary_use(var, &name, Self::join(sp, t.span));
        }
        self.simple(Filter::True, Self::join(sp, t.span))
    }

    /// Does a dictionary key `[…]` follow? The lexer reads `[Q]` or `[a1]` as one piece or
    /// square designator; right after a dictionary name it is that key.
    pub(super) fn at_dict_key(&self) -> bool {
        let t = self.peek();
        match t.tok {
            Tok::Sym(Sym::LBracket) => true,
            Tok::Pieces { .. } | Tok::Squares(_) => {
                !t.space_before && self.src.as_bytes().get(t.span.start as usize) == Some(&b'[')
            }
            _ => false,
        }
    }

    /// A string subscript after `s[` (already read): `s[i]` is one character, `s[i:j]`,
    /// `s[i:]` and `s[:j]` a slice (CQL 6.2 `Tokens::match_bracketrange`; a missing start is
    /// 0, a missing end the end of the string, which `Builtin::Substring` reads from
    /// `i64::MAX`).
    pub(super) fn parse_subscript(&mut self, target: FilterId, sp: Span) -> PResult<FilterId> {
        let outer = std::mem::replace(&mut self.in_subscript, true);
        let parsed = self.parse_subscript_bounds(sp);
        self.in_subscript = outer;
        let bounds = parsed?;
        self.expect_sym(Sym::RBracket, "`]` closing the subscript")?;
        let mut args = vec![target];
        args.extend(bounds);
        Ok(self.add(Filter::Numbers(NumberFilter::Call(Builtin::Substring, args)), sp))
    }

    /// The bounds of a subscript: one index, or the start and end of a slice.
    pub(super) fn parse_subscript_bounds(&mut self, sp: Span) -> PResult<Vec<FilterId>> {
        let start = if self.at_sym(Sym::Colon) {
            self.add(Filter::Numbers(NumberFilter::Number(0)), sp)
        } else {
            let index = self.parse_expr(BP_OR)?;
            if !self.at_sym(Sym::Colon) {
                return Ok(vec![index]);
            }
            index
        };
        self.bump();
        let end = if self.at_sym(Sym::RBracket) {
            self.add(Filter::Numbers(NumberFilter::Number(i64::MAX)), sp)
        } else {
            self.parse_expr(BP_OR)?
        };
        Ok(vec![start, end])
    }

    /// Could filter `f` stand for a position (the left side of `:`)? False for what is
    /// plainly a number, string, set or move.
    pub(super) fn may_be_position(&self, f: FilterId) -> bool {
        match self.ir.get(f) {
            Filter::Variables(VariableFilter::Var(v)) => {
                self.ir.vars.get(v.0 as usize).is_some_and(|i| i.kind == VarKind::Position)
            }
            Filter::GameTree(
                GameTreeFilter::PositionById(_)
                | GameTreeFilter::Child(_)
                | GameTreeFilter::Tree(_)
                | GameTreeFilter::Lca(..),
            ) => true,
            _ => false,
        }
    }

    /// The key `[k]` after a dictionary name, if one follows.
    pub(super) fn parse_dict_key(&mut self) -> PResult<Option<FilterId>> {
        if !self.at_dict_key() {
            return Ok(None);
        }
        let t = self.bump();
        match t.tok {
            Tok::Pieces { mask, squares } => Ok(Some(self.pieces(mask, squares, t.span))),
            Tok::Squares(bb) => Ok(Some(self.add(Filter::Sets(SetFilter::Squares(bb)), t.span))),
            _ => {
                let k = self.parse_expr(BP_OR)?;
                self.expect_sym(Sym::RBracket, "`]` closing the dictionary key")?;
                Ok(Some(k))
            }
        }
    }

    /// `D[k]`, `D[k] = v`, `D[k] += v` … after the dictionary name `D` (already read).
    pub(super) fn parse_dictionary_use(&mut self, dict: VarId, name: &str, sp: Span) -> PResult<FilterId> {
        let Some(key) = self.parse_dict_key()? else {
            self.error_hint(
                format!("the dictionary `{name}` is used with a key"),
                sp,
                Some(format!("write `{name}[key]`, `#{name}` or `unbind {name}`")),
            );
            return Err(());
        };
        let close = self.toks[self.pos - 1].span;
        if !is_assign(&self.peek().tok) {
            return Ok(self.add(Filter::Variables(VariableFilter::DictGet { dict, key }), Self::join(sp, close)));
        }
        let op = assign_op(&self.bump().tok);
        let value = self.parse_expr(BP_LOOSE)?;
        let s = Self::join(sp, self.ir.span(value));
        Ok(self.add(Filter::Variables(VariableFilter::DictSet { dict, key, op, value }), s))
    }
}
