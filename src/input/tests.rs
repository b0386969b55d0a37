//! Tests for opening, decompression and game splitting.

use super::*;
use std::io::Write;

fn split(text: &[u8]) -> Vec<RawGame> {
    Splitter::new(io::Cursor::new(text.to_vec()), Arc::from("test.pgn"), 1)
        .map(|g| g.expect("in-memory input cannot fail"))
        .collect()
}

fn texts(games: &[RawGame]) -> Vec<String> {
    games.iter().map(|g| String::from_utf8_lossy(&g.bytes).into_owned()).collect()
}

#[test]
fn splits_two_ordinary_games_with_numbers_and_lines() {
    let pgn = b"[Event \"a\"]\n[Site \"x\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. d4 *\n";
    let games = split(pgn);
    assert_eq!(games.len(), 2);
    assert_eq!(games[0].number, 1);
    assert_eq!(games[1].number, 2);
    assert_eq!(games[0].line, 1);
    assert_eq!(games[1].line, 6);
    assert_eq!(texts(&games)[0], "[Event \"a\"]\n[Site \"x\"]\n\n1. e4 e5 1-0");
    assert!(texts(&games)[1].starts_with("[Event \"b\"]"));
}

#[test]
fn bracket_inside_multiline_comment_does_not_split() {
    let pgn = b"[Event \"a\"]\n\n1. e4 {a comment\n[Event \"not a tag\"] still comment} e5 *\n[Event \"b\"]\n1. d4 *\n";
    let games = split(pgn);
    assert_eq!(games.len(), 2, "{:?}", texts(&games));
    assert!(texts(&games)[0].contains("still comment} e5 *"));
}

#[test]
fn semicolon_comment_hides_an_open_brace() {
    let pgn = b"[Event \"a\"]\n\n1. e4 ; not a {comment\ne5 *\n[Event \"b\"]\n1. d4 *\n";
    assert_eq!(split(pgn).len(), 2);
}

#[test]
fn unterminated_comment_costs_only_its_game() {
    let pgn = b"[Event \"a\"]\n\n1. e4 {never closed\n\n[Event \"b\"]\n\n1. d4 *\n\n[Event \"c\"]\n\n1. c4 *\n";
    let games = split(pgn);
    assert_eq!(games.len(), 3, "{:?}", texts(&games));
    assert_eq!(games[1].line, 5);
    assert!(texts(&games)[2].contains("c4"));
}

#[test]
fn header_only_games_are_games_and_blank_line_in_tags_is_tolerated() {
    let pgn = b"[Event \"a\"]\n[Site \"s\"]\n\n[Event \"b\"]\n\n[Event \"c\"]\n\n[Date \"x\"]\n1. e4 *\n";
    let games = split(pgn);
    assert_eq!(games.len(), 3, "{:?}", texts(&games));
    assert!(texts(&games)[2].contains("[Date"));
}

#[test]
fn movetext_only_game_and_whitespace_only_input() {
    assert_eq!(split(b"1. e4 e5 *\n").len(), 1);
    assert_eq!(split(b"  \n\r\n\t\n").len(), 0);
    assert_eq!(split(b"").len(), 0);
}

#[test]
fn bom_crlf_and_nul_bytes_are_blank() {
    let pgn = b"\xef\xbb\xbf[Event \"a\"]\r\n\r\n1. e4 *\r\n\r\n\0\0\0\r\n[Event \"b\"]\r\n\r\n1. d4 *\r\n";
    let games = split(pgn);
    assert_eq!(games.len(), 2);
    assert_eq!(games[1].line, 6);
}

#[test]
fn escape_lines_are_not_content() {
    let pgn = b"% a note\n[Event \"a\"]\n1. e4 *\n% trailing\n";
    let games = split(pgn);
    assert_eq!(games.len(), 1);
    assert_eq!(games[0].line, 2);
}

#[test]
fn unterminated_tag_costs_only_its_game() {
    let pgn = b"[Event \"a\n1. e4 *\n\n[Event \"b\"]\n1. d4 *\n";
    assert_eq!(split(pgn).len(), 2);
}

fn write_temp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("cqlrs-input-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write temp file");
    path
}

const TWO_GAMES: &[u8] = b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 *\n";

