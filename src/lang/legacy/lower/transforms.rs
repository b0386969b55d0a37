//! Transform keywords: the board transforms of a position list (`:flip…`, `:shift…`, the
//! diagonal ones of CQL-S and CQL 3 with their edge rule), accumulators (`:accumulate`,
//! `:sumrange`, `:reset`) and `:inside`.
//!
//! Takes in: one keyword and the cursor after it. Gives out: the list's transforms (applied
//! when the list is finished, the last keyword outermost) and its accumulator counts.
//! Must never: expand a transform (`ir::transform` does), or panic on any script.

use crate::ir::{LogicFilter, SetFilter};
use shakmaty::Bitboard;

use super::{err, from_problem, Cursor, ListState, Lowerer};
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::{Filter, FilterId, LegacyFact, ShiftAxes, TransformKind};
use crate::lang::legacy::designator::parse_designator;

/// The transform of a CQL 1 transform keyword.
pub(super) fn transform_kind(keyword: &str) -> Option<TransformKind> {
    Some(match keyword {
        ":flip" | ":flipdihedral" => TransformKind::Flip,
        ":flipvertical" => TransformKind::FlipVertical,
        ":fliphorizontal" => TransformKind::FlipHorizontal,
        ":flipcolor" => TransformKind::FlipColor,
        ":shift" => TransformKind::Shift,
        ":shifthorizontal" => TransformKind::ShiftHorizontal,
        ":shiftvertical" => TransformKind::ShiftVertical,
        _ => return None,
    })
}

impl Lowerer {
    /// `:flip`, `:flipdihedral`, `:flipvertical`, `:fliphorizontal`, `:flipcolor`,
    /// `:shift`, `:shifthorizontal`, `:shiftvertical`: the list becomes "some transformed
    /// copy of the list matches". A transform keyword is a property of the list: written
    /// twice, it still counts once (each keyword's set of transforms holds the identity and
    /// is closed under composition, so a second copy adds no image, only work and extra
    /// counts).
    pub(super) fn transform(
        &mut self,
        kw: &str,
        _span: Span,
        _c: &mut Cursor,
        st: &mut ListState,
        _top_level: bool,
    ) -> Result<(), Diagnostic> {
        if let Some(kind) = transform_kind(kw) {
            if !st.transforms.contains(&kind) {
                st.transforms.push(kind);
            }
        }
        Ok(())
    }

    /// `:flipdiagonal` (about the a1–h8 diagonal), `:flipoffdiagonal` (about a8–h1).
    pub(super) fn diagonal_flip(
        &mut self,
        kw: &str,
        _span: Span,
        _c: &mut Cursor,
        st: &mut ListState,
        _top_level: bool,
    ) -> Result<(), Diagnostic> {
        st.transforms.push(if kw == ":flipdiagonal" {
            TransformKind::FlipDiagonal
        } else {
            TransformKind::FlipOffDiagonal
        });
        Ok(())
    }

    /// `:shiftdiagonal`, `:shiftmaindiagonal`, `:shiftoffdiagonal`: shifts along the
    /// diagonals, with the CQL 3 edge rule.
    pub(super) fn diagonal_shift(
        &mut self,
        kw: &str,
        _span: Span,
        _c: &mut Cursor,
        st: &mut ListState,
        _top_level: bool,
    ) -> Result<(), Diagnostic> {
        let axes = match kw {
            ":shiftmaindiagonal" => ShiftAxes::MainDiagonal,
            ":shiftoffdiagonal" => ShiftAxes::OffDiagonal,
            _ => ShiftAxes::Diagonals,
        };
        st.transforms.push(TransformKind::LegacyShift(axes));
        Ok(())
    }

    /// `:accumulate name`, `:accumulate* name` (colours counted apart): this list counts
    /// its matching transformed copies under the name.
    pub(super) fn accumulate(
        &mut self,
        kw: &str,
        _span: Span,
        c: &mut Cursor,
        st: &mut ListState,
        _top_level: bool,
    ) -> Result<(), Diagnostic> {
        let (name, _) = c.atom(kw, "an accumulator name")?;
        st.accumulate = Some((name.to_string(), kw.ends_with('*')));
        Ok(())
    }

    /// `:sumrange name r`: the accumulator's count is in r.
    pub(super) fn sum_range(
        &mut self,
        kw: &str,
        _span: Span,
        c: &mut Cursor,
        st: &mut ListState,
        _top_level: bool,
    ) -> Result<(), Diagnostic> {
        let (name, ns) = c.atom(kw, "an accumulator name")?;
        let (r, rs) = c.range(kw)?;
        st.sumranges.push((name.to_string(), r, Span::new(ns.start as usize, rs.end as usize)));
        Ok(())
    }

    /// `:reset name`: counts are taken afresh at every position and for every list, so
    /// there is nothing left over to clear.
    pub(super) fn reset(
        &mut self,
        kw: &str,
        _span: Span,
        c: &mut Cursor,
        _st: &mut ListState,
        _top_level: bool,
    ) -> Result<(), Diagnostic> {
        c.atom(kw, "an accumulator name")?;
        Ok(())
    }

