//! CQL 6 lexer: turns script text (Unicode or ASCII spelling) into tokens.
//!
//! Takes in: the script source. Gives out: a vector of [`Token`]s, each with its byte
//! span, whether whitespace (or a comment) came before it, and its line, ending in
//! [`Tok::Eof`]; plus diagnostics for characters it cannot read.
//! Must never: panic on any input, interpret meaning beyond the token level.

use shakmaty::{Bitboard, Color, Role, Square};

use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::{GameResult, PieceMask};

/// Punctuation and operator symbols, each with its Unicode and ASCII spellings merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sym {
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `[` that does not start a designator (string indexing)
    LBracket,
    /// `]`
    RBracket,
    /// `,`
    Comma,
    /// `:` (evaluate at a position: `parent:check`)
    Colon,
    /// `――` / `--`: a move
    Dash,
    /// `×` / `[x]`: a capture
    Capture,
    /// `→` / `->`: attacks
    AttackRight,
    /// `←` / `<-`: attacked by
    AttackLeft,
    /// `∩` / `&`
    Inter,
    /// `∪` / `|`
    Union,
    /// `~` complement
    Tilde,
    /// `~~` regex match
    RegexOp,
    /// `#` count
    Hash,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `?`
    Question,
    /// `<`
    Lt,
    /// `≤` / `<=`
    Le,
    /// `==`
    EqEq,
    /// `≠` / `!=`
    Ne,
    /// `≥` / `>=`
    Ge,
    /// `>`
    Gt,
    /// `=`
    Assign,
    /// `+=`
    PlusAssign,
    /// `-=`
    MinusAssign,
    /// `*=`
    StarAssign,
    /// `/=`
    SlashAssign,
    /// `%=`
    PercentAssign,
    /// `-->` (line forward)
    LineForward,
    /// `<--` (line backward, `find <--`)
    LineBackward,
    /// `∊` / `[element]`
    Element,
    /// `∀` / `[forall]`
    Forall,
    /// `⊢` (path)
    Path,
    /// `◎` (focus)
    Focus,
    /// `✵` (flip)
    FlipStar,
    /// `⬓` (flipcolor)
    FlipColorSquare,
    /// `∙` (current position)
    Current,
    /// `≺`
    Prec,
    /// `≻`
    Succ,
    /// `≼`
    PrecEq,
    /// `≽`
    SuccEq,
    /// `///` comment-filter shorthand
    TripleSlash,
}

/// What a token is.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// A keyword or a name (`mate`, `find`, `Sum`, `x`).
    Word(String),
    /// An integer literal.
    Number(i64),
    /// A string literal: a quoted string as written, or a special character (`\n`).
    Str(String),
    /// A piece designator: the piece kinds and, if written, the squares (`♖`, `Kg1`, `[RQ]a-h7`, `_d4`).
    Pieces {
        /// Accepted piece kinds.
        mask: PieceMask,
        /// Squares written right after the pieces, if any.
        squares: Option<Bitboard>,
    },
    /// A square set without pieces (`a1`, `c-f3-6`, `[a1,h8]`, `.`, `▦`).
    Squares(Bitboard),
    /// A file-only range such as `c-f` (not CQL 6 syntax; reported by the parser).
    FileOnly,
    /// `\N`: the text of a regex capture group.
    RegexGroup(u8),
    /// `\-N`: where a regex capture group starts in the matched string.
    RegexGroupStart(u8),
    /// A game result literal after `result`.
    ResultLit(GameResult),
    /// `o-o` (true) or `o-o-o` (false).
    Castle(bool),
    /// A symbol.
    Sym(Sym),
    /// End of input.
    Eof,
}

/// One token with its place in the source.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    /// What it is.
    pub tok: Tok,
    /// Its bytes in the source.
    pub span: Span,
    /// Whitespace or a comment separates it from the previous token.
    pub space_before: bool,
    /// 1-based line of its first byte.
    pub line: u32,
    /// A blank line (a line holding only whitespace or a comment's end) separates it from
    /// the previous token: in CQL 6.2 that ends every `path` it is at the top level of
    /// (`Lexer::match_whitespacetoken`, `Lexer::fixPath`).
    pub blank_before: bool,
}

const PIECE_LETTERS: &str = "KQRBNPkqrbnpAa_";

