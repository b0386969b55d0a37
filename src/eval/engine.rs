//! The filter interpreter: evaluates one IR filter at one position of one game.
//!
//! Takes in: the query's IR, a replayed [`Game`], variable slots, and a location (a game
//! node, a temporary position after a generated move, or "no position" for header-only
//! checks). Gives out: `Ok(None)` when the filter does not match, `Ok(Some(value))` when it
//! does, or an [`Error`] for runaway work or a malformed IR.
//! Must never: panic on any game or IR, recurse without bound, or keep output (comments,
//! sort values, tags, messages) of a filter that did not match.

use shakmaty::{Bitboard, Color, Move, Position, Role, Square};

use super::board;
use super::moves::{self, MoveFacts};
use super::value::{squares_text, Value};
use super::{yacpdb, Error, Query, Shape};
use crate::ir::{
    ArithOp, Builtin, CmpOp, FilterId, FindDirection, GameResult, HeaderField, Ir, LineChoice, MoveFilter, MoveKind,
    MoveSource, MoveValue, PieceMask, TreeRelation, TreeStep, VarId, VarKind,
};
use crate::ir::{
    Filter, GameTreeFilter, GeometryFilter, HeaderFilter, LogicFilter, NumberFilter, PositionStateFilter, SetFilter,
    VariableFilter,
};
use crate::pgn::{Game, NodeId, PieceId, PieceIds, Played, Pos};

mod keywords62;
mod legacy_facts;

// The parts of the interpreter itself, beside the families.
mod budget;
mod builtins;
mod collected;
mod location;
mod move_filter;
mod planned;

use budget::CLOCK_FIRST;
pub use budget::{DEPTH_LIMIT, STEP_LIMIT, WHILE_LIMIT};
pub use collected::{Mark, Out, PositionComments};
pub use game_tree::PathNow;
pub use location::{Loc, SquareMemo, Temp};

/// Result of evaluating a filter: `None` = no match.
pub type Eval = Result<Option<Value>, Error>;

// The filters of each family, one file each (the sections of docs/), in src/eval/engine/.
mod attacks_and_geometry;
mod game_tree;
mod header;
mod logic;
mod numbers;
mod output;
mod pieces_and_sets;
mod position_state;
mod variables;

/// The evaluation state for one game.
pub struct Ctx<'a> {
    /// The compiled query.
    pub q: &'a Query,
    /// Its IR.
    pub ir: &'a Ir,
    /// The game.
    pub game: &'a Game,
    /// Variable slots.
    pub vars: &'a mut Vec<Option<Value>>,
    /// Dictionaries, indexed by the variable that names them.
    pub dicts: &'a mut Vec<super::dict::Dict>,
    /// Temporary positions of generated moves being looked into.
    pub temps: Vec<Temp>,
    /// Collected output.
    pub out: Out,
    /// Capture groups of the last successful regex match.
    pub groups: Vec<Option<(usize, String)>>,
    /// The game's YACPDB analysis, built on first use.
    pub analysis: Option<yacpdb::Analysis>,
    /// Identities held by enclosing identity iterations.
    pub bound_identities: Vec<PieceId>,
    /// Evaluations made so far in this game (with costly ones counted for what they cost).
    pub steps: u64,
    /// At this many steps the budget is looked at next (the step limit, the clock).
    next_check: u64,
    /// When the game's clock started (for the time budget): at the first look at the
    /// budgets, after [`budget::CLOCK_FIRST`] steps; `None` before.
    started: Option<std::time::Instant>,
    /// Bytes of strings, dictionary entries, comments and other growing values made so far
    /// in this game (for the memory budget).
    pub memory: u64,
    /// Current nesting depth.
    pub depth: u32,
    /// The position the query is being asked for (the scan's current position; the root
    /// for per-game queries). `:` and `echo` move the evaluation elsewhere, this stays.
    pub origin: NodeId,
    /// Search variations too.
    pub variations: bool,
    /// When set, the next `move next` filter evaluated looks only at the move into this child
    /// (a path testing one continuation at a time); taken (cleared) by that filter.
    pub only_child: Option<NodeId>,
    /// A position reached by castling seen as a move of the rook (a move filter matched the
    /// rook, or a path follows it): there `from`/`to` of that move are the rook's squares.
    pub rook_view: Option<Loc>,
    /// A position reached by castling where the filter that moved there fits one of the
    /// two views only (the king's, or the rook's: then [`Ctx::rook_view`] is set too):
    /// there `from`/`to` of that move give that view's squares only, as CQL 6.2's
    /// `smartFrom`/`smartTo` do with the owning filter's sets. Elsewhere they give both.
    pub one_view: Option<Loc>,
    /// The path being matched by a `path` filter (or the last one matched), for
    /// `pathcount`, `pathstart` and the other path status filters.
    pub path_now: Option<PathNow>,
    /// Positions inside lines and paths already found by a `nestban` `line` or `path`
    /// (keyed by the filter only, whatever its focus: CQL 6.2 keeps one set per
    /// `PathNode`): no new line or path of that filter starts there.
    pub path_covered: std::collections::HashSet<(FilterId, NodeId)>,
    /// The longest run each `consecutivemoves` filter that writes marks has matched in this
    /// game, marked when the game is written.
    pub consecutive_runs: Vec<(FilterId, Vec<(NodeId, NodeId)>)>,
    /// The comments each `sort` filter holds for its best value so far in this game.
    pub sort_comments: Vec<(FilterId, super::SortValue, PositionComments)>,
    /// `positionid` of every node (indexed by node), and the node of every `positionid`
    /// (indexed by id), built on first use.
    pub position_ids: std::cell::OnceCell<(Vec<u32>, Vec<NodeId>)>,
    /// Per piece identity, the last square it was looked up on at a game node (kept by the
    /// worker from game to game, see [`SquareMemo`]).
    piece_squares: &'a SquareMemo,
    /// This game's turn in `piece_squares`.
    square_turn: u64,
}

