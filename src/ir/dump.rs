//! `--dump-ir`: a readable, deterministic listing of an [`Ir`](super::Ir).
//!
//! Takes in: an [`Ir`] (usually after `ir::transform::expand`).
//! Gives out: text — a `settings:` line, a `variables:` block, then the tree under
//! `ir.root` as an indented outline, one node per line, children indented by two spaces
//! and named by their field where the field has a name (`from:`, `body:` …). A node with
//! children that is used more than once is printed in full the first time as `#N = …`
//! and afterwards only as `#N`. Labels are numbered in print order, never from arena ids,
//! so two IRs that mean the same print the same text whatever order they were built in.
//! Squares print as CQL square sets (`a-h8`, `[a1,h8]`), piece kinds as CQL letters
//! (`[RQ]`, `A`, `_`), directions by their CQL names.
//! Must never: change the IR, print anything itself, or recurse without bound.

use crate::ir::{
    GameTreeFilter, GeometryFilter, HeaderFilter, Keyword62Filter, LogicFilter, NumberFilter, OutputFilter,
    PositionStateFilter, SetFilter, VariableFilter,
};
use rustc_hash::FxHashMap as HashMap;
use std::fmt::Write as _;

use shakmaty::{Bitboard, Color};

use super::transform::MAX_DEPTH;
use super::visit::children;
use super::{
    ArithOp, CmpOp, Directions, Filter, FilterId, GameResult, HeaderField, Ir, MoveKind, MoveSource, MoveValue,
    PieceMask, Settings, VarId, VarKind,
};

/// The whole listing of a query: settings, variables, and the filter tree.
pub fn dump(ir: &Ir) -> String {
    let mut out = String::new();
    out.push_str(&settings_line(&ir.settings));
    out.push('\n');
    if ir.vars.is_empty() {
        out.push_str("variables: none\n");
    } else {
        out.push_str("variables:\n");
        for (i, info) in ir.vars.iter().enumerate() {
            let kind = kind_word(info.kind);
            let persistent = if info.persistent { " persistent" } else { "" };
            let _ = writeln!(out, "  {}: {kind}{persistent}", var_name(ir, VarId(i as u32)));
        }
    }
    match ir.root {
        None => out.push_str("tree: none\n"),
        Some(root) => {
            out.push_str("tree:\n");
            let mut printer = Printer { ir, uses: use_counts(ir, root), labels: HashMap::default(), out };
            printer.node(root, "", 1);
            out = printer.out;
        }
    }
    out
}

/// The `cql(...)` options as one line, every field shown so two dumps compare line by line.
fn settings_line(s: &Settings) -> String {
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let (low, high) = s.matchcount;
    let mut line = format!(
        "settings: matchcount {low}..{} | variations {} | silent {} | quiet {} | per-game {}",
        if high == u64::MAX { String::new() } else { high.to_string() },
        yes_no(s.variations),
        yes_no(s.silent),
        yes_no(s.quiet),
        yes_no(s.per_game),
    );
    if !s.input.is_empty() {
        let _ = write!(line, " | input {:?}", s.input);
    }
    if let Some(o) = &s.output {
        let _ = write!(line, " | output {o:?}");
    }
    if let Some(m) = &s.matchstring {
        let _ = write!(line, " | matchstring {m:?}");
    }
    if let Some((a, b)) = s.gamenumber {
        let _ = write!(line, " | gamenumber {a}..{b}");
    }
    if let Some(r) = s.result {
        let _ = write!(line, " | result {}", result_text(r));
    }
    line
}

/// How many times each node is reached as a child, counting each distinct node's
/// children once (a shared sub-tree is printed once, so its children are too).
fn use_counts(ir: &Ir, root: FilterId) -> HashMap<FilterId, usize> {
    let mut uses: HashMap<FilterId, usize> = HashMap::default();
    uses.insert(root, 1);
    let mut visited = rustc_hash::FxHashSet::default();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if !visited.insert(id) {
            continue;
        }
        for child in children(ir.get(id)) {
            *uses.entry(child).or_insert(0) += 1;
            stack.push(child);
        }
    }
    uses
}

