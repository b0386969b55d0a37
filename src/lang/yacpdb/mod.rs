//! The YACPDB query-language front-end: `ClosedWalk(wR, 4, *) AND NOT Twins > 1`.
//!
//! Takes in: the query text.
//! Gives out: an [`Ir`] whose root is built from `Filter::Yacpdb` predicates compared with
//! numbers (`P CMP N`, a bare `P` meaning `P > 0`) joined by `And`/`Or`/`Not`, with
//! `settings.per_game` and `settings.variations` set — or a [`diag::Error`](Error) whose
//! diagnostic points at the offending text and says how to fix it.
//! Must never: evaluate anything, accept a malformed query, or recurse without bound
//! (nesting deeper than [`MAX_NESTING`] is refused).
//!
//! Lexing, grammar and validation follow `yacpdb-definitions.md` §13: `NOT` binds tighter
//! than `AND`, which binds tighter than `OR`; a comparison may follow only a predicate;
//! arguments are quoted (`'…'`, `"…"`, no escapes) or unquoted runs; `*` is the wildcard.

use crate::diag::Span;
use crate::diag::{Diagnostic, Error};
use crate::ir::{CmpOp, Filter, FilterId, Ir, YacpdbPredicate};
use crate::ir::{LogicFilter, NumberFilter};
use crate::lang::nearest;

/// Deepest nesting of parentheses and `NOT`s a query may have.
pub const MAX_NESTING: usize = crate::NESTING_LIMIT / 2;

/// What kind of value a predicate argument must be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgDomain {
    /// A unit type: colour letter and Popeye code, `wK`, `bS` (S = knight), `nNH`.
    Piece,
    /// `w`, `b` or `n` (neutral).
    Color,
    /// `true` or `false`.
    Boolean,
    /// A non-negative whole number.
    Integer,
    /// A calendar date `YYYY`, `YYYY-MM` or `YYYY-MM-DD`.
    Date,
    /// A kind of link to an entity: author, judge, source, reprint, tourney, keyword.
    RefType,
    /// Which board symmetries a matrix search may use: `All`, `Mirror`, `None`.
    Transformations,
    /// Any text (a name pattern with SQL `LIKE` wildcards, a keyword, …).
    Text,
    /// A space-separated list of PIECEs (`With`).
    PieceList,
    /// A space-separated list of unit-and-square specs, `wKa1 bSh8` (`Matrix`).
    MatrixList,
    /// A regular expression matched against the whole stipulation (`Stip`).
    Regex,
}

/// Every predicate of the language with its argument domains.
pub const PREDICATES: &[(&str, &[ArgDomain])] = {
    use ArgDomain::*;
    &[
        ("ClosedWalk", &[Piece, Integer, Boolean]),
        ("TraceBack", &[Piece, Integer, Boolean]),
        ("ArealCycle", &[Piece, Integer, Boolean]),
        ("LinearCycle", &[Piece, Integer, Boolean]),
        ("PW", &[Integer]),
        ("PWPiece", &[Piece]),
        ("Star", &[Piece]),
        ("BigStar", &[Piece]),
        ("Cross", &[Piece]),
        ("BigCross", &[Piece]),
        ("Wheel", &[Piece]),
        ("Albino", &[Piece]),
        ("Pickaninny", &[Piece]),
        ("CornerToCorner", &[Piece]),
        ("FourCorners", &[Piece]),
        ("Excelsior", &[Piece, Integer]),
        ("Phases", &[]),
        ("Twins", &[]),
        ("ZilahiPiece", &[Piece, Boolean]),
        ("Zilahi", &[Integer]),
        ("Models", &[Integer, Boolean]),
        ("HundredDollar", &[]),
        ("Matrix", &[MatrixList]),
        ("MatrixExtended", &[MatrixList, Boolean, Boolean, Transformations]),
        ("With", &[PieceList]),
        ("PCount", &[Color]),
        ("Fairy", &[]),
        ("Author", &[Text]),
        ("Source", &[Text]),
        ("Entity", &[RefType, Text]),
        ("Keyword", &[Text]),
        ("Stip", &[Regex]),
        ("Option", &[Text]),
        ("PublishedAfter", &[Date]),
        ("Id", &[Integer]),
        ("Text", &[Text]),
        ("SourceId", &[Text]),
        ("IssueId", &[Text]),
        ("ReprintType", &[Text]),
    ]
};

