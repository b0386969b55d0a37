//! `:relation (…)`: how a later position P2 relates to the current position P1 (pieces
//! gone, pieces new, squares unchanged or changed, side to move, under board transforms).
//!
//! Takes in: the list after `:relation`, read keyword by keyword through the keyword table
//! ([`super::keywords`], which fills in a [`Relation`] with the parts below).
//! Gives out: a [`Relation`], lowered when its position list is finished (`:pattern` needs
//! all of the list's designators) into `echo (s t)` over square counts.
//! Must never: panic on any script; every problem is a [`Diagnostic`] naming the keyword.

use crate::ir::{GameTreeFilter, LogicFilter, PositionStateFilter, SetFilter, VariableFilter};
use shakmaty::{Bitboard, Color, Role};

use super::{err, Cursor, Lowerer, Scope};
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::{Filter, FilterId, PieceMask, TreeRelation, VarKind};
use crate::lang::legacy::designator::{Designator, PieceKinds, Range};

mod relmap;

/// Which side is to move in the later position of a `:relation`, compared with the first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SideToMove {
    /// `:samesidetomove` (the default).
    Same,
    /// `:changesidetomove`.
    Change,
    /// `:ignoresidetomove`.
    Ignore,
}

/// A parsed `:relation (…)` list: how a later position P2 must relate to the current P1.
pub(super) struct Relation {
    /// `:missingpiececount D range`: pieces of P1 matching D on squares empty in P2.
    missing: (Designator, Span, Range),
    /// `:newpiececount D range`: pieces of P2 matching D on squares empty in P1.
    new: (Designator, Span, Range),
    /// `:originalsamecount range`: allowable squares holding the same piece in P1 and P2.
    same: Option<Range>,
    /// `:originaldifferentcount range`: allowable squares occupied in P1 whose content
    /// differs in P2.
    different: Option<Range>,
    /// `:pattern`: allowable squares are the squares the list's designators match in P1.
    pattern: bool,
    /// Side-to-move condition.
    side: SideToMove,
    /// Where P2 may lie.
    scope: Scope,
    /// Transform keywords (`:flip`, `:shift` …): P2 is compared with an image of P1.
    transforms: Vec<String>,
    /// The `:relation` keyword and its list.
    span: Span,
}

impl Relation {
    /// The relation of a bare `:relation ()`: the same occupied squares, the same side to
    /// move, P2 on the main line.
    pub(super) fn new(keyword: Span, list: Span) -> Relation {
        let pieces = Designator { kinds: PieceKinds::Mask(PieceMask::ANY_PIECE), squares: u64::MAX };
        let none = Range::Between(0, 0);
        Relation {
            missing: (pieces.clone(), keyword, none),
            new: (pieces, keyword, none),
            same: None,
            different: None,
            pattern: false,
            side: SideToMove::Same,
            scope: Scope::MainLine,
            transforms: Vec::new(),
            span: Span::new(keyword.start as usize, list.end as usize),
        }
    }

    /// `:missingpiececount D r`, `:newpiececount D r`.
    pub(super) fn piece_count(&mut self, word: &str, _span: Span, rc: &mut Cursor) -> Result<(), Diagnostic> {
        let (d, ds) = rc.designator(word)?;
        let PieceKinds::Mask(m) = d.kinds else {
            return Err(err("tags cannot be used together with `:relation`", ds));
        };
        let (r, _) = rc.range(word)?;
        // Only pieces are counted: an empty-square part of D (`.`, `?`) adds nothing.
        let d = Designator { kinds: PieceKinds::Mask(PieceMask(m.0 & PieceMask::ANY_PIECE.0)), ..d };
        if word == ":missingpiececount" {
            self.missing = (d, ds, r);
        } else {
            self.new = (d, ds, r);
        }
        Ok(())
    }

    /// `:originalsamecount r`, `:originaldifferentcount r`.
    pub(super) fn original_count(&mut self, word: &str, _span: Span, rc: &mut Cursor) -> Result<(), Diagnostic> {
        let r = rc.range(word)?.0;
        if word == ":originalsamecount" {
            self.same = Some(r);
        } else {
            self.different = Some(r);
        }
        Ok(())
    }

