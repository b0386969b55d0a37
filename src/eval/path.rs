//! CQL 6.2 `path` (`⊢`): chains of moves of chosen pieces through the game tree.
//!
//! Takes in: a `Path` filter's parameters, its focus (a set of squares turned into piece
//! identities at the start), its optional `max`/`min` objective and its constituents
//! (`SeqConcat`, `SeqRepeat`, `SeqAlt`, move constituents and plain filters). Gives out: the
//! value of the best path found from the current position (its number of focused moves, the
//! objective's value, or its last position), keeping the output (comments …) of that path
//! only. Must never: loop forever on constituents that consume no move (`(A*)*`), or
//! recurse without bound.
//!
//! The search is depth first, in game-tree order, so that variables assigned by one
//! constituent are seen by the later constituents of the same path (`♟――=△ T=typename to
//! ♙――=T`). A move constituent consumes one move of the focused pieces: moves of other
//! pieces before it are skipped (and counted by `pathcountunfocused`); a plain constituent
//! is tested at the position reached and consumes nothing.

use crate::ir::GameTreeFilter;
use shakmaty::{Move, Position};

use super::engine::{Ctx, Loc, Out, PathNow};
use super::moves;
use super::value::Value;
use super::Error;
use crate::ir::cost::PathPrecheck;
use crate::ir::{Filter, FilterId, LineChoice, MoveSource, MoveValue, PathParams, PathStatus};
use crate::pgn::{NodeId, PieceId, Played};

/// Deepest chain of pending constituents a path search may build (about three per move
/// consumed), well within a worker thread's stack.
const PATH_FRAMES_LIMIT: u32 = 3_000;

/// A point reached by a partial path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Reach {
    node: NodeId,
    count: u32,
    unfocused: u32,
}

/// The focused piece identities.
#[derive(Clone, Copy, Debug, Default)]
struct Focus {
    ids: [u64; 4],
    capture: bool,
}

impl Focus {
    fn add(&mut self, id: PieceId) {
        if id != 0 {
            self.ids[(id / 64) as usize] |= 1 << (id % 64);
        }
    }
    fn has(&self, id: PieceId) -> bool {
        id != 0 && self.ids[(id / 64) as usize] & (1 << (id % 64)) != 0
    }
}

/// Work pending after the constituent being matched.
#[derive(Clone, Copy)]
enum Work<'a> {
    /// The remaining constituents of a list.
    Items(&'a [FilterId]),
    /// Further rounds of a repetition: `done` rounds are complete, the last one began at
    /// `began`.
    Repeat { body: FilterId, min: u32, max: u32, done: u32, began: Reach },
}

/// A stack of pending work, one frame per enclosing constituent.
struct Cont<'c, 'a> {
    work: Work<'a>,
    next: Option<&'c Cont<'c, 'a>>,
}

/// A complete path: where it ended, its score and the output it wrote.
struct Final {
    reach: Reach,
    score: i64,
    out: Out,
}

/// What the comments of a best path say (see [`Ctx::path_notes`]).
struct PathNotes<'t> {
    params: PathParams,
    title: Option<&'t str>,
    focus: Option<&'t Focus>,
    /// The length of the best path (its focused moves).
    count: u32,
    /// The best path's value under `max`/`min`.
    max: Option<i64>,
}

/// One path search from one start position.
struct Search {
    params: PathParams,
    focus: Option<Focus>,
    best: Option<FilterId>,
    start: NodeId,
    mark: super::engine::Mark,
    finals: Vec<Final>,
    /// Score and end of the best complete path so far (the first of equal ones).
    best_so_far: Option<(i64, NodeId)>,
    frames: u32,
    done: bool,
}

