//! Facts about a game or a position that only the legacy language (CQL 1–3, Scidb's CQL-S)
//! asks for and no other IR filter can express: castling rights, the halfmove clock,
//! repetitions, exchange values, header fields that need parsing (time mode, round
//! numbers), the kind of start position.
//!
//! Takes in: nothing (a leaf of the IR, built by `lang::legacy::lower`). Gives out: a value
//! or a yes/no at a position, computed by `eval::engine::legacy_facts`.
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

/// Scidb's game markers (its "game flags"), one bit each, as [`LegacyFact::Markers`]
/// reads them from a game's `Markers` tag.
pub mod marker {
    /// The user-settable markers: (bit, name as Scidb's help writes it without spaces,
    /// Scid's one-character symbol where Scid has one).
    pub const USER: &[(u32, &str, Option<char>)] = &[
        (1 << 0, "whiteopening", Some('W')),
        (1 << 1, "blackopening", Some('B')),
        (1 << 2, "middlegame", Some('M')),
        (1 << 3, "endgame", Some('E')),
        (1 << 4, "novelty", Some('N')),
        (1 << 5, "pawnstructure", Some('P')),
        (1 << 6, "tactics", Some('T')),
        (1 << 7, "kingside", Some('K')),
        (1 << 8, "queenside", Some('Q')),
        (1 << 9, "brilliancy", Some('!')),
        (1 << 10, "blunder", Some('?')),
        (1 << 11, "user", Some('U')),
        (1 << 12, "bestgame", None),
        (1 << 13, "decidedtournament", None),
        (1 << 14, "modelgame", None),
        (1 << 15, "strategy", None),
        (1 << 16, "attack", None),
        (1 << 17, "sacrifice", None),
        (1 << 18, "defense", None),
        (1 << 19, "material", None),
        (1 << 20, "pieceplay", None),
    ];
    /// The two markers Scidb sets by itself: an illegal castling, or another move that
    /// breaks the rules (a king moving into check), in the main line.
    pub const AUTOMATIC: &[(u32, &str, Option<char>)] =
        &[(1 << 21, "illegalmove", None), (1 << 22, "invalidmove", None)];
    /// The special markers: deleted, changed, newly added (Scid writes `D` for deleted).
    pub const SPECIAL: &[(u32, &str, Option<char>)] =
        &[(1 << 24, "deleted", Some('D')), (1 << 25, "changed", None), (1 << 26, "added", None)];
    /// Bit of the automatic "illegal move" marker.
    pub const ILLEGAL_MOVE: u32 = 1 << 21;
    /// Bit of the automatic "invalid move" marker.
    pub const INVALID_MOVE: u32 = 1 << 22;

    /// A marker name folded for comparison: lower case, letters and digits only
    /// (`White Opening`, `white-opening` and `whiteopening` are one name).
    pub fn fold(name: &str) -> String {
        name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
    }

    /// The bit of a marker written by name or by Scid's symbol, in `table`. A few
    /// other spellings are accepted: `defence`, `new`/`newlyadded`, `deletion`, `change`.
    pub fn lookup(word: &str, table: &[(u32, &str, Option<char>)]) -> Option<u32> {
        let w = word.trim();
        let mut chars = w.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            if let Some((bit, _, _)) = table.iter().find(|(_, _, sym)| *sym == Some(c)) {
                return Some(*bit);
            }
        }
        let folded = match fold(w).as_str() {
            "defence" => "defense".to_string(),
            "new" | "newlyadded" | "newgame" => "added".to_string(),
            "deletion" | "delete" => "deleted".to_string(),
            "change" => "changed".to_string(),
            other => other.to_string(),
        };
        table.iter().find(|(_, name, _)| *name == folded).map(|(bit, _, _)| *bit)
    }

    /// The markers a `Markers` tag value lists: names separated by commas or
    /// semicolons, or (a value without separators and spaces that is no name) Scid's
    /// symbols run together, such as `WN!`.
    pub fn parse(value: &str) -> u32 {
        let all: Vec<(u32, &str, Option<char>)> = USER.iter().chain(AUTOMATIC).chain(SPECIAL).copied().collect();
        let mut bits = 0;
        for part in value.split([',', ';']).map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(b) = lookup(part, &all) {
                bits |= b;
            } else if !part.contains(char::is_whitespace) {
                for c in part.chars() {
                    if let Some((b, _, _)) = all.iter().find(|(_, _, sym)| *sym == Some(c)) {
                        bits |= b;
                    }
                }
            }
        }
        bits
    }
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
    /// The move that led here carries this NAG (`$N`). CQL 6: `hascomment "!"`,
    /// `hascomment "$14"`.
    Nag(u8),
    /// The game carries one of these markers (bits of [`marker`]) in its `Markers` tag
    /// (`:hasmarker`, `:hasspecialmarker`).
    Markers(u32),
    /// The side not to move is in check: the move into this position (or the set-up)
    /// left the mover's own king attacked, which no legal move does (`:isinvalid`, read
    /// after the next move).
    KingLeftInCheck,
    /// The position breaks the rules of chess: a side without a king or with several, a
    /// pawn on the first or last rank, more men than a game can have, the side not to
    /// move in check, or a check no legal move gives (`:isillegal`, read after the next
    /// move).
    BreaksSetupRules,
    /// Some tag of the game, whatever its name, holds this text (case-insensitive; any
    /// tag at all when `None`) (`:tag *`).
    AnyTag(Option<String>),
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
            | LegacyFact::HasNag
            | LegacyFact::Nag(_)
            | LegacyFact::Markers(_)
            | LegacyFact::KingLeftInCheck
            | LegacyFact::BreaksSetupRules
            | LegacyFact::AnyTag(_) => ValueType::None,
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
