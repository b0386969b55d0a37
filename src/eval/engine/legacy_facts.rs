//! Evaluation of [`LegacyFact`]: the position and game facts only the legacy language
//! asks for (castling rights, halfmove clock, repetitions, checks given, opposition, good
//! bishops, static exchange values, parsed header fields, the kind of start position).
//!
//! Takes in: the evaluation context and a location. Gives out: `Some(value)` when the fact
//! holds (a number for counting facts, a set for [`LegacyFact::Region`], `Value::None`
//! for yes/no facts), `None` when it does not or has no value there.
//! Must never: change the context, or panic on a strange position (board-only positions
//! from illegal set-ups give no value for facts that need the rules).

use shakmaty::{
    Bitboard, Board, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, FromSetup, Move, Position, Role, Square,
};

use super::{Ctx, Loc};
use crate::eval::value::Value;
use crate::ir::legacy::{marker, time_mode};
use crate::ir::{LegacyFact, PawnShare};
use crate::pgn::{NodeId, Played, Pos};

impl Ctx<'_> {
    /// The legacy fact `fact` at a location (see [`eval`]).
    pub(super) fn eval_legacy_fact(&self, fact: &LegacyFact, at: Loc) -> Option<Value> {
        eval(self, fact, at)
    }
}

/// The fact at a location.
fn eval(ctx: &Ctx, fact: &LegacyFact, at: Loc) -> Option<Value> {
    let yes = |b: bool| b.then_some(Value::None);
    match fact {
        LegacyFact::Region(bb) => Some(Value::Set(*bb)),
        LegacyFact::TimeMode(mask) => yes(time_mode_of(ctx) & mask != 0),
        LegacyFact::Round { sub } => Some(Value::Number(round_of(ctx, *sub))),
        LegacyFact::EventCategory => Some(Value::Number(category_of(ctx))),
        LegacyFact::ShuffleStart { chess960 } => {
            let root = ctx.game.nodes.first()?;
            let kind = shuffle_kind(root.pos.board())?;
            yes(!chess960 || kind.chess960)
        }
        LegacyFact::Chess960Number => {
            let root = ctx.game.nodes.first()?;
            let kind = shuffle_kind(root.pos.board())?;
            if !kind.chess960 {
                return None;
            }
            let castles = root.pos.castles().castling_rights();
            let all_rights = castles.count() == 4;
            let n = if kind.number == 0 { 960 } else { kind.number };
            Some(Value::Number(if all_rights { n } else { n + 3 * 960 }))
        }
        LegacyFact::HasNag => {
            let n = node_at(at)?;
            yes(!ctx.game.node(n).nags.is_empty())
        }
        LegacyFact::Nag(nag) => {
            let n = node_at(at)?;
            yes(ctx.game.node(n).nags.contains(nag))
        }
        LegacyFact::AnyTag(needle) => {
            let needle = needle.as_ref().map(|n| n.to_lowercase());
            yes(ctx.game.tags.iter().any(|t| match &needle {
                None => true,
                Some(n) => t.text().to_lowercase().contains(n.as_str()),
            }))
        }
        LegacyFact::Markers(mask) => {
            let bits = ctx.game.tag("Markers").map(|t| marker::parse(&t.text())).unwrap_or(0);
            yes(bits & mask != 0)
        }
        _ => {
            let pos = ctx.pos(at)?;
            position_fact(ctx, fact, at, pos)
        }
    }
}

fn node_at(at: Loc) -> Option<NodeId> {
    match at {
        Loc::Node(n) => Some(n),
        _ => None,
    }
}

