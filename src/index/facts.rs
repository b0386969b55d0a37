//! What the index remembers of one game: where its text is, its tags, and the facts of
//! its replay that let a query rule it out unread.
//!
//! Takes in: a game as the scan cut it out ([`RawGame`]) and, when it could be read, its
//! replayed tree ([`Game`]).
//! Gives out: a [`GameRecord`].
//! Must never: look at a query, or record a fact that is not true of every position the
//! evaluator can be at in this game (a fact that is too weak only costs speed; one that
//! is too strong would lose a match).

use shakmaty::{Color, Move, Position, Role};

use crate::input::RawGame;
use crate::pgn::{Game, Played};

/// The game could not be read (a broken tag section, an invalid FEN, an unclosed comment
/// …): the scan counts it skipped and reports it, so the index always reads it again.
pub const SKIPPED: u32 = 1 << 0;
/// The game was read only up to a move that cannot be played (reported once by the scan,
/// and written to `--rejects`): always read again.
pub const PARTLY_READ: u32 = 1 << 1;
/// Some position carries a comment.
pub const HAS_COMMENTS: u32 = 1 << 2;
/// The game has variations.
pub const HAS_VARIATIONS: u32 = 1 << 3;
/// Some move carries a numeric annotation glyph (`$1`, `!`, …).
pub const HAS_NAGS: u32 = 1 << 4;
/// White castled king-side somewhere in the game tree (main line or variation).
pub const CASTLE_WHITE_KING: u32 = 1 << 5;
/// White castled queen-side.
pub const CASTLE_WHITE_QUEEN: u32 = 1 << 6;
/// Black castled king-side.
pub const CASTLE_BLACK_KING: u32 = 1 << 7;
/// Black castled queen-side.
pub const CASTLE_BLACK_QUEEN: u32 = 1 << 8;
/// First of eight bits: a promotion of White to a queen, rook, bishop, knight, then the
/// same four for Black (see [`promotion_bit`]).
pub const PROMOTION_SHIFT: u32 = 9;
/// The last main-line position is checkmate.
pub const FINAL_MATE: u32 = 1 << 17;
/// The last main-line position is stalemate.
pub const FINAL_STALEMATE: u32 = 1 << 18;
/// Some move is an en passant capture.
pub const EN_PASSANT: u32 = 1 << 19;
/// Some move is a null move.
pub const NULL_MOVE: u32 = 1 << 20;
/// The game does not start from the standard position (a `[FEN]` set-up).
pub const SET_UP: u32 = 1 << 21;
/// The game's bytes were not UTF-8 and were read as Windows-1252.
pub const WINDOWS_1252: u32 = 1 << 22;
/// The game was larger than the build's `--max-game-bytes` and not read: an index that
/// holds one answers every query by scanning its sources.
pub const TOO_LARGE: u32 = 1 << 23;
/// An unreadable game whose tags could be read (its moves, or its set-up, could not): a
/// header-only query, which reads no moves, sees its tags (recorded) like any other.
pub const TAGS_READ: u32 = 1 << 27;
/// First of three bits holding the termination marker: 0 none, 1 `1-0`, 2 `0-1`,
/// 3 `1/2-1/2`, 4 `*`.
pub const TERMINATION_SHIFT: u32 = 24;

/// The bit of a promotion of `color` to `role` (queen, rook, bishop or knight; `None`
/// for another role).
pub fn promotion_bit(color: Color, role: Role) -> Option<u32> {
    let k = match role {
        Role::Queen => 0,
        Role::Rook => 1,
        Role::Bishop => 2,
        Role::Knight => 3,
        _ => return None,
    };
    Some(1 << (PROMOTION_SHIFT + k + if color.is_white() { 0 } else { 4 }))
}

/// The termination markers in the order of their codes (code 0 is no marker).
pub const TERMINATIONS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// The material of a position: how many of each piece, White's pawn, knight, bishop,
/// rook, queen and king, then Black's (kings are counted: a problem set-up may have none
/// or several).
pub type Material = [u8; 12];

/// The material of the standard start position.
pub const START_MATERIAL: Material = [8, 2, 2, 2, 1, 1, 8, 2, 2, 2, 1, 1];

/// Index into [`Material`] of a piece.
pub fn kind_of(color: Color, role: Role) -> usize {
    (if color.is_white() { 0 } else { 6 }) + role as usize - 1
}

/// A position of the game tree where the side to move is checkmated or stalemated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ending {
    /// Which of the game's distinct materials ([`GameRecord::materials`]) it has.
    pub material: u32,
    /// Checkmate (else stalemate).
    pub mate: bool,
    /// White is to move (and is the side mated or stalemated).
    pub white_to_move: bool,
}

/// Everything the index keeps of one game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameRecord {
    /// Ordinal of the game across all indexed sources, from 1.
    pub number: u64,
    /// Which source file ([`super::SourceInfo`]) holds it.
    pub source: u32,
    /// Byte offset of its first byte in the (decompressed) source.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u64,
    /// The line of the source it starts on.
    pub line: u64,
    /// Bits of the constants above.
    pub flags: u32,
    /// Main-line moves.
    pub plies: u32,
    /// Positions (main line and variations) where the side to move is in check.
    pub checks: u32,
    /// Captures (main line and variations).
    pub captures: u32,
    /// Positions of the game tree (main line and variations): a search whose memory
    /// budget admits fewer skips the game.
    pub nodes: u32,
    /// The tags in game order, values as the reader decoded them.
    pub tags: Vec<(String, Vec<u8>)>,
    /// Every distinct material of the game tree's positions, in order of first sight
    /// (the start position's first).
    pub materials: Vec<Material>,
    /// Which of `materials` the last main-line position has.
    pub final_material: u32,
    /// Positions where the side to move is mated or stalemated.
    pub endings: Vec<Ending>,
}