struct Printer<'a> {
    ir: &'a Ir,
    uses: HashMap<FilterId, usize>,
    labels: HashMap<FilterId, usize>,
    out: String,
}

impl Printer<'_> {
    fn node(&mut self, id: FilterId, field: &str, depth: usize) {
        let indent = "  ".repeat(depth);
        let prefix = if field.is_empty() { String::new() } else { format!("{field}: ") };
        if depth > MAX_DEPTH {
            let _ = writeln!(self.out, "{indent}{prefix}… (nested too deeply to print)");
            return;
        }
        if let Some(label) = self.labels.get(&id) {
            let _ = writeln!(self.out, "{indent}{prefix}#{label}");
            return;
        }
        let filter = self.ir.get(id);
        let kids = labeled_children(filter);
        let mut label_text = String::new();
        if !kids.is_empty() && self.uses.get(&id).copied().unwrap_or(0) > 1 {
            let label = self.labels.len() + 1;
            self.labels.insert(id, label);
            label_text = format!("#{label} = ");
        }
        let _ = writeln!(self.out, "{indent}{prefix}{label_text}{}", head(self.ir, filter));
        for (name, child) in kids {
            self.node(child, name, depth + 1);
        }
    }
}

/// The children of a node with the names of their fields (empty for list elements).
fn labeled_children(filter: &Filter) -> Vec<(&'static str, FilterId)> {
    let opt = |name: &'static str, o: &Option<FilterId>| o.map(|c| (name, c));
    match filter {
        Filter::Geometry(GeometryFilter::Attacks { attackers, targets, .. }) => {
            vec![("attackers", *attackers), ("targets", *targets)]
        }
        Filter::Geometry(GeometryFilter::PinOf { from, through, to, .. }) => {
            [opt("from", from), opt("through", through), opt("to", to)].into_iter().flatten().collect()
        }
        Filter::Numbers(NumberFilter::Compare { first, rest }) => {
            let mut v = vec![("", *first)];
            v.extend(rest.iter().map(|&(op, c)| (cmp_text(op), c)));
            v
        }
        Filter::Numbers(NumberFilter::Contains { haystack, needle, .. }) => {
            vec![("haystack", *haystack), ("needle", *needle)]
        }
        Filter::Logic(LogicFilter::If { cond, then, otherwise }) => {
            let mut v = vec![("if", *cond), ("then", *then)];
            v.extend(opt("else", otherwise));
            v
        }
        Filter::Move(m) => [opt("from", &m.from), opt("to", &m.to), opt("capture", &m.capture), opt("then", &m.then)]
            .into_iter()
            .flatten()
            .collect(),
        Filter::GameTree(GameTreeFilter::AtPosition { at, body }) => vec![("at", *at), ("body", *body)],
        Filter::Variables(
            VariableFilter::SquareIter { domain, body, .. } | VariableFilter::PieceIter { domain, body, .. },
        ) => {
            vec![("in", *domain), ("body", *body)]
        }
        Filter::Variables(VariableFilter::While { cond, body }) => {
            let mut v: Vec<_> = opt("while", cond).into_iter().collect();
            v.push(("body", *body));
            v
        }
        Filter::Output(OutputFilter::SetTag(name, value)) => vec![("tag", *name), ("value", *value)],
        other => children(other).into_iter().map(|c| ("", c)).collect(),
    }
}

/// A variable as the dump names it: a persistent one by the name the user wrote (it is
/// printed by that name at the end of a run), any other by its kind and number
/// (`piece1`, `square2` …), since its spelling is not part of the query's meaning.
fn var_name(ir: &Ir, var: VarId) -> String {
    let Some(info) = ir.vars.get(var.0 as usize) else { return format!("${}", var.0) };
    if info.persistent {
        return info.name.clone();
    }
    format!("{}{}", kind_word(info.kind).replace(' ', ""), var.0 + 1)
}

