//! Reading one SAN move token quickly, and the form in which CQL 6.2 repeats a move it
//! could not read.
//!
//! Takes in: the bytes of one move token and the position it is played in. Gives out:
//! the move, when the token is a plain SAN move the quick path understands (everything
//! else goes to shakmaty's full reader), or the token as CQL 6.2 prints it in an error.
//! Must never: accept a move that is not legal in the position.

use shakmaty::san::San;
use shakmaty::{Chess, Move, Position, Square};

/// A move token as CQL 6.2's PGN reader keeps it (SCID's `GetRestOfMove`,
/// `GetRestOfPawnMove`, `GetRestOfCastling`), for the `Error reading move: …` comment:
/// without its move number, capture and dash marks (`x`, `:`, `-`), check, mate and
/// `!`/`?` signs, a leading `P`, and with `=` before a promotion piece (`e8Q` → `e8=Q`);
/// castling keeps its letters and dashes.
pub(super) fn move_as_cql_reads_it(token: &[u8]) -> String {
    let digits = token.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut text = &token[digits..];
    if digits > 0 && !text.starts_with(b".") && !text.starts_with(b"-") {
        text = token;
    }
    while text.first() == Some(&b'.') {
        text = &text[1..];
    }
    let mut out = String::new();
    match text.first() {
        Some(b'O' | b'o' | b'0') => {
            for &b in text.iter().take_while(|b| matches!(b, b'O' | b'o' | b'0' | b'-')) {
                out.push(b as char);
            }
        }
        Some(&first) => {
            let pawn = matches!(first, b'a'..=b'h' | b'P');
            let body = if first == b'P' { &text[1..] } else { text };
            for (i, &b) in body.iter().enumerate() {
                match b {
                    b'a'..=b'h' | b'1'..=b'8' => out.push(b as char),
                    b'N' | b'B' | b'R' | b'Q' | b'K' if i == 0 && !pawn => out.push(b as char),
                    b'x' | b':' | b'-' => {}
                    b'=' if pawn => {
                        if let Some(&piece @ (b'Q' | b'R' | b'B' | b'N')) = body.get(i + 1) {
                            out.push('=');
                            out.push(piece as char);
                        }
                        break;
                    }
                    b'Q' | b'R' | b'B' | b'N' if pawn => {
                        out.push('=');
                        out.push(b as char);
                        break;
                    }
                    _ => break,
                }
            }
        }
        None => {}
    }
    out
}

/// Read the common shapes of a SAN move (`e4`, `exd5`, `Nf3`, `Nbd7`, `R1e2`, `Qh4xe1`,
/// each with an optional `+` or `#`) without shakmaty's general reader; `None` for any
/// other shape (castling, promotion, null moves, drops, a `P` letter, anything odd),
/// which the caller then hands to [`San::from_ascii`]. Whatever it returns is exactly
/// what `San::from_ascii` returns for the same bytes.
pub(super) fn quick_san(text: &[u8]) -> Option<San> {
    use shakmaty::{File, Rank, Role};
    let body = match text.split_last() {
        Some((b'+' | b'#', rest)) => rest,
        _ => text,
    };
    let (role, rest) = match body.split_first()? {
        (b'N', rest) => (Role::Knight, rest),
        (b'B', rest) => (Role::Bishop, rest),
        (b'R', rest) => (Role::Rook, rest),
        (b'Q', rest) => (Role::Queen, rest),
        (b'K', rest) => (Role::King, rest),
        (b'a'..=b'h', _) => (Role::Pawn, body),
        _ => return None,
    };
    let file = |b: u8| matches!(b, b'a'..=b'h').then(|| File::new(u32::from(b - b'a')));
    let rank = |b: u8| matches!(b, b'1'..=b'8').then(|| Rank::new(u32::from(b - b'1')));
    let square = |f: u8, r: u8| Some(Square::from_coords(file(f)?, rank(r)?));
    let (from_file, from_rank, capture, to) = match *rest {
        [f, r] => (None, None, false, square(f, r)?),
        [b'x', f, r] => (None, None, true, square(f, r)?),
        [d, f, r] => match (file(d), rank(d)) {
            (Some(df), _) => (Some(df), None, false, square(f, r)?),
            (_, Some(dr)) => (None, Some(dr), false, square(f, r)?),
            _ => return None,
        },
        [d, b'x', f, r] => match (file(d), rank(d)) {
            (Some(df), _) => (Some(df), None, true, square(f, r)?),
            (_, Some(dr)) => (None, Some(dr), true, square(f, r)?),
            _ => return None,
        },
        [df, dr, f, r] => (Some(file(df)?), Some(rank(dr)?), false, square(f, r)?),
        [df, dr, b'x', f, r] => (Some(file(df)?), Some(rank(dr)?), true, square(f, r)?),
        _ => return None,
    };
    Some(San::Normal { role, file: from_file, rank: from_rank, capture, to, promotion: None })
}

