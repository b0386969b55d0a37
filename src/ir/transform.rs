//! Compile-time expansion of CQL transforms (`flip`, `shift`, `rotate90`, `flipcolor`, …).
//!
//! Takes in: an [`Ir`] whose tree (from `ir.root`) may contain [`Filter::Transform`] nodes.
//! Gives out: the same arena with every reachable transform replaced by the copies of its
//! body mapped through each board transformation of its group (an `Or`, a `Union` for a
//! set-valued body, or a `CountMatching` for `count` / ranged forms), and `ir.root`
//! pointing at the rebuilt tree. Unchanged sub-trees keep their ids, because the arena is
//! hash-consed: a copy equal to the original *is* the original (`flip {check}` adds no node).
//! Must never: evaluate anything, look at a game, panic on a strange tree (deep nesting and
//! runaway growth are refused with a diagnostic).
//!
//! # Decisions worth knowing
//! * Copies are de-duplicated: `T F` is the `Or`/`Union` of the *distinct* images, and
//!   `T count F` counts distinct images that match (`flip count check` is 1, not 8).
//! * Colour swap (`flipcolor`, `reversecolor`) swaps piece colours, `wtm`/`btm`, player and
//!   Elo colours and the decisive results, mirrors ranks (and so `up`↔`down`), and turns the
//!   numeric `sidetomove` and `colortype x` into their negations, so that
//!   `flipcolor sidetomove == white` means "either side to move". Number constants are
//!   never changed.
//! * Castling: board maps that mirror files onto files (a↔h: `flipvertical`, the 180°
//!   rotation) swap `o-o` and `o-o-o`; every other map leaves castling alone.
//! * Shifts move each named square, except that a square whose whole file is in its set
//!   does not move vertically and a square whose whole rank is in its set does not move
//!   horizontally (so `Kd1-8`, `Ka-h2` and the full board keep their shape, as the CQL
//!   documentation requires). Squares pushed off the board vanish; a copy in which a
//!   non-empty square set vanishes entirely is dropped.
//! * Directly nested transforms compose (`shift flip F` maps `F` through every shift of
//!   every flip): a copy that leaves the board is dropped on its own, so `shift flip
//!   {kg8 Qg7 Pf6}` finds the pattern shifted in every orientation, not only unshifted.
//! * `light` and `dark` swap under a map that sends light squares to dark ones
//!   (`flipcolor light ♗` is `light ♗ | dark ♝`, since the rank mirror changes colours).
//! * `rotate45` only turns directions; a body naming a particular square (a square set
//!   that is not the whole board) is an error.

use crate::ir::{
    GeometryFilter, HeaderFilter, Keyword62Filter, LogicFilter, NumberFilter, PositionStateFilter, SetFilter,
    VariableFilter,
};
mod board_map;
#[cfg(test)]
mod tests;

pub use board_map::{group, BoardMap};

use rustc_hash::FxHashMap as HashMap;

use shakmaty::Bitboard;

use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::{Builtin, CmpOp, Filter, FilterId, GameResult, HeaderField, Ir, MoveKind, TransformKind};

pub use super::props::MAX_DEPTH;

/// Largest arena (in nodes) the expansion may grow to before refusing the query.
pub const MAX_NODES: usize = 2_000_000;

use super::visit::{children, map_children};

/// Why mapping a body through one basic transform stopped.
enum Stop {
    /// A named square set left the board: this copy does not exist.
    Dropped,
    /// The query cannot be expanded.
    Refused(Vec<Diagnostic>),
}

/// Replace every [`Filter::Transform`] reachable from `ir.root` by the copies of its body
/// (directly nested transforms composed, other inner ones first), and point `ir.root` at the rebuilt tree.
///
/// Errors: `rotate45` over a body that names a particular square, nesting deeper than
/// [`MAX_DEPTH`], or an expansion larger than [`MAX_NODES`]; each diagnostic carries the
/// span of the offending node.
pub fn expand(ir: &mut Ir) -> Result<(), Vec<Diagnostic>> {
    // The walk recurses once per nesting level; run it on a thread whose stack holds
    // [`MAX_DEPTH`] levels even in a debug build, whatever stack the caller has.
    let outcome = std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("cqlrs-transform".into())
            .stack_size(EXPAND_STACK_BYTES)
            .spawn_scoped(scope, || expand_in_place(ir));
        worker.ok().map(|handle| handle.join())
    });
    match outcome {
        Some(Ok(result)) => result,
        Some(Err(_)) => Err(vec![Diagnostic::new(
            "internal error while expanding transforms",
            ir.root.map_or(Span::default(), |r| ir.first_span(r)),
        )]),
        // No thread could be started: expand on the caller's stack.
        None => expand_in_place(ir),
    }
}