impl<'a> Ctx<'a> {
    /// Evaluate `path` at a position.
    pub(super) fn path(
        &mut self,
        id: FilterId,
        (params, title): (PathParams, Option<&str>),
        focus: Option<FilterId>,
        best: Option<FilterId>,
        body: FilterId,
        at: Loc,
    ) -> Result<Option<Value>, Error> {
        let Loc::Node(start) = at else { return Ok(None) };
        let focus = match focus {
            None => None,
            Some(f) => {
                let squares = self.path_focus_squares(f, at)?;
                let ids = self.ids(at);
                let mut set = Focus { capture: params.focus_capture, ..Focus::default() };
                for sq in squares {
                    set.add(ids.at(sq));
                }
                Some(set)
            }
        };
        if params.nest_ban && self.path_covered.contains(&(id, start)) {
            return Ok(None);
        }
        let outer = self.path_now;
        let mark = self.out.mark();
        let mut s =
            Search { params, focus, best, start, mark, finals: Vec::new(), best_so_far: None, frames: 0, done: false };
        let begin = Reach { node: start, count: 0, unfocused: 0 };
        let r = self.path_step(&mut s, body, None, begin);
        self.out.rollback(mark);
        r?;
        let top = s.finals.iter().map(|f| f.score).max();
        // CQL 6.2 (`PathNode::isSuccess`): with a range, the value (the length, or the
        // best `max` value) must lie in it.
        let Some(top) = top.filter(|&t| self.in_written_range(params.range, params.range_variables, t)) else {
            self.path_now = outer;
            return Ok(None);
        };
        let mut chosen: Option<Reach> = None;
        let mut alternatives: Vec<Reach> = Vec::new();
        for f in s.finals.into_iter().filter(|f| f.score == top) {
            let first = chosen.is_none();
            if first || params.keep_all_best {
                self.out.append(f.out);
            }
            if first {
                chosen = Some(f.reach);
            } else {
                alternatives.push(f.reach);
            }
            if !params.keep_all_best {
                break;
            }
        }
        let Some(reach) = chosen else { return Ok(None) };
        let notes = PathNotes { params, title, focus: focus.as_ref(), count: reach.count, max: best.map(|_| top) };
        self.path_notes(start, reach.node, &notes);
        for other in alternatives {
            self.path_notes(start, other.node, &notes);
            if self.writes_notes() {
                self.out.comments.push((other.node, "alternative".into()));
            }
        }
        if params.nest_ban {
            // Ban the positions from the start up to the one before the end from starting
            // this path again (CQL 6.2 `PathNode::nestRegisterPositions` registers the
            // parent of each position after the start).
            let mut cur = reach.node;
            while cur != start {
                let Some(parent) = self.game.node(cur).parent else { break };
                self.path_covered.insert((id, parent));
                cur = parent;
            }
        }
        self.path_now = Some(PathNow {
            start,
            last: reach.node,
            best: Some(reach.node),
            count: reach.count,
            unfocused: reach.unfocused,
        });
        if params.last_position {
            return Ok(Some(Value::Position(reach.node)));
        }
        Ok(Some(Value::Number(top)))
    }

    /// The comments CQL 6.2 writes for the best path from `start` to `finish`
    /// (`PathNode::notate`): the `title` at the start; with `piecepath`, `Focus path: …` (the
    /// route of the focused pieces) at the start; with `verbose`, `move i of n` (after the
    /// title) at the position after each counted move; unless `quiet`, `End path of length
    /// n that starts at …` (with ` Max value: v` under `max`/`min`) at the end and `Start
    /// path that ends at …` at the start.
    fn path_notes(&mut self, start: NodeId, finish: NodeId, notes: &PathNotes<'_>) {
        if let Some(title) = notes.title {
            self.out.comments.push((start, title.to_string()));
        }
        if let (true, Some(focus)) = (notes.params.piece_path, notes.focus) {
            let route = self.piece_route(start, finish, focus);
            if !route.is_empty() {
                self.out.comments.push((start, format!("Focus path: {route}")));
            }
        }
        if notes.params.verbose {
            let mut line = Vec::new();
            let mut cur = finish;
            while cur != start {
                let Some(parent) = self.game.node(cur).parent else { break };
                line.push((parent, cur));
                cur = parent;
            }
            let mut i = 0;
            for &(from, to) in line.iter().rev() {
                if self.focused_move(from, to, notes.focus) {
                    i += 1;
                    let prefix = notes.title.map_or(String::new(), |t| format!("{t}: "));
                    self.out.comments.push((to, format!("{prefix}move {i} of {}", notes.count)));
                }
            }
        }
        if notes.params.quiet || !self.writes_notes() {
            return;
        }
        let mut end = format!("End path of length {} that starts at {}", notes.count, self.position_text(start));
        if let Some(max) = notes.max {
            end.push_str(&format!(" Max value: {max}"));
        }
        self.out.comments.push((finish, end));
        let begin = format!("Start path that ends at {}", self.position_text(finish));
        self.out.comments.push((start, begin));
    }

