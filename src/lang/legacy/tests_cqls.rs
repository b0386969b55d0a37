//! Tests of the CQL-S and CQL 3 keywords added in `lower::extra`, each run on small games
//! built here, with the matching games counted by hand in the comments.

use super::parse;

/// Games of a PGN text (games separated by a blank line before `[`), numbered from 1.
fn games(pgn: &str) -> Vec<crate::pgn::Game> {
    use crate::input::RawGame;
    use std::sync::Arc;
    let mut out = Vec::new();
    for (i, text) in pgn.split("\n\n[").enumerate() {
        let text = if i == 0 { text.to_string() } else { format!("[{text}") };
        let raw = RawGame {
            number: i as u64 + 1,
            file: Arc::from("t.pgn"),
            line: 1,
            bytes: text.into_bytes(),
            ..RawGame::default()
        };
        let mut g = crate::pgn::Game::default();
        crate::pgn::GameParser::new().parse(&raw, &mut g, &|_| true).expect("test game parses");
        out.push(g);
    }
    out
}

/// The numbers of the games a legacy script matches, through the whole pipeline
/// (transforms expanded, IR normalised), as the command line runs it.
fn matching(src: &str, pgn: &str) -> Vec<u64> {
    let options = &mut crate::CompileOptions::new(crate::lang::Syntax::Legacy);
    let q = match crate::eval::Query::compile(src, options) {
        Ok(q) => q,
        Err(e) => panic!("{src}\n{}", e.render("t.cql", src)),
    };
    let mut scratch = crate::eval::Scratch::default();
    games(pgn).iter().filter(|g| q.eval_game(&mut scratch, g).matched).map(|g| g.number).collect()
}

fn error_of(src: &str) -> String {
    match parse(src) {
        Ok(_) => panic!("expected an error for {src}"),
        Err(e) => e.render("t.cql", src),
    }
}

const NONE: Vec<u64> = Vec::new();

/// 1: a header full of Scidb's tags, a comment, a NAG and a variation; 2: bare tags;
/// 3: a long classical game of a GM, White rated 2400.
const HEADERS: &str = "[Event \"Open\"]\n[Date \"1999.05.02\"]\n[Round \"3.2\"]\n[Result \"1-0\"]\n\
[WhiteTitle \"GM\"]\n[BlackTitle \"IM\"]\n[WhiteCountry \"GER\"]\n[BlackCountry \"NOR\"]\n[WhiteSex \"m\"]\n\
[BlackSex \"f\"]\n[WhiteType \"human\"]\n[BlackType \"program\"]\n[WhiteElo \"2700\"]\n[BlackElo \"2500\"]\n\
[WhiteDWZ \"2650\"]\n[EventType \"swiss\"]\n[Mode \"OTB\"]\n[EventCountry \"GER\"]\n[EventCategory \"XX\"]\n\
[EventDate \"1999.05.01\"]\n[TimeControl \"180+2\"]\n\n1. e4 {good} e5 (1... c5 $1) 2. Nf3 1-0\n\n\
[Event \"Casual\"]\n[Date \"2017.01.01\"]\n[Round \"?\"]\n[Result \"0-1\"]\n[TimeControl \"5400+30\"]\n\n1. d4 d5 0-1\n\n\
[Event \"Club\"]\n[Date \"2010.01.01\"]\n[Result \"1-0\"]\n[WhiteTitle \"GM\"]\n[WhiteElo \"2400\"]\n[TimeControl \"5400\"]\n\n\
1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 1-0\n";

#[test]
fn player_fields_come_from_their_pgn_tags() {
    assert_eq!(matching("(match :whitetitle GM)", HEADERS), vec![1, 3]);
    assert_eq!(matching("(match :title IM,FM)", HEADERS), vec![1]);
    assert_eq!(matching("(match :blacktitle GM)", HEADERS), NONE);
    // `None`: neither player has a title.
    assert_eq!(matching("(match :blacktitle None)", HEADERS), vec![2, 3]);
    assert_eq!(matching("(match :whitecountry GER)", HEADERS), vec![1]);
    assert_eq!(matching("(match :blackcountry UNK)", HEADERS), vec![2, 3]);
    assert_eq!(matching("(match :country nor)", HEADERS), vec![1]);
    assert_eq!(matching("(match :blackgender f)", HEADERS), vec![1]);
    assert_eq!(matching("(match :whitegender w)", HEADERS), NONE);
    assert_eq!(matching("(match :gender x)", HEADERS), vec![2, 3]);
    assert_eq!(matching("(match :blackiscomputer)", HEADERS), vec![1]);
    assert_eq!(matching("(match :whiteiscomputer)", HEADERS), NONE);
    assert_eq!(matching("(match :iscomputer)", HEADERS), vec![1]);
    assert_eq!(matching("(match :whiteishuman)", HEADERS), vec![1]);
    assert_eq!(matching("(match :ishuman :blackishuman)", HEADERS), NONE);
    assert_eq!(matching("(match !:iscomputer)", HEADERS), vec![2, 3]);
}