/// What a variable holds, in words (`square`, `local dictionary` …).
fn kind_word(kind: VarKind) -> &'static str {
    match kind {
        VarKind::Square => "square",
        VarKind::Piece => "piece",
        VarKind::Value => "value",
        VarKind::Position => "position",
        VarKind::Dictionary { local: false } => "dictionary",
        VarKind::Dictionary { local: true } => "local dictionary",
    }
}

/// `Debug` of a plain enum, lower-cased: the stable spelling of names like `puremate`.
fn lower<T: std::fmt::Debug>(value: T) -> String {
    format!("{value:?}").to_lowercase()
}

fn color_text(c: Color) -> &'static str {
    if c.is_white() {
        "white"
    } else {
        "black"
    }
}

fn result_text(r: GameResult) -> &'static str {
    match r {
        GameResult::WhiteWins => "1-0",
        GameResult::BlackWins => "0-1",
        GameResult::Draw => "1/2-1/2",
    }
}

fn cmp_text(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
        CmpOp::Ge => ">=",
        CmpOp::Gt => ">",
    }
}

fn range_text(low: i64, high: i64) -> String {
    if high == i64::MAX {
        format!("{low}..")
    } else {
        format!("{low}..{high}")
    }
}

/// The one-line description of a node, without its children.
// long: one exhaustive match, a line per filter variant, read whole as the dump's table
fn head(ir: &Ir, filter: &Filter) -> String {
    match filter {
        Filter::True => "true".into(),
        Filter::False => "false".into(),
        Filter::Numbers(NumberFilter::Number(n)) => n.to_string(),
        Filter::Numbers(NumberFilter::Str(s)) => format!("{s:?}"),
        Filter::Sets(SetFilter::Squares(bb)) => format!("Squares {}", squares_text(*bb)),
        Filter::Sets(SetFilter::Pieces { mask, squares }) => {
            if *squares == Bitboard::FULL {
                format!("Pieces {}", mask_text(*mask))
            } else {
                format!("Pieces {}{}", mask_text(*mask), squares_text(*squares))
            }
        }
        Filter::Geometry(GeometryFilter::Direction { dirs, min, max, range_variables, .. }) => {
            let end = |n: i8, var: Option<VarId>| var.map_or(n.to_string(), |v| format!("var{}", v.0));
            format!(
                "Direction {} {}..{}",
                directions_text(*dirs),
                end(*min, range_variables.0),
                end(*max, range_variables.1)
            )
        }
        Filter::Geometry(GeometryFilter::Attacks { value_is_targets, .. }) => {
            if *value_is_targets {
                "AttackedBy (value: targets)".into()
            } else {
                "Attacks".into()
            }
        }
        Filter::Geometry(GeometryFilter::AttackChain { value_is_last, .. }) => {
            if *value_is_last {
                "AttackChain (value: last)".into()
            } else {
                "AttackChain".into()
            }
        }
        Filter::Geometry(GeometryFilter::Ray { dirs, xray, .. }) => {
            format!("{} {}", if *xray { "XRay" } else { "Ray" }, directions_text(*dirs))
        }
        Filter::Sets(SetFilter::PawnStructure(p)) => format!("PawnStructure {}", lower(p)),
        Filter::Numbers(NumberFilter::Arith(op, ..)) => {
            let sign = match op {
                ArithOp::Add => "+",
                ArithOp::Sub => "-",
                ArithOp::Mul => "*",
                ArithOp::Div => "/",
                ArithOp::Rem => "%",
            };
            format!("Arith {sign}")
        }
        Filter::Numbers(NumberFilter::Call(builtin, _)) => format!("Call {}", lower(builtin)),
        Filter::Numbers(NumberFilter::RegexMatch { pattern, .. }) => format!("RegexMatch {pattern:?}"),
        Filter::Numbers(NumberFilter::RegexGroup(n)) => format!("RegexGroup \\{n}"),
        Filter::Numbers(NumberFilter::RegexGroupStart(n)) => format!("RegexGroupStart \\-{n}"),
        Filter::Numbers(NumberFilter::Contains { ignore_case, .. }) => {
            if *ignore_case {
                "Contains (ignoring case)".into()
            } else {
                "Contains".into()
            }
        }
        Filter::PositionState(PositionStateFilter::ToMove(c)) => format!("ToMove {}", color_text(*c)),
        Filter::Move(m) => {
            let mut text = format!(
                "Move {}",
                match m.source {
                    MoveSource::Next => "next",
                    MoveSource::Previous => "previous",
                    MoveSource::Legal => "legal",
                    MoveSource::Pseudolegal => "pseudolegal",
                }
            );
            let kind = match m.kind {
                MoveKind::Any => "",
                MoveKind::CastleKingside => " o-o",
                MoveKind::CastleQueenside => " o-o-o",
                MoveKind::Castle => " castle",
                MoveKind::EnPassant => " enpassant",
                MoveKind::Null => " null",
            };
            text.push_str(kind);
            if m.promote != 0 {
                let letters: String = [(1u8, 'P'), (2, 'N'), (3, 'B'), (4, 'R'), (5, 'Q'), (6, 'K')]
                    .iter()
                    .filter(|(bit, _)| m.promote & (1 << bit) != 0)
                    .map(|&(_, c)| c)
                    .collect();
                let _ = write!(text, " promote {letters}");
            }
            if m.line != super::LineChoice::Any {
                let _ = write!(text, " {}", lower(m.line));
            }
            match m.value {
                MoveValue::To => {}
                MoveValue::From => text.push_str(" (value: from)"),
                MoveValue::Count => text.push_str(" (value: count)"),
                MoveValue::Then => text.push_str(" (value: target)"),
            }
            text
        }
        Filter::Header(HeaderFilter::Field(field)) => match field {
            HeaderField::Player(c) => format!("Header player {}", color_text(*c)),
            HeaderField::Elo(c) => format!("Header elo {}", color_text(*c)),
            HeaderField::Tag(name) => format!("Header tag {name:?}"),
            other => format!("Header {}", lower(other)),
        },
        Filter::Header(HeaderFilter::Result(r)) => format!("Result {}", result_text(*r)),
        Filter::GameTree(GameTreeFilter::Find { direction, all, range, quiet, .. }) => {
            let mut text = format!("Find {}", lower(direction));
            if *quiet {
                text.push_str(" quiet");
            }
            if *all {
                text.push_str(" all");
            }
            if let Some((a, b)) = range {
                let _ = write!(text, " {}", range_text(*a, *b));
            }
            text
        }
        Filter::GameTree(GameTreeFilter::Tree(step)) => format!("Tree {}", lower(step)),
        Filter::GameTree(GameTreeFilter::TreeRelation(rel, ..)) => format!("TreeRelation {}", lower(rel)),
        Filter::GameTree(GameTreeFilter::Line { params, .. }) => {
            let mut text = String::from(if params.backward { "Line <--" } else { "Line -->" });
            for (on, word) in [
                (params.first_match, "firstmatch"),
                (params.last_position, "lastposition"),
                (params.single_color, "singlecolor"),
                (params.nest_ban, "nestban"),
                (params.primary, "primary"),
                (params.secondary, "secondary"),
                (params.quiet, "quiet"),
            ] {
                if on {
                    let _ = write!(text, " {word}");
                }
            }
            text
        }
        Filter::GameTree(GameTreeFilter::Path { params, focus, best, title, .. }) => {
            let mut text = String::from("Path");
            if let Some(title) = title {
                let _ = write!(text, " title {title:?}");
            }
            for (on, word) in [
                (focus.is_some(), "focus"),
                (params.focus_capture, "capture"),
                (best.is_some(), "max"),
                (params.keep_all_best, "keepallbest"),
                (params.piece_path, "piecepath"),
                (params.verbose, "verbose"),
                (params.first_match, "firstmatch"),
                (params.last_position, "lastposition"),
                (params.nest_ban, "nestban"),
                (params.primary, "primary"),
                (params.secondary, "secondary"),
                (params.quiet, "quiet"),
            ] {
                if on {
                    let _ = write!(text, " {word}");
                }
            }
            text
        }
        Filter::GameTree(GameTreeFilter::PathStatus(status)) => format!("PathStatus {}", lower(status)),
        Filter::GameTree(GameTreeFilter::SeqRepeat { min, max, .. }) => {
            if *max == u32::MAX {
                format!("SeqRepeat {{{min},}}")
            } else {
                format!("SeqRepeat {{{min},{max}}}")
            }
        }
        Filter::GameTree(GameTreeFilter::Echo { source, target, in_all, marks, .. }) => format!(
            "Echo{} ({} {}){}",
            if *marks { "" } else { " quiet" },
            var_name(ir, *source),
            var_name(ir, *target),
            if *in_all { " in all" } else { "" }
        ),
        Filter::Variables(VariableFilter::Var(v)) => format!("Var {}", var_name(ir, *v)),
        Filter::Variables(VariableFilter::Assign { var, op, .. }) => {
            format!("Assign {} {}", var_name(ir, *var), assign_op_text(*op))
        }
        Filter::Variables(VariableFilter::IsBound(v)) => format!("IsBound {}", var_name(ir, *v)),
        Filter::Variables(VariableFilter::Unbind(v)) => format!("Unbind {}", var_name(ir, *v)),
        Filter::Variables(VariableFilter::DictGet { dict, .. }) => format!("DictGet {}", var_name(ir, *dict)),
        Filter::Variables(VariableFilter::DictSet { dict, op, .. }) => {
            format!("DictSet {} {}", var_name(ir, *dict), assign_op_text(*op))
        }
        Filter::Variables(VariableFilter::DictUnbind { dict, key }) => {
            format!("DictUnbind {}{}", var_name(ir, *dict), if key.is_some() { " [key]" } else { " all" })
        }
        Filter::Variables(VariableFilter::DictCount(dict)) => format!("DictCount {}", var_name(ir, *dict)),
        Filter::Variables(VariableFilter::SquareIter { var, forall, .. }) => {
            format!("SquareIter{} {}", if *forall { " all" } else { "" }, var_name(ir, *var))
        }
        Filter::Variables(VariableFilter::PieceIter { var, forall, .. }) => {
            format!("PieceIter{} {}", if *forall { " all" } else { "" }, var_name(ir, *var))
        }
        Filter::Variables(VariableFilter::IdentityIter { var, mask, .. }) => {
            format!("IdentityIter {} {}", var_name(ir, *var), mask_text(*mask))
        }
        Filter::Output(OutputFilter::Sort { doc, min, quiet, .. }) => {
            format!("Sort{}{} {doc:?}", if *min { " min" } else { "" }, if *quiet { " quiet" } else { "" })
        }
        Filter::Geometry(GeometryFilter::PinOf { part, .. }) => format!("Pin (value: {})", lower(part)),
        Filter::Yacpdb(p) => {
            let args: Vec<&str> = p.args.iter().map(|a| a.as_deref().unwrap_or("*")).collect();
            format!("Yacpdb {}({})", p.name, args.join(", "))
        }
        Filter::Transform { kind, range, count, .. } => {
            let mut text = format!("Transform {}", lower(kind));
            if *count {
                text.push_str(" count");
            }
            if let Some((a, b)) = range {
                let _ = write!(text, " {}", range_text(*a, *b));
            }
            text
        }
        Filter::Keyword62(Keyword62Filter::ConsecutiveMoves { min, max, quiet, .. }) => {
            format!("ConsecutiveMoves {}{}", range_text(*min, *max), if *quiet { " quiet" } else { "" })
        }
        // Variants whose name says everything: the Debug name up to any payload.
        other => {
            let debug = format!("{other:?}");
            let end = debug.find(['(', ' ', '{']).unwrap_or(debug.len());
            debug[..end].to_string()
        }
    }
}

