//! Reading one game's bytes into a [`Game`]: tags first, then (only when asked) the
//! movetext, replayed with shakmaty into the position tree.
//!
//! Takes in: a [`RawGame`] cut out by `input`.
//! Gives out: the filled [`Game`] or a [`GameError`] with the file line of the problem.
//! Must never: panic on any input bytes, recurse on input nesting, or allocate per move
//! beyond the node's own SAN text (nodes are recycled between games).
//!
//! This is a small hand-written tokenizer rather than pgn-reader's `Visitor`: we need the
//! line of every token for error messages, the move text exactly as written, detection
//! of unterminated comments, and lenient fallbacks (`0-0`, `e8Q`, `bxc3`/`Bxc3`,
//! long algebraic) that pgn-reader does not expose; pgn-reader also silently drops
//! tokens it cannot read, which would hide damage.
//!
//! Conventions:
//! - `!`, `?`, `!!`, `??`, `!?`, `?!` after a move become NAGs 1–6 and are not kept in
//!   [`Node::san`]; `+` and `#` are kept as written.
//! - A comment written right after `(` (before the variation's first move) is attached
//!   to that first move; a `;` comment is a comment like `{…}`.
//! - A null move made while the side to move is in check cannot be turned into a legal
//!   position with the other side to move; the node is kept with the position unchanged
//!   (same side still to move), so the tree shape stays as written.
//! - A variation before the first move of a game (nothing to be an alternative to) is
//!   skipped.
//! - A move that cannot be played (on the main line or in a variation) ends the reading
//!   of the movetext, as in CQL 6.2: the game keeps every position before it, the
//!   position it was to be played from gets the comment `Error reading move: …` (the move
//!   written as CQL writes it there), and [`Game::unplayable`] says where it is, for the
//!   warning and the count of partly read games.

use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Move, Position};

use super::{
    Children, Game, GameError, GameErrorKind, MoveText, Node, NodeId, PieceIds, Played, Pos, Tag, TextEncoding,
};
use crate::input::RawGame;

mod ids;
mod san;
mod tags;

use ids::move_ids;
pub use ids::{initial_ids, moved_ids};
use san::{move_as_cql_reads_it, quick_san, quick_san_move};
use tags::{read_one_tag, too_long};

/// At most this many emptied vectors of each kind are kept for reuse between games.
const POOL_LIMIT: usize = 1 << 16;
/// Variations nested deeper than this are refused.
const MAX_VARIATION_NESTING: usize = 10_000;
/// Longest comment read (its text, in bytes): a game with a longer one is skipped, reported.
pub const MAX_COMMENT_BYTES: usize = 16 << 20;
/// Longest tag value read (in bytes): a game with a longer one is skipped, reported.
pub const MAX_TAG_BYTES: usize = 1 << 20;

/// Reads games into [`Game`]s; keep one per worker and reuse it, it keeps buffers.
#[derive(Default)]
pub struct GameParser {
    /// Emptied vectors of the previous games' annotated nodes and branch points, so that
    /// a comment list, a NAG list or a variation allocates nothing once the parser has
    /// warmed up. (A node without them has no heap buffer at all: see [`Children`] and
    /// [`MoveText`].)
    spare: Spare,
    /// For each open variation: the node the main line resumes from after `)`.
    resume_stack: Vec<NodeId>,
    /// Comments seen after `(` but before the variation's first move.
    pending_comments: Vec<String>,
    /// Scratch space for rewriting a move token leniently.
    scratch: Vec<u8>,
    /// File line of the `[FEN` tag, for messages.
    fen_line: u64,
    /// The previous game's termination marker string, reused for the next one.
    spare_termination: String,
    /// Most positions a game may have (see [`GameParser::set_max_positions`]); `None`:
    /// no limit.
    max_positions: Option<usize>,
}

/// What one position of a game tree is counted as against a memory budget: its node,
/// with room for the growth of the node list (see [`GameParser::set_max_positions`]).
pub const POSITION_BYTES: u64 = 2 * std::mem::size_of::<crate::pgn::Node>() as u64 + 64;

/// Emptied vectors kept for the nodes of later games.
#[derive(Default)]
struct Spare {
    comments: Vec<Vec<String>>,
    nags: Vec<Vec<u8>>,
    children: Vec<Vec<NodeId>>,
}

impl Spare {
    /// Give `v` an emptied vector of an earlier game if it has none of its own yet.
    fn fill<T>(pool: &mut Vec<Vec<T>>, v: &mut Vec<T>) {
        if v.capacity() == 0 {
            if let Some(kept) = pool.pop() {
                *v = kept;
            }
        }
    }

