//! Keywords that write into the output: comments, messages, tags set on a game, sorting.
//!
//! Also the filters on a position's existing comments (`hascomment`, `originalcomment`).
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/output.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;
use crate::ir::{NumberFilter, OutputFilter};

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] =
    &["comment", "hascomment", "message", "originalcomment", "removecomment", "settag", "sort"];

impl Parser<'_> {
    /// A filter that writes output or reads comments: `comment`, `message`, `sort`, `settag`, `hascomment`, …
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_output_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        match w {
            // CQL 6.2 reads both words as one filter (`Tokens::match_hascommentnode`): the
            // comment the position has in the input, as a string. A string after it is a NAG
            // (`"!"`, `"?!"`, `"$14"`, …) to look for, or else text the comment must contain.
            "hascomment" | "originalcomment" => self.parse_original_comment(sp),
            "removecomment" => self.simple(Filter::Output(OutputFilter::RemoveComment), sp),
            "settag" => {
                let a = self.args_exact(w, 2, sp)?;
                // The name is a quoted string CQL 6.2 lets a query write
                // (`Tokens::match_tagsetnode`, `TagSetNode::isSettable`).
                let why = match self.ir.get(a[0]) {
                    Filter::Numbers(NumberFilter::Str(name)) => super::header::settable_tag(name).err(),
                    _ => Some("`settag` takes the tag name as a quoted string first".to_string()),
                };
                if let Some(why) = why {
                    let at = self.ir.span(a[0]);
                    self.error_hint(why, at, Some(super::header::TAG_NAME_HINT.into()));
                    return Err(());
                }
                self.simple(Filter::Output(OutputFilter::SetTag(a[0], a[1])), sp)
            }
            "comment" | "message" => {
                // `message quiet …` (CQL 6.2): the message without the game and position
                // in front.
                let quiet = w == "message" && self.eat_word("quiet");
                // Without parentheses the argument is one whole filter (CQL 6.2 reads it with
                // `match_node`): a comment of a string comparison comments the comparison.
                let args = if self.at_sym(Sym::LParen) {
                    self.parse_converter_args()?
                } else {
                    vec![self.parse_converter_arg(BP_OR)?]
                };
                self.simple(
                    if w == "comment" {
                        Filter::Output(OutputFilter::Comment(args))
                    } else {
                        Filter::Output(OutputFilter::Message { args, quiet })
                    },
                    sp,
                )
            }
            "sort" => {
                let mut min = false;
                // `quiet` comes first (CQL 6.2 `Tokens::match_sortnode`).
                let quiet = self.eat_word("quiet");
                let explicit = self.peek().span;
                // CQL 6.2 sorts `sort max` in the same direction as `sort min`, smallest
                // first (`Tokens::match_sortnode` sets the upward direction for both); only a
                // sort without `min`/`max` puts the largest first (docs/compat.md).
                let direction = self.eat_word("min") || self.eat_word("max");
                if direction {
                    min = true;
                }
                let mut doc = String::new();
                if let Tok::Str(s) = &self.peek().tok {
                    doc = s.clone();
                    self.bump();
                }
                // CQL 6.2 (`Tokens::match_sortnode`) wants a name for a sort whose
                // direction is written, and refuses a bare number to sort by.
                if direction && doc.is_empty() {
                    self.error_hint(
                        "`sort min` and `sort max` need a nonempty name after them",
                        explicit,
                        Some("name what is sorted: `sort min \"pieces left\" #[Aa]`".into()),
                    );
                    return Err(());
                }
                let value = self.parse_expr(BP_LOOSE)?;
                if let Filter::Numbers(NumberFilter::Number(n)) = self.ir.get(value) {
                    let n = *n;
                    let at = self.ir.span(value);
                    self.error_hint(
                        format!("`sort` by the number {n}: a constant does not sort anything"),
                        at,
                        Some("sort by a numeric filter (`sort #[Aa]`); `sort` takes no range".into()),
                    );
                    return Err(());
                }
                let s = Self::join(sp, self.ir.span(value));
                Ok(self.add(Filter::Output(OutputFilter::Sort { doc, min, quiet, value }), s))
            }
            _ => return Ok(None),
        }
        .map(Some)
    }

    /// The rest of `hascomment` / `originalcomment` (the word read, at `sp`).
    fn parse_original_comment(&mut self, sp: Span) -> PResult<FilterId> {
        let comment = self.add(Filter::Output(OutputFilter::OriginalComment), sp);
        let Tok::Str(text) = self.peek().tok.clone() else { return Ok(comment) };
        if text.is_empty() {
            return Ok(comment);
        }
        let t = self.bump();
        let whole = Self::join(sp, t.span);
        match nag_number(&text) {
            Some(0) => {
                self.error_hint("`$0` is no annotation glyph", t.span, Some("NAGs are numbered from 1 to 255".into()));
                Err(())
            }
            Some(nag) if nag > 255 => {
                self.error_hint(
                    format!("`{text}`: NAGs go up to 255"),
                    t.span,
                    Some("NAGs are numbered from 1 to 255".into()),
                );
                Err(())
            }
            Some(nag) => Ok(self.add(Filter::LegacyFact(crate::ir::LegacyFact::Nag(nag as u8)), whole)),
            None => {
                let needle = self.add(Filter::Numbers(NumberFilter::Str(text)), t.span);
                Ok(self.add(
                    Filter::Numbers(NumberFilter::Contains { haystack: comment, needle, ignore_case: false }),
                    whole,
                ))
            }
        }
    }
}

/// The annotation glyph a string names, as CQL 6.2 reads the string after `hascomment`
/// (`HasCommentNode::nag_from_string`): the move symbols `!` `?` `!!` `??` `!?` `?!`, the
/// position symbols `=` `+/=` `=/+` `+/-` `-/+` `+-` `-+`, or `$N`. `None` for any other text.
fn nag_number(text: &str) -> Option<u32> {
    let symbol = match text {
        "!" => 1,
        "?" => 2,
        "!!" => 3,
        "??" => 4,
        "!?" => 5,
        "?!" => 6,
        "=" => 10,
        "+/=" => 14,
        "=/+" => 15,
        "+/-" => 16,
        "-/+" => 17,
        "+-" => 18,
        "-+" => 19,
        _ => 0,
    };
    if symbol > 0 {
        return Some(symbol);
    }
    let digits = text.strip_prefix('$')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(digits.parse::<u32>().unwrap_or(u32::MAX))
}