/// A set of squares in CQL notation: `a-h8`, `d1-8`, `g6`, `[a1,h8]`, `[]` when empty.
/// Rectangles are found both file-major and rank-major; the shorter listing wins.
pub fn squares_text(squares: Bitboard) -> String {
    let bits = squares.0;
    if bits == 0 {
        return "[]".into();
    }
    // Mask of ranks on each file, and of files on each rank.
    let ranks_of_file =
        |f: u32| -> u8 { (0..8).filter(|r| bits & (1u64 << (r * 8 + f)) != 0).fold(0, |m, r| m | 1 << r) };
    let files_of_rank = |r: u32| -> u8 { ((bits >> (r * 8)) & 0xff) as u8 };
    let by_files = rectangles(ranks_of_file, false);
    let by_ranks = rectangles(files_of_rank, true);
    let items = if by_ranks.len() < by_files.len() { by_ranks } else { by_files };
    let texts: Vec<String> = items
        .iter()
        .map(|&(f1, f2, r1, r2)| {
            let file = |f: u8| (b'a' + f) as char;
            let files = if f1 == f2 { file(f1).to_string() } else { format!("{}-{}", file(f1), file(f2)) };
            let ranks = if r1 == r2 { (r1 + 1).to_string() } else { format!("{}-{}", r1 + 1, r2 + 1) };
            format!("{files}{ranks}")
        })
        .collect();
    if texts.len() == 1 {
        texts.into_iter().next().unwrap_or_default()
    } else {
        format!("[{}]", texts.join(","))
    }
}