#[test]
fn opens_gzip_zstd_bzip2_and_plain_by_magic() {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(TWO_GAMES).unwrap();
    let gz = gz.finish().unwrap();
    let zst = zstd::stream::encode_all(TWO_GAMES, 3).unwrap();
    let mut bz = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
    bz.write_all(TWO_GAMES).unwrap();
    let bz = bz.finish().unwrap();
    let files = [
        write_temp("a.pgn", TWO_GAMES),
        write_temp("b.pgn.gz", &gz),
        write_temp("c.pgn.zst", &zst),
        write_temp("d.pgn.bz2", &bz),
    ];
    for f in &files {
        let mut text = Vec::new();
        open(f.to_str().unwrap()).unwrap().read_to_end(&mut text).unwrap();
        assert_eq!(text, TWO_GAMES, "{}", f.display());
    }
    // Chained: continuous numbering across files, a missing file is one error.
    let mut paths: Vec<String> = files.iter().map(|p| p.to_str().unwrap().to_string()).collect();
    paths.insert(2, "/nonexistent/file.pgn".to_string());
    let items: Vec<_> = Games::new(paths).collect();
    assert_eq!(items.len(), 9);
    assert!(items[4].is_err());
    let numbers: Vec<u64> = items.iter().filter_map(|g| g.as_ref().ok()).map(|g| g.number).collect();
    assert_eq!(numbers, (1..=8).collect::<Vec<u64>>());
}

#[test]
fn gzip_multi_member_is_read_whole() {
    let mut out = Vec::new();
    for part in [&TWO_GAMES[..20], &TWO_GAMES[20..]] {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(part).unwrap();
        out.extend(gz.finish().unwrap());
    }
    let path = write_temp("multi.pgn.gz", &out);
    let games: Vec<_> = Games::new(vec![path.to_str().unwrap().to_string()]).collect();
    assert_eq!(games.len(), 2);
}

/// Game counts of the shared conformance corpora (skipped when ../shared is absent).
#[test]
fn corpus_game_counts() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/conformance"));
    if !dir.exists() {
        eprintln!("note: {} not found, corpus count test skipped", dir.display());
        return;
    }
    let expected = [
        ("twic1599.pgn", 1110),
        ("lichess1000k.pgn", 438),
        ("studies253.pgn", 253),
        ("worldmatches.pgn", 580),
        ("lichess-studies64.pgn", 64),
        ("yacpdb-derived.pgn", 26),
        ("yacpdb-extra.pgn", 16),
    ];
    for (name, count) in expected {
        let path = dir.join(name);
        let games: Vec<_> = Games::new(vec![path.to_str().unwrap().to_string()])
            .collect::<Result<Vec<_>, _>>()
            .expect("readable corpus");
        assert_eq!(games.len(), count, "{name}");
        assert_eq!(games.last().map(|g| g.number), Some(count as u64));
    }
}

#[test]
fn archives_executables_and_binary_data_are_refused() {
    assert!(refuse_reason(&[0xfd, b'7', b'z', b'X', b'Z', 0, 1]).unwrap().contains("xz"));
    assert!(refuse_reason(b"PK\x03\x04....").unwrap().contains("zip"));
    assert!(refuse_reason(b"\x7fELF\x02\x01").unwrap().contains("executable"));
    assert_eq!(refuse_reason(b"[Event \"x\"]"), None);
    assert_eq!(refuse_reason(b"\x1f\x8b\x08"), None, "gzip is read, not refused");
    assert!(looks_binary(&[0u8; 64]));
    assert!(!looks_binary(b"[Event \"x\"]\r\n\r\n1. e4 *\r\n"));
    let mut stray_nul = b"[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n".repeat(20);
    stray_nul.push(0);
    assert!(!looks_binary(&stray_nul), "one stray NUL in a PGN file is damage, not binary data");
    let err = wrap_decoder(Box::new(std::io::Cursor::new(b"\x7fELF\x02\x01\x01\x00".to_vec()))).err().unwrap();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
}

#[test]
fn a_read_error_hands_out_the_cut_game_with_the_position() {
    /// Gives its bytes, then fails.
    struct Failing(std::io::Cursor<Vec<u8>>);
    impl std::io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            match self.0.read(buf)? {
                0 => Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "stream cut")),
                n => Ok(n),
            }
        }
    }
    let text = b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 d5 2. c4".to_vec();
    let reader = std::io::BufReader::new(Failing(std::io::Cursor::new(text.clone())));
    let items: Vec<_> = Splitter::new(reader, Arc::from("cut.pgn"), 1).collect();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].as_ref().unwrap().number, 1);
    let err = items[1].as_ref().err().unwrap();
    let cut = err.partial.as_ref().expect("the cut game is handed out");
    assert_eq!((cut.number, cut.line), (2, 5));
    assert_eq!(cut.bytes, b"[Event \"b\"]\n\n1. d4 d5 2. c4");
    assert_eq!(err.offset.unwrap().text_bytes, text.len() as u64);
    assert!(err.to_string().contains("game 2 (line 5) is cut off"), "{err}");
}