    /// Keep `v`'s buffer (emptied) if it has one and the pool has room, else free it: `v`
    /// is left without a buffer either way.
    fn keep<T>(pool: &mut Vec<Vec<T>>, v: &mut Vec<T>) {
        if v.capacity() > 0 {
            let mut kept = std::mem::take(v);
            if pool.len() < POOL_LIMIT {
                kept.clear();
                pool.push(kept);
            }
        }
    }

    /// Add a NAG to a node's list.
    fn push_nag(&mut self, nags: &mut Vec<u8>, nag: u8) {
        Spare::fill(&mut self.nags, nags);
        nags.push(nag);
    }

    /// Add comments to a node's list.
    fn add_comments(&mut self, comments: &mut Vec<String>, more: impl IntoIterator<Item = String>) {
        Spare::fill(&mut self.comments, comments);
        comments.extend(more);
    }
}

/// How far the quick way of reading a game's tags got.
enum Quick {
    /// Tags and termination are read and the moves are not wanted.
    Done,
    /// Tags and termination are read, the game is UTF-8 and its moves begin at byte
    /// `pos`, on line `line`.
    Moves { pos: usize, line: u64 },
    /// The game must be read the whole way.
    Whole,
}

/// A reading position inside one game's bytes, counting lines.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    /// File line of `bytes[pos]`.
    line: u64,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }
    /// Step over one byte, counting a line feed.
    fn bump(&mut self) {
        if self.bytes.get(self.pos) == Some(&b'\n') {
            self.line += 1;
        }
        self.pos += 1;
    }
    /// Is `pos` the first byte of a line?
    fn at_line_start(&self) -> bool {
        self.pos == 0 || self.bytes[self.pos - 1] == b'\n'
    }
    /// Skip to the line feed ending this line (not past it).
    fn skip_line(&mut self) {
        self.pos = memchr::memchr(b'\n', &self.bytes[self.pos..]).map_or(self.bytes.len(), |p| self.pos + p);
    }
    /// Move to `to`, counting the line feeds stepped over.
    fn advance_to(&mut self, to: usize) {
        self.line += memchr::memchr_iter(b'\n', &self.bytes[self.pos..to]).count() as u64;
        self.pos = to;
    }
}

/// Byte classes for the tokenizer, one table lookup per byte.
const BLANK: u8 = 1;
const ENDS_TOKEN: u8 = 2;
const ENDS_TAG_NAME: u8 = 4;

/// The class bits of every byte value.
static BYTE_CLASS: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        let blank = byte <= b' ' || byte == 0x7f || byte == 0xef || byte == 0xbb || byte == 0xbf;
        let punct = matches!(byte, b'{' | b'}' | b'(' | b')' | b';' | b'$' | b'[' | b']');
        let class = if punct { ENDS_TOKEN } else { 0 };
        table[b] = if blank { BLANK | ENDS_TOKEN } else { class };
        if blank || byte == b'"' || byte == b']' {
            table[b] |= ENDS_TAG_NAME;
        }
        b += 1;
    }
    table
};

/// Blank bytes between tokens: whitespace, NUL and other control bytes, BOM bytes.
#[inline]
fn is_blank(b: u8) -> bool {
    BYTE_CLASS[b as usize] & BLANK != 0
}

/// Bytes that end a move token: blanks and `{ } ( ) ; $ [ ]`.
#[inline]
fn ends_token(b: u8) -> bool {
    BYTE_CLASS[b as usize] & ENDS_TOKEN != 0
}

/// Text of a comment, surrounding blanks (and byte-order marks) trimmed. The game's
/// bytes are UTF-8 by the time they are parsed (see [`decode_game`]); should a slice
/// still not be, it is read as Latin-1.
fn decode_text(bytes: &[u8]) -> String {
    let blank = |c: char| c <= ' ' || c == '\u{7f}' || c == '\u{feff}';
    match std::str::from_utf8(bytes) {
        Ok(s) => s.trim_matches(blank).to_string(),
        Err(_) => bytes.iter().map(|&b| b as char).collect::<String>().trim_matches(blank).to_string(),
    }
}

/// The characters of Windows-1252 bytes 0x80–0x9F (the five bytes it leaves undefined
/// keep their Latin-1 control characters).
const CP1252_HIGH: [char; 32] = [
    '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}', '\u{90}', '‘', '’',
    '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ',
];

/// The text of a game's bytes: UTF-8 when they are valid UTF-8, otherwise Windows-1252
/// (a superset of Latin-1 in its printable range), converted to UTF-8. Line feeds and
/// every ASCII byte stay where they were, so line numbers do not change.
pub fn decode_game(bytes: &[u8]) -> (std::borrow::Cow<'_, [u8]>, TextEncoding) {
    if std::str::from_utf8(bytes).is_ok() {
        return (std::borrow::Cow::Borrowed(bytes), TextEncoding::Utf8);
    }
    // A UTF-8 byte-order mark in front of non-UTF-8 text is dropped, not decoded.
    let rest = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let mut text = String::with_capacity(rest.len() + rest.len() / 8);
    for &b in rest {
        match b {
            0x80..=0x9f => text.push(CP1252_HIGH[(b - 0x80) as usize]),
            _ => text.push(b as char),
        }
    }
    (std::borrow::Cow::Owned(text.into_bytes()), TextEncoding::Windows1252)
}