    /// `:pattern`: only the squares the list's designators match in P1 are counted.
    pub(super) fn pattern(&mut self, _word: &str, _span: Span, _rc: &mut Cursor) -> Result<(), Diagnostic> {
        self.pattern = true;
        Ok(())
    }

    /// `:samesidetomove`, `:changesidetomove`, `:ignoresidetomove`.
    pub(super) fn side_to_move(&mut self, word: &str, _span: Span, _rc: &mut Cursor) -> Result<(), Diagnostic> {
        self.side = match word {
            ":changesidetomove" => SideToMove::Change,
            ":ignoresidetomove" => SideToMove::Ignore,
            _ => SideToMove::Same,
        };
        Ok(())
    }

    /// `:variations`, `:variationsonly`: P2 may (must) lie in a variation.
    pub(super) fn scope(&mut self, word: &str, _span: Span, _rc: &mut Cursor) -> Result<(), Diagnostic> {
        self.scope = if word == ":variations" { Scope::All } else { Scope::VariationsOnly };
        Ok(())
    }

    /// A board transform: P2 is compared with the images of P1 under its group.
    pub(super) fn transform(&mut self, word: &str, span: Span, _rc: &mut Cursor) -> Result<(), Diagnostic> {
        self.transforms.push(word.to_string());
        if relmap::compose(&self.transforms).len() > relmap::MAX_MAPS {
            return Err(err(
                format!("the transforms of this `:relation` give more than {} images", relmap::MAX_MAPS),
                span,
            )
            .with_hint("combine at most one `:shift…` with `:flip…` keywords of two images each"));
        }
        Ok(())
    }
}

impl Lowerer {
    /// Lower a relation into `echo (s t)`: t is a later position (s ≺ t) in the relation's
    /// scope, the side to move and the square counts compare s's board with t's.
    pub(super) fn relation_filter(&mut self, rel: &Relation, designators: &[FilterId]) -> FilterId {
        let span = rel.span;
        let s = self.fresh_var("relation", VarKind::Position);
        let t = self.fresh_var("relation", VarKind::Position);
        let sv = self.add(Filter::Variables(VariableFilter::Var(s)), span);
        let tv = self.add(Filter::Variables(VariableFilter::Var(t)), span);
        let at_s = |me: &mut Lowerer, body: FilterId| {
            me.add(Filter::GameTree(GameTreeFilter::AtPosition { at: sv, body }), span)
        };
        let mut parts =
            vec![self.add(Filter::GameTree(GameTreeFilter::TreeRelation(TreeRelation::Ancestor, sv, tv)), span)];
        match rel.scope {
            Scope::MainLine => parts.push(self.add(Filter::PositionState(PositionStateFilter::Mainline), span)),
            Scope::VariationsOnly => parts.push(self.add(Filter::PositionState(PositionStateFilter::Variation), span)),
            Scope::All => {}
        }
        if rel.side != SideToMove::Ignore {
            let white_now = self.add(Filter::PositionState(PositionStateFilter::ToMove(Color::White)), span);
            let white_then = at_s(self, white_now);
            let black_now = self.add(Filter::PositionState(PositionStateFilter::ToMove(Color::Black)), span);
            let black_then = at_s(self, black_now);
            let (a, b) = if rel.side == SideToMove::Same { (white_now, black_now) } else { (black_now, white_now) };
            let first = self.add(Filter::Logic(LogicFilter::And(vec![white_then, a])), span);
            let second = self.add(Filter::Logic(LogicFilter::And(vec![black_then, b])), span);
            parts.push(self.add(Filter::Logic(LogicFilter::Or(vec![first, second])), span));
        }
        let maps = relmap::compose(&rel.transforms);
        let mut images = Vec::with_capacity(maps.len());
        for map in &maps {
            let counts = self.relation_counts(rel, designators, sv, map);
            images.push(self.and(counts, span));
        }
        parts.push(match images.len() {
            1 => images[0],
            _ => self.add(Filter::Logic(LogicFilter::Or(images)), span),
        });
        let body = self.add(Filter::Logic(LogicFilter::And(parts)), span);
        self.add(
            Filter::GameTree(GameTreeFilter::Echo {
                source: s,
                target: t,
                in_all: false,
                variations: rel.scope != Scope::MainLine,
                marks: false,
                body,
            }),
            span,
        )
    }