/// The argument domains of a predicate, if the name exists.
pub fn predicate_domains(name: &str) -> Option<&'static [ArgDomain]> {
    PREDICATES.iter().find(|(n, _)| *n == name).map(|(_, d)| *d)
}

/// Parse a YACPDB query into IR.
pub fn parse(source: &str) -> std::result::Result<Ir, Error> {
    let mut parser = Parser { src: source, pos: 0, depth: 0, ir: Ir::new() };
    let root = parser.parse_query().map_err(|d| Error { diagnostics: vec![d] })?;
    let mut ir = parser.ir;
    ir.root = Some(root);
    ir.settings.per_game = true;
    ir.settings.variations = true;
    Ok(ir)
}

type PResult<T> = std::result::Result<T, Diagnostic>;

/// One expression-level token.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Open,
    Close,
    Comma,
    Cmp(CmpOp),
    Int(String),
    Word(String),
    Quoted,
    Other(char),
    End,
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    depth: usize,
    ir: Ir,
}

fn is_operator(word: &str, op: &str) -> bool {
    word.eq_ignore_ascii_case(op)
}

fn describe(token: &Token) -> String {
    match token {
        Token::Open => "`(`".into(),
        Token::Close => "`)`".into(),
        Token::Comma => "`,`".into(),
        Token::Cmp(op) => format!("`{}`", cmp_text(*op)),
        Token::Int(n) => format!("`{n}`"),
        Token::Word(w) => format!("`{w}`"),
        Token::Quoted => "a string".into(),
        Token::Other(c) => format!("`{c}`"),
        Token::End => "the end of the query".into(),
    }
}

fn cmp_text(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Gt => ">",
        CmpOp::Lt => "<",
        _ => "=",
    }
}

impl<'a> Parser<'a> {
    fn skip_ws(&mut self) {
        let rest = &self.src[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// The next token and its span, without consuming it.
    fn peek(&mut self) -> (Token, Span) {
        self.skip_ws();
        let rest = &self.src[self.pos..];
        let start = self.pos;
        let Some(c) = rest.chars().next() else { return (Token::End, Span::new(start, start)) };
        let one = |t: Token| (t, Span::new(start, start + c.len_utf8()));
        match c {
            '(' => one(Token::Open),
            ')' => one(Token::Close),
            ',' => one(Token::Comma),
            '>' => one(Token::Cmp(CmpOp::Gt)),
            '<' => one(Token::Cmp(CmpOp::Lt)),
            '=' => one(Token::Cmp(CmpOp::Eq)),
            '\'' | '"' => {
                let end = rest[1..].find(c).map_or(self.src.len(), |i| start + i + 2);
                (Token::Quoted, Span::new(start, end))
            }
            c if c.is_ascii_digit() => {
                let len = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
                (Token::Int(rest[..len].to_string()), Span::new(start, start + len))
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
                (Token::Word(rest[..len].to_string()), Span::new(start, start + len))
            }
            c => one(Token::Other(c)),
        }
    }

    fn advance(&mut self, span: Span) {
        self.pos = span.end as usize;
    }

    fn parse_query(&mut self) -> PResult<FilterId> {
        if self.src.trim().is_empty() {
            return Err(Diagnostic::new("empty query", Span::new(0, self.src.len()))
                .with_hint("write a predicate, e.g. `TraceBack(wR, 1, *)`"));
        }
        let root = self.parse_or()?;
        let (token, span) = self.peek();
        if token != Token::End {
            let hint = match token {
                Token::Close => "this `)` has no matching `(`",
                Token::Word(_) | Token::Int(_) => "join predicates with AND or OR",
                _ => "remove it, or join predicates with AND or OR",
            };
            return Err(Diagnostic::new(format!("unexpected {}", describe(&token)), span).with_hint(hint));
        }
        Ok(root)
    }

    fn parse_or(&mut self) -> PResult<FilterId> {
        self.parse_chain("or", Self::parse_and, |v| Filter::Logic(LogicFilter::Or(v)))
    }

    fn parse_and(&mut self) -> PResult<FilterId> {
        self.parse_chain("and", Self::parse_not, |v| Filter::Logic(LogicFilter::And(v)))
    }

    fn parse_chain(
        &mut self,
        op: &str,
        operand: fn(&mut Self) -> PResult<FilterId>,
        build: fn(Vec<FilterId>) -> Filter,
    ) -> PResult<FilterId> {
        let start = self.peek().1.start as usize;
        let mut items = vec![operand(self)?];
        loop {
            let (token, span) = self.peek();
            match token {
                Token::Word(w) if is_operator(&w, op) => {
                    self.advance(span);
                    items.push(operand(self)?);
                }
                _ => break,
            }
        }
        if items.len() == 1 {
            return Ok(items[0]);
        }
        Ok(self.ir.add(build(items), Span::new(start, self.pos)))
    }

    fn enter(&mut self, span: Span) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(Diagnostic::new(format!("query nested more than {MAX_NESTING} levels deep"), span)
                .with_hint("simplify the query"));
        }
        Ok(())
    }