/// The game-termination marker a token stands for, in its standard spelling.
#[inline]
fn termination_of(token: &[u8]) -> Option<&'static str> {
    // Most tokens are moves, which start with a letter: one byte tells.
    if !matches!(token.first(), Some(b'0' | b'1' | b'*' | b'=' | b'\xc2')) {
        return None;
    }
    Some(match token {
        b"1-0" | b"1\xe2\x80\x930" => "1-0",
        b"0-1" | b"0\xe2\x80\x931" => "0-1",
        b"1/2-1/2" | b"\xc2\xbd-\xc2\xbd" | b"1/2" | b"=-=" | b"\xc2\xbd\xe2\x80\x93\xc2\xbd" => "1/2-1/2",
        b"*" => "*",
        _ => return None,
    })
}

/// The NAG that a stand-alone or suffix annotation symbol means.
#[inline]
fn nag_of_symbol(sym: &[u8]) -> Option<u8> {
    // Most texts are moves, which start with a letter: one byte tells.
    if !matches!(sym.first(), Some(b'!' | b'?' | b'=' | b'+' | b'-' | b'\xe2')) {
        return None;
    }
    Some(match sym {
        b"!" => 1,
        b"?" => 2,
        b"!!" => 3,
        b"??" => 4,
        b"!?" => 5,
        b"?!" => 6,
        b"=" => 10,
        b"\xe2\x88\x9e" => 13,
        b"+=" | b"+/=" => 14,
        b"=+" | b"=/+" => 15,
        b"+/-" => 16,
        b"-/+" => 17,
        b"+-" => 18,
        b"-+" => 19,
        _ => return None,
    })
}

/// The termination marker at the very end of a game's bytes, if the last token is one.
/// Cheap: used before (or instead of) reading the movetext.
fn trailing_termination(bytes: &[u8]) -> Option<&'static str> {
    let (start, end) = last_token(bytes).0?;
    termination_of(&bytes[start..end])
}

/// The last token of `bytes` (start and end), if any, and from which index on the bytes
/// decide it: the byte that ends the search for its start (or 0 when the search runs
/// to the start of `bytes`).
fn last_token(bytes: &[u8]) -> (Option<(usize, usize)>, usize) {
    let Some(last) = bytes.iter().rposition(|&b| !is_blank(b)) else { return (None, 0) };
    let end = last + 1;
    match bytes[..end].iter().rposition(|&b| ends_token(b)) {
        Some(p) => (Some((p + 1, end)), p),
        None => (Some((0, end)), 0),
    }
}

/// Is every byte below 0x80? Sixteen bytes at a time with SSE2 on x86-64 (a tag section
/// is a few hundred bytes, looked at for every game a header-only query reads).
#[inline]
fn all_ascii(bytes: &[u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_setzero_si128};
        let chunks = bytes.chunks_exact(16);
        let rest = chunks.remainder();
        // SAFETY: SSE2 is part of x86-64; each load reads the sixteen bytes of its chunk.
        let high = unsafe {
            let any = chunks.fold(_mm_setzero_si128(), |acc, c| _mm_or_si128(acc, _mm_loadu_si128(c.as_ptr().cast())));
            _mm_movemask_epi8(any)
        };
        high == 0 && rest.is_ascii()
    }
    #[cfg(not(target_arch = "x86_64"))]
    bytes.is_ascii()
}

/// Does this Variant tag value ask for Chess960 castling?
fn is_chess960_variant(value: &[u8]) -> bool {
    let lower = value.to_ascii_lowercase();
    let has = |needle: &[u8]| lower.windows(needle.len()).any(|w| w == needle);
    has(b"960") || has(b"fischer") || has(b"frc") || has(b"freestyle")
}

impl GameParser {
    /// A parser with empty buffers.
    pub fn new() -> GameParser {
        GameParser::default()
    }

    /// Refuse a game with more than `max` positions (`None`: any number): its reading
    /// stops with an error as soon as the tree grows past it, so that one huge game (a
    /// legal one can hold millions of moves) never holds more memory than the budget
    /// allows. The command line derives `max` from `--max-game-memory` and
    /// [`POSITION_BYTES`].
    pub fn set_max_positions(&mut self, max: Option<usize>) {
        self.max_positions = max;
    }