    /// `:inside D S`: D (shifted with the list) stays on the fixed squares S.
    pub(super) fn inside(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (d, ds) = c.designator(kw)?;
        let set = self.designator(&d, ds)?;
        let (text, ts) = c.atom(kw, "a square designator such as `[b2,c3]`")?;
        let region = parse_designator(&format!("?{text}")).map_err(|p| from_problem(p, ts))?;
        let fixed = self.add(Filter::LegacyFact(LegacyFact::Region(Bitboard(region.squares))), ts);
        Ok(self.add(Filter::Sets(SetFilter::Intersection(vec![set, fixed])), span))
    }

    /// Turn the legacy shifts of a list into the CQL 3 edge-rule shifts when the list
    /// names a square on the board's edge (elsewhere the two rules agree, and the CQL 6
    /// kinds keep the IR equal to the CQL 6 equivalent's).
    pub(super) fn edge_rule(&self, kind: TransformKind, body: FilterId) -> TransformKind {
        let axes = match kind {
            TransformKind::Shift => ShiftAxes::Both,
            TransformKind::ShiftHorizontal => ShiftAxes::Horizontal,
            TransformKind::ShiftVertical => ShiftAxes::Vertical,
            other => return other,
        };
        if touches_edge(&self.ir, body) {
            TransformKind::LegacyShift(axes)
        } else {
            kind
        }
    }

    /// Lower the list-level CQL-S options recorded in `st` around its body (before
    /// transforms): accumulators and `:sumrange`.
    /// The flag says the list's own transforms were used up by a count of its own
    /// accumulator (the list is then that count test).
    pub(super) fn accumulators(
        &mut self,
        st: &ListState,
        body: FilterId,
        span: Span,
    ) -> Result<(FilterId, bool), Diagnostic> {
        if let Some((name, star)) = &st.accumulate {
            let transforms: Vec<TransformKind> = st.transforms.iter().map(|&k| self.edge_rule(k, body)).collect();
            self.accumulator_defs.push((name.clone(), body, transforms, *star));
        }
        if st.sumranges.is_empty() {
            return Ok((body, false));
        }
        let mut parts = vec![];
        let own = st.accumulate.as_ref().map(|(n, _)| n.clone());
        for (name, r, rs) in &st.sumranges {
            let Some((_, acc_body, transforms, star)) =
                self.accumulator_defs.iter().rev().find(|(n, ..)| n == name).cloned()
            else {
                return Err(err(format!("unknown accumulator `{name}`"), *rs)
                    .with_hint("`:accumulate name` in this list or an earlier one defines it"));
            };
            // The number of transformed copies of the accumulating list that match here
            // (per colour with `:accumulate*`).
            let star_colour = star && transforms.contains(&TransformKind::FlipColor);
            let kept: Vec<TransformKind> =
                transforms.iter().copied().filter(|k| !(star_colour && *k == TransformKind::FlipColor)).collect();
            let counted = match kept.split_last() {
                None => {
                    let one = self.number(1, *rs);
                    let zero = self.number(0, *rs);
                    self.add(Filter::Logic(LogicFilter::If { cond: acc_body, then: one, otherwise: Some(zero) }), *rs)
                }
                Some((&outer, inner)) => {
                    let mut b = acc_body;
                    for &k in inner {
                        b = self.add(Filter::Transform { kind: k, range: None, count: false, body: b }, *rs);
                    }
                    self.add(Filter::Transform { kind: outer, range: None, count: true, body: b }, *rs)
                }
            };
            let mut test = self.compare(counted, *r, *rs);
            if star_colour {
                let other = self.add(
                    Filter::Transform { kind: TransformKind::ReverseColor, range: None, count: false, body: test },
                    *rs,
                );
                test = self.add(Filter::Logic(LogicFilter::Or(vec![test, other])), *rs);
            }
            parts.push((Some(name.clone()) == own, test));
        }
        // A list that sums its own accumulator is that count test; other sums are
        // conjuncts beside the list's body.
        let own_tests: Vec<FilterId> = parts.iter().filter(|(o, _)| *o).map(|(_, t)| *t).collect();
        let other_tests: Vec<FilterId> = parts.iter().filter(|(o, _)| !*o).map(|(_, t)| *t).collect();
        let mut all = Vec::new();
        if own_tests.is_empty() {
            all.push(body);
        }
        all.extend(other_tests);
        all.extend(own_tests);
        let counted = parts.iter().any(|(o, _)| *o);
        Ok((self.and(all, span), counted))
    }
}

/// Does the sub-tree name a square on the board's edge (a set other than the full board
/// that touches the a- or h-file or the first or last rank)?
fn touches_edge(ir: &crate::ir::Ir, root: FilterId) -> bool {
    const BORDER: u64 = 0xff81_8181_8181_81ff;
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let node = ir.get(id);
        let squares = match node {
            Filter::Sets(SetFilter::Squares(bb)) => Some(*bb),
            Filter::Sets(SetFilter::Pieces { squares, .. }) => Some(*squares),
            _ => None,
        };
        if let Some(bb) = squares {
            if bb != Bitboard::FULL && bb.0 & BORDER != 0 {
                return true;
            }
        }
        stack.extend(crate::ir::visit::children(node));
    }
    false
}
