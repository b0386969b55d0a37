//! Evaluation of the CQL 6.2 keywords of [`crate::lang::cql6`]'s `keywords62` parser:
//! `notransform`, `currenttransform`, `similarposition`, `readfile`, `writefile`, `equal`,
//! `cql_abort`, `pathdebug`, `lastgamenumber` and `consecutivemoves` with a range.

use shakmaty::Position;

use super::super::value::Value;
use super::super::{files, Error};
use super::{Ctx, Eval, Loc};
use crate::ir::{Filter, FilterId, Keyword62Filter, VariableFilter};
use crate::pgn::{NodeId, Played};

/// What `equal` compares: a filter without a value counts as whether it matched.
#[derive(Debug, PartialEq, Eq)]
enum Any {
    Logical(bool),
    Value(Value),
}

impl<'a> Ctx<'a> {
    /// Evaluate one of this module's filters (`filter` is the node `f`).
    pub(super) fn eval_keyword62(&mut self, f: FilterId, filter: &'a Keyword62Filter, at: Loc) -> Eval {
        let _ = f;
        Ok(match filter {
            Keyword62Filter::CurrentTransform(names) => Some(Value::Str(format!("<{names}>"))),
            Keyword62Filter::SimilarPosition { file, game_number, .. } => {
                let Some(db) = self.q.similar_table(f) else {
                    return Err(Error { message: format!("internal error: similarposition: {file} was not read") });
                };
                let Some(pos) = self.pos(at) else { return Ok(None) };
                let white = pos.turn().is_white();
                let entries = db.lookup(pos.board(), pos.turn());
                if entries.is_empty() {
                    return Ok(None);
                }
                if *game_number {
                    return Ok(entries.iter().map(|e| e.game as i64).min().map(Value::Number));
                }
                if let Some(n) = self.node_of(at) {
                    for e in entries {
                        let side = if white { "wtm" } else { "btm" };
                        let mut text = format!("see {file} game: {} at move: {} {side}", e.game, e.move_number);
                        if !e.transform.is_empty() {
                            text.push(' ');
                            text.push_str(&e.transform);
                        }
                        self.out.comments.push((n, text));
                    }
                }
                Some(Value::None)
            }
            Keyword62Filter::ReadFile(name) => {
                let Some(name) = self.string_value(*name, at)? else { return Ok(None) };
                Some(Value::Str(files::read(&name, self.q.file_policy()).map_err(|message| Error { message })?))
            }
            Keyword62Filter::WriteFile(name, text) => {
                let Some(name) = self.string_value(*name, at)? else { return Ok(None) };
                let Some(text) = self.string_value(*text, at)? else { return Ok(None) };
                let run = self.q.run();
                run.files().write(&name, &text, self.q.file_policy()).map_err(|message| Error { message })?;
                Some(Value::None)
            }
            Keyword62Filter::Equal(a, b) => {
                let (x, y) = (self.any_value(*a, at)?, self.any_value(*b, at)?);
                (x == y).then_some(Value::None)
            }
            Keyword62Filter::Abort(place) => {
                self.q.run().request_abort();
                let what = if place.contains("assert") { "the run stopped" } else { "cql_abort reached" };
                return Err(Error { message: format!("{what} at {place}") });
            }
            Keyword62Filter::PathDebug => {
                let text = match self.path_now {
                    Some(now) => format!(
                        "pathdebug: path started at position {}, {} move(s) so far, last position {}, now at {}",
                        self.position_id(now.start),
                        now.count,
                        self.position_id(now.last),
                        self.node_of(at).map_or(-1, |n| self.position_id(n)),
                    ),
                    None => "pathdebug: not inside a path".to_string(),
                };
                self.out.messages.push(text);
                Some(Value::None)
            }
            Keyword62Filter::LastGameNumber => {
                let cap = self.ir.settings.gamenumber.map(|(_, hi)| hi);
                let n = self.q.run().files().last_game_number(cap).unwrap_or(self.game.number);
                Some(Value::Number(n as i64))
            }
            Keyword62Filter::ConsecutiveMoves { x, y, min, max, quiet } => {
                let (Some(x), Some(y)) = (self.position_value(*x, at)?, self.position_value(*y, at)?) else {
                    return Ok(None);
                };
                // No common move: no match (CQL 6.2 `ConsecutiveMovesNode::match_count`).
                let marks = !*quiet && self.writes_notes();
                let (n, run) = self.consecutive_moves(x, y, marks);
                let found = n > 0 && (*min..=*max).contains(&n);
                if found && marks {
                    self.keep_consecutive_run(f, run);
                }
                found.then_some(Value::Number(n))
            }
        })
    }

