//! User functions: `function F(a b) { … }` definitions and their calls. A call is
//! inlined: the body's tokens are read again with the arguments in place of the
//! parameters (an argument with a value is first given to a fresh variable).
//! Part of the CQL 6 parser ([`super`]).

use super::*;
use crate::ir::{LogicFilter, VariableFilter};

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &["function"];

impl<'s> Parser<'s> {
    pub(super) fn parse_function_def(&mut self) -> PResult<()> {
        let kw = self.bump();
        let name = match self.bump().tok {
            Tok::Word(w) => w,
            _ => {
                self.error("expected a function name after `function`", kw.span);
                return Err(());
            }
        };
        self.expect_sym(Sym::LParen, "`(` after the function name")?;
        let mut params = Vec::new();
        while let Tok::Word(w) = &self.peek().tok {
            params.push(w.clone());
            self.bump();
        }
        self.expect_sym(Sym::RParen, "`)` closing the parameter list")?;
        let open = self.span_here();
        if self.brace_is_repetition() && !self.peek_at(1).space_before && !self.peek_at(2).space_before {
            // CQL 6.2 reads `{1}` / `{2,3}` as a repetition count, never as a body.
            self.error_hint(
                "a function body cannot be a repetition count like `{1}`",
                open,
                Some("write the body with spaces or another filter, e.g. `{ 1 + 0 }`".to_string()),
            );
            return Err(());
        }
        self.expect_sym(Sym::LBrace, "`{` starting the function body")?;
        let start = self.pos;
        let mut level = 1usize;
        while level > 0 {
            match self.peek().tok {
                Tok::Eof => {
                    self.error("unclosed function body", open);
                    return Err(());
                }
                Tok::Sym(Sym::LBrace) => level += 1,
                Tok::Sym(Sym::RBrace) => level -= 1,
                _ => {}
            }
            self.bump();
        }
        let body = self.toks[start..self.pos - 1].to_vec();
        self.functions.insert(name, Function { params, body });
        Ok(())
    }

    // ----- expressions ---------------------------------------------------------

