//! Keywords of numbers, logic, control and variables: `not`, `if`, `while`, `abs`, `min`, ….
//!
//! Also the variable statements (`persistent`, `local`, `atomic`, `isbound`, `unbind`) and, in
//! [`Parser::parse_variable_word`], a word that is no keyword: a variable or an error.
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/numbers.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;
use crate::ir::{Keyword62Filter, LogicFilter, NumberFilter, VariableFilter};

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &[
    "abs",
    "ascii",
    "assert",
    "atomic",
    "if",
    "indexof",
    "int",
    "isbound",
    "isunbound",
    "local",
    "lowercase",
    "max",
    "min",
    "not",
    "persistent",
    "sqrt",
    "str",
    "unbind",
    "uppercase",
    "while",
    "loop",
    "then",
    "else",
];

impl Parser<'_> {
    /// A filter of numbers, logic, control or variables: `not`, `if`, `while`, `loop`, `abs`, `min`, `isbound`, …
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_numbers_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        match w {
            "not" => {
                let a = self.parse_expr(BP_LOOSE)?;
                let s = Self::join(sp, self.ir.span(a));
                Ok(self.add(Filter::Logic(LogicFilter::Not(a)), s))
            }
            "abs" | "sqrt" | "int" | "str" | "lowercase" | "uppercase" | "ascii" => self.converter(w, sp),
            "min" | "max" => {
                let args = self.parse_args()?;
                if args.is_empty() {
                    self.error(format!("`{w}` needs at least one argument"), sp);
                    return Err(());
                }
                self.simple(
                    Filter::Numbers(NumberFilter::Call(if w == "min" { Builtin::Min } else { Builtin::Max }, args)),
                    sp,
                )
            }
            "indexof" => {
                let a = self.args_exact(w, 2, sp)?;
                self.simple(Filter::Numbers(NumberFilter::Call(Builtin::IndexOf, a)), sp)
            }
            "if" => {
                let cond = self.parse_expr(BP_LOOSE)?;
                self.eat_word("then");
                let then = self.parse_expr(BP_LOOSE)?;
                let otherwise = if self.eat_word("else") { Some(self.parse_expr(BP_LOOSE)?) } else { None };
                self.simple(Filter::Logic(LogicFilter::If { cond, then, otherwise }), sp)
            }
            "persistent" => {
                self.eat_word("quiet");
                if self.eat_word("dictionary") {
                    return self.parse_dictionary_decl(false, true, sp).map(Some);
                }
                let t = self.bump();
                let Tok::Word(name) = t.tok else {
                    self.error("expected a variable name after `persistent`", t.span);
                    return Err(());
                };
                if !is_assign(&self.peek().tok) {
                    self.error("expected an assignment after `persistent NAME`", t.span);
                    return Err(());
                }
                self.parse_assign(name, t.span, true)
            }
            "local" | "atomic" => {
                if w == "local" && self.eat_word("dictionary") {
                    return self.parse_dictionary_decl(true, false, sp).map(Some);
                }
                if w == "local" {
                    // CQL 6.2 has `local` for dictionaries only (`local x = 1` is refused).
                    self.error_hint(
                        "`local` goes with a dictionary only",
                        sp,
                        Some("write `local dictionary D`, or `x = …` for a variable".to_string()),
                    );
                    return Err(());
                }
                let t = self.peek().clone();
                if let Tok::Word(name) = t.tok {
                    if is_assign(&self.peek_at(1).tok) {
                        self.bump();
                        return self.parse_assign(name, t.span, false).map(Some);
                    }
                }
                self.error(format!("expected an assignment after `{w}`"), sp);
                Err(())
            }
            "isbound" | "isunbound" | "unbind" => {
                let t = self.bump();
                let Tok::Word(name) = t.tok else {
                    self.error(format!("expected a variable name after `{w}`"), t.span);
                    return Err(());
                };
                if let Some(dict) = self.dictionary(&name) {
                    if w != "unbind" {
                        // A dictionary is always bound in CQL 6.2 (empty or not).
                        let f = if w == "isbound" { Filter::True } else { Filter::False };
                        return self.simple(f, Self::join(sp, t.span)).map(Some);
                    }
                    let key = self.parse_dict_key()?;
                    return self.simple(Filter::Variables(VariableFilter::DictUnbind { dict, key }), sp).map(Some);
                }
                let var = match self.ir.find_var(&name) {
                    Some(v) => v,
                    None if w != "unbind" => self.ir.var(&name, VarKind::Value),
                    None => {
                        self.error(format!("`unbind` of undeclared variable `{name}`"), t.span);
                        return Err(());
                    }
                };
                match w {
                    "isbound" => self.simple(Filter::Variables(VariableFilter::IsBound(var)), sp),
                    "isunbound" => {
                        let b = self.add(Filter::Variables(VariableFilter::IsBound(var)), sp);
                        self.simple(Filter::Logic(LogicFilter::Not(b)), sp)
                    }
                    _ => self.simple(Filter::Variables(VariableFilter::Unbind(var)), sp),
                }
            }
            "while" => {
                self.expect_sym(Sym::LParen, "`(` after `while`")?;
                self.pos -= 1;
                let cond = self.parse_block(Sym::RParen, true)?;
                let body = self.parse_expr(BP_LOOSE)?;
                self.simple(Filter::Variables(VariableFilter::While { cond: Some(cond), body }), sp)
            }
            "loop" => {
                let body = self.parse_expr(BP_LOOSE)?;
                self.simple(Filter::Variables(VariableFilter::While { cond: None, body }), sp)
            }
            // `assert F` (CQL 6.2 `AssertNode`): F must match here (a variable: must be bound),
            // else the whole run stops with an error naming the assert. It has no value.
            "assert" => {
                let body = self.parse_expr(BP_LOOSE)?;
                let checked = match self.ir.get(body) {
                    Filter::Variables(VariableFilter::Var(v)) => {
                        let v = *v;
                        self.add(Filter::Variables(VariableFilter::IsBound(v)), self.ir.span(body))
                    }
                    _ => body,
                };
                let (line, column) = self.line_column(sp);
                let stop = self.add(
                    Filter::Keyword62(Keyword62Filter::Abort(format!("line {line}, column {column}: assert failed"))),
                    sp,
                );
                let s = Self::join(sp, self.ir.span(body));
                let id = self.add(Filter::Logic(LogicFilter::Or(vec![checked, stop])), s);
                self.kinds.note(id, crate::lang::cql6::types::Kind::Logical);
                Ok(id)
            }
            _ => return Ok(None),
        }
        .map(Some)
    }

    /// A converter or numeric builtin (`abs`, `sqrt`, `int`, `str`, `lowercase`,
    /// `uppercase`, `ascii`) and its argument.
    fn converter(&mut self, w: &str, sp: Span) -> PResult<FilterId> {
        let b = match w {
            "abs" => Builtin::Abs,
            "sqrt" => Builtin::Sqrt,
            "int" => Builtin::Int,
            "str" => Builtin::Str,
            "lowercase" => Builtin::Lowercase,
            "uppercase" => Builtin::Uppercase,
            _ => Builtin::Ascii,
        };
        // CQL 6.2 reads the argument of `abs`, `sqrt`, `int` and `ascii` as a whole
        // sum (`abs(0 - 4) - 12` is `abs((0 - 4) - 12)`, 16), and that of
        // `lowercase`/`uppercase` as a product (no `+` concatenation); `str` takes
        // one filter, or a list in brackets whose texts it joins, as `comment` does
        // (`Tokens::match_stringconverter`).
        let args = match w {
            "abs" | "sqrt" | "int" | "ascii" => vec![self.parse_expr(BP_ADD)?],
            "lowercase" | "uppercase" => vec![self.parse_expr(BP_MUL)?],
            _ if self.at_sym(Sym::LParen) => {
                let args = self.parse_converter_args()?;
                if args.is_empty() {
                    self.error_hint(
                        "`str()` needs something to convert",
                        sp,
                        Some("write e.g. `str(\"move \" movenumber)`".into()),
                    );
                    return Err(());
                }
                args
            }
            _ => vec![self.parse_converter_arg(BP_POSTFIX)?],
        };
        self.simple(Filter::Numbers(NumberFilter::Call(b, args)), sp)
    }

    /// A word that is no keyword of any family: a variable given a value earlier in the
    /// text, else an error with a hint (CQL 6.2 knows a variable only from its first
    /// assignment on: `initial X > 0 X = 1` and a misspelt tag name `Termination` are
    /// refused there).
    pub(super) fn parse_variable_word(&mut self, w: String, sp: Span) -> PResult<FilterId> {
        if let Some(v) = self.ir.find_var(&w) {
            return self.simple(Filter::Variables(VariableFilter::Var(v)), sp);
        }
        if self.declared.contains(&w) {
            self.error_hint(
                format!("`{w}` is read before it is given a value"),
                sp,
                Some(format!(
                    "assign `{w}` earlier in the text; CQL 6.2 knows a variable from its first assignment on"
                )),
            );
            return Err(());
        }
        let near = nearest(&w, KEYWORDS);
        let keyword = KEYWORDS.contains(&w.as_str());
        let hint = if keyword {
            // A keyword out of place: suggesting the word itself would not help.
            Some(format!("`{w}` is a parameter of another filter or must come first in it; see its page in docs/"))
        } else if let Some(capture) = san_capture(&w) {
            Some(capture)
        } else {
            near.map(|n| format!("did you mean `{n}`?"))
        };
        let msg =
            if keyword { format!("`{w}` cannot be used here") } else { format!("unknown filter or variable `{w}`") };
        self.error_hint(msg, sp, hint);
        Err(())
    }
}

/// For a word that is a capture in PGN's notation (`Qxh7`, `exd5`, `Nbxd7`), how CQL 6
/// writes it: `Q[x]h7` (`♕×h7`), a move filter.
fn san_capture(word: &str) -> Option<String> {
    let b = word.as_bytes();
    let x = word.find('x')?;
    let (from, to) = (&b[..x], &b[x + 1..]);
    let is_file = |c: u8| (b'a'..=b'h').contains(&c);
    let is_rank = |c: u8| (b'1'..=b'8').contains(&c);
    let square = to.len() == 2 && is_file(to[0]) && is_rank(to[1]);
    let piece = match from {
        [p, ..] if b"KQRBN".contains(p) => from[1..].iter().all(|&c| is_file(c) || is_rank(c)) && from.len() <= 3,
        [f] => is_file(*f),
        _ => false,
    };
    if !(square && piece) {
        return None;
    }
    let mover = if b"KQRBN".contains(&from[0]) { (from[0] as char).to_string() } else { "P".to_string() };
    let target = &word[x + 1..];
    Some(format!("`{word}` is PGN's notation; in CQL 6 a capture is a move filter: `{mover}[x]{target}` (Unicode `×`)"))
}