/// The piece mask of one ASCII designator letter (`K`…`p`, `A`, `a`, `_`).
pub fn letter_mask(c: char) -> Option<PieceMask> {
    let (color, role) = match c {
        'A' => return Some(PieceMask::WHITE),
        'a' => return Some(PieceMask::BLACK),
        '_' => return Some(PieceMask::EMPTY),
        'K' => (Color::White, Role::King),
        'Q' => (Color::White, Role::Queen),
        'R' => (Color::White, Role::Rook),
        'B' => (Color::White, Role::Bishop),
        'N' => (Color::White, Role::Knight),
        'P' => (Color::White, Role::Pawn),
        'k' => (Color::Black, Role::King),
        'q' => (Color::Black, Role::Queen),
        'r' => (Color::Black, Role::Rook),
        'b' => (Color::Black, Role::Bishop),
        'n' => (Color::Black, Role::Knight),
        'p' => (Color::Black, Role::Pawn),
        _ => return None,
    };
    Some(PieceMask::piece(color, role))
}

/// The piece mask of a Unicode designator character (`♔`…`♟`, `△`, `▲`, `◭`, `□`).
pub fn unicode_piece_mask(c: char) -> Option<PieceMask> {
    let letter = match c {
        '♔' => 'K',
        '♕' => 'Q',
        '♖' => 'R',
        '♗' => 'B',
        '♘' => 'N',
        '♙' => 'P',
        '♚' => 'k',
        '♛' => 'q',
        '♜' => 'r',
        '♝' => 'b',
        '♞' => 'n',
        '♟' => 'p',
        '△' => 'A',
        '▲' => 'a',
        '□' => '_',
        '◭' => return Some(PieceMask::ANY_PIECE),
        _ => return None,
    };
    letter_mask(letter)
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Scan a square specification (`e4`, `a-h1-8`, `c-f3`, `d1-8`) at `i`. Returns the
/// squares and the end offset, or `Err(end)` for a file-only range such as `c-f`.
fn scan_square_spec(b: &[u8], i: usize) -> Option<Result<(Bitboard, usize), usize>> {
    let file = |j: usize| b.get(j).copied().filter(|c| (b'a'..=b'h').contains(c));
    let rank = |j: usize| b.get(j).copied().filter(|c| (b'1'..=b'8').contains(c));
    let f0 = file(i)?;
    let mut j = i + 1;
    let mut f1 = f0;
    if b.get(j) == Some(&b'-') {
        if let Some(f) = file(j + 1) {
            f1 = f;
            j += 2;
        }
    }
    let Some(r0) = rank(j) else {
        if f1 != f0 && !b.get(j).is_some_and(|&c| is_word_byte(c)) {
            return Some(Err(j));
        }
        return None;
    };
    j += 1;
    let mut r1 = r0;
    if b.get(j) == Some(&b'-') {
        if let Some(r) = rank(j + 1) {
            r1 = r;
            j += 2;
        }
    }
    let mut bb = Bitboard::EMPTY;
    for f in f0.min(f1)..=f0.max(f1) {
        for r in r0.min(r1)..=r0.max(r1) {
            let sq =
                Square::from_coords(shakmaty::File::new(u32::from(f - b'a')), shakmaty::Rank::new(u32::from(r - b'1')));
            bb.add(sq);
        }
    }
    Some(Ok((bb, j)))
}

/// Scan the squares that may follow a piece designator at byte `i`: a plain
/// square spec (`Pa2-7`) or a bracketed square list (`P[a2-7]`, `R[a1,h1]`).
/// The result is as for [`scan_square_spec`].
fn scan_piece_squares(src: &str, i: usize) -> Option<Result<(Bitboard, usize), usize>> {
    let b = src.as_bytes();
    if b.get(i) == Some(&b'[') {
        let rest = src.get(i + 1..)?;
        let close = rest.find(']').filter(|&k| k <= 40)?;
        let content = &rest[..close];
        if content.contains('\n') {
            return None;
        }
        return square_list(content).map(|bb| Ok((bb, i + close + 2)));
    }
    scan_square_spec(b, i)
}

/// A square specification with a rank outside 1–8 at `i` (`h9`, `a-h9`, `e0`, `a1-9`),
/// ending where a word ends: its end offset and the first number that is no rank. Used
/// only where a square must follow (after a piece designator, or a file range such as
/// `a-h`), so that `♚a-h9` is reported as one bad square, not as stray words.
fn bad_square_spec(b: &[u8], i: usize) -> Option<(usize, String)> {
    let is_file = |j: usize| b.get(j).is_some_and(|c| (b'a'..=b'h').contains(c));
    if !is_file(i) {
        return None;
    }
    let mut j = i + 1;
    if b.get(j) == Some(&b'-') && is_file(j + 1) {
        j += 2;
    }
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let n0 = digits(j);
    if n0 == 0 {
        return None;
    }
    let mut numbers = vec![&b[j..j + n0]];
    j += n0;
    if b.get(j) == Some(&b'-') {
        let n1 = digits(j + 1);
        if n1 > 0 {
            numbers.push(&b[j + 1..j + 1 + n1]);
            j += 1 + n1;
        }
    }
    if b.get(j).is_some_and(|&x| is_word_byte(x)) {
        return None;
    }
    let bad = numbers.into_iter().find(|n| !(n.len() == 1 && (b'1'..=b'8').contains(&n[0])))?;
    Some((j, String::from_utf8_lossy(bad).into_owned()))
}

/// The diagnostic for [`bad_square_spec`]'s find.
fn bad_square_diagnostic(src: &str, start: usize, end: usize, rank: &str) -> Diagnostic {
    Diagnostic::new(format!("`{}` is not a square: there is no rank {rank}", &src[start..end]), Span::new(start, end))
        .with_hint("ranks run from 1 to 8 and files from a to h (`a-h8` is the eighth rank)")
}

/// Parse the inside of a `[…]` square list (`a1,h8`, `a-d4, e5`).
fn square_list(content: &str) -> Option<Bitboard> {
    let mut bb = Bitboard::EMPTY;
    for part in content.split(',') {
        let part = part.trim();
        let pb = part.as_bytes();
        match scan_square_spec(pb, 0) {
            Some(Ok((s, end))) if end == pb.len() => bb |= s,
            _ => return None,
        }
    }
    Some(bb)
}

/// The lexer's result: tokens (ending in `Eof`) and any diagnostics.
pub struct Lexed {
    /// The tokens.
    pub tokens: Vec<Token>,
    /// Problems found (unknown characters, unterminated strings or comments).
    pub diagnostics: Vec<Diagnostic>,
}

/// Split `src` into tokens.
pub fn lex(src: &str) -> Lexed {
    let mut lexer = Lexer { src, b: src.as_bytes(), tokens: Vec::new(), diagnostics: Vec::new() };
    let b = lexer.b;
    let mut i = 0usize;
    let mut line = 1u32;
    let mut space = true;
    // Blank-line tracking as CQL 6.2 does it: a newline after a newline (with only spaces,
    // or the end of a `//` comment, between) makes a blank line; a comment's text or a
    // `/* */` in between does not.
    let mut line_empty = false;
    let mut blank = false;
    // Skip a byte-order mark.
    if src.starts_with('\u{feff}') {
        i = 3;
    }
    while i < b.len() {
        let c = b[i];
        // Whitespace and comments.
        if c == b'\n' {
            line += 1;
            space = true;
            blank |= line_empty;
            line_empty = true;
            i += 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            space = true;
            i += 1;
            continue;
        }
        if let Some(end) = lexer.comment(i, &mut line) {
            i = end;
            space = true;
            line_empty = false;
            continue;
        }
        let blank_before = std::mem::take(&mut blank);
        line_empty = false;
        match lexer.token(i, space) {
            Read::Token(tok, end) => {
                let token = Token { tok, span: Span::new(i, end), space_before: space, line, blank_before };
                lexer.tokens.push(token);
                i = end;
                space = false;
            }
            Read::Skip(end) => {
                i = end;
                space = true;
            }
        }
    }
    lexer.tokens.push(Token {
        tok: Tok::Eof,
        span: Span::new(b.len(), b.len()),
        space_before: true,
        line,
        blank_before: blank,
    });
    Lexed { tokens: lexer.tokens, diagnostics: lexer.diagnostics }
}

/// What the lexer read at a position that is no space or comment.
enum Read {
    /// A token, ending at the byte given.
    Token(Tok, usize),
    /// Characters that are no token (diagnosed), up to the byte given; they count as
    /// space before the next token.
    Skip(usize),
}

/// The lexer's state: the source, the tokens so far and the diagnostics.
struct Lexer<'s> {
    src: &'s str,
    b: &'s [u8],
    tokens: Vec<Token>,
    diagnostics: Vec<Diagnostic>,
}