fn position_fact(ctx: &Ctx, fact: &LegacyFact, at: Loc, pos: &Pos) -> Option<Value> {
    let yes = |b: bool| b.then_some(Value::None);
    let board = pos.board();
    match fact {
        LegacyFact::HalfmoveClock => {
            pos.as_chess()?;
            Some(Value::Number(i64::from(pos.halfmoves())))
        }
        LegacyFact::CastlingRights(mask) => {
            let castles = pos.castles();
            let mut n = 0;
            for (bit, color, side) in [
                (1, Color::White, CastlingSide::KingSide),
                (2, Color::White, CastlingSide::QueenSide),
                (4, Color::Black, CastlingSide::KingSide),
                (8, Color::Black, CastlingSide::QueenSide),
            ] {
                if mask & bit != 0 && castles.has(color, side) {
                    n += 1;
                }
            }
            Some(Value::Number(n))
        }
        LegacyFact::RepetitionCount => {
            let n = node_at(at)?;
            let key = repetition_key(pos);
            let mut count = 0;
            let mut cur = Some(n);
            while let Some(c) = cur {
                let node = ctx.game.node(c);
                if repetition_key(&node.pos) == key {
                    count += 1;
                }
                cur = node.parent;
            }
            Some(Value::Number(count))
        }
        LegacyFact::ChecksGiven(color) => {
            let n = node_at(at)?;
            let mut count = 0;
            let mut cur = Some(n);
            while let Some(c) = cur {
                let node = ctx.game.node(c);
                if node.pos.turn() == color.other() && node.pos.is_check() {
                    count += 1;
                }
                cur = node.parent;
            }
            Some(Value::Number(count))
        }
        LegacyFact::Opposition(color) => {
            let (mine, theirs) = (board.king_of(*color)?, board.king_of(color.other())?);
            let (df, dr) = (
                (i32::from(mine.file()) - i32::from(theirs.file())).abs(),
                (i32::from(mine.rank()) - i32::from(theirs.rank())).abs(),
            );
            let aligned = df == 0 || dr == 0 || df == dr;
            let distance = df.max(dr);
            let to_move = i32::from(pos.turn() == *color);
            yes(aligned && distance >= 2 && (distance + to_move) % 2 == 0)
        }
        LegacyFact::GoodBishop { mask, squares, enemy, own } => {
            let bishops = super::board::pieces(board, *mask, *squares) & board.by_role(Role::Bishop);
            let good = bishops.into_iter().any(|sq| {
                let Some(color) = board.color_at(sq) else { return false };
                let same_colour =
                    if Bitboard::LIGHT_SQUARES.contains(sq) { Bitboard::LIGHT_SQUARES } else { Bitboard::DARK_SQUARES };
                let their_pawns = board.pawns() & board.by_color(color.other());
                let my_pawns = board.pawns() & board.by_color(color);
                share_holds(enemy, (their_pawns & same_colour).count(), their_pawns.count())
                    && share_holds(own, (my_pawns & !same_colour).count(), my_pawns.count())
            });
            yes(good)
        }
        LegacyFact::ExchangeValue => {
            let n = node_at(at)?;
            let next = ctx.children(n).first()?;
            let Some(Played::Move(m)) = &ctx.game.node(*next).played else { return None };
            if !m.is_capture() {
                return None;
            }
            Some(Value::Number(static_exchange(board, m)))
        }
        LegacyFact::KingLeftInCheck => yes(own_king_left_in_check(pos)),
        LegacyFact::BreaksSetupRules => yes(breaks_setup_rules(pos)),
        LegacyFact::MaxSwap { mask, from, to } => {
            let chess = pos.as_chess()?;
            let movers = super::board::pieces(board, *mask, *from);
            chess
                .legal_moves()
                .iter()
                .filter(|m| m.from().is_some_and(|f| movers.contains(f)) && to.contains(m.to()))
                .map(|m| static_exchange(board, m))
                .max()
                .map(Value::Number)
        }
        _ => None,
    }
}

/// Is a king of the side not to move attacked (the last move, or the set-up, left it
/// in check)? Counts every king of that side when a problem set-up has several.
fn own_king_left_in_check(pos: &Pos) -> bool {
    let board = pos.board();
    let mover = pos.turn().other();
    let kings = board.kings() & board.by_color(mover);
    kings.into_iter().any(|k| board.attacks_to(k, pos.turn(), board.occupied()).any())
}

