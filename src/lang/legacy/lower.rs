//! Lowering of a legacy `(match …)` list to the shared IR.
//!
//! Takes in: the item tree made by [`super::syntax`]. Gives out: an [`Ir`] whose root is
//! evaluated once per game (`settings.per_game`): the conjunction of the match-list
//! conditions and one `Find` per position list, wrapped in one `IdentityIter` per tag.
//! Must never: evaluate anything, expand transforms (`ir::transform` does), or panic on
//! any script — every problem becomes a [`Diagnostic`].

use shakmaty::{Bitboard, Color, Role};

use super::designator::{parse_designator, parse_range, starts_range, Designator, PieceKinds, Problem, Range};
use super::syntax::Item;
use crate::ir::{
    ArithOp, Builtin, CmpOp, Directions, Filter, FilterId, FindDirection, GameResult, HeaderField, Ir, LineParams,
    MoveFilter, MoveKind, MoveSource, PawnStructure, PieceMask, Span, TransformKind, TreeRelation, TreeStep, VarId,
    VarKind,
};
use crate::lang::{nearest, Diagnostic};

mod extra;
mod relmap;
use extra::Handled;

/// Keywords allowed in a match list.
pub const MATCH_KEYWORDS: &[&str] = &[
    ":pgn",
    ":output",
    ":year",
    ":result",
    ":gamenumber",
    ":player",
    ":whiteplayer",
    ":blackplayer",
    ":forany",
    ":elo",
    ":whiteelo",
    ":blackelo",
    ":event",
    ":site",
    ":round",
    ":eco",
    ":annotator",
    ":date",
    ":plycount",
    ":termination",
    ":variant",
    ":variations",
    ":mainline",
    ":eithercolor",
    ":and",
    ":or",
    ":not",
    // CQL-S additions (see `extra`).
    ":xor",
    ":cond",
    ":eventdate",
    ":eventtype",
    ":eventmode",
    ":eventcountry",
    ":eventcategory",
    ":timemode",
    ":subround",
    ":title",
    ":whitetitle",
    ":blacktitle",
    ":country",
    ":whitecountry",
    ":blackcountry",
    ":gender",
    ":whitegender",
    ":blackgender",
    ":iscomputer",
    ":whiteiscomputer",
    ":blackiscomputer",
    ":ishuman",
    ":whiteishuman",
    ":blackishuman",
    ":rating",
    ":whiterating",
    ":blackrating",
    ":averagerating",
    ":averagerating*",
    ":ratingdifference",
    ":tag",
    ":comment",
    ":hascomments",
    ":hasvariations",
    ":hasannotation",
    ":ischess960",
    ":isshufflechess",
    ":startposition",
    ":goodgame",
];

/// Keywords allowed in a position list.
pub const POSITION_KEYWORDS: &[&str] = &[
    ":check",
    ":nocheck",
    ":mate",
    ":stalemate",
    ":isstalemate",
    ":wtm",
    ":btm",
    ":initial",
    ":terminal",
    ":doublecheck",
    ":enpassant",
    ":noenpassant",
    ":markall",
    ":noannotate",
    ":variations",
    ":variationsonly",
    ":not",
    ":and",
    ":or",
    ":piececount",
    ":power",
    ":powerdifference",
    ":attackcount",
    ":movefrom",
    ":moveto",
    ":promote",
    ":movenumber",
    ":halfmovenumber",
    ":result",
    ":elo",
    ":whiteelo",
    ":blackelo",
    ":sequence",
    ":gappedsequence",
    ":matchcount",
    ":pretransformmatchcount",
    ":nomatch",
    ":tagmatch",
    ":ray",
    ":rayorthogonal",
    ":raydiagonal",
    ":rayhorizontal",
    ":rayvertical",
    ":rayattack",
    ":pawncount",
    ":flip",
    ":flipdihedral",
    ":flipvertical",
    ":fliphorizontal",
    ":flipcolor",
    ":shift",
    ":shifthorizontal",
    ":shiftvertical",
    ":relation",
    // CQL 3 and CQL-S additions (see `extra`).
    ":xor",
    ":cond",
    ":flipdiagonal",
    ":flipoffdiagonal",
    ":shiftdiagonal",
    ":shiftmaindiagonal",
    ":shiftoffdiagonal",
    ":accumulate",
    ":accumulate*",
    ":sumrange",
    ":reset",
    ":line",
    ":matchconsecutive",
    ":match",
    ":castling",
    ":checkcount",
    ":contactcheck",
    ":iscontactcheck",
    ":ischeck",
    ":isdoublecheck",
    ":ismate",
    ":iscastling",
    ":isnull",
    ":halfmoveclock",
    ":threefoldrepetition",
    ":fivefoldrepetition",
    ":repetitioncount",
    ":pretransformrepetitioncount",
    ":matingmaterial",
    ":whitecannotwin",
    ":blackcannotwin",
    ":gameisover",
    ":losing",
    ":mustcapture",
    ":captureforced",
    ":takeslastpiece",
    ":forced",
    ":opposition",
    ":goodbishop",
    ":endgame",
    ":maxswapevaluation",
    ":exchangeevaluation",
    ":fen",
    ":inside",
    ":insidevariation",
    ":cut",
    ":exclude",
    ":skip",
    ":variant",
    ":pawncountdifference",
];

/// Keywords allowed inside a `:relation (…)` list.
pub const RELATION_KEYWORDS: &[&str] = &[
    ":missingpiececount",
    ":newpiececount",
    ":originalsamecount",
    ":originaldifferentcount",
    ":pattern",
    ":samesidetomove",
    ":changesidetomove",
    ":ignoresidetomove",
    ":variations",
    ":variationsonly",
];

/// Keywords of the old language this front-end knows but does not implement.
const UNSUPPORTED: &[&str] = &[];

/// Where the positions a position list is tried on come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scope {
    /// The main line only (the default).
    MainLine,
    /// Main line and variations (`:variations`).
    All,
    /// Only positions inside variations (`:variationsonly`).
    VariationsOnly,
}

/// The parts of one position list, before they are put together.
struct ListState {
    /// Conjuncts in source order; `None` marks where the next-move filter goes.
    conjuncts: Vec<Option<FilterId>>,
    /// Sets the moving piece must stand on (`:movefrom`, promotion colour).
    move_from: Vec<FilterId>,
    /// Sets the destination must be in (`:moveto`, promotion square).
    move_to: Vec<FilterId>,
    /// Roles a promotion must produce (bit per `Role as u8`).
    promote: u8,
    /// A special kind of move (`:enpassant`).
    move_kind: MoveKind,
    /// Transform keywords, in source order (the last one is outermost).
    transforms: Vec<TransformKind>,
    /// The `:not` flag.
    negate: bool,
    /// `:matchcount` / `:pretransformmatchcount` range; the flag marks the latter.
    matchcount: Option<(Range, bool)>,
    /// `:nomatch`.
    nomatch: bool,
    /// `:variations` / `:variationsonly`.
    scope: Scope,
    /// `:relation (…)` lists, lowered when the list is finished (`:pattern` needs all of
    /// the list's designators).
    relations: Vec<Relation>,
    /// The set filters of the list's own piece designators, in source order.
    designators: Vec<FilterId>,
    /// `:accumulate name` / `:accumulate* name` (the flag).
    accumulate: Option<(String, bool)>,
    /// `:sumrange name range`.
    sumranges: Vec<(String, Range, Span)>,
    /// `:repetitioncount` / `:pretransformrepetitioncount` range; the flag marks the latter.
    repetition: Option<(Range, bool)>,
    /// `:cut` (flag: `None`, or the sub-list).
    cut: Option<Option<FilterId>>,
    /// `:exclude` (flag: `None`, or the sub-list).
    exclude: Option<Option<FilterId>>,
}

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
struct Relation {
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

impl ListState {
    fn new() -> ListState {
        ListState {
            conjuncts: Vec::new(),
            move_from: Vec::new(),
            move_to: Vec::new(),
            promote: 0,
            move_kind: MoveKind::Any,
            transforms: Vec::new(),
            negate: false,
            matchcount: None,
            nomatch: false,
            scope: Scope::MainLine,
            relations: Vec::new(),
            designators: Vec::new(),
            accumulate: None,
            sumranges: Vec::new(),
            repetition: None,
            cut: None,
            exclude: None,
        }
    }