#[test]
fn ratings_by_system() {
    assert_eq!(matching("(match :whiterating ELO 2600 2800)", HEADERS), vec![1]);
    assert_eq!(matching("(match :rating ELO 2400)", HEADERS), vec![3]);
    assert_eq!(matching("(match :blackrating ELO -)", HEADERS), vec![2, 3]);
    assert_eq!(matching("(match :rating DWZ 2600 2700)", HEADERS), vec![1]);
    // (2700 + 2500) / 2 = 2600; game 3 has one rating, which is then the average.
    assert_eq!(matching("(match :averagerating ELO 2600)", HEADERS), vec![1]);
    assert_eq!(matching("(match :averagerating ELO 2400)", HEADERS), vec![3]);
    assert_eq!(matching("(match :averagerating* ELO 2000 3000)", HEADERS), vec![1]);
    assert_eq!(matching("(match :averagerating ELO -)", HEADERS), vec![2]);
    assert_eq!(matching("(match :ratingdifference ELO 200)", HEADERS), vec![1]);
    assert_eq!(matching("(match :ratingdifference ELO <100)", HEADERS), NONE);
}

#[test]
fn event_fields_and_time_modes() {
    assert_eq!(matching("(match :eventtype swiss,tourn)", HEADERS), vec![1]);
    assert_eq!(matching("(match :eventtype unknown)", HEADERS), vec![2, 3]);
    assert_eq!(matching("(match :eventmode otb)", HEADERS), vec![1]);
    assert_eq!(matching("(match :eventmode corr,email)", HEADERS), NONE);
    assert_eq!(matching("(match :eventcountry GER)", HEADERS), vec![1]);
    assert_eq!(matching("(match :eventcategory >=XX)", HEADERS), vec![1]);
    assert_eq!(matching("(match :eventcategory 0)", HEADERS), vec![2, 3]);
    assert_eq!(matching("(match :eventdate 1990 2000)", HEADERS), vec![1]);
    // 180+2: about 180 + 40 × 2 = 260 s, blitz; 5400+30 and 5400: normal.
    assert_eq!(matching("(match :timemode blitz)", HEADERS), vec![1]);
    assert_eq!(matching("(match :timemode normal,corr)", HEADERS), vec![2, 3]);
    assert_eq!(matching("(match :subround 2)", HEADERS), vec![1]);
    assert_eq!(matching("(match :subround 0)", HEADERS), vec![2, 3]);
    assert_eq!(matching("(match :tag EventType)", HEADERS), vec![1]);
    assert_eq!(matching("(match :tag Mode otb)", HEADERS), vec![1]);
    assert!(error_of("(match :timemode fast)").contains("not a time mode"));
}

#[test]
fn game_facts() {
    assert_eq!(matching("(match :hascomments)", HEADERS), vec![1]);
    assert_eq!(matching("(match :hascomments de,en)", HEADERS), vec![1]);
    assert_eq!(matching("(match :hasvariations)", HEADERS), vec![1]);
    assert_eq!(matching("(match !:hasvariations)", HEADERS), vec![2, 3]);
    assert_eq!(matching("(match :hasannotation)", HEADERS), vec![1]);
    assert_eq!(matching("(match :comment \"GOOD\")", HEADERS), vec![1]);
    // A game-wide keyword turns variations on, but plain position lists stay on the main
    // line: the position after 1...c5 is only in a variation of game 1.
    assert_eq!(matching("(match :hasvariations (position Pe4 pc5))", HEADERS), NONE);
    assert_eq!(matching("(match :hasvariations (position Pe4 pc5 :variations))", HEADERS), vec![1]);
    assert_eq!(matching("(match :ischess960 :isshufflechess :startposition 518)", HEADERS), vec![1, 2, 3]);
    assert_eq!(matching("(match :startposition 0)", HEADERS), NONE);
    let c960 = "[Event \"960\"]\n[SetUp \"1\"]\n[FEN \"bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1\"]\n\n1. e4 *\n\n\
[Event \"shuffle\"]\n[SetUp \"1\"]\n[FEN \"rrbqkbnn/pppppppp/8/8/8/8/PPPPPPPP/RRBQKBNN w - - 0 1\"]\n\n1. e4 *\n\n\
[Event \"study\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K3 w - - 0 1\"]\n\n1. Kd2 *\n";
    assert_eq!(matching("(match :ischess960)", c960), vec![1]);
    assert_eq!(matching("(match :isshufflechess)", c960), vec![1, 2]);
    // Scharnagl's number 0 is Scidb's 960.
    assert_eq!(matching("(match :startposition 960,518)", c960), vec![1]);
    assert_eq!(matching("(match :startposition 0)", c960), vec![3]);
    // `:goodgame`, by the manual's definition: game 3 (classical, a GM, 17 plies, 1-0).
    assert_eq!(matching("(match :goodgame)", HEADERS), vec![3]);
}