    /// Fill `game` from `raw`: number, line, tags and termination marker; then, only if
    /// `want_moves(game)` says so, the position tree (`game.nodes`, otherwise left empty).
    pub fn parse(
        &mut self,
        raw: &RawGame,
        game: &mut Game,
        want_moves: &dyn Fn(&Game) -> bool,
    ) -> Result<(), GameError> {
        self.parse_with(raw, game, want_moves, true)
    }

    /// [`GameParser::parse`] for a caller that says whether it looks at `game.encoding`
    /// of a game whose moves are not read. When it does not (`need_encoding` false),
    /// the tags and the termination marker are read straight from the raw bytes as long
    /// as the bytes they come from are ASCII (which every encoding reads alike), and the
    /// rest of the game is not checked as UTF-8 unless its moves are wanted:
    /// `game.encoding` of a game whose moves are not read is then `Utf8` unchecked.
    /// Tags, termination, moves and errors are the same as with [`GameParser::parse`].
    pub fn parse_with(
        &mut self,
        raw: &RawGame,
        game: &mut Game,
        want_moves: &dyn Fn(&Game) -> bool,
        need_encoding: bool,
    ) -> Result<(), GameError> {
        game.number = raw.number;
        game.line = raw.line;
        game.unplayable = None;
        game.unplayable_variation = None;
        if let Some(text) = game.termination.take() {
            self.spare_termination = text;
        }
        self.recycle_nodes(game);
        // Where the moves begin when the quick way has read the tags already.
        let mut moves_at = None;
        if !need_encoding {
            match self.parse_ascii_tags(raw, game, want_moves) {
                Quick::Done => return Ok(()),
                Quick::Moves { pos, line } => moves_at = Some((pos, line)),
                Quick::Whole => {}
            }
        }
        let (bytes, encoding) = match moves_at {
            // The quick way found the game to be UTF-8: its text is its bytes.
            Some(_) => (std::borrow::Cow::Borrowed(&raw.bytes[..]), TextEncoding::Utf8),
            None => decode_game(&raw.bytes),
        };
        game.encoding = encoding;
        let mut cur = Cursor { bytes: &bytes, pos: 0, line: raw.line.max(1) };
        if let Some((pos, line)) = moves_at {
            cur.pos = pos;
            cur.line = line;
        } else {
            self.fen_line = raw.line;
            self.read_tags(&mut cur, game)?;
            // The marker's text, reusing the previous game's string.
            game.termination = trailing_termination(&bytes[cur.pos..]).map(|t| {
                let mut kept = std::mem::take(&mut self.spare_termination);
                kept.clear();
                kept.push_str(t);
                kept
            });
            if !want_moves(game) {
                return Ok(());
            }
        }
        self.read_movetext(&mut cur, game)
    }

    /// The quick way of [`GameParser::parse_with`]: tags and termination marker read from
    /// the raw bytes. [`Quick::Whole`] when the game must go the whole way instead: a tag
    /// section, the byte after it or the end of the game that is not ASCII (decoding
    /// could change what is read there), a broken tag (its error is reported from the
    /// decoded text), or a game whose moves are wanted and that is not UTF-8.
    fn parse_ascii_tags(&mut self, raw: &RawGame, game: &mut Game, want_moves: &dyn Fn(&Game) -> bool) -> Quick {
        let bytes = &raw.bytes[..];
        let mut cur = Cursor { bytes, pos: 0, line: raw.line.max(1) };
        self.fen_line = raw.line;
        if self.read_tags(&mut cur, game).is_err()
            || !all_ascii(&bytes[..cur.pos])
            || !bytes.get(cur.pos).is_none_or(u8::is_ascii)
        {
            return Quick::Whole;
        }
        let rest = &bytes[cur.pos..];
        let (token, from) = last_token(rest);
        if !rest[from..].is_ascii() {
            return Quick::Whole;
        }
        game.termination = token.and_then(|(s, e)| termination_of(&rest[s..e])).map(|t| {
            let mut kept = std::mem::take(&mut self.spare_termination);
            kept.clear();
            kept.push_str(t);
            kept
        });
        game.encoding = TextEncoding::Utf8;
        if !want_moves(game) {
            return Quick::Done;
        }
        if std::str::from_utf8(bytes).is_err() {
            return Quick::Whole;
        }
        Quick::Moves { pos: cur.pos, line: cur.line }
    }