/// Does the position break chess's set-up rules (shakmaty's validation of the board,
/// side to move, castling rights and en passant square, none of its errors ignored)?
fn breaks_setup_rules(pos: &Pos) -> bool {
    let setup = pos.to_setup(EnPassantMode::Always);
    Chess::from_setup(setup, CastlingMode::Chess960).is_err()
}

/// Does a count (of `total` pawns) lie in the bounds, as a number or as a percentage?
/// A percentage of zero pawns never lies in any bounds.
fn share_holds(share: &PawnShare, count: usize, total: usize) -> bool {
    let value = if share.percent {
        // A share of no pawns is no share at all: the bound does not hold.
        if total == 0 {
            return false;
        }
        (count * 100 / total) as i64
    } else {
        count as i64
    };
    (share.lo..=share.hi).contains(&value)
}

/// What makes two positions "the same" for the repetition rules: board, side to move,
/// castling rights and a usable en-passant capture.
fn repetition_key(pos: &Pos) -> (Board, Color, Bitboard, Option<Square>) {
    (pos.board().clone(), pos.turn(), pos.castles().castling_rights(), pos.ep_square(EnPassantMode::Legal))
}

/// Piece values for exchanges: the power values, the king priced out of any exchange.
fn exchange_value(role: Role) -> i64 {
    match role {
        Role::King => 1000,
        r => crate::pgn::role_power(r),
    }
}

/// The material the moving side wins by the exchange the move starts on its target
/// square, both sides recapturing with their cheapest attacker while it pays (pins and
/// checks are ignored).
pub fn static_exchange(board: &Board, m: &Move) -> i64 {
    let Some(from) = m.from() else { return 0 };
    let to = m.to();
    let Some(mover) = board.color_at(from) else { return 0 };
    let captured = match m {
        Move::EnPassant { .. } => crate::pgn::role_power(Role::Pawn),
        _ => board.role_at(to).map(exchange_value).unwrap_or(0),
    };
    let mut occupied = board.occupied() ^ Bitboard::from(from);
    if let Move::EnPassant { .. } = m {
        let victim = Square::from_coords(to.file(), from.rank());
        occupied ^= Bitboard::from(victim);
    }
    let mut on_square = m.promotion().map(exchange_value).unwrap_or_else(|| exchange_value(m.role()));
    let mut gain = vec![captured + m.promotion().map(|r| exchange_value(r) - 1).unwrap_or(0)];
    let mut side = mover.other();
    loop {
        let attackers = board.attacks_to(to, side, occupied) & occupied & board.by_color(side);
        let Some((sq, value)) = attackers
            .into_iter()
            .filter_map(|sq| board.role_at(sq).map(|r| (sq, exchange_value(r))))
            .min_by_key(|&(_, v)| v)
        else {
            break;
        };
        gain.push(on_square - gain[gain.len() - 1]);
        on_square = value;
        occupied ^= Bitboard::from(sq);
        side = side.other();
        if gain.len() > 40 {
            break;
        }
    }
    while gain.len() > 1 {
        let last = gain.pop().unwrap_or(0);
        let prev = gain.len() - 1;
        gain[prev] = -((-gain[prev]).max(last));
    }
    gain[0]
}

