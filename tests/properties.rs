//! Property tests of colour symmetry, end to end (parser, transform expansion, PGN
//! replay, evaluator).
//!
//! A random game (random legal moves from a random set-up position) is written as PGN
//! twice: as played, and colour-flipped — ranks mirrored, colours and side to move
//! swapped, every move mirrored. For random simple CQL 6 filters `F`:
//!
//! - `reversecolor F` on the game matches exactly where `F` matches on the flipped game;
//! - `flipcolor F` (= `F` or `reversecolor F`) matches where `F` matches on the game or
//!   on the flipped game, and so gives the same positions on both games.
//!
//! (`flipcolor F` on a game is *not* `F` on the flipped game: it also keeps the matches
//! of `F` itself.) Also: `--dump-ir` of a transformed query shows the expanded copies.

use std::sync::Arc;

use cqlrs::eval::{GameMatch, Query, Scratch};
use cqlrs::input::RawGame;
use cqlrs::lang::Syntax;
use cqlrs::pgn::{Game, GameParser, NodeId};
use cqlrs::CompileOptions;
use proptest::prelude::*;
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

/// The FEN of a position, and of its colour-flipped mirror image.
fn fens(pos: &Chess) -> (String, String) {
    let setup = pos.to_setup(EnPassantMode::Legal);
    let flipped = setup.clone().into_mirrored();
    (
        Fen::try_from_setup(setup).expect("a standard position").to_string(),
        Fen::try_from_setup(flipped).expect("a standard position").to_string(),
    )
}

/// Play `choices` (each picks one legal move, modulo their number) from `pos`; returns
/// the SAN of the moves and of their mirror images played from the flipped position.
fn play(pos: &Chess, choices: &[usize]) -> (Vec<String>, Vec<String>) {
    let (_, flipped_fen) = fens(pos);
    let mut flipped: Chess =
        Fen::from_ascii(flipped_fen.as_bytes()).unwrap().into_position(CastlingMode::Standard).unwrap();
    let mut pos = pos.clone();
    let (mut sans, mut mirrored) = (Vec::new(), Vec::new());
    for &choice in choices {
        let legal = pos.legal_moves();
        if legal.is_empty() {
            break;
        }
        let m = legal[choice % legal.len()];
        let image = flipped
            .legal_moves()
            .into_iter()
            .find(|f| {
                f.from() == m.from().map(|s| s.flip_vertical())
                    && f.to() == m.to().flip_vertical()
                    && f.promotion() == m.promotion()
            })
            .expect("the mirror image of a legal move is legal in the mirrored position");
        sans.push(San::from_move(&pos, m).to_string());
        mirrored.push(San::from_move(&flipped, image).to_string());
        pos.play_unchecked(m);
        flipped.play_unchecked(image);
    }
    (sans, mirrored)
}

/// PGN text of a game from `fen` (side to move taken from the FEN).
fn pgn(fen: &str, sans: &[String]) -> String {
    let black_first = fen.split(' ').nth(1) == Some("b");
    let mut moves = String::new();
    for (i, san) in sans.iter().enumerate() {
        if i == 0 && black_first {
            moves.push_str("1... ");
        } else if (i % 2 == 0) != black_first {
            moves.push_str(&format!("{}. ", (i + usize::from(black_first)) / 2 + 1));
        }
        moves.push_str(san);
        moves.push(' ');
    }
    format!("[Event \"p\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n[Result \"*\"]\n\n{moves}*\n")
}

fn parse_game(text: &str) -> Game {
    let raw =
        RawGame { number: 1, file: Arc::from("p.pgn"), line: 1, bytes: text.as_bytes().to_vec(), ..RawGame::default() };
    let mut game = Game::default();
    GameParser::new().parse(&raw, &mut game, &|_| true).unwrap_or_else(|e| panic!("{e}\n{text}"));
    game
}

/// Compile `cql() FILTER` through the library's one pipeline.
fn query(filter: &str) -> Query {
    let text = format!("cql()\n{filter}\n");
    Query::compile(&text, &mut CompileOptions::new(Syntax::Cql6)).unwrap_or_else(|e| panic!("`{filter}`: {e}"))
}

fn run(q: &Query, game: &Game) -> GameMatch {
    q.eval_game(&mut Scratch::default(), game)
}

/// Simple CQL 6 filters whose meaning has a colour mirror image.
fn simple_filter() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        (
            prop::sample::select(vec![
                "K", "Q", "R", "B", "N", "P", "k", "q", "r", "b", "n", "p", "A", "a", "_", "[Qq]"
            ]),
            prop::sample::select(vec!["", "e4", "a-d1", "a-h7", "[c3,f3]", "d1-8", "a-h2", "e5"]),
        )
            .prop_map(|(p, s)| format!("{p}{s}")),
        prop::sample::select(vec![
            "check",
            "mate",
            "stalemate",
            "wtm",
            "btm",
            "A attacks k",
            "a attacks a-h2",
            "#P > 6",
            "#p >= #P",
            "power A > power a",
            "move from K",
            "move to a-h4",
            "move capture Q",
            "move from P",
            "move legal from N",
            "ray orthogonal (R k)",
            "pin",
            "xray (R r K)",
            "o-o",
            "up 1 Pd4",
            "sidetomove == white",
        ])
        .prop_map(str::to_string),
    ];
    atom.prop_recursive(2, 6, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|f| format!("not {f}")),
            (inner.clone(), inner.clone()).prop_map(|(f, g)| format!("{{{f} {g}}}")),
            (inner.clone(), inner).prop_map(|(f, g)| format!("{f} or {g}")),
        ]
    })
}

