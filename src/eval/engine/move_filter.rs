//! The move filters: `move` (`from`, `to`, `capture`, `promote`, castling, `previous`,
//! `legal`, `pseudolegal`, `primary`/`secondary`, `count`), as CQL 6.2 matches them.
//!
//! Part of the filter interpreter ([`super`]); see `docs/moves.md`. Must never: keep a
//! generated position once its filter is evaluated (the stack of temporary positions).

use super::*;

impl<'a> Ctx<'a> {
    // long: the one walk over a move filter's parts (moves played, legal or previous; from,
    // to, capture, promotion, piece, comment), in the order CQL 6.2 tests them
    pub(super) fn eval_move(&mut self, mf: &'a MoveFilter, at: Loc) -> Eval {
        if at == Loc::Header {
            return Ok(None);
        }
        let origin = match mf.source {
            MoveSource::Previous => match self.parent(at) {
                Some(p) => p,
                None => return Ok(None),
            },
            _ => at,
        };
        let mut sets = [None, None, None];
        for (k, part) in [mf.from, mf.to, mf.capture].into_iter().enumerate() {
            if let Some(id) = part {
                sets[k] = Some(self.set_value(id, origin)?.unwrap_or(Bitboard::EMPTY));
            }
        }
        let [from_set, to_set, capture_set] = sets;
        let Some(mover) = self.pos(origin).map(|p| p.turn()) else { return Ok(None) };
        let mut count: i64 = 0;
        let mut from_acc = Bitboard::EMPTY;
        let mut to_acc = Bitboard::EMPTY;
        // The target filter's value after the first matching move (`MoveValue::Then`).
        let mut target: Option<Value> = None;
        // `also`: the other view of a castling that fits the filter too (its squares join
        // the values, the move is counted once).
        let mut record = |f: Option<&MoveFacts>, also: Option<MoveFacts>| {
            count += 1;
            for f in f.into_iter().chain(also.as_ref()) {
                from_acc.add(f.from);
                to_acc.add(f.to);
            }
        };
        match mf.source {
            MoveSource::Next | MoveSource::Previous => {
                // (child location, move into it, is it the main continuation)
                let game: &'a Game = self.game;
                let mut previous: Option<(Loc, Option<Move>, bool)> = None;
                let mut kids: &'a [NodeId] = &[];
                let mut restricted_rank: Option<usize> = None;
                if mf.source == MoveSource::Next {
                    let only = self.only_child.take();
                    let Loc::Node(n) = at else { return Ok(None) };
                    kids = self.children(n);
                    if let Some(c) = only {
                        let k = kids.iter().position(|&k| k == c);
                        // Keep the child's rank: `primary` still means "the first continuation".
                        if let Some(k) = k {
                            restricted_rank = Some(k);
                            kids = &kids[k..=k];
                        } else {
                            kids = &[];
                        }
                    }
                } else {
                    let played: Option<Option<Move>> = match at {
                        Loc::Node(n) => match &game.node(n).played {
                            Some(Played::Move(m)) => Some(Some(*m)),
                            Some(Played::Null) => Some(None),
                            None => None,
                        },
                        Loc::Temp(i) => self.temps.get(i as usize).map(|t| Some(t.played)),
                        Loc::Header => None,
                    };
                    let Some(played) = played else { return Ok(None) };
                    let main = match at {
                        Loc::Node(n) => game.node(n).parent.is_none_or(|p| game.node(p).children.first() == Some(&n)),
                        _ => false,
                    };
                    previous = Some((at, played, main));
                }
                let next_moves = kids.iter().enumerate().filter_map(|(i, &c)| match &game.node(c).played {
                    Some(Played::Move(m)) => Some((Loc::Node(c), Some(*m), restricted_rank.unwrap_or(i) == 0)),
                    Some(Played::Null) => Some((Loc::Node(c), None, restricted_rank.unwrap_or(i) == 0)),
                    None => None,
                });
                for (child, m, main) in previous.into_iter().chain(next_moves) {
                    match mf.line {
                        LineChoice::Primary if !main => continue,
                        LineChoice::Secondary if main => continue,
                        _ => {}
                    }
                    let (f, via_rook, also) = match m {
                        Some(m) => {
                            let Some(f) = moves::facts(&m, mover) else { continue };
                            let rook_first = self.rook_view == Some(child);
                            match moves::matching_view(mf, &f, rook_first, from_set, to_set, capture_set) {
                                Some((v, r)) => {
                                    let also = if self.one_view == Some(child) {
                                        None
                                    } else {
                                        moves::other_view(mf, &f, r, from_set, to_set, capture_set)
                                    };
                                    (Some(v), r, also)
                                }
                                None => continue,
                            }
                        }
                        None => {
                            if !moves::shape_matches(mf, None, from_set, to_set, capture_set) {
                                continue;
                            }
                            (None, false, None)
                        }
                    };
                    if let Some(t) = mf.then {
                        let saved = (self.rook_view, self.one_view);
                        if via_rook {
                            self.rook_view = Some(child);
                        }
                        if f.as_ref().is_some_and(|f| f.rook.is_some() || via_rook) && also.is_none() {
                            self.one_view = Some(child);
                        }
                        let v = self.eval(t, child, false);
                        (self.rook_view, self.one_view) = saved;
                        let Some(v) = v? else { continue };
                        if target.is_none() {
                            target = self.as_set(&v, child).map(Value::Set).or(Some(v));
                        }
                    }
                    record(f.as_ref(), also);
                }
            }
            MoveSource::Legal | MoveSource::Pseudolegal => {
                let Some(pos) = self.pos(origin).cloned() else { return Ok(None) };
                let list =
                    if mf.source == MoveSource::Legal { pos.legal_moves() } else { moves::pseudo_legal_moves(&pos) };
                let ids = self.ids(origin);
                for m in list {
                    // CQL 6.2 counts a promotion once per from/to pair, whatever the piece
                    // (observed: `countmoves legal ――` is 1 when only one pawn can promote).
                    if mf.value == MoveValue::Count
                        && mf.promote == 0
                        && m.promotion().is_some_and(|r| r != shakmaty::Role::Queen)
                    {
                        continue;
                    }
                    let Some(f) = moves::facts(&m, mover) else { continue };
                    let Some((f, _)) = moves::matching_view(mf, &f, false, from_set, to_set, capture_set) else {
                        continue;
                    };
                    if let Some(t) = mf.then {
                        let mut after = pos.clone();
                        after.play_unchecked(m);
                        self.temps.push(Temp {
                            pos: after,
                            ids: crate::pgn::moved_ids(&ids, &m, mover),
                            parent: origin,
                            played: m,
                        });
                        let idx = (self.temps.len() - 1) as u32;
                        let v = self.eval(t, Loc::Temp(idx), false);
                        let v = v.map(|v| v.map(|v| self.as_set(&v, Loc::Temp(idx)).map(Value::Set).unwrap_or(v)));
                        self.temps.pop();
                        let Some(v) = v? else { continue };
                        if target.is_none() {
                            target = Some(v);
                        }
                    }
                    record(Some(&f), None);
                }
            }
        }
        if mf.value == MoveValue::Count {
            return Ok(Some(Value::Number(count)));
        }
        if mf.value == MoveValue::Then && count > 0 {
            if let Some(v) = target.filter(|v| !matches!(v, Value::None)) {
                return Ok(Some(v));
            }
        }
        if count == 0 {
            return Ok(None);
        }
        if mf.kind == MoveKind::Null {
            return Ok(Some(Value::None));
        }
        Ok(Some(Value::Set(if mf.value == MoveValue::From { from_acc } else { to_acc })))
    }
}
