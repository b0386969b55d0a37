//! Tests for reading games into the position tree.

use super::tags::{append_run, tag_name_end};
use super::*;
use shakmaty::{Chess, Color, EnPassantMode, Role, Square};
use std::sync::Arc;

fn raw(text: &[u8], line: u64) -> RawGame {
    RawGame { number: 7, file: Arc::from("t.pgn"), line, bytes: text.to_vec(), ..RawGame::default() }
}

fn parse(text: &str) -> Result<Game, GameError> {
    let mut game = Game::default();
    GameParser::new().parse(&raw(text.as_bytes(), 1), &mut game, &|_| true)?;
    Ok(game)
}

fn sans(game: &Game, ids: &[NodeId]) -> Vec<String> {
    ids.iter().map(|&id| game.node(id).san.to_string()).collect()
}

fn fen_of(game: &Game, id: NodeId) -> String {
    shakmaty::fen::Fen::from_position(&game.node(id).pos, EnPassantMode::Legal).to_string()
}

#[test]
fn tags_escapes_and_termination() {
    let game =
        parse("[Event \"A \\\"big\\\" one\"]\n[Site \"C:\\\\x\"]\n[Odd \"say \"hi\" there\"]\n\n1. e4 e5 1/2-1/2\n")
            .unwrap();
    assert_eq!(game.number, 7);
    assert_eq!(game.tag("Event").unwrap().text(), "A \"big\" one");
    assert_eq!(game.tag("Site").unwrap().text(), "C:\\x");
    assert_eq!(game.tag("Odd").unwrap().text(), "say \"hi\" there");
    assert_eq!(game.termination.as_deref(), Some("1/2-1/2"));
    assert_eq!(game.nodes.len(), 3);
}

#[test]
fn header_filter_skips_replay_but_keeps_termination() {
    let mut game = Game::default();
    let mut parser = GameParser::new();
    let r = raw(b"[White \"X\"]\n\n1. e4 Qxx9 0-1", 1);
    parser.parse(&r, &mut game, &|g| g.tag("White").is_some_and(|t| t.text() == "Y")).unwrap();
    assert!(game.nodes.is_empty());
    assert_eq!(game.termination.as_deref(), Some("0-1"));
    // With moves wanted, the unplayable move shows; the game is read up to it.
    parser.parse(&r, &mut game, &|_| true).unwrap();
    assert!(game.unplayable.is_some());
    assert_eq!(game.nodes.len(), 2);
}

#[test]
fn variations_make_the_right_tree() {
    // 1. e4 (1. d4 d5 (1... Nf6)) e5 2. Nf3
    let game = parse("1. e4 {best} (1. d4 d5 (1... Nf6 $1)) e5 2. Nf3 *").unwrap();
    let root = game.node(NodeId::ROOT);
    assert_eq!(sans(&game, &root.children), vec!["e4", "d4"]);
    let e4 = root.children[0];
    let d4 = root.children[1];
    assert_eq!(game.node(e4).comments, vec!["best".to_string()]);
    assert_eq!(sans(&game, &game.node(d4).children), vec!["d5", "Nf6"]);
    let nf6 = game.node(d4).children[1];
    assert_eq!(game.node(nf6).depth, 2);
    assert_eq!(game.node(nf6).nags, vec![1]);
    assert_eq!(game.node(nf6).ply, 2);
    assert_eq!(game.node(d4).depth, 1);
    let main: Vec<NodeId> = game.mainline().collect();
    assert_eq!(sans(&game, &main), vec!["", "e4", "e5", "Nf3"]);
    assert!(main.iter().all(|&n| game.node(n).depth == 0));
    assert_eq!(game.node(main[3]).parent, Some(main[2]));
    assert_eq!(game.termination.as_deref(), Some("*"));
}

#[test]
fn comments_before_first_move_and_at_variation_start() {
    let game = parse("{intro} 1. e4 ( {instead} 1. c4 ) 1... c5 ; rest of line\n 2. Nf3 !? $14 *").unwrap();
    let root = game.node(NodeId::ROOT);
    assert_eq!(root.comments, vec!["intro".to_string()]);
    let c4 = root.children[1];
    assert_eq!(game.node(c4).comments, vec!["instead".to_string()]);
    let main: Vec<NodeId> = game.mainline().collect();
    assert_eq!(game.node(main[2]).comments, vec!["rest of line".to_string()]);
    assert_eq!(game.node(main[3]).nags, vec![5, 14]);
}