/// Stack given to the expansion thread.
const EXPAND_STACK_BYTES: usize = 64 << 20;

/// [`expand`] on the current thread's stack.
fn expand_in_place(ir: &mut Ir) -> Result<(), Vec<Diagnostic>> {
    let Some(root) = ir.root else {
        return Ok(());
    };
    let mut memo = HashMap::default();
    let new_root = expand_node(ir, root, 0, &mut memo)?;
    ir.root = Some(new_root);
    Ok(())
}

fn too_deep(span: Span) -> Vec<Diagnostic> {
    vec![Diagnostic::new("query nested too deeply to expand its transforms", span)
        .with_hint("split the query into smaller filters")]
}

fn too_large(span: Span) -> Vec<Diagnostic> {
    vec![Diagnostic::new("transforms expand this query beyond the size limit", span)
        .with_hint("nest fewer transforms, or name fewer squares inside `shift`")]
}

fn expand_node(
    ir: &mut Ir,
    id: FilterId,
    depth: usize,
    memo: &mut HashMap<FilterId, FilterId>,
) -> Result<FilterId, Vec<Diagnostic>> {
    if let Some(&done) = memo.get(&id) {
        return Ok(done);
    }
    if depth > MAX_DEPTH {
        return Err(too_deep(ir.first_span(id)));
    }
    let node = ir.get(id).clone();
    let result = if let Filter::Transform { kind, range, count, body } = node {
        let span = ir.first_span(id);
        let bodies = inner_copies(ir, body, depth + 1, memo)?;
        let expanded = apply_transform(ir, kind, range, count, &bodies, span, depth)?;
        if ir.len() > MAX_NODES {
            return Err(too_large(span));
        }
        expanded
    } else {
        let rebuilt = map_children(&node, |c| expand_node(ir, c, depth + 1, memo))?;
        if rebuilt == node {
            id
        } else {
            ir.add_copy(rebuilt, id)
        }
    };
    memo.insert(id, result);
    Ok(result)
}

/// The bodies an outer transform maps, already expanded.
///
/// A body that is itself a plain transform (no `count`, no range) gives its distinct
/// copies one by one, so that nested transforms compose: `shift flip F` is the set of
/// images of `F` under every shift of every flip, and a shift that pushes one flipped copy
/// off the board drops only that copy, not every copy at once. Any other body is expanded
/// as a whole and mapped as one.
fn inner_copies(
    ir: &mut Ir,
    body: FilterId,
    depth: usize,
    memo: &mut HashMap<FilterId, FilterId>,
) -> Result<Vec<FilterId>, Vec<Diagnostic>> {
    if depth > MAX_DEPTH {
        return Err(too_deep(ir.first_span(body)));
    }
    match ir.get(body).clone() {
        Filter::Transform { kind, range: None, count: false, body: inner } => {
            let bodies = inner_copies(ir, inner, depth + 1, memo)?;
            transform_copies(ir, kind, &bodies, ir.first_span(body), depth)
        }
        _ => Ok(vec![expand_node(ir, body, depth, memo)?]),
    }
}

