//! Keywords of board geometry: directions, rays, pins, squares between, files and ranks.
//!
//! The attack arrows and `attacks`/`attackedby` are operators, read in the expression parser.
//! Part of the CQL 6 parser ([`super`]): one file per filter family, matching the
//! sections of `docs/attacks-and-geometry.md`; [`Parser::parse_word`] tries each family in turn.

use super::*;
use crate::ir::{GeometryFilter, NumberFilter};

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &[
    "between",
    "file",
    "makesquare",
    "pin",
    "rank",
    "ray",
    "xray",
    "through",
    "up",
    "down",
    "left",
    "right",
    "northeast",
    "northwest",
    "southeast",
    "southwest",
    "vertical",
    "horizontal",
    "orthogonal",
    "diagonal",
    "anydirection",
];

impl Parser<'_> {
    /// A geometric filter: a direction (`up 2 K`), `ray`, `xray`, `pin`, `between`, `file`, `makesquare`, …
    /// `Ok(None)` when `w` is none of them; the word itself has been consumed.
    pub(super) fn parse_attacks_and_geometry_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        if let Some(dirs) = directions_of(w) {
            // The range (CQL 6.2 `match_directionparameter`): 1 to 7 unless written; an end
            // may be negative (the other way) or a numeric variable read when it runs.
            let here = self.span_here();
            if self.at_word("count") {
                self.error_hint(
                    format!("`{w} count`: a direction needs a distance"),
                    here,
                    Some(format!("give a distance from -7 to 7, e.g. `{w} 1 3 K`")),
                );
                return Err(());
            }
            let (mut min, mut max, mut range_variables) = (1i8, 7i8, (None, None));
            if let Some(r) = self.range_here() {
                let span = Self::join(here, self.toks[self.pos.saturating_sub(1)].span);
                // A distance beyond the board can never be reached: refused, not clamped.
                let end = |n: i64, var: Option<crate::ir::VarId>| match var {
                    Some(_) => Some(0),
                    None => i8::try_from(n).ok().filter(|n| (-7..=7).contains(n)),
                };
                let (Some(a), Some(b)) = (end(r.low, r.low_var), end(r.high, r.high_var)) else {
                    let n = if end(r.low, r.low_var).is_none() { r.low } else { r.high };
                    self.error_hint(
                        format!("`{w} {n}`: a direction reaches at most 7 squares"),
                        span,
                        Some("give a distance from -7 to 7".to_string()),
                    );
                    return Err(());
                };
                if r.low_var.is_none() && r.high_var.is_none() && a > b {
                    self.error_hint(
                        format!("`{w} {a} {b}`: the smaller distance comes first"),
                        span,
                        Some(format!("write `{w} {b} {a}`")),
                    );
                    return Err(());
                }
                (min, max, range_variables) = (a, b, (r.low_var, r.high_var));
                if self.at_sym(Sym::Minus) && matches!(self.peek_at(1).tok, Tok::Number(_)) {
                    let s = self.span_here();
                    self.error_hint(
                        "a direction range is written with a space",
                        s,
                        Some(format!("write `{w} {min} N`, not `{w} {min}-N`")),
                    );
                    return Err(());
                }
            }
            let arg = self.parse_expr(BP_POSTFIX)?;
            let s = Self::join(sp, self.ir.span(arg));
            return Ok(Some(
                self.add(Filter::Geometry(GeometryFilter::Direction { dirs, min, max, range_variables, arg }), s),
            ));
        }
        match w {
            "file" => self.tight_arg(|a| Filter::Numbers(NumberFilter::Call(Builtin::File, vec![a])), sp),
            "rank" => self.tight_arg(|a| Filter::Numbers(NumberFilter::Call(Builtin::Rank, vec![a])), sp),
            "makesquare" => {
                // `makesquare (f r)`, `makesquare ("e4")` or a single string, read as a whole
                // sum as CQL 6.2 does: `makesquare "a" + "2"` is the square a2.
                let a = if self.at_sym(Sym::LParen) { self.parse_args()? } else { vec![self.parse_expr(BP_ADD)?] };
                if a.is_empty() || a.len() > 2 {
                    self.error("`makesquare` takes a string or a file and a rank", sp);
                    return Err(());
                }
                self.simple(Filter::Numbers(NumberFilter::Call(Builtin::MakeSquare, a)), sp)
            }
            "between" => {
                let a = self.args_exact(w, 2, sp)?;
                self.simple(Filter::Geometry(GeometryFilter::Between(a[0], a[1])), sp)
            }
            "ray" | "xray" => {
                // Several direction words may be given (`ray diagonal vertical (Q r)`); the
                // ray may run in any of them (CQL 6.2 joins them). None: any direction.
                let mut dirs = Directions(0);
                // `ray attack (A b c)` (or `attacks`): every direction, each start square's
                // piece only along the lines it moves on, as `xray` reads them (CQL 6.2
                // `match_raydirections`: the ray is an attack ray then, direction words after
                // it are not read).
                if w == "ray" && matches!(&self.peek().tok, Tok::Word(a) if a == "attack" || a == "attacks") {
                    self.bump();
                    let sets = self.parse_args()?;
                    if sets.len() < 2 {
                        self.error("`ray attack` needs at least two sets", sp);
                        return Err(());
                    }
                    return self
                        .simple(Filter::Geometry(GeometryFilter::Ray { dirs: Directions::ANY, sets, xray: true }), sp)
                        .map(Some);
                }
                while let Tok::Word(d) = &self.peek().tok {
                    let Some(d) = directions_of(d) else { break };
                    let t = self.bump();
                    if dirs.0 & d.0 != 0 {
                        // CQL 6.2 refuses a direction named twice (`ray up vertical`).
                        self.error_hint(
                            format!("`{w}`: this direction was already given"),
                            t.span,
                            Some("name each direction once".to_string()),
                        );
                        return Err(());
                    }
                    dirs = Directions(dirs.0 | d.0);
                }
                if dirs.0 == 0 {
                    dirs = Directions::ANY;
                }
                let sets = self.parse_args()?;
                if sets.len() < 2 {
                    self.error(format!("`{w}` needs at least two sets"), sp);
                    return Err(());
                }
                self.simple(Filter::Geometry(GeometryFilter::Ray { dirs, sets, xray: w == "xray" }), sp)
            }
            "pin" => {
                let (mut from, mut through, mut to) = (None, None, None);
                // CQL 6.2: the first parameter written chooses the value (pinned by default).
                let mut part = None;
                loop {
                    let slot = if self.eat_word("from") {
                        part.get_or_insert(PinPart::Pinners);
                        &mut from
                    } else if self.eat_word("through") {
                        part.get_or_insert(PinPart::Pinned);
                        &mut through
                    } else if self.eat_word("to") {
                        part.get_or_insert(PinPart::Targets);
                        &mut to
                    } else {
                        break;
                    };
                    // `pin … to [qrnb] & ~zz`: an argument is a set expression that
                    // may be an intersection (and anything tighter).
                    let v = self.parse_expr(BP_INTER)?;
                    *slot = Some(v);
                }
                let part = part.unwrap_or(PinPart::Pinned);
                self.simple(Filter::Geometry(GeometryFilter::PinOf { from, through, to, part }), sp)
            }
            _ => return Ok(None),
        }
        .map(Some)
    }
}