    fn parse_not(&mut self) -> PResult<FilterId> {
        let (token, span) = self.peek();
        if let Token::Word(w) = &token {
            if is_operator(w, "not") {
                self.advance(span);
                self.enter(span)?;
                let inner = self.parse_not()?;
                self.depth -= 1;
                return Ok(self
                    .ir
                    .add(Filter::Logic(LogicFilter::Not(inner)), Span::new(span.start as usize, self.pos)));
            }
        }
        self.parse_primary()
    }

    fn parse_primary(&mut self) -> PResult<FilterId> {
        let (token, span) = self.peek();
        match token {
            Token::Open => {
                self.advance(span);
                self.enter(span)?;
                let inner = self.parse_or()?;
                self.depth -= 1;
                let (close, close_span) = self.peek();
                if close != Token::Close {
                    return Err(Diagnostic::new(format!("expected `)`, found {}", describe(&close)), close_span)
                        .with_hint(format!("close the `(` at byte {}", span.start)));
                }
                self.advance(close_span);
                let (after, after_span) = self.peek();
                if let Token::Cmp(_) = after {
                    return Err(Diagnostic::new("a comparison can follow only a predicate", after_span)
                        .with_hint("compare the predicate itself, e.g. `Phases > 1`, not `(Phases) > 1`"));
                }
                Ok(inner)
            }
            Token::Word(word) => {
                if ["and", "or", "not"].iter().any(|op| is_operator(&word, op)) {
                    return Err(Diagnostic::new(format!("expected a predicate, found the operator `{word}`"), span)
                        .with_hint("an operator needs a predicate on each side"));
                }
                self.parse_predicate(word, span)
            }
            Token::End => Err(Diagnostic::new("expected a predicate, found the end of the query", span)
                .with_hint("complete the expression with a predicate such as `Phases`")),
            Token::Quoted => Err(Diagnostic::new("a string cannot stand on its own", span)
                .with_hint("strings are only predicate arguments; a predicate name is written without quotes")),
            other => Err(Diagnostic::new(format!("expected a predicate, found {}", describe(&other)), span)),
        }
    }

