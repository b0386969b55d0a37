//! Keywords on moves: the `move` keyword, legal and pseudo-legal moves, `from`/`to`.
//!
//! Move patterns written with arrows (`Ra1――a8`) are read in the expression parser.
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/moves.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;
use crate::ir::{LogicFilter, NumberFilter, SetFilter, VariableFilter};

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] =
    &["countmoves", "from", "legal", "move", "pseudolegal", "to", "capture", "null", "previous", "promote"];

impl Parser<'_> {
    /// A filter on moves: `move`, `legal`, `pseudolegal`, `countmoves`, `from`, `to`.
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_moves_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        match w {
            "from" | "to" => {
                // The squares of the move that led here (inside a path: the move just made).
                let value = if w == "from" { MoveValue::From } else { MoveValue::To };
                Ok(self.move_node(
                    MoveFilter { source: MoveSource::Previous, value, ..MoveFilter::any(MoveSource::Next) },
                    sp,
                ))
            }
            "legal" | "pseudolegal" => {
                let source = if w == "legal" { MoveSource::Legal } else { MoveSource::Pseudolegal };
                let m = self.parse_expr(BP_DASH)?;
                self.retarget_move(m, sp, |mv| mv.source = source)
            }
            "countmoves" => {
                let m = self.parse_expr(BP_DASH)?;
                self.retarget_move(m, sp, |mv| mv.value = MoveValue::Count)
            }
            "move" => self.parse_move_keyword(sp),
            _ => return Ok(None),
        }
        .map(Some)
    }
}

impl<'s> Parser<'s> {
    pub(super) fn move_node(&mut self, m: MoveFilter, sp: Span) -> FilterId {
        self.add(Filter::Move(Box::new(m)), sp)
    }