/// An invariant of the compiled query broke: a bug in cqlrs, not a problem of the query or
/// the game (limits of the run give [`Error::abandoned`]).
fn internal(msg: impl Into<String>) -> Error {
    Error { message: msg.into() }
}

/// Is node `n` inside a "try": a variation that leaves the main line with a White move? Only
/// variations hanging directly off the main line count; a line nested deeper is a sub-variation of
/// some other line, not itself a try.
fn is_white_try(game: &crate::pgn::Game, n: NodeId) -> bool {
    let node = game.node(n);
    if node.depth != 1 {
        return false;
    }
    let mut cur = n;
    while let Some(parent) = game.node(cur).parent {
        if game.node(parent).is_mainline() {
            return game.node(parent).pos.turn().is_white();
        }
        cur = parent;
    }
    false
}

fn arith(op: ArithOp, a: i64, b: i64) -> Option<i64> {
    match op {
        ArithOp::Add => a.checked_add(b),
        ArithOp::Sub => a.checked_sub(b),
        ArithOp::Mul => a.checked_mul(b),
        ArithOp::Div => a.checked_div(b),
        ArithOp::Rem => a.checked_rem(b),
    }
}

/// The game's result from the `[Result]` tag, else the termination marker.
pub fn game_result(game: &Game) -> Option<GameResult> {
    // The usual case, decided on the bytes: a `[Result]` of `1-0`, `0-1` or `1/2-1/2` with
    // at most ASCII blanks around it. Anything else (no tag, `*`, other blanks, other text)
    // goes the general way below, which gives the same answer for these.
    if let Some(tag) = game.tag("Result") {
        match tag.value.trim_ascii() {
            b"1-0" => return Some(GameResult::WhiteWins),
            b"0-1" => return Some(GameResult::BlackWins),
            b"1/2-1/2" => return Some(GameResult::Draw),
            _ => {}
        }
    }
    game_result_of_text(game)
}

/// [`game_result`] the general way: the `[Result]` text trimmed of any white space, else
/// the termination marker.
fn game_result_of_text(game: &Game) -> Option<GameResult> {
    // Read in place, neither copied nor converted: this is asked of every game a result
    // filter reads. Tag values are UTF-8 once read (a Windows-1252 game is converted),
    // so the check cannot fail; if it did, the replacement character matches no result.
    let tag = game.tag("Result").map(|t| std::str::from_utf8(&t.value).unwrap_or("\u{FFFD}"));
    let text = match tag.map(str::trim).filter(|t| *t != "*" && !t.is_empty()) {
        Some(text) => text,
        None => game.termination.as_deref()?,
    };
    match text.trim() {
        "1-0" => Some(GameResult::WhiteWins),
        "0-1" => Some(GameResult::BlackWins),
        "1/2-1/2" | "½-½" => Some(GameResult::Draw),
        _ => None,
    }
}

