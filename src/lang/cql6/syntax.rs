//! The CQL 6 syntax tree: what a script says, as written, with the place of every part.
//!
//! Takes in: the tokens of a script and, while [`super::parser`] reads them, the start and
//! end of each construct it recognises. Gives out: a [`SyntaxTree`], nodes over token
//! ranges, each with its [`NodeKind`] and byte [`Span`], that prints back to CQL text
//! ([`SyntaxTree::print`]) which reads as the same tree and the same IR.
//! Must never: panic on any input, decide what a construct means (the parser does).
//!
//! A node is a run of tokens; its children are the constructs inside it, in order, and
//! the tokens of a node outside its children are its own (a keyword, an operator, a
//! brace, a range). The tree is what the parser read in the script's own text: a
//! function body is kept as the tokens of its definition (it is read only at each call,
//! with the arguments in place), and a call holds its arguments.

use super::lexer::{Sym, Tok, Token};
use crate::diag::Span;

/// One node of a [`SyntaxTree`], by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeId(pub u32);

/// What kind of construct a node is. Words carry their text, so that a tree can be
/// compared with another without looking at the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// The whole script: the header, function definitions and the filters of the body.
    Script,
    /// The `cql( … )` header with its options.
    Header(HeaderSyntax),
    /// `function name(params) { body }`: the body stays as tokens until a call.
    FunctionDefinition {
        /// The function's name.
        name: String,
    },
    /// `name(arguments)`, a call of a function the script defines; children: the arguments.
    FunctionCall {
        /// The function called.
        name: String,
    },
    /// A keyword filter with what it reads after it (arguments, options, ranges, the
    /// filter it governs): `check`, `line --> …`, `find 2 check`, `player white "Tal"`.
    Keyword {
        /// The keyword as written.
        word: String,
        /// The parser module (filter family) that owns the word (see `parser::FAMILY_WORDS`).
        family: &'static str,
    },
    /// A variable read (`x`, `Seen`).
    Variable {
        /// Its name.
        name: String,
    },
    /// `name = value`, `name += value`, …: a variable given a value.
    Assignment {
        /// The variable.
        name: String,
    },
    /// A dictionary read or written (`D[k]`, `D`).
    DictionaryUse {
        /// The dictionary.
        name: String,
    },
    /// Square or piece iteration: `x∊set body`, `◭y∊set body`, `∀x∊set body`.
    Iteration,
    /// A number (`3`).
    Number,
    /// A quoted string (`"Tal"`).
    String,
    /// A square set written as squares (`a1`, `a-h2`, `[a1,b2]`, `[]`).
    Squares,
    /// A piece designator (`K`, `[RQ]a1`, `◭`).
    Pieces,
    /// `o-o` or `o-o-o` standing for a castling move.
    Castling,
    /// `\1`, `\-1`: a group of the last regular expression matched.
    RegexGroup,
    /// `{ … }`: filters one after the other.
    Block,
    /// `( … )`: one filter in parentheses.
    Parenthesized,
    /// `#set`: the number of squares (or of a dictionary's entries).
    Count,
    /// `-x`: a negative number or the negation of a number.
    Negation,
    /// `~set`: the squares not in the set.
    Complement,
    /// A move written with a dash or a cross: `――`, `×`, `Ra1――a8`, `――=♕`.
    Move,
    /// `/// items`: a comment written to the output, up to the end of the line.
    Comment,
    /// `∙`/`currentposition` written as a symbol.
    CurrentPosition,
    /// A transform written as a symbol (`✵`, `⬓`) with the filter it transforms.
    Transform,
    /// `⊢ …`: a path written with its symbol.
    Path,
    /// Any other symbol that begins a filter.
    Symbol,
    /// Operands joined by operators: `a | b`, `x + 1 > 2`, `K attacks k`, `s[1:2]`,
    /// `X――Y`. The operators are the node's own tokens between the children.
    Operation {
        /// The operators, as written, in order.
        operators: Vec<String>,
    },
}

/// The `cql( … )` header as written: its options in order, and what else stood there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeaderSyntax {
    /// The items between the parentheses, in order.
    pub items: Vec<HeaderItem>,
    /// The text ended before the closing `)`: the index of the end-of-text token.
    pub unterminated_at: Option<u32>,
}

