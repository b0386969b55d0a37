//! The evaluator's side of the evaluation plan ([`super::super::plan`]): which squares an
//! iteration tries, what a `find` may skip, which iterations fail at once.
//!
//! Part of the filter interpreter ([`super`]): the plan is decided once per query in
//! src/eval/plan.rs; this file reads it while a game is evaluated.

use super::super::plan::*;
use super::*;

impl<'a> Ctx<'a> {
    /// The squares of `domain` the iteration `f` tries at `at`: all of them, or with
    /// [`Plan::Iteration`]'s `movers_only` those a move into a searched continuation
    /// starts from (the king's and the rook's square of a castling). Not narrowed while a
    /// path hands one continuation to the next move filter evaluated (which square's body
    /// takes it must not change), nor at a position that is not a game node.
    #[inline]
    pub(super) fn squares_to_try(&self, f: FilterId, domain: Bitboard, at: Loc) -> Bitboard {
        let Plan::Iteration { movers_only: true, .. } = self.q.plan(f) else { return domain };
        let Loc::Node(n) = at else { return domain };
        if self.only_child.is_some() {
            return domain;
        }
        let mut starts = Bitboard::EMPTY;
        for &c in self.children(n) {
            if let Some(crate::pgn::Played::Move(m)) = &self.game.node(c).played {
                if let shakmaty::Move::Castle { king, rook } = m {
                    starts.add(*king);
                    starts.add(*rook);
                } else if let Some(from) = m.from() {
                    starts.add(from);
                }
            }
        }
        domain & starts
    }

    /// What the `find` `f`, starting at `at`, may skip (see [`FindPlan`]): the last ply its
    /// body may hold at, and the placements as they are read now.
    pub(super) fn find_limits(&mut self, f: FilterId, at: Loc) -> Result<(Option<i64>, Placements), Error> {
        let q = self.q;
        let Plan::Find(plan) = q.plan(f) else { return Ok((None, Placements::default())) };
        let last_ply = match plan.up_to_ply {
            Some((bound, strict)) => {
                let value = self.eval(bound, at, true)?;
                value.and_then(|v| self.as_number(&v, at)).map(|b| if strict { b.saturating_sub(1) } else { b })
            }
            None => None,
        };
        let mut placements = Placements::default();
        'placements: for items in plan.placements.iter() {
            let mut squares = Bitboard::FULL;
            let mut pieces = [0; MOST_PLACED_PIECES];
            let mut count = 0u8;
            for &item in items.iter() {
                match self.ir.get(item) {
                    Filter::Sets(SetFilter::Squares(b)) => squares &= *b,
                    Filter::Variables(VariableFilter::Var(v)) => match self.get_var(*v) {
                        Some(Value::Set(b)) => squares &= *b,
                        Some(Value::Piece(id)) if (count as usize) < MOST_PLACED_PIECES => {
                            pieces[count as usize] = *id;
                            count += 1;
                        }
                        // More pieces than are kept: the body's own test decides.
                        Some(Value::Piece(_)) => continue 'placements,
                        // No set: the intersection fails everywhere.
                        _ => squares = Bitboard::EMPTY,
                    },
                    _ => continue 'placements,
                }
            }
            placements.parts[placements.len as usize] = (squares, pieces, count);
            placements.len += 1;
            placements.never |= squares.is_empty();
            // One piece in a forward search: its squares over the search, if known, may
            // already rule the placement out; otherwise they are gathered.
            let forward = matches!(
                self.ir.get(f),
                Filter::GameTree(GameTreeFilter::Find { direction: FindDirection::Forward, .. })
            );
            if let (true, 1, Loc::Node(start)) = (forward, count, at) {
                let id = pieces[0];
                let last = last_ply.unwrap_or(i64::MAX);
                match self.walked_squares(id, start, last) {
                    Some(walked) => placements.never |= (walked & squares).is_empty(),
                    None if !placements.gathered[..placements.gathered_len as usize].iter().any(|g| g.0 == id) => {
                        placements.gathered[placements.gathered_len as usize] = (id, Bitboard::EMPTY);
                        placements.gathered_len += 1;
                    }
                    None => {}
                }
            }
        }
        Ok((last_ply, placements))
    }

    /// After a forward search from `start` that walked every position up to `last_ply`
    /// (none found, or all counted), remember the squares gathered for each piece.
    pub(super) fn remember_gathered(&self, placements: &Placements, start: NodeId, last_ply: Option<i64>) {
        for &(id, squares) in &placements.gathered[..placements.gathered_len as usize] {
            self.remember_walked_squares(id, start, last_ply.unwrap_or(i64::MAX), squares);
        }
    }

    /// Do the placements (read by [`Self::find_limits`]) hold at node `n`: for each, do its
    /// pieces stand on some square of its sets there? As the evaluator works out such an
    /// intersection, a piece off the board stands on no square. The squares of the pieces
    /// being gathered are added to theirs.
    #[inline]
    pub(super) fn placements_hold(&self, placements: &mut Placements, n: NodeId) -> bool {
        for (id, squares) in &mut placements.gathered[..placements.gathered_len as usize] {
            if let Some(sq) = self.square_of(*id, Loc::Node(n)) {
                squares.add(sq);
            }
        }
        placements.parts[..placements.len as usize].iter().all(|&(squares, pieces, count)| {
            let mut left = squares;
            for &id in &pieces[..count as usize] {
                if left.is_empty() {
                    break;
                }
                left &= self.square_of(id, Loc::Node(n)).map_or(Bitboard::EMPTY, Bitboard::from);
            }
            left.any()
        })
    }

    /// Does the existential iteration `f` fail here on one of its
    /// [guards](Plan::IterationGuards), or on an empty domain, before any square is tried?
    /// `false` when it has to be evaluated the usual way.
    pub(super) fn iteration_fails_early(&mut self, f: FilterId, domain: FilterId, at: Loc) -> Result<bool, Error> {
        let q = self.q;
        let Plan::Iteration { guards, .. } = q.plan(f) else { return Ok(false) };
        // A path testing one continuation hands it to the next move filter evaluated:
        // that must be the body's own.
        if self.only_child.is_some() {
            return Ok(false);
        }
        // Nothing to try (the guards may cost more than an empty domain).
        match self.eval(domain, at, true)? {
            Some(value) if self.as_set(&value, at).is_some_and(|b| self.squares_to_try(f, b, at).any()) => {}
            _ => return Ok(true),
        }
        for &g in guards.iter() {
            if !self.test(g, at)? {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
