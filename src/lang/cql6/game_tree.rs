//! Keywords that search or move through the game tree: `find`, `line`, `path`, `echo`, positions.
//!
//! Also the tree relations (`lca`, `ancestor`, `distance`…), `child`/`parent`, the path status
//! words and `yacpdb` predicates written inside a CQL 6 script.
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/game-tree.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;

impl Parser<'_> {
    /// A filter that looks at other positions of the game: `find`, `line`, `path`, `echo`, `child`, `lca`, …
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_game_tree_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        if w == "yacpdb" {
            return self.parse_yacpdb(sp).map(Some);
        }
        match w {
            "virtualmainline" => self.simple(Filter::VirtualMainline, sp),
            "parent" => self.simple(Filter::Tree(TreeStep::Parent), sp),
            "pathcount" => self.simple(Filter::PathStatus(PathStatus::Count), sp),
            "pathcountunfocused" => self.simple(Filter::PathStatus(PathStatus::CountUnfocused), sp),
            "pathstart" => self.simple(Filter::PathStatus(PathStatus::Start), sp),
            "pathlastposition" => self.simple(Filter::PathStatus(PathStatus::LastPosition), sp),
            "initialposition" => self.simple(Filter::Tree(TreeStep::Initial), sp),
            "currentposition" => self.simple(Filter::Tree(TreeStep::Current), sp),
            "lastposition" => self.simple(Filter::Tree(TreeStep::Last), sp),
            "depth" => self.simple(Filter::Depth, sp),
            "positionid" => self.simple(Filter::PositionId, sp),
            "lca" => {
                let a = self.args_exact(w, 2, sp)?;
                self.simple(Filter::Lca(a[0], a[1]), sp)
            }
            // `ancestor(A B)`: A lies strictly before B on B's way from the start;
            // `descendant(A B)`: A lies strictly after B (CQL 6.2 `DescendantNode`).
            "ancestor" | "descendant" => {
                let a = self.args_exact(w, 2, sp)?;
                let rel = if w == "ancestor" { TreeRelation::Ancestor } else { TreeRelation::Descendant };
                self.simple(Filter::TreeRelation(rel, a[0], a[1]), sp)
            }
            "distance" => {
                let a = self.args_exact(w, 2, sp)?;
                self.simple(Filter::Distance(a[0], a[1]), sp)
            }
            "position" => {
                // `position N`: the position whose positionid is N; the argument is an
                // arithmetic expression (`position positionid+inc`).
                let n = self.parse_expr(BP_ADD)?;
                self.simple(Filter::PositionById(n), sp)
            }
            "child" => {
                let n = if self.at_sym(Sym::LParen) && !self.peek().space_before {
                    self.args_exact("child", 1, sp)?[0]
                } else {
                    self.add(Filter::Number(0), sp)
                };
                self.simple(Filter::Child(n), sp)
            }
            "find" => {
                // Parameters in any order (CQL 6.2 `match_findnode`): `quiet` (no `Found`
                // notes), `all`, `<--`, a range.
                let mut direction = FindDirection::Forward;
                let mut all = false;
                let mut quiet = false;
                let mut range = None;
                // `find v F` with a numeric variable v: at least v positions (CQL 6.2 ranges
                // take variables, `match_rangeconstituent`).
                let mut at_least = None;
                let mut at_most = None;
                loop {
                    let numeric_var = match (&self.peek().tok, &self.peek_at(1).tok) {
                        (Tok::Word(name), next) if range.is_none() && at_least.is_none() && !is_assign(next) => self
                            .ir
                            .find_var(name)
                            .filter(|v| self.ir.vars[v.0 as usize].kind == VarKind::Value)
                            .filter(|_| !matches!(next, Tok::Sym(s) if cmp_op(*s).is_some() || matches!(s, Sym::Plus | Sym::Minus | Sym::Star | Sym::Slash | Sym::Percent))),
                        _ => None,
                    };
                    if let Some(var) = numeric_var {
                        let t = self.bump();
                        at_least = Some(self.add(Filter::Var(var), t.span));
                    } else if self.eat_word("quiet") {
                        quiet = true;
                    } else if self.eat_word("all") {
                        all = true;
                    } else if self.eat_sym(Sym::LineBackward) {
                        direction = FindDirection::Backward;
                    } else if let (None, Tok::Number(lo), false) =
                        (range, &self.peek().tok, self.operator_at(1))
                    {
                        // A number followed by an operator starts the body (`find 2 <= 8`):
                        // CQL 6.2 `match_rangeconstituent`.
                        let lo = *lo;
                        self.bump();
                        let hi = if let (Tok::Number(hi), false) = (self.peek().tok.clone(), self.operator_at(1)) {
                            self.bump();
                            hi
                        } else {
                            i64::MAX
                        };
                        range = Some((lo, hi));
                        // `find 1 v F`: the upper bound is a numeric variable (CQL 6.2
                        // `match_rangeconstituent` takes one at either end).
                        if hi == i64::MAX {
                            if let Some(var) = self.range_variable_here() {
                                let t = self.bump();
                                at_most = Some(self.add(Filter::Var(var), t.span));
                            }
                        }
                    } else {
                        break;
                    }
                }
                // A counting `find all` / `find N M` is a number: a comparison after it
                // compares the count (`find all check >= 30`). A plain `find` takes a
                // comparison as its body (`find T == C`: the position where piece T
                // stands on C), as the reference does.
                if all && (range.is_some() || at_least.is_some()) {
                    // CQL 6.2 `match_findnode`: "use one or the other".
                    self.error_hint(
                        "`find` takes a range or `all`, not both",
                        sp,
                        Some("`find all F` counts every position; `find 2 5 F` bounds the count".to_string()),
                    );
                    return Err(());
                }
                let counting = all || range.is_some() || at_least.is_some();
                let body = self.parse_expr(if counting { BP_ADD } else { BP_OR })?;
                let s = Self::join(sp, self.ir.span(body));
                if let Some(bound) = at_most {
                    let found = self.add(Filter::Find { direction, all, range, quiet, body }, s);
                    return Ok(Some(self.add(Filter::Compare { first: found, rest: vec![(CmpOp::Le, bound)] }, s)));
                }
                if let Some(bound) = at_least {
                    let found = self.add(Filter::Find { direction, all: true, range: None, quiet, body }, s);
                    return Ok(Some(self.add(Filter::Compare { first: found, rest: vec![(CmpOp::Ge, bound)] }, s)));
                }
                Ok(self.add(Filter::Find { direction, all, range, quiet, body }, s))
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
                self.simple(Filter::Echo { source, target, in_all, variations: false, marks, body }, sp)
            }
            "try" => self.simple(Filter::Try, sp),
            _ => return Ok(None),
        }
        .map(Some)
    }
}