/// One item of the `cql( … )` header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderItem {
    /// An option word with what it read after it.
    Option {
        /// The option's word (index into [`SyntaxTree::tokens`]).
        token: u32,
        /// The word.
        word: String,
        /// What follows it.
        value: HeaderValue,
    },
    /// A token that is no option word (index into [`SyntaxTree::tokens`]).
    Stray {
        /// The token.
        token: u32,
    },
}

/// What a header option read after its word.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderValue {
    /// Nothing (`variations`, `silent`, an unknown word).
    Nothing,
    /// A file name, the raw text up to whitespace or `)`, quotes removed (`input`, `output`).
    FileName(String),
    /// Up to two numbers (`matchcount`, `gamenumber`); a negative number counts as 0.
    Numbers(Vec<u64>),
    /// A string (`matchstring`), if one was written.
    Text(Option<String>),
    /// A game result (`result`), if one was written.
    Result(Option<crate::ir::GameResult>),
}

/// A token as it stands in the script: its text and what separates it from the one before.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxToken {
    /// The text, as written.
    pub text: String,
    /// Its bytes in the script.
    pub span: Span,
    /// Whitespace or a comment separates it from the previous token.
    pub space_before: bool,
    /// A line ends between the previous token and this one.
    pub line_break_before: bool,
    /// A blank line separates it from the previous token (this ends a `path` in CQL 6.2).
    pub blank_line_before: bool,
}

/// One construct of the script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// What it is.
    pub kind: NodeKind,
    /// Its bytes in the script, from its first token's start to its last token's end.
    pub span: Span,
    /// Its first token (index into [`SyntaxTree::tokens`]).
    pub first_token: u32,
    /// One past its last token.
    pub end_token: u32,
    /// The constructs inside it, in the order they are written.
    pub children: Vec<NodeId>,
}

/// A CQL 6 script as written: its tokens and the constructs over them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SyntaxTree {
    /// Every token of the script, in order (comments and whitespace are not tokens).
    pub tokens: Vec<SyntaxToken>,
    /// Every node; a node's children come before it.
    pub nodes: Vec<Node>,
    /// The [`NodeKind::Script`] node.
    pub root: Option<NodeId>,
}

impl SyntaxTree {
    /// The node with this id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// The tokens of a node, all of them (its own and its children's).
    pub fn tokens_of(&self, id: NodeId) -> &[SyntaxToken] {
        let node = self.node(id);
        self.tokens.get(node.first_token as usize..node.end_token as usize).unwrap_or(&[])
    }

    /// The script as CQL text: every token as written, tokens that were apart separated
    /// by one space, a line break or a blank line as in the script, and tokens that were
    /// written together (`{2}`, `◭x`, `――(`) kept together. Comments are left out.
    pub fn print(&self) -> String {
        self.root.map(|root| self.print_node(root)).unwrap_or_default()
    }

    /// One node as CQL text (see [`SyntaxTree::print`]).
    pub fn print_node(&self, id: NodeId) -> String {
        let mut out = String::new();
        for (i, token) in self.tokens_of(id).iter().enumerate() {
            if i > 0 && token.space_before {
                out.push_str(if token.blank_line_before {
                    "\n\n"
                } else if token.line_break_before {
                    "\n"
                } else {
                    " "
                });
            }
            out.push_str(&token.text);
        }
        out
    }

    /// The tree's shape without its places: each node's kind, its own tokens and its
    /// children, one node a line, indented by depth. Two scripts that differ only in
    /// spacing and comments have the same shape.
    pub fn shape(&self) -> String {
        let mut out = String::new();
        let Some(root) = self.root else { return out };
        // Depth-first without recursion: a script nested to the parser's limit must not
        // exhaust the stack of whoever prints it.
        let mut stack = vec![(root, 0usize)];
        while let Some((id, depth)) = stack.pop() {
            let node = self.node(id);
            out.extend(std::iter::repeat("  ").take(depth));
            out.push_str(&format!("{:?}", node.kind));
            let mut child = node.children.iter().peekable();
            let mut t = node.first_token;
            while t < node.end_token {
                if let Some(&&c) = child.peek() {
                    let c = self.node(c);
                    if c.first_token == t {
                        out.push_str(" _");
                        t = c.end_token.max(t + 1);
                        child.next();
                        continue;
                    }
                }
                if let Some(token) = self.tokens.get(t as usize) {
                    out.push(' ');
                    out.push_str(&token.text);
                }
                t += 1;
            }
            out.push('\n');
            for &c in node.children.iter().rev() {
                stack.push((c, depth + 1));
            }
        }
        out
    }
}