/// The distinct images of `bodies` under every basic transform of `kind`'s group; an image
/// in which a named square set left the board is left out.
fn transform_copies(
    ir: &mut Ir,
    kind: TransformKind,
    bodies: &[FilterId],
    span: Span,
    depth: usize,
) -> Result<Vec<FilterId>, Vec<Diagnostic>> {
    if kind == TransformKind::Rotate45 {
        let named: Vec<FilterId> = bodies.iter().flat_map(|&b| squares_named(ir, b)).collect();
        if !named.is_empty() {
            return Err(named
                .into_iter()
                .map(|sq| {
                    Diagnostic::new("`rotate45` cannot be applied to a particular square", ir.span_within(sq, span))
                        .with_hint("`rotate45` only turns directions; use `flip` or `rotate90` for squares")
                })
                .collect());
        }
    }
    let mut copies: Vec<FilterId> = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    // Copies that differ only in the names `currenttransform` gives are one copy, as in
    // CQL 6.2 (`CurrentTransformNode::transformmemberless` orders all such nodes alike).
    let mut names_memo = bodies.iter().any(|&b| names_transform(ir, b)).then(HashMap::default);
    for map in group(kind) {
        let mut memo = HashMap::default();
        for &body in bodies {
            match map_node(ir, map, body, depth, &mut memo) {
                Ok(copy) => {
                    let key = match names_memo.as_mut() {
                        Some(m) => without_transform_names(ir, copy, m),
                        None => copy,
                    };
                    if seen.insert(key) {
                        copies.push(copy);
                    }
                }
                Err(Stop::Dropped) => {}
                Err(Stop::Refused(d)) => return Err(d),
            }
            if ir.len() > MAX_NODES {
                return Err(too_large(span));
            }
        }
    }
    Ok(copies)
}

/// Build the replacement of one transform from the (expanded) bodies it maps.
fn apply_transform(
    ir: &mut Ir,
    kind: TransformKind,
    range: Option<(i64, i64)>,
    count: bool,
    bodies: &[FilterId],
    span: Span,
    depth: usize,
) -> Result<FilterId, Vec<Diagnostic>> {
    let copies = transform_copies(ir, kind, bodies, span, depth)?;
    let is_set = bodies.first().is_some_and(|&b| super::props::is_set_expression(ir, b));
    let result = if let Some((low, high)) = range {
        let counted = ir.add(Filter::Logic(LogicFilter::CountMatching(copies)), span);
        let low_id = ir.add(Filter::Numbers(NumberFilter::Number(low)), span);
        if low == high {
            ir.add(Filter::Numbers(NumberFilter::Compare { first: counted, rest: vec![(CmpOp::Eq, low_id)] }), span)
        } else {
            let at_least = ir
                .add(Filter::Numbers(NumberFilter::Compare { first: counted, rest: vec![(CmpOp::Ge, low_id)] }), span);
            if high == i64::MAX {
                at_least
            } else {
                let high_id = ir.add(Filter::Numbers(NumberFilter::Number(high)), span);
                let at_most = ir.add(
                    Filter::Numbers(NumberFilter::Compare { first: counted, rest: vec![(CmpOp::Le, high_id)] }),
                    span,
                );
                ir.add(Filter::Logic(LogicFilter::And(vec![at_least, at_most])), span)
            }
        }
    } else if count {
        ir.add(Filter::Logic(LogicFilter::CountMatching(copies)), span)
    } else if copies.len() == 1 {
        copies[0]
    } else if copies.is_empty() {
        ir.add(Filter::False, span)
    } else if is_set {
        ir.add(Filter::Sets(SetFilter::Union(copies)), span)
    } else if copies
        .iter()
        .any(|&c| super::props::depends_on_evaluation_order(ir, c, &mut super::props::Memo::default()))
    {
        // CQL 6.2 evaluates every image of a transformed body (`OrbitNode::match_position`
        // counts the images that match), so the effects of each image happen even after
        // one has matched: not an `or`, which stops at the first.
        let counted = ir.add(Filter::Logic(LogicFilter::CountMatching(copies)), span);
        let one = ir.add(Filter::Numbers(NumberFilter::Number(1)), span);
        ir.add(Filter::Numbers(NumberFilter::Compare { first: counted, rest: vec![(CmpOp::Ge, one)] }), span)
    } else {
        ir.add(Filter::Logic(LogicFilter::Or(copies)), span)
    };
    Ok(result)
}

