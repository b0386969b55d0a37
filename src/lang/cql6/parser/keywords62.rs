//! CQL 6.2 keywords read by their own small parsers: `notransform`, `currenttransform`,
//! `similarposition`, `readfile`, `writefile`, `equal`, `extension`, `cql_abort`,
//! `pathdebug`, `lastgamenumber`, `consecutivemoves` with its optional range, and the
//! filters about the move that led to the current position: `currentmove X――Y`,
//! `nullmove`, `primary`, `secondary`, `enpassantsquare`, and `castle` and `enpassant`
//! standing alone.
//!
//! Each function is called by [`Parser::parse_word`] after the keyword itself was read,
//! and lowers the construct straight to IR (see the variants' documentation in
//! [`crate::ir::Filter`]).

use super::super::lexer::Tok;
use super::{PResult, Parser, BP_DASH, BP_LOOSE, BP_POSTFIX};
use crate::diag::Span;
use crate::ir::{Directions, Filter, FilterId, LineChoice, MoveFilter, MoveKind, MoveSource, VarKind};
use crate::ir::{
    GeometryFilter, Keyword62Filter, LogicFilter, OutputFilter, PositionStateFilter, SetFilter, VariableFilter,
};
use shakmaty::{Bitboard, Color};

/// The keywords this family reads (its share of [`super::KEYWORDS`]).
pub(super) const WORDS: &[&str] = &[
    "notransform",
    "currenttransform",
    "similarposition",
    "readfile",
    "writefile",
    "equal",
    "extension",
    "cql_abort",
    "pathdebug",
    "lastgamenumber",
    "consecutivemoves",
    "currentmove",
    "nullmove",
    "primary",
    "secondary",
    "enpassantsquare",
    "castle",
    "enpassant",
];