#[test]
fn lenient_san_forms() {
    let game = parse("[FEN \"4k3/1P6/8/8/8/8/8/R3K2R w KQ - 0 1\"]\n1. 0-0 Kd7 2. b8Q Kc6 3. Rfe1 Kd5 4. Qd6+?? *");
    let game = game.unwrap();
    let main: Vec<NodeId> = game.mainline().collect();
    assert_eq!(game.node(main[1]).played, Some(Played::Move(Move::Castle { king: Square::E1, rook: Square::H1 })));
    assert_eq!(game.node(main[3]).pos.board().role_at(Square::B8), Some(Role::Queen));
    assert_eq!(game.node(main[7]).nags, vec![4]);
    assert_eq!(game.node(main[7]).san, "Qd6+");
    // Piece letter case clash and long algebraic.
    let game = parse("1. e2-e4 d7d5 2. exd5 c6 3. Ng1-f3 Pxd5 4. nc3 *").unwrap();
    assert_eq!(game.mainline().count(), 8);
    let game = parse("[FEN \"4k3/8/8/8/8/1p6/P1P5/4K3 b - - 0 1\"]\n1... bxc2 *").unwrap();
    assert_eq!(game.mainline().count(), 2);
    // UCI moves: `b8d7` is the knight, not a bishop on the 8th rank.
    let game = parse("g1f3 d7d6 e2e4 b8d7 f1c4 e7e5 e1g1 *").unwrap();
    let main: Vec<NodeId> = game.mainline().collect();
    assert_eq!(game.node(main[4]).pos.board().role_at(Square::D7), Some(Role::Knight));
    assert_eq!(game.node(main[7]).pos.board().role_at(Square::G1), Some(Role::King));
}

#[test]
fn ids_follow_castling_en_passant_and_promotion() {
    let game = parse("1. e4 a6 2. e5 d5 3. exd6 Nf6 4. dxc7 Ng8 5. cxb8=Q Nf6 6. Nf3 e6 7. Bc4 Bc5 8. O-O *").unwrap();
    let root = game.node(NodeId::ROOT);
    // a1..h1 are 1..8, a2..h2 9..16, a7..h7 17..24, a8..h8 25..32.
    assert_eq!(root.ids.at(Square::A1), 1);
    assert_eq!(root.ids.at(Square::E2), 13);
    assert_eq!(root.ids.at(Square::D7), 20);
    assert_eq!(root.ids.at(Square::H8), 32);
    let main: Vec<NodeId> = game.mainline().collect();
    let after_ep = game.node(main[5]).ids;
    assert_eq!(after_ep.at(Square::D6), 13);
    assert_eq!(after_ep.at(Square::D5), 0, "the pawn taken en passant is gone");
    assert_eq!(after_ep.square_of(20), None);
    let after_promo = game.node(main[9]).ids;
    assert_eq!(after_promo.at(Square::B8), 13, "promotion keeps the pawn's id");
    assert_eq!(after_promo.square_of(26), None, "the captured knight is gone");
    let last = game.node(*main.last().unwrap()).ids;
    assert_eq!(last.at(Square::G1), 5, "king id moved by castling");
    assert_eq!(last.at(Square::F1), 8, "rook id moved by castling");
    assert_eq!(last.at(Square::E1), 0);
    assert_eq!(last.at(Square::H1), 0);
}

#[test]
fn chess960_castling_moves_both_ids() {
    // King b1, rooks a1 and h1: O-O-O puts the king on c1 and the a-rook on d1.
    let game = parse("[Variant \"Chess960\"]\n[FEN \"r3k2r/8/8/8/8/8/8/RK5R w KQkq - 0 1\"]\n1. O-O-O O-O *").unwrap();
    let main: Vec<NodeId> = game.mainline().collect();
    let root_ids = game.node(NodeId::ROOT).ids;
    let ids = game.node(main[1]).ids;
    assert_eq!(ids.at(Square::C1), root_ids.at(Square::B1));
    assert_eq!(ids.at(Square::D1), root_ids.at(Square::A1));
    assert_eq!(ids.at(Square::H1), root_ids.at(Square::H1));
    assert_eq!(ids.at(Square::A1), 0);
    assert_eq!(ids.at(Square::B1), 0);
    assert_eq!(fen_of(&game, main[2]), "r4rk1/8/8/8/8/8/8/2KR3R w - - 2 2");
}

