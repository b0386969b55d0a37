//! CQL 6 parser: reads the token stream and lowers each construct straight to IR.
//!
//! Takes in: tokens from [`super::lexer`]. Gives out: an [`Ir`] (settings from the
//! `cql(...)` header, the root filter, variables) or diagnostics. Functions are inlined
//! at each call by substituting the argument tokens for the parameters and parsing the
//! body again. Transforms are left as `Filter::Transform` nodes.
//! Must never: panic on any input, recurse without bound, look at a game.

use crate::ir::{LogicFilter, OutputFilter};
use std::collections::{HashMap, HashSet};

use shakmaty::{Bitboard, Color};

use super::lexer::{letter_mask, Sym, Tok, Token};
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::*;
use crate::lang::nearest;

mod fen;
pub(crate) mod hhdb;
mod keywords62;

/// Deepest nesting of filters accepted before the parser refuses the query.
pub const MAX_DEPTH: usize = crate::NESTING_LIMIT;
/// Deepest chain of function calls inside function calls.
pub const MAX_INLINE_DEPTH: usize = 40;
/// The compile budget of function calls: most filters the query may hold while calls
/// are being written out (a function that calls another twice doubles the query at each
/// level, so a short script could otherwise take minutes to compile), and most tokens
/// all inlined calls may read together (an argument that is itself a call grows the
/// tokens without growing the filters as fast).
pub const MAX_EXPANDED_FILTERS: usize = 100_000;
/// See [`MAX_EXPANDED_FILTERS`].
pub const MAX_INLINED_TOKENS: usize = 2_000_000;
/// See [`MAX_EXPANDED_FILTERS`]: most variables the query may hold while calls are
/// written out (each call with a computed argument makes one, and every name is looked
/// up among all of them).
pub const MAX_EXPANDED_VARIABLES: usize = 10_000;
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

/// Each keyword family (one module of this parser, `src/lang/cql6/parser/<family>.rs`)
/// with the CQL 6 words it parses: where a keyword of the language is read. A word belongs
/// to exactly one family (checked by a test; docs/architecture.md lists them, checked by
/// `tests/architecture.rs`); [`KEYWORDS`] is their union.
pub const FAMILY_WORDS: &[(&str, &[&str])] = &[
    ("attacks_and_geometry", attacks_and_geometry::WORDS),
    ("cql_header", cql_header::WORDS),
    ("dictionaries", dictionaries::WORDS),
    ("expressions", expressions::WORDS),
    ("functions", functions::WORDS),
    ("game_tree", game_tree::WORDS),
    ("header", header::WORDS),
    ("iteration", iteration::WORDS),
    ("keywords62", keywords62::WORDS),
    ("mates", mates::WORDS),
    ("moves", moves::WORDS),
    ("numbers", numbers::WORDS),
    ("output", output::WORDS),
    ("pieces_and_sets", pieces_and_sets::WORDS),
    ("position_state", position_state::WORDS),
    ("sequences", sequences::WORDS),
    ("transforms", transforms::WORDS),
];

/// How many keywords the families own together.
const KEYWORD_COUNT: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < FAMILY_WORDS.len() {
        n += FAMILY_WORDS[i].1.len();
        i += 1;
    }
    n
};

/// Does `a` sort before `b` (byte order)?
const fn sorts_before(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
        i += 1;
    }
    a.len() < b.len()
}

/// The families' words gathered and sorted alphabetically, so that a "did you mean" hint
/// between two keywords equally near a misspelling names the alphabetically first one.
const KEYWORD_TABLE: [&str; KEYWORD_COUNT] = {
    let mut out = [""; KEYWORD_COUNT];
    let mut n = 0;
    let mut f = 0;
    while f < FAMILY_WORDS.len() {
        let words = FAMILY_WORDS[f].1;
        let mut w = 0;
        while w < words.len() {
            // Insertion into the sorted prefix `out[..n]`.
            let mut k = n;
            while k > 0 && sorts_before(words[w], out[k - 1]) {
                out[k] = out[k - 1];
                k -= 1;
            }
            out[k] = words[w];
            n += 1;
            w += 1;
        }
        f += 1;
    }
    out
};