    fn mark_move(&mut self) {
        if !self.conjuncts.contains(&None) {
            self.conjuncts.push(None);
        }
    }
}

/// A lowered top-level position list, waiting for the match list to decide scopes.
struct TopList {
    /// The list's filter at one position (negation and transforms applied, unless
    /// `pretransform`, in which case transforms wrap the `Find`).
    body: FilterId,
    /// Transforms to apply around the count (`:pretransformmatchcount`).
    outer_transforms: Vec<TransformKind>,
    matchcount: Option<Range>,
    nomatch: bool,
    scope: Scope,
    span: Span,
    /// `:repetitioncount` range.
    repetition: Option<Range>,
    /// `:cut`: `Some(None)` for the flag, `Some(Some(f))` for a sub-list.
    cut: Option<Option<FilterId>>,
    /// `:exclude`, likewise.
    exclude: Option<Option<FilterId>>,
}

/// Lowers one legacy script into an [`Ir`].
pub struct Lowerer {
    ir: Ir,
    tags: Vec<(String, VarId)>,
    fresh: u32,
    /// Accumulators defined so far: name, the accumulating list's body, its transforms,
    /// and whether colours count separately (`:accumulate*`).
    accumulator_defs: Vec<(String, FilterId, Vec<TransformKind>, bool)>,
    /// A game-wide keyword (`:hasvariations`, `:hascomments` …) looks into variations.
    game_variations: bool,
    /// The script declares itself CQL 1.x (first line `; CQL 1.0`): the start position is
    /// not searched and `:flipcolor` does not flip a position list's `:result`.
    cql1: bool,
    /// The `:not` flag of the match list being read.
    not_flag: bool,
}

fn err(message: impl Into<String>, span: Span) -> Diagnostic {
    Diagnostic::new(message, span)
}

fn from_problem(p: Problem, span: Span) -> Diagnostic {
    Diagnostic::new(p.message, span).with_hint(p.hint)
}

/// A cursor over the items following a list's head word.
struct Cursor<'a> {
    items: &'a [Item],
    next: usize,
    /// Span of the whole list, for "missing parameter" errors at its end.
    list_span: Span,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<&'a Item> {
        self.items.get(self.next)
    }
    fn take(&mut self) -> Option<&'a Item> {
        let item = self.items.get(self.next);
        if item.is_some() {
            self.next += 1;
        }
        item
    }
    fn missing(&self, keyword: &str, what: &str) -> Diagnostic {
        let end = self.list_span.end as usize;
        err(format!("`{keyword}` needs {what}"), Span::new(end.saturating_sub(1), end))
            .with_hint(format!("write {what} right after `{keyword}`"))
    }
    fn atom(&mut self, keyword: &str, what: &str) -> Result<(&'a str, Span), Diagnostic> {
        match self.take() {
            Some(Item::Atom { text, span, .. }) => Ok((text.as_str(), *span)),
            Some(Item::List { span, .. }) => Err(err(format!("`{keyword}` needs {what}, not a list"), *span)),
            None => Err(self.missing(keyword, what)),
        }
    }
    fn list(&mut self, keyword: &str, what: &str) -> Result<(&'a [Item], Span), Diagnostic> {
        match self.take() {
            Some(Item::List { items, span }) => Ok((items.as_slice(), *span)),
            Some(other) => {
                Err(err(format!("`{keyword}` needs {what}"), other.span())
                    .with_hint(format!("put {what} in parentheses")))
            }
            None => Err(self.missing(keyword, what)),
        }
    }
    fn range(&mut self, keyword: &str) -> Result<(Range, Span), Diagnostic> {
        let (first, span) = self.atom(keyword, "a range")?;
        let second = self.peek().and_then(Item::atom);
        let (range, used) = parse_range(first, second).map_err(|p| from_problem(p, span))?;
        let mut full = span;
        if used {
            if let Some(item) = self.take() {
                full.end = item.span().end;
            }
        }
        Ok((range, full))
    }
    fn designator(&mut self, keyword: &str) -> Result<(Designator, Span), Diagnostic> {
        let (text, span) = self.atom(keyword, "a piece designator")?;
        let d = parse_designator(text).map_err(|p| from_problem(p, span))?;
        Ok((d, span))
    }
}

fn is_singular(d: &Designator) -> bool {
    match &d.kinds {
        PieceKinds::Tag(_) => true,
        PieceKinds::Mask(m) => {
            *m == PieceMask::piece(Color::White, Role::King)
                || *m == PieceMask::piece(Color::Black, Role::King)
                || d.squares.count_ones() == 1
        }
    }
}

fn transform_kind(keyword: &str) -> Option<TransformKind> {
    Some(match keyword {
        ":flip" | ":flipdihedral" => TransformKind::Flip,
        ":flipvertical" => TransformKind::FlipVertical,
        ":fliphorizontal" => TransformKind::FlipHorizontal,
        ":flipcolor" => TransformKind::FlipColor,
        ":shift" => TransformKind::Shift,
        ":shifthorizontal" => TransformKind::ShiftHorizontal,
        ":shiftvertical" => TransformKind::ShiftVertical,
        _ => return None,
    })
}

/// Which language a script declares on its first line (Scidb's file-format page).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `; CQL-S 1.0 (…) (…)`: Scidb's CQL-S.
    CqlS,
    /// `; CQL 1.0`: standard CQL as Scidb writes it.
    Cql1,
    /// No identification line: read as CQL-S, which the CQL 3 scripts in use agree with.
    Unmarked,
}

/// The dialect named by the first line of a script.
pub fn dialect(source: &str) -> Dialect {
    let first = source.trim_start_matches('\u{feff}').lines().next().unwrap_or("");
    if first.starts_with("; CQL-S ") {
        Dialect::CqlS
    } else if first.starts_with("; CQL 1.") {
        Dialect::Cql1
    } else {
        Dialect::Unmarked
    }
}

fn parse_result(text: &str) -> Option<GameResult> {
    match text {
        "1-0" => Some(GameResult::WhiteWins),
        "0-1" => Some(GameResult::BlackWins),
        "1/2-1/2" | "1/2" => Some(GameResult::Draw),
        _ => None,
    }
}

impl Lowerer {
    /// A lowerer with an empty arena.
    pub fn new() -> Lowerer {
        Lowerer {
            ir: Ir::new(),
            tags: Vec::new(),
            fresh: 0,
            accumulator_defs: Vec::new(),
            game_variations: false,
            cql1: false,
            not_flag: false,
        }
    }

    fn add(&mut self, f: Filter, span: Span) -> FilterId {
        self.ir.add(f, span)
    }

    fn and(&mut self, mut parts: Vec<FilterId>, span: Span) -> FilterId {
        match parts.len() {
            0 => self.add(Filter::True, span),
            1 => parts.remove(0),
            _ => self.add(Filter::And(parts), span),
        }
    }

    /// Put `first` in front of a conjunction, flattening a plain `And`.
    fn and_front(&mut self, first: FilterId, body: FilterId, span: Span) -> FilterId {
        let mut parts = vec![first];
        match self.ir.get(body) {
            Filter::And(v) => parts.extend(v.iter().copied()),
            Filter::True => {}
            _ => parts.push(body),
        }
        self.and(parts, span)
    }

    fn number(&mut self, n: i64, span: Span) -> FilterId {
        self.add(Filter::Number(n), span)
    }

    /// `value` compared with a range: `x == n`, `x >= n`, `n <= x <= m`, `x op n`.
    fn compare(&mut self, value: FilterId, range: Range, span: Span) -> FilterId {
        match range {
            Range::Any => value,
            Range::Compare(op, n) => {
                let n = self.number(n, span);
                self.add(Filter::Compare { first: value, rest: vec![(op, n)] }, span)
            }
            Range::Between(lo, hi) if lo == hi => {
                let n = self.number(lo, span);
                self.add(Filter::Compare { first: value, rest: vec![(CmpOp::Eq, n)] }, span)
            }
            Range::Between(lo, i64::MAX) => {
                let n = self.number(lo, span);
                self.add(Filter::Compare { first: value, rest: vec![(CmpOp::Ge, n)] }, span)
            }
            Range::Between(lo, hi) => {
                let lo = self.number(lo, span);
                let hi = self.number(hi, span);
                self.add(Filter::Compare { first: lo, rest: vec![(CmpOp::Le, value), (CmpOp::Le, hi)] }, span)
            }
        }
    }

    fn tag_var(&self, name: &str, span: Span) -> Result<VarId, Diagnostic> {
        self.tags.iter().find(|(n, _)| n == name).map(|&(_, v)| v).ok_or_else(|| {
            err(format!("unknown tag `{name}`"), span)
                .with_hint(format!("declare it in the match list first: `:forany {name} <designator>`"))
        })
    }

