//! Move keywords: the next move (`:movefrom`, `:moveto`, `:promote`, `:enpassant`), the
//! facts of the position after it (`:ischeck`, `:ismate`, `:iscastling`, `:isnull`,
//! `:forced`, `:isillegal`, `:isinvalid`), and `:line`.
//!
//! Takes in: one keyword and the cursor after it. Gives out: parts of the list's one
//! next-move filter (merged into a single `Move` when the list is finished), or a test of
//! the next position (`AtPosition` at the first child).
//! Must never: panic on any script; every problem is a [`Diagnostic`] naming the keyword.

use crate::ir::{GameTreeFilter, LogicFilter, PositionStateFilter, SetFilter};
use shakmaty::{Bitboard, Color, Role};

use super::{err, Cursor, ListState, Lowerer};
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::{Filter, FilterId, LegacyFact, LineParams, MoveFilter, MoveKind, MoveSource, PieceMask};
use crate::lang::legacy::designator::{parse_designator, starts_range, PieceKinds, Range};
use crate::lang::legacy::syntax::Item;

impl Lowerer {
    /// `:movefrom D`: the next move's piece and origin.
    pub(super) fn move_from(
        &mut self,
        kw: &str,
        _span: Span,
        c: &mut Cursor,
        st: &mut ListState,
        _top_level: bool,
    ) -> Result<(), Diagnostic> {
        let (d, ds) = c.designator(kw)?;
        let set = self.designator(&d, ds)?;
        st.move_from.push(set);
        st.mark_move();
        Ok(())
    }

    /// `:moveto D`: the destination's content before the move.
    pub(super) fn move_to(
        &mut self,
        kw: &str,
        _span: Span,
        c: &mut Cursor,
        st: &mut ListState,
        _top_level: bool,
    ) -> Result<(), Diagnostic> {
        let (d, ds) = c.designator(kw)?;
        let set = self.designator(&d, ds)?;
        st.move_to.push(set);
        st.mark_move();
        Ok(())
    }

