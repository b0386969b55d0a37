//! CQL-style PGN for one matching game.
//!
//! Takes in: a replayed [`Game`] and its [`GameMatch`].
//! Gives out: the game's bytes: its tags in the PGN export order CQL 6.2 writes (the
//! Seven Tag Roster first, `?` where the game lacks one; input bytes kept, `settag`
//! applied), a
//! `{Game number N}` comment, the movetext re-serialised from the game tree (move
//! numbers, SAN as written, NAGs, original comments, variations) with `{CQL}` after
//! every matching position and the query's comments, wrapped at 79 columns, then a
//! blank line.
//! Must never: write anywhere but the buffer it is given, or recurse on the depth of
//! variations (the walk uses an explicit stack).

use shakmaty::{Color, Position};

use crate::eval::GameMatch;
use crate::pgn::{Game, NodeId};

/// The column after which the movetext is wrapped.
const WRAP_COLUMN: usize = 79;

/// How a matching game is written as PGN.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnStyle {
    /// The mark written after each matching position (`CQL` unless `matchstring`).
    pub matchstring: String,
    /// `silent`: the game is written without any comment of the run's: no `Game number`,
    /// no marks, no comments from the query (CQL 6.2 `CommentLevel::Silent`).
    pub silent: bool,
    /// `quiet`: no marks at matching positions; the `Game number` and the query's own
    /// comments (`comment`, `///`) are still written (CQL 6.2 `CommentLevel::Quiet`).
    pub quiet: bool,
    /// Write the leading `{Game number N}` comment (off with `-noheader`).
    pub game_number_comment: bool,
    /// Apply the query's `settag` filters to the tags (off with `-nosettag`).
    pub settag: bool,
    /// Leave out the game's own comments where `removecomment` matched (off with
    /// `-noremovecomment`).
    pub remove_comments: bool,
    /// `sort matchcount`: write the number of matching positions as `matchcount: N` at the
    /// start, right after the game's own comments there (as CQL 6.2 writes it).
    pub sort_matchcount: bool,
}

impl Default for PgnStyle {
    fn default() -> Self {
        PgnStyle {
            matchstring: "CQL".into(),
            silent: false,
            quiet: false,
            game_number_comment: true,
            settag: true,
            remove_comments: true,
            sort_matchcount: false,
        }
    }
}

/// Movetext words joined by spaces and wrapped at [`WRAP_COLUMN`].
struct Wrapper<'a> {
    out: &'a mut Vec<u8>,
    column: usize,
    /// Write the next word without a separator (after `(`).
    glue: bool,
}

impl Wrapper<'_> {
    fn word(&mut self, word: &str) {
        if self.glue {
            self.glue = false;
        } else if self.column > 0 {
            if self.column + 1 + word.len() > WRAP_COLUMN {
                self.out.push(b'\n');
                self.column = 0;
            } else {
                self.out.push(b' ');
                self.column += 1;
            }
        }
        self.out.extend_from_slice(word.as_bytes());
        self.column = match word.rfind('\n') {
            Some(i) => word.len() - i - 1,
            None => self.column + word.len(),
        };
    }
    /// A comment of the run's: its text made safe by [`comment_text`].
    fn comment(&mut self, text: &str) {
        self.word(&format!("{{{}}}", comment_text(text)));
    }
    /// A comment of the game's own, as it was read. A `{…}` comment holds no `}` (that
    /// ended it) and is written on one line: each line break becomes a space, as CQL 6.2
    /// writes it, so that no line of a comment can pass for a line of its own (a tag, or a
    /// line of the GUI protocol). A rest-of-line comment (`; …`) may hold a `}`, and is
    /// written as one again, so that its text can never end a comment and become moves
    /// the game does not have. A text with both a `}` and a line break (no reader makes
    /// one) gets the `}` as `_`.
    fn original_comment(&mut self, text: &str) {
        let one_line = |t: &str| t.replace("\r\n", " ").replace(['\n', '\r'], " ");
        if !text.contains('}') {
            if text.contains(['\n', '\r']) {
                self.word(&format!("{{{}}}", one_line(text)));
            } else {
                self.word(&format!("{{{text}}}"));
            }
        } else if text.contains(['\n', '\r']) {
            self.word(&format!("{{{}}}", one_line(&text.replace('}', "_"))));
        } else {
            self.word(&format!(";{text}"));
            self.out.push(b'\n');
            self.column = 0;
        }
    }
}