impl GameRecord {
    /// The termination marker, if the game has one.
    pub fn termination(&self) -> Option<&'static str> {
        let code = (self.flags >> TERMINATION_SHIFT) & 7;
        TERMINATIONS.get((code as usize).wrapping_sub(1)).copied()
    }
}

/// The material of a position.
pub fn material_of(pos: &impl Position) -> Material {
    let board = pos.board();
    let mut m = [0u8; 12];
    for color in [Color::White, Color::Black] {
        for role in Role::ALL {
            let n = (board.by_color(color) & board.by_role(role)).count();
            m[kind_of(color, role)] = n.min(255) as u8;
        }
    }
    m
}

/// Record `marker` as the game's termination marker (`None`, or not a marker: none).
pub fn set_termination(r: &mut GameRecord, marker: Option<&str>) {
    r.flags &= !(7 << TERMINATION_SHIFT);
    if let Some(i) = marker.and_then(|t| TERMINATIONS.iter().position(|x| *x == t)) {
        r.flags |= (i as u32 + 1) << TERMINATION_SHIFT;
    }
}

/// The record of a game the scan could not read (or read past, too large).
pub fn unread(raw: &RawGame, source: u32, too_large: bool) -> GameRecord {
    GameRecord {
        number: raw.number,
        source,
        offset: raw.offset,
        len: raw.bytes.len() as u64,
        line: raw.line,
        flags: SKIPPED | if too_large { TOO_LARGE } else { 0 },
        ..GameRecord::default()
    }
}

/// The record of a game whose tags and moves were read.
pub fn of_game(raw: &RawGame, source: u32, game: &Game) -> GameRecord {
    let mut r = GameRecord {
        number: raw.number,
        source,
        offset: raw.offset,
        len: raw.bytes.len() as u64,
        line: raw.line,
        ..GameRecord::default()
    };
    r.tags = game.tags.iter().map(|t| (t.name.clone(), t.value.clone())).collect();
    if game.unplayable.is_some() {
        r.flags |= PARTLY_READ;
    }
    if game.encoding == crate::pgn::TextEncoding::Windows1252 {
        r.flags |= WINDOWS_1252;
    }
    set_termination(&mut r, game.termination.as_deref());
    if game.tag("FEN").is_some() {
        r.flags |= SET_UP;
    }
    let material_index = |materials: &mut Vec<Material>, m: Material| -> u32 {
        match materials.iter().position(|x| *x == m) {
            Some(i) => i as u32,
            None => {
                materials.push(m);
                (materials.len() - 1) as u32
            }
        }
    };
    // The material of each node, as an index into `r.materials`: a node has its
    // parent's unless the move into it captured or promoted (then it is counted again).
    let mut node_material: Vec<u32> = Vec::with_capacity(game.nodes.len());
    for node in &game.nodes {
        let inherited = match (node.parent, &node.played) {
            (Some(p), Some(Played::Null)) => node_material.get(p.index()).copied(),
            (Some(p), Some(Played::Move(mv))) if !mv.is_capture() && !mv.is_promotion() => {
                node_material.get(p.index()).copied()
            }
            _ => None,
        };
        let k = match inherited {
            Some(k) => k,
            None => material_index(&mut r.materials, material_of(&node.pos)),
        };
        debug_assert_eq!(r.materials[k as usize], material_of(&node.pos));
        node_material.push(k);
        if !node.comments.is_empty() {
            r.flags |= HAS_COMMENTS;
        }
        if !node.nags.is_empty() {
            r.flags |= HAS_NAGS;
        }
        if node.children.len() > 1 {
            r.flags |= HAS_VARIATIONS;
        }
        if node.check {
            r.checks += 1;
        }
        if node.parent.is_some() {
            let mover = !node.pos.turn();
            match &node.played {
                Some(Played::Null) => r.flags |= NULL_MOVE,
                Some(Played::Move(mv)) => {
                    if mv.is_capture() {
                        r.captures += 1;
                    }
                    match mv {
                        Move::EnPassant { .. } => r.flags |= EN_PASSANT,
                        Move::Castle { king, rook } => {
                            let king_side = rook.file() > king.file();
                            r.flags |= match (mover, king_side) {
                                (Color::White, true) => CASTLE_WHITE_KING,
                                (Color::White, false) => CASTLE_WHITE_QUEEN,
                                (Color::Black, true) => CASTLE_BLACK_KING,
                                (Color::Black, false) => CASTLE_BLACK_QUEEN,
                            };
                        }
                        Move::Normal { promotion: Some(role), .. } => {
                            r.flags |= promotion_bit(mover, *role).unwrap_or(0);
                        }
                        _ => {}
                    }
                }
                None => {}
            }
        }
        // Mate needs check; stalemate in a legal position needs no move to have been
        // played from it (a board-only set-up may have a move read anyway).
        // A legal position with a move played from it is neither.
        let last = node.children.is_empty() || node.pos.is_lenient();
        let mate = last && node.check && node.pos.is_checkmate();
        let stalemate = last && !node.check && node.pos.is_stalemate();
        if mate || stalemate {
            let e = Ending { material: k, mate, white_to_move: node.pos.turn().is_white() };
            if !r.endings.contains(&e) {
                r.endings.push(e);
            }
            if node.depth == 0 && node.children.is_empty() {
                r.flags |= if mate { FINAL_MATE } else { FINAL_STALEMATE };
            }
        }
    }
    if let Some(last) = game.mainline().last() {
        r.final_material = node_material.get(last.index()).copied().unwrap_or(0);
    }
    r.plies = game.mainline().count().saturating_sub(1) as u32;
    r.nodes = u32::try_from(game.nodes.len()).unwrap_or(u32::MAX);
    r
}