#[test]
fn fen_without_variant_tag_uses_chess960_when_castling_needs_it() {
    let game =
        parse("[SetUp \"1\"]\n[FEN \"bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1\"]\n1. g3 *").unwrap();
    assert_eq!(game.mainline().count(), 2);
    let bad = parse("[FEN \"not a fen\"]\n1. e4 *").unwrap_err();
    assert!(matches!(bad.kind, GameErrorKind::BadFen(_)));
    assert_eq!(bad.line, 1);
    // Castling rights that do not fit are dropped rather than refusing the game.
    let game = parse("[FEN \"4k3/8/8/8/8/8/8/4K3 w KQkq - 0 1\"]\n1. Kd2 *").unwrap();
    assert_eq!(game.mainline().count(), 2);
}

#[test]
fn kingless_setup_is_replayed_on_the_board() {
    let game =
        parse("[SetUp \"1\"]\n[FEN \"8/8/8/8/8/8/8/B6B w - - 0 1\"]\n1. Bh8 -- 2. Ba1 -- 3. Bh8 -- 4. Ba1 *").unwrap();
    let main: Vec<NodeId> = game.mainline().collect();
    assert_eq!(main.len(), 8);
    assert!(game.nodes.iter().all(|n| n.pos.is_lenient()));
    assert_eq!(fen_of(&game, main[1]), "7B/8/8/8/8/8/8/7B b - - 1 1");
    assert_eq!(game.node(main[2]).played, Some(Played::Null));
    assert_eq!(game.node(main[2]).pos.turn(), Color::White);
    // A null move is a ply: the halfmove clock and the move number go on (issue 43).
    assert_eq!(fen_of(&game, main[7]), "8/8/8/8/8/8/8/B6B b - - 7 4");
    // The bishop that left a1 is the one that comes back: identities follow the moves.
    assert_eq!(game.node(main[7]).ids.at(Square::A1), game.node(main[0]).ids.at(Square::A1));
    // A move no piece can make ends the reading there: the set-up alone is kept.
    let cut = parse("[FEN \"8/8/8/8/8/8/8/B6B w - - 0 1\"]\n1. Bh7 *").unwrap();
    assert_eq!(cut.nodes.len(), 1);
    assert!(matches!(cut.unplayable.as_ref().map(|e| &e.kind), Some(GameErrorKind::IllegalMove { .. })));
    // An empty board is not a set-up.
    let empty = parse("[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n*").unwrap_err();
    assert!(matches!(empty.kind, GameErrorKind::BadFen(_)), "{empty}");
}

#[test]
fn two_kings_and_back_rank_pawns_are_replayed() {
    // Two white kings: the checked one must be dealt with, lenient SAN (`Kxa2`, `0-0`-free).
    let game = parse("[FEN \"4k3/8/8/8/8/8/r7/K6K w - - 0 1\"]\n1. Kxa2 Kd7 2. Kb3 *").unwrap();
    let main: Vec<NodeId> = game.mainline().collect();
    assert_eq!(main.len(), 4);
    assert_eq!(fen_of(&game, main[3]), "8/3k4/8/8/8/1K6/8/7K b - - 2 2");
    // A white pawn on its first rank steps up; long algebraic works too.
    let game = parse("[FEN \"4k3/8/8/8/8/8/8/P3K3 w - - 0 1\"]\n1. a1-a2 Ke7 2. a3 *").unwrap();
    let main: Vec<NodeId> = game.mainline().collect();
    assert_eq!(main.len(), 4);
    assert!(game.node(main[3]).pos.board().pawns().contains(Square::A3));
    // Side not to move in check: the king can be taken, then the game goes on kingless.
    let game = parse("[FEN \"4k3/8/8/8/8/8/8/4QK2 w - - 0 1\"]\n1. Qxe8 -- 2. Qe1 *").unwrap();
    let last = game.mainline().last().unwrap();
    assert_eq!(fen_of(&game, last), "8/8/8/8/8/8/8/4QK2 b - - 2 2");
}

#[test]
fn null_moves_swap_the_side_to_move() {
    let game = parse("1. e4 -- 2. d4 Z0 3. Nf3 *").unwrap();
    let main: Vec<NodeId> = game.mainline().collect();
    assert_eq!(main.len(), 6);
    let null = game.node(main[2]);
    assert_eq!(null.played, Some(Played::Null));
    assert_eq!(null.pos.turn(), Color::White);
    assert_eq!(null.pos.board(), game.node(main[1]).pos.board());
    assert_eq!(null.pos.ep_square(EnPassantMode::Always), None);
    assert_eq!(null.ids, game.node(main[1]).ids);
    // Null move while in check: node kept, position unchanged.
    let game = parse("1. e4 f5 2. Qh5+ -- *").unwrap();
    let main: Vec<NodeId> = game.mainline().collect();
    assert_eq!(main.len(), 5);
    assert_eq!(game.node(main[4]).pos.turn(), Color::Black);
}

