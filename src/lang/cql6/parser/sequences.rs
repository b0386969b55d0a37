//! Sequences: `line` (`-->`/`<--` constituents with repetitions `*`, `+`, `?`, `{m,n}`)
//! and `path` (`⊢`/`path` with its options, constituents, move targets and wildcards).
//! Part of the CQL 6 parser ([`super`]).

use super::*;
use crate::ir::{GameTreeFilter, LogicFilter, NumberFilter, OutputFilter, PositionStateFilter, SetFilter};

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &["firstmatch", "nestban", "singlecolor", "quiet", "focus"];

impl<'s> Parser<'s> {
    /// Is the `{` ahead a repetition count (`{*}` `{+}` `{?}` `{m}` `{m,}` `{m,n}`)?
    pub(super) fn brace_is_repetition(&self) -> bool {
        if self.peek().tok != Tok::Sym(Sym::LBrace) {
            return false;
        }
        // CQL 6.2's lexer reads `{2,4}` as a repetition only when written without spaces
        // inside; `{2, }` is a block (and then an error).
        let tight = |k: usize| (1..=k).all(|i| !self.peek_at(i).space_before);
        let closes_at = (1..=4).find(|&i| self.peek_at(i).tok == Tok::Sym(Sym::RBrace));
        if closes_at.is_some_and(|k| !tight(k)) {
            return false;
        }
        match (&self.peek_at(1).tok, &self.peek_at(2).tok, &self.peek_at(3).tok, &self.peek_at(4).tok) {
            (Tok::Sym(Sym::Star | Sym::Plus | Sym::Question), Tok::Sym(Sym::RBrace), _, _) => true,
            (Tok::Number(_), Tok::Sym(Sym::RBrace), _, _) => true,
            (Tok::Number(_), Tok::Sym(Sym::Comma), Tok::Sym(Sym::RBrace), _) => true,
            (Tok::Number(_), Tok::Sym(Sym::Comma), Tok::Number(_), Tok::Sym(Sym::RBrace)) => true,
            (Tok::Sym(Sym::Comma), Tok::Number(_), Tok::Sym(Sym::RBrace), _) => true,
            _ => false,
        }
    }

    pub(super) fn sequence_quantifier(&mut self, item: FilterId) -> PResult<FilterId> {
        self.repetitions(item, false)
    }

