//! Pruning by proof: from a compiled query, a condition over the indexed facts that
//! every game the query matches meets. A game that fails it is passed over unread.
//!
//! Takes in: a compiled [`Query`].
//! Gives out: a [`Plan`] — the query's own header test (run on the indexed tags) and a
//! [`Cond`] over the game's material, mates, promotions and castling — or `None` when
//! nothing may be pruned (the query has effects an unmatched game would show, or a
//! match count that admits games with no matching position).
//! Must never: derive a condition stronger than the query. Each filter family says what
//! its truth at a position implies; a filter not named here implies nothing (`True`),
//! and its children are not looked into, so a filter that moves to another position
//! (or to a position that is not in the game, such as one after a legal move) is never
//! read as saying something about the position it is at.
//!
//! Facts at a position ("here") are gathered per conjunction; at the root they become
//! "some position of the game tree has them", which the index can answer: the root is
//! evaluated only at positions of the game tree, and the index records the material of
//! every position of the tree (main line and variations) and every mate and stalemate.

use crate::ir::{
    GeometryFilter, HeaderFilter, Keyword62Filter, LogicFilter, NumberFilter, PositionStateFilter, SetFilter,
};
use shakmaty::{Bitboard, Color, Role};

use super::facts::{self, Material};
use super::format::GameMaterial;
use crate::eval::Query;
use crate::ir::{props, CmpOp, Filter, FilterId, HeaderField, Ir, MoveKind, MoveSource, MoveValue, PieceMask};

/// A bound on how many pieces of some kinds stand on the board: the kinds (bits of
/// [`Material`]'s indices), and the inclusive range their total must lie in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    /// Bit `k` set: kind `k` of [`Material`] is counted.
    pub kinds: u16,
    /// Least total.
    pub lo: u32,
    /// Greatest total.
    pub hi: u32,
}

/// Facts one position must have.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Here {
    /// Piece counts.
    pub counts: Vec<Count>,
    /// The side to move is checkmated.
    pub mate: bool,
    /// The side to move is stalemated.
    pub stalemate: bool,
    /// This side is to move (only used together with `mate` or `stalemate`).
    pub to_move: Option<Color>,
}

impl Here {
    fn is_empty(&self) -> bool {
        self.counts.is_empty() && !self.mate && !self.stalemate
    }
    fn holds(&self, m: &Material) -> bool {
        self.counts.iter().all(|c| {
            let total: u32 = (0..12).filter(|k| c.kinds & (1 << k) != 0).map(|k| u32::from(m[k])).sum();
            c.lo <= total && total <= c.hi
        })
    }
}

/// A condition over a game's indexed facts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// Nothing known.
    True,
    /// All of these.
    All(Vec<Cond>),
    /// One of these.
    Any(Vec<Cond>),
    /// Facts of the position being evaluated (inside the analysis only).
    Here(Here),
    /// Some position of the game tree has these facts.
    Somewhere(Here),
    /// Some move of the game tree promotes to one of these roles (bits of
    /// [`facts::promotion_bit`], either colour).
    Promotes(u32),
    /// Some move of the game tree castles so (bits of the castling facts).
    Castles(u32),
}

impl Cond {
    /// Does the condition say anything at all?
    pub fn is_true(&self) -> bool {
        matches!(self, Cond::True)
    }

    fn all(parts: Vec<Cond>) -> Cond {
        // Facts of the same position are merged, so that `♖ == 1 ♝ == 1` asks for one
        // position with both, not two positions with one each.
        let mut here = Here::default();
        let mut rest = Vec::new();
        for p in parts {
            match p {
                Cond::True => {}
                Cond::Here(h) => {
                    here.counts.extend(h.counts);
                    here.mate |= h.mate;
                    here.stalemate |= h.stalemate;
                    if h.to_move.is_some() {
                        if here.to_move.is_some() && here.to_move != h.to_move {
                            // Both sides to move at once: cannot hold; keep both facts
                            // out rather than reason about it.
                            continue;
                        }
                        here.to_move = h.to_move;
                    }
                }
                Cond::All(v) => rest.extend(v),
                other => rest.push(other),
            }
        }
        if !here.is_empty() || here.to_move.is_some() {
            // `h and (a or b)` at one position is `(h and a) or (h and b)`: the facts go
            // into each branch, where they meet the branch's own (the normalizer takes a
            // conjunct common to the copies of `flipcolor` out of them).
            let mut spread = false;
            for part in rest.iter_mut() {
                if let Cond::Any(branches) = part {
                    let merged = branches.drain(..).map(|b| Cond::all(vec![b, Cond::Here(here.clone())])).collect();
                    *part = Cond::any(merged);
                    spread = true;
                }
            }
            if !spread {
                rest.push(Cond::Here(here));
            }
        }
        match rest.len() {
            0 => Cond::True,
            1 => rest.pop().expect("one"),
            _ => Cond::All(rest),
        }
    }