/// Cover a board by rectangles `(file1, file2, rank1, rank2)`: group consecutive lines
/// (files, or ranks when `lines_are_ranks`) with the same cross mask, then split each
/// mask into runs.
fn rectangles(mask_of_line: impl Fn(u32) -> u8, lines_are_ranks: bool) -> Vec<(u8, u8, u8, u8)> {
    let mut out = Vec::new();
    let mut line = 0u32;
    while line < 8 {
        let mask = mask_of_line(line);
        let mut last = line;
        while last + 1 < 8 && mask_of_line(last + 1) == mask {
            last += 1;
        }
        if mask != 0 {
            for (a, b) in runs(mask) {
                let (l1, l2) = (line as u8, last as u8);
                out.push(if lines_are_ranks { (a, b, l1, l2) } else { (l1, l2, a, b) });
            }
        }
        line = last + 1;
    }
    out
}

/// Maximal runs of set bits of a byte, as inclusive index pairs.
fn runs(mask: u8) -> Vec<(u8, u8)> {
    let mut out = Vec::new();
    let mut i = 0u8;
    while i < 8 {
        if mask & (1 << i) != 0 {
            let start = i;
            while i + 1 < 8 && mask & (1 << (i + 1)) != 0 {
                i += 1;
            }
            out.push((start, i));
        }
        i += 1;
    }
    out
}

