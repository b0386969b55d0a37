//! Keywords on pieces and square sets: material, square colours, piece names and pawn structure.
//!
//! Piece designators and set operators are read in the expression parser; these are the words.
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/pieces-and-sets.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;
use crate::ir::{NumberFilter, SetFilter};

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &[
    "colortype",
    "connectedpawns",
    "dark",
    "doubledpawns",
    "isolatedpawns",
    "light",
    "passedpawns",
    "pieceid",
    "piecename",
    "power",
    "type",
    "typename",
];

impl Parser<'_> {
    /// A filter on pieces or squares: `power`, `light`, `type`, `pieceid`, `passedpawns`, …
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_pieces_and_sets_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        match w {
            "passedpawns" => self.simple(Filter::Sets(SetFilter::PawnStructure(PawnStructure::Passed)), sp),
            "doubledpawns" => self.simple(Filter::Sets(SetFilter::PawnStructure(PawnStructure::Doubled)), sp),
            "isolatedpawns" => self.simple(Filter::Sets(SetFilter::PawnStructure(PawnStructure::Isolated)), sp),
            "connectedpawns" => self.simple(Filter::Sets(SetFilter::PawnStructure(PawnStructure::Connected)), sp),
            "power" => self.tight_arg(|a| Filter::Numbers(NumberFilter::Call(Builtin::Power, vec![a])), sp),
            "light" => self.tight_arg(|a| Filter::Numbers(NumberFilter::Call(Builtin::Light, vec![a])), sp),
            "dark" => self.tight_arg(|a| Filter::Numbers(NumberFilter::Call(Builtin::Dark, vec![a])), sp),
            "type" => self.tight_arg(|a| Filter::Numbers(NumberFilter::Call(Builtin::Type, vec![a])), sp),
            "typename" => self.tight_arg(|a| Filter::Numbers(NumberFilter::Call(Builtin::TypeName, vec![a])), sp),
            "piecename" => self.tight_arg(|a| Filter::Numbers(NumberFilter::Call(Builtin::PieceName, vec![a])), sp),
            "colortype" => self.tight_arg(|a| Filter::Numbers(NumberFilter::Call(Builtin::ColorType, vec![a])), sp),
            "pieceid" => self.tight_arg(|a| Filter::Numbers(NumberFilter::Call(Builtin::PieceId, vec![a])), sp),
            _ => return Ok(None),
        }
        .map(Some)
    }
}