    /// `:promote D`: the next move promotes to a type in D (of D's colour when D names one
    /// colour only, on D's squares when it names some).
    pub(super) fn promote(
        &mut self,
        kw: &str,
        _span: Span,
        c: &mut Cursor,
        st: &mut ListState,
        _top_level: bool,
    ) -> Result<(), Diagnostic> {
        let (d, ds) = c.designator(kw)?;
        let mask = match d.kinds {
            PieceKinds::Mask(m) => m,
            PieceKinds::Tag(_) => {
                return Err(err("`:promote` needs piece types, not a tag", ds).with_hint("write e.g. `:promote [Qq]`"))
            }
        };
        let mut roles = 0u8;
        for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
            if mask.contains_piece(Color::White, role) || mask.contains_piece(Color::Black, role) {
                roles |= 1 << (role as u8);
            }
        }
        if roles == 0 {
            return Err(err("`:promote` needs a piece a pawn can promote to", ds)
                .with_hint("use Q, R, B, N (white) or q, r, b, n (black)"));
        }
        let white = mask.0 & PieceMask::WHITE.0 != 0;
        let black = mask.0 & PieceMask::BLACK.0 != 0;
        if white != black {
            let color = if white { Color::White } else { Color::Black };
            let pawn = self.add(
                Filter::Sets(SetFilter::Pieces { mask: PieceMask::piece(color, Role::Pawn), squares: Bitboard::FULL }),
                ds,
            );
            st.move_from.push(pawn);
        }
        if d.squares != u64::MAX {
            let sq = self.add(Filter::Sets(SetFilter::Squares(Bitboard(d.squares))), ds);
            st.move_to.push(sq);
        }
        st.promote |= roles;
        st.mark_move();
        Ok(())
    }

    /// `:enpassant`: the next move is an en-passant capture.
    pub(super) fn en_passant(
        &mut self,
        _kw: &str,
        _span: Span,
        _c: &mut Cursor,
        st: &mut ListState,
        _top_level: bool,
    ) -> Result<(), Diagnostic> {
        st.move_kind = MoveKind::EnPassant;
        st.mark_move();
        Ok(())
    }

    /// `:noenpassant`: the next move is not an en-passant capture.
    pub(super) fn no_en_passant(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let mut inner = ListState::new();
        inner.move_kind = MoveKind::EnPassant;
        inner.mark_move();
        let m = self.finish(inner, span)?;
        Ok(self.add(Filter::Logic(LogicFilter::Not(m)), span))
    }

    /// The list's one next-move filter, from its move keywords.
    pub(super) fn move_filter(&mut self, st: &ListState, span: Span) -> FilterId {
        let combine = |me: &mut Lowerer, sets: &[FilterId]| match sets.len() {
            0 => None,
            1 => Some(sets[0]),
            _ => Some(me.add(Filter::Sets(SetFilter::Intersection(sets.to_vec())), span)),
        };
        let from = combine(self, &st.move_from);
        let to = combine(self, &st.move_to);
        self.add(
            Filter::Move(Box::new(MoveFilter {
                from,
                to,
                promote: st.promote,
                kind: st.move_kind,
                ..MoveFilter::any(MoveSource::Next)
            })),
            span,
        )
    }

    /// `f` holds at the position after the next move.
    fn next_position(&mut self, f: FilterId, span: Span) -> FilterId {
        let zero = self.number(0, span);
        let child = self.add(Filter::GameTree(GameTreeFilter::Child(zero)), span);
        self.add(Filter::GameTree(GameTreeFilter::AtPosition { at: child, body: f }), span)
    }

    /// `:ischeck [r]`, `:isdoublecheck`, `:ismate`, `:iscontactcheck`: the next move gives
    /// check (the side's r-th one), double check, mate, a contact check.
    pub(super) fn next_move_check(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let after = match kw {
            ":ischeck" => self.add(Filter::PositionState(PositionStateFilter::Check), span),
            ":ismate" => self.add(Filter::PositionState(PositionStateFilter::Mate), span),
            ":isdoublecheck" => self.double_check(span),
            _ => self.contact_check(None, span),
        };
        let next = self.next_position(after, span);
        if kw != ":ischeck" || !c.peek().and_then(Item::atom).is_some_and(starts_range) {
            return Ok(next);
        }
        // The number of checks the side to move has given, this one included.
        let (r, rs) = c.range(kw)?;
        let mut alternatives = Vec::new();
        for color in [Color::White, Color::Black] {
            let tm = self.add(Filter::PositionState(PositionStateFilter::ToMove(color)), span);
            let given = self.add(Filter::LegacyFact(LegacyFact::ChecksGiven(color)), span);
            let counted = self.compare(given, r, rs);
            let later = self.next_position(counted, span);
            alternatives.push(self.add(Filter::Logic(LogicFilter::And(vec![tm, later])), span));
        }
        let count = self.add(Filter::Logic(LogicFilter::Or(alternatives)), span);
        Ok(self.add(Filter::Logic(LogicFilter::And(vec![next, count])), span))
    }

    /// `:iscastling [D]`: the next move castles (on the sides named by K, Q, k, q in D).
    pub(super) fn is_castling(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let mut kinds = Vec::new();
        if let Some(t) = c.peek().and_then(Item::atom) {
            if !t.starts_with(':') && !t.starts_with('!') && parse_designator(t).is_ok() {
                let (d, ds) = c.designator(kw)?;
                let PieceKinds::Mask(m) = d.kinds else {
                    return Err(err("`:iscastling` takes K, Q, k or q", ds));
                };
                for (color, role, kind) in [
                    (Color::White, Role::King, MoveKind::CastleKingside),
                    (Color::White, Role::Queen, MoveKind::CastleQueenside),
                    (Color::Black, Role::King, MoveKind::CastleKingside),
                    (Color::Black, Role::Queen, MoveKind::CastleQueenside),
                ] {
                    if m.contains_piece(color, role) {
                        kinds.push((Some(color), kind));
                    }
                }
                if kinds.is_empty() {
                    return Err(err("`:iscastling` takes K, Q, k or q", ds));
                }
            }
        }
        if kinds.is_empty() {
            kinds.push((None, MoveKind::Castle));
        }
        let mut alternatives = Vec::new();
        for (color, kind) in kinds {
            let m = self.add(Filter::Move(Box::new(MoveFilter { kind, ..MoveFilter::any(MoveSource::Next) })), span);
            alternatives.push(match color {
                None => m,
                Some(col) => {
                    let tm = self.add(Filter::PositionState(PositionStateFilter::ToMove(col)), span);
                    self.add(Filter::Logic(LogicFilter::And(vec![tm, m])), span)
                }
            });
        }
        Ok(self.any_of(alternatives, span))
    }

    /// `:isnull`: the next move is a null move.
    pub(super) fn is_null(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        Ok(self.add(
            Filter::Move(Box::new(MoveFilter { kind: MoveKind::Null, ..MoveFilter::any(MoveSource::Next) })),
            span,
        ))
    }

    /// `:forced`: the next move is the only legal one.
    pub(super) fn forced(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let legal = self.add(
            Filter::Move(Box::new(MoveFilter {
                value: crate::ir::MoveValue::Count,
                ..MoveFilter::any(MoveSource::Legal)
            })),
            span,
        );
        let only = self.compare(legal, Range::Between(1, 1), span);
        let next = self.add(Filter::Move(Box::new(MoveFilter::any(MoveSource::Next))), span);
        Ok(self.add(Filter::Logic(LogicFilter::And(vec![only, next])), span))
    }

    /// `:isillegal`: the next move leads into a position that breaks the rules of chess.
    pub(super) fn is_illegal(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let breaks = self.add(Filter::LegacyFact(LegacyFact::BreaksSetupRules), span);
        Ok(self.next_position(breaks, span))
    }

    /// `:isinvalid`: the next move leaves the mover's own king attacked.
    pub(super) fn is_invalid(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let left = self.add(Filter::LegacyFact(LegacyFact::KingLeftInCheck), span);
        Ok(self.next_position(left, span))
    }

    /// `:line "1.e2-e4 e7-e5 2.Ng1-f3"`: the moves are played from here on, in this order.
    pub(super) fn line(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (text, ts) = c.atom(kw, "a line of moves in double quotes")?;
        let hint = "write moves in long algebraic notation, e.g. `\"1.e2-e4 e7-e5 2.Ng1-f3\"`";
        let mut steps: Vec<Vec<FilterId>> = vec![Vec::new()];
        for word in text.split_whitespace() {
            if word == "e.p." {
                continue;
            }
            if word == "*" {
                return Err(err("the transposition-invariant `:line` (ending in `*`) is not supported", ts)
                    .with_hint("drop the `*` to search the moves in the order written"));
            }
            // Optional move number: `12.` (White) or `12...` (Black).
            let (number, mv) = match word.find('.') {
                Some(i) if word[..i].bytes().all(|b| b.is_ascii_digit()) && i > 0 => {
                    let rest = word[i..].trim_start_matches('.');
                    let black = word[i..].starts_with("...");
                    (Some((word[..i].parse::<i64>().unwrap_or(0), black)), rest)
                }
                _ => (None, word),
            };
            if mv.is_empty() {
                continue;
            }
            let here = steps.last_mut().expect("a step");
            if let Some((n, black)) = number {
                let num = self.add(Filter::PositionState(PositionStateFilter::MoveNumber), ts);
                here.push(self.compare(num, Range::Between(n, n), ts));
                if black {
                    here.push(self.add(Filter::PositionState(PositionStateFilter::ToMove(Color::Black)), ts));
                }
            }
            let (body, suffix) = match mv.find(['+', '#']) {
                Some(i) => (&mv[..i], &mv[i..]),
                None => (mv, ""),
            };
            let m = self.line_move(body, ts).map_err(|e| e.with_hint(hint))?;
            let here = steps.last_mut().expect("a step");
            here.push(m);
            let mut next = Vec::new();
            if suffix.starts_with('#') {
                next.push(self.add(Filter::PositionState(PositionStateFilter::Mate), ts));
            } else if suffix.starts_with('+') {
                next.push(self.add(Filter::PositionState(PositionStateFilter::Check), ts));
            }
            steps.push(next);
        }
        if steps.len() < 2 {
            return Err(err(format!("`{kw}` needs at least one move"), ts).with_hint(hint));
        }
        let mut seq = Vec::new();
        let last = steps.len() - 1;
        for (i, parts) in steps.into_iter().enumerate() {
            if i == last && parts.is_empty() {
                break;
            }
            seq.push(self.and(parts, ts));
        }
        let body = self.add(Filter::GameTree(GameTreeFilter::SeqConcat(seq)), ts);
        Ok(self.add(Filter::GameTree(GameTreeFilter::Line { params: LineParams::default(), body }), span))
    }

    /// One long-algebraic move of `:line`: `[piece]from(-|x)to[=promotion]`, where from
    /// and to may be square designators (`Nb1-[ac]3`); no letter means a pawn.
    fn line_move(&mut self, text: &str, span: Span) -> Result<FilterId, Diagnostic> {
        let sep = text.find(['-', 'x']).ok_or_else(|| err(format!("`{text}` is not a move"), span))?;
        let (left, right) = (&text[..sep], &text[sep + 1..]);
        let capture = text.as_bytes()[sep] == b'x';
        let role_mask = |c: char| -> Option<PieceMask> {
            let role = Role::from_char(c.to_ascii_lowercase())?;
            if !c.is_ascii_uppercase() {
                return None;
            }
            Some(PieceMask::piece(Color::White, role).with(PieceMask::piece(Color::Black, role)))
        };
        let pawns = PieceMask::piece(Color::White, Role::Pawn).with(PieceMask::piece(Color::Black, Role::Pawn));
        let (mask, from_sq) = match left.chars().next() {
            Some(ch) if role_mask(ch).is_some() && ch != 'P' || ch == 'P' => {
                (role_mask(ch).unwrap_or(pawns), &left[1..])
            }
            _ => (pawns, left),
        };
        let (to_text, promo) = match right.split_once('=') {
            Some((t, p)) => (t, Some(p)),
            None => (right, None),
        };
        let to_sq = to_text.trim_start_matches(|ch: char| ch.is_ascii_uppercase());
        let squares = |t: &str| -> Result<u64, Diagnostic> {
            parse_designator(&format!("?{t}"))
                .map(|d| d.squares)
                .map_err(|_| err(format!("`{t}` in `{text}` is not a square"), span))
        };
        let from = self.add(Filter::Sets(SetFilter::Pieces { mask, squares: Bitboard(squares(from_sq)?) }), span);
        let to_bb = Bitboard(squares(to_sq)?);
        let to_mask = if capture { PieceMask::ANY_PIECE } else { PieceMask::EMPTY };
        let to = self.add(Filter::Sets(SetFilter::Pieces { mask: to_mask, squares: to_bb }), span);
        let mut promote = 0u8;
        if let Some(p) = promo {
            let role = p.chars().next().and_then(|ch| Role::from_char(ch.to_ascii_lowercase()));
            match role {
                Some(r) if r != Role::Pawn && r != Role::King => promote |= 1 << (r as u8),
                _ => return Err(err(format!("`{p}` is not a promotion piece in `{text}`"), span)),
            }
        }
        let kind = if text.contains("e.p.") { MoveKind::EnPassant } else { MoveKind::Any };
        let to = if capture && kind == MoveKind::Any && to_bb.count() > 0 {
            to
        } else if capture {
            self.add(Filter::Sets(SetFilter::Squares(to_bb)), span)
        } else {
            to
        };
        Ok(self.add(
            Filter::Move(Box::new(MoveFilter {
                from: Some(from),
                to: Some(to),
                promote,
                kind,
                ..MoveFilter::any(MoveSource::Next)
            })),
            span,
        ))
    }
}