#[test]
fn illegal_move_reports_its_line_and_text() {
    let mut game = Game::default();
    let text = b"[Event \"x\"]\n\n1. e4 e5\n2. Nf3 Nc6\n3. Bb5 Ke4\n";
    GameParser::new().parse(&raw(text, 100), &mut game, &|_| true).unwrap();
    let err = game.unplayable.clone().expect("the unplayable move is noted");
    assert_eq!(err.line, 104);
    assert_eq!(err.kind, GameErrorKind::IllegalMove { san: "Ke4".to_string(), ply: 6 });
    // The game is read up to it, and the position before it says so as CQL 6.2 does.
    let main: Vec<NodeId> = game.mainline().collect();
    assert_eq!(main.len(), 6);
    assert_eq!(game.node(main[5]).comments, vec!["Error reading move: Ke4".to_string()]);
}

#[test]
fn an_unplayable_move_in_a_variation_ends_the_reading_there() {
    let game = parse("1. e4 e5 (1... Kxe6+!) 2. Nf3 *").unwrap();
    // 1. e4 e5 only: the main line's 2. Nf3 comes after the unplayable move.
    assert_eq!(game.nodes.len(), 3);
    let e4 = game.mainline().nth(1).unwrap();
    let e5 = game.mainline().nth(2).unwrap();
    assert!(game.node(e4).comments.is_empty() && game.node(e5).comments.is_empty());
    // The comment belongs to the variation, left empty, beside 1... e5; the move is written
    // as CQL's reader keeps it (no capture mark, no check or `!`).
    assert_eq!(game.unplayable_variation, Some((e5, "Error reading move: Ke6".to_string())));
    assert!(game.unplayable.is_some());
    // A game read whole has nothing noted, also when the parser read a broken one before.
    let mut parser = GameParser::new();
    let mut g = Game::default();
    parser.parse(&raw(b"1. e4 e5 (1... Ke6) *", 1), &mut g, &|_| true).unwrap();
    assert!(g.unplayable.is_some() && g.unplayable_variation.is_some());
    parser.parse(&raw(b"1. e4 e5 *", 2), &mut g, &|_| true).unwrap();
    assert!(g.unplayable.is_none() && g.unplayable_variation.is_none());
    assert_eq!(g.nodes.len(), 3);
}

#[test]
fn unterminated_comment_and_tag_are_errors_with_lines() {
    let err = parse("[Event \"x\"]\n1. e4\n{ open\n e5 *").unwrap_err();
    assert_eq!(err, GameError { kind: GameErrorKind::UnterminatedComment, line: 3 });
    let err = parse("[Event \"x\"]\n[Site \"open\n1. e4 *").unwrap_err();
    assert_eq!(err, GameError { kind: GameErrorKind::UnterminatedTag, line: 2 });
}

#[test]
fn crlf_bom_latin1_and_nul_are_tolerated() {
    let bytes = b"\xef\xbb\xbf[Event \"Dortmund \xfc\"]\r\n\r\n1. e4 {sch\xf6n}\r\n e5\0 2. Nf3 1-0\r\n";
    let mut game = Game::default();
    GameParser::new().parse(&raw(bytes, 1), &mut game, &|_| true).unwrap();
    assert_eq!(game.tag("Event").unwrap().value, "Dortmund ü".as_bytes().to_vec());
    assert_eq!(game.encoding, crate::pgn::TextEncoding::Windows1252);
    assert_eq!(game.mainline().count(), 4);
    let main: Vec<NodeId> = game.mainline().collect();
    assert_eq!(game.node(main[1]).comments, vec!["schön".to_string()]);
    assert_eq!(game.termination.as_deref(), Some("1-0"));
}

#[test]
fn parser_reuses_nodes_between_games() {
    let mut parser = GameParser::new();
    let mut game = Game::default();
    parser.parse(&raw(b"1. e4 (1. d4) e5 {x} 2. Nf3 *", 1), &mut game, &|_| true).unwrap();
    assert_eq!(game.nodes.len(), 5);
    parser.parse(&raw(b"[Event \"b\"]\n1. c4 *", 1), &mut game, &|_| true).unwrap();
    assert_eq!(game.nodes.len(), 2);
    assert!(game.nodes[0].comments.is_empty() && game.nodes[1].comments.is_empty());
    assert_eq!(game.nodes[0].children[..], [NodeId(1)]);
    assert_eq!(game.nodes[1].san, "c4");
    assert_eq!(game.tags.len(), 1);
}