    /// `X――Y`, `X×Y`, `――=♖`, `――(check)` with the dash or cross at the current token.
    pub(super) fn parse_move_after(&mut self, from: Option<FilterId>) -> PResult<FilterId> {
        let op = self.bump();
        let capture = op.tok == Tok::Sym(Sym::Capture);
        let mut m = MoveFilter::any(MoveSource::Next);
        m.from = from;
        let mut sp = from.map_or(op.span, |f| Self::join(self.ir.span(f), op.span));
        let mut target = None;
        let next = self.peek().clone();
        if let Some(d) = super::super::types::dash_spaced_paren(&next, self.path_top)
            .or_else(|| super::super::types::dash_right_tie(&next))
        {
            self.diags.push(d);
            return Err(());
        }
        if !next.space_before {
            match &next.tok {
                Tok::Sym(Sym::Assign) | Tok::Sym(Sym::LParen) => {}
                // `--[Aa]=Q`: a piece target directly followed by a promotion.
                Tok::Pieces { mask, squares } if is_assign(&self.peek_at(1).tok) => {
                    let (mask, squares) = (*mask, *squares);
                    self.bump();
                    let t = self.pieces(mask, squares, next.span);
                    sp = Self::join(sp, next.span);
                    target = Some(t);
                }
                // `――{0,9}` in a path or line: a repetition count of the move, not its
                // destination.
                Tok::Sym(Sym::LBrace) if self.brace_is_repetition() => {}
                // `――and ――`: the operator, not a destination (CQL 6.2).
                Tok::Word(w) if w == "and" || w == "or" => {}
                Tok::Pieces { .. }
                | Tok::Squares(_)
                | Tok::Word(_)
                | Tok::Sym(Sym::Tilde)
                | Tok::Sym(Sym::Current)
                | Tok::Sym(Sym::LBrace) => {
                    // The destination is a whole arrow expression (`――q|b` is `――(q|b)`).
                    let t = self.parse_expr(BP_ATTACK)?;
                    sp = Self::join(sp, self.ir.span(t));
                    target = Some(t);
                }
                _ => {}
            }
        }
        if capture {
            let any = self.add(Filter::Sets(SetFilter::Squares(Bitboard::FULL)), op.span);
            m.capture = Some(target.unwrap_or(any));
        } else {
            m.to = target;
        }
        // Suffixes: `=♕` promotion, `(check)` condition after the move. A promotion right
        // after the destination of a dash written against it may stand after a space
        // (`P×[rnbq] =Q`, CQL 6.2 `match_dash_promotion` reads tokens); a dash standing
        // alone takes none (`P―― =Q` is refused there).
        let right_tied = !next.space_before;
        let mut first_suffix = true;
        loop {
            let n = self.peek().clone();
            let spaced_promotion = right_tied && first_suffix && n.tok == Tok::Sym(Sym::Assign);
            first_suffix = false;
            if n.space_before && !spaced_promotion {
                break;
            }
            if n.tok == Tok::Sym(Sym::Assign) {
                self.bump();
                let p = self.bump();
                let roles = self.promotion_roles(&mut m, &p)?;
                if roles == 0 {
                    self.error("a promotion needs a piece type", p.span);
                    return Err(());
                }
                m.promote = roles;
                sp = Self::join(sp, p.span);
                if let Some(d) = super::super::types::after_promotion(&self.peek().tok, self.peek().span, p.span) {
                    self.diags.push(d);
                    return Err(());
                }
            } else if n.tok == Tok::Sym(Sym::LParen) {
                self.bump();
                let inner = self.peek().clone();
                let special = match &inner.tok {
                    Tok::Word(w) if w == "enpassant" => Some(MoveKind::EnPassant),
                    Tok::Word(w) if w == "castle" => Some(MoveKind::Castle),
                    Tok::Word(w) if w == "null" => Some(MoveKind::Null),
                    Tok::Castle(true) => Some(MoveKind::CastleKingside),
                    Tok::Castle(false) => Some(MoveKind::CastleQueenside),
                    _ => None,
                };
                if let (Some(kind), Tok::Sym(Sym::RParen)) = (special, &self.peek_at(1).tok) {
                    self.bump();
                    let close = self.bump();
                    m.kind = kind;
                    sp = Self::join(sp, close.span);
                } else {
                    self.pos -= 1;
                    let cond = self.parse_block(Sym::RParen, self.path_top)?;
                    m.then = Some(match m.then {
                        Some(prev) => self.add(Filter::Logic(LogicFilter::And(vec![prev, cond])), sp),
                        None => cond,
                    });
                    // The value of `X――Y(F)` is the value of its target F.
                    m.value = MoveValue::Then;
                    sp = Self::join(sp, self.toks[self.pos - 1].span);
                }
            } else {
                break;
            }
        }
        // CQL 6.2 refuses a `(` after a space once the move is read (`――e4 (check)`,
        // `match_dashnode_from_prefix`), as it does right after the dash.
        if let Some(d) = super::super::types::dash_spaced_paren(&self.peek().clone(), self.path_top) {
            self.diags.push(d);
            return Err(());
        }
        let valued = m.value == MoveValue::Then;
        let id = self.move_node(m, sp);
        self.kinds.note_dash(id, from.is_some(), target.is_some());
        if !valued {
            // A bare `X――Y` (no target in parentheses) is no set in CQL 6.2.
            self.kinds.note(id, super::super::types::Kind::Logical);
        }
        Ok(id)
    }