    /// The set filter of a designator: `Pieces`, `Squares` for `?`, `False` for `[ ]`, a
    /// tag variable (intersected with its squares).
    fn designator(&mut self, d: &Designator, span: Span) -> Result<FilterId, Diagnostic> {
        if d.squares == 0 {
            return Ok(self.add(Filter::False, span));
        }
        match &d.kinds {
            PieceKinds::Tag(name) => {
                let var = self.tag_var(name, span)?;
                let v = self.add(Filter::Var(var), span);
                if d.squares == u64::MAX {
                    Ok(v)
                } else {
                    let sq = self.add(Filter::Squares(Bitboard(d.squares)), span);
                    Ok(self.add(Filter::Intersection(vec![v, sq]), span))
                }
            }
            PieceKinds::Mask(m) if *m == PieceMask::ANYTHING => {
                Ok(self.add(Filter::Squares(Bitboard(d.squares)), span))
            }
            PieceKinds::Mask(m) => Ok(self.add(Filter::Pieces { mask: *m, squares: Bitboard(d.squares) }, span)),
        }
    }

    fn fresh_var(&mut self, what: &str, kind: VarKind) -> VarId {
        self.fresh += 1;
        let name = format!("{what}#{}", self.fresh);
        self.ir.var(&name, kind)
    }

    /// Lower a whole script: exactly one `(match …)` list.
    pub fn script(mut self, top: &[Item], source: &str) -> Result<Ir, Diagnostic> {
        self.cql1 = dialect(source) == Dialect::Cql1;
        let first = match top.first() {
            Some(i) => i,
            None => {
                return Err(err("the script is empty", Span::new(0, source.len()))
                    .with_hint("a legacy script is one list: `(match (position …))`"))
            }
        };
        if top.len() > 1 {
            return Err(err("only one `(match …)` list is allowed", top[1].span())
                .with_hint("move these conditions into the first match list"));
        }
        let items = match first {
            Item::List { items, .. } if first.head() == Some("match") => items,
            _ => {
                return Err(err("a legacy script must be a single `(match …)` list", first.span())
                    .with_hint("write `(match (position …))`"))
            }
        };
        let root = self.match_list(items, first.span())?;
        self.ir.root = Some(root);
        self.ir.settings.per_game = true;
        Ok(self.ir)
    }

    /// A match list: header conditions and position lists, under its tags.
    fn match_list(&mut self, items: &[Item], span: Span) -> Result<FilterId, Diagnostic> {
        // Tags first, so that position lists may use them wherever `:forany` is written.
        let mut tags: Vec<(VarId, PieceMask)> = Vec::new();
        let mut has_relation = None;
        for (i, item) in items.iter().enumerate().skip(1) {
            if item.atom() == Some(":forany") {
                let mut c = Cursor { items, next: i + 1, list_span: span };
                let (name, name_span) = c.atom(":forany", "a tag name")?;
                if name.is_empty() || !name.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_') {
                    return Err(err(format!("`{name}` is not a tag name"), name_span)
                        .with_hint("tag names are letters and digits, e.g. `rook`"));
                }
                let (d, dspan) = c.designator(":forany")?;
                let mask = match d.kinds {
                    PieceKinds::Mask(m) => m,
                    PieceKinds::Tag(_) => {
                        return Err(err("`:forany` needs piece types, not a tag", dspan)
                            .with_hint("write e.g. `:forany rook [Rr]`"))
                    }
                };
                if self.tags.iter().any(|(n, _)| n == name) {
                    return Err(err(format!("the tag `{name}` is declared twice"), name_span));
                }
                if self.tags.len() == 2 {
                    return Err(err("a match list may have at most two tags", item.span())
                        .with_hint("the old language allows `:forany` at most twice"));
                }
                let var = self.ir.var(name, VarKind::Piece);
                self.tags.push((name.to_string(), var));
                tags.push((var, mask));
            }
        }
        /// The first `:relation` keyword anywhere inside `items`.
        fn find_relation(items: &[Item]) -> Option<Span> {
            items.iter().find_map(|x| match x {
                Item::Atom { text, span, quoted: false } if text == ":relation" || text == "!:relation" => Some(*span),
                Item::List { items, .. } => find_relation(items),
                _ => None,
            })
        }
        for item in items.iter().skip(1) {
            if let Item::List { items: sub, .. } = item {
                if let Some(at) = find_relation(sub) {
                    has_relation.get_or_insert(at);
                }
            }
        }
        if let (Some(rel), false) = (has_relation, tags.is_empty()) {
            return Err(err("tags cannot be used together with `:relation`", rel));
        }

        let mut conditions = Vec::new();
        let mut lists: Vec<TopList> = Vec::new();
        let mut global_variations = false;
        let mut either_color = false;
        let mut c = Cursor { items, next: 1, list_span: span };
        while let Some(item) = c.take() {
            match item {
                Item::List { items: sub, span: sub_span } => {
                    if item.head() != Some("position") {
                        return Err(err("expected a `(position …)` list here", *sub_span)
                            .with_hint("a match list holds keywords and `(position …)` lists"));
                    }
                    lists.push(self.top_position_list(sub, *sub_span)?);
                }
                Item::Atom { text, span: kspan, .. } => {
                    let kw = text.as_str();
                    match kw {
                        ":forany" => {
                            c.next += 2; // read above
                        }
                        ":variations" => global_variations = true,
                        ":mainline" => {}
                        ":eithercolor" => either_color = true,
                        ":pgn" => {
                            let (file, _) = c.atom(kw, "a file name")?;
                            self.ir.settings.input.push(file.to_string());
                        }
                        ":output" => {
                            let (file, _) = c.atom(kw, "a file name")?;
                            self.ir.settings.output = Some(file.to_string());
                        }
                        _ => {
                            let f = self.header_keyword(kw, *kspan, &mut c)?;
                            conditions.push(f);
                        }
                    }
                }
            }
        }