/// Records the tree while the parser reads the tokens: the parser marks where a
/// construct begins and closes it with its kind where it ends; constructs closed in
/// between become its children.
#[derive(Default)]
pub(crate) struct Builder {
    tree: SyntaxTree,
    /// Nodes closed and not yet taken as some node's child, in the order they were read.
    pending: Vec<NodeId>,
    /// The place of the end of the text (its end-of-text token).
    end_of_text: Span,
    /// Above zero while the parser reads tokens that are not the script's own (a function
    /// body at a call, the text behind a mate keyword): nothing is recorded then.
    suspended: u32,
}

/// Where a construct began: the pending nodes then and its first token.
#[derive(Clone, Copy)]
pub(crate) struct Mark {
    pending: usize,
    first_token: usize,
}

impl Builder {
    /// A builder over the tokens of `source` (the last token, the end of the text, is left out).
    pub(crate) fn new(source: &str, tokens: &[Token]) -> Builder {
        let end_of_text =
            tokens.iter().find(|t| t.tok == Tok::Eof).map_or(Span::new(source.len(), source.len()), |t| t.span);
        let mut previous_end = 0usize;
        let tokens = tokens
            .iter()
            .filter(|t| t.tok != Tok::Eof)
            .map(|t| {
                let (start, end) = (t.span.start as usize, t.span.end as usize);
                let gap = source.get(previous_end.min(start)..start).unwrap_or("");
                previous_end = end;
                SyntaxToken {
                    text: source.get(start..end).unwrap_or("").to_string(),
                    span: t.span,
                    space_before: t.space_before,
                    line_break_before: gap.contains('\n'),
                    blank_line_before: t.blank_before,
                }
            })
            .collect();
        Builder { tree: SyntaxTree { tokens, ..SyntaxTree::default() }, end_of_text, ..Builder::default() }
    }

    /// Stop recording (reading tokens that are not the script's own) until [`Builder::resume`].
    pub(crate) fn suspend(&mut self) {
        self.suspended += 1;
    }

    /// Record again after [`Builder::suspend`].
    pub(crate) fn resume(&mut self) {
        self.suspended = self.suspended.saturating_sub(1);
    }

    /// The place of token `i` in the script.
    /// The end of the text is the token after the last one.
    pub(crate) fn token_span(&self, i: u32) -> Span {
        self.tree.tokens.get(i as usize).map_or(self.end_of_text, |t| t.span)
    }

    /// The text of token `i` as written (empty past the end).
    pub(crate) fn token_text(&self, i: u32) -> &str {
        self.tree.tokens.get(i as usize).map_or("", |t| t.text.as_str())
    }

    /// A construct begins at token `at`.
    pub(crate) fn mark(&self, at: usize) -> Mark {
        Mark { pending: self.pending.len(), first_token: at }
    }

    /// The construct begun at `mark` was not read after all (an error): forget what was
    /// recorded inside it.
    pub(crate) fn discard(&mut self, mark: Mark) {
        if self.suspended == 0 {
            self.pending.truncate(mark.pending);
        }
    }

    /// The construct begun at `mark` ends before token `end`: record it with `kind`, the
    /// constructs closed since the mark being its children.
    pub(crate) fn close(&mut self, mark: Mark, end: usize, kind: NodeKind) {
        if self.suspended != 0 {
            return;
        }
        let end = end.min(self.tree.tokens.len());
        let children = self.children_since(mark, end);
        if end <= mark.first_token {
            return;
        }
        self.push(kind, mark.first_token, end, children);
    }

    /// Close a run of operands and operators begun at `mark`: when it is one construct
    /// alone it is left as it is; otherwise it becomes an [`NodeKind::Operation`].
    pub(crate) fn close_operation(&mut self, mark: Mark, end: usize) {
        if self.suspended != 0 {
            return;
        }
        let end = end.min(self.tree.tokens.len());
        if let [only] = self.pending.get(mark.pending..).unwrap_or(&[]) {
            let node = self.tree.node(*only);
            if node.first_token as usize == mark.first_token && node.end_token as usize == end {
                return;
            }
        }
        let children = self.children_since(mark, end);
        if end <= mark.first_token {
            return;
        }
        let mut operators = Vec::new();
        let mut t = mark.first_token;
        let mut next_child = children.iter().map(|&c| self.tree.node(c)).peekable();
        while t < end {
            if let Some(c) = next_child.peek() {
                if c.first_token as usize == t {
                    t = (c.end_token as usize).max(t + 1);
                    next_child.next();
                    continue;
                }
            }
            operators.push(self.tree.tokens[t].text.clone());
            t += 1;
        }
        self.push(NodeKind::Operation { operators }, mark.first_token, end, children);
    }