#[test]
fn xor_and_cond_in_match_lists() {
    assert_eq!(matching("(match :xor ((match :whitetitle GM) (match :result 0-1)))", HEADERS), vec![1, 2, 3]);
    assert_eq!(matching("(match :xor ((match :whitetitle GM) (match :result 1-0)))", HEADERS), NONE);
    // Game 1 and 3 won by White: the first clause decides (White is a GM in both);
    // game 2: the last item is the default.
    let cond = "(match :cond (match :result 1-0) (match :whiteelo 2700) (match :year 2017))";
    assert_eq!(matching(cond, HEADERS), vec![1, 2]);
    let cond = "(match :cond ((match :result 1-0) (match :whiteelo 2700)))";
    assert_eq!(matching(cond, HEADERS), vec![1]);
}

/// 1: checks by White (3.Bxf7+, 4.Qh5+), captures, and castling rights lost by the king;
/// 2: Fool's mate; 3: the knights dance (the start position comes back twice);
/// 4: a rook leaves h1, castling king side is lost.
const MOVES: &str = "[Event \"checks\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Bxf7+ Kxf7 4. Qh5+ g6 5. Qxe5 *\n\n\
[Event \"fool\"]\n\n1. f3 e5 2. g4 Qh4# 0-1\n\n\
[Event \"dance\"]\n\n1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 *\n\n\
[Event \"rook\"]\n\n1. Nf3 Nf6 2. Rg1 Nc6 3. Nc3 d6 4. d3 Bg4 5. Be3 Qd7 6. Qd2 O-O-O *\n";

#[test]
fn position_facts_from_the_rules() {
    // Castling rights: game 4 keeps only the queen side for White after 2.Rg1 (exactly one
    // of K and Q); the start positions have both.
    assert_eq!(matching("(match (position :castling [KQ]))", MOVES), vec![4]);
    assert_eq!(matching("(match (position :castling K :terminal))", MOVES), vec![1, 2, 3]);
    // Halfmove clock: 4 after the first knight round trip of game 3 (and more later).
    assert_eq!(matching("(match (position :halfmoveclock 8))", MOVES), vec![3]);
    assert_eq!(matching("(match (position :halfmoveclock 6 100))", MOVES), vec![3]);
    // The start position of game 3 stands on the board for the third time after 8 plies.
    assert_eq!(matching("(match (position :threefoldrepetition))", MOVES), vec![3]);
    assert_eq!(matching("(match (position :fivefoldrepetition))", MOVES), NONE);
    // Checks given: White's second check (4.Qh5+) in game 1.
    assert_eq!(matching("(match (position :checkcount 2))", MOVES), vec![1]);
    assert_eq!(matching("(match (position :checkcount +2+0))", MOVES), vec![1]);
    assert_eq!(matching("(match (position :checkcount +0+1))", MOVES), vec![2]);
    assert_eq!(matching("(match (position :checkcount 3))", MOVES), NONE);
    // Next-move facts: the move about to be played checks / mates.
    assert_eq!(matching("(match (position :ischeck))", MOVES), vec![1, 2]);
    assert_eq!(matching("(match (position :ismate))", MOVES), vec![2]);
    assert_eq!(matching("(match (position :ischeck 2))", MOVES), vec![1]);
    assert_eq!(matching("(match (position :isdoublecheck))", MOVES), NONE);
    assert_eq!(matching("(match (position :iscastling))", MOVES), vec![4]);
    assert_eq!(matching("(match (position :iscastling q))", MOVES), vec![4]);
    assert_eq!(matching("(match (position :iscastling K))", MOVES), NONE);
    assert_eq!(matching("(match (position :isnull))", MOVES), NONE);
    // Exchanges: 3.Bxf7+ Kxf7 loses the bishop for a pawn (1 − 3); 5.Qxe5 Nxe5 the queen (1 − 9).
    assert_eq!(matching("(match (position :movefrom B :exchangeevaluation -2))", MOVES), vec![1]);
    assert_eq!(matching("(match (position :movefrom Q :exchangeevaluation -8))", MOVES), vec![1]);
    assert_eq!(matching("(match (position :wtm :maxswapevaluation Q ?e5 -8))", MOVES), vec![1]);
    assert_eq!(matching("(match (position :wtm :maxswapevaluation Q ?e5 >=0))", MOVES), NONE);
    // The start position, written as a FEN, and the position after 1.e4 e5.
    assert_eq!(
        matching("(match (position :fen \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"))", MOVES),
        vec![1, 2, 3, 4]
    );
    assert_eq!(
        matching("(match (position :fen \"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\"))", MOVES),
        vec![1]
    );
    assert!(error_of("(match (position :fen \"not a fen\"))").contains("not a valid FEN"));
}