    /// The repetitions after a constituent of a `line` (`one_only == false`: one, or two
    /// when the first is `+` or `{n}`) or of a `path` (`one_only`: CQL 6.2's
    /// `Tokens::add_wildcard` refuses two consecutive wildcards).
    pub(super) fn repetitions(&mut self, item: FilterId, one_only: bool) -> PResult<FilterId> {
        let mut item = item;
        let mut count = 0;
        let mut last_plus = false;
        loop {
            let ahead = matches!(self.peek().tok, Tok::Sym(Sym::Star | Sym::Plus | Sym::Question))
                || self.brace_is_repetition();
            if ahead && one_only && count == 1 {
                let s = self.span_here();
                self.error_hint(
                    "two repetitions in a row",
                    s,
                    Some("a path move or chain takes one repetition; put the repeated part in parentheses".into()),
                );
                return Err(());
            }
            if ahead {
                count += 1;
            }
            let (min, max) = match self.peek().tok {
                Tok::Sym(Sym::Star) => (0, u32::MAX),
                Tok::Sym(Sym::Plus) => (1, u32::MAX),
                Tok::Sym(Sym::Question) => (0, 1),
                // (`{1 5}` goes on to the hint below that a range needs a comma.)
                Tok::Sym(Sym::LBrace)
                    if !self.brace_is_repetition()
                        && !matches!(
                            (&self.peek_at(1).tok, &self.peek_at(2).tok),
                            (Tok::Number(_), Tok::Number(_))
                        ) =>
                {
                    break
                }
                Tok::Sym(Sym::LBrace) => {
                    // `{*}` `{+}` `{?}`
                    if self.peek_at(2).tok == Tok::Sym(Sym::RBrace) {
                        let q = match self.peek_at(1).tok {
                            Tok::Sym(Sym::Star) => Some((0, u32::MAX)),
                            Tok::Sym(Sym::Plus) => Some((1, u32::MAX)),
                            Tok::Sym(Sym::Question) => Some((0, 1)),
                            _ => None,
                        };
                        if let Some((min, max)) = q {
                            if !one_only {
                                self.line_suffix_allowed(item, last_plus, Suffix::wildcard(min, max))?;
                                last_plus = min == 1;
                            }
                            self.bump();
                            self.bump();
                            let t = self.bump();
                            let s = Self::join(self.ir.span(item), t.span);
                            item = self.add(Filter::GameTree(GameTreeFilter::SeqRepeat { body: item, min, max }), s);
                            continue;
                        }
                    }
                    // `{,n}`: at most n (CQL 6.2 reads an open start as 0).
                    if let (Tok::Sym(Sym::Comma), Tok::Number(hi), Tok::Sym(Sym::RBrace)) =
                        (&self.peek_at(1).tok, &self.peek_at(2).tok, &self.peek_at(3).tok)
                    {
                        let hi = (*hi).clamp(0, i64::from(u32::MAX)) as u32;
                        if !one_only {
                            self.line_suffix_allowed(item, last_plus, Suffix::Range)?;
                            last_plus = false;
                        }
                        for _ in 0..3 {
                            self.bump();
                        }
                        let t = self.bump();
                        let s = Self::join(self.ir.span(item), t.span);
                        item = self.add(Filter::GameTree(GameTreeFilter::SeqRepeat { body: item, min: 0, max: hi }), s);
                        continue;
                    }
                    // `{m,n}` / `{m,}` / `{m}`
                    let Tok::Number(lo) = self.peek_at(1).tok else { break };
                    let (hi, len) = match (&self.peek_at(2).tok, &self.peek_at(3).tok, &self.peek_at(4).tok) {
                        (Tok::Sym(Sym::RBrace), _, _) => (lo, 3),
                        (Tok::Sym(Sym::Comma), Tok::Sym(Sym::RBrace), _) => (i64::from(u32::MAX), 4),
                        (Tok::Sym(Sym::Comma), Tok::Number(hi), Tok::Sym(Sym::RBrace)) => (*hi, 5),
                        (Tok::Number(_), _, _) => {
                            let s = self.span_here();
                            self.error_hint(
                                "a repetition range is written `{m,n}`",
                                s,
                                Some("put a comma between the bounds".into()),
                            );
                            return Err(());
                        }
                        _ => break,
                    };
                    for _ in 1..len {
                        self.bump();
                    }
                    (lo.clamp(0, i64::from(u32::MAX)) as u32, hi.clamp(0, i64::from(u32::MAX)) as u32)
                }
                _ => break,
            };
            if !one_only {
                let suffix = if matches!(self.peek().tok, Tok::Sym(Sym::RBrace)) {
                    Suffix::Range
                } else {
                    Suffix::wildcard(min, max)
                };
                self.line_suffix_allowed(item, last_plus, suffix)?;
                last_plus = suffix == Suffix::Plus;
            }
            let t = self.bump();
            let s = Self::join(self.ir.span(item), t.span);
            item = self.add(Filter::GameTree(GameTreeFilter::SeqRepeat { body: item, min, max }), s);
        }
        Ok(item)
    }

    /// May this repetition follow a `line` constituent `item`? CQL 6.2
    /// (`Tokens::match_seqsuffix`) takes any number of them, but none after a constituent
    /// that can match no position at all (`k*`, `k?`), and neither `+` nor `{m,n}` right
    /// after a `+` (`last_plus`).
    pub(super) fn line_suffix_allowed(&mut self, item: FilterId, last_plus: bool, suffix: Suffix) -> PResult<()> {
        let problem = if self.matches_empty_sequence(item, 0) {
            Some("it repeats a part that can match no position at all")
        } else if last_plus && matches!(suffix, Suffix::Plus | Suffix::Range) {
            Some("`+` and `{m,n}` cannot follow a `+`")
        } else {
            None
        };
        if let Some(why) = problem {
            let s = self.span_here();
            self.error_hint(
                format!("one repetition too many: {why}"),
                s,
                Some("a `line` constituent takes repetitions one after another only when each still needs a position (`k{3}+*`); use parentheses".into()),
            );
            return Err(());
        }
        Ok(())
    }