impl Lexer<'_> {
    /// A comment at `i`: where it ends (counting the lines of a `/* */` into `line`).
    /// `//` and `////`, `/////` … start a comment to the end of the line; exactly three
    /// slashes are the `///` comment filter (CQL 6.2 `Lexer::peekslashslashslash`).
    fn comment(&mut self, i: usize, line: &mut u32) -> Option<usize> {
        let (src, b) = (self.src, self.b);
        let rest = &src[i..];
        if b[i] == b';' || (rest.starts_with("//") && (!rest.starts_with("///") || rest.starts_with("////"))) {
            return Some(b[i..].iter().position(|&x| x == b'\n').map_or(b.len(), |k| i + k));
        }
        if !rest.starts_with("/*") {
            return None;
        }
        Some(match src[i + 2..].find("*/") {
            Some(k) => {
                *line += src[i..i + 2 + k].matches('\n').count() as u32;
                i + k + 4
            }
            None => {
                self.diagnostics.push(
                    Diagnostic::new("unterminated `/*` comment", Span::new(i, i + 2)).with_hint("close it with `*/`"),
                );
                b.len()
            }
        })
    }

    /// The token at `i` (`space`: whitespace or a comment came before it).
    fn token(&mut self, i: usize, space: bool) -> Read {
        let c = self.b[i];
        if c >= 0x80 {
            return self.unicode(i);
        }
        if c == b'"' {
            return self.string(i);
        }
        if c == b'\\' {
            return self.backslash(i);
        }
        if let Some(read) = self.result(i) {
            return read;
        }
        if c.is_ascii_digit() {
            return self.number(i);
        }
        if c == b'$' && self.b.get(i + 1).is_some_and(|&x| x.is_ascii_alphabetic()) {
            // `$name`: a variable name with a dollar sign, as some scripts write them.
            let end = self.word_end(i + 1);
            return Read::Token(Tok::Word(self.src[i..end].to_string()), end);
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            return self.word(i);
        }
        if c == b'[' {
            if let Some(read) = self.bracketed(i, space) {
                return read;
            }
            return Read::Token(Tok::Sym(Sym::LBracket), i + 1);
        }
        self.symbol(i)
    }

    /// The end of the word bytes from `i`.
    fn word_end(&self, i: usize) -> usize {
        i + self.b[i..].iter().take_while(|&&x| is_word_byte(x)).count()
    }

    /// Squares after a piece designator ending at `end`: the designator token.
    fn piece_squares(&mut self, mask: PieceMask, end: usize) -> Read {
        let (src, b) = (self.src, self.b);
        match scan_piece_squares(src, end) {
            Some(Ok((bb, e))) if !b.get(e).is_some_and(|&x| is_word_byte(x)) => {
                Read::Token(Tok::Pieces { mask, squares: Some(bb) }, e)
            }
            Some(Err(e)) => Read::Token(Tok::FileOnly, e),
            _ => match bad_square_spec(b, end) {
                Some((e, rank)) => {
                    self.diagnostics.push(bad_square_diagnostic(src, end, e, &rank));
                    Read::Token(Tok::Pieces { mask, squares: None }, e)
                }
                None => Read::Token(Tok::Pieces { mask, squares: None }, end),
            },
        }
    }

    /// Multi-byte Unicode symbols: figurines (maybe with squares), `▦`, `――` and the
    /// operators.
    fn unicode(&mut self, i: usize) -> Read {
        let src = self.src;
        let ch = src[i..].chars().next().unwrap_or('\u{fffd}');
        let len = ch.len_utf8();
        if let Some(mut mask) = unicode_piece_mask(ch) {
            let mut end = i + len;
            // Adjacent figurines form one designator: `♕♖♗` is any of the three.
            while let Some(m) = src[end..].chars().next().and_then(|next| unicode_piece_mask(next).map(|m| (m, next))) {
                mask = mask.with(m.0);
                end += m.1.len_utf8();
            }
            return self.piece_squares(mask, end);
        }
        let sym = match ch {
            '―' | '—' => {
                // `――` is two U+2015; a single one is accepted as well.
                let end = if src[i + len..].starts_with(ch) { i + 2 * len } else { i + len };
                return Read::Token(Tok::Sym(Sym::Dash), end);
            }
            '▦' => return Read::Token(Tok::Squares(Bitboard::FULL), i + len),
            '∊' | '∈' => Sym::Element,
            '∀' => Sym::Forall,
            '→' => Sym::AttackRight,
            '←' => Sym::AttackLeft,
            '∩' => Sym::Inter,
            '∪' => Sym::Union,
            '≤' => Sym::Le,
            '≥' => Sym::Ge,
            '≠' => Sym::Ne,
            '×' => Sym::Capture,
            '⊢' => Sym::Path,
            '◎' => Sym::Focus,
            '✵' => Sym::FlipStar,
            '⬓' => Sym::FlipColorSquare,
            '∙' => Sym::Current,
            '≺' => Sym::Prec,
            '≻' => Sym::Succ,
            '≼' => Sym::PrecEq,
            '≽' => Sym::SuccEq,
            _ => {
                self.diagnostics.push(Diagnostic::new(
                    format!("unexpected character `{ch}` (U+{:04X})", ch as u32),
                    Span::new(i, i + len),
                ));
                return Read::Skip(i + len);
            }
        };
        Read::Token(Tok::Sym(sym), i + len)
    }

    /// Strings. CQL 6.2 reads a quoted string exactly as written, up to the next `"` on
    /// the same line: a backslash inside quotes is an ordinary character, and a line break
    /// is an error (`Lexer::match_quotedstringtoken`). Special characters are written
    /// outside the quotes (`\n`, `\t`, `\"` …, [`Lexer::backslash`]).
    fn string(&mut self, i: usize) -> Read {
        let b = self.b;
        let body = i + 1;
        let end = b[body..].iter().position(|&x| x == b'"' || x == b'\n').map(|k| body + k);
        let (text_end, next) = match end {
            Some(e) if b[e] == b'"' => (e, e + 1),
            Some(e) => {
                self.diagnostics.push(
                    Diagnostic::new("a quoted string cannot run past the end of its line", Span::new(i, e))
                        .with_hint("close it with `\"` on the same line; a line break is written `\\n` outside the quotes, as in `\"a\" + \\n + \"b\"`"),
                );
                (e, e)
            }
            None => {
                self.diagnostics.push(
                    Diagnostic::new("unterminated string", Span::new(i, b.len())).with_hint("close it with `\"`"),
                );
                (b.len(), b.len())
            }
        };
        Read::Token(Tok::Str(self.src[body..text_end].to_string()), next)
    }

    /// A backslash outside quotes (`Lexer::match_special_string`, `match_groupnumber`):
    /// `\"`, `\\`, `\n`, `\r`, `\t` are one-character strings; `\N` (one or two digits)
    /// is the text of capture group N of the last `~~` match and `\-N` where it starts.
    fn backslash(&mut self, i: usize) -> Read {
        let b = self.b;
        let special = match b.get(i + 1) {
            Some(b'"') => Some("\""),
            Some(b'\\') => Some("\\"),
            Some(b'n') if !b.get(i + 2).is_some_and(|&x| is_word_byte(x)) => Some("\n"),
            Some(b'r') if !b.get(i + 2).is_some_and(|&x| is_word_byte(x)) => Some("\r"),
            Some(b't') if !b.get(i + 2).is_some_and(|&x| is_word_byte(x)) => Some("\t"),
            _ => None,
        };
        if let Some(text) = special {
            return Read::Token(Tok::Str(text.to_string()), i + 2);
        }
        let index = b.get(i + 1) == Some(&b'-');
        let digits_at = i + 1 + usize::from(index);
        let digits = b[digits_at.min(b.len())..].iter().take_while(|d| d.is_ascii_digit()).count();
        if digits == 0 {
            self.diagnostics.push(Diagnostic::new("unexpected character `\\`", Span::new(i, i + 1)).with_hint(
                "outside quotes a backslash starts `\\n`, `\\r`, `\\t`, `\\\"`, `\\\\`, a capture group `\\1` or its start `\\-1`",
            ));
            return Read::Skip(i + 1);
        }
        let end = digits_at + digits;
        if digits > 2 {
            self.diagnostics.push(
                Diagnostic::new("a capture group number has at most two digits", Span::new(i, end))
                    .with_hint("groups are numbered 0 to 99"),
            );
        }
        let group = self.src[digits_at..digits_at + digits.min(2)].parse::<u8>().unwrap_or(0);
        Read::Token(if index { Tok::RegexGroupStart(group) } else { Tok::RegexGroup(group) }, end)
    }

    /// A result after `result` (`1-0`, `0-1`, `1/2-1/2`).
    fn result(&self, i: usize) -> Option<Read> {
        if !matches!(self.tokens.last(), Some(Token { tok: Tok::Word(w), .. }) if w == "result") {
            return None;
        }
        let lits = [("1/2-1/2", GameResult::Draw), ("1-0", GameResult::WhiteWins), ("0-1", GameResult::BlackWins)];
        let &(text, r) = lits.iter().find(|(t, _)| self.src[i..].starts_with(t))?;
        Some(Read::Token(Tok::ResultLit(r), i + text.len()))
    }

    /// A number.
    fn number(&mut self, i: usize) -> Read {
        let j = i + self.b[i..].iter().take_while(|d| d.is_ascii_digit()).count();
        match self.src[i..j].parse::<i64>() {
            Ok(n) => Read::Token(Tok::Number(n), j),
            Err(_) => {
                self.diagnostics
                    .push(Diagnostic::new(format!("number `{}` is too large", &self.src[i..j]), Span::new(i, j)));
                Read::Token(Tok::Number(0), j)
            }
        }
    }

    /// A word: castling, a piece designator (maybe with squares), squares, or a name.
    fn word(&mut self, i: usize) -> Read {
        let (src, b) = (self.src, self.b);
        let c = b[i];
        let rest = &src[i..];
        // Castling.
        for (text, king) in [("o-o-o", false), ("O-O-O", false), ("o-o", true), ("O-O", true)] {
            if rest.starts_with(text) && !b.get(i + text.len()).is_some_and(|&x| is_word_byte(x) || x == b'-') {
                return Read::Token(Tok::Castle(king), i + text.len());
            }
        }
        let wend = self.word_end(i);
        // A piece designator letter, maybe followed by squares.
        // `a-h8` and `b-d4` are square ranges, not the piece letters `a` / `b`.
        let file_range = (b'a'..=b'h').contains(&c)
            && b.get(i + 1) == Some(&b'-')
            && b.get(i + 2).is_some_and(|f| (b'a'..=b'h').contains(f));
        if let Some(mask) = letter_mask(c as char).filter(|_| PIECE_LETTERS.contains(c as char) && !file_range) {
            if let Some(read) = self.piece_letter(i, wend, mask) {
                return read;
            }
        }
        match scan_square_spec(b, i) {
            Some(Ok((bb, e))) if !b.get(e).is_some_and(|&x| is_word_byte(x)) => {
                return Read::Token(Tok::Squares(bb), e)
            }
            Some(Err(e)) if e > wend => return Read::Token(Tok::FileOnly, e),
            _ => {}
        }
        // `a-h9` (a file range, so no name): a square with a rank that does not exist.
        if let Some((e, rank)) = bad_square_spec(b, i).filter(|_| b.get(i + 1) == Some(&b'-')) {
            self.diagnostics.push(bad_square_diagnostic(src, i, e, &rank));
            return Read::Token(Tok::Squares(Bitboard::EMPTY), e);
        }
        Read::Token(Tok::Word(src[i..wend].to_string()), wend)
    }

    /// A piece letter at `i` (its word ends at `wend`), maybe followed by squares: the
    /// designator, or `None` when the word is no designator.
    fn piece_letter(&mut self, i: usize, wend: usize, mask: PieceMask) -> Option<Read> {
        let (src, b) = (self.src, self.b);
        if wend == i + 1 && !matches!(b.get(wend), Some(&b'-') | Some(&b'[')) {
            return Some(Read::Token(Tok::Pieces { mask, squares: None }, wend));
        }
        match scan_piece_squares(src, i + 1) {
            Some(Ok((bb, e))) if !b.get(e).is_some_and(|&x| is_word_byte(x)) => {
                return Some(Read::Token(Tok::Pieces { mask, squares: Some(bb) }, e))
            }
            Some(Err(e)) => return Some(Read::Token(Tok::FileOnly, e)),
            _ => {
                // `Ka-h9`: a piece letter and a file range are no name; `Ka9`
                // may be one, so only the range form is reported here.
                if let Some((e, rank)) = bad_square_spec(b, i + 1).filter(|_| wend < b.len() && b[wend] == b'-') {
                    self.diagnostics.push(bad_square_diagnostic(src, i + 1, e, &rank));
                    return Some(Read::Token(Tok::Pieces { mask, squares: None }, e));
                }
            }
        }
        (wend == i + 1).then_some(Read::Token(Tok::Pieces { mask, squares: None }, wend))
    }

    /// A bracketed designator or symbol at `i` (`[element]`, `[x]`, `[<]`, `[Qq]`,
    /// `[a1,h8]`); `None` for a plain `[`.
    fn bracketed(&mut self, i: usize, space: bool) -> Option<Read> {
        let (src, b) = (self.src, self.b);
        let rest = &src[i..];
        let close = rest[1..].find(']').filter(|&k| k <= 40)?;
        let content = &rest[1..1 + close];
        let end = i + close + 2;
        let designator = if content.contains('\n') {
            None
        } else if content == "element" {
            Some(Tok::Sym(Sym::Element))
        } else if content == "forall" {
            Some(Tok::Sym(Sym::Forall))
        } else if content == "x" {
            Some(Tok::Sym(Sym::Capture))
        } else if let Some(sym) = tree_relation_ascii(content).filter(|_| {
            // CQL 6.2 reads a piece designator written right before `[` as a name
            // being indexed (`a[<]1` is refused), so only after a space or another
            // token is this the relation.
            space || !matches!(self.tokens.last(), Some(Token { tok: Tok::Pieces { .. }, .. }))
        }) {
            // CQL 6.2's ASCII spellings of `≺ ≻ ≼ ≽` between positions.
            Some(Tok::Sym(sym))
        } else if !content.is_empty() && content.chars().all(|ch| PIECE_LETTERS.contains(ch)) {
            let mask = content.chars().filter_map(letter_mask).fold(PieceMask(0), PieceMask::with);
            return Some(match scan_piece_squares(src, end) {
                Some(Ok((bb, e))) if !b.get(e).is_some_and(|&x| is_word_byte(x)) => {
                    Read::Token(Tok::Pieces { mask, squares: Some(bb) }, e)
                }
                _ => Read::Token(Tok::Pieces { mask, squares: None }, end),
            });
        } else {
            square_list(content).map(Tok::Squares)
        };
        designator.map(|t| Read::Token(t, end))
    }

    /// Operators and punctuation (longest first), `.` (every square), or a character
    /// that is no token.
    fn symbol(&mut self, i: usize) -> Read {
        let rest = &self.src[i..];
        let c = self.b[i];
        let three = [("///", Sym::TripleSlash), ("-->", Sym::LineForward), ("<--", Sym::LineBackward)];
        let two = [
            ("--", Sym::Dash),
            ("->", Sym::AttackRight),
            ("<-", Sym::AttackLeft),
            ("~~", Sym::RegexOp),
            ("==", Sym::EqEq),
            ("!=", Sym::Ne),
            ("<=", Sym::Le),
            (">=", Sym::Ge),
            ("+=", Sym::PlusAssign),
            ("-=", Sym::MinusAssign),
            ("*=", Sym::StarAssign),
            ("/=", Sym::SlashAssign),
            ("%=", Sym::PercentAssign),
        ];
        let one = [
            ('(', Sym::LParen),
            (')', Sym::RParen),
            ('{', Sym::LBrace),
            ('}', Sym::RBrace),
            (']', Sym::RBracket),
            (',', Sym::Comma),
            (':', Sym::Colon),
            ('&', Sym::Inter),
            ('|', Sym::Union),
            ('~', Sym::Tilde),
            ('#', Sym::Hash),
            ('+', Sym::Plus),
            ('-', Sym::Minus),
            ('*', Sym::Star),
            ('/', Sym::Slash),
            ('%', Sym::Percent),
            ('?', Sym::Question),
            ('<', Sym::Lt),
            ('>', Sym::Gt),
            ('=', Sym::Assign),
        ];
        if let Some(&(t, s)) = three.iter().chain(two.iter()).find(|(t, _)| rest.starts_with(t)) {
            return Read::Token(Tok::Sym(s), i + t.len());
        }
        if c == b'.' {
            return Read::Token(Tok::Squares(Bitboard::FULL), i + 1);
        }
        if let Some(&(_, s)) = one.iter().find(|(ch, _)| *ch == c as char) {
            return Read::Token(Tok::Sym(s), i + 1);
        }
        self.diagnostics.push(Diagnostic::new(format!("unexpected character `{}`", c as char), Span::new(i, i + 1)));
        Read::Skip(i + 1)
    }
}