/// The square-set nodes under `root` that name particular squares (not the whole board,
/// not empty), in tree order, each once.
fn squares_named(ir: &Ir, root: FilterId) -> Vec<FilterId> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![root];
    let mut found = Vec::new();
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let node = ir.get(id);
        let squares = match node {
            Filter::Sets(SetFilter::Squares(bb)) => Some(*bb),
            Filter::Sets(SetFilter::Pieces { squares, .. }) => Some(*squares),
            _ => None,
        };
        if let Some(bb) = squares {
            if bb != Bitboard::FULL && bb != Bitboard::EMPTY {
                found.push(id);
            }
        }
        let mut kids = children(node);
        kids.reverse();
        stack.extend(kids);
    }
    found
}

/// Does any node under `root` name the current transform (`currenttransform`)?
fn names_transform(ir: &Ir, root: FilterId) -> bool {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        let node = ir.get(id);
        if matches!(node, Filter::Keyword62(Keyword62Filter::CurrentTransform(_))) {
            return true;
        }
        stack.extend(children(node));
    }
    false
}

/// `root` with every `currenttransform` name blanked: the identity of a copy for telling
/// copies apart.
fn without_transform_names(ir: &mut Ir, root: FilterId, memo: &mut HashMap<FilterId, FilterId>) -> FilterId {
    if let Some(&done) = memo.get(&root) {
        return done;
    }
    let node = ir.get(root).clone();
    let result = match &node {
        Filter::Keyword62(Keyword62Filter::CurrentTransform(names)) if names.is_empty() => root,
        Filter::Keyword62(Keyword62Filter::CurrentTransform(_)) => {
            let span = ir.first_span(root);
            ir.add(Filter::Keyword62(Keyword62Filter::CurrentTransform(String::new())), span)
        }
        other => {
            let rebuilt = map_children::<()>(other, |c| Ok(without_transform_names(ir, c, memo)))
                .unwrap_or_else(|_| other.clone());
            if rebuilt == node {
                root
            } else {
                let span = ir.first_span(root);
                ir.add(rebuilt, span)
            }
        }
    };
    memo.insert(root, result);
    result
}