    /// The piece types a promotion `=X` names (`p` is the token after the `=`): a piece
    /// designator, or a string or variable holding piece letters, whose test at run time
    /// is added to the move's condition (`m.then`).
    fn promotion_roles(&mut self, m: &mut MoveFilter, p: &Token) -> PResult<u8> {
        Ok(match &p.tok {
            Tok::Pieces { mask, squares: None } => promote_roles(*mask),
            Tok::Word(name)
                if self.ir.find_var(name).is_some_and(|v| {
                    matches!(
                        self.ir.vars[v.0 as usize].kind,
                        VarKind::Square | VarKind::Piece | VarKind::Position | VarKind::Dictionary { .. }
                    )
                }) =>
            {
                // CQL 6.2 takes a piece designator or a string here; a set (a
                // function parameter given `Q` holds the squares of the queen), a
                // piece or a position is none.
                // (A parameter's stand-in is named "T of F #n": show T.)
                let shown = name.split(' ').next().unwrap_or(name);
                self.error_hint(
                    format!("`{shown}` is not a piece designator or a string, so it cannot name a promotion"),
                    p.span,
                    Some("write the piece (`――=♕`, `--=Q`) or a string variable holding its letter".into()),
                );
                return Err(());
            }
            Tok::Word(name) if self.ir.find_var(name).is_some() || self.declared.contains(name) => {
                // `――=T` with T a variable holding a piece letter or type name:
                // any promotion whose new piece matches T afterwards.
                let var = self.ir.var(name, VarKind::Value);
                let v = self.add(Filter::Variables(VariableFilter::Var(var)), p.span);
                let landed = self.move_node(
                    MoveFilter { source: MoveSource::Previous, ..MoveFilter::any(MoveSource::Next) },
                    p.span,
                );
                let tname = self.add(Filter::Numbers(NumberFilter::Call(Builtin::TypeName, vec![landed])), p.span);
                let pname = self.add(Filter::Numbers(NumberFilter::Call(Builtin::PieceName, vec![landed])), p.span);
                let upper = self.add(Filter::Numbers(NumberFilter::Call(Builtin::Uppercase, vec![pname])), p.span);
                let by_type = self
                    .add(Filter::Numbers(NumberFilter::Compare { first: tname, rest: vec![(CmpOp::Eq, v)] }), p.span);
                let by_letter = self
                    .add(Filter::Numbers(NumberFilter::Compare { first: upper, rest: vec![(CmpOp::Eq, v)] }), p.span);
                let cond = self.add(Filter::Logic(LogicFilter::Or(vec![by_type, by_letter])), p.span);
                m.then = Some(match m.then {
                    Some(prev) => self.add(Filter::Logic(LogicFilter::And(vec![prev, cond])), p.span),
                    None => cond,
                });
                promote_roles(PieceMask::WHITE)
            }
            Tok::Str(s) => {
                let roles = promote_roles_of_text(s);
                if roles == 0 {
                    // No piece letter in the text: no promotion matches it.
                    let never = self.add(Filter::False, p.span);
                    m.then = Some(match m.then {
                        Some(prev) => self.add(Filter::Logic(LogicFilter::And(vec![prev, never])), p.span),
                        None => never,
                    });
                    promote_roles(PieceMask::WHITE)
                } else {
                    roles
                }
            }
            _ => {
                self.error_hint(
                    "expected a piece after `=` in a promotion",
                    p.span,
                    Some("write e.g. `――=♕` or `--=Q`".into()),
                );
                return Err(());
            }
        })
    }

    /// Rewrite the move filter `m` (possibly inside an `And`) with `change`.
    pub(super) fn retarget_move(
        &mut self,
        m: FilterId,
        sp: Span,
        change: impl Fn(&mut MoveFilter),
    ) -> PResult<FilterId> {
        match self.ir.get(m).clone() {
            Filter::Move(mut mv) => {
                change(&mut mv);
                let s = Self::join(sp, self.ir.span(m));
                Ok(self.add(Filter::Move(mv), s))
            }
            _ => {
                self.error("expected a move filter such as `♔――` here", self.ir.span(m));
                Err(())
            }
        }
    }

