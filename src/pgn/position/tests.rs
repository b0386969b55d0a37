//! Board-only positions: set-ups that chess rules reject, replayed and questioned.

use super::*;
use shakmaty::san::San;

fn pos(fen: &str) -> Pos {
    let fen = Fen::from_ascii(fen.as_bytes()).expect("test FEN parses");
    Pos::from_fen(fen, CastlingMode::Standard, CastlingMode::Chess960).expect("test FEN is not empty")
}

fn play(p: &mut Pos, san: &str) -> Move {
    let m = p.san_to_move(San::from_ascii(san.as_bytes()).unwrap()).unwrap_or_else(|| panic!("{san} resolves"));
    p.play_unchecked(m);
    m
}

#[test]
fn legal_setups_stay_chess_positions() {
    assert!(pos("4k3/8/8/8/8/8/8/4K3 w - - 0 1").as_chess().is_some());
    // Repairs keep a position legal: bad castling rights, a bad en passant square.
    assert!(!pos("4k3/8/8/8/8/8/8/4K3 w KQkq e3 0 1").is_lenient());
    assert_eq!(Pos::default().legal_moves().len(), 20);
}

#[test]
fn kingless_setup_replays_on_the_board() {
    let mut p = pos("8/8/8/8/8/8/8/B6B w - - 0 1");
    assert!(p.is_lenient());
    // Two bishops: a1 has 7 diagonal squares, h1 has 7.
    assert_eq!(p.legal_moves().len(), 14);
    assert!(!p.is_check() && !p.is_checkmate() && !p.is_stalemate());
    let m = play(&mut p, "Bh8");
    assert_eq!(
        m,
        Move::Normal { role: Role::Bishop, from: Square::A1, capture: None, to: Square::H8, promotion: None }
    );
    assert_eq!(p.turn(), Color::Black);
    assert_eq!(p.board().piece_at(Square::H8), Some(Role::Bishop.of(Color::White)));
    assert_eq!(p.board().piece_at(Square::A1), None);
    // Black has nothing: no move, yet neither mate nor stalemate without a king.
    assert!(p.legal_moves().is_empty());
    assert!(!p.is_checkmate() && !p.is_stalemate());
    let mut q = p.null_move();
    assert_eq!(q.turn(), Color::White);
    // Black's null move ends the move: the next one is number 2 (issue 43).
    assert_eq!(q.fullmoves().get(), 2);
    play(&mut q, "Ba1");
    assert_eq!(q.board().piece_at(Square::A1), Some(Role::Bishop.of(Color::White)));
}

#[test]
fn kingless_side_moves_next_to_an_enemy_king_freely() {
    // Black has a king, white has none: white's rook may go anywhere it reaches; the
    // black king is in check and must leave, it may not step into an attack.
    let mut p = pos("4k3/8/8/8/8/8/8/R7 w - - 0 1");
    assert!(p.is_lenient());
    assert!(!p.is_check());
    play(&mut p, "Ra8+");
    assert!(p.is_check());
    assert_eq!(p.checkers(), Bitboard::from(Square::A8));
    let moves = p.legal_moves();
    assert!(moves.iter().all(|m| m.to().rank() == Rank::Seventh), "{moves:?}");
    assert!(!p.is_checkmate());
}

#[test]
fn two_kings_of_a_colour_are_all_royal() {
    let p = pos("4k3/8/8/8/8/8/r7/K6K w - - 0 1");
    assert!(p.is_lenient());
    // The rook on a2 checks the a1 king only; check is about any king of the side.
    assert!(p.is_check());
    assert_eq!(p.checkers(), Bitboard::from(Square::A2));
    // Legal moves keep every white king safe: only the a1 king can answer (Kb1 or
    // Kxa2); an h1 king move would leave the a1 king attacked.
    let legal = p.legal_moves();
    assert_eq!(legal.len(), 2, "{legal:?}");
    assert!(legal.iter().all(|m| m.from() == Some(Square::A1)));
    // The rook on b1 checks both kings; Kxb1 answers both.
    let double = pos("4k3/8/8/8/8/8/PP4PP/Kr5K w - - 0 1");
    assert!(double.is_check());
    assert_eq!(double.legal_moves().len(), 1);
    assert!(!double.is_checkmate());
    // With the rook guarded by a bishop, both kings are mated.
    let mated = pos("4k3/8/8/8/4b3/8/PP4PP/Kr5K w - - 0 1");
    assert!(mated.is_checkmate());
    assert!(!mated.is_stalemate());
}

