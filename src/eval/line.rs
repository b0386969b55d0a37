//! `line` sequence matching over consecutive positions of the game tree.
//!
//! Takes in: a `Line` filter's parameters and its constituents (`SeqConcat`, `SeqRepeat`,
//! `SeqAlt` and plain filters). Gives out: the number of positions of the longest match
//! (or its last position). Must never: loop forever on constituents that match no
//! position (`(A*)*`), or recurse without bound.

use super::engine::{Ctx, Eval, Loc, DEPTH_LIMIT};
use super::value::Value;
use super::Error;
use crate::ir::{Filter, FilterId, LineParams, MoveSource};
use crate::ir::{GameTreeFilter, LogicFilter};
use crate::pgn::NodeId;
use shakmaty::Position;

/// A partial match: the last position consumed (`None`: none yet), how many were, and
/// whether that position was reached by a path move (it is then the next one to test, rather
/// than its continuations).
type State = (Option<NodeId>, u32, bool);

impl<'a> Ctx<'a> {
    /// Evaluate `line` at a position.
    pub(super) fn line(&mut self, id: FilterId, params: LineParams, body: FilterId, at: Loc) -> Eval {
        let Loc::Node(start) = at else { return Ok(None) };
        // `nestban`: no new line of this filter starts at a position an earlier match of it
        // in this game went through (CQL 6.2 `SequenceBase::match_position`).
        if params.nest_ban && self.path_covered.contains(&(id, start)) {
            return Ok(None);
        }
        let finals = self.seq_states(body, vec![(None, 0, false)], &params, start)?;
        // A match must consume at least one position: CQL 6.2 records a success only when a
        // constituent matches a position (`FutureNode::compute`), so `line --> check?` at a
        // position without check does not match.
        let Some(&(last, count, _)) = finals.iter().filter(|s| s.0.is_some()).max_by_key(|s| s.1) else {
            return Ok(None);
        };
        // CQL 6.2 (`SequenceBase::match_position`): a line with a range fails when the
        // length of its match lies outside it. A bound written as a variable is read now; an
        // unbound one fails the line (CQL 6.2 stops with an error there).
        if !self.in_written_range(params.range, params.range_variables, count as i64) {
            return Ok(None);
        }
        if let Some(finish) = last.filter(|_| !params.quiet && self.writes_notes()) {
            self.line_notes(start, finish, &params);
        }
        if let Some(finish) = last.filter(|_| params.nest_ban) {
            self.ban_line_positions(id, start, finish, &params);
        }
        if params.last_position {
            return Ok(Some(Value::Position(last.unwrap_or(start))));
        }
        Ok(Some(Value::Number(count as i64)))
    }

    /// Ban the positions of a matched `nestban` line from starting it again
    /// (`SequenceBase::nestRegisterPositions`): every position from its first to its last,
    /// with `singlecolor` only those with the first one's side to move.
    fn ban_line_positions(&mut self, id: FilterId, start: NodeId, finish: NodeId, params: &LineParams) {
        let (shallow, deep) = if params.backward { (finish, start) } else { (start, finish) };
        let side = self.game.node(shallow).pos.turn();
        let mut cur = deep;
        loop {
            if !params.single_color || self.game.node(cur).pos.turn() == side {
                self.path_covered.insert((id, cur));
            }
            if cur == shallow {
                break;
            }
            match self.game.node(cur).parent {
                Some(p) => cur = p,
                None => break,
            }
        }
    }

    /// The comments CQL 6.2 writes for a line that matched (`SequenceBase::notate`): at its
    /// last position `End line of length L that starts at …`, at its first `Start line that
    /// ends at …`. L counts the positions from first to last, both included (in moves of
    /// one side with `singlecolor`).
    fn line_notes(&mut self, start: NodeId, finish: NodeId, params: &LineParams) {
        let ply = |n: NodeId| i64::from(self.game.node(n).ply);
        let mut length = ply(finish) - ply(start);
        if params.backward {
            length = -length;
        }
        length += 1;
        if params.single_color {
            length = (length + 1) / 2;
        }
        let end = format!("End line of length {length} that starts at {}", self.position_text(start));
        self.out.comments.push((finish, end));
        let begin = format!("Start line that ends at {}", self.position_text(finish));
        self.out.comments.push((start, begin));
    }

