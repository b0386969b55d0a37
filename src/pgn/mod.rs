//! The game model: one PGN game as a tree of positions, with tags, comments, NAGs and
//! variations, replayed with shakmaty.
//!
//! Takes in: the raw bytes of one game (cut out by `input`).
//! Gives out: a [`Game`] — tags and a flat vector of [`Node`]s (node 0 is the start
//! position; each node's first child is the main continuation, later children are
//! variations) — or a [`GameError`] saying where the game is broken.
//! Must never: panic on bad input, print, or look at a query.

mod builder;
mod inline;
mod parse;
mod position;

pub use builder::GameBuilder;
pub use inline::{Children, MoveText};
pub use parse::{decode_game, initial_ids, moved_ids, GameParser, POSITION_BYTES};
pub use position::{pseudo_legal_moves, Lenient, Pos};

use shakmaty::{Bitboard, Color, Move, Role, Square};

/// Index of a node (a position) in [`Game::nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The start position of every game.
    pub const ROOT: NodeId = NodeId(0);
    /// As a vector index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Identity of a piece: which unit of the start position (or FEN set-up) it is.
/// Kept through moves, castling, en passant and promotion; 0 means "no piece".
pub type PieceId = u8;

/// For each square, the identity of the piece standing there (0 = empty).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceIds(pub [PieceId; 64]);

impl Default for PieceIds {
    fn default() -> Self {
        PieceIds([0; 64])
    }
}

impl PieceIds {
    /// The identity on a square (0 if empty).
    pub fn at(&self, sq: Square) -> PieceId {
        self.0[sq as usize]
    }
    /// The square a given identity stands on, if it is still on the board.
    pub fn square_of(&self, id: PieceId) -> Option<Square> {
        if id == 0 {
            return None;
        }
        self.0.iter().position(|&x| x == id).map(|i| Square::new(i as u32))
    }
}

/// The move that leads into a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Played {
    /// A real move.
    Move(Move),
    /// A null move (`--`, `Z0`): only the side to move changes.
    Null,
}

/// One position of the game tree and the move that led to it.
#[derive(Clone, Debug)]
pub struct Node {
    /// The position before the move into this one (`None` at the root).
    pub parent: Option<NodeId>,
    /// Continuations: the first is the main one, later ones are variations.
    pub children: Children,
    /// The move that led here (`None` at the root).
    pub played: Option<Played>,
    /// The move as written in the PGN (SAN with its suffix), empty at the root.
    pub san: MoveText,
    /// Comments written after the move into this node (at the root: before the first move).
    pub comments: Vec<String>,
    /// Numeric annotation glyphs after the move (`$1` = 1).
    pub nags: Vec<u8>,
    /// Is the side to move in check in this position? (Worked out once when the node is
    /// built, since the next move's reading and `check`/`mate` all ask it.)
    pub check: bool,
    /// The position: a chess position, or a board-only one when the game's set-up is
    /// not a legal chess position (see [`Pos`]).
    pub pos: Pos,
    /// Piece identities of this position.
    pub ids: PieceIds,
    /// Plies from the root.
    pub ply: u32,
    /// Variation depth: 0 on the main line, +1 for each variation entered.
    pub depth: u32,
}

impl Node {
    /// Is this node on the main line?
    pub fn is_mainline(&self) -> bool {
        self.depth == 0
    }
}

/// How the bytes of a game were read as text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TextEncoding {
    /// The game was valid UTF-8 (plain ASCII included).
    #[default]
    Utf8,
    /// The game was not valid UTF-8 and was read as Windows-1252 (CP-1252, which agrees
    /// with Latin-1 on every printable character), as old PGN collections are written.
    Windows1252,
}

impl TextEncoding {
    /// The encoding's usual name (`utf-8`, `windows-1252`).
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "utf-8",
            TextEncoding::Windows1252 => "windows-1252",
        }
    }
}

/// A PGN tag (header) pair. The value is the tag's text as UTF-8 (a game in another
/// encoding is converted before it is read; `\"` escapes are kept as written); use
/// [`Tag::text`] for it as a string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    /// Tag name, e.g. `White`.
    pub name: String,
    /// Raw value bytes.
    pub value: Vec<u8>,
}

impl Tag {
    /// The value as text (invalid UTF-8 replaced).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        // The check alone first: it is quicker than the lossy conversion's chunk by chunk
        // walk, and tag values are UTF-8 once read (a Windows-1252 game is converted).
        match std::str::from_utf8(&self.value) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(&self.value),
        }
    }
}