#[test]
fn contact_checks_opposition_forced_moves() {
    let pgn = "[Event \"contact\"]\n[SetUp \"1\"]\n[FEN \"k7/7Q/1K6/8/8/8/8/8 w - - 0 1\"]\n\n1. Qb7# *\n\n\
[Event \"distant\"]\n[SetUp \"1\"]\n[FEN \"k7/7Q/1K6/8/8/8/8/8 w - - 0 1\"]\n\n1. Qh1+ Kb8 2. Qh8# *\n\n\
[Event \"opposition\"]\n[SetUp \"1\"]\n[FEN \"8/8/8/4k3/8/4K3/8/8 b - - 0 1\"]\n\n1... Kd5 *\n";
    assert_eq!(matching("(match (position :contactcheck))", pgn), vec![1]);
    assert_eq!(matching("(match (position :contactcheck Q))", pgn), vec![1]);
    assert_eq!(matching("(match (position :contactcheck R))", pgn), NONE);
    assert_eq!(matching("(match (position :iscontactcheck))", pgn), vec![1]);
    assert_eq!(matching("(match (position :mate))", pgn), vec![1, 2]);
    // Black to move with kings two squares apart: White has the opposition.
    assert_eq!(matching("(match (position :initial :opposition K))", pgn), vec![3]);
    assert_eq!(matching("(match (position :initial :opposition k))", pgn), NONE);
    assert_eq!(matching("(match (position :initial :opposition))", pgn), NONE);
    // After 1.Qh1+ Black's only move is Kb8 (a7 and b7 are next to the white king).
    assert_eq!(matching("(match (position :btm :forced))", pgn), vec![2]);
    assert_eq!(matching("(match (position :wtm :forced))", pgn), NONE);
}

#[test]
fn material_facts() {
    let pgn = "[Event \"bishop\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/2p1p3/2P1P3/8/8/2B1K3 w - - 0 1\"]\n\n1. Kd2 *\n\n\
[Event \"dead\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4KB2 w - - 0 1\"]\n\n1. Kd2 *\n\n\
[Event \"rook\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/R3K3 w - - 0 1\"]\n\n1. Kd2 *\n";
    // c1 is dark; the black pawns c5, e5 are dark (100 %), the white c4, e4 light (100 %).
    assert_eq!(matching("(match (position :goodbishop B >50% : >50%))", pgn), vec![1]);
    assert_eq!(matching("(match (position :goodbishop B 2 : 2))", pgn), vec![1]);
    assert_eq!(matching("(match (position :goodbishop B <=30% : <=20%))", pgn), NONE);
    assert_eq!(matching("(match (position :whitecannotwin))", pgn), vec![2]);
    assert_eq!(matching("(match (position :blackcannotwin))", pgn), vec![2, 3]);
    assert_eq!(matching("(match (position !:matingmaterial))", pgn), vec![2]);
    assert_eq!(matching("(match (position :gameisover))", pgn), vec![2]);
    assert_eq!(matching("(match (position :endgame))", pgn), vec![1, 2, 3]);
    assert_eq!(matching("(match (position :endgame))", MOVES), NONE);
    assert_eq!(matching("(match (position :losing))", pgn), NONE);
    assert_eq!(matching("(match (position :mustcapture))", pgn), NONE);
}

