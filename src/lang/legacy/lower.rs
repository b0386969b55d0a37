//! Lowering of a legacy `(match …)` list to the shared IR: the lists and how they are put
//! together. Each keyword's own lowering lives in the module of its family, and
//! [`keywords::KEYWORDS`] says which keywords exist, where each may stand and what lowers it.
//!
//! Takes in: the item tree made by [`super::syntax`]. Gives out: an [`Ir`] whose root is
//! evaluated once per game (`settings.per_game`): the conjunction of the match-list
//! conditions and one `Find` per position list, wrapped in one `IdentityIter` per tag.
//! Must never: evaluate anything, expand transforms (`ir::transform` does), or panic on
//! any script — every problem becomes a [`Diagnostic`].
//!
//! Families, one module each: `header` (the game's PGN tags), `game` (facts about the whole
//! game and the match list's settings), `logic` (`:and`, `:or`, `:xor`, `:not`, `:cond`,
//! `:match`), `facts` (the position's state), `material` (pieces, counts, rays, pawns),
//! `moves` (the next move and `:line`), `search` (how a list searches the game: counts,
//! sequences, `:cut`), `transforms` (board transforms and accumulators), `relation`
//! (`:relation (…)`).

use crate::ir::{GameTreeFilter, LogicFilter, NumberFilter, PositionStateFilter, SetFilter, VariableFilter};
use shakmaty::{Bitboard, Color, Role};

use super::designator::{parse_designator, parse_range, starts_range, Designator, PieceKinds, Problem, Range};
use super::syntax::Item;
use crate::diag::Diagnostic;
use crate::diag::Span;
use crate::ir::{
    CmpOp, Filter, FilterId, FindDirection, GameResult, Ir, MoveKind, PieceMask, TransformKind, TreeStep, VarId,
    VarKind,
};
use keywords::{InMatch, InPosition, Place};
use relation::Relation;