    /// The positions a line may consume next after `state`.
    fn successors(&self, state: State, params: &LineParams, start: NodeId, out: &mut Vec<NodeId>) {
        let Some(last) = state.0 else {
            out.push(start);
            return;
        };
        if state.2 {
            out.push(last);
            return;
        }
        let step = |n: NodeId, out: &mut Vec<NodeId>| {
            if params.backward {
                out.extend(self.game.node(n).parent);
            } else {
                let kids = self.children(n);
                if params.primary {
                    out.extend(kids.first().copied());
                } else if params.secondary {
                    out.extend(kids.iter().skip(1).copied());
                } else {
                    out.extend(kids.iter().copied());
                }
            }
        };
        if params.single_color {
            let mut mid = Vec::new();
            step(last, &mut mid);
            for m in mid {
                step(m, out);
            }
        } else {
            step(last, out);
        }
    }

    /// Is this path constituent a move (`move next`, alone or together with conditions on the
    /// position it starts from and `///` comments)?
    pub(super) fn is_path_move(&self, item: FilterId) -> bool {
        match self.ir.get(item) {
            Filter::Move(mf) => mf.source == MoveSource::Next,
            Filter::Logic(LogicFilter::And(v)) => v.iter().any(|&l| self.is_path_move(l)),
            _ => false,
        }
    }

    fn seq_states(
        &mut self,
        item: FilterId,
        states: Vec<State>,
        params: &LineParams,
        start: NodeId,
    ) -> Result<Vec<State>, Error> {
        if states.is_empty() {
            return Ok(states);
        }
        if self.depth >= DEPTH_LIMIT {
            return Err(Error::abandoned("line constituents nested too deeply"));
        }
        self.depth += 1;
        let r = self.seq_states_inner(item, states, params, start);
        self.depth -= 1;
        r
    }

    fn seq_states_inner(
        &mut self,
        item: FilterId,
        states: Vec<State>,
        params: &LineParams,
        start: NodeId,
    ) -> Result<Vec<State>, Error> {
        let ir = self.ir;
        let mut out: Vec<State> = Vec::new();
        match ir.get(item) {
            Filter::GameTree(GameTreeFilter::SeqConcat(items)) => {
                let mut cur = states;
                for &i in items {
                    cur = self.seq_states(i, cur, params, start)?;
                    if cur.is_empty() {
                        break;
                    }
                }
                out = cur;
            }
            Filter::GameTree(GameTreeFilter::SeqAlt(alts)) => {
                for &a in alts {
                    let r = self.seq_states(a, states.clone(), params, start)?;
                    out.extend(r);
                }
            }
            Filter::GameTree(GameTreeFilter::SeqRepeat { body, min, max }) => {
                let cap = self.game.nodes.len() as u32 + 1;
                if *min == 0 {
                    out.extend(states.iter().copied());
                }
                let mut frontier = states;
                let mut k: u32 = 0;
                // States already yielded: once the minimum is reached, a state met again (a
                // body that can match no position, `(k*)*`) leads nowhere new, so the
                // repetition stops at the fixpoint instead of running to the cap.
                let mut yielded: std::collections::BTreeSet<State> = out.iter().copied().collect();
                while k < *max && k <= cap {
                    k += 1;
                    frontier = self.seq_states(*body, frontier, params, start)?;
                    // Each state of the frontier is sorted, looked up and kept: a repetition
                    // costs what its states cost, not one step.
                    self.count_visits(frontier.len() + yielded.len() / 64)?;
                    frontier.sort_unstable();
                    frontier.dedup();
                    if k >= *min {
                        frontier.retain(|s| yielded.insert(*s));
                        out.extend(frontier.iter().copied());
                    }
                    if frontier.is_empty() {
                        break;
                    }
                }
            }
            _ => {
                let path_move = params.follow_moves && self.is_path_move(item);
                let mut next = Vec::new();
                let mut kids = Vec::new();
                for state in states {
                    next.clear();
                    self.successors(state, params, start, &mut next);
                    for &n in &next {
                        if !path_move {
                            if self.test(item, Loc::Node(n))? {
                                out.push((Some(n), state.1 + 1, false));
                            }
                            continue;
                        }
                        // A path move: try each continuation on its own and go on along
                        // the one whose move matched.
                        kids.clear();
                        self.successors((Some(n), 0, false), params, start, &mut kids);
                        for &c in &kids {
                            self.only_child = Some(c);
                            let ok = self.test(item, Loc::Node(n));
                            self.only_child = None;
                            if ok? {
                                out.push((Some(c), state.1 + 1, true));
                            }
                        }
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }
}