#[test]
fn logic_sequences_and_control() {
    // `:xor`: at 3.Bxf7+ … check but not mate; in the Fool's mate every check is mate.
    assert_eq!(matching("(match (position :xor ((position :check) (position :mate))))", MOVES), vec![1]);
    let cond = "(match (position :cond (position :wtm) (position :check) (position :mate)))";
    assert_eq!(matching(cond, MOVES), vec![2]);
    // `:match` inside a position list: both lists match somewhere in the game.
    assert_eq!(
        matching("(match (position :initial :match ((position :check) (position :movefrom Q))))", MOVES),
        vec![1]
    );
    // `:line` in long algebraic notation, with move numbers.
    assert_eq!(matching("(match (position :line \"1.e2-e4 e7-e5 2.Bf1-c4\"))", MOVES), vec![1]);
    assert_eq!(matching("(match (position :line \"Bc4xf7+ Ke8xf7\"))", MOVES), vec![1]);
    assert_eq!(matching("(match (position :line \"Qd8-h4#\"))", MOVES), vec![2]);
    assert_eq!(matching("(match (position :line \"2.Bf1-c4\"))", MOVES), vec![1]);
    assert_eq!(matching("(match (position :line \"1.Bf1-c4\"))", MOVES), NONE);
    // `:matchconsecutive`: a knight move and a pawn move next to each other, either order
    // (3.Nc3 d6 of game 4).
    assert_eq!(
        matching("(match (position :matchconsecutive ((position :movefrom [Pp]) (position :movefrom [Nn]))))", MOVES),
        vec![4]
    );
    // `:cut`: after White's first check nothing more is searched, so 5.Qxe5 is not seen.
    assert_eq!(matching("(match (position :check :cut) (position :movefrom Q :moveto U))", MOVES), NONE);
    assert_eq!(matching("(match (position :check) (position :movefrom Q :moveto U))", MOVES), vec![1]);
    // `:exclude`: a queen moves, in a game where the black king never moves (castling moves it).
    assert_eq!(matching("(match (position :movefrom [Qq] :exclude (position :movefrom k)))", MOVES), vec![2]);
    // `:skip (position …)`: positions where Black is to move are skipped, so only a check
    // of White counts: the Fool's mate; `:skip` alone skips every position.
    assert_eq!(matching("(match (position :check :skip (position :btm)))", MOVES), vec![2]);
    assert_eq!(matching("(match (position :check :skip))", MOVES), NONE);
    // `:repetitioncount`: runs of consecutive positions; White to move never twice in a row.
    assert_eq!(matching("(match (position :wtm :repetitioncount 1))", MOVES), vec![1, 2, 3, 4]);
    assert_eq!(matching("(match (position :wtm :repetitioncount 2 10))", MOVES), NONE);
    // Knight moves: 8 in a row in game 3; never a capture there.
    assert_eq!(matching("(match (position :movefrom [Nn] :repetitioncount >=8))", MOVES), vec![3]);
    assert_eq!(matching("(match (position :moveto U :repetitioncount 0))", MOVES), vec![2, 3, 4]);
    // `:insidevariation` needs the list to look into variations.
    assert_eq!(matching("(match (position :variations :insidevariation))", HEADERS), vec![1]);
    assert_eq!(matching("(match (position :insidevariation))", HEADERS), NONE);
}

#[test]
fn accumulators_count_transformed_copies() {
    // Pd4 shifted to every square: the count is the number of white pawns (8 at the start).
    assert_eq!(matching("(match (position :initial Pd4 :shift :accumulate n :sumrange n 8))", MOVES), vec![1, 2, 3, 4]);
    assert_eq!(matching("(match (position :initial Pd4 :shift :accumulate n :sumrange n 9))", MOVES), NONE);
    // Another list reads the count at its own position.
    let two = "(match (position Pd4 :shift :accumulate n) (position :initial :reset n :sumrange n 8))";
    assert_eq!(matching(two, MOVES), vec![1, 2, 3, 4]);
    // `:accumulate*` with `:flipcolor` counts each colour: 8 white and 8 black pawns, not 16.
    let star = "(match (position :initial Pd4 :shift :flipcolor :accumulate* n :sumrange n 8))";
    assert_eq!(matching(star, MOVES), vec![1, 2, 3, 4]);
    let plain = "(match (position :initial Pd4 :shift :flipcolor :accumulate n :sumrange n 16))";
    assert_eq!(matching(plain, MOVES), vec![1, 2, 3, 4]);
    assert!(error_of("(match (position :sumrange m 1))").contains("unknown accumulator"));
}