    fn any(parts: Vec<Cond>) -> Cond {
        if parts.is_empty() || parts.iter().any(Cond::is_true) {
            return Cond::True;
        }
        Cond::Any(parts)
    }

    /// At the root: facts of "here" become facts of some position of the tree.
    fn lift(self) -> Cond {
        match self {
            Cond::Here(h) if h.is_empty() => Cond::True,
            Cond::Here(h) => Cond::Somewhere(h),
            Cond::All(v) => Cond::all(v.into_iter().map(Cond::lift).collect()),
            Cond::Any(v) => Cond::any(v.into_iter().map(Cond::lift).collect()),
            other => other,
        }
    }

    /// Does a game with these facts meet the condition?
    pub fn holds(&self, flags: u32, m: &GameMaterial) -> bool {
        match self {
            Cond::True => true,
            Cond::All(v) => v.iter().all(|c| c.holds(flags, m)),
            Cond::Any(v) => v.iter().any(|c| c.holds(flags, m)),
            Cond::Here(h) | Cond::Somewhere(h) => {
                if h.mate || h.stalemate {
                    m.endings.iter().any(|e| {
                        (!h.mate || e.mate)
                            && (!h.stalemate || !e.mate)
                            && h.to_move.is_none_or(|c| c.is_white() == e.white_to_move)
                            && m.materials.get(e.material as usize).is_none_or(|x| h.holds(x))
                    })
                } else {
                    m.materials.iter().any(|x| h.holds(x))
                }
            }
            Cond::Promotes(bits) => flags & bits != 0,
            Cond::Castles(bits) => flags & bits != 0,
        }
    }

    /// Does the condition look at the materials of a game without a mate or stalemate
    /// (a piece count not tied to a mate or stalemate)?
    pub fn needs_all_materials(&self) -> bool {
        match self {
            Cond::All(v) | Cond::Any(v) => v.iter().any(Cond::needs_all_materials),
            Cond::Here(h) | Cond::Somewhere(h) => !h.mate && !h.stalemate,
            _ => false,
        }
    }

    /// Does the condition read the fact bits of the flags section?
    pub fn needs_flags(&self) -> bool {
        match self {
            Cond::All(v) | Cond::Any(v) => v.iter().any(Cond::needs_flags),
            Cond::Promotes(_) | Cond::Castles(_) => true,
            _ => false,
        }
    }

    /// Does the condition read the material section?
    pub fn needs_material(&self) -> bool {
        match self {
            Cond::All(v) | Cond::Any(v) => v.iter().any(Cond::needs_material),
            Cond::Here(_) | Cond::Somewhere(_) => true,
            _ => false,
        }
    }
}

/// Which tags the query's header test reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TagsRead {
    /// These names (the first tag of each name is what the evaluator reads), and
    /// whether the game number is read too.
    Names(Vec<String>, bool),
    /// Possibly any tag (the game is given every tag, in order).
    All,
}

/// What an index may rule out for a query.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The tags the header test needs.
    pub tags: TagsRead,
    /// The condition on the replay facts.
    pub cond: Cond,
}

/// Filters that read what the run has done outside the game (a file, perhaps written by
/// an earlier game; the number of the last game read): a query holding one is never
/// pruned, as the games passed over would change what they read.
fn reads_the_run(f: &Filter) -> bool {
    matches!(f, Filter::Keyword62(Keyword62Filter::ReadFile(..) | Keyword62Filter::LastGameNumber))
}

