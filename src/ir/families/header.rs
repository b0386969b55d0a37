//! The game header (docs/header.md): tags, result, year, game number, study
//! databases, FEN.
//!
//! One family of the IR's [`Filter`](crate::ir::Filter) (`Filter::Header`); its evaluator is
//! `src/eval/engine/` (the file of the same family).

use crate::ir::{GameResult, HeaderField};

/// A fact of the game as a whole, read from its header (or its text).
///
/// Each variant says what it means in chess terms and how it is spelled in the front-ends
/// (CQL 6 / legacy / YACPDB).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HeaderFilter {
    /// A header field as a string (numeric for Elo). CQL 6: `player white`, `event`.
    Field(HeaderField),
    /// The game ends with this result. CQL 6 `result 1-0`; legacy `:result`.
    Result(GameResult),
    /// Year of the `[Date]` tag; no match when unknown. `year`.
    Year,
    /// The ordinal of the game in the input, from 1. `gamenumber`.
    GameNumber,
    /// Does some text of the game — a tag value or a comment anywhere in the game tree,
    /// variations included — contain this text? A game-level fact (CQL 6.2 `hhdb cooked`:
    /// the study's record carries a `<cook…>` note somewhere).
    GameTextContains(String),
    /// CQL 6.2 `hhdb award …`: the distinction a study received, read from the `[Event]` tag of
    /// an HHdb-style PGN (`3.p …` third prize, `1/2.hm` shared first/second honourable mention,
    /// `sp.c` special commendation). Matches when the game has a distinction of the kind asked
    /// for; the value is its rank (the best rank of a shared one, or the worst with `max`; 1 to
    /// 10,000 when no rank is given). A special distinction not asked for with `special`
    /// matches without a rank (no numeric value).
    HhdbAward {
        /// Which kind of distinction.
        kind: HhdbAwardKind,
        /// Only special distinctions (`hhdb special …`).
        special: bool,
        /// The worst rank of a shared distinction instead of the best (`hhdb … max`).
        max: bool,
    },
    /// CQL 6.2 `fen` without a string: the FEN of the current position (board, side to move,
    /// castling rights, en passant square, halfmove clock, move number).
    CurrentFen,
}

/// The kind of distinction a study received, as HHdb records it ([`HeaderFilter::HhdbAward`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HhdbAwardKind {
    /// Any distinction: prize, honourable mention or commendation (`award`).
    Any,
    /// A prize (`.p`).
    Prize,
    /// An honourable mention (`.hm`).
    HonourableMention,
    /// A commendation (`.c`).
    Commendation,
}