/// A reader that gives its bytes in chunks of the given sizes (cycled) and, when
/// `fail` is set, an error instead of the end of the input.
struct Chunked {
    bytes: Vec<u8>,
    pos: usize,
    sizes: Vec<usize>,
    turn: usize,
    fail: bool,
}

impl std::io::Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.bytes.len() {
            return if self.fail { Err(std::io::Error::other("damaged")) } else { Ok(0) };
        }
        let size = self.sizes[self.turn % self.sizes.len()].max(1);
        self.turn += 1;
        let n = size.min(buf.len()).min(self.bytes.len() - self.pos);
        buf[..n].copy_from_slice(&self.bytes[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Everything a splitter hands out, with its counters after each item, as text.
fn split_trace<I: Iterator<Item = Result<RawGame, Error>>>(
    mut items: I,
    counters: impl Fn(&I) -> (u64, u64, u64),
) -> Vec<String> {
    let mut out = Vec::new();
    while let Some(item) = items.next() {
        let (bytes, lines, next) = counters(&items);
        let item = match item {
            Ok(g) => format!("{g:?}"),
            Err(e) => format!("error {e} {:?} {:?}", e.offset, e.partial),
        };
        out.push(format!("{item} bytes={bytes} lines={lines} next={next}"));
    }
    out
}

/// The block splitter and the line-by-line reference give the same games, errors and
/// counters for `text` read in chunks of `sizes`.
fn assert_same_split(text: &[u8], sizes: &[usize], fail: bool, offset: u64) {
    let reader = |cap: usize| {
        std::io::BufReader::with_capacity(
            cap,
            Chunked { bytes: text.to_vec(), pos: 0, sizes: sizes.to_vec(), turn: 0, fail },
        )
    };
    let cap = sizes.iter().copied().max().unwrap_or(1).max(1);
    let new = Splitter::new(reader(cap), Arc::from("t"), 7).starting_at(offset, 3, 2);
    let old = reference::OldSplitter::new(reader(cap), Arc::from("t"), 7).starting_at(offset, 3, 2);
    let new_trace = split_trace(new, |s| (s.bytes_read(), s.lines_read(), s.next_number()));
    let old_trace = split_trace(old, |s| (s.bytes_read(), s.lines_read(), s.next_number()));
    assert_eq!(new_trace, old_trace, "input {:?} chunks {sizes:?}", String::from_utf8_lossy(text));
}

#[test]
fn block_splitter_agrees_with_the_reference_on_tricky_inputs() {
    let cases: &[&[u8]] = &[
        b"[Event \"a\"]\n[Site \"x\"]\n\n1. e4 e5 1-0\n\n[Event \"b\"]\n\n1. d4 *\n",
        b"[Event \"a\"]\n\n1. e4 {a comment\n[Event \"not a tag\"] still comment} e5 *\n[Event \"b\"]\n1. d4 *\n",
        b"[Event \"a\"]\n\n1. e4 ; not a {comment\ne5 *\n[Event \"b\"]\n1. d4 *\n",
        b"[Event \"a\"]\n\n1. e4 {never closed\n\n[Event \"b\"]\n\n1. d4 *\n\n[Event \"c\"]\n\n1. c4 *\n",
        b"[Event \"a\"]\n[Site \"s\"]\n\n[Event \"b\"]\n\n[Event \"c\"]\n\n[Date \"x\"]\n1. e4 *\n",
        b"\xef\xbb\xbf[Event \"a\"]\r\n\r\n1. e4 *\r\n\r\n\0\0\0\r\n[Event \"b\"]\r\n\r\n1. d4 *\r\n",
        b"% a note\n[Event \"a\"]\n1. e4 *\n% trailing\n",
        b"[Event \"a\n1. e4 *\n\n[Event \"b\"]\n1. d4 *\n",
        b"[A \"x\\\"]\" ] [B \"y\"] 1. e4 {\n} *\n  [C \"z\"]\n\n\n1. d4",
        b"1. e4 e5 *\n",
        b"  \n\r\n\t\n",
        b"",
        b"[Event \"a\"]\n\n1. e4 *\n\n[Event \"b\"]\n\n1. d4 d5 2. c4",
    ];
    for text in cases {
        for sizes in [&[1usize][..], &[2, 3], &[5], &[7, 1, 13], &[4096]] {
            for fail in [false, true] {
                assert_same_split(text, sizes, fail, 0);
                assert_same_split(text, sizes, fail, 1000);
            }
        }
    }
}

mod differential {
    use super::*;
    use proptest::prelude::*;

    /// Pieces that PGN files (and damaged ones) are made of.
    const PIECES: &[&str] = &[
        "[Event \"a\"]",
        "[Site \"b\"]",
        "[Event \"x",
        "[A \"\\\"]\"]",
        "]",
        "[",
        "\"",
        "\\",
        "\n",
        "\n",
        "\n",
        "\r\n",
        " ",
        "\t",
        "1. e4 ",
        "e5 ",
        "{",
        "}",
        "{c\n",
        ";",
        "%",
        "% x\n",
        "*",
        "1-0",
        "\u{feff}",
        "\0",
        "\u{e9}",
        "(",
        ")",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn block_splitter_agrees_with_the_reference(
            pieces in proptest::collection::vec(0..PIECES.len(), 0..60),
            sizes in proptest::collection::vec(1usize..40, 1..4),
            fail in any::<bool>(),
        ) {
            let text: String = pieces.iter().map(|&i| PIECES[i]).collect();
            assert_same_split(text.as_bytes(), &sizes, fail, 0);
        }
    }
}

/// The block splitter agrees with the reference on every file of the shared corpora
/// (skipped when ../shared is absent).
#[test]
fn block_splitter_agrees_with_the_reference_on_the_corpora() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"));
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                if entry.file_name() != "bench" {
                    walk(&path, out);
                }
            } else {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &mut files);
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "pgn")) {
        let text = std::fs::read(path).unwrap();
        assert_same_split(&text, &[65536, 1000], false, 0);
    }
}

