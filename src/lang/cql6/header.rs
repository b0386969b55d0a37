//! Keywords on the game's PGN headers: players, ratings, result, event, site, date, tags.
//!
//! A header given as text may be followed by a string it must contain (`player "Carlsen"`).
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/header.md`; [`Parser::parse_word`] tries each family in turn.

use shakmaty::Color;

use super::*;

impl Parser<'_> {
    /// A filter on the game's headers: `player`, `elo`, `result`, `site`, `tag "…"`, `year`, …
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_header_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        match w {
            "site" => {
                let id = self.add(Filter::Header(HeaderField::Site), sp);
                Ok(self.maybe_contains(id, sp))
            }
            "event" => {
                let id = self.add(Filter::Header(HeaderField::Event), sp);
                Ok(self.maybe_contains(id, sp))
            }
            "date" => {
                let id = self.add(Filter::Header(HeaderField::Date), sp);
                Ok(self.maybe_contains(id, sp))
            }
            "eco" => {
                let id = self.add(Filter::Header(HeaderField::Eco), sp);
                Ok(self.maybe_contains(id, sp))
            }
            "eventdate" => {
                // CQL 6.2 reads the tag as a date: a game without one, or with something else
                // than a `yyyy.mm.dd` date (`?` for unknown digits), has the unknown date.
                let raw = self.add(Filter::Header(HeaderField::Tag("EventDate".into())), sp);
                let pattern = r"^[0-9?]{4}\.[0-9?]{2}\.[0-9?]{2}$".to_string();
                let tag = self.add(Filter::RegexMatch { subject: raw, pattern }, sp);
                let unknown = self.add(Filter::Str("????.??.??".into()), sp);
                let id = self.add(Filter::Or(vec![tag, unknown]), sp);
                Ok(self.maybe_contains(id, sp))
            }
            "hhdb" => self.parse_hhdb(sp),
            "year" | "gamenumber" => {
                self.no_range_after(w);
                let f = if w == "year" { Filter::Year } else { Filter::GameNumber };
                self.simple(f, sp)
            }
            "player" => {
                let hay = match self.color_word() {
                    Some(c) => self.add(Filter::Header(HeaderField::Player(c)), sp),
                    None => {
                        if let Tok::Str(s) = self.peek().tok.clone() {
                            let t = self.bump();
                            let needle = self.add(Filter::Str(s.clone()), t.span);
                            let w = self.add(Filter::Header(HeaderField::Player(Color::White)), sp);
                            let b = self.add(Filter::Header(HeaderField::Player(Color::Black)), sp);
                            let cw = self.add(Filter::Contains { haystack: w, needle, ignore_case: false }, sp);
                            let cb = self.add(Filter::Contains { haystack: b, needle, ignore_case: false }, sp);
                            return Ok(Some(self.add(Filter::Or(vec![cw, cb]), Self::join(sp, t.span))));
                        }
                        let w = self.add(Filter::Header(HeaderField::Player(Color::White)), sp);
                        let b = self.add(Filter::Header(HeaderField::Player(Color::Black)), sp);
                        return Ok(Some(self.add(Filter::Or(vec![w, b]), sp)));
                    }
                };
                Ok(self.maybe_contains(hay, sp))
            }
            "elo" => {
                let c = self.color_word();
                self.no_range_after("elo");
                match c {
                    Some(c) => self.simple(Filter::Header(HeaderField::Elo(c)), sp),
                    None => {
                        let w = self.add(Filter::Header(HeaderField::Elo(Color::White)), sp);
                        let b = self.add(Filter::Header(HeaderField::Elo(Color::Black)), sp);
                        self.simple(Filter::Or(vec![w, b]), sp)
                    }
                }
            }
            "result" => {
                let t = self.bump();
                match t.tok {
                    Tok::ResultLit(r) => self.simple(Filter::Result(r), Self::join(sp, t.span)),
                    Tok::Str(ref text) if result_of(text).is_some() => {
                        let r = result_of(text).unwrap_or(GameResult::Draw);
                        self.simple(Filter::Result(r), Self::join(sp, t.span))
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
                let t = self.bump();
                let Tok::Str(name) = t.tok else {
                    self.error("`tag` needs a tag name in quotes", t.span);
                    return Err(());
                };
                let h = self.add(Filter::Header(HeaderField::Tag(name)), Self::join(sp, t.span));
                Ok(self.maybe_contains(h, sp))
            }
            _ => return Ok(None),
        }
        .map(Some)
    }
}
