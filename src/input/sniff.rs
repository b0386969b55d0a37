//! Is a text PGN at all? A look at the first block of an input (or at a file given
//! where a query script belongs) for the two things every PGN file holds: a tag pair
//! (`[Event "…"]`) or a line of moves (`1. e4 e5`, `e4 e5 Nf3`, `1-0`).
//!
//! Takes in: the first bytes of a (decompressed) text.
//! Gives out: whether it shows any sign of PGN, and whether it is plainly something else.
//! Must never: refuse text that holds a game: only a block with whole lines of other
//! text and no tag pair and no move line is judged "not PGN".

use super::is_blank;

/// Does this line (from its first non-blank byte) open a tag pair: `[`, a name, blanks
/// and a quotation mark (`[Event "`)? The rest of the line may hold anything (some
/// files put a game's moves on the line of its last tag).
fn opens_tag_pair(line: &[u8]) -> bool {
    let Some(rest) = line.strip_prefix(b"[") else { return false };
    let name = rest.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
    let blanks = rest[name..].iter().take_while(|&&b| b == b' ' || b == b'\t').count();
    name > 0 && rest[0].is_ascii_alphabetic() && rest.get(name + blanks) == Some(&b'"')
}

/// Could `token` be a move in standard algebraic notation (`e4`, `Nxf3+`, `exd8=Q#`,
/// `O-O-O`, `0-0`), with any `!`/`?` annotation?
fn is_san(token: &[u8]) -> bool {
    let mut t = token;
    while let [rest @ .., b'!' | b'?' | b'+' | b'#'] = t {
        t = rest;
    }
    if matches!(t, b"O-O" | b"O-O-O" | b"0-0" | b"0-0-0") {
        return true;
    }
    // Promotion suffix `=Q` or `Q` after a rank-8/1 square.
    if let [rest @ .., b'=', b'Q' | b'R' | b'B' | b'N'] = t {
        t = rest;
    }
    let is_file = |b: u8| (b'a'..=b'h').contains(&b);
    let is_rank = |b: u8| (b'1'..=b'8').contains(&b);
    // The destination square ends the move.
    let [head @ .., f, r] = t else { return false };
    if !is_file(*f) || !is_rank(*r) {
        return false;
    }
    let mut h = head;
    if let [first, rest @ ..] = h {
        if matches!(first, b'K' | b'Q' | b'R' | b'B' | b'N') {
            h = rest;
        }
    }
    if let [rest @ .., b'x' | b':'] = h {
        h = rest;
    }
    // At most a file and a rank of the origin are left.
    match h {
        [] => true,
        [a] => is_file(*a) || is_rank(*a),
        [a, b] => is_file(*a) && is_rank(*b),
        _ => false,
    }
}

/// Is `token` a game result (`1-0`, `0-1`, `1/2-1/2`, `*`)?
fn is_result(token: &[u8]) -> bool {
    matches!(token, b"1-0" | b"0-1" | b"1/2-1/2" | b"*")
}

/// Does this line begin like movetext: after move numbers (`1.`, `12...`, also glued to
/// the move as in `1.e4`), its first word is a move, or the line is a lone result?
fn looks_like_moves(line: &[u8]) -> bool {
    let mut words = line.split(|&b| b == b' ' || b == b'\t' || b == b'\r').filter(|w| !w.is_empty());
    let mut count = 0;
    for word in words.by_ref() {
        count += 1;
        // Strip a move number: digits then dots.
        let digits = word.iter().take_while(|b| b.is_ascii_digit()).count();
        let dots = word[digits..].iter().take_while(|&&b| b == b'.').count();
        let rest = if digits > 0 && dots > 0 { &word[digits + dots..] } else { word };
        if rest.is_empty() {
            continue;
        }
        return is_san(rest) || (is_result(rest) && count == 1);
    }
    false
}

/// What the first block of a text says about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A tag pair or a line of moves: PGN (or damaged PGN, which the reader reports game
    /// by game).
    Pgn,
    /// Whole lines of text, none of them a tag pair or moves: not PGN.
    NotPgn,
    /// Too little to say (nothing but blanks, escape lines and `;` comments, or no whole
    /// line yet).
    Unknown,
}

