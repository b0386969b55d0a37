//! Position facts: check, mate and stalemate, the side to move, the move number, castling
//! rights, the halfmove clock, repetitions, check counts, contact checks, the opposition,
//! material that cannot win, the manual's endgame, `:fen`, and the Antichess keywords.
//!
//! Takes in: one keyword and the cursor after it. Gives out: one test of the position,
//! built from the shared filters, and [`LegacyFact`] leaves where no shared filter can say it.
//! Must never: panic on any script; every problem is a [`Diagnostic`] naming the keyword.

use crate::ir::{GeometryFilter, LogicFilter, PositionStateFilter, SetFilter};
use shakmaty::{Bitboard, Color, Role};

use super::{err, Cursor, Lowerer};
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::{CmpOp, Directions, Filter, FilterId, LegacyFact, PieceMask};
use crate::lang::legacy::designator::{parse_designator, PieceKinds, Range};
use crate::lang::legacy::syntax::Item;

impl Lowerer {
    /// `:check`: the side to move is in check.
    pub(super) fn check(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        Ok(self.add(Filter::PositionState(PositionStateFilter::Check), span))
    }

    /// `:mate`: the side to move is mated.
    pub(super) fn mate(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        Ok(self.add(Filter::PositionState(PositionStateFilter::Mate), span))
    }

    /// `:stalemate`, `:isstalemate`: the side to move is stalemated.
    pub(super) fn stalemate(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        Ok(self.add(Filter::PositionState(PositionStateFilter::Stalemate), span))
    }

    /// `:wtm`, `:btm`: White (Black) is to move.
    pub(super) fn side_to_move(&mut self, kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let color = if kw == ":wtm" { Color::White } else { Color::Black };
        Ok(self.add(Filter::PositionState(PositionStateFilter::ToMove(color)), span))
    }

    /// `:initial`: the start position of the game.
    pub(super) fn initial(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        Ok(self.add(Filter::PositionState(PositionStateFilter::Initial), span))
    }

    /// `:terminal`: no further move.
    pub(super) fn terminal(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        Ok(self.add(Filter::PositionState(PositionStateFilter::Terminal), span))
    }

    /// `:nocheck`: the side to move is not in check.
    pub(super) fn no_check(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let ch = self.add(Filter::PositionState(PositionStateFilter::Check), span);
        Ok(self.add(Filter::Logic(LogicFilter::Not(ch)), span))
    }

    /// `:doublecheck`: the side to move is attacked by two pieces or more.
    pub(super) fn double_check_keyword(
        &mut self,
        _kw: &str,
        span: Span,
        _c: &mut Cursor,
    ) -> Result<FilterId, Diagnostic> {
        Ok(self.double_check(span))
    }

    /// The side to move is attacked by two pieces or more.
    pub(super) fn double_check(&mut self, span: Span) -> FilterId {
        let mut alternatives = Vec::new();
        for color in [Color::White, Color::Black] {
            let tm = self.add(Filter::PositionState(PositionStateFilter::ToMove(color)), span);
            let king = self.add(
                Filter::Sets(SetFilter::Pieces { mask: PieceMask::piece(color, Role::King), squares: Bitboard::FULL }),
                span,
            );
            let enemy_mask = if color.is_white() { PieceMask::BLACK } else { PieceMask::WHITE };
            let enemies = self.add(Filter::Sets(SetFilter::Pieces { mask: enemy_mask, squares: Bitboard::FULL }), span);
            let checkers = self.add(
                Filter::Geometry(GeometryFilter::Attacks {
                    attackers: enemies,
                    targets: king,
                    value_is_targets: false,
                }),
                span,
            );
            let n = self.add(Filter::Sets(SetFilter::Count(checkers)), span);
            let two = self.compare(n, Range::Compare(CmpOp::Ge, 2), span);
            alternatives.push(self.add(Filter::Logic(LogicFilter::And(vec![tm, two])), span));
        }
        self.add(Filter::Logic(LogicFilter::Or(alternatives)), span)
    }

