//! The game's PGN headers: tags, result, year, game number.
//!
//! Part of the filter interpreter ([`super`]): one file per filter family, matching the
//! sections of `docs/header.md`; [`Ctx::eval_inner`] sends each filter to its family.

use super::*;

impl<'a> Ctx<'a> {
    /// A fact from the game's headers: a tag, the result, the year, the game number.
    /// `Ok(None)` when it does not match; a filter of another family is an internal error.
    pub(super) fn eval_header(&mut self, filter: &'a Filter, at: Loc) -> Eval {
        let found = |b: bool| if b { Some(Value::None) } else { None };
        Ok(match filter {
            Filter::Header(field) => self.header(field),
            Filter::Result(r) => found(game_result(self.game) == Some(*r)),
            Filter::Year => {
                let date = self.game.tag("Date").map(|t| t.text().to_string()).unwrap_or_default();
                let year = date.get(..4).and_then(|y| y.parse::<i64>().ok());
                year.map(Value::Number)
            }
            Filter::GameNumber => Some(Value::Number(self.game.number as i64)),
            Filter::GameTextContains(text) => found(crate::eval::hhdb::game_text_contains(self.game, text)),
            Filter::HhdbAward { kind, special, max } => crate::eval::hhdb::award(self.game, *kind, *special, *max),
            Filter::CurrentFen => match at {
                Loc::Node(n) => Some(Value::Str(crate::eval::hhdb::current_fen(self.game, n))),
                _ => None,
            },
            _ => return Err(internal("internal error: eval_header given a filter of another family")),
        })
    }
}