/// The pruning plan of a query, or `None` when no game may be passed over.
pub fn plan(query: &Query) -> Option<Plan> {
    let ir = query.ir();
    let root = ir.root?;
    let s = &ir.settings;
    if s.matchcount.0 == 0 || s.matchcount.0 > s.matchcount.1 && s.matchcount.1 == 0 {
        return None;
    }
    if query.sequential() || ir.vars.iter().any(|v| v.persistent) {
        return None;
    }
    // What a game that does not match leaves seen (a message, a file written, state a
    // later game reads), decided by the IR's effect facts: such a game may not go unread.
    if props::effects(ir, root) == props::Effects::BeyondTheGame
        || (0..ir.len()).any(|i| reads_the_run(ir.get(FilterId(i as u32))))
    {
        return None;
    }
    let cond = need(ir, root, 0).lift();
    Some(Plan { tags: tags_read(ir), cond })
}

/// A header-only query's root cut into its conjuncts, each compiled on its own with the
/// tags it reads, so that each is tested once per distinct value of its own tags (a game
/// matches when every part does). `None` when the root is not such a conjunction, or a
/// part reads anything but the header or could see what another part did (variables,
/// regular-expression groups, comments: [`props::depends_on_evaluation_order`]), or the
/// settings restrict games (then the whole query is tested at once).
pub fn header_parts(query: &Query) -> Option<Vec<(Query, TagsRead)>> {
    let ir = query.ir();
    let root = ir.root?;
    let Filter::Logic(LogicFilter::And(parts)) = ir.get(root) else {
        return None;
    };
    let s = &ir.settings;
    if parts.len() < 2 || s.gamenumber.is_some() || s.result.is_some() || s.per_game {
        return None;
    }
    let mut memo = props::Memo::default();
    let mut out = Vec::with_capacity(parts.len());
    for &p in parts {
        if !props::is_header_only_before_replay(ir, p) || props::depends_on_evaluation_order(ir, p, &mut memo) {
            return None;
        }
        let ids = subtree(ir, p)?;
        let mut sub = ir.clone();
        sub.root = Some(p);
        let mut part = Query::new(sub).ok()?;
        part.set_limits(query.limits().clone());
        if part.needs_positions() {
            return None;
        }
        out.push((part, tags_of(ir, ids.into_iter())));
    }
    Some(out)
}

/// The filters under `id` (itself included), or `None` past the analysis depth.
fn subtree(ir: &Ir, id: FilterId) -> Option<Vec<FilterId>> {
    let mut out = Vec::new();
    let mut stack = vec![(id, 0usize)];
    while let Some((f, depth)) = stack.pop() {
        if depth > 200 || out.len() > 100_000 {
            return None;
        }
        out.push(f);
        stack.extend(crate::ir::visit::children(ir.get(f)).into_iter().map(|c| (c, depth + 1)));
    }
    Some(out)
}

/// The tags the query's header filters read.
fn tags_read(ir: &Ir) -> TagsRead {
    tags_of(ir, (0..ir.len()).map(|i| FilterId(i as u32)))
}

/// The tags the filters `ids` and the query's settings read.
fn tags_of(ir: &Ir, ids: impl Iterator<Item = FilterId>) -> TagsRead {
    let mut names: Vec<String> = Vec::new();
    let mut number = ir.settings.gamenumber.is_some();
    let add = |n: &str, names: &mut Vec<String>| {
        if !names.iter().any(|x| x == n) {
            names.push(n.to_string());
        }
    };
    if ir.settings.result.is_some() {
        add("Result", &mut names);
    }
    if ir.settings.per_game {
        return TagsRead::All;
    }
    for id in ids {
        match ir.get(id) {
            Filter::Header(HeaderFilter::Field(field)) => match field {
                // Transforms swap the colour in the IR itself, so the colour here is
                // the tag read.
                HeaderField::Player(c) => add(if c.is_white() { "White" } else { "Black" }, &mut names),
                HeaderField::Elo(c) => {
                    // The rating comes from the Elo tag, or from the name (`Carlsen (2850)`).
                    add(if c.is_white() { "White" } else { "Black" }, &mut names);
                    add(if c.is_white() { "WhiteElo" } else { "BlackElo" }, &mut names);
                }
                HeaderField::Event => add("Event", &mut names),
                HeaderField::Site => add("Site", &mut names),
                HeaderField::Date => add("Date", &mut names),
                HeaderField::Eco => add("ECO", &mut names),
                HeaderField::ResultText => add("Result", &mut names),
                HeaderField::Tag(t) => add(t, &mut names),
            },
            Filter::Header(HeaderFilter::Result(_)) => add("Result", &mut names),
            Filter::Header(HeaderFilter::Year) => add("Date", &mut names),
            Filter::Header(HeaderFilter::GameNumber) => number = true,
            Filter::LegacyFact(_)
            | Filter::Yacpdb(_)
            | Filter::Header(HeaderFilter::HhdbAward { .. } | HeaderFilter::GameTextContains(_)) => {
                return TagsRead::All
            }
            _ => {}
        }
    }
    TagsRead::Names(names, number)
}