    /// Empty `game.nodes`, keeping the vectors of its annotated nodes and branch points
    /// (comments, NAGs, variations) for the nodes of the next game; the node vector keeps
    /// its capacity too. Most nodes have no heap buffer and cost only a look.
    fn recycle_nodes(&mut self, game: &mut Game) {
        // What a node holds besides the parts freed or kept below owns no heap memory, so
        // the nodes can be forgotten rather than dropped one by one.
        const _: () = assert!(
            !std::mem::needs_drop::<Option<Played>>()
                && !std::mem::needs_drop::<Pos>()
                && !std::mem::needs_drop::<PieceIds>()
                && !std::mem::needs_drop::<Option<NodeId>>()
        );
        let spare = &mut self.spare;
        for node in game.nodes.iter_mut() {
            Spare::keep(&mut spare.comments, &mut node.comments);
            Spare::keep(&mut spare.nags, &mut node.nags);
            if let Some(v) = node.children.take_spilled() {
                if spare.children.len() < POOL_LIMIT {
                    spare.children.push(v);
                }
            }
            if matches!(node.san, MoveText::Long(_)) {
                node.san = MoveText::default();
            }
        }
        // SAFETY: every node's heap memory was handed to the pools or freed just above
        // (comments, NAGs, spilled children, a long move text), and the other fields own
        // none (checked at compile time above), so forgetting the nodes leaks nothing; a
        // length of 0 is always within the capacity. Dropping them one by one cost about
        // 16 M instructions per 664,000 nodes (callgrind, 5 MB of the bench corpus).
        unsafe { game.nodes.set_len(0) };
    }