#[test]
fn variation_before_first_move_is_skipped() {
    let game = parse("( 1. d4 ) 1. e4 e5 *").unwrap();
    assert_eq!(game.nodes.len(), 3);
    assert_eq!(game.node(NodeId::ROOT).children.len(), 1);
}

/// Read every game of a file through splitter and parser; return (games, errors).
fn read_file(path: &std::path::Path) -> (usize, Vec<GameError>) {
    let mut parser = GameParser::new();
    let mut game = Game::default();
    let mut games = 0;
    let mut errors = Vec::new();
    for raw in crate::input::Games::new(vec![path.to_string_lossy().into_owned()]) {
        let Ok(raw) = raw else {
            errors.push(GameError { kind: GameErrorKind::Syntax("unreadable file".to_string()), line: 0 });
            continue;
        };
        games += 1;
        if let Err(e) = parser.parse(&raw, &mut game, &|_| true) {
            eprintln!("{}: game {}: {e}", path.display(), raw.number);
            errors.push(e);
        }
    }
    (games, errors)
}

#[test]
fn every_edge_file_reads_without_panic() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/edge"));
    if !dir.exists() {
        eprintln!("note: {} not found, edge corpus test skipped", dir.display());
        return;
    }
    let mut stack = vec![dir.to_path_buf()];
    let mut files = 0;
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files += 1;
                read_file(&path);
            }
        }
    }
    assert!(files > 100);
}

#[test]
fn conformance_corpora_replay_cleanly() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/conformance"));
    if !dir.exists() {
        eprintln!("note: {} not found, corpus replay test skipped", dir.display());
        return;
    }
    for (name, count) in [
        ("studies253.pgn", 253),
        ("worldmatches.pgn", 580),
        ("lichess-studies64.pgn", 64),
        ("yacpdb-derived.pgn", 26),
        ("yacpdb-extra.pgn", 16),
    ] {
        let (games, errors) = read_file(&dir.join(name));
        assert_eq!(games, count, "{name}");
        // Problem diagrams that are not legal chess set-ups are replayed on the board
        // alone, so every game of these corpora reads.
        assert!(errors.is_empty(), "{name}: {errors:?}");
    }
}

/// Every position of the first games of a bundled corpus, plus a few hand-picked ones
/// with pins, checks, promotions and en passant.
fn sample_positions() -> Vec<Chess> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/lichess-2016-05-first1500.pgn").to_string();
    let mut out = Vec::new();
    let mut parser = GameParser::new();
    let mut game = Game::default();
    for r in crate::input::Games::new(vec![path]).take(300) {
        if parser.parse(&r.unwrap(), &mut game, &|_| true).is_ok() {
            out.extend(game.nodes.iter().filter_map(|node| node.pos.as_chess().cloned()));
        }
    }
    for fen in [
        "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1",    // pinned knight
        "4k3/8/8/8/8/8/3NN3/r3K3 w - - 0 1",    // king in check
        "4k3/1P6/8/2pP4/8/8/8/4K3 w - c6 0 2",  // promotion and en passant
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", // castling, rook ambiguity
        "4k3/8/8/8/8/2N3N1/8/4K3 w - - 0 1",    // two knights reach e4/e2
        "3qk3/8/8/8/8/8/3R4/3K4 w - - 0 1",     // rook pinned on the file
    ] {
        out.push(Fen::from_ascii(fen.as_bytes()).unwrap().into_position(CastlingMode::Standard).unwrap());
    }
    out
}

#[test]
fn quick_san_agrees_with_shakmaty() {
    let positions = sample_positions();
    assert!(positions.len() > 5000, "too few sample positions: {}", positions.len());
    let mut quick_hits = 0usize;
    let quick_san_move = |pos: &Chess, san: San| quick_san_move(pos, pos.is_check(), san);
    for pos in &positions {
        // Every legal move, written as SAN: the quick reading is the move or no answer.
        for mv in pos.legal_moves() {
            let san = San::from_move(pos, mv);
            match quick_san_move(pos, san) {
                Some(found) => {
                    assert_eq!(found, mv, "{san} in {}", Fen::from_position(pos, EnPassantMode::Legal));
                    quick_hits += 1;
                }
                None => {}
            }
        }
        // Undisambiguated SAN for every role and target: whatever the quick reading
        // accepts, shakmaty accepts with the same move (never an illegal or ambiguous one).
        for role in Role::ALL {
            for to in Square::ALL {
                for capture in [false, true] {
                    let san = San::Normal { role, file: None, rank: None, capture, to, promotion: None };
                    if let Some(found) = quick_san_move(pos, san) {
                        assert_eq!(
                            san.to_move(pos).ok(),
                            Some(found),
                            "{san} in {}",
                            Fen::from_position(pos, EnPassantMode::Legal)
                        );
                    }
                }
            }
        }
    }
    // The quick path must carry most moves, or it is not worth having.
    assert!(quick_hits > positions.len() / 2, "quick path used for only {quick_hits} moves");
}

