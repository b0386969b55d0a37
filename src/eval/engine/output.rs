//! Output: comments, messages, sort values, tags set on the game, and reading comments.
//!
//! Part of the filter interpreter ([`super`]): one file per filter family, matching the
//! sections of `docs/output.md`; [`Ctx::eval_inner`] sends each filter to its family.

use super::*;
use crate::eval::SortValue;
use crate::ir::OutputFilter;

impl<'a> Ctx<'a> {
    /// A filter that writes output or reads comments: `comment`, `message`, `sort`, `settag`, `removecomment`, `hascomment`, `originalcomment`.
    /// `Ok(None)` when it does not match.
    pub(super) fn eval_output(&mut self, f: FilterId, filter: &'a OutputFilter, at: Loc) -> Eval {
        let found = |b: bool| if b { Some(Value::None) } else { None };
        Ok(match filter {
            OutputFilter::Comment(args) => {
                let text = self.args_text(args, at)?;
                if let Some(n) = self.node_of(at) {
                    self.out.comments.push((n, text));
                }
                Some(Value::None)
            }
            OutputFilter::Message { args, quiet } => {
                let mut text = self.args_text(args, at)?;
                if !quiet {
                    // CQL 6.2 `CommentNode::match_position`: `Game: N POSITION: TEXT`.
                    let place = self.node_of(at).map_or(String::new(), |n| self.position_text(n));
                    text = format!("Game: {} {place}: {text}", self.game.number);
                }
                self.out.messages.push(text);
                Some(Value::None)
            }
            OutputFilter::Sort { doc, min, quiet, value } => {
                let made_from = self.out.comments.len();
                match self.value(*value, at)? {
                    // CQL 6.2 sorts by a string value too (`sort event`): the filter matches
                    // with that string as its value, and the games are ordered by it.
                    Some(Value::Str(text)) => {
                        let key = SortValue::Text(text.clone());
                        self.out.sorts.push((crate::eval::sort_name(doc, f), *min, *quiet, key.clone()));
                        self.hold_sort_comments(f, *min, key, made_from);
                        Some(Value::Str(text))
                    }
                    Some(v) => {
                        let Some(n) = self.as_number(&v, at) else { return Ok(None) };
                        self.out.sorts.push((crate::eval::sort_name(doc, f), *min, *quiet, SortValue::Number(n)));
                        self.hold_sort_comments(f, *min, SortValue::Number(n), made_from);
                        Some(Value::Number(n))
                    }
                    None => None,
                }
            }
            OutputFilter::SetTag(name, value) => {
                let Some(name) = self.value(*name, at)? else { return Ok(None) };
                let Some(value) = self.value(*value, at)? else { return Ok(None) };
                let (name, value) = (self.text_of(&name, at), self.text_of(&value, at));
                self.out.tags.push((name, value));
                Some(Value::None)
            }
            OutputFilter::RemoveComment => {
                if let Some(n) = self.node_of(at) {
                    self.out.removed.push(n);
                }
                Some(Value::None)
            }
            OutputFilter::HasComment => {
                let Loc::Node(n) = at else { return Ok(None) };
                let original = !self.game.node(n).comments.is_empty();
                found(original || self.out.comments.iter().any(|(c, _)| *c == n))
            }
            OutputFilter::OriginalComment => {
                let Loc::Node(n) = at else { return Ok(None) };
                // CQL 6.2 keeps one comment per move (its PGN reader's `SetMoveComment`
                // replaces the comment before): of two comments after a move it reads the
                // last. cqlrs keeps them all in the game it writes.
                self.game.node(n).comments.last().map(|c| Value::Str(c.clone()))
            }
        })
    }

    /// The comments a `sort` filter's value made (those from `made_from` on) are held by
    /// the filter when the value is better than any it had in this game, and dropped
    /// otherwise; the ones held for the game's best value are written at the end of the
    /// game (CQL 6.2 `SortNode::handle_new_value`, `makeComments`).
    fn hold_sort_comments(&mut self, f: FilterId, smallest_first: bool, value: SortValue, made_from: usize) {
        let made: Vec<(NodeId, String)> = self.out.comments.drain(made_from..).collect();
        let better = |old: &SortValue| if smallest_first { value < *old } else { value > *old };
        match self.sort_comments.iter_mut().find(|held| held.0 == f) {
            Some(held) if better(&held.1) => {
                held.1 = value;
                held.2 = made;
            }
            Some(_) => {}
            None => self.sort_comments.push((f, value, made)),
        }
    }

    /// The comments held by `sort` filters whose value is the game's value for their name
    /// (see [`Self::hold_sort_comments`]), in the order of the filters.
    pub(crate) fn held_sort_comments(&mut self, best: &[(String, SortValue)]) -> Vec<(NodeId, String)> {
        let mut out = Vec::new();
        for (f, value, made) in std::mem::take(&mut self.sort_comments) {
            let Filter::Output(OutputFilter::Sort { doc, .. }) = self.ir.get(f) else { continue };
            let name = crate::eval::sort_name(doc, f);
            if best.iter().any(|(d, v)| *d == name && *v == value) {
                out.extend(made);
            }
        }
        out
    }
}