/// The ASCII spelling (`[<]`, `[>]`, `[<=]`, `[>=]`, without the brackets) of a comparison
/// of two positions in the game tree: ancestor, descendant, or either of them or equal.
fn tree_relation_ascii(content: &str) -> Option<Sym> {
    Some(match content {
        "<" => Sym::Prec,
        ">" => Sym::Succ,
        "<=" => Sym::PrecEq,
        ">=" => Sym::SuccEq,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let l = lex(s);
        assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
        l.tokens.into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn file_range_starting_with_a_piece_letter() {
        let t = toks("a-h8 b-c4 a");
        assert!(matches!(t[0], Tok::Squares(bb) if bb.count() == 8), "{t:?}");
        assert!(matches!(t[1], Tok::Squares(bb) if bb.count() == 2), "{t:?}");
        assert!(matches!(t[2], Tok::Pieces { squares: None, .. }), "{t:?}");
    }

    #[test]
    fn piece_designators_with_squares() {
        let t = toks("Kg1 ♙a-h7 [RQ]a-h7 _d4 a");
        assert_eq!(t[0], Tok::Pieces { mask: letter_mask('K').unwrap(), squares: Some(Bitboard::from(Square::G1)) });
        match &t[1] {
            Tok::Pieces { squares: Some(bb), .. } => assert_eq!(bb.count(), 8),
            other => panic!("{other:?}"),
        }
        match &t[2] {
            Tok::Pieces { mask, squares: Some(bb) } => {
                assert_eq!(bb.count(), 8);
                assert_eq!(*mask, letter_mask('R').unwrap().with(letter_mask('Q').unwrap()));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(t[4], Tok::Pieces { mask: PieceMask::BLACK, squares: None });
    }

    #[test]
    fn piece_designators_with_bracketed_square_lists() {
        // `P[a2-7]` is white pawns on a2..a7: one designator, not `P` and a separate set.
        let t = toks("P[a2-7] == 4 ♘[a1,h8] [Rr][e1-8] R [a1]");
        assert_eq!(
            t[0],
            Tok::Pieces {
                mask: letter_mask('P').unwrap(),
                squares: Some(scan_square_spec(b"a2-7", 0).unwrap().unwrap().0)
            }
        );
        match &t[3] {
            Tok::Pieces { squares: Some(bb), .. } => {
                assert!(bb.contains(Square::A1) && bb.contains(Square::H8) && bb.count() == 2)
            }
            other => panic!("{other:?}"),
        }
        match &t[4] {
            Tok::Pieces { squares: Some(bb), .. } => assert_eq!(bb.count(), 8),
            other => panic!("{other:?}"),
        }
        // With a space in between the piece letter stands alone.
        assert_eq!(t[5], Tok::Pieces { mask: letter_mask('R').unwrap(), squares: None });
        assert_eq!(t[6], Tok::Squares(Bitboard::from(Square::A1)));
    }

    #[test]
    fn words_that_look_like_pieces_stay_words() {
        let t = toks("dfile Pw bq Sum x");
        assert_eq!(t[0], Tok::Word("dfile".into()));
        assert_eq!(t[1], Tok::Word("Pw".into()));
        assert_eq!(t[2], Tok::Word("bq".into()));
        assert_eq!(t[4], Tok::Word("x".into()));
    }

    #[test]
    fn dash_spacing_and_symbols() {
        let l = lex("♘――f5 ♘ ――f5");
        assert!(!l.tokens[1].space_before);
        assert!(l.tokens[4].space_before);
        assert_eq!(l.tokens[1].tok, Tok::Sym(Sym::Dash));
        assert_eq!(toks("N--f5")[1], Tok::Sym(Sym::Dash));
        assert_eq!(toks("--=q")[1], Tok::Sym(Sym::Assign));
        assert_eq!(toks("line --> x")[1], Tok::Sym(Sym::LineForward));
        assert_eq!(
            toks("[x] [element] [forall]")[..3],
            [Tok::Sym(Sym::Capture), Tok::Sym(Sym::Element), Tok::Sym(Sym::Forall)]
        );
    }

    #[test]
    fn comments_and_triple_slash() {
        let t = toks("a1 ; x\n// y\n/* z */ stalemate /// \"s\"");
        assert_eq!(t[1], Tok::Word("stalemate".into()));
        assert_eq!(t[2], Tok::Sym(Sym::TripleSlash));
        assert_eq!(t[3], Tok::Str("s".into()));
        // Four or more slashes start an ordinary comment (`//////sorting: …`).
        let t = toks("check //////sorting: by length\nmate ////\n");
        assert_eq!(t[..2], [Tok::Word("check".into()), Tok::Word("mate".into())]);
    }

    #[test]
    fn results_castles_lists_and_errors() {
        assert_eq!(toks("result 1/2-1/2")[1], Tok::ResultLit(GameResult::Draw));
        assert_eq!(toks("o-o-o")[0], Tok::Castle(false));
        match &toks("[a1,h8]")[0] {
            Tok::Squares(bb) => assert_eq!(bb.count(), 2),
            o => panic!("{o:?}"),
        }
        assert_eq!(toks("♙c-f")[0], Tok::FileOnly);
        assert!(!lex("\"abc").diagnostics.is_empty());
        assert!(!lex("/* open").diagnostics.is_empty());
        assert!(!lex("$").diagnostics.is_empty());
    }
}