/// The move a plain SAN means in the common case, without generating move lists (`check`:
/// the side to move is in check, which the caller knows): a piece move or a pawn push/capture (no castling, no en
/// passant) with exactly one legal origin. Returns `None` whenever the case is not
/// that simple (check, ambiguity, illegality, a capture mark that does not fit), and
/// the caller then asks shakmaty, so the answer is always the one `San::to_move` gives.
pub(super) fn quick_san_move(pos: &Chess, check: bool, san: San) -> Option<Move> {
    use shakmaty::{attacks, Bitboard, EnPassantMode, Rank, Role};
    let San::Normal { role, file, rank, capture, to, promotion } = san else { return None };
    let board = pos.board();
    let us = pos.turn();
    let king = board.king_of(us)?;
    let ours = board.by_color(us);
    if ours.contains(to) {
        return None;
    }
    let captured = board.role_at(to);
    if capture != captured.is_some() {
        return None;
    }
    let occupied = board.occupied();
    let last_rank = if us.is_white() { Rank::Eighth } else { Rank::First };
    let mut from = match role {
        Role::Pawn => {
            if pos.ep_square(EnPassantMode::Always) == Some(to) {
                return None;
            }
            let promotes = to.rank() == last_rank;
            if promotes != promotion.is_some() || matches!(promotion, Some(Role::Pawn | Role::King)) {
                return None;
            }
            let pawns = board.pawns() & ours;
            if captured.is_some() {
                attacks::pawn_attacks(!us, to) & pawns
            } else {
                let step = if us.is_white() { -8 } else { 8 };
                let one = to.offset(step)?;
                if pawns.contains(one) {
                    Bitboard::from(one)
                } else if !occupied.contains(one)
                    && to.rank() == (if us.is_white() { Rank::Fourth } else { Rank::Fifth })
                {
                    one.offset(step).map_or(Bitboard::EMPTY, |two| Bitboard::from(two) & pawns)
                } else {
                    Bitboard::EMPTY
                }
            }
        }
        _ if promotion.is_some() => return None,
        Role::Knight => attacks::knight_attacks(to) & board.knights() & ours,
        Role::Bishop => attacks::bishop_attacks(to, occupied) & board.bishops() & ours,
        Role::Rook => attacks::rook_attacks(to, occupied) & board.rooks() & ours,
        Role::Queen => attacks::queen_attacks(to, occupied) & board.queens() & ours,
        Role::King => {
            if !attacks::king_attacks(to).contains(king) {
                return None;
            }
            // The king may not step onto an attacked square (its own square vacated).
            let without_king = occupied ^ Bitboard::from(king);
            if board.attacks_to(to, !us, without_king).any() {
                return None;
            }
            return (file.is_none_or(|f| f == king.file()) && rank.is_none_or(|r| r == king.rank()))
                .then_some(Move::Normal { role, from: king, capture: captured, to, promotion: None });
        }
    };
    if let Some(f) = file {
        from &= Bitboard::from(f);
    }
    if let Some(r) = rank {
        from &= Bitboard::from(r);
    }
    // Not in check, a move is legal unless it uncovers a slider line onto the king; in
    // check, unless any piece but the one captured attacks the king afterwards.
    let theirs = board.by_color(!us) & !Bitboard::from(to);
    let rook_likes = theirs & board.rooks_and_queens();
    let bishop_likes = theirs & board.bishops_and_queens();
    let mut found = None;
    for sq in from {
        let after = (occupied ^ Bitboard::from(sq)) | Bitboard::from(to);
        let exposed = if check {
            (board.attacks_to(king, !us, after) & theirs).any()
        } else {
            (attacks::rook_attacks(king, after) & rook_likes).any()
                || (attacks::bishop_attacks(king, after) & bishop_likes).any()
        };
        if !exposed {
            if found.is_some() {
                return None;
            }
            found = Some(sq);
        }
    }
    found.map(|from| Move::Normal { role, from, capture: captured, to, promotion })
}