    /// The value `equal` compares: a set (empty when the filter does not match), a number,
    /// string or position, or whether a filter without a value matched.
    fn any_value(&mut self, f: FilterId, at: Loc) -> Result<Any, Error> {
        use crate::ir::ValueType;
        let kind = self.q.kinds().value_kind(self.ir, f).value_type();
        Ok(match (kind, self.eval(f, at, true)?) {
            (ValueType::None, v) => Any::Logical(v.is_some()),
            (ValueType::Set, v) => {
                Any::Value(Value::Set(v.and_then(|v| self.as_set(&v, at)).unwrap_or(shakmaty::Bitboard::EMPTY)))
            }
            (ValueType::Piece, Some(v)) => Any::Value(Value::Set(self.as_set(&v, at).unwrap_or_default())),
            (_, Some(v)) => Any::Value(v),
            (_, None) => Any::Logical(false),
        })
    }
}

impl<'a> Ctx<'a> {
    /// `consecutivemoves(x y)`: x and y on different branches; the moves from their
    /// latest common ancestor to each are lined up ply by ply from x and y backwards, and the value is the longest
    /// run of consecutive plies where both lines play the same move (an "echo"). With
    /// `run`, also the run itself: the positions after each of its moves on x's line and on
    /// y's, the first longest run found (CQL 6.2 `longestCommonSubstring`).
    pub(super) fn consecutive_moves(&self, x: NodeId, y: NodeId, run: bool) -> (i64, Vec<(NodeId, NodeId)>) {
        if self.is_ancestor_or_self(x, y) || self.is_ancestor_or_self(y, x) {
            return (0, Vec::new());
        }
        let Some(top) = self.lca(x, y) else { return (0, Vec::new()) };
        let path = |mut n: NodeId| {
            let mut v = Vec::new();
            while n != top {
                v.push(n);
                match self.game.node(n).parent {
                    Some(p) => n = p,
                    None => break,
                }
            }
            v.reverse();
            v
        };
        // The longest run of identical consecutive moves found anywhere on the two lines below
        // their common ancestor, at any offset (a manoeuvre repeated later in the other line counts).
        let (px, py) = (path(x), path(y));
        let same = |a: NodeId, b: NodeId| match (&self.game.node(a).played, &self.game.node(b).played) {
            // Moves are the same when the same kind of piece goes from the same square to the
            // same square: a promotion to a different piece still counts as the same move.
            (Some(Played::Move(ma)), Some(Played::Move(mb))) => {
                ma.role() == mb.role() && ma.from() == mb.from() && ma.to() == mb.to()
            }
            (Some(Played::Null), Some(Played::Null)) => true,
            _ => false,
        };
        let mut prev = vec![0i64; py.len() + 1];
        let mut cur = vec![0i64; py.len() + 1];
        let mut best = 0i64;
        let mut end = (0, 0);
        for (i, &a) in px.iter().enumerate() {
            for (j, &b) in py.iter().enumerate() {
                cur[j + 1] = if same(a, b) { prev[j] + 1 } else { 0 };
                if cur[j + 1] > best {
                    best = cur[j + 1];
                    end = (i, j);
                }
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        let mut pairs = Vec::new();
        if run && best > 0 {
            let first = (end.0 + 1 - best as usize, end.1 + 1 - best as usize);
            pairs = (0..best as usize).map(|k| (px[first.0 + k], py[first.1 + k])).collect();
        }
        (best, pairs)
    }

    /// Keep `pairs` as the run `consecutivemoves` filter `f` marks at the end of the game
    /// when it is longer than the one kept so far (CQL 6.2 `ConsecutiveMovesNode::match_count`).
    pub(super) fn keep_consecutive_run(&mut self, f: FilterId, pairs: Vec<(NodeId, NodeId)>) {
        match self.consecutive_runs.iter_mut().find(|(g, _)| *g == f) {
            Some((_, kept)) if pairs.len() > kept.len() => *kept = pairs,
            Some(_) => {}
            None => self.consecutive_runs.push((f, pairs)),
        }
    }

    /// The marks of the runs kept by [`Self::keep_consecutive_run`]: `x-move[i]` at the
    /// position after the i-th move of the run on x's line, `y-move[i]` on y's
    /// (`ConsecutiveMovesNode::makeComments`).
    pub(crate) fn consecutive_run_marks(&self) -> Vec<(NodeId, String)> {
        let mut marks = Vec::new();
        for (f, pairs) in &self.consecutive_runs {
            let Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { x, y, .. }) = self.ir.get(*f) else { continue };
            let name = |v: FilterId| match self.ir.get(v) {
                Filter::Variables(VariableFilter::Var(var)) => {
                    self.ir.vars.get(var.0 as usize).map_or(String::new(), |i| i.name.clone())
                }
                _ => String::new(),
            };
            let (xn, yn) = (name(*x), name(*y));
            for (i, &(a, b)) in pairs.iter().enumerate() {
                marks.push((a, format!("{xn}-move[{}]", i + 1)));
                marks.push((b, format!("{yn}-move[{}]", i + 1)));
            }
        }
        marks
    }
}