    /// `:movenumber r`, `:halfmovenumber r`: the move number / the ply.
    pub(super) fn move_number(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let v = self.add(
            if kw == ":movenumber" {
                Filter::PositionState(PositionStateFilter::MoveNumber)
            } else {
                Filter::PositionState(PositionStateFilter::Ply)
            },
            span,
        );
        let (r, rs) = c.range(kw)?;
        Ok(self.compare(v, r, rs))
    }

    /// `:castling D`: of the castling rights K, Q, k, q named in D the position has
    /// exactly one (as the manual's `[KQ]` example says).
    pub(super) fn castling(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (d, ds) = c.designator(kw)?;
        let PieceKinds::Mask(m) = d.kinds else {
            return Err(err("`:castling` needs K, Q, k or q", ds));
        };
        let mut rights = 0u8;
        for (bit, color, role) in [
            (1, Color::White, Role::King),
            (2, Color::White, Role::Queen),
            (4, Color::Black, Role::King),
            (8, Color::Black, Role::Queen),
        ] {
            if m.contains_piece(color, role) {
                rights |= bit;
            }
        }
        if rights == 0 {
            return Err(err("`:castling` needs K, Q, k or q", ds)
                .with_hint("K/Q: White may castle king/queen side; k/q: Black"));
        }
        let n = self.add(Filter::LegacyFact(LegacyFact::CastlingRights(rights)), span);
        Ok(self.compare(n, Range::Between(1, 1), span))
    }

    /// `:halfmoveclock r`: plies since the last capture or pawn move.
    pub(super) fn halfmove_clock(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (r, rs) = c.range(kw)?;
        let v = self.add(Filter::LegacyFact(LegacyFact::HalfmoveClock), span);
        Ok(self.compare(v, r, rs))
    }

    /// `:threefoldrepetition`, `:fivefoldrepetition`: a main-line position on the board
    /// for the third (fifth) time.
    pub(super) fn repetition(&mut self, kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let n = if kw == ":threefoldrepetition" { 3 } else { 5 };
        let main = self.add(Filter::PositionState(PositionStateFilter::Mainline), span);
        let v = self.add(Filter::LegacyFact(LegacyFact::RepetitionCount), span);
        let t = self.compare(v, Range::Between(n, n), span);
        Ok(self.add(Filter::Logic(LogicFilter::And(vec![main, t])), span))
    }

    /// `:checkcount n` (the last move gave its side's n-th check) or `:checkcount +n+m`
    /// (White has given n checks and Black m).
    pub(super) fn check_count(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (text, ts) = c.atom(kw, "a number or `+n+m`")?;
        if let Some(rest) = text.strip_prefix('+') {
            let (a, b) = rest.split_once('+').unwrap_or((rest, ""));
            let (Ok(w), Ok(b)) = (a.parse::<i64>(), b.parse::<i64>()) else {
                return Err(err(format!("`{text}` is not a check count"), ts)
                    .with_hint("write `n` or `+n1+n2` (checks given by White and by Black)"));
            };
            let wc = self.add(Filter::LegacyFact(LegacyFact::ChecksGiven(Color::White)), span);
            let bc = self.add(Filter::LegacyFact(LegacyFact::ChecksGiven(Color::Black)), span);
            let wt = self.compare(wc, Range::Between(w, w), span);
            let bt = self.compare(bc, Range::Between(b, b), span);
            return Ok(self.add(Filter::Logic(LogicFilter::And(vec![wt, bt])), span));
        }
        let n: i64 = text
            .parse()
            .map_err(|_| err(format!("`{text}` is not a check count"), ts).with_hint("write `n` or `+n1+n2`"))?;
        // The last move gave the n-th check of its side.
        let mut alternatives = Vec::new();
        for color in [Color::White, Color::Black] {
            let to_move = self.add(Filter::PositionState(PositionStateFilter::ToMove(color.other())), span);
            let check = self.add(Filter::PositionState(PositionStateFilter::Check), span);
            let given = self.add(Filter::LegacyFact(LegacyFact::ChecksGiven(color)), span);
            let nth = self.compare(given, Range::Between(n, n), span);
            alternatives.push(self.add(Filter::Logic(LogicFilter::And(vec![to_move, check, nth])), span));
        }
        let either = self.add(Filter::Logic(LogicFilter::Or(alternatives)), span);
        if n != 0 {
            return Ok(either);
        }
        let wc = self.add(Filter::LegacyFact(LegacyFact::ChecksGiven(Color::White)), span);
        let bc = self.add(Filter::LegacyFact(LegacyFact::ChecksGiven(Color::Black)), span);
        let w0 = self.compare(wc, Range::Between(0, 0), span);
        let b0 = self.compare(bc, Range::Between(0, 0), span);
        Ok(self.add(Filter::Logic(LogicFilter::And(vec![w0, b0])), span))
    }