#[test]
fn games_are_decoded_as_utf8_or_windows_1252() {
    use crate::pgn::{decode_game, TextEncoding};
    let (text, enc) = decode_game("[White \"Réti\"]".as_bytes());
    assert_eq!((text.as_ref(), enc), ("[White \"Réti\"]".as_bytes(), TextEncoding::Utf8));
    let (text, enc) = decode_game(b"[White \"R\xe9ti\"] {\x80 \x93q\x94 \x81}");
    assert_eq!(enc, TextEncoding::Windows1252);
    assert_eq!(std::str::from_utf8(&text).unwrap(), "[White \"Réti\"] {€ “q” \u{81}}");
}

#[test]
fn a_comment_ending_in_a_multibyte_character_keeps_it() {
    let raw = RawGame {
        number: 1,
        file: Arc::from("t"),
        line: 1,
        bytes: "1. e4 {très bien »} *".as_bytes().to_vec(),
        ..RawGame::default()
    };
    let mut g = Game::default();
    GameParser::new().parse(&raw, &mut g, &|_| true).unwrap();
    assert_eq!(g.nodes[1].comments, vec!["très bien »".to_string()]);
}

#[test]
fn byte_class_table_matches_the_written_rules() {
    for b in 0..=255u8 {
        let blank = b <= b' ' || b == 0x7f || b == 0xef || b == 0xbb || b == 0xbf;
        assert_eq!(is_blank(b), blank, "blank {b:#x}");
        let ends = blank || matches!(b, b'{' | b'}' | b'(' | b')' | b';' | b'$' | b'[' | b']');
        assert_eq!(ends_token(b), ends, "ends token {b:#x}");
    }
}

