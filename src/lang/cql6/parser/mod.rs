//! CQL 6 parser: reads the token stream and lowers each construct straight to IR.
//!
//! Takes in: tokens from [`super::lexer`]. Gives out: an [`Ir`] (settings from the
//! `cql(...)` header, the root filter, variables) or diagnostics. Functions are inlined
//! at each call by substituting the argument tokens for the parameters and parsing the
//! body again. Transforms are left as `Filter::Transform` nodes.
//! Must never: panic on any input, recurse without bound, look at a game.

use std::collections::{HashMap, HashSet};

use shakmaty::{Bitboard, Color};

use super::lexer::{letter_mask, Sym, Tok, Token};
use crate::ir::*;
use crate::lang::{nearest, Diagnostic};

mod fen;
mod hhdb;
mod keywords62;

/// Deepest nesting of filters accepted before the parser refuses the query.
pub const MAX_DEPTH: usize = crate::NESTING_LIMIT;
/// Deepest chain of function calls inside function calls.
pub const MAX_INLINE_DEPTH: usize = 40;
const MAX_DIAGNOSTICS: usize = 20;

// Binding powers, loose to tight.
const BP_OR: u8 = 1;
const BP_AND: u8 = 2;
const BP_LOOSE: u8 = 3; // `~~` and everything tighter: argument of `not`, `if`, …
                        // The argument of a transform, of a plain `find` and the body of `square`/`piece` iteration
                        // run over `and` and `or` too (parsed at BP_OR): CQL 6.2 flips all of `flip A and B`.
const BP_IN: u8 = 4;
const BP_CMP: u8 = 5;
const BP_ADD: u8 = 6;
const BP_MUL: u8 = 7;
// CQL 6.2 (`match_mulop_x` … `match_intersect_x` in its toplevel.cpp): a `――` joins the
// attack-arrow expressions on its two sides, an arrow joins `∪` expressions, `∪` joins `∩`
// expressions, and `∩` joins `attacks`/`attackedby` expressions: `b|q――` is `(b|q)――`,
// `R――q|b` is `R――(q|b)`, `a|b→c` is `(a|b)→c`.
const BP_DASH: u8 = 8;
const BP_ATTACK: u8 = 9;
const BP_UNION: u8 = 10;
const BP_INTER: u8 = 11;
const BP_ATTACK_WORD: u8 = 12;
const BP_POSTFIX: u8 = 13;

/// Every keyword of the language, for "did you mean" hints.
pub const KEYWORDS: &[&str] = &[
    "abs",
    "all",
    "and",
    "ascii",
    "assert",
    "atomic",
    "attackedby",
    "attacks",
    "between",
    "black",
    "btm",
    "castle",
    "capture",
    "check",
    "child",
    "colortype",
    "comment",
    "connectedpawns",
    "consecutivemoves",
    "count",
    "countmoves",
    "cql",
    "cql_abort",
    "currentmove",
    "currentposition",
    "currenttransform",
    "dark",
    "date",
    "depth",
    "diagonal",
    "dictionary",
    "dihedral",
    "distance",
    "doubledpawns",
    "down",
    "echo",
    "eco",
    "elo",
    "else",
    "enpassant",
    "enpassantsquare",
    "equal",
    "event",
    "extension",
    "false",
    "file",
    "find",
    "firstmatch",
    "flip",
    "flipcolor",
    "flipdihedral",
    "fliphorizontal",
    "flipvertical",
    "focus",
    "from",
    "function",
    "gamenumber",
    "hascomment",
    "horizontal",
    "idealmate",
    "idealstalemate",
    "if",
    "in",
    "indexof",
    "initial",
    "initialposition",
    "input",
    "int",
    "isbound",
    "isolatedpawns",
    "isunbound",
    "lastgamenumber",
    "lastposition",
    "lca",
    "left",
    "legal",
    "light",
    "line",
    "local",
    "lowercase",
    "mainline",
    "makesquare",
    "mate",
    "matchcount",
    "matchstring",
    "max",
    "message",
    "min",
    "modelmate",
    "modelstalemate",
    "move",
    "movenumber",
    "nestban",
    "northeast",
    "northwest",
    "not",
    "notransform",
    "nullmove",
    "null",
    "or",
    "orthogonal",
    "originalcomment",
    "output",
    "parent",
    "passedpawns",
    "path",
    "pathcount",
    "pathcountunfocused",
    "pathdebug",
    "pathlastposition",
    "pathstart",
    "persistent",
    "piece",
    "pieceid",
    "piecename",
    "pin",
    "player",
    "ply",
    "position",
    "positionid",
    "power",
    "previous",
    "ancestor",
    "descendant",
    "primary",
    "promote",
    "pseudolegal",
    "puremate",
    "purestalemate",
    "quiet",
    "rank",
    "ray",
    "readfile",
    "removecomment",
    "result",
    "reversecolor",
    "right",
    "rotate45",
    "rotate90",
    "secondary",
    "settag",
    "shift",
    "shifthorizontal",
    "shiftvertical",
    "sidetomove",
    "silent",
    "similarposition",
    "singlecolor",
    "site",
    "sort",
    "southeast",
    "southwest",
    "sqrt",
    "square",
    "stalemate",
    "str",
    "tag",
    "terminal",
    "then",
    "through",
    "to",
    "true",
    "try",
    "type",
    "typename",
    "unbind",
    "up",
    "uppercase",
    "variation",
    "variations",
    "vertical",
    "virtualmainline",
    "while",
    "white",
    "writefile",
    "wtm",
    "xray",
    "year",
    "anydirection",
    "loop",
    "yacpdb",
    "hhdb",
    "fen",
    "eventdate",
];

fn directions_of(word: &str) -> Option<Directions> {
    Some(match word {
        "up" => Directions::UP,
        "down" => Directions::DOWN,
        "left" => Directions::LEFT,
        "right" => Directions::RIGHT,
        "northeast" => Directions::NORTHEAST,
        "northwest" => Directions::NORTHWEST,
        "southeast" => Directions::SOUTHEAST,
        "southwest" => Directions::SOUTHWEST,
        "vertical" => Directions::VERTICAL,
        "horizontal" => Directions::HORIZONTAL,
        "orthogonal" => Directions::ORTHOGONAL,
        "diagonal" => Directions::DIAGONAL,
        "anydirection" => Directions::ANY,
        _ => return None,
    })
}

fn transform_of(word: &str) -> Option<TransformKind> {
    Some(match word {
        "flip" => TransformKind::Flip,
        "flipvertical" => TransformKind::FlipVertical,
        "fliphorizontal" => TransformKind::FlipHorizontal,
        "flipcolor" => TransformKind::FlipColor,
        "reversecolor" => TransformKind::ReverseColor,
        "rotate90" => TransformKind::Rotate90,
        "rotate45" => TransformKind::Rotate45,
        "shift" => TransformKind::Shift,
        "shifthorizontal" => TransformKind::ShiftHorizontal,
        "shiftvertical" => TransformKind::ShiftVertical,
        "dihedral" | "flipdihedral" => TransformKind::Flip,
        _ => return None,
    })
}

/// Roles accepted by a promotion designator (bit per `Role as u8`), colour ignored.
fn promote_roles(mask: PieceMask) -> u8 {
    let mut roles = 0u8;
    for role in 1..=6u16 {
        if mask.0 & (1 << (role - 1)) != 0 || mask.0 & (1 << (role + 5)) != 0 {
            roles |= 1 << role;
        }
    }
    roles
}

/// The piece types a promotion written as text accepts (`――="qa5"`): every letter of a
/// piece type, in either case (CQL 6.2 compares each character, upper-cased, with the
/// promoted piece's letter, so `"qa5"` means a queen and `"a"` nothing); `""` and `"."`
/// accept any promotion. Bit `role` is set for each type, as in [`promote_roles`].
fn promote_roles_of_text(text: &str) -> u8 {
    if text.is_empty() || text == "." {
        return promote_roles(PieceMask::WHITE);
    }
    text.chars().fold(0u8, |acc, c| {
        let role = match c.to_ascii_uppercase() {
            'P' => 1,
            'N' => 2,
            'B' => 3,
            'R' => 4,
            'Q' => 5,
            'K' => 6,
            _ => return acc,
        };
        acc | (1 << role)
    })
}

/// A user function: parameter names and the body's tokens.
#[derive(Clone)]
struct Function {
    params: Vec<String>,
    body: Vec<Token>,
}

/// Parser state: the tokens, the IR under construction and the diagnostics.
pub struct Parser<'s> {
    src: &'s str,
    toks: Vec<Token>,
    pos: usize,
    /// The IR being built.
    pub ir: Ir,
    /// Problems found so far.
    pub diags: Vec<Diagnostic>,
    depth: usize,
    inline_depth: usize,
    fatal: bool,
    functions: HashMap<String, Function>,
    declared: HashSet<String>,
    in_sequence: bool,
    /// The sequence being read is a `line` (not a path): a `+`/`*` there is arithmetic
    /// when an operand follows it (see [`Parser::sign_is_repetition`]).
    in_line: bool,
    /// Parsing the arguments of `(…)` (`max(ply 0)`): a number after a numeric filter is
    /// the next argument there, not a range.
    in_args: bool,
    /// The last implicit search read (`event "Linares"`, `player white "Tal"`): the
    /// search filter, the index of its quoted string among the tokens, and the filter the
    /// string is searched in. A `comment`/`message`/`str` argument that is exactly such a
    /// search gives the string back as an argument of its own (see
    /// [`Parser::parse_converter_arg`]).
    implicit_search: Option<(FilterId, usize, FilterId)>,
    /// Parsing the constituents of a path directly (not inside braces or arguments): there
    /// the parentheses after a move hold one filter, as everywhere else in CQL 6.2 (its
    /// path reads them as a parenthesised filter, `Tokens::match_dashcon_target`).
    path_top: bool,
    /// Parsing a bound of a string subscript `s[i:j]`: there a `:` after a number ends the
    /// bound (CQL 6.2 `Tokens::match_bracketrange`) instead of asking for a position.
    in_subscript: bool,
    /// CQL 6.2 kinds of nodes whose IR form does not tell them (see [`super::types`]).
    pub kinds: super::types::KindNotes,
    /// Variables assigned a number so far: only these are read as an end of a range
    /// (`find 1 n check`; CQL 6.2 `match_existingnumericvariable`), not a set variable
    /// that happens to stand there (`up 1 Rook`).
    numeric_vars: HashSet<crate::ir::VarId>,
}

type PResult<T> = Result<T, ()>;

/// A CQL 6.2 range as written after `find`, `line`, `path`, `consecutivemoves` or a
/// direction (`Tokens::match_range`): the counts `low..=high`. An end written as a numeric
/// variable has its variable here and an open number (`i64::MIN` / `i64::MAX`) in its place.
#[derive(Clone, Copy)]
pub(super) struct WrittenRange {
    pub(super) low: i64,
    pub(super) high: i64,
    pub(super) low_var: Option<crate::ir::VarId>,
    pub(super) high_var: Option<crate::ir::VarId>,
}

/// One end of a range as written.
#[derive(Clone, Copy)]
enum RangeEnd {
    Number(i64),
    Variable(crate::ir::VarId),
}

/// A repetition written after a `line` constituent.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Suffix {
    /// `*` or `{*}`
    Star,
    /// `+` or `{+}`
    Plus,
    /// `?` or `{?}`
    Optional,
    /// `{m}`, `{m,n}`, `{m,}`, `{,n}`
    Range,
}

impl Suffix {
    /// The wildcard with these bounds (`*` 0.., `+` 1.., `?` 0..1).
    fn wildcard(min: u32, max: u32) -> Suffix {
        match (min, max) {
            (1, _) => Suffix::Plus,
            (0, 1) => Suffix::Optional,
            _ => Suffix::Star,
        }
    }
}

/// One filter family's reader of its keywords (see [`Parser::parse_word`]).
type WordParser<'s> = fn(&mut Parser<'s>, &str, Span) -> PResult<Option<FilterId>>;

// The keywords of each filter family, one file each (the sections of docs/), beside this one.
mod attacks_and_geometry;
mod dictionaries;
mod game_tree;
mod header;
mod iteration;
mod mates;
mod moves;
mod numbers;
mod output;
mod pieces_and_sets;
mod position_state;
mod transforms;

