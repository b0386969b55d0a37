//! Facts about a game or a position that only the legacy language (CQL 1–3, Scidb's CQL-S)
//! asks for and no other IR filter can express: castling rights, the halfmove clock,
//! repetitions, exchange values, header fields that need parsing (time mode, round
//! numbers), the kind of start position.
//!
//! Takes in: nothing (a leaf of the IR, built by `lang::legacy::lower`). Gives out: a value
//! or a yes/no at a position, computed by `eval::legacy_facts`.
//! Must never: hold another filter (these are leaves, so transforms leave them unchanged —
//! which is what [`LegacyFact::Region`] relies on).

use shakmaty::{Bitboard, Color};

use super::{PieceMask, ValueType};

/// A count or percentage bound used by [`LegacyFact::GoodBishop`]: `lo..=hi`, as a number of
/// pawns or (with `percent`) as a share of the pawns of that colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PawnShare {
    /// Lowest accepted value.
    pub lo: i64,
    /// Highest accepted value.
    pub hi: i64,
    /// The bounds are percentages of the pawns of that colour.
    pub percent: bool,
}

/// Scidb's time modes (`:timemode`), one bit each.
pub mod time_mode {
    /// No time mode known (no `TimeMode` tag and no usable `TimeControl`).
    pub const UNKNOWN: u8 = 1;
    /// Classical time control.
    pub const NORMAL: u8 = 2;
    /// Rapid chess.
    pub const RAPID: u8 = 4;
    /// Blitz.
    pub const BLITZ: u8 = 8;
    /// Bullet.
    pub const BULLET: u8 = 16;
    /// Correspondence chess.
    pub const CORR: u8 = 32;
}

/// A legacy-only fact. Numbers are `Value::Number`, yes/no facts match or not, and
/// [`LegacyFact::Region`] is a square set.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LegacyFact {
    /// The halfmove clock: plies since the last capture or pawn move (`:halfmoveclock`).
    HalfmoveClock,
    /// How many of the castling rights in the mask the position still has; bit 0 White
    /// king side, 1 White queen side, 2 Black king side, 3 Black queen side (`:castling`).
    CastlingRights(u8),
    /// How many times this position (board, side to move, castling and en-passant
    /// rights) has stood on the board in the line leading here, this time included
    /// (`:repetitioncount`, `:threefoldrepetition`).
    RepetitionCount,
    /// The number of checks this colour has given in the line leading here, this position
    /// included (`:checkcount`).
    ChecksGiven(Color),
    /// The king of this colour has the opposition: the kings stand on one rank, file or
    /// diagonal, and their distance plus one if this colour is to move is even
    /// (`:opposition`).
    Opposition(Color),
    /// Some bishop of the set has the given share of enemy pawns on its square colour and
    /// of own pawns off its square colour (`:goodbishop`).
    GoodBishop {
        /// Bishop kinds.
        mask: PieceMask,
        /// Squares the bishops are looked for on.
        squares: Bitboard,
        /// Enemy pawns on the bishop's square colour.
        enemy: PawnShare,
        /// Own pawns not on the bishop's square colour.
        own: PawnShare,
    },
    /// The material the next move wins by static exchange on its target square, in pawns
    /// (P1 N3 B3 R5 Q9); no value when the next move is not a capture
    /// (`:exchangeevaluation`).
    ExchangeValue,
    /// The best static-exchange gain over the legal moves of a piece of `movers` to a
    /// square of `targets`, in pawns (`:maxswapevaluation`).
    MaxSwap {
        /// Kinds of the moving pieces.
        mask: PieceMask,
        /// Squares they move from.
        from: Bitboard,
        /// Squares they move to (any content).
        to: Bitboard,
    },
    /// A fixed set of squares that board transforms do not move (`:inside`).
    Region(Bitboard),
    /// The game's time mode is one of these (bits of [`time_mode`]): the `TimeMode` tag, or
    /// else a classification of the `TimeControl` tag (`:timemode`).
    TimeMode(u8),
    /// The round number (`sub` false) or sub-round number (`sub` true) of the `Round`
    /// tag `R` / `R.S`; 0 when absent (`:round`, `:subround`).
    Round {
        /// Read the sub-round.
        sub: bool,
    },
    /// The FIDE category of the `EventCategory` tag (digits or Roman numerals); 0 when
    /// absent (`:eventcategory`).
    EventCategory,
    /// The game starts from a Shuffle Chess set-up (`chess960`: one that Chess960 allows,
    /// bishops on opposite colours and king between rooks); the standard set-up counts
    /// (`:isshufflechess`, `:ischess960`).
    ShuffleStart {
        /// Only Chess960 set-ups.
        chess960: bool,
    },
    /// The Chess960 number (0..959, standard = 518) of the start set-up, when it is one
    /// (`:startposition`).
    Chess960Number,
    /// The move into this position carries a numeric annotation glyph (`:hasannotation`).
    HasNag,
}

impl LegacyFact {
    /// What the fact yields when it holds: a number for counts and measures, a square set
    /// for [`LegacyFact::Region`], nothing for yes/no facts.
    pub fn value_type(&self) -> ValueType {
        match self {
            LegacyFact::Region(_) => ValueType::Set,
            LegacyFact::HalfmoveClock
            | LegacyFact::CastlingRights(_)
            | LegacyFact::RepetitionCount
            | LegacyFact::ChecksGiven(_)
            | LegacyFact::ExchangeValue
            | LegacyFact::MaxSwap { .. }
            | LegacyFact::Round { .. }
            | LegacyFact::EventCategory
            | LegacyFact::Chess960Number => ValueType::Number,
            LegacyFact::Opposition(_)
            | LegacyFact::GoodBishop { .. }
            | LegacyFact::TimeMode(_)
            | LegacyFact::ShuffleStart { .. }
            | LegacyFact::HasNag => ValueType::None,
        }
    }
}

/// A Roman numeral (I … XXX and beyond), if the text is one.
pub fn roman(text: &str) -> Option<i64> {
    if text.is_empty() {
        return None;
    }
    let digit = |c: char| match c {
        'I' => Some(1),
        'V' => Some(5),
        'X' => Some(10),
        'L' => Some(50),
        'C' => Some(100),
        _ => None,
    };
    let values: Option<Vec<i64>> = text.chars().map(digit).collect();
    let values = values?;
    let mut total = 0;
    for (i, &v) in values.iter().enumerate() {
        if values.get(i + 1).is_some_and(|&next| next > v) {
            total -= v;
        } else {
            total += v;
        }
    }
    Some(total)
}
