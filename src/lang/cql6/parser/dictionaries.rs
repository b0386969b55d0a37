//! Keywords of dictionaries: declaring one with `dictionary`.
//!
//! A declared dictionary's uses and the `persistent`/`local` forms are read by the parser's
//! dictionary helpers.
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/dictionaries.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;

impl Parser<'_> {
    /// A dictionary declaration: `dictionary NAME`.
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_dictionaries_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        match w {
            "dictionary" => self.parse_dictionary_decl(false, false, sp),
            _ => return Ok(None),
        }
        .map(Some)
    }
}