const ALL_SQUARES: Bitboard = Bitboard::FULL;

/// The kinds of [`Material`] a piece mask names (`None` when it admits empty squares).
fn kinds_of(mask: PieceMask) -> Option<u16> {
    if mask.0 & PieceMask::EMPTY.0 != 0 {
        return None;
    }
    let mut kinds = 0u16;
    for color in [Color::White, Color::Black] {
        for role in Role::ALL {
            if mask.0 & PieceMask::piece(color, role).0 != 0 {
                kinds |= 1 << facts::kind_of(color, role);
            }
        }
    }
    Some(kinds)
}

/// A set of squares whose pieces are all of certain kinds: the kinds, and whether it is
/// exactly every piece of those kinds (the whole board).
fn piece_set(ir: &Ir, id: FilterId, depth: usize) -> Option<(u16, bool)> {
    if depth > 64 {
        return None;
    }
    match ir.get(id) {
        Filter::Sets(SetFilter::Pieces { mask, squares }) => Some((kinds_of(*mask)?, *squares == ALL_SQUARES)),
        Filter::Sets(SetFilter::Union(parts)) => {
            let mut kinds = 0;
            let mut exact = true;
            for &p in parts {
                let (k, e) = piece_set(ir, p, depth + 1)?;
                kinds |= k;
                exact &= e;
            }
            Some((kinds, exact))
        }
        // An intersection lies inside each part: a piece set among them bounds it.
        Filter::Sets(SetFilter::Intersection(parts)) => {
            parts.iter().find_map(|&p| piece_set(ir, p, depth + 1)).map(|(k, _)| (k, false))
        }
        _ => None,
    }
}

fn number(ir: &Ir, id: FilterId) -> Option<i64> {
    match ir.get(id) {
        Filter::Numbers(NumberFilter::Number(n)) => Some(*n),
        _ => None,
    }
}

/// A set (or `#set`) operand: its kinds and exactness.
fn counted(ir: &Ir, id: FilterId) -> Option<(u16, bool)> {
    match ir.get(id) {
        Filter::Sets(SetFilter::Count(inner)) => piece_set(ir, *inner, 0),
        _ => piece_set(ir, id, 0),
    }
}

fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// What `count <op> n` says of the count, as an inclusive range (`None`: nothing).
fn range(op: CmpOp, n: i64) -> Option<(u32, u32)> {
    let n = n.clamp(-1, 1 << 20);
    let (lo, hi) = match op {
        CmpOp::Eq => (n, n),
        CmpOp::Lt => (0, n - 1),
        CmpOp::Le => (0, n),
        CmpOp::Gt => (n + 1, i64::from(u32::MAX)),
        CmpOp::Ge => (n, i64::from(u32::MAX)),
        CmpOp::Ne => return None,
    };
    if hi < 0 {
        // No count is below 0: the comparison never holds.
        return Some((1, 0));
    }
    Some((lo.max(0) as u32, hi as u32))
}

fn here(h: Here) -> Cond {
    Cond::Here(h)
}