    fn parse_predicate(&mut self, name: String, name_span: Span) -> PResult<FilterId> {
        let names: Vec<&str> = PREDICATES.iter().map(|(n, _)| *n).collect();
        let well_formed = name.starts_with(|c: char| c.is_ascii_uppercase()) && !name.contains('_');
        let Some(domains) = predicate_domains(&name).filter(|_| well_formed) else {
            let mut d = Diagnostic::new(format!("unknown predicate `{name}`"), name_span);
            if let Some(near) = nearest(&name, &names) {
                d = d.with_hint(format!("did you mean `{near}`?"));
            } else {
                d = d.with_hint("predicate names are TitleCase, e.g. `Phases`, `TraceBack`");
            }
            return Err(d);
        };
        self.advance(name_span);
        let (next, next_span) = self.peek();
        let mut args = Vec::new();
        if next == Token::Open {
            self.advance(next_span);
            if self.peek().0 == Token::Close {
                let close = self.peek().1;
                let hint = if domains.is_empty() {
                    format!("a predicate without arguments is written bare: `{name}`")
                } else {
                    format!("write `{}`", signature(&name, domains))
                };
                return Err(Diagnostic::new(
                    format!("empty argument list after `{name}`"),
                    Span::new(next_span.start as usize, close.end as usize),
                )
                .with_hint(hint));
            }
            args = self.parse_args(&name, next_span)?;
            if domains.is_empty() {
                return Err(Diagnostic::new(
                    format!("`{name}` takes no arguments"),
                    Span::new(next_span.start as usize, self.pos),
                )
                .with_hint(format!("write it bare: `{name}`")));
            }
        }
        if args.len() != domains.len() {
            let span = Span::new(name_span.start as usize, self.pos);
            return Err(Diagnostic::new(
                format!(
                    "`{name}` takes {} argument{}, found {}",
                    domains.len(),
                    if domains.len() == 1 { "" } else { "s" },
                    args.len()
                ),
                span,
            )
            .with_hint(format!("write `{}`", signature(&name, domains))));
        }
        let mut values = Vec::with_capacity(args.len());
        for ((text, span), domain) in args.into_iter().zip(domains.iter()) {
            values.push(validate(&text, span, *domain)?);
        }
        let pred_span = Span::new(name_span.start as usize, self.pos);
        let pred = self.ir.add(Filter::Yacpdb(YacpdbPredicate { name, args: values }), pred_span);
        let (token, cmp_span) = self.peek();
        let (op, number, number_span) = if let Token::Cmp(op) = token {
            self.advance(cmp_span);
            let (n, n_span) = self.peek();
            let Token::Int(digits) = n else {
                return Err(Diagnostic::new(
                    format!("expected a whole number after `{}`, found {}", cmp_text(op), describe(&n)),
                    n_span,
                )
                .with_hint("counts are compared with non-negative integers, e.g. `> 2`"));
            };
            self.advance(n_span);
            let Ok(value) = digits.parse::<i64>() else {
                return Err(Diagnostic::new(format!("the number `{digits}` is too large"), n_span));
            };
            (op, value, n_span)
        } else {
            (CmpOp::Gt, 0, pred_span)
        };
        let number = self.ir.add(Filter::Numbers(NumberFilter::Number(number)), number_span);
        Ok(self.ir.add(
            Filter::Numbers(NumberFilter::Compare { first: pred, rest: vec![(op, number)] }),
            Span::new(name_span.start as usize, self.pos),
        ))
    }

