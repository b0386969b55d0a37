//! Keywords on the state of one position: check and mate, side to move, truth values.
//!
//! Also the problemists' mates (`puremate`, `idealstalemate`, …), `mainline`/`variation` and the
//! move counters `ply` and `movenumber`.
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/position-state.md`; [`Parser::parse_word`] tries each family in turn.

use shakmaty::Color;

use super::*;

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &[
    "black",
    "btm",
    "check",
    "false",
    "initial",
    "mainline",
    "mate",
    "movenumber",
    "ply",
    "sidetomove",
    "stalemate",
    "terminal",
    "true",
    "variation",
    "white",
    "wtm",
    "fen",
];

impl Parser<'_> {
    /// A filter on the state of the position: `check`, `mate`, `wtm`, `true`, `puremate`, `ply`, …
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_position_state_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        if let Some(mate) = self.parse_mate_word(w, sp)? {
            return Ok(Some(mate));
        }
        match w {
            "fen" => self.parse_fen(sp),
            "check" => self.simple(Filter::Check, sp),
            "mate" => self.simple(Filter::Mate, sp),
            "stalemate" => self.simple(Filter::Stalemate, sp),
            "wtm" => self.simple(Filter::ToMove(Color::White), sp),
            "btm" => self.simple(Filter::ToMove(Color::Black), sp),
            "initial" => self.simple(Filter::Initial, sp),
            "terminal" => self.simple(Filter::Terminal, sp),
            "true" => self.simple(Filter::True, sp),
            "false" => self.simple(Filter::False, sp),
            "sidetomove" => self.simple(Filter::SideToMove, sp),
            "white" => self.simple(Filter::Number(1), sp),
            "black" => self.simple(Filter::Number(-1), sp),
            "mainline" => self.simple(Filter::Mainline, sp),
            "variation" => self.simple(Filter::Variation, sp),
            "ply" | "movenumber" => {
                self.no_range_after(w);
                let f = if w == "ply" { Filter::Ply } else { Filter::MoveNumber };
                self.simple(f, sp)
            }
            _ => return Ok(None),
        }
        .map(Some)
    }
}