impl<'s> Parser<'s> {
    /// A parser over the tokens of `src`.
    pub fn new(src: &'s str, toks: Vec<Token>) -> Parser<'s> {
        let declared = collect_declared(&toks);
        Parser {
            src,
            toks,
            pos: 0,
            ir: Ir::new(),
            diags: Vec::new(),
            depth: 0,
            inline_depth: 0,
            fatal: false,
            in_subscript: false,
            functions: HashMap::new(),
            declared,
            in_sequence: false,
            in_line: false,
            in_args: false,
            implicit_search: None,
            path_top: false,
            kinds: Default::default(),
            numeric_vars: HashSet::new(),
        }
    }

    // ----- token helpers ------------------------------------------------------

    fn peek(&self) -> &Token {
        let i = self.pos.min(self.toks.len() - 1);
        &self.toks[i]
    }
    fn peek_at(&self, k: usize) -> &Token {
        let i = (self.pos + k).min(self.toks.len() - 1);
        &self.toks[i]
    }
    fn bump(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    fn at_sym(&self, s: Sym) -> bool {
        self.peek().tok == Tok::Sym(s)
    }
    fn at_word(&self, w: &str) -> bool {
        matches!(&self.peek().tok, Tok::Word(x) if x == w)
    }
    fn eat_sym(&mut self, s: Sym) -> bool {
        if self.at_sym(s) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn eat_word(&mut self, w: &str) -> bool {
        if self.at_word(w) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn at_eof(&self) -> bool {
        self.peek().tok == Tok::Eof
    }
    fn span_here(&self) -> Span {
        self.peek().span
    }
    fn text(&self, span: Span) -> &str {
        self.src.get(span.start as usize..span.end as usize).unwrap_or("")
    }

    fn error(&mut self, msg: impl Into<String>, span: Span) {
        self.error_hint(msg, span, None);
    }
    fn error_hint(&mut self, msg: impl Into<String>, span: Span, hint: Option<String>) {
        if self.diags.len() < MAX_DIAGNOSTICS {
            let mut d = Diagnostic::new(msg, span);
            d.hint = hint;
            self.diags.push(d);
        }
    }
    fn expect_sym(&mut self, s: Sym, what: &str) -> PResult<()> {
        if self.eat_sym(s) {
            Ok(())
        } else {
            let sp = self.span_here();
            let found = self.describe_here();
            self.error(format!("expected {what}, found {found}"), sp);
            Err(())
        }
    }
    fn describe_here(&self) -> String {
        if self.at_eof() {
            "end of input".to_string()
        } else {
            format!("`{}`", self.text(self.peek().span))
        }
    }
    fn add(&mut self, f: Filter, span: Span) -> FilterId {
        self.ir.add(f, span)
    }
    fn join(a: Span, b: Span) -> Span {
        Span { start: a.start.min(b.start), end: a.end.max(b.end) }
    }

    // ----- top level ---------------------------------------------------------

    /// Parse a whole script: optional `cql(...)` header and the body.
    pub fn parse_script(&mut self) {
        if self.at_word("cql") && self.peek_at(1).tok == Tok::Sym(Sym::LParen) {
            self.bump();
            self.bump();
            self.parse_header();
        }
        let start = self.span_here();
        let mut items = Vec::new();
        while !self.at_eof() && !self.fatal && self.diags.len() < MAX_DIAGNOSTICS {
            if self.at_sym(Sym::RParen) || self.at_sym(Sym::RBrace) {
                let sp = self.span_here();
                let d = self.describe_here();
                self.error(format!("unexpected {d}"), sp);
                self.bump();
                continue;
            }
            let before = self.pos;
            match self.parse_unit() {
                Ok(Some(f)) => items.push(f),
                Ok(None) => {}
                Err(()) => {
                    if self.pos == before {
                        self.bump();
                    }
                }
            }
        }
        let end = self.span_here();
        // A script of function definitions only has an empty body, which every position
        // matches (CQL 6.2 accepts it); a script with nothing at all is refused.
        if items.is_empty() && self.diags.is_empty() && self.functions.is_empty() {
            self.error_hint(
                "the script has no filters",
                end,
                Some("add a filter after the `cql(...)` header, e.g. `mate`".into()),
            );
        }
        let root = self.add(Filter::And(items), Self::join(start, end));
        self.ir.root = Some(root);
    }

    fn header_file_name(&mut self) -> String {
        // A file name is the raw text up to whitespace or `)`.
        let start = self.peek().span.start as usize;
        let rest = &self.src[start.min(self.src.len())..];
        let len = rest.find(|c: char| c.is_whitespace() || c == ')').unwrap_or(rest.len());
        let end = start + len;
        while !self.at_eof() && (self.peek().span.start as usize) < end {
            self.bump();
        }
        self.src[start..end].trim_matches('"').to_string()
    }

    fn header_number(&mut self) -> Option<u64> {
        if let Tok::Number(n) = self.peek().tok {
            self.bump();
            Some(n.max(0) as u64)
        } else {
            None
        }
    }

    fn parse_header(&mut self) {
        loop {
            let t = self.peek().clone();
            match &t.tok {
                Tok::Sym(Sym::RParen) => {
                    self.bump();
                    return;
                }
                Tok::Eof => {
                    self.error("unterminated `cql(` header", t.span);
                    return;
                }
                Tok::Word(w) => {
                    self.bump();
                    match w.as_str() {
                        "input" => {
                            let f = self.header_file_name();
                            self.ir.settings.input.push(f);
                        }
                        "output" => {
                            let f = self.header_file_name();
                            self.ir.settings.output = Some(f);
                        }
                        "variations" => self.ir.settings.variations = true,
                        "mainline" => self.ir.settings.variations = false,
                        "silent" => self.ir.settings.silent = true,
                        "quiet" => self.ir.settings.quiet = true,
                        "matchcount" | "gamenumber" => {
                            let Some(lo) = self.header_number() else {
                                self.error(format!("`{w}` needs a number"), t.span);
                                continue;
                            };
                            // One number alone is both ends, as in every CQL 6.2 range (`cql(matchcount 3)`:
                            // exactly three matching positions).
                            let hi = self.header_number().unwrap_or(lo);
                            if w == "matchcount" {
                                self.ir.settings.matchcount = (lo, hi);
                            } else {
                                self.ir.settings.gamenumber = Some((lo, hi));
                            }
                        }
                        "matchstring" => {
                            if let Tok::Str(s) = &self.peek().tok {
                                self.ir.settings.matchstring = Some(s.clone());
                                self.bump();
                            } else {
                                self.error("`matchstring` needs a string", t.span);
                            }
                        }
                        "result" => {
                            if let Tok::ResultLit(r) = self.peek().tok {
                                self.ir.settings.result = Some(r);
                                self.bump();
                            } else {
                                self.error("`result` needs 1-0, 0-1 or 1/2-1/2", t.span);
                            }
                        }
                        // Accepted and ignored: options of the official program that change only its output.
                        "sort" if matches!(&self.peek().tok, Tok::Word(m) if m == "matchcount") => {
                            // `sort matchcount [lo [hi]]`: order by the number of matching
                            // positions; the range that may follow bounds it as usual.
                            self.ir.settings.sort_matchcount = true;
                        }
                        "noremovecomment" => self.ir.settings.keep_removed_comments = true,
                        "sort" | "nosort" | "smartcomments" | "nosmartcomments" | "showmatches" => {}
                        other => {
                            let words = [
                                "input",
                                "output",
                                "variations",
                                "mainline",
                                "silent",
                                "quiet",
                                "matchcount",
                                "gamenumber",
                                "matchstring",
                                "result",
                            ];
                            let hint = nearest(other, &words).map(|n| format!("did you mean `{n}`?"));
                            self.error_hint(format!("unknown `cql` header option `{other}`"), t.span, hint);
                        }
                    }
                }
                _ => {
                    let d = self.describe_here();
                    self.error(format!("unexpected {d} in the `cql` header"), t.span);
                    self.bump();
                }
            }
        }
    }

    /// One juxtaposed filter (with an optional `///` comment after it). `None` for a
    /// function definition.
    fn parse_unit(&mut self) -> PResult<Option<FilterId>> {
        if self.at_word("function") {
            self.parse_function_def()?;
            return Ok(None);
        }
        let f = self.parse_expr(BP_OR)?;
        Ok(Some(self.maybe_triple_slash(f)?))
    }

    fn maybe_triple_slash(&mut self, f: FilterId) -> PResult<FilterId> {
        if !self.at_sym(Sym::TripleSlash) {
            return Ok(f);
        }
        let t = self.bump();
        let args = self.triple_slash_items(t.line, t.span)?;
        let c = self.add(Filter::Comment(args), t.span);
        let sp = Self::join(self.ir.span(f), t.span);
        Ok(self.add(Filter::And(vec![f, c]), sp))
    }

    /// The items of a `///` comment (read): the filters on the rest of its line. CQL 6.2
    /// wants at least one ("empty list of items followed … '///'").
    fn triple_slash_items(&mut self, line: u32, sp: Span) -> PResult<Vec<FilterId>> {
        let mut args = Vec::new();
        while self.peek().line == line && !self.at_eof() && !self.closes_here() {
            args.push(self.parse_converter_arg(BP_UNION)?);
        }
        if args.is_empty() {
            self.error_hint(
                "`///` needs something to write on the rest of its line",
                sp,
                Some("write e.g. `/// \"pin\" ply`; a plain remark is `//`".to_string()),
            );
            return Err(());
        }
        Ok(args)
    }

    fn closes_here(&self) -> bool {
        matches!(self.peek().tok, Tok::Sym(Sym::RParen) | Tok::Sym(Sym::RBrace) | Tok::Eof)
    }

    fn parse_function_def(&mut self) -> PResult<()> {
        let kw = self.bump();
        let name = match self.bump().tok {
            Tok::Word(w) => w,
            _ => {
                self.error("expected a function name after `function`", kw.span);
                return Err(());
            }
        };
        self.expect_sym(Sym::LParen, "`(` after the function name")?;
        let mut params = Vec::new();
        while let Tok::Word(w) = &self.peek().tok {
            params.push(w.clone());
            self.bump();
        }
        self.expect_sym(Sym::RParen, "`)` closing the parameter list")?;
        let open = self.span_here();
        if self.brace_is_repetition() && !self.peek_at(1).space_before && !self.peek_at(2).space_before {
            // CQL 6.2 reads `{1}` / `{2,3}` as a repetition count, never as a body.
            self.error_hint(
                "a function body cannot be a repetition count like `{1}`",
                open,
                Some("write the body with spaces or another filter, e.g. `{ 1 + 0 }`".to_string()),
            );
            return Err(());
        }
        self.expect_sym(Sym::LBrace, "`{` starting the function body")?;
        let start = self.pos;
        let mut level = 1usize;
        while level > 0 {
            match self.peek().tok {
                Tok::Eof => {
                    self.error("unclosed function body", open);
                    return Err(());
                }
                Tok::Sym(Sym::LBrace) => level += 1,
                Tok::Sym(Sym::RBrace) => level -= 1,
                _ => {}
            }
            self.bump();
        }
        let body = self.toks[start..self.pos - 1].to_vec();
        self.functions.insert(name, Function { params, body });
        Ok(())
    }

    // ----- expressions ---------------------------------------------------------

    /// Parse a filter whose operators bind at least as tightly as `min_bp`.
    fn parse_expr(&mut self, min_bp: u8) -> PResult<FilterId> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            if !self.fatal {
                let sp = self.span_here();
                self.error_hint(
                    "the query is nested too deeply",
                    sp,
                    Some(format!("at most {MAX_DEPTH} levels of nesting are allowed")),
                );
            }
            self.fatal = true;
            self.depth -= 1;
            return Err(());
        }
        let r = self.parse_expr_inner(min_bp);
        self.depth -= 1;
        r
    }

    fn parse_expr_inner(&mut self, min_bp: u8) -> PResult<FilterId> {
        // A `――`/`×` with nothing on its left is a whole operand of the operators looser than
        // a dash (CQL 6.2 returns it from `match_mulop_x` at once): in `legal ―― & legal ――`
        // the `&` joins the two moves rather than continuing the first one's destination.
        let bare_dash = matches!(self.peek().tok, Tok::Sym(Sym::Dash | Sym::Capture));
        let mut lhs = self.parse_prefix()?;
        loop {
            if self.fatal {
                return Err(());
            }
            let t = self.peek().clone();
            let lspan = self.ir.span(lhs);
            // A dash written right after the bare one (`--(k)--`) is still tied to it, so
            // that the move arm below can refuse it as CQL 6.2 does.
            let tied_dash = matches!(t.tok, Tok::Sym(Sym::Dash | Sym::Capture)) && !t.space_before;
            if bare_dash && binds_tighter_than_dash(&t.tok) && !tied_dash {
                break;
            }
            match &t.tok {
                Tok::Sym(Sym::Colon) if self.in_subscript && !self.may_be_position(lhs) => break,
                Tok::Sym(Sym::Colon) if min_bp <= BP_POSTFIX => {
                    if matches!(
                        self.ir.get(lhs),
                        Filter::Move(_)
                            | Filter::Pieces { .. }
                            | Filter::Squares(_)
                            | Filter::Number(_)
                            | Filter::Str(_)
                            | Filter::Compare { .. }
                            | Filter::Attacks { .. }
                    ) || matches!(self.ir.get(lhs), Filter::Var(v) if matches!(self.ir.vars.get(v.0 as usize).map(|i| i.kind), Some(VarKind::Square | VarKind::Piece)))
                    {
                        self.error_hint(
                            "`:` needs a position on its left",
                            t.span,
                            Some("write e.g. `parent:check` or `child(1):mate`".into()),
                        );
                        return Err(());
                    }
                    self.bump();
                    let body = self.parse_expr(BP_POSTFIX)?;
                    let sp = Self::join(lspan, self.ir.span(body));
                    lhs = self.add(Filter::AtPosition { at: lhs, body }, sp);
                }
                Tok::Sym(Sym::LBracket) if !t.space_before && min_bp <= BP_POSTFIX => {
                    self.bump();
                    lhs = self.parse_subscript(lhs, lspan)?;
                }
                Tok::Sym(Sym::Dash) | Tok::Sym(Sym::Capture) if !t.space_before && min_bp <= BP_DASH => {
                    lhs = self.parse_move_after(Some(lhs))?;
                }
                Tok::Sym(s @ (Sym::AttackRight | Sym::AttackLeft)) if min_bp <= BP_ATTACK => {
                    // Arrows of one direction form a chain (`♖→♞→♚`), which CQL reads as
                    // an x-ray along one line, not as nested attacks.
                    let arrow = *s;
                    self.bump();
                    let mut operands = vec![lhs, self.arrow_operand()?];
                    while self.eat_sym(arrow) {
                        operands.push(self.arrow_operand()?);
                    }
                    let other = if arrow == Sym::AttackRight { Sym::AttackLeft } else { Sym::AttackRight };
                    if self.at_sym(other) {
                        // CQL 6.2 ends the chain here and cannot go on (`A → P ← P`).
                        let at = self.peek().span;
                        self.error_hint(
                            "attack arrows of both directions in one chain",
                            at,
                            Some("a chain runs one way (`♖→♞→♚`); put one part in parentheses".into()),
                        );
                        return Err(());
                    }
                    let left = arrow == Sym::AttackLeft;
                    lhs = if operands.len() == 2 {
                        self.attack(left, operands[0], operands[1])
                    } else {
                        let first = operands[0];
                        let last = operands[operands.len() - 1];
                        let sp = Self::join(self.ir.span(first), self.ir.span(last));
                        if left {
                            operands.reverse();
                        }
                        self.add(Filter::AttackChain { sets: operands, value_is_last: left }, sp)
                    };
                }
                // `attack` is `attacks`, and `attacked by` in two words is `attackedby`
                // (CQL 6.2 `match_intersect_x`).
                Tok::Word(w)
                    if (w == "attacks"
                        || w == "attack"
                        || w == "attackedby"
                        || w == "attacked" && matches!(&self.peek_at(1).tok, Tok::Word(b) if b == "by"))
                        && min_bp <= BP_ATTACK_WORD =>
                {
                    let left = w == "attackedby" || w == "attacked";
                    if w == "attacked" {
                        self.bump();
                    }
                    self.bump();
                    let rhs = self.parse_expr(BP_ATTACK_WORD + 1)?;
                    lhs = self.attack(left, lhs, rhs);
                }
                Tok::Sym(Sym::Inter) if min_bp <= BP_INTER => {
                    lhs = self.nary(lhs, Sym::Inter, BP_INTER)?;
                }
                Tok::Sym(Sym::Union) if min_bp <= BP_UNION => {
                    lhs = self.nary(lhs, Sym::Union, BP_UNION)?;
                }
                Tok::Sym(s @ (Sym::Star | Sym::Slash | Sym::Percent))
                    if min_bp <= BP_MUL && !(*s == Sym::Star && self.sign_is_repetition()) =>
                {
                    let op = match s {
                        Sym::Star => ArithOp::Mul,
                        Sym::Slash => ArithOp::Div,
                        _ => ArithOp::Rem,
                    };
                    self.bump();
                    let rhs = self.parse_expr(BP_MUL + 1)?;
                    let sp = Self::join(lspan, self.ir.span(rhs));
                    lhs = self.add(Filter::Arith(op, lhs, rhs), sp);
                }
                // After a set, a move or a position, CQL 6.2 does not subtract: `q -2` is `q`
                // followed by the number -2 (`(q-2)` is two filters in parentheses, refused),
                // and so is `――=q-2` (its arithmetic wants a number on the left).
                Tok::Sym(s @ (Sym::Plus | Sym::Minus))
                    if min_bp <= BP_ADD
                        && !(*s == Sym::Plus && self.sign_is_repetition())
                        && !(*s == Sym::Minus && (self.is_written_set(lhs) || self.is_plainly_not_a_number(lhs))) =>
                {
                    let op = if *s == Sym::Plus { ArithOp::Add } else { ArithOp::Sub };
                    self.bump();
                    let rhs = self.parse_expr(BP_ADD + 1)?;
                    let sp = Self::join(lspan, self.ir.span(rhs));
                    lhs = self.add(Filter::Arith(op, lhs, rhs), sp);
                }
                Tok::Sym(s) if cmp_op(*s).is_some() && min_bp <= BP_CMP => {
                    let mut rest = Vec::new();
                    let mut sp = lspan;
                    let mut unequal_inside = None;
                    while let Tok::Sym(s) = self.peek().tok {
                        let Some(op) = cmp_op(s) else { break };
                        let op_token = self.bump();
                        if op == CmpOp::Ne && !rest.is_empty() && unequal_inside.is_none() {
                            unequal_inside = Some(op_token.span);
                        }
                        let rhs = self.parse_expr(BP_CMP + 1)?;
                        sp = Self::join(sp, self.ir.span(rhs));
                        rest.push((op, rhs));
                    }
                    // CQL 6.2 reads a chain from the right (`Tokens::match_in_x`): `a < b < c`
                    // is `a < (b < c)`, whose value is b. A `!=` is a `not` around `==`
                    // (`make_relational_op_node`), which has no value: after the first
                    // operand it leaves nothing for the comparison before it, and as the
                    // first operator it denies the whole chain (`a != b < c` is
                    // `not (a == b < c)`).
                    if let (Some(at), true) = (unequal_inside, rest.len() > 1) {
                        self.error_hint(
                            "CQL 6.2 reads a chain from the right, and `!=` there leaves no value to compare",
                            at,
                            Some("write the comparisons apart, e.g. `a < b  b != c`".to_string()),
                        );
                        return Err(());
                    }
                    if rest.len() > 1 && rest[0].0 == CmpOp::Ne {
                        rest[0].0 = CmpOp::Eq;
                        let chain = self.add(Filter::Compare { first: lhs, rest }, sp);
                        lhs = self.add(Filter::Not(chain), sp);
                    } else {
                        lhs = self.add(Filter::Compare { first: lhs, rest }, sp);
                    }
                }
                Tok::Sym(s @ (Sym::Prec | Sym::Succ | Sym::PrecEq | Sym::SuccEq)) if min_bp <= BP_CMP => {
                    let rel = match s {
                        Sym::Prec => TreeRelation::Ancestor,
                        Sym::PrecEq => TreeRelation::AncestorOrSelf,
                        // CQL 6.2 (`RelationalNode::compare`, `[>=]`) tests `≽` exactly as `≻`:
                        // a strict descendant. The reference's behaviour wins (docs/compat.md).
                        _ => TreeRelation::Descendant,
                    };
                    self.bump();
                    let rhs = self.parse_expr(BP_CMP + 1)?;
                    let sp = Self::join(lspan, self.ir.span(rhs));
                    lhs = self.add(Filter::TreeRelation(rel, lhs, rhs), sp);
                }
                Tok::Word(w) if w == "in" && min_bp <= BP_IN => {
                    self.bump();
                    let rhs = self.parse_expr(BP_IN + 1)?;
                    let sp = Self::join(lspan, self.ir.span(rhs));
                    lhs = self.add(Filter::In(lhs, rhs), sp);
                }
                Tok::Sym(Sym::RegexOp) if min_bp <= BP_LOOSE => {
                    self.bump();
                    let pt = self.bump();
                    let Tok::Str(pattern) = pt.tok else {
                        self.error("`~~` needs a string literal pattern on its right", pt.span);
                        return Err(());
                    };
                    if let Err(e) = crate::ir::compile_pattern(&pattern) {
                        self.error(
                            format!("invalid regular expression: {}", e.to_string().lines().last().unwrap_or("")),
                            pt.span,
                        );
                    }
                    let sp = Self::join(lspan, pt.span);
                    lhs = self.add(Filter::RegexMatch { subject: lhs, pattern }, sp);
                }
                Tok::Word(w) if w == "and" && min_bp <= BP_AND => {
                    lhs = self.nary_word(lhs, "and", BP_AND)?;
                }
                Tok::Word(w) if w == "or" && min_bp <= BP_OR => {
                    lhs = self.nary_word(lhs, "or", BP_OR)?;
                }
                _ => break,
            }
        }
        Ok(lhs)
    }

    /// `yacpdb "QUERY"`: a YACPDB query (`ClosedWalk(wR, 4, *) > 1 AND NOT Twins > 1`)
    /// embedded as a filter; it matches at every position of a game whose solution tree
    /// satisfies the query. Errors inside the string are reported at their place in it.
    fn parse_yacpdb(&mut self, keyword: Span) -> PResult<FilterId> {
        let t = self.bump();
        let Tok::Str(query) = t.tok else {
            self.error_hint(
                "`yacpdb` needs the query as a string",
                t.span,
                Some("write e.g. `yacpdb \"ClosedWalk(wR, 4, *) > 1\"`".to_string()),
            );
            return Err(());
        };
        let span = Self::join(keyword, t.span);
        match crate::lang::yacpdb::parse(&query) {
            Ok(inner) => match inner.root {
                Some(root) => Ok(self.ir.import(&inner, root, span)),
                None => Ok(self.add(Filter::True, span)),
            },
            Err(e) => {
                // Point into the string: its text starts one byte after the opening quote
                // when it has no escapes (otherwise at the string).
                for d in e.diagnostics {
                    let start = t.span.start as usize + 1 + d.span.start as usize;
                    let end = t.span.start as usize + 1 + d.span.end as usize;
                    let at = if start < t.span.end as usize {
                        Span::new(start, end.min(t.span.end as usize))
                    } else {
                        t.span
                    };
                    self.error_hint(format!("in the YACPDB query: {}", d.message), at, d.hint);
                }
                Err(())
            }
        }
    }

    fn attack(&mut self, left: bool, lhs: FilterId, rhs: FilterId) -> FilterId {
        let sp = Self::join(self.ir.span(lhs), self.ir.span(rhs));
        let f = if left {
            Filter::Attacks { attackers: rhs, targets: lhs, value_is_targets: true }
        } else {
            Filter::Attacks { attackers: lhs, targets: rhs, value_is_targets: false }
        };
        self.add(f, sp)
    }

    fn nary(&mut self, first: FilterId, sym: Sym, bp: u8) -> PResult<FilterId> {
        let mut items = vec![first];
        while self.eat_sym(sym) {
            items.push(self.parse_expr(bp + 1)?);
        }
        let sp = Self::join(self.ir.span(first), self.ir.span(*items.last().unwrap_or(&first)));
        Ok(self.add(if sym == Sym::Inter { Filter::Intersection(items) } else { Filter::Union(items) }, sp))
    }

    /// The operand on the right of an arrow (`→`/`←`): a `∪`/`∩` expression, so that CQL 6.2
    /// reads `T→(▦←♚)∪♚` as `T→((▦←♚)∪♚)` (the target set is the whole union), while a
    /// further arrow of the same direction continues the chain (`♖→♞→♚`).
    fn arrow_operand(&mut self) -> PResult<FilterId> {
        self.parse_expr(BP_ATTACK + 1)
    }

    fn nary_word(&mut self, first: FilterId, word: &str, bp: u8) -> PResult<FilterId> {
        let mut items = vec![first];
        while self.eat_word(word) {
            items.push(self.parse_expr(bp + 1)?);
        }
        let sp = Self::join(self.ir.span(first), self.ir.span(*items.last().unwrap_or(&first)));
        let id = self.add(if word == "and" { Filter::And(items) } else { Filter::Or(items) }, sp);
        self.kinds.note(id, super::types::Kind::Logical);
        Ok(id)
    }

    /// A block `{ … }`: juxtaposed filters; an empty block is `true`. With `one_filter`
    /// (an expression in parentheses, a `while` condition) it must hold exactly one filter,
    /// as in CQL 6.2; a move's target list in parentheses may hold several.
    fn parse_block(&mut self, close: Sym, one_filter: bool) -> PResult<FilterId> {
        let open = self.bump();
        if close == Sym::RBrace {
            if let Some(d) = super::types::brace_repetition_at(self.src, open.span) {
                self.diags.push(d);
                return Err(());
            }
        }
        let saved = std::mem::replace(&mut self.in_sequence, false);
        let saved_top = std::mem::replace(&mut self.path_top, false);
        let mut items = Vec::new();
        // After an error inside the block, the rest of it is still read (its own errors
        // are reported too) up to the closing brace, which is taken, so that the brace
        // is not reported a second time as unexpected.
        let mut failed = false;
        let result = loop {
            if self.eat_sym(close) {
                break if failed { Err(()) } else { Ok(()) };
            }
            if failed && (self.at_eof() || self.closes_here() || self.fatal || self.diags.len() >= MAX_DIAGNOSTICS) {
                break Err(());
            }
            if self.at_eof() || self.closes_here() {
                let what = if close == Sym::RBrace { "`}`" } else { "`)`" };
                let sp = self.span_here();
                let d = self.describe_here();
                self.error_hint(
                    format!("expected {what}, found {d}"),
                    sp,
                    Some(format!("the block opened at byte {} is not closed", open.span.start)),
                );
                break Err(());
            }
            let before = self.pos;
            match self.parse_unit() {
                Ok(Some(f)) => items.push(f),
                Ok(None) => {}
                Err(()) => {
                    failed = true;
                    if self.pos == before && !self.at_eof() && !self.at_sym(close) {
                        self.bump();
                    }
                }
            }
        };
        self.in_sequence = saved;
        self.path_top = saved_top;
        result?;
        let sp = Self::join(open.span, self.toks[self.pos.saturating_sub(1)].span);
        if items.is_empty() && close == Sym::RBrace {
            // CQL 6.2 wants a filter after `{` ("syntax error following a '{'").
            self.error_hint(
                "empty braces: `{` must hold a filter",
                sp,
                Some("write `true` for a filter that always matches".to_string()),
            );
            return Err(());
        }
        if one_filter && items.len() != 1 {
            // CQL 6.2 reads one whole filter after `(` and then wants the `)`
            // (`match_parens` in its node-parse.cpp); several filters need braces.
            let (msg, hint) = if items.is_empty() {
                ("empty parentheses: `(` must hold a filter", "write the filter inside, or leave the parentheses out")
            } else {
                (
                    "parentheses hold exactly one filter",
                    "use braces `{ … }` to group several filters (all of them must match)",
                )
            };
            let at = if items.len() > 1 { self.ir.span(items[1]) } else { sp };
            self.error_hint(msg, at, Some(hint.to_string()));
            return Err(());
        }
        Ok(match items.len() {
            0 => self.add(Filter::True, sp),
            1 => items[0],
            _ => self.add(Filter::And(items), sp),
        })
    }

    fn pieces(&mut self, mask: PieceMask, squares: Option<Bitboard>, span: Span) -> FilterId {
        self.add(Filter::Pieces { mask, squares: squares.unwrap_or(Bitboard::FULL) }, span)
    }

    fn parse_prefix(&mut self) -> PResult<FilterId> {
        let t = self.peek().clone();
        let sp = t.span;
        match &t.tok {
            Tok::Number(n) => {
                self.bump();
                Ok(self.add(Filter::Number(*n), sp))
            }
            Tok::Str(s) => {
                self.bump();
                Ok(self.add(Filter::Str(s.clone()), sp))
            }
            Tok::RegexGroup(g) => {
                self.bump();
                Ok(self.add(Filter::RegexGroup(*g), sp))
            }
            Tok::RegexGroupStart(g) => {
                self.bump();
                Ok(self.add(Filter::RegexGroupStart(*g), sp))
            }
            Tok::Squares(bb) => {
                self.bump();
                Ok(self.add(Filter::Squares(*bb), sp))
            }
            Tok::FileOnly => {
                self.bump();
                self.error_hint("a square range needs ranks as well as files", sp, Some("write e.g. `c-f1-8`".into()));
                Err(())
            }
            Tok::ResultLit(_) => {
                self.bump();
                self.error("a game result can only follow `result`", sp);
                Err(())
            }
            // `o-o` / `o-o-o` standing alone: the move that led here was that castling (CQL 6.2
            // `match_pastmovenode`); inside `move` they describe the move tested instead.
            Tok::Castle(king) => {
                self.bump();
                let kind = if *king { MoveKind::CastleKingside } else { MoveKind::CastleQueenside };
                Ok(self.move_node(MoveFilter { kind, ..Self::previous_move() }, sp))
            }
            Tok::Pieces { mask, squares } => {
                self.bump();
                // `◭y∊Z F`: piece iteration.
                if squares.is_none() && *mask == PieceMask::ANY_PIECE {
                    let next = self.peek().clone();
                    // `◭ X ∊ …` may be spaced, except where `◭` is itself a domain (`x∊◭ y∊◭`).
                    let after_element = self.pos >= 2 && is_element(&self.toks[self.pos - 2].tok);
                    {
                        if let Tok::Word(name) = &next.tok {
                            if is_element(&self.peek_at(1).tok) && (!next.space_before || !after_element) {
                                self.bump();
                                self.bump();
                                return self.parse_iteration(name.clone(), true, false, sp);
                            }
                            if !next.space_before && is_assign(&self.peek_at(1).tok) {
                                // `◭T=set`: a piece variable given a value.
                                self.bump();
                                return self.parse_piece_assign(name.clone(), sp);
                            }
                        }
                        if let Tok::Pieces { squares: None, .. } = next.tok {
                            if is_element(&self.peek_at(1).tok) {
                                self.error_hint(
                                    "a single piece letter cannot be a variable name",
                                    next.span,
                                    Some("use a longer name such as `P1`".into()),
                                );
                                return Err(());
                            }
                        }
                    }
                }
                if squares.is_none() && is_assign(&self.peek().tok) {
                    self.error_hint(
                        "a single piece letter cannot be a variable name",
                        sp,
                        Some("use a longer name".into()),
                    );
                    return Err(());
                }
                Ok(self.pieces(*mask, *squares, sp))
            }
            Tok::Sym(sym) => self.parse_sym_prefix(*sym, sp),
            Tok::Word(w) => self.parse_word(w.clone(), sp),
            Tok::Eof => {
                self.error("unexpected end of input: a filter is missing", sp);
                Err(())
            }
        }
    }

    fn parse_sym_prefix(&mut self, sym: Sym, sp: Span) -> PResult<FilterId> {
        match sym {
            Sym::LBrace => self.parse_block(Sym::RBrace, false),
            Sym::LParen => self.parse_block(Sym::RParen, true),
            // `[]`: the empty set of squares (`Seen=[]`).
            Sym::LBracket if self.peek_at(1).tok == Tok::Sym(Sym::RBracket) => {
                self.bump();
                let t = self.bump();
                Ok(self.add(Filter::Squares(Bitboard::EMPTY), Self::join(sp, t.span)))
            }
            Sym::Hash => {
                self.bump();
                // `#D`: the number of entries of a dictionary (`#D[k]` is the size of a value).
                if let Tok::Word(name) = &self.peek().tok {
                    if let Some(dict) = self.dictionary(name) {
                        let t = self.bump();
                        if !self.at_dict_key() {
                            return Ok(self.add(Filter::DictCount(dict), Self::join(sp, t.span)));
                        }
                        self.pos -= 1;
                    }
                }
                // The operand is a whole set expression up to a `――` (CQL 6.2 reads it with
                // `match_set`): `#_ attackedby K`, `#a|b`, `#R→k`.
                let a = self.parse_expr(BP_DASH)?;
                let s = Self::join(sp, self.ir.span(a));
                Ok(self.add(Filter::Count(a), s))
            }
            Sym::Minus => {
                self.bump();
                if let Tok::Number(n) = self.peek().tok {
                    let t = self.bump();
                    return Ok(self.add(Filter::Number(-n), Self::join(sp, t.span)));
                }
                let a = self.parse_expr(BP_POSTFIX)?;
                let s = Self::join(sp, self.ir.span(a));
                Ok(self.add(Filter::Neg(a), s))
            }
            Sym::Tilde => {
                // `~` takes in `attacks`/`attackedby` but not `|`, `&` or arrows: CQL 6.2
                // reads `~K attackedby k` as `~(K attackedby k)`.
                self.bump();
                let a = self.parse_expr(BP_ATTACK_WORD)?;
                let s = Self::join(sp, self.ir.span(a));
                Ok(self.add(Filter::Complement(a), s))
            }
            Sym::Dash | Sym::Capture => {
                let prev = self.pos.checked_sub(1).and_then(|i| self.toks.get(i));
                if let Some(d) = super::types::dash_left_tie(prev, self.peek(), self.src, self.in_sequence) {
                    self.diags.push(d);
                    return Err(());
                }
                self.parse_move_after(None)
            }
            Sym::TripleSlash => {
                // A stand-alone `///` comment: the rest of the line are its arguments.
                let t = self.bump();
                let args = self.triple_slash_items(t.line, t.span)?;
                Ok(self.add(Filter::Comment(args), sp))
            }
            Sym::Current => {
                self.bump();
                Ok(self.add(Filter::Tree(TreeStep::Current), sp))
            }
            Sym::FlipStar => {
                self.bump();
                self.parse_transform(TransformKind::Flip, sp)
            }
            Sym::FlipColorSquare => {
                self.bump();
                self.parse_transform(TransformKind::FlipColor, sp)
            }
            Sym::Path => {
                self.bump();
                self.parse_path(sp)
            }
            Sym::Forall => {
                self.bump();
                // ∀x∊Z F or ∀◭y∊Z F
                let t = self.bump();
                match t.tok {
                    Tok::Word(name) if is_element(&self.peek().tok) => {
                        self.bump();
                        self.parse_iteration(name, false, true, sp)
                    }
                    Tok::Pieces { mask, squares: None } if mask == PieceMask::ANY_PIECE => {
                        let n = self.bump();
                        match n.tok {
                            // CQL 6.2's lexer reads `◭x`/`[Aa]x` as a piece variable's
                            // declaration only with the name written right after the sign.
                            Tok::Word(_) if n.space_before => {
                                self.error_hint(
                                    "after `∀`, the piece variable is written right after `◭` (`[Aa]`)",
                                    n.span,
                                    Some("write `∀◭x∊S` (`[forall] [Aa]x [element] S`) without a space".into()),
                                );
                                Err(())
                            }
                            Tok::Word(name) if is_element(&self.peek().tok) => {
                                self.bump();
                                self.parse_iteration(name, true, true, sp)
                            }
                            Tok::Pieces { .. } => {
                                self.error_hint(
                                    "a single piece letter cannot be a variable name",
                                    n.span,
                                    Some("use a longer name".into()),
                                );
                                Err(())
                            }
                            _ => {
                                self.error("expected `◭name∊set` after `∀`", n.span);
                                Err(())
                            }
                        }
                    }
                    _ => {
                        self.error("expected `name∊set` after `∀`", t.span);
                        Err(())
                    }
                }
            }
            Sym::LineBackward | Sym::LineForward => {
                self.error("`-->`/`<--` must follow `line`", sp);
                self.bump();
                Err(())
            }
            _ => {
                let d = self.describe_here();
                self.bump();
                self.error(format!("unexpected {d}: a filter was expected"), sp);
                Err(())
            }
        }
    }

    fn move_node(&mut self, m: MoveFilter, sp: Span) -> FilterId {
        self.add(Filter::Move(Box::new(m)), sp)
    }

    /// `X――Y`, `X×Y`, `――=♖`, `――(check)` with the dash or cross at the current token.
    fn parse_move_after(&mut self, from: Option<FilterId>) -> PResult<FilterId> {
        let op = self.bump();
        let capture = op.tok == Tok::Sym(Sym::Capture);
        let mut m = MoveFilter::any(MoveSource::Next);
        m.from = from;
        let mut sp = from.map_or(op.span, |f| Self::join(self.ir.span(f), op.span));
        let mut target = None;
        let next = self.peek().clone();
        if let Some(d) =
            super::types::dash_spaced_paren(&next, self.path_top).or_else(|| super::types::dash_right_tie(&next))
        {
            self.diags.push(d);
            return Err(());
        }
        if !next.space_before {
            match &next.tok {
                Tok::Sym(Sym::Assign) | Tok::Sym(Sym::LParen) => {}
                // `--[Aa]=Q`: a piece target directly followed by a promotion.
                Tok::Pieces { mask, squares } if is_assign(&self.peek_at(1).tok) => {
                    let (mask, squares) = (*mask, *squares);
                    self.bump();
                    let t = self.pieces(mask, squares, next.span);
                    sp = Self::join(sp, next.span);
                    target = Some(t);
                }
                // `――{0,9}` in a path or line: a repetition count of the move, not its
                // destination.
                Tok::Sym(Sym::LBrace) if self.brace_is_repetition() => {}
                // `――and ――`: the operator, not a destination (CQL 6.2).
                Tok::Word(w) if w == "and" || w == "or" => {}
                Tok::Pieces { .. }
                | Tok::Squares(_)
                | Tok::Word(_)
                | Tok::Sym(Sym::Tilde)
                | Tok::Sym(Sym::Current)
                | Tok::Sym(Sym::LBrace) => {
                    // The destination is a whole arrow expression (`――q|b` is `――(q|b)`).
                    let t = self.parse_expr(BP_ATTACK)?;
                    sp = Self::join(sp, self.ir.span(t));
                    target = Some(t);
                }
                _ => {}
            }
        }
        if capture {
            let any = self.add(Filter::Squares(Bitboard::FULL), op.span);
            m.capture = Some(target.unwrap_or(any));
        } else {
            m.to = target;
        }
        // Suffixes: `=♕` promotion, `(check)` condition after the move. A promotion right
        // after the destination of a dash written against it may stand after a space
        // (`P×[rnbq] =Q`, CQL 6.2 `match_dash_promotion` reads tokens); a dash standing
        // alone takes none (`P―― =Q` is refused there).
        let right_tied = !next.space_before;
        let mut first_suffix = true;
        loop {
            let n = self.peek().clone();
            let spaced_promotion = right_tied && first_suffix && n.tok == Tok::Sym(Sym::Assign);
            first_suffix = false;
            if n.space_before && !spaced_promotion {
                break;
            }
            if n.tok == Tok::Sym(Sym::Assign) {
                self.bump();
                let p = self.bump();
                let roles = match &p.tok {
                    Tok::Pieces { mask, squares: None } => promote_roles(*mask),
                    Tok::Word(name)
                        if self.ir.find_var(name).is_some_and(|v| {
                            matches!(
                                self.ir.vars[v.0 as usize].kind,
                                VarKind::Square | VarKind::Piece | VarKind::Position | VarKind::Dictionary { .. }
                            )
                        }) =>
                    {
                        // CQL 6.2 takes a piece designator or a string here; a set (a
                        // function parameter given `Q` holds the squares of the queen), a
                        // piece or a position is none.
                        // (A parameter's stand-in is named "T of F #n": show T.)
                        let shown = name.split(' ').next().unwrap_or(name);
                        self.error_hint(
                            format!("`{shown}` is not a piece designator or a string, so it cannot name a promotion"),
                            p.span,
                            Some("write the piece (`――=♕`, `--=Q`) or a string variable holding its letter".into()),
                        );
                        return Err(());
                    }
                    Tok::Word(name) if self.ir.find_var(name).is_some() || self.declared.contains(name) => {
                        // `――=T` with T a variable holding a piece letter or type name:
                        // any promotion whose new piece matches T afterwards.
                        let var = self.ir.var(name, VarKind::Value);
                        let v = self.add(Filter::Var(var), p.span);
                        let landed = self.move_node(
                            MoveFilter { source: MoveSource::Previous, ..MoveFilter::any(MoveSource::Next) },
                            p.span,
                        );
                        let tname = self.add(Filter::Call(Builtin::TypeName, vec![landed]), p.span);
                        let pname = self.add(Filter::Call(Builtin::PieceName, vec![landed]), p.span);
                        let upper = self.add(Filter::Call(Builtin::Uppercase, vec![pname]), p.span);
                        let by_type = self.add(Filter::Compare { first: tname, rest: vec![(CmpOp::Eq, v)] }, p.span);
                        let by_letter = self.add(Filter::Compare { first: upper, rest: vec![(CmpOp::Eq, v)] }, p.span);
                        let cond = self.add(Filter::Or(vec![by_type, by_letter]), p.span);
                        m.then = Some(match m.then {
                            Some(prev) => self.add(Filter::And(vec![prev, cond]), p.span),
                            None => cond,
                        });
                        promote_roles(PieceMask::WHITE)
                    }
                    Tok::Str(s) => {
                        let roles = promote_roles_of_text(s);
                        if roles == 0 {
                            // No piece letter in the text: no promotion matches it.
                            let never = self.add(Filter::False, p.span);
                            m.then = Some(match m.then {
                                Some(prev) => self.add(Filter::And(vec![prev, never]), p.span),
                                None => never,
                            });
                            promote_roles(PieceMask::WHITE)
                        } else {
                            roles
                        }
                    }
                    _ => {
                        self.error_hint(
                            "expected a piece after `=` in a promotion",
                            p.span,
                            Some("write e.g. `――=♕` or `--=Q`".into()),
                        );
                        return Err(());
                    }
                };
                if roles == 0 {
                    self.error("a promotion needs a piece type", p.span);
                    return Err(());
                }
                m.promote = roles;
                sp = Self::join(sp, p.span);
                if let Some(d) = super::types::after_promotion(&self.peek().tok, self.peek().span, p.span) {
                    self.diags.push(d);
                    return Err(());
                }
            } else if n.tok == Tok::Sym(Sym::LParen) {
                self.bump();
                let inner = self.peek().clone();
                let special = match &inner.tok {
                    Tok::Word(w) if w == "enpassant" => Some(MoveKind::EnPassant),
                    Tok::Word(w) if w == "castle" => Some(MoveKind::Castle),
                    Tok::Word(w) if w == "null" => Some(MoveKind::Null),
                    Tok::Castle(true) => Some(MoveKind::CastleKingside),
                    Tok::Castle(false) => Some(MoveKind::CastleQueenside),
                    _ => None,
                };
                if let (Some(kind), Tok::Sym(Sym::RParen)) = (special, &self.peek_at(1).tok) {
                    self.bump();
                    let close = self.bump();
                    m.kind = kind;
                    sp = Self::join(sp, close.span);
                } else {
                    self.pos -= 1;
                    let cond = self.parse_block(Sym::RParen, self.path_top)?;
                    m.then = Some(match m.then {
                        Some(prev) => self.add(Filter::And(vec![prev, cond]), sp),
                        None => cond,
                    });
                    // The value of `X――Y(F)` is the value of its target F.
                    m.value = MoveValue::Then;
                    sp = Self::join(sp, self.toks[self.pos - 1].span);
                }
            } else {
                break;
            }
        }
        // CQL 6.2 refuses a `(` after a space once the move is read (`――e4 (check)`,
        // `match_dashnode_from_prefix`), as it does right after the dash.
        if let Some(d) = super::types::dash_spaced_paren(&self.peek().clone(), self.path_top) {
            self.diags.push(d);
            return Err(());
        }
        let valued = m.value == MoveValue::Then;
        let id = self.move_node(m, sp);
        self.kinds.note_dash(id, from.is_some(), target.is_some());
        if !valued {
            // A bare `X――Y` (no target in parentheses) is no set in CQL 6.2.
            self.kinds.note(id, super::types::Kind::Logical);
        }
        Ok(id)
    }

    fn parse_iteration(&mut self, name: String, piece: bool, forall: bool, sp: Span) -> PResult<FilterId> {
        if name.len() == 1 && letter_mask(name.chars().next().unwrap_or(' ')).is_some() {
            self.error("a single piece letter cannot be a variable name", sp);
            return Err(());
        }
        // A name keeps its kind: CQL 6.2 refuses a piece loop over a square variable and a
        // square loop over a piece variable.
        if let Some(v) = self.ir.find_var(&name) {
            let kind = self.ir.vars[v.0 as usize].kind;
            let clash = if piece { kind != VarKind::Piece } else { kind == VarKind::Piece };
            if clash {
                let (this, other) = if piece { ("piece", "square or value") } else { ("square", "piece") };
                self.error_hint(
                    format!("`{name}` is a {other} variable, so it cannot run over {this}s"),
                    sp,
                    Some("use another name for this loop".into()),
                );
                return Err(());
            }
        }
        let var = self.ir.var(&name, if piece { VarKind::Piece } else { VarKind::Square });
        // The domain is a whole set expression up to a `――` (`match_set` in CQL 6.2): `◭E∊♖♗♕→V`.
        let domain = self.parse_expr(BP_DASH)?;
        let body = self.parse_expr(BP_OR)?;
        let s = Self::join(sp, self.ir.span(body));
        Ok(self.add(
            if piece {
                Filter::PieceIter { var, domain, body, forall }
            } else {
                Filter::SquareIter { var, domain, body, forall }
            },
            s,
        ))
    }

    fn parse_transform(&mut self, kind: TransformKind, sp: Span) -> PResult<FilterId> {
        if kind == TransformKind::ReverseColor && self.peek().tok == Tok::Word("count".into()) {
            // `reversecolor` makes one copy: CQL 6.2 reads a filter right after it.
            let at = self.peek().span;
            self.error_hint(
                "`reversecolor` takes no `count`",
                at,
                Some("it has a single copy; count with `flipcolor count` instead".into()),
            );
            return Err(());
        }
        // The range (CQL 6.2 `match_range` in `match_fliptransform`): `count` (any number
        // of copies, the value that number), or one or two ends, numbers or numeric
        // variables; a number followed by an operator starts the filter (`flip 5 ≤ …`).
        let count = self.eat_word("count");
        let range = if count { None } else { self.range_here() };
        let count = count || self.eat_word("count");
        let body = self.parse_expr(BP_OR)?;
        let s = Self::join(sp, self.ir.span(body));
        let Some(r) = range.filter(|r| r.low_var.is_some() || r.high_var.is_some()) else {
            return Ok(self.add(Filter::Transform { kind, range: range.map(|r| (r.low, r.high)), count, body }, s));
        };
        // An end written as a variable is read when the filter runs: the copies are
        // counted, and the count compared with each end.
        let counted = self.add(Filter::Transform { kind, range: None, count: true, body }, s);
        Ok(self.compare_with_range_ends(counted, &r, true, s))
    }

    /// Arguments in parentheses: `(a b …)`, each one filter.
    fn parse_args(&mut self) -> PResult<Vec<FilterId>> {
        self.parse_arg_list(false)
    }

    /// The arguments of `comment`, `message` or `str` in parentheses, each read by
    /// [`Parser::parse_converter_arg`].
    pub(super) fn parse_converter_args(&mut self) -> PResult<Vec<FilterId>> {
        self.parse_arg_list(true)
    }

    fn parse_arg_list(&mut self, converter: bool) -> PResult<Vec<FilterId>> {
        self.expect_sym(Sym::LParen, "`(`")?;
        let saved = std::mem::replace(&mut self.in_sequence, false);
        let saved_top = std::mem::replace(&mut self.path_top, false);
        let saved_args = std::mem::replace(&mut self.in_args, true);
        let mut args = Vec::new();
        let r = loop {
            if self.eat_sym(Sym::RParen) {
                break Ok(());
            }
            if self.at_eof() || self.at_sym(Sym::RBrace) {
                let sp = self.span_here();
                self.error("expected `)` closing the argument list", sp);
                break Err(());
            }
            self.eat_sym(Sym::Comma);
            let arg = if converter { self.parse_converter_arg(BP_OR) } else { self.parse_expr(BP_OR) };
            match arg {
                Ok(a) => args.push(a),
                Err(()) => break Err(()),
            }
        };
        self.in_sequence = saved;
        self.path_top = saved_top;
        self.in_args = saved_args;
        r.map(|_| args)
    }

    fn args_exact(&mut self, name: &str, n: usize, sp: Span) -> PResult<Vec<FilterId>> {
        let args = self.parse_args()?;
        if args.len() != n {
            self.error(format!("`{name}` takes {n} argument(s), got {}", args.len()), sp);
            return Err(());
        }
        Ok(args)
    }

    fn tight_arg(&mut self, f: impl FnOnce(FilterId) -> Filter, sp: Span) -> PResult<FilterId> {
        let a = self.parse_expr(BP_POSTFIX)?;
        let s = Self::join(sp, self.ir.span(a));
        Ok(self.add(f(a), s))
    }

    fn color_word(&mut self) -> Option<Color> {
        if self.eat_word("white") {
            Some(Color::White)
        } else if self.eat_word("black") {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// A string filter followed by a string literal is a substring search.
    fn maybe_contains(&mut self, hay: FilterId, sp: Span) -> FilterId {
        // An empty string is not a search string (`Tokens::match_nonemptyquotedstring`).
        if let Tok::Str(s) = self.peek().tok.clone() {
            if !s.is_empty() {
                let at = self.pos;
                let t = self.bump();
                let needle = self.add(Filter::Str(s.clone()), t.span);
                let search =
                    self.add(Filter::Contains { haystack: hay, needle, ignore_case: false }, Self::join(sp, t.span));
                self.implicit_search = Some((search, at, hay));
                return search;
            }
        }
        hay
    }

    /// One argument of `comment`, `message`, `str` or `///`, read as CQL 6.2 reads it
    /// (`Tokens::match_strconstituent`): `fen` followed by a quoted string is the current
    /// FEN, the string being the next argument; and an argument that is exactly an implicit
    /// search (`event "x"`, `player white "x"`, not in parentheses) is the searched text,
    /// its string again being the next argument, so `comment("Event: " event " at " site)`
    /// writes the event and then " at ".
    pub(super) fn parse_converter_arg(&mut self, binding: u8) -> PResult<FilterId> {
        if self.at_word("fen") && matches!(self.peek_at(1).tok, Tok::Str(_)) {
            let t = self.bump();
            return Ok(self.add(Filter::CurrentFen, t.span));
        }
        let parenthesized = self.at_sym(Sym::LParen);
        self.implicit_search = None;
        let f = self.parse_expr(binding)?;
        match self.implicit_search.take() {
            Some((search, at, hay)) if search == f && !parenthesized && at + 1 == self.pos => {
                self.pos = at;
                Ok(hay)
            }
            _ => Ok(f),
        }
    }

    /// Is the token `n` places ahead a comparison or arithmetic operator (so a number
    /// before it is the start of an expression, not a range)?
    fn operator_at(&self, n: usize) -> bool {
        matches!(&self.peek_at(n).tok, Tok::Sym(s) if cmp_op(*s).is_some()
            || matches!(s, Sym::Plus | Sym::Minus | Sym::Star | Sym::Slash | Sym::Percent))
    }

    /// Refuse a number right after `year`, `ply`, … : CQL 6.2 would read it as a filter of
    /// its own and stop at the first game. In an argument list it is the next argument.
    fn no_range_after(&mut self, word: &str) {
        // In an argument list, or when an operator follows (`ply 3 != x`), the number
        // starts the next filter.
        if self.in_args || self.operator_at(1) {
            return;
        }
        if let Tok::Number(_) = self.peek().tok {
            let sp = self.span_here();
            self.error_hint(
                format!("`{word}` takes no range"),
                sp,
                Some(format!("compare instead, e.g. `1900 <= {word} <= 1950`")),
            );
        }
    }

    fn simple(&mut self, f: Filter, sp: Span) -> PResult<FilterId> {
        Ok(self.add(f, sp))
    }

    /// A word: a function, dictionary or variable the script defines, else a keyword of one
    /// filter family, else a variable or an error.
    fn parse_word(&mut self, w: String, sp: Span) -> PResult<FilterId> {
        // Variables and function calls first: a name the script defines.
        if self.functions.contains_key(&w) {
            self.bump();
            return self.inline_call(&w, sp);
        }
        if let Some(dict) = self.dictionary(&w) {
            self.bump();
            return self.parse_dictionary_use(dict, &w, sp);
        }
        let next = self.peek_at(1).tok.clone();
        if is_assign(&next) && !KEYWORDS.contains(&w.as_str()) {
            self.bump();
            return self.parse_assign(w, sp, false);
        }
        if is_element(&next) && !KEYWORDS.contains(&w.as_str()) {
            self.bump();
            self.bump();
            return self.parse_iteration(w, false, false, sp);
        }
        self.bump();
        // Each family of keywords lives in its own file (the sections of docs/); the
        // families' words are disjoint, so the order they are tried in does not matter.
        let families: [WordParser<'s>; 12] = [
            Self::parse_keywords62_word,
            Self::parse_position_state_word,
            Self::parse_header_word,
            Self::parse_game_tree_word,
            Self::parse_output_word,
            Self::parse_pieces_and_sets_word,
            Self::parse_attacks_and_geometry_word,
            Self::parse_moves_word,
            Self::parse_iteration_word,
            Self::parse_dictionaries_word,
            Self::parse_transforms_word,
            Self::parse_numbers_word,
        ];
        for family in families {
            if let Some(id) = family(self, &w, sp)? {
                return Ok(id);
            }
        }
        self.parse_variable_word(w, sp)
    }

    /// The dictionary a name stands for, if the script declared it as one.
    fn dictionary(&self, name: &str) -> Option<VarId> {
        self.ir
            .find_var(name)
            .filter(|v| matches!(self.ir.vars.get(v.0 as usize).map(|i| i.kind), Some(VarKind::Dictionary { .. })))
    }

    /// `dictionary D`, `local dictionary D`, `persistent dictionary D` (the keywords already
    /// read): declare `D`. The declaration itself always matches.
    fn parse_dictionary_decl(&mut self, local: bool, persistent: bool, sp: Span) -> PResult<FilterId> {
        let t = self.bump();
        let Tok::Word(name) = t.tok else {
            self.error("expected a dictionary name after `dictionary`", t.span);
            return Err(());
        };
        if KEYWORDS.contains(&name.as_str()) {
            self.error(format!("`{name}` is a keyword and cannot name a dictionary"), t.span);
            return Err(());
        }
        let kind = VarKind::Dictionary { local };
        if let Some(v) = self.ir.find_var(&name) {
            let info = &self.ir.vars[v.0 as usize];
            if info.kind != kind || info.persistent != persistent {
                self.error(format!("`{name}` is already declared as something else"), t.span);
                return Err(());
            }
        }
        let var = self.ir.var(&name, kind);
        if persistent {
            self.ir.vars[var.0 as usize].persistent = true;
        }
        // CQL 6.2 takes a first entry right in the declaration: `dictionary D["a"]="bc"`
        // (`dictionary D[a5]=1` is refused there: CQL 6.2 reads `[a5]` as a designator;
        // `D[ a5 ]` is a key).
        let glued = {
            let t = self.peek();
            let b = self.src.as_bytes();
            matches!(t.tok, Tok::Pieces { .. } | Tok::Squares(_))
                && !b.get(t.span.start as usize + 1).is_some_and(|c| c.is_ascii_whitespace())
        };
        if self.at_dict_key() && !glued {
            return self.parse_dictionary_use(var, &name, Self::join(sp, t.span));
        }
        self.simple(Filter::True, Self::join(sp, t.span))
    }

    /// Does a dictionary key `[…]` follow? The lexer reads `[Q]` or `[a1]` as one piece or
    /// square designator; right after a dictionary name it is that key.
    fn at_dict_key(&self) -> bool {
        let t = self.peek();
        match t.tok {
            Tok::Sym(Sym::LBracket) => true,
            Tok::Pieces { .. } | Tok::Squares(_) => {
                !t.space_before && self.src.as_bytes().get(t.span.start as usize) == Some(&b'[')
            }
            _ => false,
        }
    }

    /// A string subscript after `s[` (already read): `s[i]` is one character, `s[i:j]`,
    /// `s[i:]` and `s[:j]` a slice (CQL 6.2 `Tokens::match_bracketrange`; a missing start is
    /// 0, a missing end the end of the string, which `Builtin::Substring` reads from
    /// `i64::MAX`).
    fn parse_subscript(&mut self, target: FilterId, sp: Span) -> PResult<FilterId> {
        let outer = std::mem::replace(&mut self.in_subscript, true);
        let parsed = self.parse_subscript_bounds(sp);
        self.in_subscript = outer;
        let bounds = parsed?;
        self.expect_sym(Sym::RBracket, "`]` closing the subscript")?;
        let mut args = vec![target];
        args.extend(bounds);
        Ok(self.add(Filter::Call(Builtin::Substring, args), sp))
    }

    /// The bounds of a subscript: one index, or the start and end of a slice.
    fn parse_subscript_bounds(&mut self, sp: Span) -> PResult<Vec<FilterId>> {
        let start = if self.at_sym(Sym::Colon) {
            self.add(Filter::Number(0), sp)
        } else {
            let index = self.parse_expr(BP_OR)?;
            if !self.at_sym(Sym::Colon) {
                return Ok(vec![index]);
            }
            index
        };
        self.bump();
        let end =
            if self.at_sym(Sym::RBracket) { self.add(Filter::Number(i64::MAX), sp) } else { self.parse_expr(BP_OR)? };
        Ok(vec![start, end])
    }

    /// Could filter `f` stand for a position (the left side of `:`)? False for what is
    /// plainly a number, string, set or move.
    fn may_be_position(&self, f: FilterId) -> bool {
        match self.ir.get(f) {
            Filter::Var(v) => self.ir.vars.get(v.0 as usize).is_some_and(|i| i.kind == VarKind::Position),
            Filter::PositionById(_) | Filter::Child(_) | Filter::Tree(_) | Filter::Lca(..) => true,
            _ => false,
        }
    }

    /// The key `[k]` after a dictionary name, if one follows.
    fn parse_dict_key(&mut self) -> PResult<Option<FilterId>> {
        if !self.at_dict_key() {
            return Ok(None);
        }
        let t = self.bump();
        match t.tok {
            Tok::Pieces { mask, squares } => Ok(Some(self.pieces(mask, squares, t.span))),
            Tok::Squares(bb) => Ok(Some(self.add(Filter::Squares(bb), t.span))),
            _ => {
                let k = self.parse_expr(BP_OR)?;
                self.expect_sym(Sym::RBracket, "`]` closing the dictionary key")?;
                Ok(Some(k))
            }
        }
    }

    /// `D[k]`, `D[k] = v`, `D[k] += v` … after the dictionary name `D` (already read).
    fn parse_dictionary_use(&mut self, dict: VarId, name: &str, sp: Span) -> PResult<FilterId> {
        let Some(key) = self.parse_dict_key()? else {
            self.error_hint(
                format!("the dictionary `{name}` is used with a key"),
                sp,
                Some(format!("write `{name}[key]`, `#{name}` or `unbind {name}`")),
            );
            return Err(());
        };
        let close = self.toks[self.pos - 1].span;
        if !is_assign(&self.peek().tok) {
            return Ok(self.add(Filter::DictGet { dict, key }, Self::join(sp, close)));
        }
        let op = assign_op(&self.bump().tok);
        let value = self.parse_expr(BP_LOOSE)?;
        let s = Self::join(sp, self.ir.span(value));
        Ok(self.add(Filter::DictSet { dict, key, op, value }, s))
    }

    fn parse_assign(&mut self, name: String, sp: Span, persistent: bool) -> PResult<FilterId> {
        if self.ir.find_var(&name).is_some_and(|v| self.ir.vars[v.0 as usize].kind == VarKind::Piece) {
            // CQL 6.2: a piece variable is given its piece only where it is declared
            // (`◭T = S`, `piece T = S`).
            let at = self.span_here();
            self.error_hint(
                format!("cannot assign to the piece variable `{name}`"),
                Self::join(sp, at),
                Some(format!("a piece variable follows its piece; write `piece {name} = S` to give it another")),
            );
            return Err(());
        }
        self.parse_assign_to(name, sp, persistent)
    }

    /// `◭T = S` / `piece T = S`: declare the piece variable T (a name not yet used for
    /// another kind of variable, as CQL 6.2 demands) and give it the piece on S.
    fn parse_piece_assign(&mut self, name: String, sp: Span) -> PResult<FilterId> {
        if let Some(v) = self.ir.find_var(&name) {
            if self.ir.vars[v.0 as usize].kind != VarKind::Piece {
                self.error_hint(
                    format!("`{name}` is already a variable of another kind, so it cannot be a piece variable"),
                    sp,
                    Some("use a new name for the piece variable".into()),
                );
                return Err(());
            }
        }
        self.ir.var(&name, VarKind::Piece);
        self.parse_assign_to(name, sp, false)
    }

    fn parse_assign_to(&mut self, name: String, sp: Span, persistent: bool) -> PResult<FilterId> {
        let op_tok = self.bump();
        let op = assign_op(&op_tok.tok);
        let declared_before =
            self.ir.find_var(&name).and_then(|v| self.ir.vars.get(v.0 as usize)).map(|v| v.persistent);
        if persistent && declared_before == Some(false) {
            // CQL 6.2: "Assignment specifies persistent variable but variable is already
            // declared not persistent".
            self.error_hint(
                format!("`{name}` was first assigned without `persistent`"),
                sp,
                Some(format!("write `persistent` at the first assignment of `{name}`")),
            );
            return Err(());
        }
        let var = self.ir.var(&name, VarKind::Value);
        if persistent {
            if let Some(v) = self.ir.vars.get_mut(var.0 as usize) {
                v.persistent = true;
            }
        }
        // `x =? S` (CQL 6.2 conditional assignment, sets only): binds x to S and matches
        // when S is not empty; otherwise fails.
        let conditional = op.is_none() && self.at_sym(Sym::Question) && !self.peek().space_before;
        if conditional {
            let q = self.bump();
            if self.ir.vars.get(var.0 as usize).is_some_and(|v| v.kind == VarKind::Piece) {
                self.error_hint(
                    "`=?` cannot assign a piece variable",
                    Self::join(op_tok.span, q.span),
                    Some("`=?` takes a set of squares: write `x =? S`".to_string()),
                );
                return Err(());
            }
        }
        let value = self.parse_expr(BP_LOOSE)?;
        let s = Self::join(sp, self.ir.span(value));
        if conditional {
            return Ok(self.conditional_assign(var, value, s));
        }
        let assign = self.add(Filter::Assign { var, op, value }, s);
        self.note_if_numeric(var, op.is_none().then_some(value));
        Ok(assign)
    }

    /// Rewrite the move filter `m` (possibly inside an `And`) with `change`.
    fn retarget_move(&mut self, m: FilterId, sp: Span, change: impl Fn(&mut MoveFilter)) -> PResult<FilterId> {
        match self.ir.get(m).clone() {
            Filter::Move(mut mv) => {
                change(&mut mv);
                let s = Self::join(sp, self.ir.span(m));
                Ok(self.add(Filter::Move(mv), s))
            }
            _ => {
                self.error("expected a move filter such as `♔――` here", self.ir.span(m));
                Err(())
            }
        }
    }

    /// The CQL 6.0 `move` filter: `move [from X] [to Y] [capture Z] [promote R] …`.
    fn parse_move_keyword(&mut self, sp: Span) -> PResult<FilterId> {
        // Castling is a king move only for `move` (checked on CQL 6.2: `move from R`,
        // `move to f1` and `move previous from R` do not see the rook of `O-O`).
        let mut m = MoveFilter { rook_of_castling: false, ..MoveFilter::any(MoveSource::Next) };
        let mut from_first = false;
        let mut words: Vec<String> = Vec::new();
        // Only keywords continue a `move` filter: in `move N to g5` the knight is a
        // filter of its own (the reference reads it so), not the moving piece.
        loop {
            let Tok::Word(w) = self.peek().tok.clone() else {
                if let Tok::Castle(k) = self.peek().tok {
                    self.bump();
                    m.kind = if k { MoveKind::CastleKingside } else { MoveKind::CastleQueenside };
                    continue;
                }
                break;
            };
            words.push(if w == "captures" { "capture".to_string() } else { w.clone() });
            match w.as_str() {
                // `captures` is `capture` (CQL 6.2 `match_move_capture`).
                "from" | "to" | "capture" | "captures" => {
                    self.bump();
                    let v = self.parse_expr(BP_POSTFIX)?;
                    match w.as_str() {
                        "from" => {
                            if m.to.is_none() {
                                from_first = true;
                            }
                            m.from = Some(v)
                        }
                        "to" => m.to = Some(v),
                        _ => m.capture = Some(v),
                    }
                }
                "promote" => {
                    self.bump();
                    let t = self.bump();
                    m.promote = match &t.tok {
                        Tok::Pieces { mask, .. } => promote_roles(*mask),
                        Tok::Str(s) => s.chars().filter_map(letter_mask).fold(0, |acc, m| acc | promote_roles(m)),
                        _ => {
                            self.error("expected a piece after `promote`", t.span);
                            return Err(());
                        }
                    };
                }
                "previous" => {
                    self.bump();
                    m.source = MoveSource::Previous;
                }
                "legal" => {
                    self.bump();
                    m.source = MoveSource::Legal;
                }
                "pseudolegal" => {
                    self.bump();
                    m.source = MoveSource::Pseudolegal;
                }
                "castle" => {
                    self.bump();
                    m.kind = MoveKind::Castle;
                }
                "enpassant" => {
                    self.bump();
                    m.kind = MoveKind::EnPassant;
                }
                // `move enpassantsquare S`: an en passant capture of a pawn standing on S
                // (CQL 6.2 `match_move_enpassant`).
                "enpassantsquare" => {
                    self.bump();
                    let v = self.parse_expr(BP_POSTFIX)?;
                    m.kind = MoveKind::EnPassant;
                    m.capture = Some(match m.capture {
                        Some(c) => {
                            let s = Self::join(self.ir.span(c), self.ir.span(v));
                            self.add(Filter::Intersection(vec![c, v]), s)
                        }
                        None => v,
                    });
                }
                "null" => {
                    self.bump();
                    m.kind = MoveKind::Null;
                }
                "primary" => {
                    self.bump();
                    m.line = LineChoice::Primary;
                }
                "secondary" => {
                    self.bump();
                    m.line = LineChoice::Secondary;
                }
                "count" => {
                    self.bump();
                    m.value = MoveValue::Count;
                }
                _ => break,
            }
        }
        if from_first && m.value == MoveValue::To {
            m.value = MoveValue::From;
        }
        // CQL 6.2 `match_movebase`: a `comment(…)` right after the parameters of a move of
        // the game belongs to the move, written (its arguments read) in the position the
        // move reaches (`MoveBase::match_move`); not after `legal`/`pseudolegal`.
        if matches!(m.source, MoveSource::Next | MoveSource::Previous) && self.at_word("comment") {
            let word = self.bump();
            if let Some(comment) = self.parse_output_word("comment", word.span)? {
                m.then = Some(match m.then {
                    Some(prev) => self.add(Filter::And(vec![prev, comment]), sp),
                    None => comment,
                });
            }
        }
        if let Some(d) = super::types::move_keywords(&words, sp) {
            self.diags.push(d);
            return Err(());
        }
        let id = self.move_node(m, sp);
        self.kinds.note(id, super::types::move_keyword_kind(&words));
        Ok(id)
    }

    /// Is the `{` ahead a repetition count (`{*}` `{+}` `{?}` `{m}` `{m,}` `{m,n}`)?
    fn brace_is_repetition(&self) -> bool {
        if self.peek().tok != Tok::Sym(Sym::LBrace) {
            return false;
        }
        // CQL 6.2's lexer reads `{2,4}` as a repetition only when written without spaces
        // inside; `{2, }` is a block (and then an error).
        let tight = |k: usize| (1..=k).all(|i| !self.peek_at(i).space_before);
        let closes_at = (1..=4).find(|&i| self.peek_at(i).tok == Tok::Sym(Sym::RBrace));
        if closes_at.is_some_and(|k| !tight(k)) {
            return false;
        }
        match (&self.peek_at(1).tok, &self.peek_at(2).tok, &self.peek_at(3).tok, &self.peek_at(4).tok) {
            (Tok::Sym(Sym::Star | Sym::Plus | Sym::Question), Tok::Sym(Sym::RBrace), _, _) => true,
            (Tok::Number(_), Tok::Sym(Sym::RBrace), _, _) => true,
            (Tok::Number(_), Tok::Sym(Sym::Comma), Tok::Sym(Sym::RBrace), _) => true,
            (Tok::Number(_), Tok::Sym(Sym::Comma), Tok::Number(_), Tok::Sym(Sym::RBrace)) => true,
            (Tok::Sym(Sym::Comma), Tok::Number(_), Tok::Sym(Sym::RBrace), _) => true,
            _ => false,
        }
    }

    fn sequence_quantifier(&mut self, item: FilterId) -> PResult<FilterId> {
        self.repetitions(item, false)
    }

    /// The repetitions after a constituent of a `line` (`one_only == false`: one, or two
    /// when the first is `+` or `{n}`) or of a `path` (`one_only`: CQL 6.2's
    /// `Tokens::add_wildcard` refuses two consecutive wildcards).
    fn repetitions(&mut self, item: FilterId, one_only: bool) -> PResult<FilterId> {
        let mut item = item;
        let mut count = 0;
        let mut last_plus = false;
        loop {
            let ahead = matches!(self.peek().tok, Tok::Sym(Sym::Star | Sym::Plus | Sym::Question))
                || self.brace_is_repetition();
            if ahead && one_only && count == 1 {
                let s = self.span_here();
                self.error_hint(
                    "two repetitions in a row",
                    s,
                    Some("a path move or chain takes one repetition; put the repeated part in parentheses".into()),
                );
                return Err(());
            }
            if ahead {
                count += 1;
            }
            let (min, max) = match self.peek().tok {
                Tok::Sym(Sym::Star) => (0, u32::MAX),
                Tok::Sym(Sym::Plus) => (1, u32::MAX),
                Tok::Sym(Sym::Question) => (0, 1),
                // (`{1 5}` goes on to the hint below that a range needs a comma.)
                Tok::Sym(Sym::LBrace)
                    if !self.brace_is_repetition()
                        && !matches!(
                            (&self.peek_at(1).tok, &self.peek_at(2).tok),
                            (Tok::Number(_), Tok::Number(_))
                        ) =>
                {
                    break
                }
                Tok::Sym(Sym::LBrace) => {
                    // `{*}` `{+}` `{?}`
                    if self.peek_at(2).tok == Tok::Sym(Sym::RBrace) {
                        let q = match self.peek_at(1).tok {
                            Tok::Sym(Sym::Star) => Some((0, u32::MAX)),
                            Tok::Sym(Sym::Plus) => Some((1, u32::MAX)),
                            Tok::Sym(Sym::Question) => Some((0, 1)),
                            _ => None,
                        };
                        if let Some((min, max)) = q {
                            if !one_only {
                                self.line_suffix_allowed(item, last_plus, Suffix::wildcard(min, max))?;
                                last_plus = min == 1;
                            }
                            self.bump();
                            self.bump();
                            let t = self.bump();
                            let s = Self::join(self.ir.span(item), t.span);
                            item = self.add(Filter::SeqRepeat { body: item, min, max }, s);
                            continue;
                        }
                    }
                    // `{,n}`: at most n (CQL 6.2 reads an open start as 0).
                    if let (Tok::Sym(Sym::Comma), Tok::Number(hi), Tok::Sym(Sym::RBrace)) =
                        (&self.peek_at(1).tok, &self.peek_at(2).tok, &self.peek_at(3).tok)
                    {
                        let hi = (*hi).clamp(0, i64::from(u32::MAX)) as u32;
                        if !one_only {
                            self.line_suffix_allowed(item, last_plus, Suffix::Range)?;
                            last_plus = false;
                        }
                        for _ in 0..3 {
                            self.bump();
                        }
                        let t = self.bump();
                        let s = Self::join(self.ir.span(item), t.span);
                        item = self.add(Filter::SeqRepeat { body: item, min: 0, max: hi }, s);
                        continue;
                    }
                    // `{m,n}` / `{m,}` / `{m}`
                    let Tok::Number(lo) = self.peek_at(1).tok else { break };
                    let (hi, len) = match (&self.peek_at(2).tok, &self.peek_at(3).tok, &self.peek_at(4).tok) {
                        (Tok::Sym(Sym::RBrace), _, _) => (lo, 3),
                        (Tok::Sym(Sym::Comma), Tok::Sym(Sym::RBrace), _) => (i64::from(u32::MAX), 4),
                        (Tok::Sym(Sym::Comma), Tok::Number(hi), Tok::Sym(Sym::RBrace)) => (*hi, 5),
                        (Tok::Number(_), _, _) => {
                            let s = self.span_here();
                            self.error_hint(
                                "a repetition range is written `{m,n}`",
                                s,
                                Some("put a comma between the bounds".into()),
                            );
                            return Err(());
                        }
                        _ => break,
                    };
                    for _ in 1..len {
                        self.bump();
                    }
                    (lo.clamp(0, i64::from(u32::MAX)) as u32, hi.clamp(0, i64::from(u32::MAX)) as u32)
                }
                _ => break,
            };
            if !one_only {
                let suffix = if matches!(self.peek().tok, Tok::Sym(Sym::RBrace)) {
                    Suffix::Range
                } else {
                    Suffix::wildcard(min, max)
                };
                self.line_suffix_allowed(item, last_plus, suffix)?;
                last_plus = suffix == Suffix::Plus;
            }
            let t = self.bump();
            let s = Self::join(self.ir.span(item), t.span);
            item = self.add(Filter::SeqRepeat { body: item, min, max }, s);
        }
        Ok(item)
    }

    /// May this repetition follow a `line` constituent `item`? CQL 6.2
    /// (`Tokens::match_seqsuffix`) takes any number of them, but none after a constituent
    /// that can match no position at all (`k*`, `k?`), and neither `+` nor `{m,n}` right
    /// after a `+` (`last_plus`).
    fn line_suffix_allowed(&mut self, item: FilterId, last_plus: bool, suffix: Suffix) -> PResult<()> {
        let problem = if self.matches_empty_sequence(item, 0) {
            Some("it repeats a part that can match no position at all")
        } else if last_plus && matches!(suffix, Suffix::Plus | Suffix::Range) {
            Some("`+` and `{m,n}` cannot follow a `+`")
        } else {
            None
        };
        if let Some(why) = problem {
            let s = self.span_here();
            self.error_hint(
                format!("one repetition too many: {why}"),
                s,
                Some("a `line` constituent takes repetitions one after another only when each still needs a position (`k{3}+*`); use parentheses".into()),
            );
            return Err(());
        }
        Ok(())
    }

    /// Can this `line` constituent match an empty run of positions (CQL 6.2 `matchesNull`)?
    fn matches_empty_sequence(&self, item: FilterId, depth: usize) -> bool {
        if depth > 64 {
            return false;
        }
        match self.ir.get(item) {
            Filter::SeqRepeat { min: 0, .. } => true,
            Filter::SeqRepeat { body, .. } => self.matches_empty_sequence(*body, depth + 1),
            Filter::SeqConcat(items) => items.iter().all(|&i| self.matches_empty_sequence(i, depth + 1)),
            Filter::SeqAlt(items) => items.iter().any(|&i| self.matches_empty_sequence(i, depth + 1)),
            _ => false,
        }
    }

    fn line_params(&mut self, p: &mut LineParams) {
        while let Tok::Word(w) = &self.peek().tok {
            match w.as_str() {
                "firstmatch" => p.first_match = true,
                "lastposition" => p.last_position = true,
                "singlecolor" => p.single_color = true,
                "nestban" => p.nest_ban = true,
                "primary" => p.primary = true,
                "secondary" => p.secondary = true,
                "quiet" => p.quiet = true,
                _ => break,
            }
            self.bump();
        }
    }

    /// The range of a `line` (`line 2 5 --> …`, `line 3 --> …`): CQL 6.2 `match_range` among
    /// the other parameters, in any order with them. A number followed by an operator is
    /// not a range.
    fn line_params_and_range(&mut self) -> LineParams {
        let mut p = LineParams::default();
        self.line_params(&mut p);
        if let Some(r) = self.range_here() {
            p.range = Some((r.low, r.high));
            p.range_variables = (r.low_var, r.high_var);
            self.line_params(&mut p);
        }
        p
    }

    /// Remember `var` as numeric when it is given `value` (`None`: an arithmetic update such
    /// as `+=`, always a number).
    fn note_if_numeric(&mut self, var: crate::ir::VarId, value: Option<FilterId>) {
        let numeric = match value {
            None => true,
            Some(v) => match self.ir.get(v) {
                Filter::Var(w) => self.numeric_vars.contains(w),
                _ => crate::ir::props::value_type(&self.ir, v) == ValueType::Number,
            },
        };
        if numeric {
            self.numeric_vars.insert(var);
        }
    }

    /// A range, if one is written here (CQL 6.2 `Tokens::match_range`): `count` (every
    /// number), or one or two ends; one end alone is both (`find 2 check`: exactly two).
    pub(super) fn range_here(&mut self) -> Option<WrittenRange> {
        if self.eat_word("count") {
            return Some(WrittenRange { low: i64::MIN, high: i64::MAX, low_var: None, high_var: None });
        }
        let low = self.range_end_here()?;
        let high = self.range_end_here().unwrap_or(low);
        let number = |end: RangeEnd, open| if let RangeEnd::Number(n) = end { n } else { open };
        let variable = |end: RangeEnd| if let RangeEnd::Variable(v) = end { Some(v) } else { None };
        Some(WrittenRange {
            low: number(low, i64::MIN),
            high: number(high, i64::MAX),
            low_var: variable(low),
            high_var: variable(high),
        })
    }

    /// `count` (a number of positions, copies or moves) compared with each end of `r`
    /// written as a numeric variable, read when the filter runs, and with each written
    /// number too when `written_too` (for a count that has no range of its own). The
    /// comparison keeps the count as its value.
    pub(super) fn compare_with_range_ends(
        &mut self,
        count: FilterId,
        r: &WrittenRange,
        written_too: bool,
        sp: Span,
    ) -> FilterId {
        let mut compared = count;
        for (var, written, op) in [(r.low_var, r.low, CmpOp::Ge), (r.high_var, r.high, CmpOp::Le)] {
            let bound = match var {
                Some(v) => self.add(Filter::Var(v), sp),
                None if written_too => self.add(Filter::Number(written), sp),
                None => continue,
            };
            compared = self.add(Filter::Compare { first: compared, rest: vec![(op, bound)] }, sp);
        }
        compared
    }

    /// One end of a range, if one is written here (CQL 6.2 `match_rangeconstituent`): a
    /// number (`-` before it makes it negative) or a numeric variable, not followed by an
    /// operator (then it starts the filter: `find 2 <= x`).
    fn range_end_here(&mut self) -> Option<RangeEnd> {
        if let (Tok::Number(n), false) = (self.peek().tok.clone(), self.operator_at(1)) {
            self.bump();
            return Some(RangeEnd::Number(n));
        }
        if let (Tok::Sym(Sym::Minus), Tok::Number(n), false) =
            (&self.peek().tok, self.peek_at(1).tok.clone(), self.operator_at(2))
        {
            self.bump();
            self.bump();
            return Some(RangeEnd::Number(-n));
        }
        let var = self.range_variable_here()?;
        self.bump();
        Some(RangeEnd::Variable(var))
    }

    /// `line [params] --> C --> C …` (or `<--`).
    fn parse_line(&mut self, sp: Span) -> PResult<FilterId> {
        let mut params = self.line_params_and_range();
        let arrow = if self.at_sym(Sym::LineForward) {
            Sym::LineForward
        } else if self.at_sym(Sym::LineBackward) {
            params.backward = true;
            Sym::LineBackward
        } else {
            let s = self.span_here();
            self.error("expected `-->` or `<--` after `line`", s);
            return Err(());
        };
        let mut items = Vec::new();
        let saved = std::mem::replace(&mut self.in_sequence, true);
        let saved_line = std::mem::replace(&mut self.in_line, true);
        let mut result = Ok(());
        while self.eat_sym(arrow) {
            match self.line_constituent(arrow) {
                Ok(c) => items.push(c),
                Err(()) => {
                    result = Err(());
                    break;
                }
            }
        }
        self.in_sequence = saved;
        self.in_line = saved_line;
        result?;
        let end = self.toks[self.pos.saturating_sub(1)].span;
        let body = self.add(Filter::SeqConcat(items), Self::join(sp, end));
        Ok(self.add(Filter::Line { params, body }, Self::join(sp, end)))
    }

    /// One constituent of a `line`: a filter with optional repetition, or a parenthesised
    /// group of constituents joined by arrows.
    fn line_constituent(&mut self, arrow: Sym) -> PResult<FilterId> {
        // A constituent is one filter (CQL 6.2 `Tokens::match_holderconstituent`); a `move`
        // filter's own `comment( … )` is part of it (see `parse_move_keyword`).
        let part = if self.at_sym(Sym::LParen) {
            let open = self.bump();
            let mut group = vec![self.line_constituent(arrow)?];
            while self.eat_sym(arrow) {
                group.push(self.line_constituent(arrow)?);
            }
            self.expect_sym(Sym::RParen, "`)` closing the group")?;
            let end = self.toks[self.pos - 1].span;
            if group.len() == 1 {
                group[0]
            } else {
                self.add(Filter::SeqConcat(group), Self::join(open.span, end))
            }
        } else {
            let item = self.parse_expr(BP_OR)?;
            self.refuse_number_constituent(item, true)?;
            item
        };
        let part = self.sequence_quantifier(part)?;
        if let Some(d) = super::types::line_wildcard_end(&self.toks[self.pos.saturating_sub(1)], self.peek(), self.src)
        {
            self.diags.push(d);
            return Err(());
        }
        Ok(part)
    }

    /// Inside a `line` or a path, is the `+` or `*` ahead a repetition of the constituent
    /// before it rather than arithmetic? In a path it always is; in a `line` CQL 6.2 reads
    /// it as arithmetic when an operand follows
    /// (`line --> 5 >= 4 --> #P + #A >= #n`), and as a repetition when an arrow, a
    /// closing bracket, the end of the text or another repetition does
    /// (`Tokens::match_holderconstituent` reads the longest filter, then
    /// `match_seqsuffix` the repetitions).
    fn sign_is_repetition(&self) -> bool {
        self.in_sequence
            && (!self.in_line || super::types::line_wildcard_end(self.peek(), self.peek_at(1), self.src).is_none())
    }

    /// Is `id` a set as written (a piece designator, squares, or set operators over them)?
    fn is_written_set(&self, id: FilterId) -> bool {
        match self.ir.get(id) {
            Filter::Pieces { .. } | Filter::Squares(_) => true,
            Filter::Union(v) | Filter::Intersection(v) => v.iter().all(|&x| self.is_written_set(x)),
            Filter::Complement(x) => self.is_written_set(*x),
            _ => false,
        }
    }

    /// Is filter `id`, as written, one that has no numeric value: a move (but not a move
    /// count), `true`/`false`, a fact about the position, or a position?
    fn is_plainly_not_a_number(&self, id: FilterId) -> bool {
        match self.ir.get(id) {
            Filter::Move(m) => m.value != MoveValue::Count,
            Filter::True
            | Filter::False
            | Filter::Check
            | Filter::Mate
            | Filter::Stalemate
            | Filter::ToMove(_)
            | Filter::Initial
            | Filter::Terminal
            | Filter::Mainline
            | Filter::Variation
            | Filter::VirtualMainline
            | Filter::Tree(_)
            | Filter::PositionById(_)
            | Filter::Child(_)
            | Filter::Lca(..) => true,
            _ => false,
        }
    }

    fn is_move(&self, id: FilterId) -> bool {
        match self.ir.get(id) {
            Filter::Move(_) | Filter::SeqConcat(_) | Filter::SeqAlt(_) | Filter::SeqRepeat { .. } => true,
            Filter::And(v) => v.iter().any(|&x| self.is_move(x)),
            _ => false,
        }
    }

    /// `――X∩S` in a path (parsed as `(――X)∩S`, the destination squares of the move that are
    /// in S) is the move `――(X∩S)`, so that it stays a move constituent.
    fn fold_move_intersection(&mut self, item: FilterId) -> FilterId {
        let Filter::Intersection(parts) = self.ir.get(item).clone() else { return item };
        let Some((&first, rest)) = parts.split_first() else { return item };
        let Filter::Move(m) = self.ir.get(first).clone() else { return item };
        if m.value != MoveValue::To || m.source != MoveSource::Next || rest.iter().any(|&r| self.is_move(r)) {
            return item;
        }
        let sp = self.ir.span(item);
        let mut sets: Vec<FilterId> = m.to.into_iter().collect();
        sets.extend_from_slice(rest);
        let to = if sets.len() == 1 { sets[0] } else { self.add(Filter::Intersection(sets), sp) };
        let mut m = *m;
        m.to = Some(to);
        self.move_node(m, sp)
    }

    /// Add `cond` as a condition after the move of `unit`.
    fn attach_then(&mut self, unit: FilterId, cond: FilterId) -> FilterId {
        let sp = Self::join(self.ir.span(unit), self.ir.span(cond));
        match self.ir.get(unit).clone() {
            Filter::Move(mut m) => {
                m.then = Some(match m.then {
                    Some(prev) => self.add(Filter::And(vec![prev, cond]), sp),
                    None => cond,
                });
                self.add(Filter::Move(m), sp)
            }
            Filter::And(mut v) => {
                let holds_move = |p: &Self, x: FilterId| match p.ir.get(x) {
                    Filter::Move(_) => true,
                    Filter::And(w) => w.iter().any(|&y| matches!(p.ir.get(y), Filter::Move(_))),
                    _ => false,
                };
                if let Some(i) = v.iter().rposition(|&x| holds_move(self, x)) {
                    v[i] = self.attach_then(v[i], cond);
                    self.add(Filter::And(v), sp)
                } else {
                    v.push(cond);
                    self.add(Filter::And(v), sp)
                }
            }
            _ => self.add(Filter::And(vec![unit, cond]), sp),
        }
    }

    fn set_line_choice(&mut self, unit: FilterId, choice: LineChoice) -> FilterId {
        match self.ir.get(unit).clone() {
            Filter::Move(mut m) => {
                m.line = choice;
                let sp = self.ir.span(unit);
                self.add(Filter::Move(m), sp)
            }
            Filter::And(mut v) => {
                if let Some(i) = v.iter().position(|&x| matches!(self.ir.get(x), Filter::Move(_))) {
                    v[i] = self.set_line_choice(v[i], choice);
                }
                let sp = self.ir.span(unit);
                self.add(Filter::And(v), sp)
            }
            _ => unit,
        }
    }

    /// Where the constituents of a path end (CQL 6.2 `Tokens::match_pathcons`): at a closing
    /// delimiter or the end of the text, at a word no filter starts with, and at a blank
    /// line unless it is inside a parenthesised chain (`Lexer::fixPath` turns a blank line at
    /// the path's top level into the path's end).
    fn path_ends(&self, in_chain: bool) -> bool {
        let t = self.peek();
        if t.blank_before && !in_chain {
            return true;
        }
        match &t.tok {
            Tok::Eof | Tok::Sym(Sym::RBrace) | Tok::Sym(Sym::RParen) | Tok::Sym(Sym::LineForward) => true,
            Tok::Word(w) => matches!(w.as_str(), "function" | "then" | "else"),
            _ => false,
        }
    }

    /// A repetition (`*`, `+`, `?`, `{n,m}`, `{*}`…) comes next.
    fn at_path_wildcard(&self) -> bool {
        matches!(self.peek().tok, Tok::Sym(Sym::Star | Sym::Plus | Sym::Question)) || self.brace_is_repetition()
    }

    /// The constituents of a path (CQL 6.2 `Tokens::match_pathcon`), each one of:
    /// - a chain `( constituents )`, which may take a repetition;
    /// - a move (`――`, `×`, `X――Y`, `――=♕`…) with the filters written after it as its
    ///   targets, tested at the position the move reaches (`Tokens::match_dashcon_target`
    ///   takes every following filter that is not itself a move), which may take a
    ///   repetition as a whole: `―― check*` repeats "a move, then check";
    /// - any other filter, tested where the path stands without consuming a move; it takes
    ///   no repetition, and a bare number or arithmetic is refused as CQL 6.2 refuses it.
    ///
    /// A filter in braces is one filter, even when it holds a move: `―― {―― ¬check}*` is a
    /// move whose target is the block, repeated.
    fn parse_path_items(&mut self, in_chain: bool) -> PResult<Vec<FilterId>> {
        let mut units: Vec<FilterId> = Vec::new();
        // A move read while collecting the targets of the one before (`P――e4` starts with a
        // set, so it is known for a move only once read).
        let mut next_move: Option<FilterId> = None;
        loop {
            if self.fatal {
                return Err(());
            }
            let unit = if let Some(m) = next_move.take() {
                self.path_move_targets(m, in_chain, &mut next_move)?
            } else {
                if self.path_ends(in_chain) {
                    break;
                }
                if self.at_sym(Sym::LParen) {
                    let open = self.bump();
                    let inner = self.parse_path_items(true)?;
                    self.expect_sym(Sym::RParen, "`)` closing the path chain")?;
                    if inner.is_empty() {
                        self.error("a parenthesised chain in a path needs at least one constituent", open.span);
                        return Err(());
                    }
                    let end = self.toks[self.pos - 1].span;
                    let chain = self.add(Filter::SeqConcat(inner), Self::join(open.span, end));
                    self.path_wildcards(chain)?
                } else {
                    let starts_with_dash = matches!(self.peek().tok, Tok::Sym(Sym::Dash | Sym::Capture));
                    let item = self.path_item()?;
                    if starts_with_dash || matches!(self.ir.get(item), Filter::Move(_)) {
                        self.path_move_targets(item, in_chain, &mut next_move)?
                    } else {
                        self.path_holder(item)?
                    }
                }
            };
            units.push(unit);
        }
        Ok(units)
    }

    /// One filter of a path as written, with a `///` comment and `primary`/`secondary` after it.
    fn path_item(&mut self) -> PResult<FilterId> {
        let f = self.parse_expr(BP_OR)?;
        // A `///` after a move is written where the move arrives, like a target of the
        // move: it is left for [`Parser::path_move_targets`], so that the move stays a
        // move constituent (`U――C ///"U to the critical square"`).
        let moves = |p: &Self, x: FilterId| matches!(p.ir.get(x), Filter::Move(_));
        let mut item = if moves(self, f) { f } else { self.maybe_triple_slash(f)? };
        while let Tok::Word(w) = &self.peek().tok {
            let choice = match w.as_str() {
                "primary" => LineChoice::Primary,
                "secondary" => LineChoice::Secondary,
                _ => break,
            };
            if !self.is_move(item) {
                break;
            }
            self.bump();
            item = self.set_line_choice(item, choice);
        }
        let item = self.fold_move_intersection(item);
        if moves(self, item) {
            return Ok(item);
        }
        self.maybe_triple_slash(item)
    }

    /// The targets of the path move `mv` (every following filter that is not a move, up to a
    /// repetition, a chain or the path's end), then its repetition. A move met among them is
    /// left in `next_move` as the next constituent.
    fn path_move_targets(
        &mut self,
        mv: FilterId,
        in_chain: bool,
        next_move: &mut Option<FilterId>,
    ) -> PResult<FilterId> {
        let mut unit = mv;
        loop {
            if self.fatal {
                return Err(());
            }
            if self.path_ends(in_chain)
                || self.at_path_wildcard()
                || matches!(self.peek().tok, Tok::Sym(Sym::Dash | Sym::Capture))
            {
                break;
            }
            if self.at_sym(Sym::TripleSlash) {
                let t = self.bump();
                let args = self.triple_slash_items(t.line, t.span)?;
                let comment = self.add(Filter::Comment(args), t.span);
                unit = self.attach_then(unit, comment);
                continue;
            }
            let item = self.path_item()?;
            if matches!(self.ir.get(item), Filter::Move(_)) {
                *next_move = Some(item);
                return Ok(unit);
            }
            self.refuse_number_constituent(item, false)?;
            unit = self.attach_then(unit, item);
        }
        self.path_wildcards(unit)
    }

    /// A filter standing alone in a path: tested where the path stands.
    fn path_holder(&mut self, item: FilterId) -> PResult<FilterId> {
        self.refuse_number_constituent(item, false)?;
        if self.at_path_wildcard() {
            let s = self.span_here();
            self.error_hint(
                "a repetition in a path applies to a move or to a parenthesised chain, not to a filter",
                s,
                Some("write the filter after a move (`―― check*`) or put a chain in parentheses".into()),
            );
            return Err(());
        }
        Ok(item)
    }

    /// CQL 6.2 refuses a `line` or path constituent that is a bare number or arithmetic
    /// (`Tokens::match_holderconstituent`, `Tokens::match_holdercon`): most likely a range,
    /// a repetition or an operator misread. A comparison is a constituent like any filter.
    fn refuse_number_constituent(&mut self, item: FilterId, in_line: bool) -> PResult<()> {
        let what = match self.ir.get(item) {
            Filter::Number(_) => "a single number",
            Filter::Arith(..) => "arithmetic",
            _ => return Ok(()),
        };
        let (holder, hint) = if in_line {
            ("a `line`", "put the filter in braces, or write `{+}`/`{*}` for a repetition")
        } else {
            ("a path", "in a path `*` and `+` are repetitions; put the filter in braces: `{x * 2}`")
        };
        let sp = self.ir.span(item);
        self.error_hint(format!("{what} cannot be {holder} constituent"), sp, Some(hint.into()));
        Err(())
    }

    /// The repetition after a move or chain of a path, if any; two in a row are refused as in
    /// CQL 6.2 (`Tokens::add_wildcard`).
    fn path_wildcards(&mut self, unit: FilterId) -> PResult<FilterId> {
        if !self.at_path_wildcard() {
            return Ok(unit);
        }
        self.repetitions(unit, true)
    }

    /// `⊢ [params] constituents…` (CQL 6.2 path): see [`Parser::parse_path_items`] for
    /// the constituents. A move constituent consumes one move of the focused pieces; its
    /// targets are tested at the position the move reaches; a filter standing alone is
    /// tested where the path stands.
    fn parse_path(&mut self, sp: Span) -> PResult<FilterId> {
        let mut params = PathParams::default();
        let mut focus = None;
        let mut best = None;
        let mut title = None;
        loop {
            if self.eat_sym(Sym::Focus) || self.eat_word("focus") {
                if self.eat_word("capture") {
                    params.focus_capture = true;
                }
                focus = Some(self.parse_expr(BP_UNION)?);
                continue;
            }
            // A range among the parameters (CQL 6.2 `match_pathnode` takes `match_range`).
            if params.range.is_none() {
                if let Some(r) = self.range_here() {
                    params.range = Some((r.low, r.high));
                    params.range_variables = (r.low_var, r.high_var);
                    continue;
                }
            }
            let Tok::Word(w) = &self.peek().tok else { break };
            match w.as_str() {
                "nestban" => params.nest_ban = true,
                "firstmatch" => params.first_match = true,
                "lastposition" => params.last_position = true,
                "quiet" => params.quiet = true,
                "primary" => params.primary = true,
                "secondary" => params.secondary = true,
                "keepallbest" => params.keep_all_best = true,
                "piecepath" => params.piece_path = true,
                "verbose" => params.verbose = true,
                "title" => {
                    self.bump();
                    let Tok::Str(text) = self.peek().tok.clone() else {
                        let s = self.span_here();
                        self.error("expected a string after `title`", s);
                        return Err(());
                    };
                    self.bump();
                    title = Some(text);
                    continue;
                }
                // Only `max`: CQL 6.2's path has no `min` (`Tokens::match_pathnode`), and
                // `min` there starts the function `min(…)`.
                "max" => {
                    self.bump();
                    best = Some(self.parse_expr(BP_OR)?);
                    continue;
                }
                _ => break,
            }
            self.bump();
        }
        if params.piece_path && focus.is_none() {
            self.error("`piecepath` needs a focus (`focus S` or `◎S`)", sp);
            return Err(());
        }
        let saved = std::mem::replace(&mut self.in_sequence, true);
        let saved_line = std::mem::replace(&mut self.in_line, false);
        let saved_top = std::mem::replace(&mut self.path_top, true);
        let items = self.parse_path_items(false);
        self.in_sequence = saved;
        self.in_line = saved_line;
        self.path_top = saved_top;
        let items = items?;
        if items.is_empty() {
            self.error("a path needs at least one constituent", sp);
            return Err(());
        }
        let end = self.toks[self.pos.saturating_sub(1)].span;
        let body = self.add(Filter::SeqConcat(items), Self::join(sp, end));
        Ok(self.add(Filter::Path { params, focus, best, title, body }, Self::join(sp, end)))
    }

    /// Inline a call of a user function by parsing its body with each parameter replaced.
    ///
    /// As in CQL 6.2 (`LambdaCallNode`): an argument that is a variable is passed by name
    /// (the body reads and writes that variable); any other argument with a value (a set, a
    /// number, a string or a position) is evaluated once where the call is made and
    /// assigned to a fresh variable that stands for the parameter, so in
    /// `function F(T){――(T)} F(Q)` the target is the squares of the white queen before the
    /// move. An argument without a value (`F(check)`) is substituted as written.
    fn inline_call(&mut self, name: &str, sp: Span) -> PResult<FilterId> {
        let Some(func) = self.functions.get(name).cloned() else { return Err(()) };
        if self.inline_depth >= MAX_INLINE_DEPTH {
            self.error_hint(
                format!("calls of `{name}` nest too deeply"),
                sp,
                Some("recursive functions are not supported".into()),
            );
            self.fatal = true;
            return Err(());
        }
        self.expect_sym(Sym::LParen, "`(` after the function name")?;
        let mut args: Vec<Vec<Token>> = Vec::new();
        let mut arg_filters: Vec<FilterId> = Vec::new();
        while !self.at_sym(Sym::RParen) {
            if self.at_eof() || self.at_sym(Sym::RBrace) {
                let s = self.span_here();
                self.error("expected `)` closing the call", s);
                return Err(());
            }
            let start = self.pos;
            arg_filters.push(self.parse_expr(BP_OR)?);
            args.push(self.toks[start..self.pos].to_vec());
        }
        self.bump();
        if args.len() != func.params.len() {
            self.error(format!("`{name}` takes {} argument(s), got {}", func.params.len(), args.len()), sp);
            return Err(());
        }
        let mut bindings = Vec::new();
        for (i, arg) in arg_filters.iter().enumerate() {
            let by_name = matches!(&args[i][..], [Token { tok: Tok::Word(w), .. }] if self.ir.find_var(w).is_some());
            if by_name {
                continue;
            }
            let kind = match crate::ir::props::value_type(&self.ir, *arg) {
                ValueType::Set => VarKind::Square,
                ValueType::Position => VarKind::Position,
                ValueType::Number | ValueType::String => VarKind::Value,
                ValueType::None | ValueType::Piece => continue,
            };
            // A name no script can write (it holds a space), unique to this call.
            let fresh = format!("{} of {name} #{}", func.params[i], self.ir.vars.len());
            let var = self.ir.var(&fresh, kind);
            self.note_if_numeric(var, Some(*arg));
            let span = self.ir.span(*arg);
            bindings.push(self.add(Filter::Assign { var, op: None, value: *arg }, span));
            args[i] = vec![Token { tok: Tok::Word(fresh), span, space_before: true, line: 0, blank_before: false }];
        }
        let open = Token { tok: Tok::Sym(Sym::LParen), span: sp, space_before: true, line: 0, blank_before: false };
        let close = Token { tok: Tok::Sym(Sym::RParen), span: sp, space_before: false, line: 0, blank_before: false };
        let mut body =
            vec![Token { tok: Tok::Sym(Sym::LBrace), span: sp, space_before: true, line: 0, blank_before: false }];
        for t in &func.body {
            let param = match &t.tok {
                Tok::Word(w) => func.params.iter().position(|p| p == w),
                _ => None,
            };
            match param {
                Some(i) if args[i].len() == 1 => {
                    let mut a = args[i][0].clone();
                    a.space_before = t.space_before;
                    a.line = t.line;
                    body.push(a);
                }
                Some(i) => {
                    let mut o = open.clone();
                    o.space_before = t.space_before;
                    body.push(o);
                    body.extend(args[i].iter().cloned().map(|mut a| {
                        a.line = t.line;
                        a
                    }));
                    body.push(close.clone());
                }
                None => body.push(t.clone()),
            }
        }
        body.push(Token { tok: Tok::Sym(Sym::RBrace), span: sp, space_before: true, line: 0, blank_before: false });
        body.push(Token { tok: Tok::Eof, span: sp, space_before: true, line: 0, blank_before: false });
        let saved_toks = std::mem::replace(&mut self.toks, body);
        let saved_pos = std::mem::replace(&mut self.pos, 0);
        self.inline_depth += 1;
        let r = self.parse_block(Sym::RBrace, false);
        self.inline_depth -= 1;
        self.toks = saved_toks;
        self.pos = saved_pos;
        let body = r?;
        if bindings.is_empty() {
            return Ok(body);
        }
        bindings.push(body);
        Ok(self.add(Filter::And(bindings), sp))
    }
}

/// Is this token an infix operator binding tighter than `――` (`:`, `[…]`, `――`, arrows,
/// `∪`, `∩`, `attacks`, `attackedby`)?
fn binds_tighter_than_dash(t: &Tok) -> bool {
    match t {
        Tok::Sym(s) => matches!(
            s,
            Sym::Colon
                | Sym::LBracket
                | Sym::Dash
                | Sym::Capture
                | Sym::AttackRight
                | Sym::AttackLeft
                | Sym::Union
                | Sym::Inter
        ),
        Tok::Word(w) => matches!(w.as_str(), "attacks" | "attack" | "attackedby" | "attacked"),
        _ => false,
    }
}

fn result_of(text: &str) -> Option<GameResult> {
    match text {
        "1-0" => Some(GameResult::WhiteWins),
        "0-1" => Some(GameResult::BlackWins),
        "1/2-1/2" => Some(GameResult::Draw),
        _ => None,
    }
}

fn cmp_op(s: Sym) -> Option<CmpOp> {
    Some(match s {
        Sym::Lt => CmpOp::Lt,
        Sym::Le => CmpOp::Le,
        Sym::EqEq => CmpOp::Eq,
        Sym::Ne => CmpOp::Ne,
        Sym::Ge => CmpOp::Ge,
        Sym::Gt => CmpOp::Gt,
        _ => return None,
    })
}

fn is_assign(t: &Tok) -> bool {
    matches!(
        t,
        Tok::Sym(
            Sym::Assign | Sym::PlusAssign | Sym::MinusAssign | Sym::StarAssign | Sym::SlashAssign | Sym::PercentAssign
        )
    )
}

/// The arithmetic of an assignment token (`+=` adds …); `None` for a plain `=`. Called only
/// on a token [`is_assign`] accepted.
fn assign_op(t: &Tok) -> Option<ArithOp> {
    match t {
        Tok::Sym(Sym::Assign) => None,
        Tok::Sym(Sym::PlusAssign) => Some(ArithOp::Add),
        Tok::Sym(Sym::MinusAssign) => Some(ArithOp::Sub),
        Tok::Sym(Sym::StarAssign) => Some(ArithOp::Mul),
        Tok::Sym(Sym::SlashAssign) => Some(ArithOp::Div),
        _ => Some(ArithOp::Rem),
    }
}

fn is_element(t: &Tok) -> bool {
    *t == Tok::Sym(Sym::Element)
}

/// Names the script declares somewhere (assigned, iterated, parameters, echo), so
/// that a use before the declaration is not reported as unknown.
fn collect_declared(toks: &[Token]) -> HashSet<String> {
    let mut names = HashSet::new();
    for (i, t) in toks.iter().enumerate() {
        if let Tok::Word(w) = &t.tok {
            let next = toks.get(i + 1).map(|t| &t.tok);
            let prev = i.checked_sub(1).and_then(|p| toks.get(p)).map(|t| &t.tok);
            let declares = next.is_some_and(|n| is_assign(n) || is_element(n))
                || matches!(prev, Some(Tok::Word(p)) if p == "square" || p == "piece" || p == "all" || p == "function")
                || matches!(prev, Some(Tok::Sym(Sym::LParen)))
                    && i >= 2
                    && matches!(&toks[i - 2].tok, Tok::Word(e) if e == "echo");
            if declares {
                names.insert(w.clone());
            }
        }
    }
    // Function parameters and echo variables: words inside `(...)` after `function NAME` / `echo`.
    for (i, t) in toks.iter().enumerate() {
        let opener = match &t.tok {
            Tok::Word(w) if w == "function" => i + 2,
            Tok::Word(w) if w == "echo" => i,
            _ => continue,
        };
        let mut j = opener + 1;
        if toks.get(opener).map(|t| &t.tok) == Some(&Tok::Sym(Sym::LParen))
            || toks.get(opener + 1).map(|t| &t.tok) == Some(&Tok::Sym(Sym::LParen))
        {
            while j < toks.len() && toks[j].tok != Tok::Sym(Sym::RParen) && j < opener + 20 {
                if let Tok::Word(w) = &toks[j].tok {
                    names.insert(w.clone());
                }
                j += 1;
            }
        }
    }
    names
}
