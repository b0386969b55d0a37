//! Keywords that search or move through the game tree: `find`, `line`, `path`, `echo`, positions.
//!
//! Also the tree relations (`lca`, `ancestor`, `distance`…), `child`/`parent`, the path status
//! words and `yacpdb` predicates written inside a CQL 6 script.
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/game-tree.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;
use crate::ir::{GameTreeFilter, NumberFilter, PositionStateFilter};

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &[
    "child",
    "currentposition",
    "depth",
    "distance",
    "echo",
    "find",
    "initialposition",
    "lastposition",
    "lca",
    "line",
    "parent",
    "path",
    "pathcount",
    "pathcountunfocused",
    "pathlastposition",
    "pathstart",
    "position",
    "positionid",
    "ancestor",
    "descendant",
    "try",
    "virtualmainline",
    "yacpdb",
];

impl Parser<'_> {
    /// A filter that looks at other positions of the game: `find`, `line`, `path`, `echo`, `child`, `lca`, …
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_game_tree_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        if w == "yacpdb" {
            return self.parse_yacpdb(sp).map(Some);
        }
        match w {
            "virtualmainline" => self.simple(Filter::PositionState(PositionStateFilter::VirtualMainline), sp),
            "parent" => self.simple(Filter::GameTree(GameTreeFilter::Tree(TreeStep::Parent)), sp),
            "pathcount" => self.simple(Filter::GameTree(GameTreeFilter::PathStatus(PathStatus::Count)), sp),
            "pathcountunfocused" => {
                self.simple(Filter::GameTree(GameTreeFilter::PathStatus(PathStatus::CountUnfocused)), sp)
            }
            "pathstart" => self.simple(Filter::GameTree(GameTreeFilter::PathStatus(PathStatus::Start)), sp),
            "pathlastposition" => {
                self.simple(Filter::GameTree(GameTreeFilter::PathStatus(PathStatus::LastPosition)), sp)
            }
            "initialposition" => self.simple(Filter::GameTree(GameTreeFilter::Tree(TreeStep::Initial)), sp),
            "currentposition" => self.simple(Filter::GameTree(GameTreeFilter::Tree(TreeStep::Current)), sp),
            "lastposition" => self.simple(Filter::GameTree(GameTreeFilter::Tree(TreeStep::Last)), sp),
            "depth" => self.simple(Filter::GameTree(GameTreeFilter::Depth), sp),
            "positionid" => self.simple(Filter::GameTree(GameTreeFilter::PositionId), sp),
            "lca" => {
                let a = self.args_exact(w, 2, sp)?;
                self.simple(Filter::GameTree(GameTreeFilter::Lca(a[0], a[1])), sp)
            }
            // `ancestor(A B)`: A lies strictly before B on B's way from the start;
            // `descendant(A B)`: A lies strictly after B (CQL 6.2 `DescendantNode`).
            "ancestor" | "descendant" => {
                let a = self.args_exact(w, 2, sp)?;
                let rel = if w == "ancestor" { TreeRelation::Ancestor } else { TreeRelation::Descendant };
                self.simple(Filter::GameTree(GameTreeFilter::TreeRelation(rel, a[0], a[1])), sp)
            }
            "distance" => {
                let a = self.args_exact(w, 2, sp)?;
                self.simple(Filter::GameTree(GameTreeFilter::Distance(a[0], a[1])), sp)
            }
            "position" => {
                // `position N`: the position whose positionid is N; the argument is an
                // arithmetic expression (`position positionid+inc`).
                // A `:` after the number applies to the position (`position 0 : child`), as
                // CQL 6.2 reads it: the number stops before a `:`, as in a subscript.
                let outer = std::mem::replace(&mut self.in_subscript, true);
                let n = self.parse_expr(BP_ADD);
                self.in_subscript = outer;
                self.simple(Filter::GameTree(GameTreeFilter::PositionById(n?)), sp)
            }
            "child" => {
                let n = if self.at_sym(Sym::LParen) && !self.peek().space_before {
                    self.args_exact("child", 1, sp)?[0]
                } else {
                    self.add(Filter::Numbers(NumberFilter::Number(0)), sp)
                };
                self.simple(Filter::GameTree(GameTreeFilter::Child(n)), sp)
            }
            "find" => {
                // Parameters in any order (CQL 6.2 `match_findnode`): `quiet` (no `Found`
                // notes), `all`, `<--`, a range (`find 2 check`: exactly two positions;
                // `find 1 n check`, `find count check`).
                let mut direction = FindDirection::Forward;
                let mut all = false;
                let mut quiet = false;
                let mut range = None;
                loop {
                    if self.eat_word("quiet") {
                        quiet = true;
                    } else if self.eat_word("all") {
                        all = true;
                    } else if self.eat_sym(Sym::LineBackward) {
                        direction = FindDirection::Backward;
                    } else if let Some(r) = range.is_none().then(|| self.range_here()).flatten() {
                        range = Some(r);
                    } else {
                        break;
                    }
                }
                // The body is a whole filter, `and`/`or` and comparisons included
                // (`find T == C`: the position where piece T stands on C). A counting
                // `find all` / `find N M` is a number, and a comparison after a body that
                // has no value compares the count (`find all check >= 30`), but one after
                // a body with a value belongs to the body (`find all ply == 3` counts the
                // positions of ply 3), as CQL 6.2 reads it.
                if all && range.is_some() {
                    // CQL 6.2 `match_findnode`: "use one or the other".
                    self.error_hint(
                        "`find` takes a range or `all`, not both",
                        sp,
                        Some("`find all F` counts every position; `find 2 5 F` bounds the count".to_string()),
                    );
                    return Err(());
                }
                let counting = all || range.is_some();
                let body = if counting { self.parse_counted_body()? } else { self.parse_expr(BP_OR)? };
                let s = Self::join(sp, self.ir.span(body));
                let Some(r) = range else {
                    return Ok(Some(
                        self.add(
                            Filter::GameTree(GameTreeFilter::Find { direction, all, range: None, quiet, body }),
                            s,
                        ),
                    ));
                };
                let found = self.add(
                    Filter::GameTree(GameTreeFilter::Find {
                        direction,
                        all: false,
                        range: Some((r.low, r.high)),
                        quiet,
                        body,
                    }),
                    s,
                );
                Ok(self.compare_with_range_ends(found, &r, false, s))
            }
            "line" => self.parse_line(sp),
            "path" => self.parse_path(sp),
            "echo" => {
                // `echo quiet (s t)`: `quiet` silences the comments `echo` writes on the two
                // positions (CQL 6.2 `EchoNode`).
                let marks = !self.eat_word("quiet");
                self.expect_sym(Sym::LParen, "`(` after `echo`")?;
                let mut names = Vec::new();
                while let Tok::Word(n) = &self.peek().tok {
                    names.push(n.clone());
                    self.bump();
                }
                self.expect_sym(Sym::RParen, "`)` after the echo variables")?;
                if names.len() != 2 {
                    self.error("`echo` needs two position variables: `echo (s t)`", sp);
                    return Err(());
                }
                let source = self.ir.var(&names[0], VarKind::Position);
                let target = self.ir.var(&names[1], VarKind::Position);
                let in_all = if self.at_word("in") && matches!(&self.peek_at(1).tok, Tok::Word(a) if a == "all") {
                    self.bump();
                    self.bump();
                    true
                } else {
                    false
                };
                let body = self.parse_expr(BP_LOOSE)?;
                self.simple(
                    Filter::GameTree(GameTreeFilter::Echo { source, target, in_all, variations: false, marks, body }),
                    sp,
                )
            }
            "try" => self.simple(Filter::GameTree(GameTreeFilter::Try), sp),
            _ => return Ok(None),
        }
        .map(Some)
    }

    /// The body of a counting `find`, read as CQL 6.2 reads it (`Tokens::match_findnode`
    /// takes a whole filter, and `Tokens::match_in_x` reads a comparison only after an
    /// operand that has a value): `find all {ply < 3} == 3` counts the positions where
    /// `{ply < 3} == 3` holds, while `find all check >= 30` compares the count of checks
    /// (CQL 6.2's arithmetic levels, `Tokens::match_relop_x` and `match_addop_x`, likewise
    /// stop before an operator whose left side has no value).
    fn parse_counted_body(&mut self) -> PResult<FilterId> {
        let outer = self.counted_body_depth.replace(self.depth + 1);
        let body = self.parse_expr(BP_OR);
        self.counted_body_depth = outer;
        body
    }

    /// Does an arithmetic or comparison operator after `lhs` end the counting `find` body
    /// being read (see [`Parser::parse_counted_body`])? Only at the body's own level, and
    /// only when `lhs` has no value in CQL 6.2 (a variable always has one): the operator
    /// then applies to the count (`find all check + 1 >= 3`).
    pub(super) fn operator_ends_counted_body(&self, lhs: FilterId) -> bool {
        struct Noted<'n>(&'n super::super::types::KindNotes);
        impl crate::ir::props::KindContext for Noted<'_> {
            fn reading(&self) -> crate::ir::props::Reading {
                crate::ir::props::Reading::Text
            }
            fn noted(&self, id: FilterId) -> Option<crate::ir::props::Kind> {
                self.0.get(id)
            }
        }
        self.counted_body_depth == Some(self.depth)
            && crate::ir::props::kind(&self.ir, lhs, &Noted(&self.kinds)) == crate::ir::props::Kind::Logical
    }
}