impl Parser<'_> {
    /// One of this module's keywords (already read, at `sp`), or `None` for any other word.
    pub(super) fn parse_keywords62_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        match w {
            "notransform" | "currenttransform" | "similarposition" | "readfile" | "writefile" | "equal"
            | "extension" | "cql_abort" | "pathdebug" | "lastgamenumber" | "consecutivemoves" | "currentmove"
            | "nullmove" | "primary" | "secondary" | "enpassantsquare" | "castle" | "enpassant" => {
                self.parse_keyword62(w, sp).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// Parse the rest of one of this module's keywords `w` (already read, at `sp`).
    fn parse_keyword62(&mut self, w: &str, sp: Span) -> PResult<FilterId> {
        match w {
            "notransform" => {
                let body = self.parse_expr(BP_LOOSE)?;
                let s = Self::join(sp, self.ir.span(body));
                Ok(self.add(Filter::NoTransform(body), s))
            }
            "currenttransform" => Ok(self.add(Filter::Keyword62(Keyword62Filter::CurrentTransform(String::new())), sp)),
            "similarposition" => self.parse_similarposition(sp),
            "readfile" => {
                let name = self.parse_expr(BP_POSTFIX)?;
                let s = Self::join(sp, self.ir.span(name));
                Ok(self.add(Filter::Keyword62(Keyword62Filter::ReadFile(name)), s))
            }
            "writefile" => {
                let a = self.args_exact("writefile", 2, sp)?;
                Ok(self.add(Filter::Keyword62(Keyword62Filter::WriteFile(a[0], a[1])), sp))
            }
            "equal" => {
                let a = self.args_exact("equal", 2, sp)?;
                Ok(self.add(Filter::Keyword62(Keyword62Filter::Equal(a[0], a[1])), sp))
            }
            // CQL 6.2's `extension` is a filter that never matches (`ExtensionNode`).
            "extension" => Ok(self.add(Filter::False, sp)),
            "cql_abort" => {
                let (line, column) = self.line_column(sp);
                Ok(self.add(Filter::Keyword62(Keyword62Filter::Abort(format!("line {line}, column {column}"))), sp))
            }
            "pathdebug" => Ok(self.add(Filter::Keyword62(Keyword62Filter::PathDebug), sp)),
            "lastgamenumber" => Ok(self.add(Filter::Keyword62(Keyword62Filter::LastGameNumber), sp)),
            "consecutivemoves" => self.parse_consecutivemoves(sp),
            "currentmove" => self.parse_currentmove(sp),
            // The move that led here: a null move (`--` in the PGN), the main continuation
            // of the position before (`primary`) or a variation (`secondary`). False at the
            // start of the game (CQL 6.2 `PastMoveNode`).
            "nullmove" => {
                Ok(self.add(Filter::Move(Box::new(MoveFilter { kind: MoveKind::Null, ..Self::previous_move() })), sp))
            }
            "primary" | "secondary" => {
                let line = if w == "primary" { LineChoice::Primary } else { LineChoice::Secondary };
                Ok(self.add(Filter::Move(Box::new(MoveFilter { line, ..Self::previous_move() })), sp))
            }
            "enpassantsquare" => Ok(self.enpassantsquare(sp)),
            // Standing alone, `castle` and `enpassant` (like `o-o` and `o-o-o`) ask about the
            // move that led here: a castling of either side, an en passant capture (CQL 6.2
            // `match_pastmovenode`). Inside `move` they describe the move tested instead.
            "castle" | "enpassant" => {
                let kind = if w == "castle" { MoveKind::Castle } else { MoveKind::EnPassant };
                Ok(self.add(Filter::Move(Box::new(MoveFilter { kind, ..Self::previous_move() })), sp))
            }
            _ => {
                self.error(format!("`{w}` is not a keyword of this parser"), sp);
                Err(())
            }
        }
    }

    /// Any move that led into the current position (none at the start of the game).
    pub(super) fn previous_move() -> MoveFilter {
        MoveFilter::any(MoveSource::Previous)
    }

    /// `currentmove X――Y`: the move filter `X――Y` (any `――` or `×` form, with its target
    /// and promotion) tested on the move that led into the current position, in the position
    /// before it. CQL 6.2 (`match_previousdashnode`) refuses anything but a `――`/`×` there.
    fn parse_currentmove(&mut self, sp: Span) -> PResult<FilterId> {
        let m = self.parse_expr(BP_DASH)?;
        let mut mf = match self.ir.get(m) {
            Filter::Move(mf) if mf.source == MoveSource::Next => mf.clone(),
            _ => {
                self.error_hint(
                    "`currentmove` must be followed by a move filter `――` (or `×`)",
                    self.ir.span(m),
                    Some("write e.g. `currentmove ♘――` or `currentmove a4--a1`".to_string()),
                );
                return Err(());
            }
        };
        mf.source = MoveSource::Previous;
        let s = Self::join(sp, self.ir.span(m));
        let id = self.add(Filter::Move(mf), s);
        // CQL 6.2 gives it no value to compare or combine (`currentmove ―― == 1` and
        // `currentmove ―― & currentmove ――` are refused).
        self.kinds.note(id, super::super::types::Kind::Logical);
        Ok(id)
    }

    /// `enpassantsquare` as a filter: the square of the pawn the last move captured en
    /// passant (empty when the last move was no en passant capture). CQL 6.2 defines it as
    /// `notransform if not enpassant [] else if btm down 1 to else up 1 to`.
    fn enpassantsquare(&mut self, sp: Span) -> FilterId {
        let arrival = MoveFilter { kind: MoveKind::EnPassant, ..Self::previous_move() };
        let cond = self.add(Filter::Move(Box::new(arrival.clone())), sp);
        let to_black = self.add(Filter::Move(Box::new(arrival.clone())), sp);
        let to_white = self.add(Filter::Move(Box::new(arrival)), sp);
        // After White's capture Black is to move and the taken pawn stands one rank below
        // the arrival square; after Black's, one rank above.
        let below = self.add(
            Filter::Geometry(GeometryFilter::Direction {
                dirs: Directions::DOWN,
                min: 1,
                max: 1,
                range_variables: (None, None),
                arg: to_black,
            }),
            sp,
        );
        let above = self.add(
            Filter::Geometry(GeometryFilter::Direction {
                dirs: Directions::UP,
                min: 1,
                max: 1,
                range_variables: (None, None),
                arg: to_white,
            }),
            sp,
        );
        let btm = self.add(Filter::PositionState(PositionStateFilter::ToMove(Color::Black)), sp);
        let side = self.add(Filter::Logic(LogicFilter::If { cond: btm, then: below, otherwise: Some(above) }), sp);
        let none = self.add(Filter::Sets(SetFilter::Squares(Bitboard::EMPTY)), sp);
        let square = self.add(Filter::Logic(LogicFilter::If { cond, then: side, otherwise: Some(none) }), sp);
        let fixed = self.add(Filter::NoTransform(square), sp);
        // As a filter it matches only when the set is not empty, like any set filter.
        let board = self.add(Filter::Sets(SetFilter::Squares(Bitboard::FULL)), sp);
        self.add(Filter::Sets(SetFilter::Intersection(vec![fixed, board])), sp)
    }

    /// `x =? S` (CQL 6.2 `AssignSquareNode` with `isConditional`): S is computed once into
    /// a variable of its own; when it is empty the filter fails and x keeps what it held,
    /// otherwise x is given S.
    pub(super) fn conditional_assign(&mut self, var: crate::ir::VarId, value: FilterId, sp: Span) -> FilterId {
        // A name no script can write (it holds spaces), unique to this assignment.
        let name = self.ir.vars.get(var.0 as usize).map_or(String::new(), |v| v.name.clone());
        let fresh = format!("=? of {name} #{}", self.ir.vars.len());
        let held = self.ir.var(&fresh, VarKind::Value);
        let keep = self.add(Filter::Variables(VariableFilter::Assign { var: held, op: None, value }), sp);
        // `~~y` is y itself, and the type check refuses it unless y holds a set, as CQL 6.2
        // refuses `=?` with anything but a set on its right.
        let a = self.add(Filter::Variables(VariableFilter::Var(held)), sp);
        let outside = self.add(Filter::Sets(SetFilter::Complement(a)), sp);
        let not_empty = self.add(Filter::Sets(SetFilter::Complement(outside)), sp);
        let copied = self.add(Filter::Variables(VariableFilter::Var(held)), sp);
        let assign = self.add(Filter::Variables(VariableFilter::Assign { var, op: None, value: copied }), sp);
        self.add(Filter::Logic(LogicFilter::And(vec![keep, not_empty, assign])), sp)
    }

    /// A numeric variable written as a bound of a range (`find 1 v …`): a name of a value
    /// variable not followed by an operator or an assignment (then it starts the filter).
    pub(super) fn range_variable_here(&self) -> Option<crate::ir::VarId> {
        let Tok::Word(name) = &self.peek().tok else { return None };
        if self.operator_at(1) || super::is_assign(&self.peek_at(1).tok) {
            return None;
        }
        self.ir.find_var(name).filter(|v| self.numeric_vars.contains(v))
    }

    /// 1-based line and column (in characters) of the start of `sp`.
    pub(super) fn line_column(&self, sp: Span) -> (usize, usize) {
        let before = self.src.get(..sp.start as usize).unwrap_or("");
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        (line, column)
    }

    /// `similarposition [nosort] [notransform] "FILE.pgn"`. Unless `nosort`, the games are
    /// sorted by the first game of FILE that has one of their positions (CQL 6.2 adds
    /// `sort min "submission game"` over that number).
    fn parse_similarposition(&mut self, sp: Span) -> PResult<FilterId> {
        let mut sort = true;
        let mut transform = true;
        loop {
            if self.eat_word("nosort") {
                sort = false;
            } else if self.eat_word("notransform") {
                transform = false;
            } else {
                break;
            }
        }
        let Tok::Str(file) = self.peek().tok.clone() else {
            let here = self.span_here();
            self.error_hint(
                "`similarposition` must be followed by the name of a PGN file in quotes",
                here,
                Some("write `similarposition \"games.pgn\"`".to_string()),
            );
            return Err(());
        };
        let t = self.bump();
        if file.is_empty() || !file.to_ascii_lowercase().ends_with(".pgn") {
            self.error_hint(
                format!("`similarposition` needs a `.pgn` file, not \"{file}\""),
                t.span,
                Some("name a file whose name ends in `.pgn`".to_string()),
            );
            return Err(());
        }
        let s = Self::join(sp, t.span);
        let found = self.add(
            Filter::Keyword62(Keyword62Filter::SimilarPosition { file: file.clone(), transform, game_number: false }),
            s,
        );
        if !sort {
            return Ok(found);
        }
        let number =
            self.add(Filter::Keyword62(Keyword62Filter::SimilarPosition { file, transform, game_number: true }), s);
        let sorted = self.add(
            Filter::Output(OutputFilter::Sort {
                doc: "submission game".to_string(),
                min: true,
                quiet: false,
                value: number,
            }),
            s,
        );
        Ok(self.add(Filter::Logic(LogicFilter::And(vec![found, sorted])), s))
    }

    /// `consecutivemoves [quiet] [MIN [MAX]] [quiet] (x y)`: without a range any run of one
    /// move or more matches.
    fn parse_consecutivemoves(&mut self, sp: Span) -> PResult<FilterId> {
        self.eat_word("quiet");
        // The range (CQL 6.2 `match_range`): one or two ends, each a number or a numeric
        // variable read when the filter runs (`consecutivemoves 1 v (x y)`).
        let range = self.range_here();
        let quiet = self.eat_word("quiet");
        let a = self.args_exact("consecutivemoves", 2, sp)?;
        // CQL 6.2 takes position variables only (`match_positionvariable`).
        for &arg in &a {
            let is_position_variable = matches!(self.ir.get(arg), Filter::Variables(VariableFilter::Var(v))
                if self.ir.vars.get(v.0 as usize).is_some_and(|i| matches!(i.kind, VarKind::Position | VarKind::Value)));
            if !is_position_variable {
                self.error_hint(
                    "`consecutivemoves` takes two position variables",
                    self.ir.span(arg),
                    Some("set them first, e.g. `x = position 0 y = position 2 consecutivemoves (x y)`".to_string()),
                );
                return Err(());
            }
        }
        let Some(r) = range else {
            return Ok(self.add(
                Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { x: a[0], y: a[1], min: 1, max: i64::MAX, quiet }),
                sp,
            ));
        };
        let run = self.add(
            Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { x: a[0], y: a[1], min: r.low, max: r.high, quiet }),
            sp,
        );
        Ok(self.compare_with_range_ends(run, &r, false, sp))
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Filter, Ir};
    use crate::ir::{
        GameTreeFilter, GeometryFilter, Keyword62Filter, NumberFilter, OutputFilter, SetFilter, VariableFilter,
    };

    fn parse(text: &str) -> Ir {
        crate::lang::cql6::parse(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    fn has(ir: &Ir, pred: impl Fn(&Filter) -> bool) -> bool {
        (0..ir.len()).any(|i| pred(ir.get(crate::ir::FilterId(i as u32))))
    }

    fn refused(text: &str) -> bool {
        crate::lang::cql6::parse(text).is_err()
    }

    #[test]
    fn similarposition_reads_its_words_and_adds_the_sort() {
        let ir = parse(r#"similarposition "a.pgn""#);
        assert!(has(
            &ir,
            |f| matches!(f, Filter::Output(OutputFilter::Sort { doc, min: true, .. }) if doc == "submission game")
        ));
        assert!(has(&ir, |f| matches!(f, Filter::Keyword62(Keyword62Filter::SimilarPosition { transform: true, .. }))));
        let ir = parse(r#"similarposition nosort notransform "a.pgn""#);
        assert!(!has(&ir, |f| matches!(f, Filter::Output(OutputFilter::Sort { .. }))));
        assert!(has(&ir, |f| matches!(
            f,
            Filter::Keyword62(Keyword62Filter::SimilarPosition { transform: false, game_number: false, .. })
        )));
        assert!(refused(r#"similarposition "a.cql""#));
        assert!(refused("similarposition"));
    }

    #[test]
    fn file_keywords_take_strings() {
        let ir = parse(r#"x = readfile "a.cql" writefile ("b.cqo" x)"#);
        assert!(has(&ir, |f| matches!(f, Filter::Keyword62(Keyword62Filter::ReadFile(_)))));
        assert!(has(&ir, |f| matches!(f, Filter::Keyword62(Keyword62Filter::WriteFile(..)))));
        assert!(refused(r#"writefile ("b.cqo")"#));
    }

    #[test]
    fn abort_names_its_place() {
        let ir = parse("check\n  cql_abort");
        assert!(has(&ir, |f| matches!(f, Filter::Keyword62(Keyword62Filter::Abort(at)) if at == "line 2, column 3")));
    }

    #[test]
    fn consecutivemoves_takes_a_range() {
        let text = "echo (s t) { consecutivemoves 2 5 (s t) }";
        let ir = parse(text);
        assert!(has(&ir, |f| matches!(f, Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { min: 2, max: 5, .. }))));
        let ir = parse("echo (s t) { consecutivemoves quiet 3 (s t) }");
        assert!(has(&ir, |f| matches!(f, Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { min: 3, max: 3, .. }))));
        // Reversed ends are accepted, as CQL 6.2 accepts them (`Range` checks nothing when
        // built by `match_range`): the range holds no length, so the filter never matches.
        assert!(has(&parse("echo (s t) { consecutivemoves 5 2 (s t) }"), |f| matches!(
            f,
            Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { min: 5, max: 2, .. })
        )));
    }

    #[test]
    fn currentmove_tests_the_move_that_led_here() {
        use crate::ir::MoveSource;
        let ir = parse("currentmove ♙×");
        assert!(has(&ir, |f| matches!(f, Filter::Move(m) if m.source == MoveSource::Previous && m.capture.is_some())));
        assert!(has(&parse("currentmove --"), |f| matches!(f, Filter::Move(m) if m.source == MoveSource::Previous)));
        // Only a `――` may follow, and the result has no value to compare.
        assert!(refused("currentmove check"));
        assert!(refused("currentmove legal ♔――"));
        assert!(refused("currentmove -- == 1"));
    }

    #[test]
    fn past_move_words_are_filters() {
        use crate::ir::{LineChoice, MoveKind, MoveSource};
        let prev = |f: &Filter, pred: &dyn Fn(&crate::ir::MoveFilter) -> bool| matches!(f, Filter::Move(m) if m.source == MoveSource::Previous && pred(m));
        assert!(has(&parse("nullmove"), |f| prev(f, &|m| m.kind == MoveKind::Null)));
        assert!(has(&parse("primary"), |f| prev(f, &|m| m.line == LineChoice::Primary)));
        assert!(has(&parse("secondary"), |f| prev(f, &|m| m.line == LineChoice::Secondary)));
        let ir = parse("enpassantsquare");
        assert!(has(&ir, |f| prev(f, &|m| m.kind == MoveKind::EnPassant)));
        assert!(has(&ir, |f| matches!(f, Filter::NoTransform(_))));
        let ir = parse("move enpassantsquare d5");
        assert!(has(&ir, |f| matches!(f, Filter::Move(m) if m.kind == MoveKind::EnPassant && m.capture.is_some())));
    }

    #[test]
    fn conditional_assignment_takes_sets_only() {
        let ir = parse("y=?k");
        assert!(has(&ir, |f| matches!(f, Filter::Variables(VariableFilter::Assign { op: None, .. }))));
        assert!(has(&ir, |f| matches!(f, Filter::Sets(SetFilter::Complement(_)))));
        assert!(crate::lang::cql6::parse("function x(){k} y=?x()").is_ok());
        assert!(refused("y=?3"));
        assert!(refused("y=?\"str\""));
        assert!(refused("y=?currentposition"));
        assert!(refused("function x(){k} piece y=?x()"));
    }

    #[test]
    fn line_and_find_ranges() {
        let ir = parse("line 1 3 --> check");
        assert!(has(
            &ir,
            |f| matches!(f, Filter::GameTree(GameTreeFilter::Line { params, .. }) if params.range == Some((1, 3)))
        ));
        let ir = parse("line quiet 2 firstmatch --> check");
        assert!(has(
            &ir,
            |f| matches!(f, Filter::GameTree(GameTreeFilter::Line { params, .. }) if params.range == Some((2, 2)) && params.quiet && params.first_match)
        ));
        let ir = parse("v=2 find 1 v <-- quiet check");
        assert!(has(&ir, |f| matches!(f, Filter::GameTree(GameTreeFilter::Find { range: Some((1, _)), .. }))));
        assert!(has(&ir, |f| matches!(f, Filter::Numbers(NumberFilter::Compare { .. }))));
        assert!(refused("find 1 all check"));
    }

    #[test]
    fn ascii_tree_relations_and_rays() {
        use crate::ir::{Directions, TreeRelation};
        for (text, rel) in [
            ("initialposition[<]currentposition", TreeRelation::Ancestor),
            ("initialposition [<=] currentposition", TreeRelation::AncestorOrSelf),
            ("initialposition[>]currentposition", TreeRelation::Descendant),
        ] {
            assert!(
                has(&parse(text), |f| matches!(f, Filter::GameTree(GameTreeFilter::TreeRelation(r, ..)) if *r == rel)),
                "{text}"
            );
        }
        // A piece designator right before `[` is a name being indexed in CQL 6.2.
        assert!(refused("a[<]1"));
        let ir = parse("ray diagonal vertical horizontal (Q r)");
        let all = Directions(Directions::DIAGONAL.0 | Directions::VERTICAL.0 | Directions::HORIZONTAL.0);
        assert!(has(&ir, |f| matches!(f, Filter::Geometry(GeometryFilter::Ray { dirs, .. }) if *dirs == all)));
        assert!(refused("ray up vertical (Q r)"));
        assert!(has(&parse("message quiet (\"x\")"), |f| matches!(
            f,
            Filter::Output(OutputFilter::Message { quiet: true, .. })
        )));
        assert!(has(&parse("message (\"x\")"), |f| matches!(
            f,
            Filter::Output(OutputFilter::Message { quiet: false, .. })
        )));
    }

    #[test]
    fn small_keywords_parse() {
        assert!(has(&parse("notransform a1"), |f| matches!(f, Filter::NoTransform(_))));
        assert!(has(&parse(r#"flip {Ka1 currenttransform == "<>"}"#), |f| matches!(
            f,
            Filter::Keyword62(Keyword62Filter::CurrentTransform(_))
        )));
        assert!(has(&parse("equal (check mate)"), |f| matches!(f, Filter::Keyword62(Keyword62Filter::Equal(..)))));
        assert!(has(&parse("lastgamenumber > 3"), |f| matches!(f, Filter::Keyword62(Keyword62Filter::LastGameNumber))));
        assert!(has(&parse("dihedral Ka1"), |f| matches!(f, Filter::Transform { .. })));
    }
}