    /// Can this `line` constituent match an empty run of positions (CQL 6.2 `matchesNull`)?
    pub(super) fn matches_empty_sequence(&self, item: FilterId, depth: usize) -> bool {
        if depth > 64 {
            return false;
        }
        match self.ir.get(item) {
            Filter::GameTree(GameTreeFilter::SeqRepeat { min: 0, .. }) => true,
            Filter::GameTree(GameTreeFilter::SeqRepeat { body, .. }) => self.matches_empty_sequence(*body, depth + 1),
            Filter::GameTree(GameTreeFilter::SeqConcat(items)) => {
                items.iter().all(|&i| self.matches_empty_sequence(i, depth + 1))
            }
            Filter::GameTree(GameTreeFilter::SeqAlt(items)) => {
                items.iter().any(|&i| self.matches_empty_sequence(i, depth + 1))
            }
            _ => false,
        }
    }

    pub(super) fn line_params(&mut self, p: &mut LineParams) {
        while let Tok::Word(w) = &self.peek().tok {
            match w.as_str() {
                "firstmatch" => p.first_match = true,
                "lastposition" => p.last_position = true,
                "singlecolor" => p.single_color = true,
                "nestban" => p.nest_ban = true,
                "primary" => p.primary = true,
                "secondary" => p.secondary = true,
                "quiet" => p.quiet = true,
                _ => break,
            }
            self.bump();
        }
    }

    /// The range of a `line` (`line 2 5 --> …`, `line 3 --> …`): CQL 6.2 `match_range` among
    /// the other parameters, in any order with them. A number followed by an operator is
    /// not a range.
    pub(super) fn line_params_and_range(&mut self) -> LineParams {
        let mut p = LineParams::default();
        self.line_params(&mut p);
        if let Some(r) = self.range_here() {
            p.range = Some((r.low, r.high));
            p.range_variables = (r.low_var, r.high_var);
            self.line_params(&mut p);
        }
        p
    }

    /// `line [params] --> C --> C …` (or `<--`).
    pub(super) fn parse_line(&mut self, sp: Span) -> PResult<FilterId> {
        let mut params = self.line_params_and_range();
        let arrow = if self.at_sym(Sym::LineForward) {
            Sym::LineForward
        } else if self.at_sym(Sym::LineBackward) {
            params.backward = true;
            Sym::LineBackward
        } else {
            let s = self.span_here();
            self.error("expected `-->` or `<--` after `line`", s);
            return Err(());
        };
        let mut items = Vec::new();
        let saved = std::mem::replace(&mut self.in_sequence, true);
        let saved_line = std::mem::replace(&mut self.in_line, true);
        let mut result = Ok(());
        while self.eat_sym(arrow) {
            match self.line_constituent(arrow) {
                Ok(c) => items.push(c),
                Err(()) => {
                    result = Err(());
                    break;
                }
            }
        }
        self.in_sequence = saved;
        self.in_line = saved_line;
        result?;
        let end = self.toks[self.pos.saturating_sub(1)].span;
        let body = self.add(Filter::GameTree(GameTreeFilter::SeqConcat(items)), Self::join(sp, end));
        Ok(self.add(Filter::GameTree(GameTreeFilter::Line { params, body }), Self::join(sp, end)))
    }

    /// One constituent of a `line`: a filter with optional repetition, or a parenthesised
    /// group of constituents joined by arrows.
    pub(super) fn line_constituent(&mut self, arrow: Sym) -> PResult<FilterId> {
        // A constituent is one filter (CQL 6.2 `Tokens::match_holderconstituent`); a `move`
        // filter's own `comment( … )` is part of it (see `parse_move_keyword`).
        let part = if self.at_sym(Sym::LParen) {
            let open = self.bump();
            let mut group = vec![self.line_constituent(arrow)?];
            while self.eat_sym(arrow) {
                group.push(self.line_constituent(arrow)?);
            }
            self.expect_sym(Sym::RParen, "`)` closing the group")?;
            let end = self.toks[self.pos - 1].span;
            if group.len() == 1 {
                group[0]
            } else {
                self.add(Filter::GameTree(GameTreeFilter::SeqConcat(group)), Self::join(open.span, end))
            }
        } else {
            let item = self.parse_expr(BP_OR)?;
            self.refuse_number_constituent(item, true)?;
            item
        };
        let part = self.sequence_quantifier(part)?;
        if let Some(d) =
            super::super::types::line_wildcard_end(&self.toks[self.pos.saturating_sub(1)], self.peek(), self.src)
        {
            self.diags.push(d);
            return Err(());
        }
        Ok(part)
    }

