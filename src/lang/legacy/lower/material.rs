//! Material keywords: counts of pieces and their power, attacks, rays, pawn structure,
//! `:tagmatch`, `:goodbishop` and the static exchange values.
//!
//! Takes in: one keyword and the cursor after it. Gives out: one test of the position
//! (counts compared with ranges, `Ray`, `Attacks`, pawn-structure sets), and [`LegacyFact`]
//! leaves where no shared filter can say it.
//! Must never: panic on any script; every problem is a [`Diagnostic`] naming the keyword.

use crate::ir::{GeometryFilter, LogicFilter, NumberFilter, SetFilter, VariableFilter};
use shakmaty::{Bitboard, Color, Role};

use super::{err, from_problem, is_singular, Cursor, Lowerer};
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::{
    ArithOp, Builtin, CmpOp, Directions, Filter, FilterId, LegacyFact, PawnShare, PawnStructure, PieceMask, VarKind,
};
use crate::lang::legacy::designator::{parse_designator, parse_range, starts_range, Designator, PieceKinds, Range};
use crate::lang::legacy::syntax::Item;

impl Lowerer {
    /// `:piececount D r`: the number of squares of D that hold one of its types.
    pub(super) fn piece_count(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (d, ds) = c.designator(kw)?;
        let set = self.designator(&d, ds)?;
        let n = self.add(Filter::Sets(SetFilter::Count(set)), span);
        let (r, rs) = c.range(kw)?;
        Ok(self.compare(n, r, rs))
    }

    /// `:power D r`: the material value of D (P1 N3 B3 R5 Q9).
    pub(super) fn power(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (d, ds) = c.designator(kw)?;
        let set = self.designator(&d, ds)?;
        let p = self.add(Filter::Numbers(NumberFilter::Call(Builtin::Power, vec![set])), span);
        let (r, rs) = c.range(kw)?;
        Ok(self.compare(p, r, rs))
    }

    /// `:tagmatch name D`: the tagged piece matches D (type and square).
    pub(super) fn tag_match(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (name, nspan) = c.atom(kw, "a tag name")?;
        let var = self.tag_var(name, nspan)?;
        let (d, ds) = c.designator(kw)?;
        if matches!(d.kinds, PieceKinds::Tag(_)) {
            return Err(err("`:tagmatch` compares a tag with piece types, not with another tag", ds));
        }
        let v = self.add(Filter::Variables(VariableFilter::Var(var)), nspan);
        let set = self.designator(&d, ds)?;
        Ok(if set == v { v } else { self.add(Filter::Sets(SetFilter::Intersection(vec![v, set])), span) })
    }

    /// `:powerdifference D range` (white part of D minus black part of D) or the CQL-S
    /// two-designator form `:powerdifference D1 D2 range` (power of D1 minus power of D2).
    pub(super) fn power_difference(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (d1, s1) = c.designator(kw)?;
        let second = match c.peek().and_then(Item::atom) {
            Some(t) if !starts_range(t) => Some(c.designator(kw)?),
            _ => None,
        };
        let power = |me: &mut Lowerer, d: &Designator, s: Span, part: PieceMask| -> Result<FilterId, Diagnostic> {
            let mask = match d.kinds {
                PieceKinds::Mask(m) => PieceMask(m.0 & part.0),
                PieceKinds::Tag(_) => return Err(err("`:powerdifference` needs piece types, not a tag", s)),
            };
            if mask.0 == 0 || d.squares == 0 {
                return Ok(me.number(0, s));
            }
            let set = me.add(Filter::Sets(SetFilter::Pieces { mask, squares: Bitboard(d.squares) }), s);
            Ok(me.add(Filter::Numbers(NumberFilter::Call(Builtin::Power, vec![set])), s))
        };
        let (white, black) = match &second {
            None => (power(self, &d1, s1, PieceMask::WHITE)?, power(self, &d1, s1, PieceMask::BLACK)?),
            Some((d2, s2)) => {
                (power(self, &d1, s1, PieceMask::ANY_PIECE)?, power(self, d2, *s2, PieceMask::ANY_PIECE)?)
            }
        };
        let diff = self.add(Filter::Numbers(NumberFilter::Arith(ArithOp::Sub, white, black)), span);
        let (r, rs) = c.range(kw)?;
        Ok(self.compare(diff, r, rs))
    }