/// The image of one node under one basic transform (memoised per transform).
fn map_node(
    ir: &mut Ir,
    map: BoardMap,
    id: FilterId,
    depth: usize,
    memo: &mut HashMap<FilterId, Result<FilterId, ()>>,
) -> Result<FilterId, Stop> {
    if map.is_identity() {
        return Ok(id);
    }
    if let Some(done) = memo.get(&id) {
        return (*done).map_err(|_| Stop::Dropped);
    }
    if depth > MAX_DEPTH {
        return Err(Stop::Refused(too_deep(ir.first_span(id))));
    }
    let node = ir.get(id).clone();
    let span = ir.first_span(id);
    let shifting = matches!(map, BoardMap::Shift { .. } | BoardMap::EdgeShift { .. });
    let vanished = |before: Bitboard, after: Bitboard| shifting && before.any() && after.is_empty();
    let mut recurse = |ir: &mut Ir, c: FilterId| map_node(ir, map, c, depth + 1, memo);
    let mapped: Result<Filter, Stop> = match &node {
        // `notransform F`: F stays as written in every copy.
        Filter::NoTransform(_) => Ok(node.clone()),
        Filter::Keyword62(Keyword62Filter::CurrentTransform(names)) => {
            Ok(Filter::Keyword62(Keyword62Filter::CurrentTransform(map.prefix_name(names))))
        }
        Filter::Sets(SetFilter::Squares(bb)) => {
            let image = map.map_squares(*bb);
            if vanished(*bb, image) {
                Err(Stop::Dropped)
            } else {
                Ok(Filter::Sets(SetFilter::Squares(image)))
            }
        }
        Filter::Sets(SetFilter::Pieces { mask, squares }) => {
            let image = map.map_squares(*squares);
            if vanished(*squares, image) {
                Err(Stop::Dropped)
            } else {
                Ok(Filter::Sets(SetFilter::Pieces { mask: map.map_mask(*mask), squares: image }))
            }
        }
        Filter::PositionState(PositionStateFilter::ToMove(c)) => {
            Ok(Filter::PositionState(PositionStateFilter::ToMove(map.map_color(*c))))
        }
        Filter::Header(HeaderFilter::Field(HeaderField::Player(c))) => {
            Ok(Filter::Header(HeaderFilter::Field(HeaderField::Player(map.map_color(*c)))))
        }
        Filter::Header(HeaderFilter::Field(HeaderField::Elo(c))) => {
            Ok(Filter::Header(HeaderFilter::Field(HeaderField::Elo(map.map_color(*c)))))
        }
        Filter::Header(HeaderFilter::Result(r)) if map.swaps_colors() => {
            Ok(Filter::Header(HeaderFilter::Result(match r {
                GameResult::WhiteWins => GameResult::BlackWins,
                GameResult::BlackWins => GameResult::WhiteWins,
                GameResult::Draw => GameResult::Draw,
            })))
        }
        Filter::PositionState(PositionStateFilter::SideToMove) if map.swaps_colors() => {
            let plain = ir.add(Filter::PositionState(PositionStateFilter::SideToMove), span);
            Ok(Filter::Numbers(NumberFilter::Neg(plain)))
        }
        Filter::Numbers(NumberFilter::Call(Builtin::ColorType, args)) if map.swaps_colors() => {
            let mut mapped_args = Vec::with_capacity(args.len());
            let mut failure = None;
            for &a in args {
                match recurse(ir, a) {
                    Ok(x) => mapped_args.push(x),
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
            }
            match failure {
                Some(e) => Err(e),
                None => {
                    let call = ir.add(Filter::Numbers(NumberFilter::Call(Builtin::ColorType, mapped_args)), span);
                    Ok(Filter::Numbers(NumberFilter::Neg(call)))
                }
            }
        }
        Filter::Variables(VariableFilter::IdentityIter { var, mask, body }) => recurse(ir, *body)
            .map(|body| Filter::Variables(VariableFilter::IdentityIter { var: *var, mask: map.map_mask(*mask), body })),
        other => {
            let rebuilt = map_children(other, |c| recurse(ir, c));
            rebuilt.map(|f| match f {
                Filter::Geometry(GeometryFilter::Direction { dirs, min, max, range_variables, arg }) => {
                    Filter::Geometry(GeometryFilter::Direction {
                        dirs: map.map_directions(dirs),
                        min,
                        max,
                        range_variables,
                        arg,
                    })
                }
                Filter::Geometry(GeometryFilter::Ray { dirs, sets, xray }) => {
                    Filter::Geometry(GeometryFilter::Ray { dirs: map.map_directions(dirs), sets, xray })
                }
                // A map that sends light squares to dark ones turns `light` into `dark`.
                Filter::Numbers(NumberFilter::Call(Builtin::Light, args)) if map.swaps_square_colours() => {
                    Filter::Numbers(NumberFilter::Call(Builtin::Dark, args))
                }
                Filter::Numbers(NumberFilter::Call(Builtin::Dark, args)) if map.swaps_square_colours() => {
                    Filter::Numbers(NumberFilter::Call(Builtin::Light, args))
                }
                Filter::Move(mut m) if map.mirrors_files() => {
                    m.kind = match m.kind {
                        MoveKind::CastleKingside => MoveKind::CastleQueenside,
                        MoveKind::CastleQueenside => MoveKind::CastleKingside,
                        k => k,
                    };
                    Filter::Move(m)
                }
                // --x is x: keep colour swaps of negated numbers from piling up.
                Filter::Numbers(NumberFilter::Neg(inner)) if map.swaps_colors() && inner != neg_child(&node) => {
                    match ir.get(inner) {
                        Filter::Numbers(NumberFilter::Neg(x)) => ir.get(*x).clone(),
                        _ => Filter::Numbers(NumberFilter::Neg(inner)),
                    }
                }
                f => f,
            })
        }
    };
    let result = match mapped {
        Ok(filter) if filter == node => Ok(id),
        Ok(filter) => Ok(ir.add_copy(filter, id)),
        Err(Stop::Dropped) => Err(Stop::Dropped),
        Err(Stop::Refused(d)) => return Err(Stop::Refused(d)),
    };
    memo.insert(id, result.as_ref().map(|&x| x).map_err(|_| ()));
    result
}

/// The argument of a `Neg` node (or an impossible id for any other node).
fn neg_child(filter: &Filter) -> FilterId {
    match filter {
        Filter::Numbers(NumberFilter::Neg(x)) => *x,
        _ => FilterId(u32::MAX),
    }
}