/// The line-run search gives what looking at every byte gives, on strings of the bytes
/// that matter placed at every offset around the sixteen-byte steps.
#[test]
fn plain_movetext_lines_agrees_with_a_byte_loop() {
    fn by_bytes(bytes: &[u8], from: usize) -> (usize, u64) {
        let (mut end, mut lines) = (from, 0);
        for (i, &b) in bytes.iter().enumerate().skip(from) {
            if matches!(b, b'{' | b';' | b'[' | b'%') {
                break;
            }
            if b == b'\n' {
                lines += 1;
                end = i + 1;
            }
        }
        (end, lines)
    }
    let alphabet: &[u8] = b"e4 \n\n{;[%\xc3\xa9\r";
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for len in 0..120 {
        for _ in 0..40 {
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    // Mostly plain bytes, so that long runs occur.
                    if seed % 5 == 0 {
                        alphabet[(seed >> 8) as usize % alphabet.len()]
                    } else {
                        b"Nf3 e5\n"[(seed >> 8) as usize % 7]
                    }
                })
                .collect();
            for from in 0..=len.min(3) {
                assert_eq!(plain_movetext_lines(&text, from), by_bytes(&text, from), "{:?} from {from}", text);
            }
        }
    }
    // Runs longer than 255 sixteen-byte steps (the line feeds are summed in parts), ending
    // at a stop byte or at the end, with the last line feed in the last step or earlier.
    for lines in [250usize, 300, 700] {
        let mut text = b"1. e4 e5 2. Nf3 Nc6\n".repeat(lines);
        assert_eq!(plain_movetext_lines(&text, 0), by_bytes(&text, 0));
        text.extend_from_slice(b"3. Bb5 {a comment}\n");
        assert_eq!(plain_movetext_lines(&text, 0), (lines * 20, lines as u64));
        text.extend_from_slice(b"          plain text without a line feed, longer than sixteen bytes");
        assert_eq!(plain_movetext_lines(&text, 0), by_bytes(&text, 0));
        text.truncate(lines * 20 - 1);
        text.extend_from_slice(b" and more plain text, well over sixteen bytes long");
        assert_eq!(plain_movetext_lines(&text, 0), by_bytes(&text, 0));
    }
    // Blank last lines are told from the others.
    assert!(last_line_is_blank(b"1. e4\n \t\r\n"));
    assert!(last_line_is_blank(b"\n"));
    assert!(!last_line_is_blank(b"\n1. e4\n"));
    assert!(!last_line_is_blank(b"  e5 \n"));
}