    /// `:attackcount D1 D2 range`: the number of (attacker, target) pairs.
    pub(super) fn attack_count(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (d1, s1) = c.designator(kw)?;
        let (d2, s2) = c.designator(kw)?;
        let (r, rs) = c.range(kw)?;
        let attackers = self.designator(&d1, s1)?;
        let targets = self.designator(&d2, s2)?;
        if matches!(r, Range::Between(0, 0) | Range::Compare(CmpOp::Eq, 0)) {
            let a = self
                .add(Filter::Geometry(GeometryFilter::Attacks { attackers, targets, value_is_targets: false }), span);
            return Ok(self.add(Filter::Logic(LogicFilter::Not(a)), span));
        }
        if is_singular(&d2) {
            // One target: pairs = attackers of it.
            let a = self
                .add(Filter::Geometry(GeometryFilter::Attacks { attackers, targets, value_is_targets: false }), span);
            let n = self.add(Filter::Sets(SetFilter::Count(a)), span);
            return Ok(self.compare(n, r, rs));
        }
        if is_singular(&d1) {
            // One attacker: pairs = squares of D2 it attacks.
            let a = self
                .add(Filter::Geometry(GeometryFilter::Attacks { attackers, targets, value_is_targets: true }), span);
            let n = self.add(Filter::Sets(SetFilter::Count(a)), span);
            return Ok(self.compare(n, r, rs));
        }
        // General case: sum, over each attacker square, the targets it attacks.
        let sum = self.fresh_var("attackcount", VarKind::Value);
        let square = self.fresh_var("attacker", VarKind::Square);
        let zero = self.number(0, span);
        let init = self.add(Filter::Variables(VariableFilter::Assign { var: sum, op: None, value: zero }), span);
        let one = self.add(Filter::Variables(VariableFilter::Var(square)), span);
        let hit = self
            .add(Filter::Geometry(GeometryFilter::Attacks { attackers: one, targets, value_is_targets: true }), span);
        let hits = self.add(Filter::Sets(SetFilter::Count(hit)), span);
        let add =
            self.add(Filter::Variables(VariableFilter::Assign { var: sum, op: Some(ArithOp::Add), value: hits }), span);
        let each = self.add(
            Filter::Variables(VariableFilter::SquareIter { var: square, domain: attackers, body: add, forall: true }),
            span,
        );
        let total = self.add(Filter::Variables(VariableFilter::Var(sum)), span);
        let test = self.compare(total, r, rs);
        Ok(self.add(Filter::Logic(LogicFilter::And(vec![init, each, test])), span))
    }

    /// `:ray (D1 … Dk) [range]` and its direction variants.
    pub(super) fn ray(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (list, lspan) = c.list(kw, "a list of piece designators")?;
        if list.len() < 2 {
            return Err(err(format!("`{kw}` needs at least two designators"), lspan));
        }
        let mut sets = Vec::new();
        for item in list {
            let (text, s) = match item {
                Item::Atom { text, span, .. } => (text.as_str(), *span),
                Item::List { span, .. } => return Err(err("expected a piece designator", *span)),
            };
            let d = parse_designator(text).map_err(|p| from_problem(p, s))?;
            sets.push(self.designator(&d, s)?);
        }
        let range = match c.peek().and_then(Item::atom) {
            Some(t) if starts_range(t) => Some(c.range(kw)?),
            _ => None,
        };
        let dirs = match kw {
            ":rayorthogonal" => Directions::ORTHOGONAL,
            ":raydiagonal" => Directions::DIAGONAL,
            ":rayhorizontal" => Directions::HORIZONTAL,
            ":rayvertical" => Directions::VERTICAL,
            _ => Directions::ANY,
        };
        let ray = if kw == ":rayattack" {
            let role_mask = |roles: &[Role]| {
                roles.iter().fold(PieceMask(0), |m, &r| {
                    m.with(PieceMask::piece(Color::White, r)).with(PieceMask::piece(Color::Black, r))
                })
            };
            let mut alternatives = Vec::new();
            for (dirs, roles) in [
                (Directions::ORTHOGONAL, [Role::Rook, Role::Queen]),
                (Directions::DIAGONAL, [Role::Bishop, Role::Queen]),
            ] {
                let sliders = self
                    .add(Filter::Sets(SetFilter::Pieces { mask: role_mask(&roles), squares: Bitboard::FULL }), span);
                let first = self.add(Filter::Sets(SetFilter::Intersection(vec![sets[0], sliders])), span);
                let mut these = sets.clone();
                these[0] = first;
                alternatives
                    .push(self.add(Filter::Geometry(GeometryFilter::Ray { dirs, sets: these, xray: false }), span));
            }
            self.add(Filter::Sets(SetFilter::Union(alternatives)), span)
        } else {
            self.add(Filter::Geometry(GeometryFilter::Ray { dirs, sets, xray: false }), span)
        };
        Ok(match range {
            None => ray,
            Some((r, rs)) => {
                let n = self.add(Filter::Sets(SetFilter::Count(ray)), span);
                self.compare(n, r, rs)
            }
        })
    }

