//! Output: comments, messages, sort values, tags set on the game, and reading comments.
//!
//! Part of the filter interpreter ([`super`]): one file per filter family, matching the
//! sections of `docs/output.md`; [`Ctx::eval_inner`] sends each filter to its family.

use super::*;

impl<'a> Ctx<'a> {
    /// A filter that writes output or reads comments: `comment`, `message`, `sort`, `settag`, `removecomment`, `hascomment`, `originalcomment`.
    /// `Ok(None)` when it does not match; a filter of another family is an internal error.
    pub(super) fn eval_output(&mut self, filter: &'a Filter, at: Loc) -> Eval {
        let found = |b: bool| if b { Some(Value::None) } else { None };
        Ok(match filter {
            Filter::Comment(args) => {
                let text = self.args_text(args, at)?;
                if let Some(n) = self.node_of(at) {
                    self.out.comments.push((n, text));
                }
                Some(Value::None)
            }
            Filter::Message(args) => {
                let text = self.args_text(args, at)?;
                self.out.messages.push(text);
                Some(Value::None)
            }
            Filter::Sort { doc, min, quiet, value } => match self.value(*value, at)? {
                // CQL 6.2 sorts by a string value too (`sort str("1")`): the filter matches with
                // that string as its value. The games are not ordered by it (the scan's sort
                // keys are numbers; docs/compat.md).
                Some(Value::Str(text)) => Some(Value::Str(text)),
                Some(v) => {
                    let Some(n) = self.as_number(&v, at) else { return Ok(None) };
                    self.out.sorts.push((doc.clone(), *min, *quiet, n));
                    Some(Value::Number(n))
                }
                None => None,
            },
            Filter::SetTag(name, value) => {
                let Some(name) = self.value(*name, at)? else { return Ok(None) };
                let Some(value) = self.value(*value, at)? else { return Ok(None) };
                let (name, value) = (self.text_of(&name, at), self.text_of(&value, at));
                self.out.tags.push((name, value));
                Some(Value::None)
            }
            Filter::RemoveComment => {
                if let Some(n) = self.node_of(at) {
                    self.out.removed.push(n);
                }
                Some(Value::None)
            }
            Filter::HasComment => {
                let Loc::Node(n) = at else { return Ok(None) };
                let original = !self.game.node(n).comments.is_empty();
                found(original || self.out.comments.iter().any(|(c, _)| *c == n))
            }
            Filter::OriginalComment => {
                let Loc::Node(n) = at else { return Ok(None) };
                let comments = &self.game.node(n).comments;
                if comments.is_empty() {
                    None
                } else {
                    Some(Value::Str(comments.join(" ")))
                }
            }
            _ => return Err(internal("internal error: eval_output given a filter of another family")),
        })
    }
}