    /// Inside a `line` or a path, is the `+` or `*` ahead a repetition of the constituent
    /// before it rather than arithmetic? In a path it always is; in a `line` CQL 6.2 reads
    /// it as arithmetic when an operand follows
    /// (`line --> 5 >= 4 --> #P + #A >= #n`), and as a repetition when an arrow, a
    /// closing bracket, the end of the text or another repetition does
    /// (`Tokens::match_holderconstituent` reads the longest filter, then
    /// `match_seqsuffix` the repetitions).
    pub(super) fn sign_is_repetition(&self) -> bool {
        self.in_sequence
            && (!self.in_line
                || super::super::types::line_wildcard_end(self.peek(), self.peek_at(1), self.src).is_none())
    }

    /// Is `id` a set as written (a piece designator, squares, or set operators over them)?
    pub(super) fn is_written_set(&self, id: FilterId) -> bool {
        match self.ir.get(id) {
            Filter::Sets(SetFilter::Pieces { .. } | SetFilter::Squares(_)) => true,
            Filter::Sets(SetFilter::Union(v) | SetFilter::Intersection(v)) => v.iter().all(|&x| self.is_written_set(x)),
            Filter::Sets(SetFilter::Complement(x)) => self.is_written_set(*x),
            _ => false,
        }
    }

    /// Is filter `id`, as written, one that has no numeric value: a move (but not a move
    /// count), `true`/`false`, a fact about the position, or a position?
    pub(super) fn is_plainly_not_a_number(&self, id: FilterId) -> bool {
        match self.ir.get(id) {
            Filter::Move(m) => m.value != MoveValue::Count,
            Filter::True
            | Filter::False
            | Filter::PositionState(
                PositionStateFilter::Check
                | PositionStateFilter::Mate
                | PositionStateFilter::Stalemate
                | PositionStateFilter::ToMove(_)
                | PositionStateFilter::Initial
                | PositionStateFilter::Terminal
                | PositionStateFilter::Mainline
                | PositionStateFilter::Variation
                | PositionStateFilter::VirtualMainline,
            )
            | Filter::GameTree(
                GameTreeFilter::Tree(_)
                | GameTreeFilter::PositionById(_)
                | GameTreeFilter::Child(_)
                | GameTreeFilter::Lca(..),
            ) => true,
            _ => false,
        }
    }

    pub(super) fn is_move(&self, id: FilterId) -> bool {
        match self.ir.get(id) {
            Filter::Move(_)
            | Filter::GameTree(
                GameTreeFilter::SeqConcat(_) | GameTreeFilter::SeqAlt(_) | GameTreeFilter::SeqRepeat { .. },
            ) => true,
            Filter::Logic(LogicFilter::And(v)) => v.iter().any(|&x| self.is_move(x)),
            _ => false,
        }
    }

    /// `――X∩S` in a path (parsed as `(――X)∩S`, the destination squares of the move that are
    /// in S) is the move `――(X∩S)`, so that it stays a move constituent.
    pub(super) fn fold_move_intersection(&mut self, item: FilterId) -> FilterId {
        let Filter::Sets(SetFilter::Intersection(parts)) = self.ir.get(item).clone() else { return item };
        let Some((&first, rest)) = parts.split_first() else { return item };
        let Filter::Move(m) = self.ir.get(first).clone() else { return item };
        if m.value != MoveValue::To || m.source != MoveSource::Next || rest.iter().any(|&r| self.is_move(r)) {
            return item;
        }
        let sp = self.ir.span(item);
        let mut sets: Vec<FilterId> = m.to.into_iter().collect();
        sets.extend_from_slice(rest);
        let to = if sets.len() == 1 { sets[0] } else { self.add(Filter::Sets(SetFilter::Intersection(sets)), sp) };
        let mut m = *m;
        m.to = Some(to);
        self.move_node(m, sp)
    }

