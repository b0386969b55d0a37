//! The built-in functions of numbers and strings (`abs`, `min`, `sqrt`, `int`, `str`,
//! `file`, `type`, `typename`, `power`, substrings, …), as CQL 6.2 computes them.
//!
//! Part of the filter interpreter ([`super`]); see `docs/numbers.md`. Must never:
//! allocate for the arguments of a call of up to three (it runs at every position).

use super::*;

impl<'a> Ctx<'a> {
    pub(super) fn call(&mut self, builtin: Builtin, args: &[FilterId], at: Loc) -> Eval {
        if builtin == Builtin::Str {
            // `str` always matches: an argument that fails is written `<false>` in its text.
            return Ok(Some(Value::Str(self.args_text(args, at)?)));
        }
        // Up to three arguments are held on the stack: a built-in call is made at every
        // position (or for every square of an iteration) and must not allocate for them.
        let mut held: [Value; 3] = [Value::None, Value::None, Value::None];
        let mut spilled: Vec<Value> = Vec::new();
        let on_stack = args.len() <= held.len();
        for (k, &a) in args.iter().enumerate() {
            let Some(v) = self.value(a, at)? else { return Ok(None) };
            if on_stack {
                held[k] = v;
            } else {
                spilled.push(v);
            }
        }
        let values: &[Value] = if on_stack { &held[..args.len()] } else { &spilled };
        let num = |k: usize| values.get(k).and_then(|v| self.as_number(v, at));
        let string = |k: usize| match values.get(k) {
            Some(Value::Str(s)) => Some(s.as_str()),
            _ => None,
        };
        let piece_here = |k: usize| -> Option<Option<shakmaty::Piece>> {
            let sq = self.single_square(values.get(k)?, at)?;
            Some(self.pos(at)?.board().piece_at(sq))
        };
        Ok(match builtin {
            Builtin::Abs => num(0).and_then(|n| n.checked_abs()).map(Value::Number),
            Builtin::Min | Builtin::Max => {
                let mut best: Option<i64> = None;
                for k in 0..values.len() {
                    let Some(n) = num(k) else { return Ok(None) };
                    best = Some(match best {
                        None => n,
                        Some(b) if builtin == Builtin::Min => b.min(n),
                        Some(b) => b.max(n),
                    });
                }
                best.map(Value::Number)
            }
            Builtin::Sqrt => num(0).filter(|n| *n >= 0).map(|n| Value::Number(isqrt(n))),
            Builtin::Int => string(0).and_then(|s| s.trim().parse::<i64>().ok()).map(Value::Number),
            Builtin::Str => None, // converted above, before its arguments are evaluated
            Builtin::Lowercase => string(0).map(|s| Value::Str(s.to_lowercase())),
            Builtin::Uppercase => string(0).map(|s| Value::Str(s.to_uppercase())),
            Builtin::Ascii => match values.first() {
                Some(Value::Str(s)) => s.chars().next().map(|c| Value::Number(c as i64)),
                Some(Value::Number(n)) => {
                    u32::try_from(*n).ok().and_then(char::from_u32).map(|c| Value::Str(c.to_string()))
                }
                _ => None,
            },
            Builtin::IndexOf => match (string(0), string(1)) {
                (Some(needle), Some(hay)) => Some(Value::Number(hay.find(needle).map_or(-1, |i| i as i64))),
                _ => None,
            },
            Builtin::File | Builtin::Rank => {
                let sq = values.first().and_then(|v| self.single_square(v, at));
                sq.map(|sq| {
                    let n = if builtin == Builtin::File { sq.file().to_u32() } else { sq.rank().to_u32() };
                    Value::Number(n as i64 + 1)
                })
            }
            Builtin::MakeSquare => match (values.first(), values.get(1)) {
                (Some(Value::Str(s)), None) => Square::from_ascii(s.trim().as_bytes()).ok().map(Value::square),
                (Some(_), Some(_)) => match (num(0), num(1)) {
                    (Some(f), Some(r)) => square_at(f, r).map(Value::square),
                    _ => None,
                },
                _ => None,
            },
            Builtin::Type => piece_here(0).map(|p| Value::Number(p.map_or(0, |p| p.role as i64))),
            Builtin::TypeName => {
                piece_here(0).map(|p| Value::Str(p.map_or(EMPTY_SQUARE, |p| type_letter(p.role)).to_string()))
            }
            Builtin::PieceName => piece_here(0).map(|p| Value::Str(p.map_or(EMPTY_SQUARE, piece_letter).to_string())),
            // The piece type (1 pawn … 6 king), negated for Black; 0 for an empty square
            // (CQL 6.2 `ColorTypeNode`).
            Builtin::ColorType => piece_here(0).map(|p| {
                Value::Number(match p {
                    Some(p) if p.color.is_white() => p.role as i64,
                    Some(p) => -(p.role as i64),
                    None => 0,
                })
            }),
            Builtin::Power => {
                let set = values.first().and_then(|v| self.as_set(v, at));
                match (set, self.pos(at)) {
                    (Some(s), Some(pos)) => Some(Value::Number(board::power(pos.board(), s))),
                    _ => None,
                }
            }
            Builtin::Light => {
                values.first().and_then(|v| self.as_set(v, at)).map(|s| Value::Set(s & Bitboard::LIGHT_SQUARES))
            }
            Builtin::Dark => {
                values.first().and_then(|v| self.as_set(v, at)).map(|s| Value::Set(s & Bitboard::DARK_SQUARES))
            }
            Builtin::Length => match values.first() {
                Some(Value::Str(s)) => Some(Value::Number(s.chars().count() as i64)),
                Some(v) => self.as_number(v, at).map(Value::Number),
                None => None,
            },
            // `s[i]` and `s[i:j]` as CQL 6.2 reads them (`BracketRange::getBounds`): a
            // negative bound counts from the end; one index outside the string fails, a
            // slice is clamped to the string.
            Builtin::Substring => {
                let Some(s) = string(0) else { return Ok(None) };
                let chars: Vec<char> = s.chars().collect();
                let len = chars.len() as i64;
                let from_end = |n: i64| if n < 0 { n.saturating_add(len) } else { n };
                let Some(i) = num(1).map(from_end) else { return Ok(None) };
                let (i, j) = if values.len() > 2 {
                    let Some(j) = num(2).map(from_end) else { return Ok(None) };
                    let i = i.clamp(0, len);
                    (i, j.clamp(i, len))
                } else if (0..len).contains(&i) {
                    (i, i + 1)
                } else {
                    return Ok(None);
                };
                Some(Value::Str(chars[i as usize..j as usize].iter().collect()))
            }
            Builtin::PieceId => match values.first() {
                Some(Value::Piece(id)) => Some(Value::Number(*id as i64)),
                Some(v) => {
                    let sq = self.single_square(v, at);
                    sq.map(|sq| self.ids(at).at(sq)).filter(|&id| id != 0).map(|id| Value::Number(id as i64))
                }
                None => None,
            },
        })
    }
}