    /// The CQL 6.0 `move` filter: `move [from X] [to Y] [capture Z] [promote R] …`.
    pub(super) fn parse_move_keyword(&mut self, sp: Span) -> PResult<FilterId> {
        // Castling is a king move only for `move` (checked on CQL 6.2: `move from R`,
        // `move to f1` and `move previous from R` do not see the rook of `O-O`).
        let mut m = MoveFilter { rook_of_castling: false, ..MoveFilter::any(MoveSource::Next) };
        let mut from_first = false;
        let mut words: Vec<String> = Vec::new();
        // Only keywords continue a `move` filter: in `move N to g5` the knight is a
        // filter of its own (the reference reads it so), not the moving piece.
        loop {
            let Tok::Word(w) = self.peek().tok.clone() else {
                if let Tok::Castle(k) = self.peek().tok {
                    self.bump();
                    m.kind = if k { MoveKind::CastleKingside } else { MoveKind::CastleQueenside };
                    continue;
                }
                break;
            };
            words.push(if w == "captures" { "capture".to_string() } else { w.clone() });
            match w.as_str() {
                // `captures` is `capture` (CQL 6.2 `match_move_capture`).
                "from" | "to" | "capture" | "captures" => {
                    self.bump();
                    let v = self.parse_expr(BP_POSTFIX)?;
                    match w.as_str() {
                        "from" => {
                            if m.to.is_none() {
                                from_first = true;
                            }
                            m.from = Some(v)
                        }
                        "to" => m.to = Some(v),
                        _ => m.capture = Some(v),
                    }
                }
                "promote" => {
                    self.bump();
                    let t = self.bump();
                    m.promote = match &t.tok {
                        Tok::Pieces { mask, .. } => promote_roles(*mask),
                        Tok::Str(s) => s.chars().filter_map(letter_mask).fold(0, |acc, m| acc | promote_roles(m)),
                        _ => {
                            self.error("expected a piece after `promote`", t.span);
                            return Err(());
                        }
                    };
                }
                "previous" => {
                    self.bump();
                    m.source = MoveSource::Previous;
                }
                "legal" => {
                    self.bump();
                    m.source = MoveSource::Legal;
                }
                "pseudolegal" => {
                    self.bump();
                    m.source = MoveSource::Pseudolegal;
                }
                "castle" => {
                    self.bump();
                    m.kind = MoveKind::Castle;
                }
                "enpassant" => {
                    self.bump();
                    m.kind = MoveKind::EnPassant;
                }
                // `move enpassantsquare S`: an en passant capture of a pawn standing on S
                // (CQL 6.2 `match_move_enpassant`).
                "enpassantsquare" => {
                    self.bump();
                    let v = self.parse_expr(BP_POSTFIX)?;
                    m.kind = MoveKind::EnPassant;
                    m.capture = Some(match m.capture {
                        Some(c) => {
                            let s = Self::join(self.ir.span(c), self.ir.span(v));
                            self.add(Filter::Sets(SetFilter::Intersection(vec![c, v])), s)
                        }
                        None => v,
                    });
                }
                "null" => {
                    self.bump();
                    m.kind = MoveKind::Null;
                }
                "primary" => {
                    self.bump();
                    m.line = LineChoice::Primary;
                }
                "secondary" => {
                    self.bump();
                    m.line = LineChoice::Secondary;
                }
                "count" => {
                    self.bump();
                    m.value = MoveValue::Count;
                }
                _ => break,
            }
        }
        if from_first && m.value == MoveValue::To {
            m.value = MoveValue::From;
        }
        // CQL 6.2 `match_movebase`: a `comment(…)` right after the parameters of a move of
        // the game belongs to the move, written (its arguments read) in the position the
        // move reaches (`MoveBase::match_move`); not after `legal`/`pseudolegal`.
        if matches!(m.source, MoveSource::Next | MoveSource::Previous) && self.at_word("comment") {
            let word = self.bump();
            if let Some(comment) = self.parse_output_word("comment", word.span)? {
                m.then = Some(match m.then {
                    Some(prev) => self.add(Filter::Logic(LogicFilter::And(vec![prev, comment])), sp),
                    None => comment,
                });
            }
        }
        if let Some(d) = super::super::types::move_keywords(&words, sp) {
            self.diags.push(d);
            return Err(());
        }
        let id = self.move_node(m, sp);
        self.kinds.note(id, super::super::types::move_keyword_kind(&words));
        Ok(id)
    }
}
