//! Keywords on moves: the `move` keyword, legal and pseudo-legal moves, `from`/`to`.
//!
//! Move patterns written with arrows (`Ra1――a8`) are read in the expression parser.
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/moves.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;

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