    /// Add `cond` as a condition after the move of `unit`.
    pub(super) fn attach_then(&mut self, unit: FilterId, cond: FilterId) -> FilterId {
        let sp = Self::join(self.ir.span(unit), self.ir.span(cond));
        match self.ir.get(unit).clone() {
            Filter::Move(mut m) => {
                m.then = Some(match m.then {
                    Some(prev) => self.add(Filter::Logic(LogicFilter::And(vec![prev, cond])), sp),
                    None => cond,
                });
                self.add(Filter::Move(m), sp)
            }
            Filter::Logic(LogicFilter::And(mut v)) => {
                let holds_move = |p: &Self, x: FilterId| match p.ir.get(x) {
                    Filter::Move(_) => true,
                    Filter::Logic(LogicFilter::And(w)) => w.iter().any(|&y| matches!(p.ir.get(y), Filter::Move(_))),
                    _ => false,
                };
                if let Some(i) = v.iter().rposition(|&x| holds_move(self, x)) {
                    v[i] = self.attach_then(v[i], cond);
                    self.add(Filter::Logic(LogicFilter::And(v)), sp)
                } else {
                    v.push(cond);
                    self.add(Filter::Logic(LogicFilter::And(v)), sp)
                }
            }
            _ => self.add(Filter::Logic(LogicFilter::And(vec![unit, cond])), sp),
        }
    }

    pub(super) fn set_line_choice(&mut self, unit: FilterId, choice: LineChoice) -> FilterId {
        match self.ir.get(unit).clone() {
            Filter::Move(mut m) => {
                m.line = choice;
                let sp = self.ir.span(unit);
                self.add(Filter::Move(m), sp)
            }
            Filter::Logic(LogicFilter::And(mut v)) => {
                if let Some(i) = v.iter().position(|&x| matches!(self.ir.get(x), Filter::Move(_))) {
                    v[i] = self.set_line_choice(v[i], choice);
                }
                let sp = self.ir.span(unit);
                self.add(Filter::Logic(LogicFilter::And(v)), sp)
            }
            _ => unit,
        }
    }

    /// Where the constituents of a path end (CQL 6.2 `Tokens::match_pathcons`): at a closing
    /// delimiter or the end of the text, at a word no filter starts with, and at a blank
    /// line unless it is inside a parenthesised chain (`Lexer::fixPath` turns a blank line at
    /// the path's top level into the path's end).
    pub(super) fn path_ends(&self, in_chain: bool) -> bool {
        let t = self.peek();
        if t.blank_before && !in_chain {
            return true;
        }
        match &t.tok {
            Tok::Eof | Tok::Sym(Sym::RBrace) | Tok::Sym(Sym::RParen) | Tok::Sym(Sym::LineForward) => true,
            Tok::Word(w) => matches!(w.as_str(), "function" | "then" | "else"),
            _ => false,
        }
    }

    /// A repetition (`*`, `+`, `?`, `{n,m}`, `{*}`…) comes next.
    pub(super) fn at_path_wildcard(&self) -> bool {
        matches!(self.peek().tok, Tok::Sym(Sym::Star | Sym::Plus | Sym::Question)) || self.brace_is_repetition()
    }

    /// The constituents of a path (CQL 6.2 `Tokens::match_pathcon`), each one of:
    /// - a chain `( constituents )`, which may take a repetition;
    /// - a move (`――`, `×`, `X――Y`, `――=♕`…) with the filters written after it as its
    ///   targets, tested at the position the move reaches (`Tokens::match_dashcon_target`
    ///   takes every following filter that is not itself a move), which may take a
    ///   repetition as a whole: `―― check*` repeats "a move, then check";
    /// - any other filter, tested where the path stands without consuming a move; it takes
    ///   no repetition, and a bare number or arithmetic is refused as CQL 6.2 refuses it.
    ///
    /// A filter in braces is one filter, even when it holds a move: `―― {―― ¬check}*` is a
    /// move whose target is the block, repeated.
    pub(super) fn parse_path_items(&mut self, in_chain: bool) -> PResult<Vec<FilterId>> {
        let mut units: Vec<FilterId> = Vec::new();
        // A move read while collecting the targets of the one before (`P――e4` starts with a
        // set, so it is known for a move only once read).
        let mut next_move: Option<FilterId> = None;
        loop {
            if self.fatal {
                return Err(());
            }
            let unit = if let Some(m) = next_move.take() {
                self.path_move_targets(m, in_chain, &mut next_move)?
            } else {
                if self.path_ends(in_chain) {
                    break;
                }
                if self.at_sym(Sym::LParen) {
                    let open = self.bump();
                    let inner = self.parse_path_items(true)?;
                    self.expect_sym(Sym::RParen, "`)` closing the path chain")?;
                    if inner.is_empty() {
                        self.error("a parenthesised chain in a path needs at least one constituent", open.span);
                        return Err(());
                    }
                    let end = self.toks[self.pos - 1].span;
                    let chain =
                        self.add(Filter::GameTree(GameTreeFilter::SeqConcat(inner)), Self::join(open.span, end));
                    self.path_wildcards(chain)?
                } else {
                    let starts_with_dash = matches!(self.peek().tok, Tok::Sym(Sym::Dash | Sym::Capture));
                    let item = self.path_item()?;
                    if starts_with_dash || matches!(self.ir.get(item), Filter::Move(_)) {
                        self.path_move_targets(item, in_chain, &mut next_move)?
                    } else {
                        self.path_holder(item)?
                    }
                }
            };
            units.push(unit);
        }
        Ok(units)
    }