    /// Append a node; its move text and a single continuation are held inline.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn new_node(
        &mut self,
        game: &mut Game,
        parent: Option<NodeId>,
        played: Option<Played>,
        san: &[u8],
        pos: Pos,
        ids: PieceIds,
        ply: u32,
        depth: u32,
    ) -> NodeId {
        let id = NodeId(game.nodes.len() as u32);
        game.nodes.push(Node {
            parent,
            children: Children::default(),
            played,
            san: MoveText::from_bytes(san),
            comments: Vec::new(),
            nags: Vec::new(),
            check: false,
            pos,
            ids,
            ply,
            depth,
        });
        if let Some(p) = parent {
            game.nodes[p.index()].children.push_reusing(id, &mut self.spare.children);
        }
        id
    }

    /// Append the node after move `mv` from node `parent`: the parent's position and
    /// piece identities are copied straight into the new slot and the move is played
    /// there.
    #[inline(always)]
    fn new_child_node(
        &mut self,
        game: &mut Game,
        parent: NodeId,
        mv: Move,
        san: &[u8],
        ply: u32,
        depth: u32,
    ) -> NodeId {
        let nodes = &mut game.nodes;
        nodes.reserve(1);
        let id = nodes.len();
        assert!(parent.index() < id);
        // SAFETY: `reserve(1)` leaves room for one more node at index `id`, which does
        // not overlap node `parent` (an index below `id`); both pointers come from the
        // same `as_mut_ptr`, the source is only read and the slot only written, and
        // `set_len` follows once the slot holds a whole node. Built this way the node is
        // written once in place: a safe `push` builds it on the stack and copies it
        // (with its position, twice: the clone and the push), which cost about 50 M
        // instructions (`memcpy`) per 633,609 moves (callgrind, 5 MB of the bench corpus).
        unsafe {
            let base = nodes.as_mut_ptr();
            let source = &*base.add(parent.index());
            base.add(id).write(Node {
                parent: Some(parent),
                children: Children::default(),
                played: Some(Played::Move(mv)),
                san: MoveText::from_bytes(san),
                comments: Vec::new(),
                nags: Vec::new(),
                check: false,
                pos: source.pos.clone(),
                ids: source.ids,
                ply,
                depth,
            });
            nodes.set_len(id + 1);
        }
        let node = &mut nodes[id];
        let mover = node.pos.turn();
        move_ids(&mut node.ids, &mv, mover);
        node.pos.play_unchecked(mv);
        nodes[parent.index()].children.push_reusing(NodeId(id as u32), &mut self.spare.children);
        NodeId(id as u32)
    }

    /// Read the tag section (reusing the tag vector's strings).
    fn read_tags(&mut self, cur: &mut Cursor<'_>, game: &mut Game) -> Result<(), GameError> {
        let mut count = 0;
        loop {
            while cur.peek().is_some_and(is_blank) {
                cur.bump();
            }
            match cur.peek() {
                Some(b'%') if cur.at_line_start() => cur.skip_line(),
                Some(b'[') => {
                    if count == game.tags.len() {
                        game.tags.push(Tag { name: String::new(), value: Vec::new() });
                    }
                    let tag = &mut game.tags[count];
                    let tag_line = cur.line;
                    read_one_tag(cur, tag)?;
                    if tag.name == "FEN" {
                        self.fen_line = tag_line;
                    }
                    count += 1;
                }
                _ => break,
            }
        }
        game.tags.truncate(count);
        Ok(())
    }

    /// The start position from the `[FEN]` / `[Variant]` tags: a chess position when
    /// the set-up obeys the rules (after repairing castling rights, en passant square,
    /// too much material and impossible checks), a board-only one otherwise (no king,
    /// two kings, pawns on the first or last rank, the side not to move in check).
    fn start_position(&self, game: &Game) -> Result<Pos, GameError> {
        let chess960 = game.tag("Variant").is_some_and(|t| is_chess960_variant(&t.value));
        let Some(fen_tag) = game.tag("FEN") else {
            return Ok(Pos::default());
        };
        let bad_fen = || GameError { kind: GameErrorKind::BadFen(fen_tag.text().into_owned()), line: self.fen_line };
        let text = fen_tag.value.trim_ascii();
        let fen = Fen::from_ascii(text).map_err(|_| bad_fen())?;
        let (first, second) = if chess960 {
            (CastlingMode::Chess960, CastlingMode::Standard)
        } else {
            (CastlingMode::Standard, CastlingMode::Chess960)
        };
        Pos::from_fen(fen, first, second).ok_or_else(bad_fen)
    }

    /// Read the movetext and replay it into `game.nodes`.
    fn read_movetext(&mut self, cur: &mut Cursor<'_>, game: &mut Game) -> Result<(), GameError> {
        let start = self.start_position(game)?;
        let ids = initial_ids(&start);
        let root = self.new_node(game, None, None, b"", start, ids, 0, 0);
        game.nodes[root.index()].check = game.nodes[root.index()].pos.checkers().any();
        self.resume_stack.clear();
        self.pending_comments.clear();
        let mut at = root;
        // Inside a variation that is being skipped: its nesting depth.
        let mut skipping = 0usize;
        // Just after `(`, before the variation's first move.
        let mut variation_start = false;
        let bytes = cur.bytes;
        while let Some(b) = cur.peek() {
            match b {
                b'\n' => {
                    cur.line += 1;
                    cur.pos += 1;
                }
                _ if is_blank(b) => cur.pos += 1,
                b'%' if cur.at_line_start() => cur.skip_line(),
                b'{' => {
                    let open_line = cur.line;
                    let body = cur.pos + 1;
                    let Some(len) = memchr::memchr(b'}', &bytes[body..]) else {
                        return Err(GameError { kind: GameErrorKind::UnterminatedComment, line: open_line });
                    };
                    if len > MAX_COMMENT_BYTES {
                        return Err(too_long("comment", len, MAX_COMMENT_BYTES, open_line));
                    }
                    if skipping == 0 {
                        self.add_comment(game, at, variation_start, decode_text(&bytes[body..body + len]));
                    }
                    cur.advance_to(body + len + 1);
                }
                b';' => {
                    let body = cur.pos + 1;
                    let open_line = cur.line;
                    cur.skip_line();
                    if cur.pos - body > MAX_COMMENT_BYTES {
                        return Err(too_long("comment", cur.pos - body, MAX_COMMENT_BYTES, open_line));
                    }
                    if skipping == 0 {
                        self.add_comment(game, at, variation_start, decode_text(&bytes[body..cur.pos]));
                    }
                }
                b'(' => {
                    cur.bump();
                    if skipping > 0 {
                        skipping += 1;
                    } else if let Some(parent) = game.nodes[at.index()].parent {
                        if self.resume_stack.len() >= MAX_VARIATION_NESTING {
                            return Err(GameError {
                                kind: GameErrorKind::Syntax("variations nested too deeply".to_string()),
                                line: cur.line,
                            });
                        }
                        self.resume_stack.push(at);
                        at = parent;
                        variation_start = true;
                    } else {
                        skipping = 1;
                    }
                }
                b')' => {
                    cur.bump();
                    if skipping > 0 {
                        skipping -= 1;
                    } else if let Some(resume) = self.resume_stack.pop() {
                        if variation_start {
                            // A variation with comments but no move: keep them on the move it branched from.
                            let pending = self.pending_comments.drain(..);
                            self.spare.add_comments(&mut game.nodes[resume.index()].comments, pending);
                        }
                        at = resume;
                        variation_start = false;
                    }
                }
                b'$' => {
                    cur.bump();
                    let digits_start = cur.pos;
                    while cur.peek().is_some_and(|d| d.is_ascii_digit()) {
                        cur.bump();
                    }
                    let value =
                        bytes[digits_start..cur.pos].iter().fold(0u32, |v, &d| (v * 10 + (d - b'0') as u32).min(1000));
                    if skipping == 0 && !variation_start && cur.pos > digits_start && value <= 255 {
                        self.spare.push_nag(&mut game.nodes[at.index()].nags, value as u8);
                    }
                }
                b'[' => {
                    // A stray bracketed text inside movetext: skip it up to `]` on this line.
                    let line_end = memchr::memchr(b'\n', &bytes[cur.pos..]).map_or(bytes.len(), |p| cur.pos + p);
                    let close = memchr::memchr(b']', &bytes[cur.pos..line_end]).map_or(line_end, |p| cur.pos + p + 1);
                    cur.advance_to(close);
                }
                b'}' | b']' => cur.bump(),
                _ => {
                    let token_start = cur.pos;
                    let token_line = cur.line;
                    while cur.peek().is_some_and(|c| !ends_token(c)) {
                        cur.pos += 1;
                    }
                    if skipping > 0 {
                        continue;
                    }
                    let token = &bytes[token_start..cur.pos];
                    if let Some(result) = termination_of(token) {
                        if self.resume_stack.is_empty() && game.termination.as_deref() != Some(result) {
                            // (The quick reading of the tags has usually set it already.)
                            let mut kept = game.termination.take().unwrap_or_default();
                            kept.clear();
                            kept.push_str(result);
                            game.termination = Some(kept);
                        }
                        continue;
                    }
                    match self.read_move_token(game, at, token, token_line, variation_start) {
                        Ok(Some(next)) => {
                            at = next;
                            variation_start = false;
                            if let Some(max) = self.max_positions.filter(|&max| game.nodes.len() > max) {
                                return Err(GameError {
                                    kind: GameErrorKind::Syntax(format!(
                                        "more than {max} positions: too many to keep in memory (see --max-game-memory)"
                                    )),
                                    line: token_line,
                                });
                            }
                        }
                        Ok(None) => {}
                        Err(unplayable) => {
                            self.stop_at_unplayable(game, at, variation_start, token, unplayable);
                            break;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// End the game at a move that cannot be played, as CQL 6.2 does: the comment
    /// `Error reading move: …` goes on the position the move was to be played from (for a
    /// variation's first move, into that variation, left empty: see
    /// [`Game::unplayable_variation`]; comments written after its `(` go with it, as CQL
    /// 6.2's reader replaces them), and the game remembers where the reading stopped.
    fn stop_at_unplayable(
        &mut self,
        game: &mut Game,
        at: NodeId,
        variation_start: bool,
        token: &[u8],
        unplayable: GameError,
    ) {
        let text = format!("Error reading move: {}", move_as_cql_reads_it(token));
        match self.resume_stack.last() {
            Some(&alternative_to) if variation_start => {
                self.pending_comments.clear();
                game.unplayable_variation = Some((alternative_to, text));
            }
            _ => self.spare.add_comments(&mut game.nodes[at.index()].comments, [text]),
        }
        game.unplayable = Some(unplayable);
    }

    /// Attach a comment to the node it follows (or hold it for a variation's first move).
    fn add_comment(&mut self, game: &mut Game, at: NodeId, variation_start: bool, text: String) {
        if variation_start {
            self.pending_comments.push(text);
        } else {
            self.spare.add_comments(&mut game.nodes[at.index()].comments, [text]);
        }
    }

    /// Handle a token that is not a comment, variation mark, NAG or result: a move
    /// number, an annotation symbol, or a move. Returns the new node if a move was made.
    fn read_move_token(
        &mut self,
        game: &mut Game,
        at: NodeId,
        token: &[u8],
        line: u64,
        variation_start: bool,
    ) -> Result<Option<NodeId>, GameError> {
        // Castling written with zeros, and `0000` null moves, start with a digit too.
        let is_zero_castle = token.starts_with(b"0-0");
        let mut text = token;
        if !is_zero_castle && token != b"0000" && token.first().is_some_and(u8::is_ascii_digit) {
            let digits = token.iter().take_while(|b| b.is_ascii_digit()).count();
            let dots = token[digits..]
                .iter()
                .take_while(|&&b| b == b'.' || b == b'\xe2' || b == b'\x80' || b == b'\xa6')
                .count();
            text = &token[digits + dots..];
            if text.is_empty() {
                return Ok(None);
            }
        }
        while text.first() == Some(&b'.') {
            text = &text[1..];
        }
        if text.is_empty() || text == b"e.p." || text == b"ep" {
            return Ok(None);
        }
        if let Some(nag) = nag_of_symbol(text) {
            if !variation_start {
                self.spare.push_nag(&mut game.nodes[at.index()].nags, nag);
            }
            return Ok(None);
        }
        // Split off a `!`/`?` suffix.
        let suffix_len = text.iter().rev().take_while(|&&b| b == b'!' || b == b'?').count();
        let (san, suffix) = text.split_at(text.len() - suffix_len);
        if san.is_empty() || !san[0].is_ascii_alphanumeric() && san[0] != b'-' && san[0] != b'@' {
            // Some other symbol (an evaluation sign we do not know): not a move.
            return Ok(None);
        }
        let parent = &game.nodes[at.index()];
        let ply = parent.ply + 1;
        let depth = self.resume_stack.len() as u32;
        let (played, pos, ids) = if matches!(san, b"--" | b"Z0" | b"@@@@" | b"0000" | b"null") {
            (Played::Null, parent.pos.null_move(), parent.ids)
        } else {
            let Some(mv) = self.resolve_move(&parent.pos, parent.check, san) else {
                return Err(GameError {
                    kind: GameErrorKind::IllegalMove { san: String::from_utf8_lossy(token).into_owned(), ply },
                    line,
                });
            };
            let node = self.new_child_node(game, at, mv, san, ply, depth);
            return Ok(Some(self.finish_node(game, node, variation_start, suffix)));
        };
        let node = self.new_node(game, Some(at), Some(played), san, pos, ids, ply, depth);
        Ok(Some(self.finish_node(game, node, variation_start, suffix)))
    }

    /// Note whether the side to move is in check in a new node's position, and attach the
    /// comments held for a variation's first move and the `!`/`?` suffix NAG.
    fn finish_node(&mut self, game: &mut Game, node: NodeId, variation_start: bool, suffix: &[u8]) -> NodeId {
        let new = &mut game.nodes[node.index()];
        new.check = new.pos.checkers().any();
        if variation_start && !self.pending_comments.is_empty() {
            let pending = self.pending_comments.drain(..);
            self.spare.add_comments(&mut game.nodes[node.index()].comments, pending);
        }
        if let Some(nag) = (!suffix.is_empty()).then(|| nag_of_symbol(suffix)).flatten() {
            self.spare.push_nag(&mut game.nodes[node.index()].nags, nag);
        }
        node
    }

    /// Find the legal move a token means in `pos` (whose side to move is in check when
    /// `check`): exact SAN first, then lenient readings.
    fn resolve_move(&mut self, pos: &Pos, check: bool, text: &[u8]) -> Option<Move> {
        if let Some(san) = quick_san(text).or_else(|| San::from_ascii(text).ok()) {
            let quick = match pos {
                Pos::Legal(chess) => quick_san_move(chess, check, san),
                Pos::Lenient(_) => None,
            };
            if let Some(mv) = quick.or_else(|| pos.san_to_move(san)) {
                return Some(mv);
            }
        }
        // Drop the check / mate marks for the lenient readings.
        let mut core = text;
        while let Some((&last, rest)) = core.split_last() {
            if last == b'+' || last == b'#' {
                core = rest;
            } else {
                break;
            }
        }
        let scratch = &mut self.scratch;
        let try_san = |bytes: &[u8]| San::from_ascii(bytes).ok().and_then(|san| pos.san_to_move(san));
        // Castling with zeros or lowercase letters.
        if core.iter().all(|&b| matches!(b, b'0' | b'o' | b'O' | b'-')) && core.len() >= 3 {
            scratch.clear();
            scratch.extend(core.iter().map(|&b| if b == b'-' { b'-' } else { b'O' }));
            if let Some(mv) = try_san(scratch) {
                return Some(mv);
            }
        }
        // Promotion without `=` (`e8Q`) or with a lowercase piece (`e8=q`).
        scratch.clear();
        scratch.extend_from_slice(core);
        let n = scratch.len();
        if n >= 3 && matches!(scratch[n - 1].to_ascii_uppercase(), b'Q' | b'R' | b'B' | b'N') {
            let last = scratch[n - 1].to_ascii_uppercase();
            if matches!(scratch[n - 2], b'1' | b'8') {
                scratch[n - 1] = b'=';
                scratch.push(last);
            } else if scratch[n - 2] == b'=' {
                scratch[n - 1] = last;
            }
            if let Some(mv) = try_san(scratch) {
                return Some(mv);
            }
        }
        // Long algebraic / UCI: `e2e4`, `e2-e4`, `Ng1-f3`, `Ng1xf3`, `e7e8q`, `e7-e8=Q`.
        scratch.clear();
        let body = match core.first() {
            Some(b'K' | b'Q' | b'R' | b'B' | b'N' | b'P') => &core[1..],
            _ => core,
        };
        scratch.extend(
            body.iter().filter(|&&b| b != b'-' && b != b'x' && b != b':' && b != b'=').map(|b| b.to_ascii_lowercase()),
        );
        if (4..=5).contains(&scratch.len()) {
            if let Some(mv) = UciMove::from_ascii(scratch).ok().and_then(|uci| uci.to_move(pos).ok()) {
                return Some(mv);
            }
        }
        // Piece letter in the wrong case: `bxc3` for `Bxc3` and back, `nf3`.
        if let Some(&first) = core.first() {
            let swapped = match first {
                b'b' => Some(b'B'),
                b'B' => Some(b'b'),
                b'n' | b'r' | b'q' | b'k' => Some(first.to_ascii_uppercase()),
                _ => None,
            };
            if let Some(letter) = swapped {
                scratch.clear();
                scratch.push(letter);
                scratch.extend_from_slice(&core[1..]);
                if let Some(mv) = try_san(scratch) {
                    return Some(mv);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests;