    /// Arguments after `(`, up to and including `)`: each raw text (trimmed) and its span.
    fn parse_args(&mut self, name: &str, open: Span) -> PResult<Vec<(String, Span)>> {
        let mut args = Vec::new();
        loop {
            self.skip_ws();
            let rest = &self.src[self.pos..];
            let start = self.pos;
            match rest.chars().next() {
                None => {
                    return Err(
                        Diagnostic::new(format!("the arguments of `{name}` are not closed"), open).with_hint("add `)`")
                    )
                }
                Some(q @ ('\'' | '"')) => {
                    let Some(len) = rest[1..].find(q) else {
                        return Err(Diagnostic::new("unterminated string", Span::new(start, self.src.len()))
                            .with_hint(format!("close it with {q}")));
                    };
                    args.push((rest[1..1 + len].to_string(), Span::new(start, start + len + 2)));
                    self.pos = start + len + 2;
                }
                Some(_) => {
                    let len = rest.find(['\'', '"', '(', ')', ',', '<', '>', '=']).unwrap_or(rest.len());
                    let raw = &rest[..len];
                    let text = raw.trim();
                    if text.is_empty() {
                        return Err(Diagnostic::new(
                            format!("empty argument to `{name}`"),
                            Span::new(start, start + len.max(1)),
                        )
                        .with_hint("write a value, or `*` for any value"));
                    }
                    let lead = raw.len() - raw.trim_start().len();
                    args.push((text.to_string(), Span::new(start + lead, start + lead + text.len())));
                    self.pos = start + len;
                }
            }
            self.skip_ws();
            match self.src[self.pos..].chars().next() {
                Some(',') => self.pos += 1,
                Some(')') => {
                    self.pos += 1;
                    return Ok(args);
                }
                Some(c) => {
                    let span = Span::new(self.pos, self.pos + c.len_utf8());
                    let hint = if c == '\'' || c == '"' {
                        "a value containing a quote must be quoted with the other kind: \"O'Brien\""
                    } else {
                        "separate arguments with `,` and close with `)`"
                    };
                    return Err(Diagnostic::new(format!("expected `,` or `)`, found `{c}`"), span).with_hint(hint));
                }
                None => {
                    return Err(
                        Diagnostic::new(format!("the arguments of `{name}` are not closed"), open).with_hint("add `)`")
                    )
                }
            }
        }
    }
}

fn signature(name: &str, domains: &[ArgDomain]) -> String {
    if domains.is_empty() {
        return name.to_string();
    }
    let parts: Vec<&str> = domains
        .iter()
        .map(|d| match d {
            ArgDomain::Piece => "PIECE",
            ArgDomain::Color => "COLOR",
            ArgDomain::Boolean => "BOOLEAN",
            ArgDomain::Integer => "INTEGER",
            ArgDomain::Date => "DATE",
            ArgDomain::RefType => "REFTYPE",
            ArgDomain::Transformations => "TRANSFORMATIONS",
            ArgDomain::Text | ArgDomain::Regex => "STRING",
            ArgDomain::PieceList => "PIECES",
            ArgDomain::MatrixList => "PIECELIST",
        })
        .collect();
    format!("{name}({})", parts.join(", "))
}

fn is_piece(text: &str) -> bool {
    let b = text.as_bytes();
    (2..=3).contains(&b.len())
        && matches!(b[0], b'w' | b'b' | b'n')
        && b[1..].iter().all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
}

fn is_matrix_spec(text: &str) -> bool {
    let b = text.to_ascii_lowercase().into_bytes();
    (4..=5).contains(&b.len())
        && matches!(b[0], b'w' | b'b' | b'n')
        && b[1..b.len() - 2].iter().all(|c| c.is_ascii_alphanumeric())
        && (b'a'..=b'h').contains(&b[b.len() - 2])
        && (b'1'..=b'8').contains(&b[b.len() - 1])
}

fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|c| c.is_ascii_digit());
    if parts.is_empty() || parts.len() > 3 || !digits(parts[0], 4) {
        return false;
    }
    let year: u32 = parts[0].parse().unwrap_or(0);
    if parts.len() >= 2 && !(digits(parts[1], 2) && (1..=12).contains(&parts[1].parse::<u32>().unwrap_or(0))) {
        return false;
    }
    if parts.len() == 3 {
        let month: u32 = parts[1].parse().unwrap_or(0);
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        let days = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            _ if leap => 29,
            _ => 28,
        };
        if !(digits(parts[2], 2) && (1..=days).contains(&parts[2].parse::<u32>().unwrap_or(0))) {
            return false;
        }
    }
    true
}