    /// Evaluate a path status filter.
    pub(super) fn path_status(&self, what: PathStatus) -> Option<Value> {
        let now = self.path_now?;
        Some(match what {
            PathStatus::Count => Value::Number(now.count as i64),
            PathStatus::CountUnfocused => Value::Number(now.unfocused as i64),
            PathStatus::Start => Value::Position(now.start),
            PathStatus::LastPosition => Value::Position(now.best?),
        })
    }

    /// The squares of the focus set at the start (a piece value counts as its square).
    fn path_focus_squares(&mut self, f: FilterId, at: Loc) -> Result<shakmaty::Bitboard, Error> {
        Ok(self.eval(f, at, true)?.and_then(|v| self.as_set(&v, at)).unwrap_or_default())
    }

    /// Match one constituent from `r`, then the pending work `next`.
    fn path_step(
        &mut self,
        s: &mut Search,
        item: FilterId,
        next: Option<&Cont<'_, 'a>>,
        r: Reach,
    ) -> Result<(), Error> {
        if s.done {
            return Ok(());
        }
        s.frames += 1;
        if s.frames > PATH_FRAMES_LIMIT {
            return Err(Error::abandoned("path too long"));
        }
        let res = self.path_step_inner(s, item, next, r);
        s.frames -= 1;
        res
    }

    fn path_step_inner(
        &mut self,
        s: &mut Search,
        item: FilterId,
        next: Option<&Cont<'_, 'a>>,
        r: Reach,
    ) -> Result<(), Error> {
        let ir = self.ir;
        match ir.get(item) {
            Filter::GameTree(GameTreeFilter::SeqConcat(items)) => self.path_items(s, items, next, r),
            Filter::GameTree(GameTreeFilter::SeqAlt(alts)) => {
                for &a in alts {
                    let m = self.out.mark();
                    let res = self.path_step(s, a, next, r);
                    self.out.rollback(m);
                    res?;
                }
                Ok(())
            }
            Filter::GameTree(GameTreeFilter::SeqRepeat { body, min, max }) => {
                // Round 0 "began" nowhere, so that it is never taken for a round without progress.
                let began = Reach { node: r.node, count: u32::MAX, unfocused: 0 };
                self.path_repeat(s, *body, *min, *max, 0, began, next, r)
            }
            _ if self.is_path_move(item) => self.path_move(s, item, next, r),
            _ => {
                self.path_now = Some(self.now(s, r));
                let m = self.out.mark();
                let res = match self.test(item, Loc::Node(r.node)) {
                    Ok(true) => self.path_continue(s, next, r),
                    Ok(false) => Ok(()),
                    Err(e) => Err(e),
                };
                self.out.rollback(m);
                res
            }
        }
    }

    fn path_items(
        &mut self,
        s: &mut Search,
        items: &'a [FilterId],
        next: Option<&Cont<'_, 'a>>,
        r: Reach,
    ) -> Result<(), Error> {
        match items.split_first() {
            None => self.path_continue(s, next, r),
            Some((&first, rest)) => {
                let c = Cont { work: Work::Items(rest), next };
                self.path_step(s, first, Some(&c), r)
            }
        }
    }

    /// Go on with the pending work (or record a complete path).
    fn path_continue(&mut self, s: &mut Search, next: Option<&Cont<'_, 'a>>, r: Reach) -> Result<(), Error> {
        let Some(c) = next else { return self.path_final(s, r) };
        match c.work {
            Work::Items(items) => self.path_items(s, items, c.next, r),
            Work::Repeat { body, min, max, done, began } => self.path_repeat(s, body, min, max, done, began, c.next, r),
        }
    }

    /// A repetition with `done` rounds complete: try one more round (greedy), then stop.
    #[allow(clippy::too_many_arguments)]
    fn path_repeat(
        &mut self,
        s: &mut Search,
        body: FilterId,
        min: u32,
        max: u32,
        done: u32,
        began: Reach,
        next: Option<&Cont<'_, 'a>>,
        r: Reach,
    ) -> Result<(), Error> {
        if done > 0 && began == r {
            // The last round consumed nothing: more rounds would not either.
            return self.path_continue(s, next, r);
        }
        if done < max {
            let c = Cont { work: Work::Repeat { body, min, max, done: done + 1, began: r }, next };
            let m = self.out.mark();
            let res = self.path_step(s, body, Some(&c), r);
            self.out.rollback(m);
            res?;
        }
        if done >= min {
            self.path_continue(s, next, r)?;
        }
        Ok(())
    }