        let any_variations =
            global_variations || self.game_variations || lists.iter().any(|l| l.scope != Scope::MainLine);
        if any_variations {
            self.ir.settings.variations = true;
        }
        // Scope conjuncts first: `:cut` and `:exclude` conditions use the scoped bodies.
        let mut scoped = Vec::new();
        for list in &lists {
            let mut body = list.body;
            match list.scope {
                Scope::MainLine if any_variations && !global_variations => {
                    let m = self.add(Filter::Mainline, list.span);
                    body = self.and_front(m, body, list.span);
                }
                Scope::VariationsOnly => {
                    let v = self.add(Filter::Variation, list.span);
                    body = self.and_front(v, body, list.span);
                }
                _ => {}
            }
            scoped.push(body);
        }
        // `:cut`: no list looks past the first position where a cut condition holds.
        let mut cuts = Vec::new();
        let mut excludes = Vec::new();
        for (list, &body) in lists.iter().zip(&scoped) {
            if let Some(c) = list.cut {
                cuts.push(c.unwrap_or(body));
            }
            if let Some(e) = list.exclude {
                excludes.push(e.unwrap_or(body));
            }
        }
        let cut_guard = if cuts.is_empty() {
            None
        } else {
            let any = if cuts.len() == 1 { cuts[0] } else { self.add(Filter::Or(cuts), span) };
            let earlier = self.add(
                Filter::Find { direction: FindDirection::Backward, all: false, range: None, quiet: true, body: any },
                span,
            );
            let parent = self.add(Filter::Tree(TreeStep::Parent), span);
            let before = self.add(Filter::AtPosition { at: parent, body: earlier }, span);
            Some(self.add(Filter::Not(before), span))
        };
        for (list, mut body) in lists.into_iter().zip(scoped) {
            if self.cql1 {
                // CQL 1.0 does not search the start position (Scidb's CQL-Syntax page).
                let initial = self.add(Filter::Initial, list.span);
                let not_initial = self.add(Filter::Not(initial), list.span);
                body = self.and_front(not_initial, body, list.span);
            }
            if let Some(guard) = cut_guard {
                body = self.add(Filter::And(vec![body, guard]), list.span);
            }
            let mut find = match list.repetition {
                Some(r) => self.repetition_find(body, r, list.span),
                None => {
                    let (all, range) = match list.matchcount {
                        None => (false, None),
                        Some(r) => {
                            // Scidb's CQL-S manual (position list, `:matchcount`): the list matches
                            // when the number of positions it matches lies in the range, 0 included,
                            // so `:matchcount 0` finds the games where the list never matches.
                            let (lo, hi) = r.interval();
                            (true, Some((lo.max(0), hi)))
                        }
                    };
                    self.add(
                        Filter::Find { direction: FindDirection::Forward, all, range, quiet: true, body },
                        list.span,
                    )
                }
            };
            for &kind in &list.outer_transforms {
                find = self.add(Filter::Transform { kind, range: None, count: false, body: find }, list.span);
            }
            if list.nomatch {
                find = self.add(Filter::Not(find), list.span);
            }
            conditions.push(find);
        }
        // `:exclude`: a game where an exclude condition holds anywhere does not match.
        for e in excludes {
            let anywhere = self.add(
                Filter::Find { direction: FindDirection::Forward, all: false, range: None, quiet: true, body: e },
                span,
            );
            conditions.push(self.add(Filter::Not(anywhere), span));
        }
        let mut root = self.and(conditions, span);
        if std::mem::take(&mut self.not_flag) {
            root = self.add(Filter::Not(root), span);
        }
        if either_color {
            root = self
                .add(Filter::Transform { kind: TransformKind::FlipColor, range: None, count: false, body: root }, span);
        }
        for &(var, mask) in tags.iter().rev() {
            root = self.add(Filter::IdentityIter { var, mask, body: root }, span);
        }
        Ok(root)
    }

    /// `:repetitioncount r`: some run of consecutive positions matched by `body` has a
    /// length in r (counted from the run's first position); 0 stands for "no run at all".
    fn repetition_find(&mut self, body: FilterId, r: Range, span: Span) -> FilterId {
        let (lo, hi) = r.interval();
        let run_at_least = |me: &mut Lowerer, n: i64| {
            let min = u32::try_from(n.max(1)).unwrap_or(u32::MAX);
            let rep = me.add(Filter::SeqRepeat { body, min, max: u32::MAX }, span);
            let seq = me.add(Filter::SeqConcat(vec![rep]), span);
            me.add(Filter::Line { params: LineParams::default(), body: seq }, span)
        };
        let parent = self.add(Filter::Tree(TreeStep::Parent), span);
        let before = self.add(Filter::AtPosition { at: parent, body }, span);
        let fresh = self.add(Filter::Not(before), span);
        let mut parts = vec![body, fresh];
        if lo > 1 {
            parts.push(run_at_least(self, lo));
        }
        if hi < i64::MAX {
            let longer = run_at_least(self, hi.saturating_add(1));
            parts.push(self.add(Filter::Not(longer), span));
        }
        let start = self.add(Filter::And(parts), span);
        let some_run = self.add(
            Filter::Find { direction: FindDirection::Forward, all: false, range: None, quiet: true, body: start },
            span,
        );
        if lo > 0 {
            return some_run;
        }
        let any = self
            .add(Filter::Find { direction: FindDirection::Forward, all: false, range: None, quiet: true, body }, span);
        let none = self.add(Filter::Not(any), span);
        if hi <= 0 {
            none
        } else {
            self.add(Filter::Or(vec![none, some_run]), span)
        }
    }

    /// A match-list keyword that filters on the game's header (or a CQL-S sub-match list).
    fn header_keyword(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        if let Some(rest) = kw.strip_prefix('!') {
            // CQL-S: `!:kw` negates one match-list keyword.
            if !rest.starts_with(':') || rest == ":not" {
                return Err(
                    err(format!("`{kw}` cannot be negated with `!`"), span).with_hint("write e.g. `!:ischess960`")
                );
            }
            let f = self.header_keyword(rest, span, c)?;
            return Ok(self.add(Filter::Not(f), span));
        }
        Ok(match kw {
            ":year" => {
                let (r, rs) = c.range(kw)?;
                let y = self.add(Filter::Year, span);
                self.compare(y, r, rs)
            }
            ":gamenumber" => {
                let (r, rs) = c.range(kw)?;
                let g = self.add(Filter::GameNumber, span);
                self.compare(g, r, rs)
            }
            ":result" => {
                let (text, rspan) = c.atom(kw, "a result")?;
                self.result_filter(text, rspan)?
            }
            ":player" | ":whiteplayer" | ":blackplayer" => {
                let (name, nspan) = c.atom(kw, "a player name")?;
                let colors: &[Color] = match kw {
                    ":whiteplayer" => &[Color::White],
                    ":blackplayer" => &[Color::Black],
                    _ => &[Color::White, Color::Black],
                };
                let needle = self.add(Filter::Str(name.to_string()), nspan);
                let mut alternatives = Vec::new();
                for &color in colors {
                    let h = self.add(Filter::Header(HeaderField::Player(color)), span);
                    alternatives.push(self.add(Filter::Contains { haystack: h, needle, ignore_case: true }, span));
                }
                if alternatives.len() == 1 {
                    alternatives[0]
                } else {
                    self.add(Filter::Or(alternatives), span)
                }
            }
            ":event" | ":site" | ":round" | ":eco" | ":annotator" | ":date" | ":termination" | ":variant" => {
                let (text, tspan) = c.atom(kw, "a text")?;
                let field = match kw {
                    ":event" => HeaderField::Event,
                    ":site" => HeaderField::Site,
                    ":eco" => HeaderField::Eco,
                    ":date" => HeaderField::Date,
                    ":round" => HeaderField::Tag("Round".into()),
                    ":termination" => HeaderField::Tag("Termination".into()),
                    ":variant" => HeaderField::Tag("Variant".into()),
                    _ => HeaderField::Tag("Annotator".into()),
                };
                let h = self.add(Filter::Header(field), span);
                let needle = self.add(Filter::Str(text.to_string()), tspan);
                self.add(Filter::Contains { haystack: h, needle, ignore_case: true }, span)
            }
            ":elo" | ":whiteelo" | ":blackelo" => self.elo(kw, span, c)?,
            ":plycount" => {
                // The real number of plies of the main line (the last main-line position's
                // distance from the start), not the optional `[PlyCount]` tag.
                let (r, rs) = c.range(kw)?;
                let last = self.add(Filter::Tree(TreeStep::Last), span);
                let ply = self.add(Filter::Ply, span);
                let count = self.add(Filter::AtPosition { at: last, body: ply }, span);
                self.compare(count, r, rs)
            }
            ":and" | ":or" => {
                let (subs, _) = c.list(kw, "a list of `(match …)` lists")?;
                let mut parts = Vec::new();
                for sub in subs {
                    parts.push(self.sub_match(sub)?);
                }
                if kw == ":and" {
                    self.and(parts, span)
                } else {
                    self.add(Filter::Or(parts), span)
                }
            }
            ":not" if !matches!(c.peek(), Some(Item::List { .. })) => {
                // The flag form: the enclosing match list matches where it otherwise would not.
                self.not_flag = !self.not_flag;
                self.add(Filter::True, span)
            }
            ":not" => {
                let sub = c.take().ok_or_else(|| c.missing(kw, "a `(match …)` list"))?;
                let f = self.sub_match(sub)?;
                self.add(Filter::Not(f), span)
            }
            _ => match self.cql_s_header(kw, span, c)? {
                Some(f) => f,
                None => return Err(self.unknown_keyword(kw, span, MATCH_KEYWORDS, "match list")),
            },
        })
    }

    /// A CQL-S sub-match list: header conditions only.
    fn sub_match(&mut self, item: &Item) -> Result<FilterId, Diagnostic> {
        let (items, span) = match item {
            Item::List { items, span } if item.head() == Some("match") => (items, *span),
            _ => {
                return Err(err("expected a `(match …)` list", item.span())
                    .with_hint("`:and`, `:or`, `:not` in a match list combine `(match …)` lists"))
            }
        };
        let mut parts = Vec::new();
        let saved = std::mem::take(&mut self.not_flag);
        let mut c = Cursor { items, next: 1, list_span: span };
        while let Some(it) = c.take() {
            match it {
                Item::Atom { text, span: ks, .. } => parts.push(self.header_keyword(text, *ks, &mut c)?),
                Item::List { span, .. } => {
                    return Err(err("a sub-match list cannot hold position lists", *span)
                        .with_hint("move the position list into the outer match list"))
                }
            }
        }
        let all = self.and(parts, span);
        let negated = std::mem::replace(&mut self.not_flag, saved);
        Ok(if negated { self.add(Filter::Not(all), span) } else { all })
    }

    /// The `[Result]` tag's text is one of the results of a comma list (not flipped by
    /// `:flipcolor`).
    fn result_text(&mut self, text: &str, span: Span) -> Result<FilterId, Diagnostic> {
        let mut words = Vec::new();
        for part in text.split(',') {
            let r = parse_result(part).ok_or_else(|| {
                err(format!("`{part}` is not a game result"), span).with_hint("write `1-0`, `0-1`, `1/2-1/2` or `1/2`")
            })?;
            words.push(match r {
                GameResult::WhiteWins => "1-0",
                GameResult::BlackWins => "0-1",
                GameResult::Draw => "1/2-1/2",
            });
        }
        let h = self.add(Filter::Header(HeaderField::ResultText), span);
        let pattern = format!("^\\s*(?:{})\\s*$", words.join("|"));
        Ok(self.add(Filter::RegexMatch { subject: h, pattern }, span))
    }

    fn result_filter(&mut self, text: &str, span: Span) -> Result<FilterId, Diagnostic> {
        let mut alternatives = Vec::new();
        for part in text.split(',') {
            let r = parse_result(part).ok_or_else(|| {
                err(format!("`{part}` is not a game result"), span).with_hint("write `1-0`, `0-1`, `1/2-1/2` or `1/2`")
            })?;
            alternatives.push(self.add(Filter::Result(r), span));
        }
        Ok(if alternatives.len() == 1 { alternatives[0] } else { self.add(Filter::Or(alternatives), span) })
    }

    /// `:elo r` (either player; `0` = a player without Elo), `:whiteelo r`, `:blackelo r`.
    fn elo(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (r, rs) = c.range(kw)?;
        let colors: &[Color] = match kw {
            ":whiteelo" => &[Color::White],
            ":blackelo" => &[Color::Black],
            _ => &[Color::White, Color::Black],
        };
        let mut alternatives = Vec::new();
        for &color in colors {
            let h = self.add(Filter::Header(HeaderField::Elo(color)), span);
            let f = if r == Range::Between(0, 0) && kw == ":elo" {
                self.add(Filter::Not(h), span)
            } else {
                self.compare(h, r, rs)
            };
            alternatives.push(f);
        }
        Ok(if alternatives.len() == 1 { alternatives[0] } else { self.add(Filter::Or(alternatives), span) })
    }

    fn unknown_keyword(&self, kw: &str, span: Span, known: &[&str], place: &str) -> Diagnostic {
        if UNSUPPORTED.contains(&kw) {
            return err(format!("`{kw}` is not supported by this engine"), span)
                .with_hint("see docs/legacy.md for the supported keywords");
        }
        let other: &[&str] = if place == "match list" { POSITION_KEYWORDS } else { MATCH_KEYWORDS };
        if other.contains(&kw) && !known.contains(&kw) {
            let other_place = if place == "match list" { "position list" } else { "match list" };
            return err(format!("`{kw}` belongs in a {other_place}, not in a {place}"), span);
        }
        let d = err(format!("unknown {place} keyword `{kw}`"), span);
        let anagram = |a: &str| {
            let mut v: Vec<char> = a.chars().collect();
            v.sort_unstable();
            v
        };
        let swapped = known.iter().copied().find(|k| k.len() == kw.len() && anagram(k) == anagram(kw));
        match nearest(kw, known).or(swapped) {
            Some(n) => d.with_hint(format!("did you mean `{n}`?")),
            None => d.with_hint(format!("see docs/legacy.md for the keywords of a {place}")),
        }
    }

    /// A position list directly inside the match list.
    fn top_position_list(&mut self, items: &[Item], span: Span) -> Result<TopList, Diagnostic> {
        let mut st = self.position_items(items, span, true)?;
        let pretransform = matches!(st.matchcount, Some((_, true))) || matches!(st.repetition, Some((_, true)));
        if st.matchcount.is_some() && st.repetition.is_some() {
            return Err(err("a position list takes either a match count or a repetition count, not both", span));
        }
        let repetition = st.repetition.take().map(|(r, _)| r);
        let (cut, exclude) = (st.cut.take(), st.exclude.take());
        let scope = st.scope;
        let matchcount = st.matchcount.map(|(r, _)| r);
        let nomatch = st.nomatch;
        let (body, outer_transforms) = if pretransform {
            let transforms = st.transforms.clone();
            let mut inner = st;
            inner.transforms.clear();
            (self.finish(inner, span)?, transforms)
        } else {
            (self.finish(st, span)?, Vec::new())
        };
        let outer_transforms = outer_transforms.into_iter().map(|k| self.edge_rule(k, body)).collect();
        Ok(TopList { body, outer_transforms, matchcount, nomatch, scope, span, repetition, cut, exclude })
    }

    /// A position list used as a parameter (`:and`, `:sequence`, `:not (position …)`).
    fn nested_position_list(&mut self, item: &Item) -> Result<FilterId, Diagnostic> {
        match item {
            Item::List { items, span } if item.head() == Some("position") => {
                let st = self.position_items(items, *span, false)?;
                self.finish(st, *span)
            }
            _ => Err(err("expected a `(position …)` list", item.span()).with_hint("write `(position …)` here")),
        }
    }

    /// Put a list's parts together: conjunction (with the next-move filter in place),
    /// transforms around it (last keyword outermost), `:not` around everything.
    fn finish(&mut self, st: ListState, span: Span) -> Result<FilterId, Diagnostic> {
        let move_filter = if st.conjuncts.contains(&None) { Some(self.move_filter(&st, span)) } else { None };
        let mut parts: Vec<FilterId> = st.conjuncts.iter().map(|c| c.or(move_filter).unwrap_or(FilterId(0))).collect();
        // Relations go last: they look at every later position, the other conjuncts are cheap.
        for rel in &st.relations {
            parts.push(self.relation_filter(rel, &st.designators));
        }
        let plain = self.and(parts, span);
        let (mut body, counted) = self.accumulators(&st, plain, span)?;
        if !counted {
            for &kind in &st.transforms {
                let kind = self.edge_rule(kind, plain);
                body = self.add(Filter::Transform { kind, range: None, count: false, body }, span);
            }
        }
        if st.negate {
            body = self.add(Filter::Not(body), span);
        }
        Ok(body)
    }

    fn move_filter(&mut self, st: &ListState, span: Span) -> FilterId {
        let combine = |me: &mut Lowerer, sets: &[FilterId]| match sets.len() {
            0 => None,
            1 => Some(sets[0]),
            _ => Some(me.add(Filter::Intersection(sets.to_vec()), span)),
        };
        let from = combine(self, &st.move_from);
        let to = combine(self, &st.move_to);
        self.add(
            Filter::Move(Box::new(MoveFilter {
                from,
                to,
                promote: st.promote,
                kind: st.move_kind,
                ..MoveFilter::any(MoveSource::Next)
            })),
            span,
        )
    }

    /// Read the items of a position list (after its head word) into a [`ListState`].
    fn position_items(&mut self, items: &[Item], span: Span, top_level: bool) -> Result<ListState, Diagnostic> {
        let mut st = ListState::new();
        let mut c = Cursor { items, next: 1, list_span: span };
        while let Some(item) = c.take() {
            match item {
                Item::List { span: lspan, .. } => {
                    return Err(err("a list cannot stand alone in a position list", *lspan)
                        .with_hint("sub-lists are parameters of keywords such as `:and`, `:or`, `:sequence`"));
                }
                Item::Atom { text, span: aspan, quoted } => {
                    if *quoted {
                        return Err(err(format!("unexpected string `\"{text}\"`"), *aspan));
                    }
                    if let Some(kw) = text.strip_prefix('!') {
                        if !kw.starts_with(':') {
                            return Err(err(format!("`!` must be followed by a keyword in `{text}`"), *aspan)
                                .with_hint("write e.g. `!:check`"));
                        }
                        let mut inner = ListState::new();
                        self.position_keyword(kw, *aspan, &mut c, &mut inner, false)?;
                        if !inner.transforms.is_empty()
                            || inner.negate
                            || inner.matchcount.is_some()
                            || inner.nomatch
                            || inner.scope != Scope::MainLine
                            || (inner.conjuncts.is_empty() && inner.relations.is_empty())
                        {
                            return Err(err(format!("`{kw}` cannot be negated with `!`"), *aspan)
                                .with_hint("`!` negates keywords that test the position"));
                        }
                        let f = self.finish(inner, *aspan)?;
                        let not = self.add(Filter::Not(f), *aspan);
                        st.conjuncts.push(Some(not));
                    } else if text.starts_with(':') {
                        self.position_keyword(text, *aspan, &mut c, &mut st, top_level)?;
                    } else {
                        if starts_range(text) {
                            return Err(err(format!("unexpected number `{text}`"), *aspan)
                                .with_hint("numbers are parameters of keywords such as `:piececount`"));
                        }
                        if text == "position" || text == "match" {
                            return Err(err(format!("`{text}` must start a list"), *aspan)
                                .with_hint(format!("write `({text} …)`")));
                        }
                        let d = parse_designator(text).map_err(|p| from_problem(p, *aspan))?;
                        let f = self.designator(&d, *aspan)?;
                        st.conjuncts.push(Some(f));
                        st.designators.push(f);
                    }
                }
            }
        }
        Ok(st)
    }

    /// One position-list keyword and its parameters.
    fn position_keyword(
        &mut self,
        kw: &str,
        span: Span,
        c: &mut Cursor,
        st: &mut ListState,
        top_level: bool,
    ) -> Result<(), Diagnostic> {
        if let Some(kind) = transform_kind(kw) {
            // A transform keyword is a property of the list: written twice, it still counts
            // once (each keyword's set of transforms holds the identity and is closed under
            // composition, so a second copy adds no image, only work and extra counts).
            if !st.transforms.contains(&kind) {
                st.transforms.push(kind);
            }
            return Ok(());
        }
        let simple = match kw {
            ":check" => Some(Filter::Check),
            ":mate" => Some(Filter::Mate),
            ":stalemate" | ":isstalemate" => Some(Filter::Stalemate),
            ":wtm" => Some(Filter::ToMove(Color::White)),
            ":btm" => Some(Filter::ToMove(Color::Black)),
            ":initial" => Some(Filter::Initial),
            ":terminal" => Some(Filter::Terminal),
            _ => None,
        };
        if let Some(f) = simple {
            let id = self.add(f, span);
            st.conjuncts.push(Some(id));
            return Ok(());
        }
        let only_top = |what: &str| {
            err(format!("`{what}` is only allowed in a position list directly inside the match list"), span)
        };
        let filter = match kw {
            ":nocheck" => {
                let ch = self.add(Filter::Check, span);
                self.add(Filter::Not(ch), span)
            }
            ":doublecheck" => {
                let mut alternatives = Vec::new();
                for color in [Color::White, Color::Black] {
                    let tm = self.add(Filter::ToMove(color), span);
                    let king = self.add(
                        Filter::Pieces { mask: PieceMask::piece(color, Role::King), squares: Bitboard::FULL },
                        span,
                    );
                    let enemy_mask = if color.is_white() { PieceMask::BLACK } else { PieceMask::WHITE };
                    let enemies = self.add(Filter::Pieces { mask: enemy_mask, squares: Bitboard::FULL }, span);
                    let checkers =
                        self.add(Filter::Attacks { attackers: enemies, targets: king, value_is_targets: false }, span);
                    let n = self.add(Filter::Count(checkers), span);
                    let two = self.compare(n, Range::Compare(CmpOp::Ge, 2), span);
                    alternatives.push(self.add(Filter::And(vec![tm, two]), span));
                }
                self.add(Filter::Or(alternatives), span)
            }
            ":enpassant" => {
                st.move_kind = MoveKind::EnPassant;
                st.mark_move();
                return Ok(());
            }
            ":noenpassant" => {
                let mut inner = ListState::new();
                inner.move_kind = MoveKind::EnPassant;
                inner.mark_move();
                let m = self.finish(inner, span)?;
                self.add(Filter::Not(m), span)
            }
            ":markall" | ":noannotate" => return Ok(()),
            ":variations" | ":variationsonly" => {
                // In nested lists the scope of the enclosing top-level list applies.
                if top_level {
                    st.scope = if kw == ":variations" { Scope::All } else { Scope::VariationsOnly };
                }
                return Ok(());
            }
            ":not" => {
                if matches!(c.peek(), Some(Item::List { .. })) {
                    let sub = c.take().ok_or_else(|| c.missing(kw, "a position list"))?;
                    let f = self.nested_position_list(sub)?;
                    self.add(Filter::Not(f), span)
                } else {
                    st.negate = !st.negate;
                    return Ok(());
                }
            }
            ":and" | ":or" => {
                let (subs, lspan) = c.list(kw, "a list of `(position …)` lists")?;
                if subs.is_empty() {
                    return Err(err(format!("`{kw}` needs at least one position list"), lspan));
                }
                let mut parts = Vec::new();
                for sub in subs {
                    parts.push(self.nested_position_list(sub)?);
                }
                if kw == ":and" {
                    self.and(parts, span)
                } else {
                    self.add(Filter::Or(parts), span)
                }
            }
            ":sequence" | ":gappedsequence" => {
                let (subs, lspan) = c.list(kw, "a list of `(position …)` lists")?;
                if subs.is_empty() {
                    return Err(err(format!("`{kw}` needs at least one position list"), lspan));
                }
                let gap = if kw == ":gappedsequence" {
                    let t = self.add(Filter::True, span);
                    Some(self.add(Filter::SeqRepeat { body: t, min: 0, max: u32::MAX }, span))
                } else {
                    None
                };
                let mut parts = Vec::new();
                for sub in subs {
                    if let Some(g) = gap {
                        parts.push(g);
                    }
                    parts.push(self.nested_position_list(sub)?);
                }
                let body = self.add(Filter::SeqConcat(parts), lspan);
                self.add(Filter::Line { params: LineParams::default(), body }, span)
            }
            ":piececount" => {
                let (d, ds) = c.designator(kw)?;
                let set = self.designator(&d, ds)?;
                let n = self.add(Filter::Count(set), span);
                let (r, rs) = c.range(kw)?;
                self.compare(n, r, rs)
            }
            ":power" => {
                let (d, ds) = c.designator(kw)?;
                let set = self.designator(&d, ds)?;
                let p = self.add(Filter::Call(Builtin::Power, vec![set]), span);
                let (r, rs) = c.range(kw)?;
                self.compare(p, r, rs)
            }
            ":powerdifference" => self.power_difference(kw, span, c)?,
            ":attackcount" => self.attack_count(kw, span, c)?,
            ":movefrom" => {
                let (d, ds) = c.designator(kw)?;
                let set = self.designator(&d, ds)?;
                st.move_from.push(set);
                st.mark_move();
                return Ok(());
            }
            ":moveto" => {
                let (d, ds) = c.designator(kw)?;
                let set = self.designator(&d, ds)?;
                st.move_to.push(set);
                st.mark_move();
                return Ok(());
            }
            ":promote" => {
                let (d, ds) = c.designator(kw)?;
                let mask = match d.kinds {
                    PieceKinds::Mask(m) => m,
                    PieceKinds::Tag(_) => {
                        return Err(
                            err("`:promote` needs piece types, not a tag", ds).with_hint("write e.g. `:promote [Qq]`")
                        )
                    }
                };
                let mut roles = 0u8;
                for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
                    if mask.contains_piece(Color::White, role) || mask.contains_piece(Color::Black, role) {
                        roles |= 1 << (role as u8);
                    }
                }
                if roles == 0 {
                    return Err(err("`:promote` needs a piece a pawn can promote to", ds)
                        .with_hint("use Q, R, B, N (white) or q, r, b, n (black)"));
                }
                let white = mask.0 & PieceMask::WHITE.0 != 0;
                let black = mask.0 & PieceMask::BLACK.0 != 0;
                if white != black {
                    let color = if white { Color::White } else { Color::Black };
                    let pawn = self
                        .add(Filter::Pieces { mask: PieceMask::piece(color, Role::Pawn), squares: Bitboard::FULL }, ds);
                    st.move_from.push(pawn);
                }
                if d.squares != u64::MAX {
                    let sq = self.add(Filter::Squares(Bitboard(d.squares)), ds);
                    st.move_to.push(sq);
                }
                st.promote |= roles;
                st.mark_move();
                return Ok(());
            }
            ":movenumber" | ":halfmovenumber" => {
                let v = self.add(if kw == ":movenumber" { Filter::MoveNumber } else { Filter::Ply }, span);
                let (r, rs) = c.range(kw)?;
                self.compare(v, r, rs)
            }
            ":result" => {
                let (text, rspan) = c.atom(kw, "a result")?;
                if self.cql1 {
                    // CQL 1.0 (Scidb's note): `:flipcolor` leaves a position list's result alone,
                    // so it is read from the tag text, which colour flips do not touch.
                    self.result_text(text, rspan)?
                } else {
                    self.result_filter(text, rspan)?
                }
            }
            ":elo" | ":whiteelo" | ":blackelo" => self.elo(kw, span, c)?,
            ":matchcount" | ":pretransformmatchcount" => {
                if !top_level {
                    return Err(only_top(kw));
                }
                let (r, _) = c.range(kw)?;
                st.matchcount = Some((r, kw == ":pretransformmatchcount"));
                return Ok(());
            }
            ":nomatch" => {
                if !top_level {
                    return Err(only_top(kw));
                }
                st.nomatch = true;
                return Ok(());
            }
            ":tagmatch" => {
                let (name, nspan) = c.atom(kw, "a tag name")?;
                let var = self.tag_var(name, nspan)?;
                let (d, ds) = c.designator(kw)?;
                if matches!(d.kinds, PieceKinds::Tag(_)) {
                    return Err(err("`:tagmatch` compares a tag with piece types, not with another tag", ds));
                }
                let v = self.add(Filter::Var(var), nspan);
                let set = self.designator(&d, ds)?;
                if set == v {
                    v
                } else {
                    self.add(Filter::Intersection(vec![v, set]), span)
                }
            }
            ":ray" | ":rayorthogonal" | ":raydiagonal" | ":rayhorizontal" | ":rayvertical" | ":rayattack" => {
                self.ray(kw, span, c)?
            }
            ":pawncount" => self.pawn_count(kw, span, c)?,
            ":relation" => {
                let rel = self.relation(kw, span, c)?;
                st.relations.push(rel);
                return Ok(());
            }
            _ => match self.cql_s_position(kw, span, c, st, top_level)? {
                Handled::Conjunct(f) => f,
                Handled::Done => return Ok(()),
                Handled::No => return Err(self.unknown_keyword(kw, span, POSITION_KEYWORDS, "position list")),
            },
        };
        st.conjuncts.push(Some(filter));
        Ok(())
    }

    /// `:powerdifference D range` (white part of D minus black part of D) or the CQL-S
    /// two-designator form `:powerdifference D1 D2 range` (power of D1 minus power of D2).
    fn power_difference(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (d1, s1) = c.designator(kw)?;
        let second = match c.peek().and_then(Item::atom) {
            Some(t) if !starts_range(t) => Some(c.designator(kw)?),
            _ => None,
        };
        let power = |me: &mut Lowerer, d: &Designator, s: Span, part: PieceMask| -> Result<FilterId, Diagnostic> {
            let mask = match d.kinds {
                PieceKinds::Mask(m) => PieceMask(m.0 & part.0),
                PieceKinds::Tag(_) => return Err(err("`:powerdifference` needs piece types, not a tag", s)),
            };
            if mask.0 == 0 || d.squares == 0 {
                return Ok(me.number(0, s));
            }
            let set = me.add(Filter::Pieces { mask, squares: Bitboard(d.squares) }, s);
            Ok(me.add(Filter::Call(Builtin::Power, vec![set]), s))
        };
        let (white, black) = match &second {
            None => (power(self, &d1, s1, PieceMask::WHITE)?, power(self, &d1, s1, PieceMask::BLACK)?),
            Some((d2, s2)) => {
                (power(self, &d1, s1, PieceMask::ANY_PIECE)?, power(self, d2, *s2, PieceMask::ANY_PIECE)?)
            }
        };
        let diff = self.add(Filter::Arith(ArithOp::Sub, white, black), span);
        let (r, rs) = c.range(kw)?;
        Ok(self.compare(diff, r, rs))
    }

    /// `:attackcount D1 D2 range`: the number of (attacker, target) pairs.
    fn attack_count(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (d1, s1) = c.designator(kw)?;
        let (d2, s2) = c.designator(kw)?;
        let (r, rs) = c.range(kw)?;
        let attackers = self.designator(&d1, s1)?;
        let targets = self.designator(&d2, s2)?;
        if matches!(r, Range::Between(0, 0) | Range::Compare(CmpOp::Eq, 0)) {
            let a = self.add(Filter::Attacks { attackers, targets, value_is_targets: false }, span);
            return Ok(self.add(Filter::Not(a), span));
        }
        if is_singular(&d2) {
            // One target: pairs = attackers of it.
            let a = self.add(Filter::Attacks { attackers, targets, value_is_targets: false }, span);
            let n = self.add(Filter::Count(a), span);
            return Ok(self.compare(n, r, rs));
        }
        if is_singular(&d1) {
            // One attacker: pairs = squares of D2 it attacks.
            let a = self.add(Filter::Attacks { attackers, targets, value_is_targets: true }, span);
            let n = self.add(Filter::Count(a), span);
            return Ok(self.compare(n, r, rs));
        }
        // General case: sum, over each attacker square, the targets it attacks.
        let sum = self.fresh_var("attackcount", VarKind::Value);
        let square = self.fresh_var("attacker", VarKind::Square);
        let zero = self.number(0, span);
        let init = self.add(Filter::Assign { var: sum, op: None, value: zero }, span);
        let one = self.add(Filter::Var(square), span);
        let hit = self.add(Filter::Attacks { attackers: one, targets, value_is_targets: true }, span);
        let hits = self.add(Filter::Count(hit), span);
        let add = self.add(Filter::Assign { var: sum, op: Some(ArithOp::Add), value: hits }, span);
        let each = self.add(Filter::SquareIter { var: square, domain: attackers, body: add, forall: true }, span);
        let total = self.add(Filter::Var(sum), span);
        let test = self.compare(total, r, rs);
        Ok(self.add(Filter::And(vec![init, each, test]), span))
    }

    /// `:ray (D1 … Dk) [range]` and its direction variants.
    fn ray(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let (list, lspan) = c.list(kw, "a list of piece designators")?;
        if list.len() < 2 {
            return Err(err(format!("`{kw}` needs at least two designators"), lspan));
        }
        let mut sets = Vec::new();
        for item in list {
            let (text, s) = match item {
                Item::Atom { text, span, .. } => (text.as_str(), *span),
                Item::List { span, .. } => return Err(err("expected a piece designator", *span)),
            };
            let d = parse_designator(text).map_err(|p| from_problem(p, s))?;
            sets.push(self.designator(&d, s)?);
        }
        let range = match c.peek().and_then(Item::atom) {
            Some(t) if starts_range(t) => Some(c.range(kw)?),
            _ => None,
        };
        let dirs = match kw {
            ":rayorthogonal" => Directions::ORTHOGONAL,
            ":raydiagonal" => Directions::DIAGONAL,
            ":rayhorizontal" => Directions::HORIZONTAL,
            ":rayvertical" => Directions::VERTICAL,
            _ => Directions::ANY,
        };
        let ray = if kw == ":rayattack" {
            let role_mask = |roles: &[Role]| {
                roles.iter().fold(PieceMask(0), |m, &r| {
                    m.with(PieceMask::piece(Color::White, r)).with(PieceMask::piece(Color::Black, r))
                })
            };
            let mut alternatives = Vec::new();
            for (dirs, roles) in [
                (Directions::ORTHOGONAL, [Role::Rook, Role::Queen]),
                (Directions::DIAGONAL, [Role::Bishop, Role::Queen]),
            ] {
                let sliders = self.add(Filter::Pieces { mask: role_mask(&roles), squares: Bitboard::FULL }, span);
                let first = self.add(Filter::Intersection(vec![sets[0], sliders]), span);
                let mut these = sets.clone();
                these[0] = first;
                alternatives.push(self.add(Filter::Ray { dirs, sets: these, xray: false }, span));
            }
            self.add(Filter::Union(alternatives), span)
        } else {
            self.add(Filter::Ray { dirs, sets, xray: false }, span)
        };
        Ok(match range {
            None => ray,
            Some((r, rs)) => {
                let n = self.add(Filter::Count(ray), span);
                self.compare(n, r, rs)
            }
        })
    }

    /// `:pawncount [D] attribute[-attribute…] range` (CQL-S). Supported attributes:
    /// `passed`, `isolated`, `connected`, `doubled`, `consecutive(n)`; D defaults to white pawns.
    fn pawn_count(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        let white_pawns =
            Designator { kinds: PieceKinds::Mask(PieceMask::piece(Color::White, Role::Pawn)), squares: u64::MAX };
        let (first, fspan) = c.atom(kw, "pawn attributes")?;
        let (pawns, pspan, attrs, aspan) = match parse_designator(first) {
            Ok(d) => {
                let (a, s) = c.atom(kw, "pawn attributes")?;
                (d, fspan, a, s)
            }
            Err(_) => (white_pawns, span, first, fspan),
        };
        let set = self.pawn_set(&pawns, pspan, attrs, aspan)?;
        let n = self.add(Filter::Count(set), span);
        let (r, rs) = c.range(kw)?;
        Ok(self.compare(n, r, rs))
    }

    /// The pawns of a designator that have every attribute of a `-`-joined list
    /// (`passed`, `isolated`, `connected`, `doubled`, `consecutive(n)`).
    fn pawn_set(&mut self, pawns: &Designator, pspan: Span, attrs: &str, aspan: Span) -> Result<FilterId, Diagnostic> {
        let base = self.designator(pawns, pspan)?;
        let mut set = base;
        for attr in attrs.split('-') {
            set = match attr {
                "passed" | "isolated" | "connected" | "doubled" => {
                    let kind = match attr {
                        "passed" => PawnStructure::Passed,
                        "isolated" => PawnStructure::Isolated,
                        "connected" => PawnStructure::Connected,
                        _ => PawnStructure::Doubled,
                    };
                    let s = self.add(Filter::PawnStructure(kind), aspan);
                    self.add(Filter::Intersection(vec![set, s]), aspan)
                }
                _ => {
                    let n = attr
                        .strip_prefix("consecutive(")
                        .and_then(|r| r.strip_suffix(')'))
                        .and_then(|d| d.parse::<u32>().ok())
                        .filter(|&n| (1..=8).contains(&n))
                        .ok_or_else(|| {
                            err(format!("unsupported pawn attribute `{attr}`"), aspan).with_hint(
                                "supported: passed, isolated, connected, doubled, consecutive(n) with n from 1 to 8",
                            )
                        })?;
                    // Pawns with n-1 pawns of the set directly below them, in a column.
                    let mut run = base;
                    for _ in 1..n {
                        let above = self.add(
                            Filter::Direction {
                                dirs: Directions::UP,
                                min: 1,
                                max: 1,
                                range_variables: (None, None),
                                arg: run,
                            },
                            aspan,
                        );
                        run = self.add(Filter::Intersection(vec![base, above]), aspan);
                    }
                    if set == base {
                        run
                    } else {
                        self.add(Filter::Intersection(vec![set, run]), aspan)
                    }
                }
            };
        }
        Ok(set)
    }

    /// Parse `:relation (…)`: the counts and options a later position must satisfy.
    fn relation(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<Relation, Diagnostic> {
        let (items, lspan) = c.list(kw, "a relation list such as `(:originaldifferentcount 1)`")?;
        let pieces = Designator { kinds: PieceKinds::Mask(PieceMask::ANY_PIECE), squares: u64::MAX };
        let none = Range::Between(0, 0);
        let mut rel = Relation {
            missing: (pieces.clone(), span, none),
            new: (pieces, span, none),
            same: None,
            different: None,
            pattern: false,
            side: SideToMove::Same,
            scope: Scope::MainLine,
            transforms: Vec::new(),
            span: Span::new(span.start as usize, lspan.end as usize),
        };
        let mut rc = Cursor { items, next: 0, list_span: lspan };
        while let Some(item) = rc.take() {
            let (word, wspan) = match item {
                Item::Atom { text, span, quoted: false } => (text.as_str(), *span),
                other => {
                    return Err(err("expected a relation keyword", other.span())
                        .with_hint("a relation list holds keywords such as `:missingpiececount U 0`"))
                }
            };
            match word {
                ":missingpiececount" | ":newpiececount" => {
                    let (d, ds) = rc.designator(word)?;
                    let PieceKinds::Mask(m) = d.kinds else {
                        return Err(err("tags cannot be used together with `:relation`", ds));
                    };
                    let (r, _) = rc.range(word)?;
                    // Only pieces are counted: an empty-square part of D (`.`, `?`) adds nothing.
                    let d = Designator { kinds: PieceKinds::Mask(PieceMask(m.0 & PieceMask::ANY_PIECE.0)), ..d };
                    if word == ":missingpiececount" {
                        rel.missing = (d, ds, r);
                    } else {
                        rel.new = (d, ds, r);
                    }
                }
                ":originalsamecount" => rel.same = Some(rc.range(word)?.0),
                ":originaldifferentcount" => rel.different = Some(rc.range(word)?.0),
                ":pattern" => rel.pattern = true,
                ":samesidetomove" => rel.side = SideToMove::Same,
                ":changesidetomove" => rel.side = SideToMove::Change,
                ":ignoresidetomove" => rel.side = SideToMove::Ignore,
                ":variations" => rel.scope = Scope::All,
                ":variationsonly" => rel.scope = Scope::VariationsOnly,
                _ if relmap::RELATION_TRANSFORMS.contains(&word) => {
                    rel.transforms.push(word.to_string());
                    if relmap::compose(&rel.transforms).len() > relmap::MAX_MAPS {
                        return Err(err(
                            format!("the transforms of this `:relation` give more than {} images", relmap::MAX_MAPS),
                            wspan,
                        )
                        .with_hint("combine at most one `:shift…` with `:flip…` keywords of two images each"));
                    }
                }
                _ if transform_kind(word).is_some() => {
                    return Err(err(format!("`{word}` inside `:relation` is not supported by this engine"), wspan)
                        .with_hint("inside `:relation` only the board transforms `:flip…` and `:shift…` are taken"))
                }
                _ => {
                    let d = err(format!("unknown relation keyword `{word}`"), wspan);
                    return Err(match nearest(word, RELATION_KEYWORDS) {
                        Some(n) => d.with_hint(format!("did you mean `{n}`?")),
                        None => d.with_hint(format!("a relation list takes {}", RELATION_KEYWORDS.join(" "))),
                    });
                }
            }
        }
        Ok(rel)
    }

    /// Lower a relation into `echo (s t)`: t is a later position (s ≺ t) in the relation's
    /// scope, the side to move and the square counts compare s's board with t's.
    fn relation_filter(&mut self, rel: &Relation, designators: &[FilterId]) -> FilterId {
        let span = rel.span;
        let s = self.fresh_var("relation", VarKind::Position);
        let t = self.fresh_var("relation", VarKind::Position);
        let sv = self.add(Filter::Var(s), span);
        let tv = self.add(Filter::Var(t), span);
        let at_s = |me: &mut Lowerer, body: FilterId| me.add(Filter::AtPosition { at: sv, body }, span);
        let mut parts = vec![self.add(Filter::TreeRelation(TreeRelation::Ancestor, sv, tv), span)];
        match rel.scope {
            Scope::MainLine => parts.push(self.add(Filter::Mainline, span)),
            Scope::VariationsOnly => parts.push(self.add(Filter::Variation, span)),
            Scope::All => {}
        }
        if rel.side != SideToMove::Ignore {
            let white_now = self.add(Filter::ToMove(Color::White), span);
            let white_then = at_s(self, white_now);
            let black_now = self.add(Filter::ToMove(Color::Black), span);
            let black_then = at_s(self, black_now);
            let (a, b) = if rel.side == SideToMove::Same { (white_now, black_now) } else { (black_now, white_now) };
            let first = self.add(Filter::And(vec![white_then, a]), span);
            let second = self.add(Filter::And(vec![black_then, b]), span);
            parts.push(self.add(Filter::Or(vec![first, second]), span));
        }
        let maps = relmap::compose(&rel.transforms);
        let mut images = Vec::with_capacity(maps.len());
        for map in &maps {
            let counts = self.relation_counts(rel, designators, sv, map);
            images.push(self.and(counts, span));
        }
        parts.push(match images.len() {
            1 => images[0],
            _ => self.add(Filter::Or(images), span),
        });
        let body = self.add(Filter::And(parts), span);
        self.add(
            Filter::Echo {
                source: s,
                target: t,
                in_all: false,
                variations: rel.scope != Scope::MainLine,
                marks: false,
                body,
            },
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
        let empty_now = self.add(Filter::Pieces { mask: PieceMask::EMPTY, squares: Bitboard::FULL }, span);
        // P1's sets, carried through the map: `then(X)` is the image of X at s.
        let then = |me: &mut Lowerer, x: FilterId| {
            let at = me.add(Filter::AtPosition { at: sv, body: x }, span);
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
            let occupied = self.add(Filter::Pieces { mask: PieceMask::ANY_PIECE, squares: Bitboard::FULL }, span);
            let carried = then(self, occupied);
            self.add(Filter::Complement(carried), span)
        };
        // Pieces of P1 (matching D) whose squares are empty in P2, and the reverse.
        for (sets, (d, ds, range)) in [(true, &rel.missing), (false, &rel.new)] {
            // A designator made of checked parts cannot fail here (no tags).
            let set = self.designator(d, *ds).unwrap_or(empty_now);
            let vanished = if sets {
                let before = then(self, set);
                self.add(Filter::Intersection(vec![before, empty_now]), span)
            } else {
                self.add(Filter::Intersection(vec![set, empty_then]), span)
            };
            let n = self.add(Filter::Count(vanished), span);
            parts.push(self.compare(n, *range, span));
        }
        if rel.same.is_some() || rel.different.is_some() {
            // Squares holding the same piece in both positions.
            let mut same_parts = Vec::new();
            for color in [Color::White, Color::Black] {
                for role in Role::ALL {
                    let p =
                        self.add(Filter::Pieces { mask: PieceMask::piece(color, role), squares: Bitboard::FULL }, span);
                    let before = then(self, p);
                    same_parts.push(self.add(Filter::Intersection(vec![before, p]), span));
                }
            }
            let mut same = self.add(Filter::Union(same_parts), span);
            let occupied_now = self.add(Filter::Pieces { mask: PieceMask::ANY_PIECE, squares: Bitboard::FULL }, span);
            let occupied_then = then(self, occupied_now);
            let mut original = occupied_then;
            if rel.pattern {
                let pattern = match designators.len() {
                    0 => self.add(Filter::False, span),
                    1 => designators[0],
                    _ => self.add(Filter::Union(designators.to_vec()), span),
                };
                let allowed = then(self, pattern);
                same = self.add(Filter::Intersection(vec![same, allowed]), span);
                original = self.add(Filter::Intersection(vec![occupied_then, allowed]), span);
            }
            if let Some(r) = rel.same {
                let n = self.add(Filter::Count(same), span);
                parts.push(self.compare(n, r, span));
            }
            if let Some(r) = rel.different {
                let not_same = self.add(Filter::Complement(same), span);
                let differ = self.add(Filter::Intersection(vec![original, not_same]), span);
                let n = self.add(Filter::Count(differ), span);
                parts.push(self.compare(n, r, span));
            }
        }
        parts
    }
}