    /// The square counts of a relation, comparing P2 (the current position) with the
    /// image of P1 (the position bound to `sv`) under `map`.
    fn relation_counts(
        &mut self,
        rel: &Relation,
        designators: &[FilterId],
        sv: FilterId,
        map: &[relmap::Step],
    ) -> Vec<FilterId> {
        let span = rel.span;
        let mut parts = Vec::new();
        let empty_now =
            self.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::EMPTY, squares: Bitboard::FULL }), span);
        // P1's sets, carried through the map: `then(X)` is the image of X at s.
        let then = |me: &mut Lowerer, x: FilterId| {
            let at = me.add(Filter::GameTree(GameTreeFilter::AtPosition { at: sv, body: x }), span);
            if map.is_empty() {
                at
            } else {
                me.map_squares(map, at, span)
            }
        };
        let empty_then = if map.is_empty() {
            then(self, empty_now)
        } else {
            // Squares no piece of P1 is carried to.
            let occupied =
                self.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::ANY_PIECE, squares: Bitboard::FULL }), span);
            let carried = then(self, occupied);
            self.add(Filter::Sets(SetFilter::Complement(carried)), span)
        };
        // Pieces of P1 (matching D) whose squares are empty in P2, and the reverse.
        for (sets, (d, ds, range)) in [(true, &rel.missing), (false, &rel.new)] {
            // A designator made of checked parts cannot fail here (no tags).
            let set = self.designator(d, *ds).unwrap_or(empty_now);
            let vanished = if sets {
                let before = then(self, set);
                self.add(Filter::Sets(SetFilter::Intersection(vec![before, empty_now])), span)
            } else {
                self.add(Filter::Sets(SetFilter::Intersection(vec![set, empty_then])), span)
            };
            let n = self.add(Filter::Sets(SetFilter::Count(vanished)), span);
            parts.push(self.compare(n, *range, span));
        }
        if rel.same.is_some() || rel.different.is_some() {
            // Squares holding the same piece in both positions.
            let mut same_parts = Vec::new();
            for color in [Color::White, Color::Black] {
                for role in Role::ALL {
                    let p = self.add(
                        Filter::Sets(SetFilter::Pieces {
                            mask: PieceMask::piece(color, role),
                            squares: Bitboard::FULL,
                        }),
                        span,
                    );
                    let before = then(self, p);
                    same_parts.push(self.add(Filter::Sets(SetFilter::Intersection(vec![before, p])), span));
                }
            }
            let mut same = self.add(Filter::Sets(SetFilter::Union(same_parts)), span);
            let occupied_now =
                self.add(Filter::Sets(SetFilter::Pieces { mask: PieceMask::ANY_PIECE, squares: Bitboard::FULL }), span);
            let occupied_then = then(self, occupied_now);
            let mut original = occupied_then;
            if rel.pattern {
                let pattern = match designators.len() {
                    0 => self.add(Filter::False, span),
                    1 => designators[0],
                    _ => self.add(Filter::Sets(SetFilter::Union(designators.to_vec())), span),
                };
                let allowed = then(self, pattern);
                same = self.add(Filter::Sets(SetFilter::Intersection(vec![same, allowed])), span);
                original = self.add(Filter::Sets(SetFilter::Intersection(vec![occupied_then, allowed])), span);
            }
            if let Some(r) = rel.same {
                let n = self.add(Filter::Sets(SetFilter::Count(same)), span);
                parts.push(self.compare(n, r, span));
            }
            if let Some(r) = rel.different {
                let not_same = self.add(Filter::Sets(SetFilter::Complement(same)), span);
                let differ = self.add(Filter::Sets(SetFilter::Intersection(vec![original, not_same])), span);
                let n = self.add(Filter::Sets(SetFilter::Count(differ)), span);
                parts.push(self.compare(n, r, span));
            }
        }
        parts
    }
}