    /// The last construct recorded turned out to end before token `end` (its last tokens
    /// are read again as the next construct): shorten it.
    pub(crate) fn shorten_last(&mut self, end: usize) {
        if self.suspended != 0 {
            return;
        }
        let Some(&last) = self.pending.last() else { return };
        let tokens = &self.tree.tokens;
        let nodes = &mut self.tree.nodes;
        let node = &nodes[last.0 as usize];
        if end <= node.first_token as usize || end >= node.end_token as usize {
            return;
        }
        let kept: Vec<NodeId> =
            node.children.iter().copied().filter(|c| nodes[c.0 as usize].end_token as usize <= end).collect();
        let span_end = tokens[end - 1].span.end;
        let node = &mut nodes[last.0 as usize];
        node.end_token = end as u32;
        node.span.end = span_end;
        node.children = kept;
    }

    /// The whole script, from token 0 to the end, with every construct left over as a child.
    pub(crate) fn finish(mut self) -> SyntaxTree {
        self.suspended = 0;
        let end = self.tree.tokens.len();
        let children = self.children_since(Mark { pending: 0, first_token: 0 }, end);
        let span = Span { start: 0, end: self.tree.tokens.last().map_or(0, |t| t.span.end) };
        self.tree.nodes.push(Node { kind: NodeKind::Script, span, first_token: 0, end_token: end as u32, children });
        self.tree.root = Some(NodeId(self.tree.nodes.len() as u32 - 1));
        self.tree
    }

    /// Take the constructs closed since `mark` that lie inside tokens `mark..end`, in
    /// order and without overlap (a construct read again after the parser stepped back
    /// replaces the one it overlaps).
    fn children_since(&mut self, mark: Mark, end: usize) -> Vec<NodeId> {
        let taken = self.pending.split_off(mark.pending.min(self.pending.len()));
        let mut children: Vec<NodeId> = Vec::with_capacity(taken.len());
        for id in taken {
            let node = self.tree.node(id);
            let (first, last) = (node.first_token as usize, node.end_token as usize);
            if first < mark.first_token || last > end {
                continue;
            }
            while let Some(&previous) = children.last() {
                if self.tree.node(previous).end_token as usize > first {
                    children.pop();
                } else {
                    break;
                }
            }
            children.push(id);
        }
        children
    }

    fn push(&mut self, kind: NodeKind, first: usize, end: usize, children: Vec<NodeId>) {
        let span = Span { start: self.tree.tokens[first].span.start, end: self.tree.tokens[end - 1].span.end };
        self.tree.nodes.push(Node { kind, span, first_token: first as u32, end_token: end as u32, children });
        self.pending.push(NodeId(self.tree.nodes.len() as u32 - 1));
    }
}