/// A set of piece kinds in CQL letters: `R`, `[RQ]`, `A` (all white), `a`, `[Aa]`, `_`
/// (empty square), `[Aa_]` (anything), `[]` (nothing).
pub fn mask_text(mask: PieceMask) -> String {
    const LETTERS: [char; 6] = ['P', 'N', 'B', 'R', 'Q', 'K'];
    let mut tokens: Vec<String> = Vec::new();
    for (shift, all) in [(0, "A"), (6, "a")] {
        let side = (mask.0 >> shift) & 0x3f;
        if side == 0x3f {
            tokens.push(all.into());
        } else {
            for (i, letter) in LETTERS.iter().enumerate() {
                if side & (1 << i) != 0 {
                    let c = if shift == 0 { *letter } else { letter.to_ascii_lowercase() };
                    tokens.push(c.to_string());
                }
            }
        }
    }
    if mask.contains_empty() {
        tokens.push("_".into());
    }
    if tokens.len() == 1 {
        tokens.remove(0)
    } else {
        format!("[{}]", tokens.concat())
    }
}

/// A set of directions by CQL name: `up`, `diagonal`, `anydirection`, `[up,right]`.
pub fn directions_text(dirs: Directions) -> String {
    const NAMES: [&str; 8] = ["up", "down", "right", "left", "northeast", "northwest", "southeast", "southwest"];
    let named = [
        (Directions::ANY, "anydirection"),
        (Directions::ORTHOGONAL, "orthogonal"),
        (Directions::DIAGONAL, "diagonal"),
        (Directions::VERTICAL, "vertical"),
        (Directions::HORIZONTAL, "horizontal"),
    ];
    if let Some((_, name)) = named.iter().find(|(d, _)| *d == dirs) {
        return (*name).into();
    }
    let parts: Vec<&str> = (0..8).filter(|b| dirs.0 & (1 << b) != 0).map(|b| NAMES[b]).collect();
    match parts.len() {
        0 => "[]".into(),
        1 => parts[0].into(),
        _ => format!("[{}]", parts.join(",")),
    }
}