#[test]
fn diagonal_transforms_and_the_edge_rule() {
    let pgn = "[Event \"a8\"]\n[SetUp \"1\"]\n[FEN \"K7/8/8/8/8/8/8/7k w - - 0 1\"]\n\n1. Kb8 *\n\n\
[Event \"e5\"]\n[SetUp \"1\"]\n[FEN \"7k/8/8/4K3/8/8/8/8 w - - 0 1\"]\n\n1. Kd5 *\n\n\
[Event \"rook below\"]\n[SetUp \"1\"]\n[FEN \"7k/8/8/2P5/8/8/2R5/4K3 w - - 0 1\"]\n\n1. Kd1 *\n";
    // h1 mirrored about the a1–h8 diagonal is a8.
    assert_eq!(matching("(match (position :initial Kh1 :flipdiagonal))", pgn), vec![1]);
    assert_eq!(matching("(match (position :initial Kh1 :flipvertical))", pgn), NONE);
    // b2 along the a1–h8 direction reaches e5 (3 steps); along a8–h1 it does not.
    assert_eq!(matching("(match (position :initial Kb2 :shiftmaindiagonal))", pgn), vec![2]);
    assert_eq!(matching("(match (position :initial Kb2 :shiftoffdiagonal))", pgn), NONE);
    assert_eq!(matching("(match (position :initial Kb8 :shiftdiagonal))", pgn), vec![1, 2]);
    // The CQL 3 edge rule: c1 is on the trailing edge of an upward shift, so it stays
    // and its images are added: a white rook anywhere below the white pawn on the c-file.
    assert_eq!(matching("(match (position :initial Pc2 Rc1 :shiftvertical))", pgn), vec![3]);
    // Without an edge square the shift is a plain translation: the rook must stand
    // right below the pawn.
    assert_eq!(matching("(match (position :initial Pc3 Rc2 :shiftvertical))", pgn), NONE);
    // `:inside`: the shifted designator must keep a piece on the fixed squares.
    assert_eq!(matching("(match (position :initial Pd5 :shift :inside P [c5]))", pgn), vec![3]);
    assert_eq!(matching("(match (position :initial Pd5 :shift :inside P [a1]))", pgn), NONE);
}

#[test]
fn refused_keywords_name_themselves() {
    assert!(error_of("(match (position :evaluation >=3))").contains("`:evaluation` is not supported"));
    assert!(error_of("(match :birthyear 1990)").contains("birth year"));
    assert!(error_of("(match (position :isillegal))").contains("`:isillegal`"));
}

#[test]
fn cql_1_scripts_skip_the_start_and_keep_results_unflipped() {
    use super::lower::{dialect, Dialect};
    assert_eq!(dialect("; CQL-S 1.0 (normal) (normal)\n(match)"), Dialect::CqlS);
    assert_eq!(dialect("; CQL 1.0\n(match)"), Dialect::Cql1);
    assert_eq!(dialect("(match)"), Dialect::Unmarked);
    // The start position is searched unless the script says CQL 1.0.
    assert_eq!(matching("(match (position :initial))", MOVES), vec![1, 2, 3, 4]);
    assert_eq!(matching("; CQL-S 1.0 (normal) (normal)\n(match (position :initial))", MOVES), vec![1, 2, 3, 4]);
    assert_eq!(matching("; CQL 1.0\n(match (position :initial))", MOVES), NONE);
    assert_eq!(matching("; CQL 1.0\n(match (position :btm :mate))", MOVES), NONE);
    assert_eq!(matching("; CQL 1.0\n(match (position :wtm :mate))", MOVES), vec![2]);
    // `:flipcolor` flips `:result` in CQL-S: a mate of White in a game Black won also
    // matches the flipped "mate of Black, 1-0"; in CQL 1.0 the result stays 1-0.
    let flipped = "(match (position :result 1-0 :btm :mate :flipcolor))";
    assert_eq!(matching(flipped, MOVES), vec![2]);
    assert_eq!(matching(&format!("; CQL 1.0\n{flipped}"), MOVES), NONE);
}