#[test]
fn node_buffers_are_reused_across_games_of_any_length() {
    let mut parser = GameParser::new();
    let mut game = Game::default();
    let long = RawGame {
        number: 1,
        line: 1,
        bytes: b"1. e4 {a} e5 2. Nf3 Nc6 3. Bb5 a6 (3... Nf6 $1) 4. Ba4 *".to_vec(),
        ..RawGame::default()
    };
    let short = RawGame { number: 2, line: 9, bytes: b"1. d4 d5! *".to_vec(), ..RawGame::default() };
    for raw in [&long, &short, &long, &short] {
        parser.parse(raw, &mut game, &|_| true).expect("a legal game");
        let sans: Vec<&str> = game.mainline().skip(1).map(|n| game.node(n).san.as_str()).collect();
        if raw.number == 1 {
            assert_eq!(sans, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4"]);
            assert_eq!(game.nodes.len(), 9);
            assert_eq!(game.node(NodeId(1)).comments, ["a"]);
            let variation = game.node(NodeId(5)).children[1];
            assert_eq!(game.node(variation).san, "Nf6");
            assert_eq!(game.node(variation).nags, [1]);
        } else {
            assert_eq!(sans, ["d4", "d5"]);
            assert_eq!(game.nodes.len(), 3);
            // Nothing left over from the longer game before it.
            assert!(game.nodes.iter().all(|n| n.comments.is_empty()));
            assert_eq!(game.node(NodeId(2)).nags, [1]);
            assert!(game.node(NodeId(2)).children.is_empty());
        }
    }
}

#[test]
fn quick_san_reads_exactly_what_shakmaty_reads() {
    // Every string up to five bytes over a SAN-like alphabet, and up to six over a
    // smaller one: where `quick_san` gives an answer it is `San::from_ascii`'s.
    fn check(alphabet: &[u8], max_len: usize) -> usize {
        let mut agreed = 0;
        let mut text = Vec::new();
        let mut stack = vec![0usize];
        // Odometer over all strings of length 1..=max_len.
        for len in 1..=max_len {
            stack.clear();
            stack.resize(len, 0);
            loop {
                text.clear();
                text.extend(stack.iter().map(|&i| alphabet[i]));
                if let Some(quick) = quick_san(&text) {
                    assert_eq!(Some(quick), San::from_ascii(&text).ok(), "{}", String::from_utf8_lossy(&text));
                    agreed += 1;
                }
                let mut k = 0;
                while k < len {
                    stack[k] += 1;
                    if stack[k] < alphabet.len() {
                        break;
                    }
                    stack[k] = 0;
                    k += 1;
                }
                if k == len {
                    break;
                }
            }
        }
        agreed
    }
    // How many strings have a quick reading (counted separately from the shapes).
    assert_eq!(check(b"NBKPaeh18x=+#O-Q", 5), 1038);
    assert_eq!(check(b"Rah18x+#", 6), 340);
    assert_eq!(quick_san(b"e8=Q"), None);
    assert_eq!(quick_san(b"O-O"), None);
}

/// The tag reader as it was before it copied plain stretches whole (the reference).
/// Read `[Name "value"]` at the cursor into `tag` (escapes `\"` and `\\` undone).
fn old_read_one_tag(cur: &mut Cursor<'_>, tag: &mut Tag) -> Result<(), GameError> {
    let open_line = cur.line;
    let unterminated = || GameError { kind: GameErrorKind::UnterminatedTag, line: open_line };
    let bytes = cur.bytes;
    let line_end = memchr::memchr(b'\n', &bytes[cur.pos..]).map_or(bytes.len(), |p| cur.pos + p);
    let mut i = cur.pos + 1;
    while i < line_end && is_blank(bytes[i]) {
        i += 1;
    }
    let name_start = i;
    while i < line_end && !is_blank(bytes[i]) && bytes[i] != b'"' && bytes[i] != b']' {
        i += 1;
    }
    tag.name.clear();
    tag.name.extend(bytes[name_start..i].iter().map(|&b| b as char));
    tag.value.clear();
    while i < line_end && is_blank(bytes[i]) {
        i += 1;
    }
    if i < line_end && bytes[i] == b']' {
        // `[Name]` with no value.
        cur.pos = i + 1;
        return Ok(());
    }
    if i >= line_end || bytes[i] != b'"' {
        return Err(unterminated());
    }
    i += 1;
    loop {
        if i >= line_end {
            return Err(unterminated());
        }
        match bytes[i] {
            b'\\' if i + 1 < line_end && matches!(bytes[i + 1], b'"' | b'\\') => {
                tag.value.push(bytes[i + 1]);
                i += 2;
            }
            b'"' => {
                // The closing quote is the one followed by `]`; others belong to the value.
                let mut j = i + 1;
                while j < line_end && is_blank(bytes[j]) {
                    j += 1;
                }
                if j < line_end && bytes[j] == b']' {
                    cur.pos = j + 1;
                    return Ok(());
                }
                tag.value.push(b'"');
                i += 1;
            }
            b => {
                tag.value.push(b);
                i += 1;
            }
        }
    }
}

mod tag_reader {
    use super::*;
    use proptest::prelude::*;

    /// Pieces that tag lines (and damaged ones) are made of.
    const PIECES: &[&str] = &["[", "]", "\"", "\\", " ", "\t", "\n", "Event", "a b", "\u{e9}", "\u{feff}", "\r", "x"];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn tag_reader_agrees_with_the_reference(pieces in proptest::collection::vec(0..PIECES.len(), 0..30)) {
            let text: String = std::iter::once("[").chain(pieces.iter().map(|&i| PIECES[i])).collect();
            let bytes = text.as_bytes();
            let (mut new_tag, mut old_tag) = (Tag { name: "old".into(), value: b"v".to_vec() }, Tag { name: "old".into(), value: b"v".to_vec() });
            let mut new_cur = Cursor { bytes, pos: 0, line: 3 };
            let mut old_cur = Cursor { bytes, pos: 0, line: 3 };
            let new = read_one_tag(&mut new_cur, &mut new_tag);
            let old = old_read_one_tag(&mut old_cur, &mut old_tag);
            prop_assert_eq!(&new, &old);
            if new.is_ok() {
                prop_assert_eq!(new_cur.pos, old_cur.pos);
                prop_assert_eq!(&new_tag, &old_tag);
            }
        }
    }
}