    /// A move constituent: each move of the focus reachable from `r` (skipping moves of
    /// other pieces) that the constituent accepts.
    fn path_move(
        &mut self,
        s: &mut Search,
        item: FilterId,
        next: Option<&Cont<'_, 'a>>,
        r: Reach,
    ) -> Result<(), Error> {
        // (position, moves skipped to reach it), in game-tree order: the path's own position
        // first, then the positions reached by skipping moves of other pieces (a vector only
        // allocates when there are some: this runs for every move of every path tried).
        let mut here = Some((r.node, 0));
        let mut todo: Vec<(NodeId, u32)> = Vec::new();
        while let Some((n, skipped)) = here.take().or_else(|| todo.pop()) {
            if s.done {
                break;
            }
            let kids = self.path_children(n, &s.params);
            let mut later: Vec<(NodeId, u32)> = Vec::new();
            for &c in kids {
                if !self.focused_move(n, c, s.focus.as_ref()) {
                    // Moves of other pieces are skipped only once the path has begun: its
                    // first move is a move of the focus.
                    if r.count > 0 {
                        later.push((c, skipped + 1));
                    }
                    continue;
                }
                let reach = Reach { node: c, count: r.count + 1, unfocused: r.unfocused + skipped };
                self.path_now = Some(self.now(s, reach));
                let m = self.out.mark();
                let ok = match self.quick_move_verdict(item, n, c) {
                    Ok(Some(ok)) => Ok(ok),
                    Ok(None) => {
                        self.only_child = Some(c);
                        let saved = (self.rook_view, self.one_view);
                        if self.follows_rook(n, c, s.focus.as_ref()) {
                            self.rook_view = Some(Loc::Node(c));
                            self.one_view = Some(Loc::Node(c));
                        }
                        let ok = self.test(item, Loc::Node(n));
                        (self.rook_view, self.one_view) = saved;
                        self.only_child = None;
                        ok
                    }
                    Err(e) => Err(e),
                };
                let res = match ok {
                    Ok(true) => self.path_continue(s, next, reach),
                    Ok(false) => Ok(()),
                    Err(e) => Err(e),
                };
                self.out.rollback(m);
                res?;
            }
            todo.extend(later.into_iter().rev());
        }
        Ok(())
    }

    /// Does the move constituent `item` accept the move from `n` into its child `c`, when
    /// that can be told from the move alone? The same answer as testing it at `n` with
    /// `only_child` set to `c` (the move filter then looks at that one move, see
    /// `eval_move`), without building its value: a move filter whose line choice, kind or
    /// promotion rules the move out fails (its from/to/capture sets have no effects, so
    /// leaving them unevaluated changes nothing); one with no `then` matches when the move
    /// (or, for castling, its rook's move) fits its sets. `None` when the general
    /// evaluation is needed: another constituent, a null move, sets with effects, or a
    /// `then` filter to run on a move that fits so far. This runs for every move of every
    /// path tried.
    fn quick_move_verdict(&mut self, item: FilterId, n: NodeId, c: NodeId) -> Result<Option<bool>, Error> {
        if !self.q.planned() {
            return Ok(None);
        }
        let ir = self.ir;
        let Filter::Move(mf) = ir.get(item) else { return Ok(None) };
        // A count matches even when it is 0.
        if mf.source != MoveSource::Next || mf.value == MoveValue::Count {
            return Ok(None);
        }
        let parts = [mf.from, mf.to, mf.capture];
        if !parts.iter().flatten().all(|&p| self.q.is_pure(p)) {
            return Ok(None);
        }
        let Some(Played::Move(m)) = &self.game.node(c).played else { return Ok(None) };
        // The step the general evaluation counts for the move filter itself.
        self.count_step()?;
        let main = self.children(n).first() == Some(&c);
        let line_ok = match mf.line {
            LineChoice::Primary => main,
            LineChoice::Secondary => !main,
            LineChoice::Any => true,
        };
        let mover = self.game.node(n).pos.turn();
        let Some(facts) = moves::facts(m, mover).filter(|_| line_ok) else { return Ok(Some(false)) };
        // Without sets only the kind and the promotion are compared: a move that fails them
        // fails whatever the sets hold.
        if moves::matching_view(mf, &facts, false, None, None, None).is_none() {
            return Ok(Some(false));
        }
        if mf.then.is_some() {
            return Ok(None);
        }
        let mut sets = [None, None, None];
        for (k, part) in parts.into_iter().enumerate() {
            if let Some(id) = part {
                sets[k] = Some(self.set_value(id, Loc::Node(n))?.unwrap_or_default());
            }
        }
        let [from, to, capture] = sets;
        Ok(Some(moves::matching_view(mf, &facts, false, from, to, capture).is_some()))
    }