/// The spelling of an assignment operator (`=` or a compound one such as `+=`).
fn assign_op_text(op: Option<ArithOp>) -> &'static str {
    match op {
        None => "=",
        Some(ArithOp::Add) => "+=",
        Some(ArithOp::Sub) => "-=",
        Some(ArithOp::Mul) => "*=",
        Some(ArithOp::Div) => "/=",
        Some(ArithOp::Rem) => "%=",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;
    use crate::ir::{transform, TransformKind};
    use shakmaty::{Role, Square};

    fn sq(name: &str) -> Bitboard {
        let s: Square = name.parse().expect("test square");
        Bitboard::from_square(s)
    }

    #[test]
    fn square_sets_print_as_cql_ranges() {
        assert_eq!(squares_text(Bitboard::from_rank(shakmaty::Rank::Eighth)), "a-h8");
        assert_eq!(squares_text(Bitboard::from_file(shakmaty::File::D)), "d1-8");
        assert_eq!(squares_text(sq("g6")), "g6");
        assert_eq!(squares_text(sq("a1").with(sq("h8"))), "[a1,h8]");
        assert_eq!(squares_text(Bitboard::FULL), "a-h1-8");
        assert_eq!(squares_text(Bitboard::EMPTY), "[]");
        let block = ["c3", "d3", "e3", "c4", "d4", "e4"].iter().fold(Bitboard::EMPTY, |a, n| a.with(sq(n)));
        assert_eq!(squares_text(block), "c-e3-4");
        let two_ranks = Bitboard::from_rank(shakmaty::Rank::Second).with(Bitboard::from_rank(shakmaty::Rank::Seventh));
        assert_eq!(squares_text(two_ranks), "[a-h2,a-h7]");
    }

    #[test]
    fn piece_masks_print_as_cql_letters() {
        let rook = PieceMask::piece(Color::White, Role::Rook);
        let queen = PieceMask::piece(Color::White, Role::Queen);
        assert_eq!(mask_text(rook.with(queen)), "[RQ]");
        assert_eq!(mask_text(PieceMask::WHITE), "A");
        assert_eq!(mask_text(PieceMask::BLACK), "a");
        assert_eq!(mask_text(PieceMask::ANY_PIECE), "[Aa]");
        assert_eq!(mask_text(PieceMask::EMPTY), "_");
        assert_eq!(mask_text(PieceMask::ANYTHING), "[Aa_]");
        assert_eq!(mask_text(PieceMask::piece(Color::Black, Role::Knight)), "n");
        assert_eq!(mask_text(PieceMask(0)), "[]");
    }

    #[test]
    fn directions_print_by_name() {
        assert_eq!(directions_text(Directions::UP), "up");
        assert_eq!(directions_text(Directions::DIAGONAL), "diagonal");
        assert_eq!(directions_text(Directions::ANY), "anydirection");
        assert_eq!(directions_text(Directions(Directions::UP.0 | Directions::RIGHT.0)), "[up,right]");
    }

    /// `{Kg1 Pf2 check}` built leaves-first, or with the check added first.
    fn build(check_first: bool) -> Ir {
        let mut ir = Ir::new();
        let check = if check_first {
            Some(ir.add(Filter::PositionState(PositionStateFilter::Check), Span::default()))
        } else {
            None
        };
        let king = ir.add(
            Filter::Sets(SetFilter::Pieces { mask: PieceMask::piece(Color::White, Role::King), squares: sq("g1") }),
            Span::default(),
        );
        let pawn = ir.add(
            Filter::Sets(SetFilter::Pieces { mask: PieceMask::piece(Color::White, Role::Pawn), squares: sq("f2") }),
            Span::default(),
        );
        let check = check.unwrap_or_else(|| ir.add(Filter::PositionState(PositionStateFilter::Check), Span::default()));
        let x = ir.var("x", VarKind::Square);
        let var = ir.add(Filter::Variables(VariableFilter::Var(x)), Span::default());
        let both = ir.add(Filter::Sets(SetFilter::Union(vec![king, pawn])), Span::default());
        let count = ir.add(Filter::Sets(SetFilter::Count(both)), Span::default());
        let root = ir.add(Filter::Logic(LogicFilter::And(vec![both, check, count, var])), Span::default());
        ir.root = Some(root);
        ir
    }

    #[test]
    fn dump_is_stable_across_build_orders_and_shares_nodes() {
        let a = dump(&build(false));
        let b = dump(&build(true));
        assert_eq!(a, b);
        assert_eq!(dump(&build(false)), a, "same input, same text");
        let expected = "settings: matchcount 1.. | variations no | silent no | quiet no | per-game no\n\
variables:\n  square1: square\n\
tree:\n  And\n    #1 = Union\n      Pieces Kg1\n      Pieces Pf2\n    Check\n    Count\n      #1\n    Var square1\n";
        assert_eq!(a, expected);
    }

    #[test]
    fn dump_shows_the_copies_of_an_expanded_transform() {
        let mut ir = Ir::new();
        let pawn = ir.add(
            Filter::Sets(SetFilter::Pieces { mask: PieceMask::piece(Color::White, Role::Pawn), squares: sq("g6") }),
            Span::default(),
        );
        let flip = ir.add(
            Filter::Transform { kind: TransformKind::Flip, range: None, count: false, body: pawn },
            Span::default(),
        );
        ir.root = Some(flip);
        assert!(dump(&ir).contains("Transform flip"));
        transform::expand(&mut ir).expect("expands");
        let text = dump(&ir);
        assert!(!text.contains("Transform"));
        assert_eq!(text.matches("Pieces P").count(), 8, "{text}");
        for square in ["g6", "g3", "b6", "c7", "b3", "f2", "f7", "c2"] {
            assert!(text.contains(&format!("Pieces P{square}")), "{square} in {text}");
        }
    }

    #[test]
    fn dump_of_deep_tree_is_cut_not_overflowed() {
        let mut ir = Ir::new();
        let mut id = ir.add(Filter::PositionState(PositionStateFilter::Check), Span::default());
        for _ in 0..(MAX_DEPTH + 50) {
            id = ir.add(Filter::Logic(LogicFilter::Not(id)), Span::default());
        }
        ir.root = Some(id);
        let text = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || dump(&ir))
            .expect("thread")
            .join()
            .expect("no panic");
        assert!(text.contains("nested too deeply"));
    }

    #[test]
    fn empty_query_and_settings_print() {
        let mut ir = Ir::new();
        ir.settings.variations = true;
        ir.settings.matchcount = (2, 5);
        ir.settings.result = Some(GameResult::BlackWins);
        let text = dump(&ir);
        assert!(text.starts_with("settings: matchcount 2..5 | variations yes"));
        assert!(text.contains("result 0-1"));
        assert!(text.contains("variables: none"));
        assert!(text.ends_with("tree: none\n"));
    }
}
