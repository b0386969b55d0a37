//! Keywords of transforms: `flip`, `rotate90`, `shift`, … and `count` before a transform.
//!
//! Transforms are left as `Filter::Transform` nodes for the transform expander.
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/transforms.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &[
    "count",
    "flip",
    "flipcolor",
    "flipdihedral",
    "fliphorizontal",
    "flipvertical",
    "dihedral",
    "reversecolor",
    "rotate45",
    "rotate90",
    "shift",
    "shifthorizontal",
    "shiftvertical",
];

impl Parser<'_> {
    /// A transform (`flip F`, `rotate45 F`, `count shift F`, …).
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_transforms_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        if let Some(kind) = transform_of(w) {
            return self.parse_transform(kind, sp).map(Some);
        }
        match w {
            "count" => {
                // `count` before a transform: `count flip F` is `flip count F`.
                let t = self.peek().clone();
                if let Tok::Word(tw) = &t.tok {
                    if let Some(kind) = transform_of(tw).filter(|k| *k != TransformKind::ReverseColor) {
                        self.bump();
                        let body = self.parse_expr(BP_LOOSE)?;
                        return self.simple(Filter::Transform { kind, range: None, count: true, body }, sp).map(Some);
                    }
                }
                self.error("`count` must go with a transform, as in `rotate90 count F`", sp);
                Err(())
            }
            _ => return Ok(None),
        }
        .map(Some)
    }
}

impl<'s> Parser<'s> {
    pub(super) fn parse_transform(&mut self, kind: TransformKind, sp: Span) -> PResult<FilterId> {
        if kind == TransformKind::ReverseColor && self.peek().tok == Tok::Word("count".into()) {
            // `reversecolor` makes one copy: CQL 6.2 reads a filter right after it.
            let at = self.peek().span;
            self.error_hint(
                "`reversecolor` takes no `count`",
                at,
                Some("it has a single copy; count with `flipcolor count` instead".into()),
            );
            return Err(());
        }
        // The range (CQL 6.2 `match_range` in `match_fliptransform`): `count` (any number
        // of copies, the value that number), or one or two ends, numbers or numeric
        // variables; a number followed by an operator starts the filter (`flip 5 ≤ …`).
        let count = self.eat_word("count");
        let range = if count { None } else { self.range_here() };
        let count = count || self.eat_word("count");
        let body = self.parse_expr(BP_OR)?;
        let s = Self::join(sp, self.ir.span(body));
        let Some(r) = range.filter(|r| r.low_var.is_some() || r.high_var.is_some()) else {
            return Ok(self.add(Filter::Transform { kind, range: range.map(|r| (r.low, r.high)), count, body }, s));
        };
        // An end written as a variable is read when the filter runs: the copies are
        // counted, and the count compared with each end.
        let counted = self.add(Filter::Transform { kind, range: None, count: true, body }, s);
        Ok(self.compare_with_range_ends(counted, &r, true, s))
    }
}