    /// `:contactcheck [D]`: a contact check, given by a piece of D when D is written.
    pub(super) fn contact_check_keyword(
        &mut self,
        kw: &str,
        span: Span,
        c: &mut Cursor,
    ) -> Result<FilterId, Diagnostic> {
        let checkers = match c.peek().and_then(Item::atom) {
            Some(t) if !t.starts_with(':') && !t.starts_with('!') && parse_designator(t).is_ok() => {
                let (d, ds) = c.designator(kw)?;
                Some(self.designator(&d, ds)?)
            }
            _ => None,
        };
        Ok(self.contact_check(checkers, span))
    }

    /// A contact check: the side to move is in check from a piece next to its king or a
    /// knight (so nothing can be put between), or in double check. With `only`, a checker
    /// of that set gives it.
    pub(super) fn contact_check(&mut self, only: Option<FilterId>, span: Span) -> FilterId {
        let check = self.add(Filter::PositionState(PositionStateFilter::Check), span);
        let mut alternatives = Vec::new();
        if only.is_none() {
            alternatives.push(self.double_check(span));
        }
        for color in [Color::White, Color::Black] {
            let tm = self.add(Filter::PositionState(PositionStateFilter::ToMove(color)), span);
            let king = self.add(
                Filter::Sets(SetFilter::Pieces { mask: PieceMask::piece(color, Role::King), squares: Bitboard::FULL }),
                span,
            );
            let enemy_mask = if color.is_white() { PieceMask::BLACK } else { PieceMask::WHITE };
            let enemies = self.add(Filter::Sets(SetFilter::Pieces { mask: enemy_mask, squares: Bitboard::FULL }), span);
            let enemies = match only {
                Some(set) => self.add(Filter::Sets(SetFilter::Intersection(vec![enemies, set])), span),
                None => enemies,
            };
            let checkers = self.add(
                Filter::Geometry(GeometryFilter::Attacks {
                    attackers: enemies,
                    targets: king,
                    value_is_targets: false,
                }),
                span,
            );
            let around = self.add(
                Filter::Geometry(GeometryFilter::Direction {
                    dirs: Directions::ANY,
                    min: 1,
                    max: 1,
                    range_variables: (None, None),
                    arg: king,
                }),
                span,
            );
            let knights = self.add(
                Filter::Sets(SetFilter::Pieces {
                    mask: PieceMask::piece(color.other(), Role::Knight),
                    squares: Bitboard::FULL,
                }),
                span,
            );
            let close = self.add(Filter::Sets(SetFilter::Union(vec![around, knights])), span);
            let contact = self.add(Filter::Sets(SetFilter::Intersection(vec![checkers, close])), span);
            alternatives.push(self.add(Filter::Logic(LogicFilter::And(vec![tm, contact])), span));
        }
        let any = self.add(Filter::Logic(LogicFilter::Or(alternatives)), span);
        self.add(Filter::Logic(LogicFilter::And(vec![check, any])), span)
    }