    /// One filter of a path as written, with a `///` comment and `primary`/`secondary` after it.
    pub(super) fn path_item(&mut self) -> PResult<FilterId> {
        let f = self.parse_expr(BP_OR)?;
        // A `///` after a move is written where the move arrives, like a target of the
        // move: it is left for [`Parser::path_move_targets`], so that the move stays a
        // move constituent (`U――C ///"U to the critical square"`).
        let moves = |p: &Self, x: FilterId| matches!(p.ir.get(x), Filter::Move(_));
        let mut item = if moves(self, f) { f } else { self.maybe_triple_slash(f)? };
        while let Tok::Word(w) = &self.peek().tok {
            let choice = match w.as_str() {
                "primary" => LineChoice::Primary,
                "secondary" => LineChoice::Secondary,
                _ => break,
            };
            if !self.is_move(item) {
                break;
            }
            self.bump();
            item = self.set_line_choice(item, choice);
        }
        let item = self.fold_move_intersection(item);
        if moves(self, item) {
            return Ok(item);
        }
        self.maybe_triple_slash(item)
    }

    /// The targets of the path move `mv` (every following filter that is not a move, up to a
    /// repetition, a chain or the path's end), then its repetition. A move met among them is
    /// left in `next_move` as the next constituent.
    pub(super) fn path_move_targets(
        &mut self,
        mv: FilterId,
        in_chain: bool,
        next_move: &mut Option<FilterId>,
    ) -> PResult<FilterId> {
        let mut unit = mv;
        loop {
            if self.fatal {
                return Err(());
            }
            if self.path_ends(in_chain)
                || self.at_path_wildcard()
                || matches!(self.peek().tok, Tok::Sym(Sym::Dash | Sym::Capture))
            {
                break;
            }
            if self.at_sym(Sym::TripleSlash) {
                let t = self.bump();
                let args = self.triple_slash_items(t.line, t.span)?;
                let comment = self.add(Filter::Output(OutputFilter::Comment(args)), t.span);
                unit = self.attach_then(unit, comment);
                continue;
            }
            let item = self.path_item()?;
            if matches!(self.ir.get(item), Filter::Move(_)) {
                *next_move = Some(item);
                return Ok(unit);
            }
            self.refuse_number_constituent(item, false)?;
            unit = self.attach_then(unit, item);
        }
        self.path_wildcards(unit)
    }

    /// A filter standing alone in a path: tested where the path stands.
    pub(super) fn path_holder(&mut self, item: FilterId) -> PResult<FilterId> {
        self.refuse_number_constituent(item, false)?;
        if self.at_path_wildcard() {
            let s = self.span_here();
            self.error_hint(
                "a repetition in a path applies to a move or to a parenthesised chain, not to a filter",
                s,
                Some("write the filter after a move (`―― check*`) or put a chain in parentheses".into()),
            );
            return Err(());
        }
        Ok(item)
    }