/// The quick way (tags from the raw bytes, encoding not checked) reads the same tags,
/// termination, moves and errors as the whole way, in UTF-8 and Windows-1252 games.
#[test]
fn parse_without_encoding_reads_what_parse_reads() {
    let texts: &[&[u8]] = &[
        b"[White \"Kasparov\"]\n[Result \"1-0\"]\n\n1. e4 {caf\xe9} e5 1-0",
        b"[White \"M\xfcller\"]\n\n1. e4 e5 \xbd-\xbd",
        b"[White \"M\xc3\xbcller\"]\n\n1. e4 e5 \xc2\xbd-\xc2\xbd",
        b"[White \"x\"]\n\n1. e4 e5 \xbd-\xbd",
        b"\xef\xbb\xbf[White \"x\"]\n\n1. e4 {\xe9} *",
        b"\xef\xbb\xbf1. e4 *",
        b"[White \"x\n\n1. e4 *",
        b"[White \"x\"]\n\n1. e4 Ke7 *",
        b"[White \"x\"]\n\n\xbb1. e4 *",
        b"[White \"x\"]\n\n1. e4 e5 1/2\xbb",
    ];
    for text in texts {
        for want in [false, true] {
            let raw = raw(text, 4);
            let (mut whole, mut quick) = (Game::default(), Game::default());
            let a = GameParser::new().parse(&raw, &mut whole, &|_| want);
            let b = GameParser::new().parse_with(&raw, &mut quick, &|_| want, false);
            let name = String::from_utf8_lossy(text);
            assert_eq!(a, b, "{name}");
            if a.is_ok() {
                assert_eq!(whole.tags, quick.tags, "{name}");
                assert_eq!(whole.termination, quick.termination, "{name}");
                assert_eq!(whole.nodes.len(), quick.nodes.len(), "{name}");
                let sans = |g: &Game| g.nodes.iter().map(|n| (n.san.clone(), n.comments.clone())).collect::<Vec<_>>();
                assert_eq!(sans(&whole), sans(&quick), "{name}");
                if want {
                    assert_eq!(whole.encoding, quick.encoding, "{name}");
                }
            }
        }
    }
}

/// The sixteen-at-a-time search for a tag name's end gives what the table gives byte by
/// byte, also for names with non-ASCII letters, BOM bytes and control bytes, at every
/// length around the sixteen-byte step.
#[test]
fn tag_name_end_agrees_with_the_byte_table() {
    let by_bytes = |bytes: &[u8], from: usize| {
        (from..bytes.len()).find(|&i| BYTE_CLASS[bytes[i] as usize] & ENDS_TAG_NAME != 0).unwrap_or(bytes.len())
    };
    let letters: [&[u8]; 6] = [b"W", b"\xc3\xa9", b"\x7f", b"\xef\xbb\xbf", b"_", b"9"];
    let enders: [&[u8]; 7] = [b" ", b"\"", b"]", b"\t", b"\x00", b"\xbb", b""];
    for n in 0..40 {
        for (k, letter) in letters.iter().enumerate() {
            for ender in enders {
                let mut text = b"[".to_vec();
                for j in 0..n {
                    text.extend_from_slice(if j % 7 == 3 { letter } else { letters[(j + k) % 2 * 4] });
                }
                text.extend_from_slice(ender);
                text.extend_from_slice(b" \"v\"]");
                let (end, known_ascii) = tag_name_end(&text, 1);
                assert_eq!(end, by_bytes(&text, 1), "{:?}", String::from_utf8_lossy(&text));
                assert!(!known_ascii || text[1..end].is_ascii(), "{:?}", String::from_utf8_lossy(&text));
            }
        }
    }
}

/// Appending a run block by block gives the run, for every length and place, also at the
/// end of the input where no whole block is left.
#[test]
fn append_run_appends_exactly_the_run() {
    let src: Vec<u8> = (0..70u8).collect();
    for from in 0..src.len() {
        for to in from..=src.len() {
            let mut dst = b"ab".to_vec();
            append_run(&mut dst, &src, from, to);
            assert_eq!(&dst[..2], b"ab");
            assert_eq!(&dst[2..], &src[from..to], "{from}..{to}");
        }
    }
}

/// The sixteen-bytes-at-a-time ASCII check says what the standard library's says, for a
/// byte from 0x80 up at every place of slices around the sixteen-byte steps.
#[test]
fn all_ascii_agrees_with_the_standard_check() {
    for len in 0..70 {
        let plain = vec![b'a'; len];
        assert!(super::all_ascii(&plain));
        for at in 0..len {
            for high in [0x80u8, 0xbf, 0xff] {
                let mut bytes = plain.clone();
                bytes[at] = high;
                assert_eq!(super::all_ascii(&bytes), bytes.is_ascii(), "len {len}, byte {high:#x} at {at}");
                assert!(!super::all_ascii(&bytes));
            }
        }
    }
}