    /// `:opposition [K|k]`: the named king (or the side to move's) holds the opposition.
    pub(super) fn opposition(&mut self, _kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let color = match c.peek().and_then(Item::atom) {
            Some("K") => {
                c.take();
                Some(Color::White)
            }
            Some("k") => {
                c.take();
                Some(Color::Black)
            }
            _ => None,
        };
        if let Some(col) = color {
            return Ok(self.add(Filter::LegacyFact(LegacyFact::Opposition(col)), span));
        }
        let mut alternatives = Vec::new();
        for col in [Color::White, Color::Black] {
            let tm = self.add(Filter::PositionState(PositionStateFilter::ToMove(col)), span);
            let o = self.add(Filter::LegacyFact(LegacyFact::Opposition(col)), span);
            alternatives.push(self.add(Filter::Logic(LogicFilter::And(vec![tm, o])), span));
        }
        Ok(self.add(Filter::Logic(LogicFilter::Or(alternatives)), span))
    }

    /// `:whitecannotwin`, `:blackcannotwin`.
    pub(super) fn cannot_win_keyword(&mut self, kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let color = if kw == ":whitecannotwin" { Color::White } else { Color::Black };
        Ok(self.cannot_win(color, span))
    }

    /// The manual's "cannot win" test: a lone king, or king and one minor piece.
    fn cannot_win(&mut self, color: Color, span: Span) -> FilterId {
        let all = if color.is_white() { PieceMask::WHITE } else { PieceMask::BLACK };
        let minors = PieceMask::piece(color, Role::Bishop).with(PieceMask::piece(color, Role::Knight));
        let pieces = self.add(Filter::Sets(SetFilter::Pieces { mask: all, squares: Bitboard::FULL }), span);
        let n = self.add(Filter::Sets(SetFilter::Count(pieces)), span);
        let lone = self.compare(n, Range::Between(1, 1), span);
        let two = self.compare(n, Range::Between(2, 2), span);
        let minor = self.add(Filter::Sets(SetFilter::Pieces { mask: minors, squares: Bitboard::FULL }), span);
        let m = self.add(Filter::Sets(SetFilter::Count(minor)), span);
        let one_minor = self.compare(m, Range::Between(1, 1), span);
        let with_minor = self.add(Filter::Logic(LogicFilter::And(vec![two, one_minor])), span);
        self.add(Filter::Logic(LogicFilter::Or(vec![lone, with_minor])), span)
    }

    /// `:matingmaterial`: not both sides cannot win.
    pub(super) fn mating_material(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let w = self.cannot_win(Color::White, span);
        let b = self.cannot_win(Color::Black, span);
        let both = self.add(Filter::Logic(LogicFilter::And(vec![w, b])), span);
        Ok(self.add(Filter::Logic(LogicFilter::Not(both)), span))
    }

    /// `:gameisover`: mate, stalemate, or neither side can win.
    pub(super) fn game_is_over(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let mate = self.add(Filter::PositionState(PositionStateFilter::Mate), span);
        let stalemate = self.add(Filter::PositionState(PositionStateFilter::Stalemate), span);
        let w = self.cannot_win(Color::White, span);
        let b = self.cannot_win(Color::Black, span);
        let dead = self.add(Filter::Logic(LogicFilter::And(vec![w, b])), span);
        Ok(self.add(Filter::Logic(LogicFilter::Or(vec![mate, stalemate, dead])), span))
    }

    /// `:losing`: one side has no piece left (Antichess); never so in standard chess.
    pub(super) fn losing(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let mut alternatives = Vec::new();
        for mask in [PieceMask::WHITE, PieceMask::BLACK] {
            let p = self.add(Filter::Sets(SetFilter::Pieces { mask, squares: Bitboard::FULL }), span);
            alternatives.push(self.add(Filter::Logic(LogicFilter::Not(p)), span));
        }
        Ok(self.add(Filter::Logic(LogicFilter::Or(alternatives)), span))
    }