/// What the truth of filter `id`, at a position of the game tree, implies.
fn need(ir: &Ir, id: FilterId, depth: usize) -> Cond {
    if depth > 200 {
        return Cond::True;
    }
    match ir.get(id) {
        Filter::Logic(LogicFilter::And(parts)) => Cond::all(parts.iter().map(|&p| need(ir, p, depth + 1)).collect()),
        Filter::Logic(LogicFilter::Or(parts)) => Cond::any(parts.iter().map(|&p| need(ir, p, depth + 1)).collect()),
        Filter::Logic(LogicFilter::If { then, otherwise: Some(other), .. }) => {
            Cond::any(vec![need(ir, *then, depth + 1), need(ir, *other, depth + 1)])
        }
        Filter::PositionState(PositionStateFilter::Mate) => here(Here { mate: true, ..Here::default() }),
        Filter::PositionState(PositionStateFilter::Stalemate) => here(Here { stalemate: true, ..Here::default() }),
        Filter::PositionState(PositionStateFilter::ToMove(c)) => here(Here { to_move: Some(*c), ..Here::default() }),
        // `A → B`, `A ← B` and chains: every set of the chain holds a piece.
        Filter::Geometry(GeometryFilter::Attacks { attackers, targets, .. }) => {
            Cond::all(vec![non_empty(ir, *attackers), non_empty(ir, *targets)])
        }
        Filter::Geometry(GeometryFilter::AttackChain { sets, .. }) => {
            Cond::all(sets.iter().map(|&s| non_empty(ir, s)).collect())
        }
        Filter::Numbers(NumberFilter::Compare { first, rest }) if rest.len() == 1 => {
            let (op, second) = rest[0];
            // How many images of a transform match (`CountMatching`, kept when its body
            // depends on evaluation order), compared with a number: when the count is at
            // least 1, one of the images matches here.
            let counting = match (ir.get(*first), ir.get(second)) {
                (Filter::Logic(LogicFilter::CountMatching(parts)), _) => number(ir, second).map(|n| (parts, op, n)),
                (_, Filter::Logic(LogicFilter::CountMatching(parts))) => {
                    number(ir, *first).map(|n| (parts, flip(op), n))
                }
                _ => None,
            };
            if let Some((parts, op, n)) = counting {
                return match range(op, n) {
                    Some((lo, _)) if lo >= 1 => Cond::any(parts.iter().map(|&p| need(ir, p, depth + 1)).collect()),
                    _ => Cond::True,
                };
            }
            let (set, op, n) = match (counted(ir, *first), number(ir, second)) {
                (Some(set), Some(n)) => (set, op, n),
                _ => match (number(ir, *first), counted(ir, second)) {
                    (Some(n), Some(set)) => (set, flip(op), n),
                    _ => return Cond::True,
                },
            };
            let (kinds, exact) = set;
            match range(op, n) {
                Some((lo, hi)) if kinds != 0 => {
                    // A part of the board counts at most the pieces of its kinds: only
                    // a lower bound carries over.
                    let hi = if exact { hi } else { u32::MAX };
                    if lo == 0 && hi == u32::MAX {
                        return Cond::True;
                    }
                    here(Here { counts: vec![Count { kinds, lo, hi }], ..Here::default() })
                }
                _ => Cond::True,
            }
        }
        // A move filter that yields squares matches only when such a move was played
        // (one that counts moves always matches).
        Filter::Move(m)
            if matches!(m.source, MoveSource::Previous | MoveSource::Next)
                && matches!(m.value, MoveValue::To | MoveValue::From) =>
        {
            let mut parts = Vec::new();
            if m.promote != 0 {
                let mut bits = 0;
                for role in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                    if m.promote & (1 << role as u8) != 0 {
                        for c in [Color::White, Color::Black] {
                            bits |= facts::promotion_bit(c, role).unwrap_or(0);
                        }
                    }
                }
                if bits != 0 {
                    parts.push(Cond::Promotes(bits));
                }
            }
            let castles = match m.kind {
                MoveKind::CastleKingside => facts::CASTLE_WHITE_KING | facts::CASTLE_BLACK_KING,
                MoveKind::CastleQueenside => facts::CASTLE_WHITE_QUEEN | facts::CASTLE_BLACK_QUEEN,
                MoveKind::Castle => {
                    facts::CASTLE_WHITE_KING
                        | facts::CASTLE_BLACK_KING
                        | facts::CASTLE_WHITE_QUEEN
                        | facts::CASTLE_BLACK_QUEEN
                }
                _ => 0,
            };
            if castles != 0 {
                parts.push(Cond::Castles(castles));
            }
            Cond::all(parts)
        }
        // A set of pieces as a filter: true when it is not empty.
        _ => non_empty(ir, id),
    }
}

/// What "the set `id` is not empty" implies: when it is a set of pieces, a piece of
/// its kinds stands on the board.
fn non_empty(ir: &Ir, id: FilterId) -> Cond {
    match piece_set(ir, id, 0) {
        Some((kinds, _)) if kinds != 0 => {
            here(Here { counts: vec![Count { kinds, lo: 1, hi: u32::MAX }], ..Here::default() })
        }
        _ => Cond::True,
    }
}