/// Judge the first block of a text. A last line without its line feed (the end of a
/// file, or half a line from a slow pipe) counts only as a sign of PGN, never against
/// it; `[Eve` there is taken for the start of a tag.
pub fn judge(block: &[u8]) -> Verdict {
    let mut other_text = false;
    let mut lines = block.split(|&b| b == b'\n').peekable();
    while let Some(line) = lines.next() {
        let whole = lines.peek().is_some();
        let Some(first) = line.iter().position(|&b| !is_blank(b)) else { continue };
        let line = &line[first..];
        if opens_tag_pair(line) || looks_like_moves(line) {
            return Verdict::Pgn;
        }
        if !whole {
            let tag_start = line.len() > 1 && line[0] == b'[' && line[1].is_ascii_alphabetic();
            return if tag_start {
                Verdict::Pgn
            } else if other_text {
                Verdict::NotPgn
            } else {
                Verdict::Unknown
            };
        }
        if !matches!(line[0], b'%' | b';') {
            other_text = true;
        }
    }
    if other_text {
        Verdict::NotPgn
    } else {
        Verdict::Unknown
    }
}

/// Does a file given as a query script look like PGN (compressed or not)? Its first
/// non-blank line is a tag pair or moves, or it starts with the magic bytes of gzip,
/// zstd or bzip2.
pub fn looks_like_pgn_file(bytes: &[u8]) -> bool {
    if super::Compression::sniff(bytes) != super::Compression::Plain {
        return true;
    }
    let first = bytes
        .split(|&b| b == b'\n')
        .map(|l| &l[l.iter().position(|&b| !is_blank(b)).unwrap_or(l.len())..])
        .find(|l| !l.is_empty());
    first.is_some_and(|l| opens_tag_pair(l) || looks_like_moves(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_in_their_spellings_are_san() {
        for m in ["e4", "Nf3", "exd5", "Nbd7", "R1e2", "Qh4xe1", "e8=Q+", "O-O-O", "Kxh7#", "e4!?", "0-0"] {
            assert!(is_san(m.as_bytes()), "{m}");
        }
        for w in ["Build", "cargo", "h9", "e", "x", "Ke", "1.", "the"] {
            assert!(!is_san(w.as_bytes()), "{w}");
        }
    }

    #[test]
    fn games_are_pgn_and_prose_is_not() {
        assert_eq!(judge(b"[Event \"x\"]\n[Site \"y\"]\n\n1. e4 e5 *\n"), Verdict::Pgn);
        assert_eq!(judge(b"1.e4 e5 2.Nf3 1-0\n"), Verdict::Pgn);
        assert_eq!(judge(b"e4 e5 Nf3 *\n"), Verdict::Pgn);
        assert_eq!(judge(b"{ a comment }\n\n[Event \"x\"]\n1. d4 *\n"), Verdict::Pgn);
        // A slow pipe's first bytes: half a tag.
        assert_eq!(judge(b"[Eve"), Verdict::Pgn);
        assert_eq!(judge(b"# cqlrs\n\ncqlrs finds chess games by theme.\n# 1. Build, then\n"), Verdict::NotPgn);
        assert_eq!(judge(b"{\"games\": [1, 2]}\n"), Verdict::NotPgn);
        assert_eq!(judge(b"[{\"a\": 1}]\n"), Verdict::NotPgn);
        assert_eq!(judge(b""), Verdict::Unknown);
        assert_eq!(judge(b"\n\n  \n"), Verdict::Unknown);
        assert_eq!(judge(b"% escape line\n"), Verdict::Unknown);
        assert_eq!(judge(b"no line end yet"), Verdict::Unknown);
        // The last line of a file without its line feed still counts for PGN.
        assert_eq!(judge(b"{ great game }\n1. e4 e5"), Verdict::Pgn);
        // A tag pair with the moves on its line (pgn-extract's test files).
        assert_eq!(judge(b"[Result \"1-0\"] e4 *\n"), Verdict::Pgn);
        assert_eq!(judge(b"[kj90trkm\"sdfsdf\"yl]\nr23 *\n"), Verdict::Pgn);
    }

    #[test]
    fn pgn_files_are_recognised_where_a_script_belongs() {
        assert!(looks_like_pgn_file(b"\n[Event \"World Championship\"]\n"));
        assert!(looks_like_pgn_file(b"1. e4 e5 2. Qh5 *\n"));
        assert!(looks_like_pgn_file(&[0x1f, 0x8b, 8, 0]));
        assert!(!looks_like_pgn_file(b"cql(input a.pgn)\nmate\n"));
        assert!(!looks_like_pgn_file(b"[RQ]a1 attacks k\n"));
        assert!(!looks_like_pgn_file(b"// mates\nmate\n"));
    }
}