/// Scidb's time mode of the game: the `TimeMode` tag when it names one, else a guess
/// from `TimeControl` (`base+increment` in seconds, estimated length base + 40 ×
/// increment: under 3 min bullet, under 8 min blitz, under 25 min rapid, else normal;
/// a day or more per move is correspondence).
fn time_mode_of(ctx: &Ctx) -> u8 {
    if let Some(t) = ctx.game.tag("TimeMode") {
        match t.text().trim().to_ascii_lowercase().as_str() {
            "normal" => return time_mode::NORMAL,
            "rapid" => return time_mode::RAPID,
            "blitz" => return time_mode::BLITZ,
            "bullet" => return time_mode::BULLET,
            "corr" => return time_mode::CORR,
            _ => {}
        }
    }
    let Some(tc) = ctx.game.tag("TimeControl") else { return time_mode::UNKNOWN };
    let text = tc.text();
    let first = text.split(':').next().unwrap_or("").trim();
    if let Some((_, per_move)) = first.split_once('/') {
        // `moves/seconds` or `*seconds` forms: correspondence when a day per move or more.
        return match per_move.trim_start_matches('*').parse::<i64>() {
            Ok(s) if s >= 86_400 => time_mode::CORR,
            Ok(_) => time_mode::NORMAL,
            Err(_) => time_mode::UNKNOWN,
        };
    }
    let (base, inc) = first.split_once('+').unwrap_or((first, "0"));
    match (base.parse::<i64>(), inc.parse::<i64>()) {
        (Ok(b), Ok(i)) => {
            let estimate = b + 40 * i;
            if b >= 86_400 {
                time_mode::CORR
            } else if estimate < 180 {
                time_mode::BULLET
            } else if estimate < 480 {
                time_mode::BLITZ
            } else if estimate < 1500 {
                time_mode::RAPID
            } else {
                time_mode::NORMAL
            }
        }
        _ => time_mode::UNKNOWN,
    }
}

/// Round (`R` of `R.S`) or sub-round (`S`) number of the `Round` tag; 0 when absent.
fn round_of(ctx: &Ctx, sub: bool) -> i64 {
    let text = ctx.game.tag("Round").map(|t| t.text().to_string()).unwrap_or_default();
    let mut parts = text.trim().splitn(2, '.');
    let round = parts.next().unwrap_or("");
    let part = if sub { parts.next().unwrap_or("") } else { round };
    part.trim().parse::<i64>().unwrap_or(0).max(0)
}

/// The `EventCategory` tag as a number (digits or Roman numerals); 0 when absent.
fn category_of(ctx: &Ctx) -> i64 {
    let text = ctx.game.tag("EventCategory").map(|t| t.text().trim().to_ascii_uppercase()).unwrap_or_default();
    if let Ok(n) = text.parse::<i64>() {
        return n.max(0);
    }
    crate::ir::legacy::roman(&text).unwrap_or(0)
}

/// A Shuffle Chess set-up: its Chess960 status and (for Chess960 set-ups) its number.
struct ShuffleKind {
    chess960: bool,
    number: i64,
}