    /// `:mustcapture`, `:captureforced`, `:takeslastpiece`: Antichess rules only; the
    /// manual says these never hold in other variants, and cqlrs reads standard chess.
    pub(super) fn antichess_only(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        Ok(self.add(Filter::False, span))
    }

    /// `:endgame`: the manual's definition, lowered from its own CQL-S text.
    pub(super) fn endgame(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        const DEFINITION: &str = "(position :or (\
            (position :piececount [Qq] 0 :piececount [RBN] 0 3 :piececount [rbn] 0 3) \
            (position :piececount Q 1 :piececount q 1 :piececount [Rr] 0 :piececount I 0 1 :piececount i 0 1) \
            (position :piececount Q 1 :piececount R 0 :piececount I 0 1 :piececount q 0 :power [rbn] 0 16 :flipcolor)))";
        let top = crate::lang::legacy::syntax::read(DEFINITION).map_err(|d| err(d.message, span))?;
        let item = top.first().ok_or_else(|| err("internal: empty `:endgame` definition", span))?;
        self.nested_position_list(item)
    }

    /// `:fen "…"`: the board, side to move and castling rights equal the FEN's.
    pub(super) fn fen(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        use shakmaty::fen::Fen;
        let (text, ts) = c.atom(kw, "a FEN in double quotes")?;
        let fen: Fen = text.parse().map_err(|e| {
            err(format!("`{text}` is not a valid FEN: {e}"), ts)
                .with_hint("write e.g. `:fen \"8/8/8/8/8/8/8/K6k w - - 0 1\"`")
        })?;
        let setup = fen.as_setup();
        let mut parts = Vec::new();
        for color in [Color::White, Color::Black] {
            for role in Role::ALL {
                let squares = setup.board.by_piece(shakmaty::Piece { color, role });
                let p = self.add(
                    Filter::Sets(SetFilter::Pieces { mask: PieceMask::piece(color, role), squares: Bitboard::FULL }),
                    ts,
                );
                let n = self.add(Filter::Sets(SetFilter::Count(p)), ts);
                parts.push(self.compare(n, Range::Between(squares.count() as i64, squares.count() as i64), ts));
                if squares.any() {
                    let on =
                        self.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::piece(color, role), squares }), ts);
                    let k = self.add(Filter::Sets(SetFilter::Count(on)), ts);
                    parts.push(self.compare(k, Range::Between(squares.count() as i64, squares.count() as i64), ts));
                }
            }
        }
        parts.push(self.add(Filter::PositionState(PositionStateFilter::ToMove(setup.turn)), ts));
        // Castling rights: exactly the FEN's (the rook squares of its castling field).
        let mut wanted = 0u8;
        for (bit, sq) in [
            (1u8, shakmaty::Square::H1),
            (2, shakmaty::Square::A1),
            (4, shakmaty::Square::H8),
            (8, shakmaty::Square::A8),
        ] {
            if setup.castling_rights.contains(sq) {
                wanted |= bit;
            }
        }
        let have = i64::from(wanted.count_ones());
        let held = self.add(Filter::LegacyFact(LegacyFact::CastlingRights(wanted)), ts);
        parts.push(self.compare(held, Range::Between(have, have), ts));
        let all = self.add(Filter::LegacyFact(LegacyFact::CastlingRights(15)), ts);
        parts.push(self.compare(all, Range::Between(have, have), ts));
        Ok(self.and(parts, span))
    }

    /// `:insidevariation`: the position is inside a variation.
    pub(super) fn inside_variation(&mut self, _kw: &str, span: Span, _c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        Ok(self.add(Filter::PositionState(PositionStateFilter::Variation), span))
    }
}