/// One step of the movetext walk.
enum Step<'a> {
    /// Write the move into this node (and continue down its main line); `alternatives`:
    /// the node is a main continuation, so its parent's variations follow it.
    Line {
        node: NodeId,
        alternatives: bool,
        force_number: bool,
    },
    Open,
    Close,
    /// A comment standing alone (the text of an empty variation).
    Note(&'a str),
}

/// Append the PGN of a matching game to `out`.
///
/// `game` must have been replayed (its nodes present); a game without nodes gets an
/// empty movetext. `sort_values` are written into the leading comment.
pub fn write_game(style: &PgnStyle, game: &Game, m: &GameMatch, out: &mut Vec<u8>) {
    let result = game
        .termination
        .clone()
        .or_else(|| game.tag("Result").map(|t| t.text().into_owned()))
        .unwrap_or_else(|| "*".into());
    write_tags(game, if style.settag { &m.set_tags } else { &[] }, &result, out);
    out.push(b'\n');
    let mut w = Wrapper { out, column: 0, glue: false };
    if style.game_number_comment && !style.silent {
        w.comment(&format!("Game number {}", game.number));
    }
    // Each matching position's mark goes where it was made among that position's comments
    // (`usize::MAX`: no mark).
    let mut mark_after = vec![usize::MAX; game.nodes.len()];
    for (k, id) in m.positions.iter().enumerate() {
        if let Some(slot) = mark_after.get_mut(id.index()) {
            *slot = m.marked_after.get(k).copied().unwrap_or(m.comments.len()).min(m.comments.len());
        }
    }
    // A position gets each text once, in the order first written, and no empty comment
    // (CQL 6.2 `QPos::appendCommentLocally`, unique comments being its default).
    let mut user_comments: std::collections::BTreeMap<NodeId, Vec<(usize, &str)>> = Default::default();
    for (k, (at, text)) in m.comments.iter().enumerate() {
        let texts = user_comments.entry(*at).or_default();
        if !text.is_empty() && !texts.iter().any(|(_, t)| *t == text.as_str()) {
            texts.push((k, text));
        }
    }
    // The sort values, written at the start position after everything else there
    // (CQL 6.2 `SortNode`); a sort without a name is `<sort-id-N>`.
    let mut unnamed = 0;
    let sort_values: Vec<String> = m
        .sort
        .iter()
        .map(|(doc, value)| {
            if crate::eval::is_unnamed_sort(doc) {
                unnamed += 1;
                format!("<sort-id-{unnamed}>: {value}")
            } else {
                format!("{doc}: {value}")
            }
        })
        .zip(m.sort.iter())
        .filter(|(_, (doc, _))| !m.quiet_sort.contains(doc))
        .map(|(text, _)| text)
        .collect();
    let annotate = |w: &mut Wrapper, id: NodeId| {
        let removed = style.remove_comments && m.removed_comments.contains(&id);
        if let Some(node) = game.nodes.get(id.index()).filter(|_| !removed) {
            for c in &node.comments {
                w.original_comment(c);
            }
        }
        if id == NodeId::ROOT && style.sort_matchcount && !style.silent {
            w.comment(&format!("matchcount: {}", m.positions.len()));
        }
        let marks = !style.silent && !style.quiet;
        let mark_at = mark_after.get(id.index()).copied().unwrap_or(usize::MAX);
        let mut marked = false;
        if !style.silent {
            for &(k, text) in user_comments.get(&id).into_iter().flatten() {
                if marks && !marked && k >= mark_at {
                    w.comment(&style.matchstring);
                    marked = true;
                }
                w.comment(text);
            }
        }
        if marks && !marked && mark_at != usize::MAX {
            w.comment(&style.matchstring);
        }
        if id == NodeId::ROOT && !style.silent {
            for text in &sort_values {
                w.comment(text);
            }
        }
    };
    if !game.nodes.is_empty() {
        annotate(&mut w, NodeId::ROOT);
        let root = game.node(NodeId::ROOT);
        let mut stack: Vec<Step> = Vec::new();
        if let Some(&first) = root.children.first() {
            stack.push(Step::Line { node: first, alternatives: true, force_number: true });
        }
        while let Some(step) = stack.pop() {
            match step {
                Step::Open => {
                    w.word("(");
                    w.glue = true;
                }
                Step::Close => w.close_paren(),
                Step::Note(text) => w.comment(text),
                Step::Line { node, alternatives, force_number } => {
                    let n = game.node(node);
                    let Some(parent_id) = n.parent else { continue };
                    let parent = game.node(parent_id);
                    let moves = parent.pos.fullmoves().get();
                    match parent.pos.turn() {
                        Color::White => w.word(&format!("{moves}.")),
                        Color::Black if force_number => w.word(&format!("{moves}...")),
                        Color::Black => {}
                    }
                    // A null move is `--` however the input wrote it (`Z0`, `0000`, `@@`).
                    let null = n.san.is_empty() || matches!(n.played, Some(crate::pgn::Played::Null));
                    w.word(if null { "--" } else { &n.san });
                    for nag in &n.nags {
                        w.word(&format!("${nag}"));
                    }
                    let before = w.out.len();
                    annotate(&mut w, node);
                    let wrote_comment = w.out.len() != before;
                    let variations: &[NodeId] =
                        if alternatives { parent.children.get(1..).unwrap_or(&[]) } else { &[] };
                    if let Some(&next) = n.children.first() {
                        stack.push(Step::Line {
                            node: next,
                            alternatives: true,
                            force_number: wrote_comment || !variations.is_empty(),
                        });
                    }
                    // The empty variation CQL 6.2 keeps where an unplayable first move stopped
                    // the reading: after the variations before it.
                    if let Some((alternative_to, text)) = &game.unplayable_variation {
                        if *alternative_to == node {
                            stack.push(Step::Close);
                            stack.push(Step::Note(text));
                            stack.push(Step::Open);
                        }
                    }
                    for &v in variations.iter().rev() {
                        stack.push(Step::Close);
                        stack.push(Step::Line { node: v, alternatives: false, force_number: true });
                        stack.push(Step::Open);
                    }
                }
            }
        }
    }
    w.word(&result);
    out.extend_from_slice(b"\n\n");
}