/// The kind of construct that begins with `token`, as far as the token tells; a word is
/// told apart by the parser, which knows the script's functions and variables (see
/// `Parser::kind_of_construct_here`).
pub(crate) fn kind_of_start(token: &Tok) -> NodeKind {
    match token {
        Tok::Number(_) => NodeKind::Number,
        Tok::Str(_) => NodeKind::String,
        Tok::Squares(_) | Tok::FileOnly => NodeKind::Squares,
        Tok::Pieces { .. } => NodeKind::Pieces,
        Tok::Castle(_) => NodeKind::Castling,
        Tok::RegexGroup(_) | Tok::RegexGroupStart(_) => NodeKind::RegexGroup,
        Tok::Sym(sym) => match sym {
            Sym::LBrace => NodeKind::Block,
            Sym::LParen => NodeKind::Parenthesized,
            Sym::LBracket => NodeKind::Squares,
            Sym::Hash => NodeKind::Count,
            Sym::Minus => NodeKind::Negation,
            Sym::Tilde => NodeKind::Complement,
            Sym::Dash | Sym::Capture => NodeKind::Move,
            Sym::TripleSlash => NodeKind::Comment,
            Sym::Current => NodeKind::CurrentPosition,
            Sym::FlipStar | Sym::FlipColorSquare => NodeKind::Transform,
            Sym::Path => NodeKind::Path,
            Sym::Forall => NodeKind::Iteration,
            _ => NodeKind::Symbol,
        },
        Tok::Word(w) => NodeKind::Variable { name: w.clone() },
        Tok::ResultLit(_) | Tok::Eof => NodeKind::Symbol,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree of an accepted script.
    fn tree(source: &str) -> SyntaxTree {
        let (ir, tree) = crate::lang::cql6::parse_with_syntax(source);
        assert!(ir.is_ok(), "{source:?} is refused: {ir:?}");
        tree
    }

    #[test]
    fn keywords_are_nodes_of_their_family() {
        assert_eq!(
            tree("check mate").shape(),
            "Script _ _\n\
             \x20 Keyword { word: \"check\", family: \"position_state\" } check\n\
             \x20 Keyword { word: \"mate\", family: \"position_state\" } mate\n"
        );
    }

    #[test]
    fn operators_hold_their_operands_tighter_ones_inside() {
        // `&` binds tighter than `|` in CQL 6: a1 | (b2 & c3).
        assert_eq!(
            tree("a1 | b2 & c3").shape(),
            "Script _\n\
             \x20 Operation { operators: [\"|\"] } _ | _\n\
             \x20   Squares a1\n\
             \x20   Operation { operators: [\"&\"] } _ & _\n\
             \x20     Squares b2\n\
             \x20     Squares c3\n"
        );
    }

    #[test]
    fn a_function_is_kept_as_written_and_a_call_holds_its_arguments() {
        let t = tree("function F(x) { x } F(check)");
        assert_eq!(
            t.shape(),
            "Script _ _\n\
             \x20 FunctionDefinition { name: \"F\" } function F ( x ) { x }\n\
             \x20 FunctionCall { name: \"F\" } F ( _ )\n\
             \x20   Keyword { word: \"check\", family: \"position_state\" } check\n"
        );
    }

    #[test]
    fn a_line_holds_its_constituents_and_assignments_their_values() {
        assert_eq!(
            tree("line --> check --> mate").shape(),
            "Script _\n\
             \x20 Keyword { word: \"line\", family: \"game_tree\" } line --> _ --> _\n\
             \x20   Keyword { word: \"check\", family: \"position_state\" } check\n\
             \x20   Keyword { word: \"mate\", family: \"position_state\" } mate\n"
        );
        assert_eq!(
            tree("x = 3 x > 2").shape(),
            "Script _ _\n\
             \x20 Assignment { name: \"x\" } x = _\n\
             \x20   Number 3\n\
             \x20 Operation { operators: [\">\"] } _ > _\n\
             \x20   Variable { name: \"x\" } x\n\
             \x20   Number 2\n"
        );
    }

    #[test]
    fn nodes_know_their_places() {
        let source = "cql(quiet)\n  player white \"Tal\"";
        let t = tree(source);
        let root = t.node(t.root.unwrap());
        let header = t.node(root.children[0]);
        assert!(matches!(&header.kind, NodeKind::Header(h) if h.items.len() == 1));
        assert_eq!((header.span.start, header.span.end), (0, 10));
        let player = t.node(root.children[1]);
        assert_eq!(&source[player.span.start as usize..player.span.end as usize], "player white \"Tal\"");
    }

    #[test]
    fn a_searched_text_followed_by_a_string_gives_the_string_back_to_the_next_argument() {
        // `comment("at " event " in " site)`: `event " in "` is the event, then the text " in ".
        let t = tree("comment(\"at \" event \" in \" site)");
        let root = t.node(t.root.unwrap());
        let comment = t.node(root.children[0]);
        let kinds: Vec<String> = comment.children.iter().map(|&c| t.print_node(c)).collect();
        assert_eq!(kinds, ["\"at \"", "event", "\" in \"", "site"]);
    }

    #[test]
    fn printing_drops_comments_and_keeps_what_was_written_together() {
        assert_eq!(tree("{  check   mate }  // a remark\n").print(), "{ check mate }");
        assert_eq!(tree("line-->check{1,2}-->mate").print(), "line-->check{1,2}-->mate");
        assert_eq!(tree("path check\n\n\n  mate /* x */ stalemate").print(), "path check\n\nmate stalemate");
        assert_eq!(tree("check\n   mate").print(), "check\nmate");
    }
}
