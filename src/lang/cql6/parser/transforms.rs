//! Keywords of transforms: `flip`, `rotate90`, `shift`, … and `count` before a transform.
//!
//! Transforms are left as `Filter::Transform` nodes for the transform expander.
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/transforms.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;

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