impl Wrapper<'_> {
    /// Write `)` straight after the previous word.
    fn close_paren(&mut self) {
        self.out.push(b')');
        self.column += 1;
    }
}

/// The Seven Tag Roster of the PGN standard, in its order, with the value written for
/// a game that lacks the tag (the Result is the game's own, see [`write_tags`]).
const SEVEN_TAG_ROSTER: [(&str, &str); 7] = [
    ("Event", "?"),
    ("Site", "?"),
    ("Date", "????.??.??"),
    ("Round", "?"),
    ("White", "?"),
    ("Black", "?"),
    ("Result", "*"),
];

/// The rating kinds a player's rating tag may name (`WhiteElo`, `BlackUSCF`, …).
const RATING_KINDS: [&str; 7] = ["Elo", "Rating", "Rapid", "ICCF", "USCF", "DWZ", "BCF"];

/// Where a tag goes among the game's tags as CQL 6.2 writes them (the SCID PGN writer
/// of `Game::WritePGN_changed`, origChanges.cpp): the Seven Tag Roster (0), the
/// first rating of White (1) and of Black (2) that is a positive number, the ECO code
/// (3), the event date (4), every other tag in the game's order (5), `FEN` last (7).
/// CQL leaves out a rating, ECO code or event date it cannot read; cqlrs keeps such a
/// tag among the others (never losing a tag of the game).
fn tag_rank(name: &str, value: &[u8]) -> u8 {
    let rating = |side: &str| {
        name.strip_prefix(side).is_some_and(|kind| RATING_KINDS.contains(&kind))
            && std::str::from_utf8(value).ok().and_then(|v| v.trim().parse::<u32>().ok()).is_some_and(|n| n > 0)
    };
    let eco = || matches!(value, [b'A'..=b'E', b'0'..=b'9', b'0'..=b'9', ..]);
    let date = || value.first().is_some_and(u8::is_ascii_digit);
    if SEVEN_TAG_ROSTER.iter().any(|(n, _)| *n == name) {
        0
    } else if rating("White") {
        1
    } else if rating("Black") {
        2
    } else if name == "ECO" && eco() {
        3
    } else if name == "EventDate" && date() {
        4
    } else if name == "FEN" {
        7
    } else {
        5
    }
}