    /// `:pawncount [D] attribute[-attribute…] range` (CQL-S). Supported attributes:
    /// `passed`, `isolated`, `connected`, `doubled`, `consecutive(n)`; D defaults to white pawns.
    pub(super) fn pawn_count(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let white_pawns =
            Designator { kinds: PieceKinds::Mask(PieceMask::piece(Color::White, Role::Pawn)), squares: u64::MAX };
        let (first, fspan) = c.atom(kw, "pawn attributes")?;
        let (pawns, pspan, attrs, aspan) = match parse_designator(first) {
            Ok(d) => {
                let (a, s) = c.atom(kw, "pawn attributes")?;
                (d, fspan, a, s)
            }
            Err(_) => (white_pawns, span, first, fspan),
        };
        let set = self.pawn_set(&pawns, pspan, attrs, aspan)?;
        let n = self.add(Filter::Sets(SetFilter::Count(set)), span);
        let (r, rs) = c.range(kw)?;
        Ok(self.compare(n, r, rs))
    }

    /// The pawns of a designator that have every attribute of a `-`-joined list
    /// (`passed`, `isolated`, `connected`, `doubled`, `consecutive(n)`).
    fn pawn_set(&mut self, pawns: &Designator, pspan: Span, attrs: &str, aspan: Span) -> Result<FilterId, Diagnostic> {
        let base = self.designator(pawns, pspan)?;
        let mut set = base;
        for attr in attrs.split('-') {
            set = match attr {
                "passed" | "isolated" | "connected" | "doubled" => {
                    let kind = match attr {
                        "passed" => PawnStructure::Passed,
                        "isolated" => PawnStructure::Isolated,
                        "connected" => PawnStructure::Connected,
                        _ => PawnStructure::Doubled,
                    };
                    let s = self.add(Filter::Sets(SetFilter::PawnStructure(kind)), aspan);
                    self.add(Filter::Sets(SetFilter::Intersection(vec![set, s])), aspan)
                }
                _ => {
                    let n = attr
                        .strip_prefix("consecutive(")
                        .and_then(|r| r.strip_suffix(')'))
                        .and_then(|d| d.parse::<u32>().ok())
                        .filter(|&n| (1..=8).contains(&n))
                        .ok_or_else(|| {
                            err(format!("unsupported pawn attribute `{attr}`"), aspan).with_hint(
                                "supported: passed, isolated, connected, doubled, consecutive(n) with n from 1 to 8",
                            )
                        })?;
                    // Pawns with n-1 pawns of the set directly below them, in a column.
                    let mut run = base;
                    for _ in 1..n {
                        let above = self.add(
                            Filter::Geometry(GeometryFilter::Direction {
                                dirs: Directions::UP,
                                min: 1,
                                max: 1,
                                range_variables: (None, None),
                                arg: run,
                            }),
                            aspan,
                        );
                        run = self.add(Filter::Sets(SetFilter::Intersection(vec![base, above])), aspan);
                    }
                    if set == base {
                        run
                    } else {
                        self.add(Filter::Sets(SetFilter::Intersection(vec![set, run])), aspan)
                    }
                }
            };
        }
        Ok(set)
    }

