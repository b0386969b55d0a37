//! Keywords on the state of one position: check and mate, side to move, truth values.
//!
//! Also the problemists' mates (`puremate`, `idealstalemate`, …), `mainline`/`variation` and the
//! move counters `ply` and `movenumber`.
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/position-state.md`; [`Parser::parse_word`] tries each family in turn.

use crate::ir::{NumberFilter, PositionStateFilter};
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
            "check" => self.simple(Filter::PositionState(PositionStateFilter::Check), sp),
            "mate" => self.simple(Filter::PositionState(PositionStateFilter::Mate), sp),
            "stalemate" => self.simple(Filter::PositionState(PositionStateFilter::Stalemate), sp),
            "wtm" => self.simple(Filter::PositionState(PositionStateFilter::ToMove(Color::White)), sp),
            "btm" => self.simple(Filter::PositionState(PositionStateFilter::ToMove(Color::Black)), sp),
            "initial" => self.simple(Filter::PositionState(PositionStateFilter::Initial), sp),
            "terminal" => self.simple(Filter::PositionState(PositionStateFilter::Terminal), sp),
            "true" => self.simple(Filter::True, sp),
            "false" => self.simple(Filter::False, sp),
            "sidetomove" => self.simple(Filter::PositionState(PositionStateFilter::SideToMove), sp),
            "white" => self.simple(Filter::Numbers(NumberFilter::Number(1)), sp),
            "black" => self.simple(Filter::Numbers(NumberFilter::Number(-1)), sp),
            "mainline" => self.simple(Filter::PositionState(PositionStateFilter::Mainline), sp),
            "variation" => self.simple(Filter::PositionState(PositionStateFilter::Variation), sp),
            "ply" | "movenumber" => {
                self.no_range_after(w);
                let f = if w == "ply" {
                    Filter::PositionState(PositionStateFilter::Ply)
                } else {
                    Filter::PositionState(PositionStateFilter::MoveNumber)
                };
                self.simple(f, sp)
            }
            _ => return Ok(None),
        }
        .map(Some)
    }
}