    /// Record a complete path, scored by the `max`/`min` objective (a path whose objective
    /// does not match is dropped) or by its number of focused moves.
    fn path_final(&mut self, s: &mut Search, r: Reach) -> Result<(), Error> {
        // A path that has made no move (ends where it started) does not match: CQL 6.2
        // (`PathNode::compute`) allows no match at the start, so `path k` never matches.
        if r.node == s.start {
            return Ok(());
        }
        self.path_now = Some(self.now(s, r));
        let score = match s.best {
            None => r.count as i64,
            Some(b) => match self.eval(b, Loc::Node(r.node), true)? {
                None => return Ok(()),
                Some(v) => match self.as_number(&v, Loc::Node(r.node)) {
                    Some(x) => x,
                    None => r.count as i64,
                },
            },
        };
        let out = self.out.since(s.mark);
        let better = match s.best_so_far {
            None => true,
            Some((b, _)) => score > b,
        };
        if better {
            s.best_so_far = Some((score, r.node));
        }
        s.finals.push(Final { reach: r, score, out });
        if s.params.first_match {
            s.done = true;
        }
        Ok(())
    }

    fn now(&self, s: &Search, r: Reach) -> PathNow {
        let best = s.best_so_far.map(|(_, node)| node);
        PathNow { start: s.start, last: r.node, best, count: r.count, unfocused: r.unfocused }
    }

    /// Is there, below `at`, a chain of continuations whose moves fit the first move
    /// constituents of the path `check` names (see [`crate::ir::cost::PathPrecheck`])? When
    /// not, the path cannot match. Only the moves' kinds, promotions and checked square sets
    /// are compared (castling always fits: it may be seen as the rook's move); nothing is
    /// written.
    pub(super) fn path_may_match(&mut self, check: &PathPrecheck, at: Loc) -> Result<bool, Error> {
        let Loc::Node(start) = at else { return Ok(true) };
        // A mate (or stalemate) the path must reach, in a game that has none.
        for &fact in &check.somewhere {
            if !self.somewhere_in_game(fact)? {
                return Ok(false);
            }
        }
        let Filter::GameTree(GameTreeFilter::Path { params, focus, .. }) = self.ir.get(check.path) else {
            return Ok(true);
        };
        let focus = match focus {
            None => None,
            Some(f) => {
                let squares = self.path_focus_squares(*f, at)?;
                let ids = self.ids(at);
                let mut set = Focus { capture: params.focus_capture, ..Focus::default() };
                for sq in squares {
                    set.add(ids.at(sq));
                }
                Some(set)
            }
        };
        self.chain_from(check, params, focus.as_ref(), start, 0)
    }