    /// `:pawncountdifference D1 [D2] attrs range`: pawns of D1 with the attributes minus
    /// pawns of D2 (default: D1 with colours swapped) with them.
    pub(super) fn pawn_count_difference(
        &mut self,
        kw: &str,
        span: Span,
        c: &mut Cursor,
    ) -> Result<FilterId, Diagnostic> {
        let (d1, s1) = c.designator(kw)?;
        let second = match c.peek().and_then(Item::atom) {
            Some(t) if parse_designator(t).is_ok() && !t.contains('(') && !is_pawn_attribute_word(t) => {
                Some(c.designator(kw)?)
            }
            _ => None,
        };
        let (d2, s2) = match second {
            Some(x) => x,
            None => {
                let PieceKinds::Mask(m) = d1.kinds else {
                    return Err(err(format!("`{kw}` needs pawns, not a tag"), s1));
                };
                (Designator { kinds: PieceKinds::Mask(m.swap_colors()), squares: d1.squares }, s1)
            }
        };
        let (attrs, aspan) = c.atom(kw, "pawn attributes")?;
        let a = self.pawn_set(&d1, s1, attrs, aspan)?;
        let b = self.pawn_set(&d2, s2, attrs, aspan)?;
        let na = self.add(Filter::Sets(SetFilter::Count(a)), span);
        let nb = self.add(Filter::Sets(SetFilter::Count(b)), span);
        let diff = self.add(Filter::Numbers(NumberFilter::Arith(ArithOp::Sub, na, nb)), span);
        let (r, rs) = c.range(kw)?;
        Ok(self.compare(diff, r, rs))
    }

    /// `:goodbishop D r : r`: some bishop of D has that share of enemy pawns on its square
    /// colour and of own pawns off it.
    pub(super) fn good_bishop(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (d, ds) = c.designator(kw)?;
        let PieceKinds::Mask(mask) = d.kinds else {
            return Err(err("`:goodbishop` needs bishops, not a tag", ds));
        };
        let enemy = share(kw, c)?;
        match c.take() {
            Some(Item::Atom { text, .. }) if text == ":" => {}
            Some(other) => {
                return Err(err("`:goodbishop` needs `:` between its two ranges", other.span())
                    .with_hint("write e.g. `:goodbishop B >50% : >50%`"))
            }
            None => return Err(c.missing(kw, "`:` and a second range")),
        }
        let own = share(kw, c)?;
        Ok(self
            .add(Filter::LegacyFact(LegacyFact::GoodBishop { mask, squares: Bitboard(d.squares), enemy, own }), span))
    }

    /// `:maxswapevaluation D1 D2 r`: the best static exchange value over the legal moves
    /// of D1 to D2.
    pub(super) fn max_swap_evaluation(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (d1, s1) = c.designator(kw)?;
        let (d2, _) = c.designator(kw)?;
        let PieceKinds::Mask(mask) = d1.kinds else {
            return Err(err("`:maxswapevaluation` needs piece types, not a tag", s1));
        };
        let (r, rs) = c.range(kw)?;
        let v = self.add(
            Filter::LegacyFact(LegacyFact::MaxSwap { mask, from: Bitboard(d1.squares), to: Bitboard(d2.squares) }),
            span,
        );
        Ok(self.compare(v, r, rs))
    }

    /// `:exchangeevaluation r`: the next move is a capture winning r pawns by static exchange.
    pub(super) fn exchange_evaluation(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (r, rs) = c.range(kw)?;
        let v = self.add(Filter::LegacyFact(LegacyFact::ExchangeValue), span);
        Ok(self.compare(v, r, rs))
    }
}

/// The words `:pawncount` reads as attributes, so `:pawncountdifference P passed 1` is not
/// mistaken for two designators.
fn is_pawn_attribute_word(t: &str) -> bool {
    t.split('-').all(|a| matches!(a, "passed" | "isolated" | "connected" | "doubled") || a.starts_with("consecutive("))
}

/// The bound of one side of `:goodbishop`: a range, possibly in percent.
fn share(kw: &str, c: &mut Cursor) -> Result<PawnShare, Diagnostic> {
    let (first, fs) = c.atom(kw, "a range such as `>50%`")?;
    let percent = first.ends_with('%');
    let strip = |t: &str| t.trim_end_matches('%').to_string();
    let second = c.peek().and_then(Item::atom).filter(|t| t.trim_end_matches('%').parse::<i64>().is_ok()).map(strip);
    let (r, used) = parse_range(&strip(first), second.as_deref()).map_err(|p| from_problem(p, fs))?;
    if used {
        c.take();
    }
    let (lo, hi) = r.interval();
    Ok(PawnShare { lo, hi, percent })
}