/// The name `typename` gives a piece kind: its upper-case letter (`"Q"` for a queen of either colour).
///
/// A letter, not a word: the official `exalpha_babson3` script counts promotion types with `#` of the
/// concatenated names, and CQL 6.2's results on three corpora agree only with one letter per type.
/// What `piecename` and `typename` give for an empty square: `_` (CQL 6.2
/// `piece_to_char`, chesstypes.cpp).
pub(super) const EMPTY_SQUARE: &str = "_";

/// A piece's letter as `piecename` gives it: upper case for White (`K`), lower case for
/// Black (`n`).
pub(super) fn piece_letter(piece: shakmaty::Piece) -> &'static str {
    const WHITE: [&str; 6] = ["P", "N", "B", "R", "Q", "K"];
    const BLACK: [&str; 6] = ["p", "n", "b", "r", "q", "k"];
    let letters = if piece.color.is_white() { &WHITE } else { &BLACK };
    letters[piece.role as usize - 1]
}

/// A piece type's letter as `typename` gives it (`N` for a knight of either side).
pub(super) fn type_letter(role: Role) -> &'static str {
    match role {
        Role::Pawn => "P",
        Role::Knight => "N",
        Role::Bishop => "B",
        Role::Rook => "R",
        Role::Queen => "Q",
        Role::King => "K",
    }
}

fn isqrt(n: i64) -> i64 {
    let mut r = (n as f64).sqrt() as i64;
    while r > 0 && r.saturating_mul(r) > n {
        r -= 1;
    }
    while (r + 1).saturating_mul(r + 1) <= n {
        r += 1;
    }
    r
}

/// The square on file `file` and rank `rank`, both counted from 1 (`makesquare 5 4` is e4);
/// none off the board.
pub(super) fn square_at(file: i64, rank: i64) -> Option<Square> {
    ((1..=8).contains(&file) && (1..=8).contains(&rank))
        .then(|| Square::from_coords(shakmaty::File::new(file as u32 - 1), shakmaty::Rank::new(rank as u32 - 1)))
}