/// A game and its colour-flipped twin: `setup` random plies from the start give the
/// set-up position, `moves` random plies the game.
fn game_pair(setup: &[usize], moves: &[usize]) -> (Game, Game, String) {
    let start = Chess::default();
    let (opening, _) = play(&start, setup);
    let mut pos = start;
    for san in &opening {
        let m = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
    }
    let (fen, flipped_fen) = fens(&pos);
    let (sans, mirrored) = play(&pos, moves);
    let text = pgn(&fen, &sans);
    (parse_game(&text), parse_game(&pgn(&flipped_fen, &mirrored)), text)
}

fn nodes(m: &GameMatch) -> Vec<NodeId> {
    let mut v = m.positions.clone();
    v.sort();
    v.dedup();
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn reversecolor_is_the_filter_on_the_flipped_game(
        setup in prop::collection::vec(any::<usize>(), 0..12),
        moves in prop::collection::vec(any::<usize>(), 1..24),
        filter in simple_filter(),
    ) {
        let (game, flipped, text) = game_pair(&setup, &moves);
        prop_assert_eq!(game.nodes.len(), flipped.nodes.len());
        let reversed = run(&query(&format!("reversecolor {{{filter}}}")), &game);
        let plain = run(&query(&filter), &flipped);
        prop_assert_eq!(reversed.matched, plain.matched, "`{}` on\n{}", filter, text);
        prop_assert_eq!(nodes(&reversed), nodes(&plain), "`{}` on\n{}", filter, text);
    }

    #[test]
    fn flipcolor_is_the_filter_on_either_game(
        setup in prop::collection::vec(any::<usize>(), 0..12),
        moves in prop::collection::vec(any::<usize>(), 1..24),
        filter in simple_filter(),
    ) {
        let (game, flipped, text) = game_pair(&setup, &moves);
        let plain = query(&filter);
        let flip = query(&format!("flipcolor {{{filter}}}"));
        let mut either: Vec<NodeId> = nodes(&run(&plain, &game));
        either.extend(nodes(&run(&plain, &flipped)));
        either.sort();
        either.dedup();
        let on_game = run(&flip, &game);
        prop_assert_eq!(nodes(&on_game), either.clone(), "`flipcolor {}` on\n{}", filter, text);
        prop_assert_eq!(on_game.matched, !either.is_empty());
        prop_assert_eq!(nodes(&run(&flip, &flipped)), either, "`flipcolor {}` on the flipped game of\n{}", filter, text);
    }
}

#[test]
fn flipped_game_helpers_mirror_the_position() {
    let (fen, flipped) = fens(&Chess::default());
    assert_eq!(fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(flipped, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1");
    let (sans, mirrored) = play(&Chess::default(), &[0, 0, 0]);
    assert_eq!(sans.len(), 3);
    for (a, b) in sans.iter().zip(&mirrored) {
        let flip_rank = |s: &str| {
            s.chars()
                .map(|c| if c.is_ascii_digit() { char::from(b'9' - (c as u8 - b'0')) } else { c })
                .collect::<String>()
        };
        assert_eq!(&flip_rank(a), b);
    }
    assert!(pgn(&flipped, &mirrored).contains("1... "), "the flipped game starts with Black");
    // The comparison is not vacuous: 1. e4 puts a white pawn on e4, its twin a black
    // pawn on e5, and the queries see exactly that.
    let e4 = Chess::default()
        .legal_moves()
        .iter()
        .position(|m| m.to().to_string() == "e4" && m.from().is_some_and(|f| f.to_string() == "e2"))
        .unwrap();
    let (game, twin, _) = game_pair(&[], &[e4]);
    assert_eq!(nodes(&run(&query("Pe4"), &game)), vec![NodeId(1)]);
    assert!(nodes(&run(&query("Pe4"), &twin)).is_empty());
    assert_eq!(nodes(&run(&query("pe5"), &twin)), vec![NodeId(1)]);
    assert_eq!(nodes(&run(&query("reversecolor Pe4"), &twin)), vec![NodeId(1)]);
    assert_eq!(nodes(&run(&query("flipcolor Pe4"), &game)), vec![NodeId(1)]);
}

#[test]
fn dump_ir_shows_the_expanded_copies() {
    let dump = |text: &str| {
        // Compiled as the binary compiles before `--dump-ir` prints.
        let query = Query::compile(text, &mut CompileOptions::new(Syntax::Cql6)).unwrap();
        cqlrs::ir::dump::dump(query.ir())
    };
    let flip = dump("cql()\nflip Pg6\n");
    assert!(!flip.contains("Transform"), "{flip}");
    for image in ["Pg6", "Pb6", "Pg3", "Pc7", "Pb3", "Pf2", "Pf7", "Pc2"] {
        assert_eq!(flip.matches(&format!("Pieces {image}\n")).count(), 1, "{image} in\n{flip}");
    }
    let colour = dump("cql()\nflipcolor {Pe4 A attacks k}\n");
    assert!(colour.contains("Pieces Pe4") && colour.contains("Pieces pe5"), "{colour}");
    assert!(colour.contains("attackers: Pieces a") && colour.contains("targets: Pieces K"), "{colour}");
    // `reversecolor` twice is the identity on the printed tree.
    assert_eq!(dump("cql()\nreversecolor reversecolor {Ra1 check}\n"), dump("cql()\n{Ra1 check}\n"));
    // The binary prints the same expansion.
    let dir = std::env::temp_dir().join(format!("cqlrs-props-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("flip.cql");
    std::fs::write(&script, "cql()\nflip Pg6\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cqlrs")).arg("--dump-ir").arg(&script).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let tree = |text: &str| text.split_once("tree:").map(|(_, t)| t.to_string()).unwrap_or_default();
    assert!(!tree(&flip).is_empty());
    assert_eq!(tree(&String::from_utf8_lossy(&out.stdout)), tree(&flip));
}