/// Every keyword of the language, for "did you mean" hints and to tell a keyword from a
/// variable name: the union of the families' word lists ([`FAMILY_WORDS`]).
pub const KEYWORDS: &[&str] = &KEYWORD_TABLE;

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
    /// Tokens read by inlined function calls so far (see [`MAX_INLINED_TOKENS`]).
    inlined_tokens: usize,
    /// The outermost function call being inlined, where a budget error points.
    inline_outer: Option<Span>,
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
    /// The parse depth of the body of a counting `find` (`find all F`, `find 2 5 F`), while
    /// it is read: there a comparison after an operand without a value ends the body (see
    /// [`Parser::parse_counted_body`]).
    counted_body_depth: Option<usize>,
    /// CQL 6.2 kinds of nodes whose IR form does not tell them (see [`super::types`]).
    pub kinds: super::types::KindNotes,
    /// Variables assigned a number so far: only these are read as an end of a range
    /// (`find 1 n check`; CQL 6.2 `match_existingnumericvariable`), not a set variable
    /// that happens to stand there (`up 1 Rook`).
    numeric_vars: HashSet<crate::ir::VarId>,
    /// The syntax tree of what has been read so far (see [`super::syntax`]).
    pub(crate) tree: super::syntax::Builder,
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
mod arguments;
mod attacks_and_geometry;
mod cql_header;
mod dictionaries;
mod expressions;
use expressions::cmp_op;
use functions::collect_declared;
mod functions;
mod game_tree;
mod header;
mod iteration;
mod mates;
mod moves;
mod numbers;
mod output;
mod pieces_and_sets;
mod position_state;
mod ranges;
mod sequences;
mod transforms;
mod variables;

impl<'s> Parser<'s> {
    /// A parser over the tokens of `src`.
    pub fn new(src: &'s str, toks: Vec<Token>) -> Parser<'s> {
        let declared = collect_declared(&toks);
        let tree = super::syntax::Builder::new(src, &toks);
        Parser {
            src,
            toks,
            pos: 0,
            ir: Ir::new(),
            diags: Vec::new(),
            depth: 0,
            inline_depth: 0,
            inlined_tokens: 0,
            inline_outer: None,
            fatal: false,
            in_subscript: false,
            counted_body_depth: None,
            functions: HashMap::new(),
            declared,
            in_sequence: false,
            in_line: false,
            in_args: false,
            implicit_search: None,
            path_top: false,
            kinds: Default::default(),
            tree,
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
            let mark = self.tree.mark(self.pos);
            self.bump();
            self.bump();
            let header = self.read_header();
            for d in super::lower::header(&header, &self.tree, &mut self.ir.settings) {
                self.error_hint(d.message, d.span, d.hint);
            }
            self.tree.close(mark, self.pos, super::syntax::NodeKind::Header(header));
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
        let root = self.add(Filter::Logic(LogicFilter::And(items)), Self::join(start, end));
        self.ir.root = Some(root);
    }

    /// One juxtaposed filter (with an optional `///` comment after it). `None` for a
    /// function definition.
    fn parse_unit(&mut self) -> PResult<Option<FilterId>> {
        if self.at_word("function") {
            let mark = self.tree.mark(self.pos);
            let name = match &self.peek_at(1).tok {
                Tok::Word(w) => w.clone(),
                _ => String::new(),
            };
            self.parse_function_def()?;
            self.tree.close(mark, self.pos, super::syntax::NodeKind::FunctionDefinition { name });
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
        let c = self.add(Filter::Output(OutputFilter::Comment(args)), t.span);
        let sp = Self::join(self.ir.span(f), t.span);
        Ok(self.add(Filter::Logic(LogicFilter::And(vec![f, c])), sp))
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
}

fn result_of(text: &str) -> Option<GameResult> {
    match text {
        "1-0" => Some(GameResult::WhiteWins),
        "0-1" => Some(GameResult::BlackWins),
        "1/2-1/2" => Some(GameResult::Draw),
        _ => None,
    }
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

#[cfg(test)]
mod tests;