/// Check an argument against its domain; `*` becomes `None`, integers are normalised.
fn validate(text: &str, span: Span, domain: ArgDomain) -> PResult<Option<String>> {
    if text == "*" {
        return Ok(None);
    }
    let bad = |what: &str, hint: &str| {
        Err(Diagnostic::new(format!("`{text}` is not {what}"), span).with_hint(hint.to_string()))
    };
    match domain {
        ArgDomain::Piece if !is_piece(text) => {
            bad("a piece", "write a colour (w, b, n) and a Popeye code in capitals: `wK`, `bS` (knight), or `*`")
        }
        ArgDomain::Color if !matches!(text, "w" | "b" | "n") => bad("a colour", "write `w`, `b`, `n` or `*`"),
        ArgDomain::Boolean if !matches!(text, "true" | "false") => bad("a boolean", "write `true`, `false` or `*`"),
        ArgDomain::Integer => {
            if !text.bytes().all(|c| c.is_ascii_digit()) {
                return bad("a non-negative integer", "write a whole number such as `3`, or `*`");
            }
            match text.parse::<i64>() {
                Ok(n) => Ok(Some(n.to_string())),
                Err(_) => bad("a number that fits", "use a smaller number"),
            }
        }
        ArgDomain::Date if !is_date(text) => {
            bad("a date", "write `YYYY`, `YYYY-MM` or `YYYY-MM-DD` with a real calendar date")
        }
        ArgDomain::RefType if !matches!(text, "author" | "judge" | "source" | "reprint" | "tourney" | "keyword") => {
            bad("a reference type", "write author, judge, source, reprint, tourney or keyword")
        }
        ArgDomain::Transformations if !matches!(text, "All" | "Mirror" | "None") => {
            bad("a set of transformations", "write `All`, `Mirror` or `None`")
        }
        ArgDomain::PieceList => match text.split_whitespace().find(|p| !is_piece(p)) {
            Some(item) => Err(Diagnostic::new(format!("`{item}` in the piece list is not a piece"), span)
                .with_hint("list pieces such as `wR wR bS`, separated by spaces")),
            None if text.split_whitespace().next().is_none() => bad("a piece list", "list pieces such as `wR wR`"),
            None => Ok(Some(text.to_string())),
        },
        ArgDomain::MatrixList => match text.split_whitespace().find(|p| !is_matrix_spec(p)) {
            Some(item) => Err(Diagnostic::new(format!("`{item}` is not a piece on a square"), span)
                .with_hint("write specs such as `wKa1 bSh8`")),
            None if text.split_whitespace().next().is_none() => bad("a matrix", "write specs such as `wKa1 bSh8`"),
            None => Ok(Some(text.to_string())),
        },
        ArgDomain::Regex => {
            let starts_with_repeat = text.starts_with(['+', '*', '?', '{']);
            match crate::ir::compile_pattern(&format!("^{text}$")) {
                Ok(_) if !starts_with_repeat => Ok(Some(text.to_string())),
                Ok(_) => bad(
                    "a valid regular expression",
                    "a leading repetition has nothing to repeat; write `\\+` for a plus sign",
                ),
                Err(e) => Err(Diagnostic::new(format!("`{text}` is not a valid regular expression"), span).with_hint(
                    format!("{}; write `\\+` for a plus sign", e.to_string().lines().last().unwrap_or("invalid")),
                )),
            }
        }
        _ => Ok(Some(text.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root(ir: &Ir) -> &Filter {
        ir.get(ir.root.expect("root"))
    }

    fn error(src: &str) -> Diagnostic {
        parse(src).expect_err(src).diagnostics.remove(0)
    }

    fn spanned<'a>(src: &'a str, d: &Diagnostic) -> &'a str {
        &src[d.span.start as usize..d.span.end as usize]
    }

    #[test]
    fn bare_predicate_means_greater_than_zero() {
        let ir = parse("Phases").expect("ok");
        assert!(ir.settings.per_game && ir.settings.variations);
        let Filter::Numbers(NumberFilter::Compare { first, rest }) = root(&ir) else { panic!("{:?}", root(&ir)) };
        assert_eq!(rest.len(), 1);
        assert_eq!(rest[0].0, CmpOp::Gt);
        assert_eq!(ir.get(rest[0].1), &Filter::Numbers(NumberFilter::Number(0)));
        assert_eq!(ir.get(*first), &Filter::Yacpdb(YacpdbPredicate { name: "Phases".into(), args: vec![] }));
    }

    #[test]
    fn precedence_not_and_or() {
        let ir = parse("Star(*) or Cross(*) and not Fairy").expect("ok");
        let Filter::Logic(LogicFilter::Or(items)) = root(&ir) else { panic!() };
        assert_eq!(items.len(), 2);
        let Filter::Logic(LogicFilter::And(conj)) = ir.get(items[1]) else { panic!() };
        assert!(matches!(ir.get(conj[1]), Filter::Logic(LogicFilter::Not(_))));
    }

    #[test]
    fn arguments_are_normalised() {
        let ir = parse("TraceBack(wR, 03, '*') = 2").expect("ok");
        let Filter::Numbers(NumberFilter::Compare { first, rest }) = root(&ir) else { panic!() };
        assert_eq!(rest[0].0, CmpOp::Eq);
        let Filter::Yacpdb(p) = ir.get(*first) else { panic!() };
        assert_eq!(p.args, vec![Some("wR".to_string()), Some("3".to_string()), None]);
        let ir = parse("With(wR wR) AND Author(\"O'Brien\")").expect("ok");
        assert!(matches!(root(&ir), Filter::Logic(LogicFilter::And(_))));
    }

    #[test]
    fn errors_point_at_the_bad_text() {
        let src = "Star(wk)";
        let d = error(src);
        assert_eq!(spanned(src, &d), "wk");
        let src = "TraceBack(wB, 3, yes)";
        assert_eq!(spanned(src, &error(src)), "yes");
        let src = "Phases AND Zilahy(2)";
        let d = error(src);
        assert_eq!(spanned(src, &d), "Zilahy");
        assert_eq!(d.hint.as_deref(), Some("did you mean `Zilahi`?"));
        let src = "Phases > 1 Twins";
        assert_eq!(spanned(src, &error(src)), "Twins");
    }

    #[test]
    fn malformed_queries_are_refused() {
        for q in [
            "Fairy()",
            "phases > 1",
            "Phases > -1",
            "Phases > 2.5",
            "Star(wK)) OR Phases",
            "NOT",
            "(Phases) > 1",
            "TraceBack(wB, 3)",
            "Twins(1)",
            "Star(w*)",
            "TraceBack(wB, , true)",
            "PCount(x) > 3",
            "Entity('composer', 'Smith%')",
            "Author(O'Brien)",
            "With('wR wx')",
            "MatrixExtended('wKa1', false, false, 'Rotate')",
            "PublishedAfter('2015/06')",
            "Stip('+')",
            "'Phases'",
            "PublishedAfter('2015-02-30')",
            "Models(*, trueish)",
            "",
            "Phases AND",
            "Star(wK",
        ] {
            assert!(parse(q).is_err(), "{q} must be rejected");
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = format!("{}Phases{}", "(".repeat(5000), ")".repeat(5000));
        assert!(parse(&deep).is_err());
        let nots = format!("{}Phases", "NOT ".repeat(5000));
        assert!(parse(&nots).is_err());
        let ok = format!("{}Phases{}", "(".repeat(50), ")".repeat(50));
        assert!(parse(&ok).is_ok());
    }

    #[test]
    fn zero_and_lenient_unquoted_arguments() {
        assert!(parse("Phases = 0 AND Option(*) = 0").is_ok());
        assert!(parse("Author(Andrews And Not Smith)").is_ok());
        assert!(parse("PublishedAfter('2016-02-29') AND Stip('#2|#3')").is_ok());
    }
}