/// One game: its number, tags and position tree.
#[derive(Clone, Debug, Default)]
pub struct Game {
    /// Ordinal of the game across all inputs, from 1.
    pub number: u64,
    /// Tags in input order.
    pub tags: Vec<Tag>,
    /// Nodes; `nodes[0]` is the start position. Empty until replayed.
    pub nodes: Vec<Node>,
    /// The game-termination marker (`1-0`, `0-1`, `1/2-1/2`, `*`), if any.
    pub termination: Option<String>,
    /// Line in the input file where the game starts (1-based), for messages.
    pub line: u64,
    /// How the game's bytes were read as text; tags and comments are UTF-8 either way.
    pub encoding: TextEncoding,
    /// The first move that could not be played, when there is one. As CQL 6.2 (its PGN
    /// reader, SCID's `PgnParser::ParseMoves`) does, the game is then read only up to that
    /// move — in a variation as on the main line, and nothing of the movetext after it —
    /// and the position before it carries the comment `Error reading move: …`.
    pub unplayable: Option<GameError>,
    /// When that move was the first of a variation: the move the variation is an
    /// alternative to, and the `Error reading move: …` text. CQL 6.2 keeps that variation,
    /// empty, with the text as its only comment, at no position (so `hascomment` does not
    /// see it); the PGN writer writes it so: `1... e5 ( {Error reading move: Ke6} )`.
    pub unplayable_variation: Option<(NodeId, String)>,
}

/// Are two short byte strings (tag names) equal? A byte loop kept inline: for names of a
/// few bytes it is quicker than the call to `memcmp` that `==` makes on slices.
#[inline(always)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

impl Game {
    /// The value of a tag by name (case-sensitive, first occurrence).
    pub fn tag(&self, name: &str) -> Option<&Tag> {
        self.tags.iter().find(|t| same_bytes(t.name.as_bytes(), name.as_bytes()))
    }
    /// The node behind an id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }
    /// The main line, from the root to the last main-line position.
    pub fn mainline(&self) -> impl Iterator<Item = NodeId> + '_ {
        let mut next = if self.nodes.is_empty() { None } else { Some(NodeId::ROOT) };
        std::iter::from_fn(move || {
            let cur = next?;
            next = self.nodes[cur.index()].children.first().copied();
            Some(cur)
        })
    }
}

/// Why a game could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameErrorKind {
    /// A move that is not legal (or not readable) in its position.
    IllegalMove {
        /// The move text.
        san: String,
        /// Ply at which it occurs.
        ply: u32,
    },
    /// A `[FEN]` tag that is not a valid position.
    BadFen(String),
    /// A tag section that does not close.
    UnterminatedTag,
    /// A comment that does not close.
    UnterminatedComment,
    /// Anything else the PGN reader refused.
    Syntax(String),
}

/// A game that could not be read, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameError {
    /// What is wrong.
    pub kind: GameErrorKind,
    /// Line in the input (1-based) near the problem.
    pub line: u64,
}

impl std::fmt::Display for GameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            GameErrorKind::IllegalMove { san, ply } => {
                write!(f, "line {}: illegal move `{}` at ply {}", self.line, shown(san), ply)
            }
            GameErrorKind::BadFen(fen) => write!(f, "line {}: invalid FEN `{}`", self.line, shown(fen)),
            GameErrorKind::UnterminatedTag => write!(f, "line {}: unterminated tag", self.line),
            GameErrorKind::UnterminatedComment => {
                write!(f, "line {}: unterminated comment", self.line)
            }
            GameErrorKind::Syntax(s) => write!(f, "line {}: {}", self.line, shown(s)),
        }
    }
}

/// Text from a game as a message shows it: whole when short, else its first 60
/// characters and its length (a damaged file may hold a "token" of megabytes).
fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    const MOST: usize = 80;
    if text.len() <= MOST {
        return text.into();
    }
    let cut = text.char_indices().nth(60).map_or(text.len(), |(i, _)| i);
    format!("{}… ({} bytes)", &text[..cut], text.len()).into()
}

impl std::error::Error for GameError {}

/// Piece values used by `power` (king 0).
pub fn role_power(role: Role) -> i64 {
    match role {
        Role::Pawn => 1,
        Role::Knight | Role::Bishop => 3,
        Role::Rook => 5,
        Role::Queen => 9,
        Role::King => 0,
    }
}

/// Squares of one colour's pieces in a position.
pub fn color_bb(pos: &Pos, color: Color) -> Bitboard {
    use shakmaty::Position;
    pos.board().by_color(color)
}