    /// [`Self::path_may_match`] from node `n`, constituent `step` on.
    fn chain_from(
        &mut self,
        check: &PathPrecheck,
        params: &PathParams,
        focus: Option<&Focus>,
        n: NodeId,
        step: usize,
    ) -> Result<bool, Error> {
        let Some(shape) = check.steps.get(step) else { return Ok(true) };
        let Filter::Move(mf) = self.ir.get(shape.filter) else { return Ok(true) };
        let here = Loc::Node(n);
        let mut sets = [None, None, None];
        for (k, part) in [shape.from, shape.to, shape.capture].into_iter().enumerate() {
            if let Some(id) = part {
                let value = self.eval(id, here, true)?;
                sets[k] = Some(value.and_then(|v| self.as_set(&v, here)).unwrap_or_default());
            }
        }
        let [from, to, capture] = sets;
        let mover = self.game.node(n).pos.turn();
        for &c in self.path_children(n, params) {
            if !self.focused_move(n, c, focus) {
                continue;
            }
            let fits = match &self.game.node(c).played {
                Some(Played::Move(m)) => match moves::facts(m, mover) {
                    Some(f) if f.rook.is_some() => true,
                    Some(f) => moves::shape_matches(mf, Some(&f), from, to, capture),
                    None => false,
                },
                Some(Played::Null) => moves::shape_matches(mf, None, from, to, capture),
                None => true,
            };
            let fits = fits && self.then_parts_hold(shape, c)?;
            if fits && self.chain_from(check, params, focus, c, step + 1)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Do the checked parts of a move constituent's `then` filter hold at `c`, the position
    /// after the move? A castling is let through (its `then` may see it as the rook's move).
    fn then_parts_hold(&mut self, shape: &crate::ir::cost::StepShape, c: NodeId) -> Result<bool, Error> {
        if shape.then.is_empty() || matches!(self.game.node(c).played, Some(Played::Move(Move::Castle { .. }))) {
            return Ok(true);
        }
        for &part in &shape.then {
            if !self.test(part, Loc::Node(c))? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The continuations a path follows from a node.
    fn path_children(&self, n: NodeId, params: &PathParams) -> &'a [NodeId] {
        let kids = self.children(n);
        if params.primary {
            &kids[..kids.len().min(1)]
        } else if params.secondary {
            kids.get(1..).unwrap_or(&[])
        } else {
            kids
        }
    }

    /// Is the move from `n` into its child `c` a move of the focus (always, without focus)?
    /// Castling is a move of the rook too; with `focus capture`, capturing a focused piece is
    /// a focused move.
    fn focused_move(&self, n: NodeId, c: NodeId, focus: Option<&Focus>) -> bool {
        let Some(focus) = focus else { return true };
        let ids = self.game.node(n).ids;
        let Some(Played::Move(m)) = &self.game.node(c).played else { return false };
        match *m {
            Move::Normal { from, to, capture, .. } => {
                focus.has(ids.at(from)) || (focus.capture && capture.is_some() && focus.has(ids.at(to)))
            }
            Move::EnPassant { from, to } => {
                let taken = shakmaty::Square::from_coords(to.file(), from.rank());
                focus.has(ids.at(from)) || (focus.capture && focus.has(ids.at(taken)))
            }
            Move::Castle { king, rook } => focus.has(ids.at(king)) || focus.has(ids.at(rook)),
            Move::Put { .. } => false,
        }
    }

    /// Does the focus follow the rook, not the king, of a castling move from `n` into `c`?
    /// Then the move is seen as the rook's (its from/to squares are the rook's).
    fn follows_rook(&self, n: NodeId, c: NodeId, focus: Option<&Focus>) -> bool {
        let Some(focus) = focus else { return false };
        let ids = self.game.node(n).ids;
        match &self.game.node(c).played {
            Some(Played::Move(Move::Castle { king, rook })) => focus.has(ids.at(*rook)) && !focus.has(ids.at(*king)),
            _ => false,
        }
    }

    /// The route of each focused piece from `start` to `end`, as CQL 6.2's `piecepath`
    /// writes it (`PiecePathNode::pathstring`): the pieces in square order (a1, b1, … h8)
    /// as they stand at `start`, each as its letter (upper case for White, lower case for
    /// Black, `P`/`p` for pawns) and square, then `-square` each time it stands elsewhere,
    /// and `(xsquare)` where it is captured; a piece that stays put is left out.
    fn piece_route(&self, start: NodeId, end: NodeId, focus: &Focus) -> String {
        let mut chain = Vec::new();
        let mut cur = end;
        while cur != start {
            chain.push(cur);
            let Some(p) = self.game.node(cur).parent else { return String::new() };
            cur = p;
        }
        chain.reverse();
        let Some(board) = self.pos(Loc::Node(start)).map(|p| p.board().clone()) else { return String::new() };
        let ids = self.ids(Loc::Node(start));
        let mut routes: Vec<String> = Vec::new();
        for sq in board.occupied() {
            let id = ids.at(sq);
            let Some(piece) = board.piece_at(sq).filter(|_| focus.has(id)) else { continue };
            let mut route = format!("{}{sq}", piece.char());
            let mut last = sq;
            for &n in &chain {
                match self.square_of(id, Loc::Node(n)) {
                    None => {
                        route.push_str(&format!("(x{last})"));
                        break;
                    }
                    Some(now) if now != last => {
                        route.push('-');
                        route.push_str(&now.to_string());
                        last = now;
                    }
                    Some(_) => {}
                }
            }
            if route.len() > 3 {
                routes.push(route);
            }
        }
        routes.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::Focus;

    #[test]
    fn focus_sets_hold_identities() {
        let mut f = Focus::default();
        f.add(3);
        f.add(200);
        f.add(0);
        assert!(f.has(3) && f.has(200));
        assert!(!f.has(0) && !f.has(4));
    }
}