/// Is the board a Shuffle Chess start: pawns on their second ranks, ranks 3–6 empty, the
/// white back rank holding K Q R R B B N N and the black one its mirror image?
fn shuffle_kind(board: &Board) -> Option<ShuffleKind> {
    let rank = |r: u32| Bitboard(0xffu64 << (8 * r));
    if board.pawns() & board.white() != rank(1) || board.pawns() & board.black() != rank(6) {
        return None;
    }
    if board.occupied() != rank(0) | rank(1) | rank(6) | rank(7) {
        return None;
    }
    let mut roles = Vec::with_capacity(8);
    for file in 0..8u32 {
        let w = Square::new(file);
        let b = Square::new(file + 56);
        let (Some(wp), Some(bp)) = (board.piece_at(w), board.piece_at(b)) else { return None };
        if wp.color != Color::White || bp.color != Color::Black || wp.role != bp.role || wp.role == Role::Pawn {
            return None;
        }
        roles.push(wp.role);
    }
    let count = |r: Role| roles.iter().filter(|&&x| x == r).count();
    if count(Role::King) != 1 || count(Role::Queen) != 1 || count(Role::Rook) != 2 || count(Role::Bishop) != 2 {
        return None;
    }
    let files = |r: Role| roles.iter().enumerate().filter(|(_, &x)| x == r).map(|(i, _)| i).collect::<Vec<_>>();
    let bishops = files(Role::Bishop);
    let rooks = files(Role::Rook);
    let king = files(Role::King)[0];
    let chess960 = bishops[0] % 2 != bishops[1] % 2 && rooks[0] < king && king < rooks[1];
    if !chess960 {
        return Some(ShuffleKind { chess960, number: 0 });
    }
    // Scharnagl numbering: light bishop, dark bishop, queen, knights.
    let light = bishops.iter().copied().find(|f| f % 2 == 1).unwrap_or(0);
    let dark = bishops.iter().copied().find(|f| f % 2 == 0).unwrap_or(0);
    let mut free: Vec<usize> = (0..8).filter(|f| *f != light && *f != dark).collect();
    let queen = files(Role::Queen)[0];
    let q = free.iter().position(|&f| f == queen).unwrap_or(0);
    free.retain(|&f| f != queen);
    let knights: Vec<usize> = files(Role::Knight).iter().filter_map(|k| free.iter().position(|f| f == k)).collect();
    const PAIRS: [(usize, usize); 10] =
        [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
    let kn = PAIRS.iter().position(|&p| knights.len() == 2 && p == (knights[0], knights[1])).unwrap_or(0);
    let number = (light as i64 - 1) / 2 + 4 * (dark as i64 / 2) + 16 * q as i64 + 96 * kn as i64;
    Some(ShuffleKind { chess960, number })
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess};

    fn chess(fen: &str) -> Chess {
        Fen::from_ascii(fen.as_bytes()).unwrap().into_position(CastlingMode::Chess960).unwrap()
    }

    #[test]
    fn standard_start_is_chess960_number_518() {
        let kind = shuffle_kind(Chess::default().board()).unwrap();
        assert!(kind.chess960);
        assert_eq!(kind.number, 518);
        // Scharnagl's position 0: BBQNNRKR.
        let kind = shuffle_kind(chess("bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR w KQkq - 0 1").board()).unwrap();
        assert!(kind.chess960);
        assert_eq!(kind.number, 0);
        // King outside its rooks: Shuffle Chess, not Chess960.
        let kind = shuffle_kind(chess("rrbqkbnn/pppppppp/8/8/8/8/PPPPPPPP/RRBQKBNN w - - 0 1").board()).unwrap();
        assert!(!kind.chess960);
        assert!(shuffle_kind(chess("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1").board()).is_none());
    }

    #[test]
    fn exchanges_count_recaptures() {
        // Rxd5 wins a pawn defended by nothing.
        let pos = chess("4k3/8/8/3p4/8/8/8/3RK3 w - - 0 1");
        let m = pos.legal_moves().into_iter().find(|m| m.to() == Square::D5).unwrap();
        assert_eq!(static_exchange(pos.board(), &m), 1);
        // Qxd5 against a pawn defended by a pawn loses the queen for a pawn: 1 − 9.
        let pos = chess("4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1");
        let m = pos.legal_moves().into_iter().find(|m| m.to() == Square::D5).unwrap();
        assert_eq!(static_exchange(pos.board(), &m), -8);
        // Nxd5 against a pawn defended by a pawn, backed by a rook: N for 2 P = −1, but
        // Black may stop after taking the knight: 1 − 3 = −2.
        let pos = chess("4k3/8/4p3/3p4/8/4N3/8/3RK3 w - - 0 1");
        let m = pos.legal_moves().into_iter().find(|m| m.to() == Square::D5).unwrap();
        assert_eq!(static_exchange(pos.board(), &m), -1);
    }

    #[test]
    fn roman_numerals() {
        use crate::ir::legacy::roman;
        assert_eq!(roman("XX"), Some(20));
        assert_eq!(roman("XIV"), Some(14));
        assert_eq!(roman("IX"), Some(9));
        assert_eq!(roman("abc"), None);
    }
}