mod facts;
mod game;
mod header;
pub mod keywords;
mod logic;
mod material;
mod moves;
mod relation;
mod search;
mod transforms;

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
            _ => self.add(Filter::Logic(LogicFilter::And(parts)), span),
        }
    }

    /// Put `first` in front of a conjunction, flattening a plain `And`.
    fn and_front(&mut self, first: FilterId, body: FilterId, span: Span) -> FilterId {
        let mut parts = vec![first];
        match self.ir.get(body) {
            Filter::Logic(LogicFilter::And(v)) => parts.extend(v.iter().copied()),
            Filter::True => {}
            _ => parts.push(body),
        }
        self.and(parts, span)
    }

    fn number(&mut self, n: i64, span: Span) -> FilterId {
        self.add(Filter::Numbers(NumberFilter::Number(n)), span)
    }

    /// `value` compared with a range: `x == n`, `x >= n`, `n <= x <= m`, `x op n`.
    fn compare(&mut self, value: FilterId, range: Range, span: Span) -> FilterId {
        match range {
            Range::Any => value,
            Range::Compare(op, n) => {
                let n = self.number(n, span);
                self.add(Filter::Numbers(NumberFilter::Compare { first: value, rest: vec![(op, n)] }), span)
            }
            Range::Between(lo, hi) if lo == hi => {
                let n = self.number(lo, span);
                self.add(Filter::Numbers(NumberFilter::Compare { first: value, rest: vec![(CmpOp::Eq, n)] }), span)
            }
            Range::Between(lo, i64::MAX) => {
                let n = self.number(lo, span);
                self.add(Filter::Numbers(NumberFilter::Compare { first: value, rest: vec![(CmpOp::Ge, n)] }), span)
            }
            Range::Between(lo, hi) => {
                let lo = self.number(lo, span);
                let hi = self.number(hi, span);
                self.add(
                    Filter::Numbers(NumberFilter::Compare {
                        first: lo,
                        rest: vec![(CmpOp::Le, value), (CmpOp::Le, hi)],
                    }),
                    span,
                )
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
                let v = self.add(Filter::Variables(VariableFilter::Var(var)), span);
                if d.squares == u64::MAX {
                    Ok(v)
                } else {
                    let sq = self.add(Filter::Sets(SetFilter::Squares(Bitboard(d.squares))), span);
                    Ok(self.add(Filter::Sets(SetFilter::Intersection(vec![v, sq])), span))
                }
            }
            PieceKinds::Mask(m) if *m == PieceMask::ANYTHING => {
                Ok(self.add(Filter::Sets(SetFilter::Squares(Bitboard(d.squares))), span))
            }
            PieceKinds::Mask(m) => {
                Ok(self.add(Filter::Sets(SetFilter::Pieces { mask: *m, squares: Bitboard(d.squares) }), span))
            }
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
        let tags = self.declare_tags(items, span)?;
        if !tags.is_empty() {
            if let Some(rel) = items.iter().skip(1).find_map(|item| match item {
                Item::List { items: sub, .. } => first_relation(sub),
                _ => None,
            }) {
                return Err(err("tags cannot be used together with `:relation`", rel));
            }
        }
        let mut options = MatchOptions::default();
        let (mut conditions, lists) = self.match_items(items, span, &mut options)?;
        let any_variations =
            options.variations || self.game_variations || lists.iter().any(|l| l.scope != Scope::MainLine);
        if any_variations {
            self.ir.settings.variations = true;
        }
        // Scope conjuncts first: `:cut` and `:exclude` conditions use the scoped bodies.
        let scoped: Vec<FilterId> =
            lists.iter().map(|list| self.scoped_body(list, any_variations, options.variations)).collect();
        let cut_guard = self.cut_guard(&lists, &scoped, span);
        let excludes: Vec<FilterId> =
            lists.iter().zip(&scoped).filter_map(|(list, &body)| list.exclude.map(|e| e.unwrap_or(body))).collect();
        for (list, body) in lists.into_iter().zip(scoped) {
            let find = self.list_find(&list, body, cut_guard);
            conditions.push(find);
        }
        // `:exclude`: a game where an exclude condition holds anywhere does not match.
        for e in excludes {
            let anywhere = self.add(
                Filter::GameTree(GameTreeFilter::Find {
                    direction: FindDirection::Forward,
                    all: false,
                    range: None,
                    quiet: true,
                    body: e,
                }),
                span,
            );
            conditions.push(self.add(Filter::Logic(LogicFilter::Not(anywhere)), span));
        }
        let mut root = self.and(conditions, span);
        if std::mem::take(&mut self.not_flag) {
            root = self.add(Filter::Logic(LogicFilter::Not(root)), span);
        }
        if options.either_color {
            root = self
                .add(Filter::Transform { kind: TransformKind::FlipColor, range: None, count: false, body: root }, span);
        }
        for &(var, mask) in tags.iter().rev() {
            root = self.add(Filter::Variables(VariableFilter::IdentityIter { var, mask, body: root }), span);
        }
        Ok(root)
    }

    /// Declare the tags of the match list's `:forany name D` keywords (at most two).
    fn declare_tags(&mut self, items: &[Item], span: Span) -> Result<Vec<(VarId, PieceMask)>, Diagnostic> {
        let mut tags = Vec::new();
        for (i, item) in items.iter().enumerate().skip(1) {
            if item.atom() != Some(":forany") {
                continue;
            }
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
        Ok(tags)
    }

    /// Read the items of the outer match list: its conditions, in source order, and its
    /// position lists; settings go to `options` and the IR's settings.
    fn match_items(
        &mut self,
        items: &[Item],
        span: Span,
        options: &mut MatchOptions,
    ) -> Result<(Vec<FilterId>, Vec<TopList>), Diagnostic> {
        let mut conditions = Vec::new();
        let mut lists = Vec::new();
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
                Item::Atom { text, span: kspan, .. } => match keywords::find(text).and_then(|k| k.in_match.as_ref()) {
                    Some(InMatch::Setting(setting)) => setting(self, text, &mut c, options)?,
                    _ => conditions.push(self.header_keyword(text, *kspan, &mut c)?),
                },
            }
        }
        Ok((conditions, lists))
    }

    /// A top-level list's body with the conjunct that keeps it in its scope: `Mainline`
    /// when other lists search variations, `Variation` for `:variationsonly`.
    fn scoped_body(&mut self, list: &TopList, any_variations: bool, global_variations: bool) -> FilterId {
        match list.scope {
            Scope::MainLine if any_variations && !global_variations => {
                let m = self.add(Filter::PositionState(PositionStateFilter::Mainline), list.span);
                self.and_front(m, list.body, list.span)
            }
            Scope::VariationsOnly => {
                let v = self.add(Filter::PositionState(PositionStateFilter::Variation), list.span);
                self.and_front(v, list.body, list.span)
            }
            _ => list.body,
        }
    }

    /// `:cut`: no list looks past the first position where a cut condition holds. The
    /// guard holds where no cut condition held at an earlier position.
    fn cut_guard(&mut self, lists: &[TopList], scoped: &[FilterId], span: Span) -> Option<FilterId> {
        let cuts: Vec<FilterId> =
            lists.iter().zip(scoped).filter_map(|(list, &body)| list.cut.map(|c| c.unwrap_or(body))).collect();
        if cuts.is_empty() {
            return None;
        }
        let any = if cuts.len() == 1 { cuts[0] } else { self.add(Filter::Logic(LogicFilter::Or(cuts)), span) };
        let earlier = self.add(
            Filter::GameTree(GameTreeFilter::Find {
                direction: FindDirection::Backward,
                all: false,
                range: None,
                quiet: true,
                body: any,
            }),
            span,
        );
        let parent = self.add(Filter::GameTree(GameTreeFilter::Tree(TreeStep::Parent)), span);
        let before = self.add(Filter::GameTree(GameTreeFilter::AtPosition { at: parent, body: earlier }), span);
        Some(self.add(Filter::Logic(LogicFilter::Not(before)), span))
    }

    /// The search of one top-level list through the game: a `Find` (with its match count)
    /// or a repetition search, under the list's outer transforms and `:nomatch`.
    fn list_find(&mut self, list: &TopList, mut body: FilterId, cut_guard: Option<FilterId>) -> FilterId {
        if self.cql1 {
            // CQL 1.0 does not search the start position (Scidb's CQL-Syntax page).
            let initial = self.add(Filter::PositionState(PositionStateFilter::Initial), list.span);
            let not_initial = self.add(Filter::Logic(LogicFilter::Not(initial)), list.span);
            body = self.and_front(not_initial, body, list.span);
        }
        if let Some(guard) = cut_guard {
            body = self.add(Filter::Logic(LogicFilter::And(vec![body, guard])), list.span);
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
                    Filter::GameTree(GameTreeFilter::Find {
                        direction: FindDirection::Forward,
                        all,
                        range,
                        quiet: true,
                        body,
                    }),
                    list.span,
                )
            }
        };
        for &kind in &list.outer_transforms {
            find = self.add(Filter::Transform { kind, range: None, count: false, body: find }, list.span);
        }
        if list.nomatch {
            find = self.add(Filter::Logic(LogicFilter::Not(find)), list.span);
        }
        find
    }

    /// A match-list keyword that is a condition on the game (`!:kw` negates one).
    fn header_keyword(&mut self, kw: &str, span: Span, c: &mut Cursor) -> Result<FilterId, Diagnostic> {
        if let Some(rest) = kw.strip_prefix('!') {
            // CQL-S: `!:kw` negates one match-list keyword.
            if !rest.starts_with(':') || rest == ":not" {
                return Err(
                    err(format!("`{kw}` cannot be negated with `!`"), span).with_hint("write e.g. `!:ischess960`")
                );
            }
            let f = self.header_keyword(rest, span, c)?;
            return Ok(self.add(Filter::Logic(LogicFilter::Not(f)), span));
        }
        let keyword = keywords::find(kw);
        if let Some(d) = keyword.and_then(|k| k.refusal(span)) {
            return Err(d);
        }
        match keyword.and_then(|k| k.in_match.as_ref()) {
            Some(InMatch::Test(lower)) => lower(self, kw, span, c),
            Some(InMatch::Setting(_)) => Err(err(format!("`{kw}` is a setting of the outer match list"), span)
                .with_hint("write it directly in the outer `(match …)` list, without `!`")),
            None => Err(keywords::unknown(kw, span, Place::MatchList)),
        }
    }

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
        Ok(if negated { self.add(Filter::Logic(LogicFilter::Not(all)), span) } else { all })
    }

    /// The `[Result]` tag's text is one of the results of a comma list (not flipped by
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
            body = self.add(Filter::Logic(LogicFilter::Not(body)), span);
        }
        Ok(body)
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
                        let not = self.add(Filter::Logic(LogicFilter::Not(f)), *aspan);
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

    /// One position-list keyword and its parameters, lowered by its entry in the table.
    fn position_keyword(
        &mut self,
        kw: &str,
        span: Span,
        c: &mut Cursor,
        st: &mut ListState,
        top_level: bool,
    ) -> Result<(), Diagnostic> {
        let keyword = keywords::find(kw);
        if let Some(d) = keyword.and_then(|k| k.refusal(span)) {
            return Err(d);
        }
        match keyword.and_then(|k| k.in_position.as_ref()) {
            Some(InPosition::Test(lower)) => {
                let f = lower(self, kw, span, c)?;
                st.conjuncts.push(Some(f));
                Ok(())
            }
            Some(InPosition::Part(read)) => read(self, kw, span, c, st, top_level),
            None => Err(keywords::unknown(kw, span, Place::PositionList)),
        }
    }
}

/// The settings the outer match list's keywords make (they are not conditions).
#[derive(Default)]
struct MatchOptions {
    /// `:variations`: every list also searches variations.
    variations: bool,
    /// `:eithercolor`: the whole match list under a colour flip.
    either_color: bool,
}

/// The first `:relation` keyword anywhere inside `items`.
fn first_relation(items: &[Item]) -> Option<Span> {
    items.iter().find_map(|x| match x {
        Item::Atom { text, span, quoted: false } if text == ":relation" || text == "!:relation" => Some(*span),
        Item::List { items, .. } => first_relation(items),
        _ => None,
    })
}

/// The error for a keyword that only a position list directly inside the match list takes.
fn only_top(kw: &str, span: Span) -> Diagnostic {
    err(format!("`{kw}` is only allowed in a position list directly inside the match list"), span)
}
