//! Keywords on the game's PGN headers: players, ratings, result, event, site, date, tags.
//!
//! A header given as text may be followed by a string it must contain (`player "Carlsen"`).
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/header.md`; [`Parser::parse_word`] tries each family in turn.

use crate::ir::{HeaderFilter, LogicFilter, NumberFilter};
use shakmaty::Color;

use super::*;

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] =
    &["date", "eco", "elo", "event", "gamenumber", "player", "result", "site", "tag", "year", "hhdb", "eventdate"];

impl Parser<'_> {
    /// A filter on the game's headers: `player`, `elo`, `result`, `site`, `tag "…"`, `year`, …
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_header_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        match w {
            "site" => {
                let id = self.add(Filter::Header(HeaderFilter::Field(HeaderField::Site)), sp);
                Ok(self.maybe_contains(id, sp))
            }
            "event" => {
                let id = self.add(Filter::Header(HeaderFilter::Field(HeaderField::Event)), sp);
                Ok(self.maybe_contains(id, sp))
            }
            "date" => {
                let id = self.add(Filter::Header(HeaderFilter::Field(HeaderField::Date)), sp);
                Ok(self.maybe_contains(id, sp))
            }
            "eco" => {
                let id = self.add(Filter::Header(HeaderFilter::Field(HeaderField::Eco)), sp);
                Ok(self.maybe_contains(id, sp))
            }
            "eventdate" => {
                // Read as a date like `date`: a game without one has the unknown date
                // `????.??.??` (`tag_text` in src/eval/engine/header.rs).
                let id = self.add(Filter::Header(HeaderFilter::Field(HeaderField::Tag("EventDate".into()))), sp);
                Ok(self.maybe_contains(id, sp))
            }
            "hhdb" => self.parse_hhdb(sp),
            "year" | "gamenumber" => {
                self.no_range_after(w);
                let f = if w == "year" {
                    Filter::Header(HeaderFilter::Year)
                } else {
                    Filter::Header(HeaderFilter::GameNumber)
                };
                self.simple(f, sp)
            }
            "player" => {
                let hay = match self.color_word() {
                    Some(c) => self.add(Filter::Header(HeaderFilter::Field(HeaderField::Player(c))), sp),
                    // `player` alone is both names in one string, White's, a backslash and
                    // an `n` (CQL strings have no escapes), then Black's, the same in every
                    // transform (CQL 6.2 `Tokens::match_player`).
                    None => {
                        let w = self.add(Filter::Header(HeaderFilter::Field(HeaderField::Player(Color::White))), sp);
                        let between = self.add(Filter::Numbers(NumberFilter::Str("\\n".into())), sp);
                        let b = self.add(Filter::Header(HeaderFilter::Field(HeaderField::Player(Color::Black))), sp);
                        let first = self.add(Filter::Numbers(NumberFilter::Arith(ArithOp::Add, w, between)), sp);
                        let both = self.add(Filter::Numbers(NumberFilter::Arith(ArithOp::Add, first, b)), sp);
                        self.add(Filter::NoTransform(both), sp)
                    }
                };
                Ok(self.maybe_contains(hay, sp))
            }
            "elo" => {
                let c = self.color_word();
                self.no_range_after("elo");
                match c {
                    Some(c) => self.simple(Filter::Header(HeaderFilter::Field(HeaderField::Elo(c))), sp),
                    None => {
                        // The higher of the two ratings, or the one a game has
                        // (`EloNode::match_count`): `max` needs both, `or` takes the
                        // first of the others that has a value.
                        let w = self.add(Filter::Header(HeaderFilter::Field(HeaderField::Elo(Color::White))), sp);
                        let b = self.add(Filter::Header(HeaderFilter::Field(HeaderField::Elo(Color::Black))), sp);
                        let higher = self.add(Filter::Numbers(NumberFilter::Call(Builtin::Max, vec![w, b])), sp);
                        let w = self.add(Filter::Header(HeaderFilter::Field(HeaderField::Elo(Color::White))), sp);
                        let b = self.add(Filter::Header(HeaderFilter::Field(HeaderField::Elo(Color::Black))), sp);
                        self.simple(Filter::Logic(LogicFilter::Or(vec![higher, w, b])), sp)
                    }
                }
            }
            "result" => {
                let t = self.bump();
                match t.tok {
                    Tok::ResultLit(r) => self.simple(Filter::Header(HeaderFilter::Result(r)), Self::join(sp, t.span)),
                    Tok::Str(ref text) if result_of(text).is_some() => {
                        let r = result_of(text).unwrap_or(GameResult::Draw);
                        self.simple(Filter::Header(HeaderFilter::Result(r)), Self::join(sp, t.span))
                    }
                    _ => {
                        self.error_hint(
                            "`result` needs a result",
                            t.span,
                            Some("write `result 1-0`, `result 0-1` or `result 1/2-1/2`".into()),
                        );
                        Err(())
                    }
                }
            }
            "tag" => {
                // No implicit search after it: `tag "White" "x"` is two filters
                // (CQL 6.2 `Tokens::match_tagnode`).
                let t = self.bump();
                let Tok::Str(name) = t.tok else {
                    self.error("`tag` needs a tag name in quotes", t.span);
                    return Err(());
                };
                if let Err(why) = queryable_tag(&name) {
                    self.error_hint(why, t.span, Some(TAG_NAME_HINT.into()));
                    return Err(());
                }
                Ok(self.add(Filter::Header(HeaderFilter::Field(HeaderField::Tag(name))), Self::join(sp, t.span)))
            }
            _ => return Ok(None),
        }
        .map(Some)
    }
}

/// The tags CQL 6.2 reads itself (`TagBuiltInNode::builtInTags`): `tag` may name them.
const BUILT_IN_TAGS: [&str; 8] = ["Black", "White", "Event", "EventDate", "Site", "Date", "ECO", "FEN"];

/// Names too close to a built-in tag for `tag` and `settag` (`TagSetNode::forbiddenTags`).
const FORBIDDEN_TAGS: [&str; 30] = [
    "Black",
    "black",
    "BLACK",
    "White",
    "white",
    "WHITE",
    "Event",
    "event",
    "EVENT",
    "Site",
    "site",
    "SITE",
    "Date",
    "date",
    "DATE",
    "Eco",
    "eco",
    "ECO",
    "Fen",
    "fen",
    "FEN",
    "Round",
    "ROUND",
    "Result",
    "result",
    "RESULT",
    "EventDate",
    "eventdate",
    "eventDate",
    "EVENTDATE",
];

pub(super) const TAG_NAME_HINT: &str =
    "a tag name is letters, digits and `_`, such as `Annotator` or `TimeControl`; read the built-in ones with `player white`, `event`, `site`, `date`, `eco`";

/// May `settag` write a tag of this name (CQL 6.2 `TagSetNode::isSettable`)? The reason
/// when not.
pub(super) fn settable_tag(name: &str) -> Result<(), String> {
    let Some(first) = name.chars().next() else { return Err("a tag name cannot be empty".into()) };
    if !first.is_ascii_alphanumeric() {
        return Err(format!("a tag name must start with a letter or digit: `{name}`"));
    }
    if let Some(c) = name.chars().find(|c| !c.is_ascii_alphanumeric() && *c != '_') {
        return Err(format!("a tag name holds only letters, digits and `_`, not `{c}`: `{name}`"));
    }
    if FORBIDDEN_TAGS.contains(&name) {
        return Err(format!("CQL 6.2 does not let `tag` or `settag` use `{name}`, a name close to a built-in tag"));
    }
    if name.len() > 5 && (name.starts_with("White") || name.starts_with("Black")) {
        return Err(format!(
            "CQL 6.2 does not let `tag` or `settag` use a name that starts with `White` or `Black`: `{name}`"
        ));
    }
    if name.len() > 60 {
        return Err(format!("a tag name has at most 60 characters; `{name}` has {}", name.len()));
    }
    Ok(())
}

/// May `tag` read a tag of this name (CQL 6.2 `TagNode::isQueryable`): a built-in tag, or
/// one `settag` may write.
fn queryable_tag(name: &str) -> Result<(), String> {
    if BUILT_IN_TAGS.contains(&name) {
        return Ok(());
    }
    settable_tag(name)
}
