//! CQL 6.2 keywords read by their own small parsers: `notransform`, `currenttransform`,
//! `similarposition`, `readfile`, `writefile`, `equal`, `extension`, `cql_abort`,
//! `pathdebug`, `lastgamenumber` and `consecutivemoves` with its optional range.
//!
//! Each function is called by [`Parser::parse_word`] after the keyword itself was read,
//! and lowers the construct straight to IR (see the variants' documentation in
//! [`crate::ir::Filter`]).

use super::super::lexer::Tok;
use super::{PResult, Parser, BP_LOOSE, BP_POSTFIX};
use crate::ir::{Filter, FilterId, Span};

impl Parser<'_> {
    /// One of this module's keywords (already read, at `sp`), or `None` for any other word.
    pub(super) fn parse_keywords62_word(&mut self, w: &str, sp: Span) -> PResult<Option<FilterId>> {
        match w {
            "notransform" | "currenttransform" | "similarposition" | "readfile" | "writefile" | "equal"
            | "extension" | "cql_abort" | "pathdebug" | "lastgamenumber" | "consecutivemoves" => {
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
            "currenttransform" => Ok(self.add(Filter::CurrentTransform(String::new()), sp)),
            "similarposition" => self.parse_similarposition(sp),
            "readfile" => {
                let name = self.parse_expr(BP_POSTFIX)?;
                let s = Self::join(sp, self.ir.span(name));
                Ok(self.add(Filter::ReadFile(name), s))
            }
            "writefile" => {
                let a = self.args_exact("writefile", 2, sp)?;
                Ok(self.add(Filter::WriteFile(a[0], a[1]), sp))
            }
            "equal" => {
                let a = self.args_exact("equal", 2, sp)?;
                Ok(self.add(Filter::Equal(a[0], a[1]), sp))
            }
            // CQL 6.2's `extension` is a filter that never matches (`ExtensionNode`).
            "extension" => Ok(self.add(Filter::False, sp)),
            "cql_abort" => {
                let (line, column) = self.line_column(sp);
                Ok(self.add(Filter::Abort(format!("line {line}, column {column}")), sp))
            }
            "pathdebug" => Ok(self.add(Filter::PathDebug, sp)),
            "lastgamenumber" => Ok(self.add(Filter::LastGameNumber, sp)),
            "consecutivemoves" => self.parse_consecutivemoves(sp),
            _ => {
                self.error(format!("`{w}` is not a keyword of this parser"), sp);
                Err(())
            }
        }
    }

    /// 1-based line and column (in characters) of the start of `sp`.
    fn line_column(&self, sp: Span) -> (usize, usize) {
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
        let found = self.add(Filter::SimilarPosition { file: file.clone(), transform, game_number: false }, s);
        if !sort {
            return Ok(found);
        }
        let number = self.add(Filter::SimilarPosition { file, transform, game_number: true }, s);
        let sorted = self.add(Filter::Sort { doc: "submission game".to_string(), min: true, value: number }, s);
        Ok(self.add(Filter::And(vec![found, sorted]), s))
    }

    /// `consecutivemoves [quiet] [MIN [MAX]] [quiet] (x y)`: without a range any run of one
    /// move or more matches.
    fn parse_consecutivemoves(&mut self, sp: Span) -> PResult<FilterId> {
        self.eat_word("quiet");
        let mut bounds = Vec::new();
        while let Tok::Number(n) = self.peek().tok {
            if bounds.len() == 2 {
                break;
            }
            bounds.push(n);
            self.bump();
        }
        self.eat_word("quiet");
        let a = self.args_exact("consecutivemoves", 2, sp)?;
        if bounds.is_empty() {
            return Ok(self.add(Filter::ConsecutiveMoves(a[0], a[1]), sp));
        }
        let min = bounds[0];
        let max = bounds.get(1).copied().unwrap_or(min);
        if min > max {
            self.error_hint(
                format!("`consecutivemoves {min} {max}`: the range is empty"),
                sp,
                Some("give the smaller bound first".to_string()),
            );
            return Err(());
        }
        Ok(self.add(Filter::ConsecutiveMovesIn { x: a[0], y: a[1], min, max }, sp))
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Filter, Ir};

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
        assert!(has(&ir, |f| matches!(f, Filter::Sort { doc, min: true, .. } if doc == "submission game")));
        assert!(has(&ir, |f| matches!(f, Filter::SimilarPosition { transform: true, .. })));
        let ir = parse(r#"similarposition nosort notransform "a.pgn""#);
        assert!(!has(&ir, |f| matches!(f, Filter::Sort { .. })));
        assert!(has(&ir, |f| matches!(f, Filter::SimilarPosition { transform: false, game_number: false, .. })));
        assert!(refused(r#"similarposition "a.cql""#));
        assert!(refused("similarposition"));
    }

    #[test]
    fn file_keywords_take_strings() {
        let ir = parse(r#"x = readfile "a.cql" writefile ("b.cqo" x)"#);
        assert!(has(&ir, |f| matches!(f, Filter::ReadFile(_))));
        assert!(has(&ir, |f| matches!(f, Filter::WriteFile(..))));
        assert!(refused(r#"writefile ("b.cqo")"#));
    }

    #[test]
    fn abort_names_its_place() {
        let ir = parse("check\n  cql_abort");
        assert!(has(&ir, |f| matches!(f, Filter::Abort(at) if at == "line 2, column 3")));
    }

    #[test]
    fn consecutivemoves_takes_a_range() {
        let text = "echo (s t) { consecutivemoves 2 5 (s t) }";
        let ir = parse(text);
        assert!(has(&ir, |f| matches!(f, Filter::ConsecutiveMovesIn { min: 2, max: 5, .. })));
        let ir = parse("echo (s t) { consecutivemoves quiet 3 (s t) }");
        assert!(has(&ir, |f| matches!(f, Filter::ConsecutiveMovesIn { min: 3, max: 3, .. })));
        assert!(refused("echo (s t) { consecutivemoves 5 2 (s t) }"));
    }

    #[test]
    fn small_keywords_parse() {
        assert!(has(&parse("notransform a1"), |f| matches!(f, Filter::NoTransform(_))));
        assert!(has(&parse(r#"flip {Ka1 currenttransform == "<>"}"#), |f| matches!(f, Filter::CurrentTransform(_))));
        assert!(has(&parse("equal (check mate)"), |f| matches!(f, Filter::Equal(..))));
        assert!(has(&parse("lastgamenumber > 3"), |f| matches!(f, Filter::LastGameNumber)));
        assert!(has(&parse("dihedral Ka1"), |f| matches!(f, Filter::Transform { .. })));
    }
}