impl<'a> Ctx<'a> {
    /// A fresh context for one game.
    pub fn new(
        q: &'a Query,
        game: &'a Game,
        vars: &'a mut Vec<Option<Value>>,
        dicts: &'a mut Vec<super::dict::Dict>,
        piece_squares: &'a SquareMemo,
    ) -> Ctx<'a> {
        let square_turn = piece_squares.next_game();
        Ctx {
            q,
            ir: &q.ir,
            game,
            vars,
            dicts,
            temps: Vec::new(),
            out: Out::default(),
            groups: Vec::new(),
            analysis: None,
            bound_identities: Vec::new(),
            steps: 0,
            next_check: CLOCK_FIRST.min(q.limits.max_steps.saturating_add(1)),
            started: None,
            memory: 0,
            depth: 0,
            origin: NodeId::ROOT,
            variations: q.ir.settings.variations,
            position_ids: std::cell::OnceCell::new(),
            only_child: None,
            rook_view: None,
            one_view: None,
            path_now: None,
            path_covered: Default::default(),
            consecutive_runs: Vec::new(),
            sort_comments: Vec::new(),
            piece_squares,
            square_turn,
        }
    }

    // ----- value conversions -------------------------------------------------

    /// A value as a set of squares (a piece identity: its square, if on the board).
    pub fn as_set(&self, v: &Value, at: Loc) -> Option<Bitboard> {
        match v {
            Value::Set(b) => Some(*b),
            Value::Piece(id) => Some(self.square_of(*id, at).map(Bitboard::from).unwrap_or(Bitboard::EMPTY)),
            _ => None,
        }
    }

    /// A value as a number (sets are counted, positions by id).
    pub(super) fn as_number(&self, v: &Value, at: Loc) -> Option<i64> {
        match v {
            Value::Number(n) => Some(*n),
            Value::Set(b) => Some(b.count() as i64),
            Value::Piece(id) => Some(self.square_of(*id, at).is_some() as i64),
            Value::Position(n) => Some(self.position_id(*n)),
            _ => None,
        }
    }

    /// A value written as text (comments, `str`).
    pub fn text_of(&mut self, v: &Value, at: Loc) -> String {
        match v {
            Value::None => String::new(),
            Value::Set(b) => squares_text(*b),
            Value::Number(n) => n.to_string(),
            Value::Str(s) => s.clone(),
            Value::Position(n) => self.position_text(*n),
            // A piece variable whose piece has left the board converts to nothing (CQL 6.2,
            // `StringConverter::convertPieceIdVariable`).
            Value::Piece(id) => match (self.square_of(*id, at), self.pos(at)) {
                (Some(sq), Some(pos)) => match pos.board().piece_at(sq) {
                    Some(piece) => {
                        let mut s = piece.char().to_string();
                        sq.append_to_string(&mut s);
                        s
                    }
                    None => String::new(),
                },
                _ => String::new(),
            },
        }
    }

    /// How CQL 6.2 names a position in text (`QPos::idString`): `move N(wtm)` or
    /// `move N(btm)`, N being the `movenumber` there; a position inside a variation adds its
    /// `[positionid]`, and CQL also marks it with an `id:N` comment.
    pub(super) fn position_text(&mut self, n: NodeId) -> String {
        let Some(node) = self.game.nodes.get(n.index()) else { return String::new() };
        let side = if node.pos.turn().is_white() { "wtm" } else { "btm" };
        let number = self.move_number(Loc::Node(n)).unwrap_or(1);
        let mut text = format!("move {number}({side})");
        if !node.is_mainline() {
            let id = self.position_id(n);
            text.push_str(&format!("[{id}]"));
            self.out.comments.push((n, format!("id:{id}")));
        }
        text
    }

    /// The text of the arguments of `comment`, `message` and `str`, each converted as CQL
    /// 6.2 converts it (`StringConverter::convertnode`): a value as its text, a filter that
    /// has no value as `<true>` or `<false>`, a failing number, string or position as
    /// `<false>`, a variable not yet given a value in this game as `<unbound: name>`.
    pub(super) fn args_text(&mut self, args: &[FilterId], at: Loc) -> Result<String, Error> {
        let mut text = String::new();
        for &a in args {
            match self.value(a, at)? {
                Some(Value::None) => text.push_str("<true>"),
                Some(v) => {
                    let piece = self.text_of(&v, at);
                    text.push_str(&piece);
                }
                None => match self.q.ir().get(a) {
                    Filter::Variables(VariableFilter::Var(v)) if self.get_var(*v).is_none() => {
                        let name = self.q.ir().vars.get(v.0 as usize).map_or("", |info| info.name.as_str());
                        text.push_str(&format!("<unbound: {name}>"));
                    }
                    _ => text.push_str("<false>"),
                },
            }
        }
        Ok(text)
    }

    /// The single square of a value, if it has exactly one.
    fn single_square(&self, v: &Value, at: Loc) -> Option<Square> {
        self.as_set(v, at)?.single_square()
    }

    // ----- evaluation entry points ---------------------------------------

    /// Evaluate a filter. In value mode an empty set is a valid value (`#P == 0`);
    /// otherwise a set filter with an empty set does not match. Output written by a
    /// filter that does not match is rolled back.
    pub fn eval(&mut self, f: FilterId, at: Loc, value_mode: bool) -> Eval {
        self.count_step()?;
        // Leaves and effect-free filters write no output, so there is nothing to roll back.
        let result = match self.q.shape(f) {
            Shape::Squares(b) => Some(Value::Set(b)),
            Shape::Pieces(mask, squares) => {
                self.pos(at).map(|pos| Value::Set(board::pieces(pos.board(), mask, squares)))
            }
            Shape::Var(v) => match self.get_var(v) {
                Some(Value::Set(b)) => Some(Value::Set(*b)),
                Some(Value::Piece(id)) => Some(Value::Piece(*id)),
                Some(Value::Str(s)) => {
                    // A copy of the string: it costs its length.
                    let (copy, len) = (s.clone(), s.len());
                    self.charge(len)?;
                    Some(Value::Str(copy))
                }
                other => other.cloned(),
            },
            Shape::Number(n) if value_mode => Some(Value::Number(n)),
            // CQL 6.2 stops on a number matched against the position
            // (`NumberNode::match_position`); here the game is abandoned with that reason.
            Shape::Number(n) => {
                return Err(Error {
                    message: format!(
                        "the number {n} was matched against a position (a number alone is no filter in CQL 6.2; compare it, e.g. `ply > {n}`)"
                    ),
                })
            }
            Shape::True => Some(Value::None),
            Shape::False => None,
            Shape::DirectSet => {
                self.depth += 1;
                let result = self.direct_set(f, at);
                self.depth -= 1;
                result?.map(Value::Set)
            }
            Shape::DirectNumber => {
                self.depth += 1;
                let result = self.direct_number(f, at);
                self.depth -= 1;
                result?.map(Value::Number)
            }
            Shape::Pure => {
                self.depth += 1;
                let result = self.eval_inner(f, at, value_mode);
                self.depth -= 1;
                result?
            }
            Shape::Other => {
                self.depth += 1;
                let mark = self.out.mark();
                let result = self.eval_inner(f, at, value_mode);
                self.depth -= 1;
                let result = self.check_match(f, at, value_mode, result?);
                if result.is_none() {
                    self.out.rollback(mark);
                }
                return Ok(result);
            }
        };
        Ok(self.check_match(f, at, value_mode, result))
    }

    /// Evaluate filter `f` at `at` (in value mode when `vm`) by the evaluator of its family
    /// (one file each in src/eval/engine/, matching the sections of docs/), which receives
    /// the family's own enum. Every nested filter passes through here: the stack frame stays
    /// small because each family's match is in its own function.
    fn eval_inner(&mut self, f: FilterId, at: Loc, vm: bool) -> Eval {
        let filter: &'a Filter = self.ir.get(f);
        match filter {
            Filter::True => Ok(Some(Value::None)),
            Filter::False => Ok(None),
            // A key without an entry in a dictionary of sets is the empty set where a value is
            // read (CQL 6.2, `DictionaryRetrieveNode::getSquares`); as a filter it fails.
            Filter::Variables(v @ VariableFilter::DictGet { dict, .. }) if vm => Ok(self
                .eval_variables(f, v, at)?
                .or_else(|| self.dict_holds_sets(*dict).then_some(Value::Set(Bitboard::EMPTY)))),
            Filter::Sets(v) => self.eval_pieces_and_sets(v, at),
            Filter::Geometry(v) => self.eval_attacks_and_geometry(f, v, at),
            Filter::Numbers(v) => self.eval_numbers(f, v, at, vm),
            Filter::Logic(v) => self.eval_logic(v, at, vm),
            Filter::PositionState(v) => self.eval_position_state(f, v, at),
            Filter::Header(v) => self.eval_header(v, at),
            Filter::GameTree(v) => self.eval_game_tree(f, v, at, vm),
            Filter::Variables(v) => self.eval_variables(f, v, at),
            Filter::Output(v) => self.eval_output(f, v, at),
            Filter::Keyword62(v) => self.eval_keyword62(f, v, at),
            Filter::Move(mf) => self.eval_move(mf, at),
            Filter::LegacyFact(fact) => Ok(self.eval_legacy_fact(fact, at)),
            Filter::Yacpdb(pred) => Ok(Some(self.eval_yacpdb(f, pred))),
            // `notransform F` is F (the transform expander left F as written).
            Filter::NoTransform(body) => self.eval(*body, at, vm),
            Filter::Transform { .. } => Err(internal("internal error: a transform reached the evaluator unexpanded")),
        }
    }

    /// The set value of a set operation of shape [`Shape::DirectSet`], computed from
    /// the set values of its parts exactly as [`Self::eval_inner`] does, without building
    /// [`Value`]s (the caller counts the step and the nesting).
    fn direct_set(&mut self, f: FilterId, at: Loc) -> Result<Option<Bitboard>, Error> {
        let ir: &'a Ir = self.ir;
        Ok(match ir.get(f) {
            Filter::Geometry(GeometryFilter::Between(a, b)) => {
                let (Some(x), Some(y)) = (self.set_value(*a, at)?, self.set_value(*b, at)?) else {
                    return Ok(None);
                };
                Some(board::between(x, y))
            }
            Filter::Geometry(GeometryFilter::Ray { dirs, sets, xray }) => {
                let mut bbs = [Bitboard::EMPTY; 16];
                if sets.len() > bbs.len() {
                    return Err(internal("ray with more than 16 sets"));
                }
                for (k, &s) in sets.iter().enumerate() {
                    bbs[k] = self.set_value(s, at)?.unwrap_or(Bitboard::EMPTY);
                }
                let Some(pos) = self.pos(at) else { return Ok(None) };
                Some(board::ray(pos.board(), *dirs, &bbs[..sets.len()], *xray))
            }
            Filter::Sets(SetFilter::Union(items)) => {
                let mut acc = Bitboard::EMPTY;
                for &i in items {
                    acc |= self.set_value(i, at)?.unwrap_or(Bitboard::EMPTY);
                }
                Some(acc)
            }
            // Only intersections whose parts are all sets come here.
            Filter::Sets(SetFilter::Intersection(items)) => {
                let mut acc = Bitboard::FULL;
                for &i in items {
                    match self.set_value(i, at)? {
                        Some(b) => acc &= b,
                        None => return Ok(None),
                    }
                }
                Some(acc)
            }
            Filter::Sets(SetFilter::Complement(a)) => Some(!self.set_value(*a, at)?.unwrap_or(Bitboard::EMPTY)),
            // `makesquare f r` of two parts that are always numbers: the second is not
            // evaluated when the first fails, as in the general call.
            Filter::Numbers(NumberFilter::Call(Builtin::MakeSquare, args)) if args.len() == 2 => {
                let Some(file) = self.number_value(args[0], at)? else { return Ok(None) };
                let Some(rank) = self.number_value(args[1], at)? else { return Ok(None) };
                builtins::square_at(file, rank).map(Bitboard::from)
            }
            _ => return Err(internal("not a direct set operation")),
        })
    }

    /// Outside value mode a set filter with an empty set, or a piece not on the board, does
    /// not match.
    #[inline(always)]
    fn check_match(&self, f: FilterId, at: Loc, value_mode: bool, result: Option<Value>) -> Option<Value> {
        if value_mode {
            return result;
        }
        let fails = match &result {
            Some(Value::Set(b)) => b.is_empty() && self.q.kinds().fails_on_empty_set(self.ir, f),
            Some(Value::Piece(id)) => self.square_of(*id, at).is_none(),
            _ => false,
        };
        if fails {
            None
        } else {
            result
        }
    }

    /// Does the filter match here? Same answer as `eval(f, at, false)?.is_some()`, but where
    /// only the answer counts some filters stop early: `and`/`or` at the first part that decides
    /// them, and a square or piece iteration whose body has no effects (see
    /// [`Query::is_pure`]) at the first square that matches, instead of collecting every
    /// matching square for a value nobody reads.
    pub fn test(&mut self, f: FilterId, at: Loc) -> Result<bool, Error> {
        let ir: &'a Ir = self.ir;
        match ir.get(f) {
            Filter::Logic(LogicFilter::Or(items) | LogicFilter::And(items)) => {
                let any = matches!(ir.get(f), Filter::Logic(LogicFilter::Or(_)));
                let q: &'a Query = self.q;
                match q.plan(f) {
                    super::plan::Plan::Patterns(table) if !matches!(at, Loc::Header) => {
                        self.count_step()?;
                        let in_check = table.uses_check && self.in_check(at) == Some(true);
                        Ok(self.pos(at).is_some_and(|pos| table.matches(pos, in_check)))
                    }
                    super::plan::Plan::Order(order) => self.test_parts(f, order, at, any),
                    super::plan::Plan::Prechecked { order, check } => {
                        Ok(self.path_may_match(check, at)? && self.test_parts(f, order, at, any)?)
                    }
                    _ => self.test_parts(f, items, at, any),
                }
            }
            Filter::Variables(
                VariableFilter::SquareIter { domain, forall: false, .. }
                | VariableFilter::PieceIter { domain, forall: false, .. },
            ) if self.iteration_fails_early(f, *domain, at)? => Ok(false),
            Filter::Variables(VariableFilter::SquareIter { var, domain, body, forall: false })
                if self.q.planned() && self.q.is_pure(*body) =>
            {
                self.test_exists(*var, *domain, *body, false, at)
            }
            Filter::Variables(VariableFilter::PieceIter { var, domain, body, forall: false })
                if self.q.planned() && self.q.is_pure(*body) =>
            {
                self.test_exists(*var, *domain, *body, true, at)
            }
            // Yes-or-no facts of the position, without making a value.
            Filter::PositionState(
                PositionStateFilter::Check
                | PositionStateFilter::Mate
                | PositionStateFilter::Stalemate
                | PositionStateFilter::ToMove(_)
                | PositionStateFilter::Initial,
            ) => {
                self.count_step()?;
                Ok(self.position_fact(ir.get(f), at))
            }
            Filter::Numbers(NumberFilter::Compare { first, rest }) => self.test_comparison(f, *first, rest, at),
            // `position N` as a yes-or-no question (`while (position n)`): is there a
            // position with that id? No position value is built.
            Filter::GameTree(GameTreeFilter::PositionById(id)) => {
                self.count_step()?;
                let Some(id) = self.number_value(*id, at)? else { return Ok(false) };
                Ok(self.position_with_id(id).is_some())
            }
            // `N += 1` and its kin on a number, with a part that is always a number: the
            // variable is updated in place, no value is built.
            Filter::Variables(VariableFilter::Assign { var, op: Some(op), value })
                if self.q.is_always_number(*value) && matches!(self.get_var(*var), Some(Value::Number(_))) =>
            {
                self.count_step()?;
                let Some(b) = self.number_value(*value, at)? else { return Ok(false) };
                let Some(Some(Value::Number(a))) = self.vars.get_mut(var.0 as usize) else { return Ok(false) };
                match arith(*op, *a, b) {
                    Some(n) => {
                        *a = n;
                        Ok(true)
                    }
                    None => Ok(false),
                }
            }
            // `p:F` matches when F matches at p.
            Filter::GameTree(GameTreeFilter::AtPosition { at: position, body }) if self.q.shape(f) == Shape::Pure => {
                Ok(self.elsewhere(*position, at, |ctx, there| ctx.test(*body, there).map(Some))?.unwrap_or(false))
            }
            _ => Ok(self.eval(f, at, false)?.is_some()),
        }
    }

    /// `or` (`any`) or `and` (not `any`) of `parts`, tested in order up to the first part that
    /// decides it; output of a compound that fails is rolled back, as [`Self::eval`] does.
    fn test_parts(&mut self, f: FilterId, parts: &[FilterId], at: Loc, any: bool) -> Result<bool, Error> {
        self.count_step()?;
        self.depth += 1;
        // A compound without effects writes nothing to roll back.
        let writes = !self.q.is_pure(f);
        let mark = self.out.mark();
        let mut result = Ok(!any);
        for &part in parts {
            match self.test(part, at) {
                Ok(ok) if ok == any => {
                    result = Ok(any);
                    break;
                }
                Ok(_) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.depth -= 1;
        let ok = result?;
        if !ok && writes {
            self.out.rollback(mark);
        }
        Ok(ok)
    }

    /// Does some square of `domain` (some piece on it, for `pieces`) make the effect-free
    /// `body` match with `var` bound to it? Stops at the first one; `var` is restored.
    fn test_exists(
        &mut self,
        var: VarId,
        domain: FilterId,
        body: FilterId,
        pieces: bool,
        at: Loc,
    ) -> Result<bool, Error> {
        self.count_step()?;
        self.depth += 1;
        let result = self.exists(var, domain, body, pieces, at);
        self.depth -= 1;
        result
    }

    fn exists(&mut self, var: VarId, domain: FilterId, body: FilterId, pieces: bool, at: Loc) -> Result<bool, Error> {
        let Some(dom) = self.set_value(domain, at)? else { return Ok(false) };
        let ids = if pieces { Some(self.ids(at)) } else { None };
        let saved = self.set_var(var, None);
        let mut result = Ok(false);
        for sq in dom {
            let value = match &ids {
                Some(ids) => match ids.at(sq) {
                    0 => continue,
                    id => Value::Piece(id),
                },
                None => Value::square(sq),
            };
            self.set_var(var, Some(value));
            match self.test(body, at) {
                Ok(true) => {
                    result = Ok(true);
                    break;
                }
                Ok(false) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.set_var(var, saved);
        result
    }

    fn value(&mut self, f: FilterId, at: Loc) -> Eval {
        self.eval(f, at, true)
    }

    /// The value of a filter as a set of squares (see [`Self::as_set`]). Square sets, piece
    /// sets, variables and effect-free set operations are worked out without building a
    /// [`Value`], counting the same steps.
    #[inline(always)]
    pub(in crate::eval) fn set_value(&mut self, f: FilterId, at: Loc) -> Result<Option<Bitboard>, Error> {
        let set = match self.q.shape(f) {
            Shape::Squares(b) => Some(b),
            Shape::Pieces(mask, squares) => self.pos(at).map(|pos| board::pieces(pos.board(), mask, squares)),
            Shape::Var(v) => match self.get_var(v) {
                Some(Value::Set(b)) => Some(*b),
                Some(Value::Piece(id)) => Some(self.square_of(*id, at).map(Bitboard::from).unwrap_or(Bitboard::EMPTY)),
                _ => None,
            },
            _ => return self.compound_set_value(f, at),
        };
        self.count_step()?;
        Ok(set)
    }

    /// [`Self::set_value`] of a filter with parts (kept out of line so that the leaf cases
    /// stay small where they are inlined).
    #[inline(never)]
    fn compound_set_value(&mut self, f: FilterId, at: Loc) -> Result<Option<Bitboard>, Error> {
        match self.q.shape(f) {
            Shape::DirectSet => {
                self.count_step()?;
                self.depth += 1;
                let result = self.direct_set(f, at);
                self.depth -= 1;
                result
            }
            // `p:S`, `p:$x` (a piece is the square it stands on there): the set of S at
            // position p.
            Shape::Pure => match self.elsewhere_leaf(f) {
                Some((position, body)) => self.elsewhere(position, at, |ctx, there| ctx.set_value(body, there)),
                None => Ok(self.value(f, at)?.and_then(|v| self.as_set(&v, at))),
            },
            _ => Ok(self.value(f, at)?.and_then(|v| self.as_set(&v, at))),
        }
    }

    /// `p:F` worked out by `read` at position p, counting the step and the nesting as
    /// evaluating `p:F` does; `None` where p is not a position.
    fn elsewhere<T>(
        &mut self,
        position: FilterId,
        at: Loc,
        read: impl FnOnce(&mut Self, Loc) -> Result<Option<T>, Error>,
    ) -> Result<Option<T>, Error> {
        self.count_step()?;
        self.depth += 1;
        let result = match self.position_value(position, at) {
            Ok(Some(n)) => read(self, Loc::Node(n)),
            other => other.map(|_| None),
        };
        self.depth -= 1;
        result
    }

    /// If `f` is `p:S` with S a square set, a piece set or a variable (an effect-free
    /// filter at another position whose value is a set there), p and S.
    #[inline]
    pub(super) fn elsewhere_leaf(&self, f: FilterId) -> Option<(FilterId, FilterId)> {
        let ir: &'a Ir = self.ir;
        match ir.get(f) {
            Filter::GameTree(GameTreeFilter::AtPosition { at, body })
                if matches!(self.q.shape(*body), Shape::Squares(_) | Shape::Pieces(..) | Shape::Var(_)) =>
            {
                Some((*at, *body))
            }
            _ => None,
        }
    }

    /// The value of a filter as a number (see [`Self::as_number`]). Numbers, variables and
    /// filters of shape [`Shape::DirectNumber`] are worked out without building a
    /// [`Value`], counting the same steps.
    #[inline]
    fn number_value(&mut self, f: FilterId, at: Loc) -> Result<Option<i64>, Error> {
        match self.q.shape(f) {
            Shape::Number(n) => {
                self.count_step()?;
                Ok(Some(n))
            }
            Shape::Var(v) => {
                self.count_step()?;
                match self.get_var(v) {
                    // Reading a string costs its length (as in `eval`); it is no number.
                    Some(Value::Str(s)) => {
                        let len = s.len();
                        self.charge(len)?;
                        Ok(None)
                    }
                    Some(value) => Ok(self.as_number(value, at)),
                    None => Ok(None),
                }
            }
            Shape::DirectNumber => {
                self.count_step()?;
                self.depth += 1;
                let result = self.direct_number(f, at);
                self.depth -= 1;
                result
            }
            // `p:N` with N always a number (`start:rank x`): N at position p.
            Shape::Pure
                if self.q.is_always_number(f)
                    && matches!(self.ir.get(f), Filter::GameTree(GameTreeFilter::AtPosition { .. })) =>
            {
                let &Filter::GameTree(GameTreeFilter::AtPosition { at: position, body }) = self.ir.get(f) else {
                    return Ok(None);
                };
                self.elsewhere(position, at, |ctx, there| ctx.number_value(body, there))
            }
            _ => Ok(self.value(f, at)?.and_then(|v| self.as_number(&v, at))),
        }
    }

    fn string_value(&mut self, f: FilterId, at: Loc) -> Result<Option<String>, Error> {
        Ok(match self.value(f, at)? {
            Some(Value::Str(s)) => Some(s),
            _ => None,
        })
    }

    #[inline]
    fn position_value(&mut self, f: FilterId, at: Loc) -> Result<Option<NodeId>, Error> {
        if let Shape::Var(v) = self.q.shape(f) {
            // A variable read in place (a string would be copied: it costs its length).
            self.count_step()?;
            return match self.get_var(v) {
                Some(Value::Position(n)) => Ok(Some(*n)),
                Some(Value::Str(s)) => {
                    let len = s.len();
                    self.charge(len).map(|_| None)
                }
                _ => Ok(None),
            };
        }
        Ok(match self.value(f, at)? {
            Some(Value::Position(n)) => Some(n),
            _ => None,
        })
    }

    fn set_var(&mut self, var: VarId, v: Option<Value>) -> Option<Value> {
        let i = var.0 as usize;
        if self.vars.len() <= i {
            self.vars.resize(i + 1, None);
        }
        std::mem::replace(&mut self.vars[i], v)
    }

    /// Does `value` lie in a range written after `line` or `path` (no range: yes)? An end
    /// written as a numeric variable is read now; an unbound one fails the filter (CQL 6.2
    /// stops the run there).
    pub(super) fn in_written_range(
        &self,
        range: Option<(i64, i64)>,
        (low_var, high_var): (Option<VarId>, Option<VarId>),
        value: i64,
    ) -> bool {
        let Some((low, high)) = range else { return true };
        match (self.range_end(low, low_var), self.range_end(high, high_var)) {
            (Some(low), Some(high)) => (low..=high).contains(&value),
            _ => false,
        }
    }

    /// One end of a written range: the number written, or the value now of the numeric
    /// variable written there (`None` when it holds no number).
    pub(super) fn range_end(&self, written: i64, var: Option<VarId>) -> Option<i64> {
        match var {
            Some(v) => match self.get_var(v) {
                Some(Value::Number(n)) => Some(*n),
                _ => None,
            },
            None => Some(written),
        }
    }

    pub(super) fn get_var(&self, var: VarId) -> Option<&Value> {
        self.vars.get(var.0 as usize).and_then(|v| v.as_ref())
    }

    /// Does dictionary `dict` hold sets of squares now? The query's text often tells (see
    /// [`crate::ir::props::dictionary_contents`]); otherwise the entries do: a dictionary
    /// keeps the kind of value it was first given, so one stored set answers for all. An
    /// empty dictionary says no.
    fn dict_holds_sets(&self, dict: VarId) -> bool {
        use crate::ir::props::DictionaryContents;
        let entries = self.dicts.get(dict.0 as usize);
        match self.q.dictionary_contents(dict) {
            DictionaryContents::Sets => entries.is_some_and(|d| !d.is_empty()),
            DictionaryContents::NoSets => false,
            DictionaryContents::DecidedByEntries => {
                entries.and_then(|d| d.values().next()).is_some_and(|v| matches!(v, Value::Set(_)))
            }
        }
    }

    /// The dictionary named by a variable, made on first use.
    fn dict_mut(&mut self, dict: VarId) -> &mut super::dict::Dict {
        let i = dict.0 as usize;
        if self.dicts.len() <= i {
            self.dicts.resize(i + 1, super::dict::Dict::new());
        }
        &mut self.dicts[i]
    }

    /// The dictionary key given by filter `key` here: a piece stands for its square.
    fn dict_key(&mut self, key: FilterId, at: Loc) -> Result<Option<super::dict::DictKey>, Error> {
        Ok(match self.value(key, at)? {
            Some(v @ Value::Piece(_)) => self.as_set(&v, at).map(|b| super::dict::DictKey::Set(b.0)),
            Some(v) => super::dict::DictKey::of(&v),
            None => None,
        })
    }

    fn compare(&self, left: &Value, op: CmpOp, right: &Value, at: Loc) -> Option<bool> {
        match (left, right) {
            (Value::Str(a), Value::Str(b)) => Some(op.holds(a.as_str(), b.as_str())),
            (Value::Str(_), _) | (_, Value::Str(_)) => None,
            (Value::Piece(a), Value::Piece(b)) if matches!(op, CmpOp::Eq | CmpOp::Ne) => {
                Some(op.holds(a, b) || (op == CmpOp::Ne && a != b))
            }
            (Value::Set(_) | Value::Piece(_), Value::Set(_) | Value::Piece(_))
                if matches!(op, CmpOp::Eq | CmpOp::Ne) =>
            {
                let (a, b) = (self.as_set(left, at)?, self.as_set(right, at)?);
                Some((a == b) == (op == CmpOp::Eq))
            }
            (Value::None, _) | (_, Value::None) => None,
            _ => Some(op.holds(self.as_number(left, at)?, self.as_number(right, at)?)),
        }
    }

    /// A header field's value, read as CQL 6.2 reads it (`tag_text` and `elo` in
    /// src/eval/engine/header.rs).
    fn header(&self, field: &HeaderField) -> Option<Value> {
        if let HeaderField::Elo(c) = field {
            return header::elo(self.game, c.is_white()).map(Value::Number);
        }
        self.header_text(field).map(|text| Value::Str(text.into_owned()))
    }

    /// The text of a header field that is a string (every field but the Elo ratings,
    /// `None` for those), as CQL 6.2 reads it; borrowed from the game when it can be.
    pub(super) fn header_text(&self, field: &HeaderField) -> Option<std::borrow::Cow<'a, str>> {
        let game: &'a Game = self.game;
        let name: &str = match field {
            HeaderField::Player(Color::White) => "White",
            HeaderField::Player(Color::Black) => "Black",
            HeaderField::Elo(_) => return None,
            HeaderField::Event => "Event",
            HeaderField::Site => "Site",
            HeaderField::Date => "Date",
            HeaderField::Eco => "ECO",
            HeaderField::ResultText => "Result",
            HeaderField::Tag(name) => name.as_str(),
        };
        header::tag_text(game, name)
    }

    // ----- game tree -----------------------------------------------------

    /// `find`: the first position from `at` on (or back) where `body` matches, or with
    /// `counting` how many match, that number lying in `range`. With `notes` it writes CQL
    /// 6.2's comments (`FindNode::match_positionvalue`, `match_count`): `Found` at the
    /// position found, `Found i of n` at each position counted (a generated position gets
    /// none).
    fn find(
        &mut self,
        f: FilterId,
        direction: FindDirection,
        (counting, notes): (bool, bool),
        range: Option<(i64, i64)>,
        body: FilterId,
        at: Loc,
    ) -> Eval {
        let (lo, hi) = range.unwrap_or((1, i64::MAX));
        let mut count: i64 = 0;
        let start = match at {
            Loc::Node(n) => n,
            Loc::Temp(_) => {
                // A generated position has no continuation; backwards it continues in the game.
                if self.test(body, at)? {
                    if !counting {
                        return Ok(Some(Value::None));
                    }
                    count += 1;
                }
                if direction == FindDirection::Forward {
                    return Ok(((lo..=hi).contains(&count)).then_some(Value::Number(count)));
                }
                match self.node_of(at) {
                    Some(n) => n,
                    None => return Ok(None),
                }
            }
            Loc::Header => return Ok(None),
        };
        // A body that holds only up to some ply: nothing beyond that ply is looked at; nor
        // is the body tested where a placement it requires fails (see `plan::FindPlan`).
        let (last_ply, mut placements) = self.find_limits(f, at)?;
        // The positions counted, kept only to note them (no allocation without a match).
        let mut counted: Vec<NodeId> = Vec::new();
        // Walked in place (game-tree order below `start`, or up to the start): no list of
        // positions is built.
        let mut next = if placements.never { None } else { Some(start) };
        while let Some(n) = next {
            let beyond = last_ply.is_some_and(|last| i64::from(self.game.node(n).ply) > last);
            let placed = beyond || self.placements_hold(&mut placements, n);
            if !placed {
                self.count_visits(1)?;
            }
            if !beyond && placed && self.test(body, Loc::Node(n))? {
                if !counting {
                    if notes {
                        self.out.comments.push((n, "Found".into()));
                    }
                    return Ok(Some(Value::Position(n)));
                }
                count += 1;
                if notes {
                    counted.push(n);
                }
            }
            next = match direction {
                FindDirection::Backward => self.game.node(n).parent,
                // Everything below a position beyond the last ply is beyond it too.
                FindDirection::Forward if beyond => self.next_beside(n, start),
                FindDirection::Forward => match self.children(n).first() {
                    Some(&child) => Some(child),
                    None => self.next_beside(n, start),
                },
            };
        }
        if !placements.never {
            self.remember_gathered(&placements, start, last_ply);
        }
        if !(counting && (lo..=hi).contains(&count)) {
            return Ok(None);
        }
        let total = counted.len();
        // Each note is a comment kept until the game ends: `find all` at every position of
        // a long game writes as many notes as the square of its length.
        self.charge(total * 64)?;
        for (i, n) in counted.into_iter().enumerate() {
            self.out.comments.push((n, format!("Found {} of {total}", i + 1)));
        }
        Ok(Some(Value::Number(count)))
    }

    /// Does the query write CQL 6.2's automatic notes (`Found`, `Start line …`, echo marks)?
    /// Not under `quiet` or `silent`, which keep only the query's own comments, or none.
    pub(super) fn writes_notes(&self) -> bool {
        let settings = &self.q.ir().settings;
        !settings.quiet && !settings.silent
    }

    fn identity_iter(&mut self, var: VarId, mask: PieceMask, body: FilterId, at: Loc) -> Eval {
        let mut seen = [false; 256];
        let nodes = self.searched_nodes();
        for n in nodes {
            let node = self.game.node(n);
            for sq in board::pieces(node.pos.board(), PieceMask(mask.0 & PieceMask::ANY_PIECE.0), Bitboard::FULL) {
                seen[node.ids.at(sq) as usize] = true;
            }
        }
        let saved = self.set_var(var, None);
        let mut matched = false;
        for id in 1..=255u8 {
            if !seen[id as usize] || self.bound_identities.contains(&id) {
                continue;
            }
            self.set_var(var, Some(Value::Piece(id)));
            self.bound_identities.push(id);
            let ok = self.test(body, at);
            self.bound_identities.pop();
            if ok? {
                matched = true;
                break;
            }
        }
        self.set_var(var, saved);
        Ok(matched.then_some(Value::None))
    }
}

/// Squares holding the same content (piece or emptiness) in two positions.
fn same_content(a: &Pos, b: &Pos) -> Bitboard {
    let (x, y) = (a.board(), b.board());
    let mut differ = x.occupied() ^ y.occupied();
    differ |= x.white() ^ y.white();
    for role in Role::ALL {
        differ |= x.by_role(role) ^ y.by_role(role);
    }
    !differ
}

#[cfg(test)]
mod identity_tests {
    use super::*;

    /// The quick reading of the result gives what the general one gives, for every kind of
    /// `[Result]` value and with or without a termination marker.
    #[test]
    fn game_result_quick_way_agrees_with_the_general_way() {
        let values: [&[u8]; 12] = [
            b"1-0",
            b" 1-0 ",
            b"\x0b1-0",
            b"0-1",
            b"1/2-1/2",
            b"\t1/2-1/2\r",
            "½-½".as_bytes(),
            b"*",
            b"",
            b"1-0?",
            b"2-0",
            b"\xff",
        ];
        for value in values {
            for termination in [None, Some("0-1"), Some("*")] {
                for with_tag in [true, false] {
                    let mut game = Game::default();
                    game.tags.push(crate::pgn::Tag { name: "Event".into(), value: b"x".to_vec() });
                    if with_tag {
                        game.tags.push(crate::pgn::Tag { name: "Result".into(), value: value.to_vec() });
                    }
                    game.termination = termination.map(String::from);
                    assert_eq!(game_result(&game), game_result_of_text(&game), "{value:?} {termination:?} {with_tag}");
                }
            }
        }
    }
}