/// Write the tag section in the PGN export format, as CQL 6.2 does: the Seven Tag
/// Roster first in its order (`?`, or `????.??.??` for the date, where the game lacks
/// one; the Result tag is `result`, the result the movetext ends with), then the
/// game's other tags ordered by [`tag_rank`], the tags `settag` adds before `FEN`.
fn write_tags(game: &Game, set_tags: &[(String, String)], result: &str, out: &mut Vec<u8>) {
    let set = |name: &str| set_tags.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v);
    let mut write = |name: &str, value: Option<&[u8]>, set_value: Option<&String>| {
        out.push(b'[');
        tag_name_into(name, out);
        out.extend_from_slice(b" \"");
        match (set_value, value) {
            (Some(v), _) => escape_into(v.as_bytes(), out),
            (None, Some(v)) => escape_into(v, out),
            (None, None) => {}
        }
        out.extend_from_slice(b"\"]\n");
    };
    for (name, missing) in SEVEN_TAG_ROSTER {
        if name == "Result" {
            write(name, Some(result.as_bytes()), None);
            continue;
        }
        let value = game.tag(name).map(|t| t.value.as_slice()).unwrap_or(missing.as_bytes());
        write(name, Some(value), set(name));
    }
    // The first tag of each roster name was written above; a repeated one is kept among
    // the others.
    let mut ranked: Vec<(u8, usize)> = Vec::new();
    let mut taken = [false; 5];
    for (i, tag) in game.tags.iter().enumerate() {
        let mut rank = tag_rank(&tag.name, &tag.value);
        if rank == 0 && game.tag(&tag.name).is_some_and(|first| !std::ptr::eq(first, tag)) {
            rank = 5;
        }
        if (1..=4).contains(&rank) {
            let slot = &mut taken[rank as usize];
            if *slot {
                rank = 5;
            }
            *slot = true;
        }
        if rank != 0 {
            ranked.push((rank, i));
        }
    }
    // Rank 6: the tags `settag` adds, after the game's own and before `FEN`.
    ranked.push((6, usize::MAX));
    ranked.sort_unstable();
    for (rank, i) in ranked {
        match game.tags.get(i) {
            Some(tag) => write(&tag.name, Some(&tag.value), set(&tag.name)),
            None if rank == 6 => {
                let mut added: Vec<&str> = Vec::new();
                for (name, value) in set_tags {
                    if game.tag(name).is_none() && !added.contains(&name.as_str()) {
                        added.push(name);
                        write(name, None, Some(set(name).unwrap_or(value)));
                    }
                }
            }
            None => {}
        }
    }
}

/// Append a tag name as it is written: the characters a PGN tag name may hold (letters,
/// digits and `_+#=:-`) as they are, any other (a space, a quote, a bracket, from a
/// query's `settag`) as `_`, so that no name can close the tag pair or open another; an
/// empty name is `_`.
fn tag_name_into(name: &str, out: &mut Vec<u8>) {
    if name.is_empty() {
        out.push(b'_');
    }
    for c in name.chars() {
        let keep = c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '#' | '=' | ':' | '-');
        out.push(if keep { c as u8 } else { b'_' });
    }
}

/// Append a tag value as it is written between the quotes of `[Name "value"]`: a
/// backslash and a quote escaped (`\\`, `\"`, as the PGN standard says; the reader
/// undoes both), and a line break, which a tag value cannot hold, written as a space.
/// Reading the result back gives the value again, whatever it holds (a value read from a
/// game has no line break). Bytes, not characters: a value that is not UTF-8 keeps its
/// bytes.
fn escape_into(value: &[u8], out: &mut Vec<u8>) {
    if !value.iter().any(|b| matches!(b, b'\\' | b'"' | b'\n' | b'\r')) {
        out.extend_from_slice(value);
        return;
    }
    for &b in value {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\n' | b'\r' => out.push(b' '),
            b => out.push(b),
        }
    }
}

/// A text of the run's (a query's `comment`, a sort value, the match mark) as it is
/// written inside `{…}`: a brace, which would end the comment or open a new one, written
/// as `_` (as CQL 6.2 does, `MarkBoard::cleanCommentBuffer`), and a line break as a space
/// (so no text can make a line of the comment look like the start of another game).
/// Everything else is kept.
fn comment_text(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(['{', '}', '\n', '\r']) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars()
            .map(|c| match c {
                '{' | '}' => '_',
                '\n' | '\r' => ' ',
                c => c,
            })
            .collect(),
    )
}
