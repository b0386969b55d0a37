//! Expressions: the operator loop (binding powers in [`super`]), blocks `{ … }` and
//! `( … )`, and what a filter may start with (numbers, strings, squares, pieces,
//! symbols such as `#`, `~`, `――`, `∀`); words go on to [`Parser::parse_word`].
//! Part of the CQL 6 parser ([`super`]).

use super::*;
use crate::ir::{GameTreeFilter, GeometryFilter, LogicFilter, NumberFilter, OutputFilter, SetFilter, VariableFilter};
use crate::lang::cql6::syntax::{kind_of_start, NodeKind};

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &["and", "or", "in", "attacks", "attackedby"];

impl<'s> Parser<'s> {
    /// Parse a filter whose operators bind at least as tightly as `min_bp`.
    pub(super) fn parse_expr(&mut self, min_bp: u8) -> PResult<FilterId> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            if !self.fatal {
                let sp = self.span_here();
                self.error_hint(
                    "the query is nested too deeply",
                    sp,
                    Some(format!("at most {MAX_DEPTH} levels of nesting are allowed")),
                );
            }
            self.fatal = true;
            self.depth -= 1;
            return Err(());
        }
        let mark = self.tree.mark(self.pos);
        let r = self.parse_expr_inner(min_bp);
        match r {
            Ok(_) => self.tree.close_operation(mark, self.pos),
            Err(()) => self.tree.discard(mark),
        }
        self.depth -= 1;
        r
    }

    pub(super) fn parse_expr_inner(&mut self, min_bp: u8) -> PResult<FilterId> {
        // A `――`/`×` with nothing on its left is a whole operand of the operators looser than
        // a dash (CQL 6.2 returns it from `match_mulop_x` at once): in `legal ―― & legal ――`
        // the `&` joins the two moves rather than continuing the first one's destination.
        let bare_dash = matches!(self.peek().tok, Tok::Sym(Sym::Dash | Sym::Capture));
        let mut lhs = self.parse_prefix()?;
        loop {
            if self.fatal {
                return Err(());
            }
            let t = self.peek().clone();
            let lspan = self.ir.span(lhs);
            // A dash written right after the bare one (`--(k)--`) is still tied to it, so
            // that the move arm below can refuse it as CQL 6.2 does.
            let tied_dash = matches!(t.tok, Tok::Sym(Sym::Dash | Sym::Capture)) && !t.space_before;
            if bare_dash && binds_tighter_than_dash(&t.tok) && !tied_dash {
                break;
            }
            match &t.tok {
                Tok::Sym(Sym::Colon) if self.in_subscript && !self.may_be_position(lhs) => break,
                Tok::Sym(Sym::Colon) if min_bp <= BP_POSTFIX => lhs = self.at_position(lhs, lspan, t.span)?,
                Tok::Sym(Sym::LBracket) if !t.space_before && min_bp <= BP_POSTFIX => {
                    self.bump();
                    lhs = self.parse_subscript(lhs, lspan)?;
                }
                Tok::Sym(Sym::Dash) | Tok::Sym(Sym::Capture) if !t.space_before && min_bp <= BP_DASH => {
                    lhs = self.parse_move_after(Some(lhs))?;
                }
                Tok::Sym(s @ (Sym::AttackRight | Sym::AttackLeft)) if min_bp <= BP_ATTACK => {
                    lhs = self.attack_chain(lhs, *s)?;
                }
                // `attack` is `attacks`, and `attacked by` in two words is `attackedby`
                // (CQL 6.2 `match_intersect_x`).
                Tok::Word(w)
                    if (w == "attacks"
                        || w == "attack"
                        || w == "attackedby"
                        || w == "attacked" && matches!(&self.peek_at(1).tok, Tok::Word(b) if b == "by"))
                        && min_bp <= BP_ATTACK_WORD =>
                {
                    let left = w == "attackedby" || w == "attacked";
                    if w == "attacked" {
                        self.bump();
                    }
                    self.bump();
                    let rhs = self.parse_expr(BP_ATTACK_WORD + 1)?;
                    lhs = self.attack(left, lhs, rhs);
                }
                Tok::Sym(Sym::Inter) if min_bp <= BP_INTER => {
                    lhs = self.nary(lhs, Sym::Inter, BP_INTER)?;
                }
                Tok::Sym(Sym::Union) if min_bp <= BP_UNION => {
                    lhs = self.nary(lhs, Sym::Union, BP_UNION)?;
                }
                Tok::Sym(s @ (Sym::Star | Sym::Slash | Sym::Percent))
                    if min_bp <= BP_MUL
                        && !(*s == Sym::Star && self.sign_is_repetition())
                        && !self.operator_ends_counted_body(lhs) =>
                {
                    let op = match s {
                        Sym::Star => ArithOp::Mul,
                        Sym::Slash => ArithOp::Div,
                        _ => ArithOp::Rem,
                    };
                    self.bump();
                    let rhs = self.parse_expr(BP_MUL + 1)?;
                    let sp = Self::join(lspan, self.ir.span(rhs));
                    lhs = self.add(Filter::Numbers(NumberFilter::Arith(op, lhs, rhs)), sp);
                }
                // After a set, a move or a position, CQL 6.2 does not subtract: `q -2` is `q`
                // followed by the number -2 (`(q-2)` is two filters in parentheses, refused),
                // and so is `――=q-2` (its arithmetic wants a number on the left).
                Tok::Sym(s @ (Sym::Plus | Sym::Minus))
                    if min_bp <= BP_ADD
                        && !(*s == Sym::Plus && self.sign_is_repetition())
                        && !self.operator_ends_counted_body(lhs)
                        && !(*s == Sym::Minus && (self.is_written_set(lhs) || self.is_plainly_not_a_number(lhs))) =>
                {
                    let op = if *s == Sym::Plus { ArithOp::Add } else { ArithOp::Sub };
                    self.bump();
                    let rhs = self.parse_expr(BP_ADD + 1)?;
                    let sp = Self::join(lspan, self.ir.span(rhs));
                    lhs = self.add(Filter::Numbers(NumberFilter::Arith(op, lhs, rhs)), sp);
                }
                Tok::Sym(s) if cmp_op(*s).is_some() && min_bp <= BP_CMP && !self.operator_ends_counted_body(lhs) => {
                    lhs = self.comparison_chain(lhs, lspan)?;
                }
                Tok::Sym(s @ (Sym::Prec | Sym::Succ | Sym::PrecEq | Sym::SuccEq)) if min_bp <= BP_CMP => {
                    let rel = match s {
                        Sym::Prec => TreeRelation::Ancestor,
                        Sym::PrecEq => TreeRelation::AncestorOrSelf,
                        // CQL 6.2 (`RelationalNode::compare`, `[>=]`) tests `≽` exactly as `≻`:
                        // a strict descendant. The reference's behaviour wins (docs/compat.md).
                        _ => TreeRelation::Descendant,
                    };
                    self.bump();
                    let rhs = self.parse_expr(BP_CMP + 1)?;
                    let sp = Self::join(lspan, self.ir.span(rhs));
                    lhs = self.add(Filter::GameTree(GameTreeFilter::TreeRelation(rel, lhs, rhs)), sp);
                }
                Tok::Word(w) if w == "in" && min_bp <= BP_IN => {
                    self.bump();
                    let rhs = self.parse_expr(BP_IN + 1)?;
                    let sp = Self::join(lspan, self.ir.span(rhs));
                    lhs = self.add(Filter::Sets(SetFilter::In(lhs, rhs)), sp);
                }
                Tok::Sym(Sym::RegexOp) if min_bp <= BP_LOOSE => {
                    self.bump();
                    let pt = self.bump();
                    let Tok::Str(pattern) = pt.tok else {
                        self.error("`~~` needs a string literal pattern on its right", pt.span);
                        return Err(());
                    };
                    if let Err(e) = crate::ir::compile_pattern(&pattern) {
                        self.error(
                            format!("invalid regular expression: {}", e.to_string().lines().last().unwrap_or("")),
                            pt.span,
                        );
                    }
                    let sp = Self::join(lspan, pt.span);
                    lhs = self.add(Filter::Numbers(NumberFilter::RegexMatch { subject: lhs, pattern }), sp);
                }
                Tok::Word(w) if w == "and" && min_bp <= BP_AND => {
                    lhs = self.nary_word(lhs, "and", BP_AND)?;
                }
                Tok::Word(w) if w == "or" && min_bp <= BP_OR => {
                    lhs = self.nary_word(lhs, "or", BP_OR)?;
                }
                _ => break,
            }
        }
        Ok(lhs)
    }

    /// `lhs : body`: the body evaluated at the position `lhs` (which must be able to be
    /// one); `colon` is the `:`.
    fn at_position(&mut self, lhs: FilterId, lspan: Span, colon: Span) -> PResult<FilterId> {
        if matches!(
            self.ir.get(lhs),
            Filter::Move(_)
                | Filter::Sets(SetFilter::Pieces { .. })
                | Filter::Sets(SetFilter::Squares(_))
                | Filter::Numbers(NumberFilter::Number(_))
                | Filter::Numbers(NumberFilter::Str(_))
                | Filter::Numbers(NumberFilter::Compare { .. })
                | Filter::Geometry(GeometryFilter::Attacks { .. })
        ) || matches!(self.ir.get(lhs), Filter::Variables(VariableFilter::Var(v)) if matches!(self.ir.vars.get(v.0 as usize).map(|i| i.kind), Some(VarKind::Square | VarKind::Piece)))
        {
            self.error_hint(
                "`:` needs a position on its left",
                colon,
                Some("write e.g. `parent:check` or `child(1):mate`".into()),
            );
            return Err(());
        }
        self.bump();
        let body = self.parse_expr(BP_POSTFIX)?;
        let sp = Self::join(lspan, self.ir.span(body));
        Ok(self.add(Filter::GameTree(GameTreeFilter::AtPosition { at: lhs, body }), sp))
    }

    /// An attack arrow and what follows it: `lhs → x`, or a chain of arrows of one
    /// direction (`♖→♞→♚`), which CQL reads as an x-ray along one line, not as nested
    /// attacks.
    fn attack_chain(&mut self, lhs: FilterId, arrow: Sym) -> PResult<FilterId> {
        self.bump();
        let mut operands = vec![lhs, self.arrow_operand()?];
        while self.eat_sym(arrow) {
            operands.push(self.arrow_operand()?);
        }
        let other = if arrow == Sym::AttackRight { Sym::AttackLeft } else { Sym::AttackRight };
        if self.at_sym(other) {
            // CQL 6.2 ends the chain here and cannot go on (`A → P ← P`).
            let at = self.peek().span;
            self.error_hint(
                "attack arrows of both directions in one chain",
                at,
                Some("a chain runs one way (`♖→♞→♚`); put one part in parentheses".into()),
            );
            return Err(());
        }
        let left = arrow == Sym::AttackLeft;
        Ok(if operands.len() == 2 {
            self.attack(left, operands[0], operands[1])
        } else {
            let first = operands[0];
            let last = operands[operands.len() - 1];
            let sp = Self::join(self.ir.span(first), self.ir.span(last));
            if left {
                operands.reverse();
            }
            self.add(Filter::Geometry(GeometryFilter::AttackChain { sets: operands, value_is_last: left }), sp)
        })
    }

    /// A chain of comparisons after `lhs` (`a < b <= c`).
    fn comparison_chain(&mut self, lhs: FilterId, lspan: Span) -> PResult<FilterId> {
        let mut rest = Vec::new();
        let mut sp = lspan;
        let mut unequal_inside = None;
        while let Tok::Sym(s) = self.peek().tok {
            let Some(op) = cmp_op(s) else { break };
            let op_token = self.bump();
            if op == CmpOp::Ne && !rest.is_empty() && unequal_inside.is_none() {
                unequal_inside = Some(op_token.span);
            }
            let rhs = self.parse_expr(BP_CMP + 1)?;
            sp = Self::join(sp, self.ir.span(rhs));
            rest.push((op, rhs));
        }
        // CQL 6.2 reads a chain from the right (`Tokens::match_in_x`): `a < b < c`
        // is `a < (b < c)`, whose value is b. A `!=` is a `not` around `==`
        // (`make_relational_op_node`), which has no value: after the first
        // operand it leaves nothing for the comparison before it, and as the
        // first operator it denies the whole chain (`a != b < c` is
        // `not (a == b < c)`).
        if let (Some(at), true) = (unequal_inside, rest.len() > 1) {
            self.error_hint(
                "CQL 6.2 reads a chain from the right, and `!=` there leaves no value to compare",
                at,
                Some("write the comparisons apart, e.g. `a < b  b != c`".to_string()),
            );
            return Err(());
        }
        if rest.len() > 1 && rest[0].0 == CmpOp::Ne {
            rest[0].0 = CmpOp::Eq;
            let chain = self.add(Filter::Numbers(NumberFilter::Compare { first: lhs, rest }), sp);
            Ok(self.add(Filter::Logic(LogicFilter::Not(chain)), sp))
        } else {
            Ok(self.add(Filter::Numbers(NumberFilter::Compare { first: lhs, rest }), sp))
        }
    }

    pub(super) fn attack(&mut self, left: bool, lhs: FilterId, rhs: FilterId) -> FilterId {
        let sp = Self::join(self.ir.span(lhs), self.ir.span(rhs));
        let f = if left {
            Filter::Geometry(GeometryFilter::Attacks { attackers: rhs, targets: lhs, value_is_targets: true })
        } else {
            Filter::Geometry(GeometryFilter::Attacks { attackers: lhs, targets: rhs, value_is_targets: false })
        };
        self.add(f, sp)
    }

    pub(super) fn nary(&mut self, first: FilterId, sym: Sym, bp: u8) -> PResult<FilterId> {
        let mut items = vec![first];
        while self.eat_sym(sym) {
            items.push(self.parse_expr(bp + 1)?);
        }
        let sp = Self::join(self.ir.span(first), self.ir.span(*items.last().unwrap_or(&first)));
        Ok(self.add(
            if sym == Sym::Inter {
                Filter::Sets(SetFilter::Intersection(items))
            } else {
                Filter::Sets(SetFilter::Union(items))
            },
            sp,
        ))
    }

    /// The operand on the right of an arrow (`→`/`←`): a `∪`/`∩` expression, so that CQL 6.2
    /// reads `T→(▦←♚)∪♚` as `T→((▦←♚)∪♚)` (the target set is the whole union), while a
    /// further arrow of the same direction continues the chain (`♖→♞→♚`).
    pub(super) fn arrow_operand(&mut self) -> PResult<FilterId> {
        self.parse_expr(BP_ATTACK + 1)
    }

    pub(super) fn nary_word(&mut self, first: FilterId, word: &str, bp: u8) -> PResult<FilterId> {
        let mut items = vec![first];
        while self.eat_word(word) {
            items.push(self.parse_expr(bp + 1)?);
        }
        let sp = Self::join(self.ir.span(first), self.ir.span(*items.last().unwrap_or(&first)));
        let id = self.add(
            if word == "and" { Filter::Logic(LogicFilter::And(items)) } else { Filter::Logic(LogicFilter::Or(items)) },
            sp,
        );
        self.kinds.note(id, super::super::types::Kind::Logical);
        Ok(id)
    }

    /// A block `{ … }`: juxtaposed filters; an empty block is `true`. With `one_filter`
    /// (an expression in parentheses, a `while` condition) it must hold exactly one filter,
    /// as in CQL 6.2; a move's target list in parentheses may hold several.
    pub(super) fn parse_block(&mut self, close: Sym, one_filter: bool) -> PResult<FilterId> {
        let open = self.bump();
        if close == Sym::RBrace {
            if let Some(d) = super::super::types::brace_repetition_at(self.src, open.span) {
                self.diags.push(d);
                return Err(());
            }
        }
        let saved = std::mem::replace(&mut self.in_sequence, false);
        let saved_top = std::mem::replace(&mut self.path_top, false);
        let mut items = Vec::new();
        // After an error inside the block, the rest of it is still read (its own errors
        // are reported too) up to the closing brace, which is taken, so that the brace
        // is not reported a second time as unexpected.
        let mut failed = false;
        let result = loop {
            if self.eat_sym(close) {
                break if failed { Err(()) } else { Ok(()) };
            }
            if failed && (self.at_eof() || self.closes_here() || self.fatal || self.diags.len() >= MAX_DIAGNOSTICS) {
                break Err(());
            }
            if self.at_eof() || self.closes_here() {
                let what = if close == Sym::RBrace { "`}`" } else { "`)`" };
                let sp = self.span_here();
                let d = self.describe_here();
                self.error_hint(
                    format!("expected {what}, found {d}"),
                    sp,
                    Some({
                        let (line, col) = crate::diag::line_col(self.src, open.span.start as usize);
                        format!("the block opened at line {line}, column {col} is not closed")
                    }),
                );
                break Err(());
            }
            let before = self.pos;
            match self.parse_unit() {
                Ok(Some(f)) => items.push(f),
                Ok(None) => {}
                Err(()) => {
                    failed = true;
                    if self.pos == before && !self.at_eof() && !self.at_sym(close) {
                        self.bump();
                    }
                }
            }
        };
        self.in_sequence = saved;
        self.path_top = saved_top;
        result?;
        let sp = Self::join(open.span, self.toks[self.pos.saturating_sub(1)].span);
        if items.is_empty() && close == Sym::RBrace {
            // CQL 6.2 wants a filter after `{` ("syntax error following a '{'").
            self.error_hint(
                "empty braces: `{` must hold a filter",
                sp,
                Some("write `true` for a filter that always matches".to_string()),
            );
            return Err(());
        }
        if one_filter && items.len() != 1 {
            // CQL 6.2 reads one whole filter after `(` and then wants the `)`
            // (`match_parens` in its node-parse.cpp); several filters need braces.
            let (msg, hint) = if items.is_empty() {
                ("empty parentheses: `(` must hold a filter", "write the filter inside, or leave the parentheses out")
            } else {
                (
                    "parentheses hold exactly one filter",
                    "use braces `{ … }` to group several filters (all of them must match)",
                )
            };
            let at = if items.len() > 1 { self.ir.span(items[1]) } else { sp };
            self.error_hint(msg, at, Some(hint.to_string()));
            return Err(());
        }
        Ok(match items.len() {
            0 => self.add(Filter::True, sp),
            1 => items[0],
            _ => self.add(Filter::Logic(LogicFilter::And(items)), sp),
        })
    }

    pub(super) fn pieces(&mut self, mask: PieceMask, squares: Option<Bitboard>, span: Span) -> FilterId {
        self.add(Filter::Sets(SetFilter::Pieces { mask, squares: squares.unwrap_or(Bitboard::FULL) }), span)
    }

    pub(super) fn parse_prefix(&mut self) -> PResult<FilterId> {
        let mark = self.tree.mark(self.pos);
        let kind = self.kind_of_construct_here();
        let r = self.parse_prefix_unrecorded();
        match r {
            Ok(_) => self.tree.close(mark, self.pos, kind),
            Err(()) => self.tree.discard(mark),
        }
        r
    }

    /// What kind of construct begins at the current token, for the syntax tree: a word is
    /// told apart as [`Parser::parse_word`] does (a function, a dictionary, an assignment,
    /// an iteration, a keyword, else a variable).
    fn kind_of_construct_here(&self) -> NodeKind {
        let Tok::Word(w) = &self.peek().tok else { return kind_of_start(&self.peek().tok) };
        let next = &self.peek_at(1).tok;
        let keyword = KEYWORDS.binary_search(&w.as_str()).is_ok();
        if self.functions.contains_key(w) {
            NodeKind::FunctionCall { name: w.clone() }
        } else if self.dictionary(w).is_some() {
            NodeKind::DictionaryUse { name: w.clone() }
        } else if is_assign(next) && !keyword {
            NodeKind::Assignment { name: w.clone() }
        } else if is_element(next) && !keyword {
            NodeKind::Iteration
        } else if let Some((family, _)) = FAMILY_WORDS.iter().find(|(_, words)| words.contains(&w.as_str())) {
            NodeKind::Keyword { word: w.clone(), family }
        } else {
            NodeKind::Variable { name: w.clone() }
        }
    }

    fn parse_prefix_unrecorded(&mut self) -> PResult<FilterId> {
        let t = self.peek().clone();
        let sp = t.span;
        match &t.tok {
            Tok::Number(n) => {
                self.bump();
                Ok(self.add(Filter::Numbers(NumberFilter::Number(*n)), sp))
            }
            Tok::Str(s) => {
                self.bump();
                Ok(self.add(Filter::Numbers(NumberFilter::Str(s.clone())), sp))
            }
            Tok::RegexGroup(g) => {
                self.bump();
                Ok(self.add(Filter::Numbers(NumberFilter::RegexGroup(*g)), sp))
            }
            Tok::RegexGroupStart(g) => {
                self.bump();
                Ok(self.add(Filter::Numbers(NumberFilter::RegexGroupStart(*g)), sp))
            }
            Tok::Squares(bb) => {
                self.bump();
                Ok(self.add(Filter::Sets(SetFilter::Squares(*bb)), sp))
            }
            Tok::FileOnly => {
                self.bump();
                self.error_hint("a square range needs ranks as well as files", sp, Some("write e.g. `c-f1-8`".into()));
                Err(())
            }
            Tok::ResultLit(_) => {
                self.bump();
                self.error("a game result can only follow `result`", sp);
                Err(())
            }
            // `o-o` / `o-o-o` standing alone: the move that led here was that castling (CQL 6.2
            // `match_pastmovenode`); inside `move` they describe the move tested instead.
            Tok::Castle(king) => {
                self.bump();
                let kind = if *king { MoveKind::CastleKingside } else { MoveKind::CastleQueenside };
                Ok(self.move_node(MoveFilter { kind, ..Self::previous_move() }, sp))
            }
            Tok::Pieces { mask, squares } => {
                self.bump();
                // `◭y∊Z F`: piece iteration.
                if squares.is_none() && *mask == PieceMask::ANY_PIECE {
                    let next = self.peek().clone();
                    // `◭ X ∊ …` may be spaced, except where `◭` is itself a domain (`x∊◭ y∊◭`).
                    let after_element = self.pos >= 2 && is_element(&self.toks[self.pos - 2].tok);
                    {
                        if let Tok::Word(name) = &next.tok {
                            if is_element(&self.peek_at(1).tok) && (!next.space_before || !after_element) {
                                self.bump();
                                self.bump();
                                return self.parse_iteration(name.clone(), true, false, sp);
                            }
                            if !next.space_before && is_assign(&self.peek_at(1).tok) {
                                // `◭T=set`: a piece variable given a value.
                                self.bump();
                                return self.parse_piece_assign(name.clone(), sp);
                            }
                        }
                        if let Tok::Pieces { squares: None, .. } = next.tok {
                            if is_element(&self.peek_at(1).tok) {
                                self.error_hint(
                                    "a single piece letter cannot be a variable name",
                                    next.span,
                                    Some("use a longer name such as `P1`".into()),
                                );
                                return Err(());
                            }
                        }
                    }
                }
                if squares.is_none() && is_assign(&self.peek().tok) {
                    self.error_hint(
                        "a single piece letter cannot be a variable name",
                        sp,
                        Some("use a longer name".into()),
                    );
                    return Err(());
                }
                Ok(self.pieces(*mask, *squares, sp))
            }
            Tok::Sym(sym) => self.parse_sym_prefix(*sym, sp),
            Tok::Word(w) => self.parse_word(w.clone(), sp),
            Tok::Eof => {
                self.error("unexpected end of input: a filter is missing", sp);
                Err(())
            }
        }
    }

    pub(super) fn parse_sym_prefix(&mut self, sym: Sym, sp: Span) -> PResult<FilterId> {
        match sym {
            Sym::LBrace => self.parse_block(Sym::RBrace, false),
            Sym::LParen => self.parse_block(Sym::RParen, true),
            // `[]`: the empty set of squares (`Seen=[]`).
            Sym::LBracket if self.peek_at(1).tok == Tok::Sym(Sym::RBracket) => {
                self.bump();
                let t = self.bump();
                Ok(self.add(Filter::Sets(SetFilter::Squares(Bitboard::EMPTY)), Self::join(sp, t.span)))
            }
            Sym::Hash => {
                self.bump();
                // `#D`: the number of entries of a dictionary (`#D[k]` is the size of a value).
                if let Tok::Word(name) = &self.peek().tok {
                    if let Some(dict) = self.dictionary(name) {
                        let t = self.bump();
                        if !self.at_dict_key() {
                            return Ok(
                                self.add(Filter::Variables(VariableFilter::DictCount(dict)), Self::join(sp, t.span))
                            );
                        }
                        self.pos -= 1;
                    }
                }
                // The operand is a whole set expression up to a `――` (CQL 6.2 reads it with
                // `match_set`): `#_ attackedby K`, `#a|b`, `#R→k`.
                let a = self.parse_expr(BP_DASH)?;
                let s = Self::join(sp, self.ir.span(a));
                Ok(self.add(Filter::Sets(SetFilter::Count(a)), s))
            }
            Sym::Minus => {
                self.bump();
                if let Tok::Number(n) = self.peek().tok {
                    let t = self.bump();
                    return Ok(self.add(Filter::Numbers(NumberFilter::Number(-n)), Self::join(sp, t.span)));
                }
                let a = self.parse_expr(BP_POSTFIX)?;
                let s = Self::join(sp, self.ir.span(a));
                Ok(self.add(Filter::Numbers(NumberFilter::Neg(a)), s))
            }
            Sym::Tilde => {
                // `~` takes in `attacks`/`attackedby` but not `|`, `&` or arrows: CQL 6.2
                // reads `~K attackedby k` as `~(K attackedby k)`.
                self.bump();
                let a = self.parse_expr(BP_ATTACK_WORD)?;
                let s = Self::join(sp, self.ir.span(a));
                Ok(self.add(Filter::Sets(SetFilter::Complement(a)), s))
            }
            Sym::Dash | Sym::Capture => {
                let prev = self.pos.checked_sub(1).and_then(|i| self.toks.get(i));
                if let Some(d) = super::super::types::dash_left_tie(prev, self.peek(), self.src, self.in_sequence) {
                    self.diags.push(d);
                    return Err(());
                }
                self.parse_move_after(None)
            }
            Sym::TripleSlash => {
                // A stand-alone `///` comment: the rest of the line are its arguments.
                let t = self.bump();
                let args = self.triple_slash_items(t.line, t.span)?;
                Ok(self.add(Filter::Output(OutputFilter::Comment(args)), sp))
            }
            Sym::Current => {
                self.bump();
                Ok(self.add(Filter::GameTree(GameTreeFilter::Tree(TreeStep::Current)), sp))
            }
            Sym::FlipStar => {
                self.bump();
                self.parse_transform(TransformKind::Flip, sp)
            }
            Sym::FlipColorSquare => {
                self.bump();
                self.parse_transform(TransformKind::FlipColor, sp)
            }
            Sym::Path => {
                self.bump();
                self.parse_path(sp)
            }
            Sym::Forall => {
                self.bump();
                // ∀x∊Z F or ∀◭y∊Z F
                let t = self.bump();
                match t.tok {
                    Tok::Word(name) if is_element(&self.peek().tok) => {
                        self.bump();
                        self.parse_iteration(name, false, true, sp)
                    }
                    Tok::Pieces { mask, squares: None } if mask == PieceMask::ANY_PIECE => {
                        let n = self.bump();
                        match n.tok {
                            // CQL 6.2's lexer reads `◭x`/`[Aa]x` as a piece variable's
                            // declaration only with the name written right after the sign.
                            Tok::Word(_) if n.space_before => {
                                self.error_hint(
                                    "after `∀`, the piece variable is written right after `◭` (`[Aa]`)",
                                    n.span,
                                    Some("write `∀◭x∊S` (`[forall] [Aa]x [element] S`) without a space".into()),
                                );
                                Err(())
                            }
                            Tok::Word(name) if is_element(&self.peek().tok) => {
                                self.bump();
                                self.parse_iteration(name, true, true, sp)
                            }
                            Tok::Pieces { .. } => {
                                self.error_hint(
                                    "a single piece letter cannot be a variable name",
                                    n.span,
                                    Some("use a longer name".into()),
                                );
                                Err(())
                            }
                            _ => {
                                self.error("expected `◭name∊set` after `∀`", n.span);
                                Err(())
                            }
                        }
                    }
                    _ => {
                        self.error("expected `name∊set` after `∀`", t.span);
                        Err(())
                    }
                }
            }
            Sym::LineBackward | Sym::LineForward => {
                self.error("`-->`/`<--` must follow `line`", sp);
                self.bump();
                Err(())
            }
            _ => {
                let d = self.describe_here();
                self.bump();
                self.error(format!("unexpected {d}: a filter was expected"), sp);
                Err(())
            }
        }
    }
}

/// Is this token an infix operator binding tighter than `――` (`:`, `[…]`, `――`, arrows,
/// `∪`, `∩`, `attacks`, `attackedby`)?
pub(super) fn binds_tighter_than_dash(t: &Tok) -> bool {
    match t {
        Tok::Sym(s) => matches!(
            s,
            Sym::Colon
                | Sym::LBracket
                | Sym::Dash
                | Sym::Capture
                | Sym::AttackRight
                | Sym::AttackLeft
                | Sym::Union
                | Sym::Inter
        ),
        Tok::Word(w) => matches!(w.as_str(), "attacks" | "attack" | "attackedby" | "attacked"),
        _ => false,
    }
}

pub(super) fn cmp_op(s: Sym) -> Option<CmpOp> {
    Some(match s {
        Sym::Lt => CmpOp::Lt,
        Sym::Le => CmpOp::Le,
        Sym::EqEq => CmpOp::Eq,
        Sym::Ne => CmpOp::Ne,
        Sym::Ge => CmpOp::Ge,
        Sym::Gt => CmpOp::Gt,
        _ => return None,
    })
}