    /// Inline a call of a user function by parsing its body with each parameter replaced.
    ///
    /// As in CQL 6.2 (`LambdaCallNode`): an argument that is a variable is passed by name
    /// (the body reads and writes that variable); any other argument with a value (a set, a
    /// number, a string or a position) is evaluated once where the call is made and
    /// assigned to a fresh variable that stands for the parameter, so in
    /// `function F(T){――(T)} F(Q)` the target is the squares of the white queen before the
    /// move. An argument without a value (`F(check)`) is substituted as written.
    pub(super) fn inline_call(&mut self, name: &str, sp: Span) -> PResult<FilterId> {
        let Some(func) = self.functions.get(name).cloned() else { return Err(()) };
        if self.inline_depth >= MAX_INLINE_DEPTH {
            self.error_hint(
                format!("calls of `{name}` nest too deeply"),
                sp,
                Some("recursive functions are not supported".into()),
            );
            self.fatal = true;
            return Err(());
        }
        self.expect_sym(Sym::LParen, "`(` after the function name")?;
        let mut args: Vec<Vec<Token>> = Vec::new();
        let mut arg_filters: Vec<FilterId> = Vec::new();
        while !self.at_sym(Sym::RParen) {
            if self.at_eof() || self.at_sym(Sym::RBrace) {
                let s = self.span_here();
                self.error("expected `)` closing the call", s);
                return Err(());
            }
            let start = self.pos;
            arg_filters.push(self.parse_expr(BP_OR)?);
            args.push(self.toks[start..self.pos].to_vec());
        }
        self.bump();
        if args.len() != func.params.len() {
            self.error(format!("`{name}` takes {} argument(s), got {}", func.params.len(), args.len()), sp);
            return Err(());
        }
        let mut bindings = Vec::new();
        for (i, arg) in arg_filters.iter().enumerate() {
            let by_name = matches!(&args[i][..], [Token { tok: Tok::Word(w), .. }] if self.ir.find_var(w).is_some());
            if by_name {
                continue;
            }
            let kind = match crate::ir::props::value_type(&self.ir, *arg) {
                ValueType::Set => VarKind::Square,
                ValueType::Position => VarKind::Position,
                ValueType::Number | ValueType::String => VarKind::Value,
                ValueType::None | ValueType::Piece => continue,
            };
            // A name no script can write (it holds a space), unique to this call.
            let fresh = format!("{} of {name} #{}", func.params[i], self.ir.vars.len());
            let var = self.ir.var(&fresh, kind);
            self.note_if_numeric(var, Some(*arg));
            let span = self.ir.span(*arg);
            bindings.push(self.add(Filter::Variables(VariableFilter::Assign { var, op: None, value: *arg }), span));
            args[i] = vec![Token { tok: Tok::Word(fresh), span, space_before: true, line: 0, blank_before: false }];
        }
        let open = Token { tok: Tok::Sym(Sym::LParen), span: sp, space_before: true, line: 0, blank_before: false };
        let close = Token { tok: Tok::Sym(Sym::RParen), span: sp, space_before: false, line: 0, blank_before: false };
        let mut body =
            vec![Token { tok: Tok::Sym(Sym::LBrace), span: sp, space_before: true, line: 0, blank_before: false }];
        for t in &func.body {
            let param = match &t.tok {
                Tok::Word(w) => func.params.iter().position(|p| p == w),
                _ => None,
            };
            match param {
                Some(i) if args[i].len() == 1 => {
                    let mut a = args[i][0].clone();
                    a.space_before = t.space_before;
                    a.line = t.line;
                    body.push(a);
                }
                Some(i) => {
                    let mut o = open.clone();
                    o.space_before = t.space_before;
                    body.push(o);
                    body.extend(args[i].iter().cloned().map(|mut a| {
                        a.line = t.line;
                        a
                    }));
                    body.push(close.clone());
                }
                None => body.push(t.clone()),
            }
        }
        body.push(Token { tok: Tok::Sym(Sym::RBrace), span: sp, space_before: true, line: 0, blank_before: false });
        body.push(Token { tok: Tok::Eof, span: sp, space_before: true, line: 0, blank_before: false });
        // The compile budget: checked before each call is written out, so that the
        // error comes in a fraction of a second however fast the query would grow.
        self.inlined_tokens = self.inlined_tokens.saturating_add(body.len());
        if self.ir.len() > MAX_EXPANDED_FILTERS
            || self.inlined_tokens > MAX_INLINED_TOKENS
            || self.ir.vars.len() > MAX_EXPANDED_VARIABLES
        {
            let at = self.inline_outer.unwrap_or(sp);
            self.error_hint(
                format!(
                    "the query is too large once its function calls are written out (more than {MAX_EXPANDED_FILTERS} filters, {MAX_INLINED_TOKENS} tokens or {MAX_EXPANDED_VARIABLES} variables): compilation stopped at this call"
                ),
                at,
                Some("every call is written out in full; a function that calls another twice doubles the query at each level — call it once and keep its value in a variable".into()),
            );
            self.fatal = true;
            return Err(());
        }
        let outermost = self.inline_outer.is_none();
        if outermost {
            self.inline_outer = Some(sp);
        }
        let saved_toks = std::mem::replace(&mut self.toks, body);
        let saved_pos = std::mem::replace(&mut self.pos, 0);
        self.inline_depth += 1;
        self.tree.suspend();
        let r = self.parse_block(Sym::RBrace, false);
        self.tree.resume();
        self.inline_depth -= 1;
        if outermost {
            self.inline_outer = None;
        }
        self.toks = saved_toks;
        self.pos = saved_pos;
        let body = r?;
        if bindings.is_empty() {
            return Ok(body);
        }
        bindings.push(body);
        Ok(self.add(Filter::Logic(LogicFilter::And(bindings)), sp))
    }
}

/// Names the script declares somewhere (assigned, iterated, parameters, echo), so
/// that a use before the declaration is not reported as unknown.
pub(super) fn collect_declared(toks: &[Token]) -> HashSet<String> {
    let mut names = HashSet::new();
    for (i, t) in toks.iter().enumerate() {
        if let Tok::Word(w) = &t.tok {
            let next = toks.get(i + 1).map(|t| &t.tok);
            let prev = i.checked_sub(1).and_then(|p| toks.get(p)).map(|t| &t.tok);
            let declares = next.is_some_and(|n| is_assign(n) || is_element(n))
                || matches!(prev, Some(Tok::Word(p)) if p == "square" || p == "piece" || p == "all" || p == "function")
                || matches!(prev, Some(Tok::Sym(Sym::LParen)))
                    && i >= 2
                    && matches!(&toks[i - 2].tok, Tok::Word(e) if e == "echo");
            if declares {
                names.insert(w.clone());
            }
        }
    }
    // Function parameters and echo variables: words inside `(...)` after `function NAME` / `echo`.
    for (i, t) in toks.iter().enumerate() {
        let opener = match &t.tok {
            Tok::Word(w) if w == "function" => i + 2,
            Tok::Word(w) if w == "echo" => i,
            _ => continue,
        };
        let mut j = opener + 1;
        if toks.get(opener).map(|t| &t.tok) == Some(&Tok::Sym(Sym::LParen))
            || toks.get(opener + 1).map(|t| &t.tok) == Some(&Tok::Sym(Sym::LParen))
        {
            while j < toks.len() && toks[j].tok != Tok::Sym(Sym::RParen) && j < opener + 20 {
                if let Tok::Word(w) = &toks[j].tok {
                    names.insert(w.clone());
                }
                j += 1;
            }
        }
    }
    names
}