#[test]
fn move_leaving_one_of_two_kings_attacked_is_still_read() {
    // The a1 king stays attacked by the rook on a8 whatever white plays except Ka1-b1/b2;
    // the game writes h1-g1, which the pseudo-legal reading accepts.
    let mut p = pos("r3k3/8/8/8/8/8/8/K6K w - - 0 1");
    assert!(p.is_check());
    let m = play(&mut p, "Kg1");
    assert_eq!(m.from(), Some(Square::H1));
    assert_eq!(p.board().piece_at(Square::G1), Some(Role::King.of(Color::White)));
}

#[test]
fn pawns_on_the_back_rank() {
    // A white pawn on a1 steps to a2 (never two squares); a black pawn on h1 cannot move.
    let mut p = pos("4k3/8/8/8/8/8/8/P3K2p w - - 0 1");
    assert!(p.is_lenient());
    let pawn_moves: Vec<Move> = p.legal_moves().into_iter().filter(|m| m.role() == Role::Pawn).collect();
    assert_eq!(pawn_moves.len(), 1);
    assert_eq!(pawn_moves[0].to(), Square::A2);
    play(&mut p, "a2");
    assert!(p.board().pawns().contains(Square::A2));
    let black_pawn_moves = p.legal_moves().into_iter().filter(|m| m.role() == Role::Pawn).count();
    assert_eq!(black_pawn_moves, 0);
}

#[test]
fn en_passant_after_a_double_step() {
    let mut p = pos("4k3/8/8/8/1p6/8/P7/K3K3 w - - 0 1");
    assert!(p.is_lenient());
    play(&mut p, "a4");
    assert_eq!(p.maybe_ep_square(), Some(Square::A3));
    let m = play(&mut p, "bxa3");
    assert!(m.is_en_passant());
    assert_eq!(p.board().piece_at(Square::A4), None);
    assert_eq!(p.board().piece_at(Square::A3), Some(Role::Pawn.of(Color::Black)));
    assert_eq!(p.maybe_ep_square(), None);
}

#[test]
fn side_not_to_move_in_check_can_be_captured() {
    // White to move, black king attacked by the queen: the king can be taken.
    let mut p = pos("4k3/8/8/8/8/8/8/4QK2 w - - 0 1");
    assert!(p.is_lenient());
    play(&mut p, "Qxe8");
    assert!(p.board().kings() & p.board().by_color(Color::Black) == Bitboard::EMPTY);
    assert_eq!(p.turn(), Color::Black);
    assert!(p.legal_moves().is_empty());
    assert!(!p.is_checkmate() && !p.is_stalemate() && !p.is_check());
}

#[test]
fn stalemate_needs_a_king() {
    // The black king alone on a8 has no move and is not attacked; white has two kings.
    let p = pos("k7/2Q5/1K6/8/8/8/8/7K b - - 0 1");
    assert!(p.is_lenient());
    assert!(p.is_stalemate());
    assert!(!p.is_checkmate());
}

#[test]
fn castling_is_not_available_on_the_board_alone() {
    let p = pos("4k3/8/8/8/8/8/8/R3K2K w Q - 0 1");
    assert!(p.is_lenient());
    assert!(p.san_to_move(San::from_ascii(b"O-O-O").unwrap()).is_none());
    assert!(p.castles().castling_rights().is_empty());
}

#[test]
fn empty_board_is_no_position() {
    let fen = Fen::from_ascii(b"8/8/8/8/8/8/8/8 w - - 0 1").unwrap();
    assert!(Pos::from_fen(fen, CastlingMode::Standard, CastlingMode::Chess960).is_none());
}

#[test]
fn pseudo_legal_generation_matches_shakmaty_on_legal_positions() {
    // Without a king in danger, pseudo-legal and legal moves agree (castling aside).
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b - a3 0 1",
        "4k3/1P6/8/8/8/8/6p1/4K2R w - - 0 1",
    ] {
        let p = pos(fen);
        let mut legal: Vec<Move> = p.legal_moves().into_iter().collect();
        let mut pseudo: Vec<Move> = pseudo_legal_moves(&p).into_iter().collect();
        pseudo.retain(|m| legal.contains(m));
        legal.sort_by_key(|m| format!("{m:?}"));
        pseudo.sort_by_key(|m| format!("{m:?}"));
        assert_eq!(legal, pseudo, "{fen}");
    }
}

#[test]
fn common_path_costs_no_more_memory() {
    // Nodes hold a `Pos`; the board-only variant must not make the legal one bigger
    // than a tag beside a `Chess`.
    let (pos, chess) = (std::mem::size_of::<Pos>(), std::mem::size_of::<Chess>());
    assert!(pos <= chess + 8, "Pos is {pos} bytes, Chess {chess}");
}