    /// CQL 6.2 refuses a `line` or path constituent that is a bare number or arithmetic
    /// (`Tokens::match_holderconstituent`, `Tokens::match_holdercon`): most likely a range,
    /// a repetition or an operator misread. A comparison is a constituent like any filter.
    pub(super) fn refuse_number_constituent(&mut self, item: FilterId, in_line: bool) -> PResult<()> {
        let what = match self.ir.get(item) {
            Filter::Numbers(NumberFilter::Number(_)) => "a single number",
            Filter::Numbers(NumberFilter::Arith(..)) => "arithmetic",
            _ => return Ok(()),
        };
        let (holder, hint) = if in_line {
            ("a `line`", "put the filter in braces, or write `{+}`/`{*}` for a repetition")
        } else {
            ("a path", "in a path `*` and `+` are repetitions; put the filter in braces: `{x * 2}`")
        };
        let sp = self.ir.span(item);
        self.error_hint(format!("{what} cannot be {holder} constituent"), sp, Some(hint.into()));
        Err(())
    }

    /// The repetition after a move or chain of a path, if any; two in a row are refused as in
    /// CQL 6.2 (`Tokens::add_wildcard`).
    pub(super) fn path_wildcards(&mut self, unit: FilterId) -> PResult<FilterId> {
        if !self.at_path_wildcard() {
            return Ok(unit);
        }
        self.repetitions(unit, true)
    }

    /// `⊢ [params] constituents…` (CQL 6.2 path): see [`Parser::parse_path_items`] for
    /// the constituents. A move constituent consumes one move of the focused pieces; its
    /// targets are tested at the position the move reaches; a filter standing alone is
    /// tested where the path stands.
    pub(super) fn parse_path(&mut self, sp: Span) -> PResult<FilterId> {
        let mut params = PathParams::default();
        let mut focus = None;
        let mut best = None;
        let mut title = None;
        loop {
            if self.eat_sym(Sym::Focus) || self.eat_word("focus") {
                if self.eat_word("capture") {
                    params.focus_capture = true;
                }
                focus = Some(self.parse_expr(BP_UNION)?);
                continue;
            }
            // A range among the parameters (CQL 6.2 `match_pathnode` takes `match_range`).
            if params.range.is_none() {
                if let Some(r) = self.range_here() {
                    params.range = Some((r.low, r.high));
                    params.range_variables = (r.low_var, r.high_var);
                    continue;
                }
            }
            let Tok::Word(w) = &self.peek().tok else { break };
            match w.as_str() {
                "nestban" => params.nest_ban = true,
                "firstmatch" => params.first_match = true,
                "lastposition" => params.last_position = true,
                "quiet" => params.quiet = true,
                "primary" => params.primary = true,
                "secondary" => params.secondary = true,
                "keepallbest" => params.keep_all_best = true,
                "piecepath" => params.piece_path = true,
                "verbose" => params.verbose = true,
                "title" => {
                    self.bump();
                    let Tok::Str(text) = self.peek().tok.clone() else {
                        let s = self.span_here();
                        self.error("expected a string after `title`", s);
                        return Err(());
                    };
                    self.bump();
                    title = Some(text);
                    continue;
                }
                // Only `max`: CQL 6.2's path has no `min` (`Tokens::match_pathnode`), and
                // `min` there starts the function `min(…)`.
                "max" => {
                    self.bump();
                    best = Some(self.parse_expr(BP_OR)?);
                    continue;
                }
                _ => break,
            }
            self.bump();
        }
        if params.piece_path && focus.is_none() {
            self.error("`piecepath` needs a focus (`focus S` or `◎S`)", sp);
            return Err(());
        }
        let saved = std::mem::replace(&mut self.in_sequence, true);
        let saved_line = std::mem::replace(&mut self.in_line, false);
        let saved_top = std::mem::replace(&mut self.path_top, true);
        let items = self.parse_path_items(false);
        self.in_sequence = saved;
        self.in_line = saved_line;
        self.path_top = saved_top;
        let items = items?;
        if items.is_empty() {
            self.error("a path needs at least one constituent", sp);
            return Err(());
        }
        let end = self.toks[self.pos.saturating_sub(1)].span;
        let body = self.add(Filter::GameTree(GameTreeFilter::SeqConcat(items)), Self::join(sp, end));
        Ok(self.add(Filter::GameTree(GameTreeFilter::Path { params, focus, best, title, body }), Self::join(sp, end)))
    }
}
