//! The filter node of the IR: one variant per thing a query can ask of a position, with
//! its meaning in chess terms and its spelling in each front-end.

use shakmaty::{Bitboard, Color};

use super::{
    ArithOp, Builtin, CmpOp, Directions, FilterId, FindDirection, GameResult, HeaderField, LegacyFact, LineParams,
    MoveFilter, PathParams, PathStatus, PawnStructure, PieceMask, TransformKind, TreeRelation, TreeStep, VarId,
    YacpdbPredicate,
};

/// One typed filter node. Each variant says what it means in chess terms and how it
/// is spelled in the front-ends (CQL 6 / legacy / YACPDB).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    // ----- constants -------------------------------------------------------
    /// Always matches, no value. CQL 6: `true`, an empty `{}`.
    True,
    /// Never matches. CQL 6: `false`; legacy `[ ]`.
    False,
    /// An integer constant. CQL 6: `3`, `white` (1), `black` (-1).
    Number(i64),
    /// A string constant. CQL 6: `"Kasparov"`.
    Str(String),
    /// A fixed set of squares. CQL 6: `a1`, `a-h1-8`, `[a1,h8]`, `.` (all squares).
    Squares(Bitboard),

    // ----- pieces and sets ---------------------------------------------------
    /// The squares of `squares` whose content is accepted by `mask`.
    /// CQL 6: `♖`, `R`, `[RQ]a-h7`, `_d4`, `◭`, `□`; legacy `R?2`, `[RQ][a1-8]`.
    Pieces {
        /// Accepted piece kinds (and empty squares).
        mask: PieceMask,
        /// Squares looked at.
        squares: Bitboard,
    },
    /// Union of set filters. CQL 6: `A | B`, `∪`, `[...]` of sets.
    Union(Vec<FilterId>),
    /// Intersection of set filters. CQL 6: `A & B`, `∩`.
    Intersection(Vec<FilterId>),
    /// All squares not in the set. CQL 6: `~A`.
    Complement(FilterId),
    /// Subset test `A in B` (true when A is empty). Matches without a value.
    In(FilterId, FilterId),
    /// Number of squares of a set (`#A`), or length of a string; always matches.
    Count(FilterId),
    /// Squares reachable from the argument's squares in `dirs`, at a distance in
    /// `min..=max` (blocking pieces are ignored). CQL 6: `up 1 ♔`, `diagonal 2 7 X`. A
    /// negative distance counts the other way (`up -1 ♔` is the square below the king), and
    /// 0 is the square itself.
    Direction {
        /// The directions.
        dirs: Directions,
        /// Smallest distance, -7 to 7.
        min: i8,
        /// Largest distance, -7 to 7.
        max: i8,
        /// Numeric variables written for `min` / `max` (`up 1 n ♔`): their values, read
        /// when the filter runs, stand for that end.
        range_variables: (Option<VarId>, Option<VarId>),
        /// The origin set.
        arg: FilterId,
    },
    /// `A → B`: the squares of A holding a piece that attacks some square of B.
    /// `attacks` in ASCII; `B ← A` is `Attacks { attackers: A, targets: B, value_is_targets: true }`.
    Attacks {
        /// The attacking pieces.
        attackers: FilterId,
        /// The attacked squares.
        targets: FilterId,
        /// `←` / `attackedby`: the value is the attacked squares, not the attackers.
        value_is_targets: bool,
    },
    /// A chain of attack arrows `A → B → C …` (three or more sets). CQL 6 reads a chain
    /// as an x-ray along one line: a line piece of A attacks a piece of B, and the same line
    /// continues through it to C (and on, through each later link). So `△→x→♚` means x is
    /// pinned against its king. `sets` are in attacking order (attacker first).
    /// Value: the squares of the first set (for `→`), or of the last set when the
    /// chain was written with `←` (`♚ ← x ← △`).
    AttackChain {
        /// The sets, attacker first.
        sets: Vec<FilterId>,
        /// `←` spelling: the value is the last set of `sets` (the attacked end).
        value_is_last: bool,
    },
    /// Squares strictly between two squares on a line, over all pairs that are
    /// aligned. CQL 6: `between(a b)`.
    Between(FilterId, FilterId),
    /// `ray dirs (A B C …)`: a straight line in `dirs` from a square of A through a
    /// square of B … with only empty squares between consecutive ones. Value: the
    /// squares of the last argument reached.
    Ray {
        /// Allowed directions.
        dirs: Directions,
        /// The sets along the line, in order.
        sets: Vec<FilterId>,
        /// `xray`: the first link is an attack, later links may jump pieces of
        /// the attacker's line.
        xray: bool,
    },
    /// Pawn structure sets (`passedpawns` …), restricted to the argument if given.
    PawnStructure(PawnStructure),

    // ----- numbers, strings, comparisons ------------------------------------
    /// A chain of comparisons `a < b <= c`: matches when each link holds. Sets
    /// compared with numbers are counted; strings compare as strings; positions by
    /// their id. In every link but the last a set counts its squares even beside another
    /// set (CQL 6.2 reads `♕ == ♛ == 2` as `♕ == (♛ == 2)`: as many white as black
    /// queens, two of each). Value: the value of the first operand.
    Compare {
        /// The first operand.
        first: FilterId,
        /// The following `(op, operand)` links.
        rest: Vec<(CmpOp, FilterId)>,
    },
    /// Integer arithmetic (or string `+`). No match if an operand does not match.
    Arith(ArithOp, FilterId, FilterId),
    /// Unary minus.
    Neg(FilterId),
    /// A built-in function of evaluated arguments (`abs`, `min`, `str`, `power`, …).
    Call(Builtin, Vec<FilterId>),
    /// Does the string match the regular expression? Value: the matched text; sets
    /// the capture groups `\1`… for later `RegexGroup`. CQL 6: `s ~~ "re"`.
    RegexMatch {
        /// The string to search.
        subject: FilterId,
        /// The pattern source (compiled once per query by `eval`).
        pattern: String,
    },
    /// `\N` — the text of group N of the last successful `~~` match.
    RegexGroup(u8),
    /// `\-N` — where group N of the last successful `~~` match starts in the matched
    /// string (a byte offset from 0); no match when the group took no part (CQL 6.2
    /// `GroupNumberNode` with its index flag).
    RegexGroupStart(u8),
    /// Substring test `a` contains `b` (CQL 6 implicit search: `event "ch"`).
    Contains {
        /// The haystack.
        haystack: FilterId,
        /// The needle.
        needle: FilterId,
        /// Compare ignoring ASCII case (legacy `:player`).
        ignore_case: bool,
    },

    // ----- logic -------------------------------------------------------------
    /// All must match. Value: that of the last one. CQL 6: juxtaposition, `and`, `{ }`.
    And(Vec<FilterId>),
    /// Some must match (evaluated left to right, first matching one's value).
    Or(Vec<FilterId>),
    /// Matches when the argument does not. CQL 6: `not F`.
    Not(FilterId),
    /// `if C then A [else B]`: value of the branch taken. Without `else`, the filter
    /// matches (with no value) when C fails, as in CQL 6.2: `if C A` reads "A whenever C".
    If {
        /// Condition.
        cond: FilterId,
        /// Taken when the condition matches.
        then: FilterId,
        /// Taken otherwise.
        otherwise: Option<FilterId>,
    },
    /// Number of matching filters of the list (transform copies with a range:
    /// `rotate90 count find Ra1`). Always matches.
    CountMatching(Vec<FilterId>),

    // ----- position state ----------------------------------------------------
    /// Side to move is in check. CQL 6 `check`; legacy `:check`.
    Check,
    /// Side to move is checkmated. `mate`.
    Mate,
    /// Side to move is stalemated. `stalemate`.
    Stalemate,
    /// It is this colour's turn. `wtm` / `btm`.
    ToMove(Color),
    /// Numeric side to move: 1 white, -1 black. `sidetomove`.
    SideToMove,
    /// The root position of the game. `initial`.
    Initial,
    /// A position with no continuation (in the lines being searched). `terminal`.
    Terminal,
    /// Plies from the root (0 at the root). `ply`.
    Ply,
    /// Full move number of the next move (PGN numbering, FEN-aware). `movenumber`.
    MoveNumber,
    /// On the main line. `mainline`.
    Mainline,
    /// Inside a variation. `variation`.
    Variation,
    /// On the virtual main line of the position the query is being asked for: one of its
    /// ancestors (or itself), or a position reached from it by main continuations only — the
    /// line a reader of that position follows. `virtualmainline` (true at the asked position;
    /// useful after `:` or inside `echo`, e.g. `t:virtualmainline`).
    VirtualMainline,
    /// A study "try": the position lies in a variation that branches directly off the main line with a
    /// white move (an alternative White move that the composer rejected). `try`.
    Try,
    /// A move filter (played, previous, legal, pseudo-legal moves).
    Move(Box<MoveFilter>),
    /// Does the position have a comment? `hascomment`.
    HasComment,
    /// The original PGN comment after the move into this position. `originalcomment`.
    OriginalComment,

    // ----- header ------------------------------------------------------------
    /// A header field as a string (numeric for Elo). CQL 6: `player white`, `event`.
    Header(HeaderField),
    /// The game ends with this result. CQL 6 `result 1-0`; legacy `:result`.
    Result(GameResult),
    /// Year of the `[Date]` tag; no match when unknown. `year`.
    Year,
    /// The ordinal of the game in the input, from 1. `gamenumber`.
    GameNumber,

    // ----- game tree ---------------------------------------------------------
    /// `find [<--] [all] [N M] F`: search this position and its descendants (or
    /// ancestors). Without a range or `all`: matches when some position matches, value
    /// the first one found. With `all` or a range: value the number of matching positions,
    /// matching when it lies in the range (default 1..).
    Find {
        /// Forward (descendants) or backward (ancestors).
        direction: FindDirection,
        /// Count the matches instead of stopping at the first.
        all: bool,
        /// Bounds on the count (`find 3 5 F`).
        range: Option<(i64, i64)>,
        /// `find quiet`, and every `find` the compiler makes itself: no comments. Otherwise
        /// `find` writes CQL 6.2's notes: `Found` at the position it found, or
        /// `Found i of n` at each position it counted.
        quiet: bool,
        /// The filter looked for.
        body: FilterId,
    },
    /// Evaluate `body` at the position given by `at` (CQL 6: `X:f`, `parent:check`).
    AtPosition {
        /// A position-valued filter.
        at: FilterId,
        /// Filter evaluated there.
        body: FilterId,
    },
    /// A position relative to the current one.
    Tree(TreeStep),
    /// `child(n)`: the n-th continuation (0 = main); `child` = 0.
    Child(FilterId),
    /// Ancestry test between two positions.
    TreeRelation(TreeRelation, FilterId, FilterId),
    /// `lca(x y)` — nearest common ancestor.
    Lca(FilterId, FilterId),
    /// `distance(x y)` — plies between two positions through their common ancestor.
    Distance(FilterId, FilterId),
    /// `depth` — number of variation levels at this position (0 on the main line).
    Depth,
    /// `positionid` — a number identifying this node in the game tree.
    PositionId,
    /// `position N` — the position of the current game whose `positionid` is N (a position
    /// value); no match when the game has none.
    PositionById(FilterId),
    /// `line --> A --> B* …`: positions matching the constituents one after another.
    /// Value: the number of positions matched (or the last position, with
    /// `lastposition`).
    Line {
        /// Direction and options.
        params: LineParams,
        /// The constituents (made of `Seq*` nodes and plain filters).
        body: FilterId,
    },
    /// `⊢ [params] constituents` (CQL 6.2 `path`): a chain of moves from this position.
    /// A move constituent (`――`, `X――Y`, `×` …) consumes one move of the focused pieces
    /// (moves of other pieces before it are skipped), any other constituent is tested at the
    /// position reached. Value: the number of focused moves of the best path (or the value
    /// of `max F`, or the last position with `lastposition`).
    Path {
        /// Options.
        params: PathParams,
        /// `focus S` / `◎S`: the pieces standing on `S` at the start; `None` = every move counts.
        focus: Option<FilterId>,
        /// `max F`: numeric filter evaluated at the end of each candidate path;
        /// the best path maximises it. `None`: the longest path is best.
        best: Option<FilterId>,
        /// `title "…"`: a comment written at the start of the best path (and before each
        /// move's note with `verbose`).
        title: Option<String>,
        /// The constituents (made of `Seq*` nodes, move filters and plain filters).
        body: FilterId,
    },
    /// A path status filter (`pathcount`, `pathcountunfocused`, `pathstart`,
    /// `pathlastposition`).
    PathStatus(PathStatus),
    /// A sequence constituent list (for `line`, `path`, legacy `:sequence`).
    SeqConcat(Vec<FilterId>),
    /// A repeated constituent `F{min,max}` (`*` = 0..∞, `+` = 1..∞, `?` = 0..1).
    SeqRepeat {
        /// The repeated constituent.
        body: FilterId,
        /// Minimum repetitions.
        min: u32,
        /// Maximum repetitions (`u32::MAX` = unbounded).
        max: u32,
    },
    /// Alternatives inside a sequence (`(A | B)` in `path`).
    SeqAlt(Vec<FilterId>),
    /// `echo (s t) [in all] body`: for each position t (of the game, or the
    /// descendants of s), with s the current one; matches if body matches for some t.
    Echo {
        /// Variable bound to the source position.
        source: VarId,
        /// Variable bound to each target position.
        target: VarId,
        /// `in all`: the source position itself is a target too (CQL 6.2 `EchoNode`).
        in_all: bool,
        /// Targets in variations too, even when the scan keeps to the main line (the legacy
        /// `:relation (:variations)`); CQL 6 `echo` keeps to the searched positions.
        variations: bool,
        /// Write CQL 6.2's marks on each matching pair (CQL 6 `echo` without `quiet`): the
        /// source's variable name and `<--` with the target, the target's name and `-->` with
        /// the source, `LCA` on their common ancestor when it is neither.
        marks: bool,
        /// Filter evaluated per pair.
        body: FilterId,
    },

    // ----- variables and iteration -------------------------------------------
    /// The value of a variable; no match when unbound.
    Var(VarId),
    /// `x = v`, `x += v` …: assign and match (value: the new value).
    Assign {
        /// The variable.
        var: VarId,
        /// `None` for plain `=`, else the compound operator.
        op: Option<ArithOp>,
        /// The assigned value.
        value: FilterId,
    },
    /// `isbound x` / `isunbound x`.
    IsBound(VarId),
    /// `unbind x`.
    Unbind(VarId),
    /// `D[k]` (CQL 6.2 dictionaries): the value dictionary `D` holds under the key `k` (a
    /// string, number, set of squares or position). No match when `k` does not match or
    /// `D` has no entry for it.
    DictGet {
        /// The dictionary (a variable of kind [`VarKind::Dictionary`](super::VarKind::Dictionary)).
        dict: VarId,
        /// The key.
        key: FilterId,
    },
    /// `D[k] = v` (or `+=` …): store `v` under the key `k`, replacing any earlier entry, and
    /// match with the stored value. A compound operator starts from 0 when `k` is absent.
    /// No match (and nothing stored) when `k` or `v` does not match.
    DictSet {
        /// The dictionary.
        dict: VarId,
        /// The key.
        key: FilterId,
        /// `None` for plain `=`, else the compound operator.
        op: Option<ArithOp>,
        /// The stored value.
        value: FilterId,
    },
    /// `unbind D[k]` removes the entry of one key (when there is one); `unbind D` empties
    /// the dictionary. Always matches.
    DictUnbind {
        /// The dictionary.
        dict: VarId,
        /// The key, or `None` for every entry.
        key: Option<FilterId>,
    },
    /// `#D`: the number of entries of the dictionary. Always matches.
    DictCount(VarId),
    /// `x∊Z F` / `∀x∊Z F` / `square [all] x in Z F`: bind a square variable to each
    /// square of Z. Existential form's value: the set of squares for which F matched.
    /// Universal form: no value; vacuously true over an empty Z.
    SquareIter {
        /// The square variable.
        var: VarId,
        /// The domain set.
        domain: FilterId,
        /// The body.
        body: FilterId,
        /// `∀` / `[forall]` / `all`.
        forall: bool,
    },
    /// `◭y∊Z F` / `∀◭y∊Z F` / `piece [all] y in Z F`: bind a piece variable to the
    /// identity of each piece on a square of Z. Existential value: the squares of Z
    /// whose piece made F match.
    PieceIter {
        /// The piece variable.
        var: VarId,
        /// The domain set (its squares in the current position).
        domain: FilterId,
        /// The body.
        body: FilterId,
        /// Universal form.
        forall: bool,
    },
    /// Bind a piece variable to every identity that at some position of the game is
    /// a piece of `mask` (legacy `:forany NAME designator` tags); matches when the body
    /// matches for some identity. Evaluated at the root; tags bound together never share
    /// an identity.
    IdentityIter {
        /// The tag variable.
        var: VarId,
        /// Piece kinds the identity must have at some point.
        mask: PieceMask,
        /// The body.
        body: FilterId,
    },
    /// `while (C) body`, `loop body`: repeat while C matches (loop: while body matches).
    While {
        /// Condition; `None` for `loop`.
        cond: Option<FilterId>,
        /// The repeated filter.
        body: FilterId,
    },

    // ----- output ------------------------------------------------------------
    /// `comment(a b …)`, `///`: attach text to this position in the output (kept only
    /// if the enclosing filters match). Always matches.
    Comment(Vec<FilterId>),
    /// `message(a b …)`: print a line (on stderr; on stdout in GUI mode). Always
    /// matches. Unless `quiet`, the line starts with the game and the position, as CQL
    /// 6.2 prints it: `Game: N move M(wtm): …`.
    Message {
        /// The parts of the text.
        args: Vec<FilterId>,
        /// `message quiet`: the text alone.
        quiet: bool,
    },
    /// `sort [min] ["doc"] value`: match like `value`, and rank games by it.
    Sort {
        /// Documentation shown in the output.
        doc: String,
        /// Ascending (`sort min`) instead of descending.
        min: bool,
        /// `sort quiet`: the value is not written into the game's comment.
        quiet: bool,
        /// The numeric filter.
        value: FilterId,
    },
    /// `settag("Name" value)`.
    SetTag(FilterId, FilterId),
    /// `removecomment`.
    RemoveComment,

    // ----- game-level analyses -----------------------------------------------
    /// The count of a YACPDB predicate over the whole solution tree of the game
    /// (`ClosedWalk(wR, 4, *)`); computed once per game, numeric, always matches.
    Yacpdb(YacpdbPredicate),

    // ----- compile-time only -------------------------------------------------
    /// A transform of its argument; replaced by `ir::transform::expand`.
    /// `range`: count the matching copies and require the count in range
    /// (`rotate90 4 find Ra1`). `count`: the value is that count (`rotate90 count F`).
    Transform {
        /// Which transform.
        kind: TransformKind,
        /// Count copies and compare to this range.
        range: Option<(i64, i64)>,
        /// Yield the number of matching copies.
        count: bool,
        /// The transformed filter.
        body: FilterId,
    },

    // ----- legacy language ----------------------------------------------------
    /// A fact only the legacy language asks for (castling rights, repetitions, exchange
    /// values, parsed header fields…); see [`LegacyFact`].
    LegacyFact(LegacyFact),

    // ----- added for CQL 6.2 completeness ---------------------------------------
    /// CQL 6.2 `pin [from A] [through B] [to C]`: a line piece of A (default: any) attacks, along
    /// its line, a square of C (default: the kings) that is empty or holds a piece of the other
    /// colour, with exactly one piece between them, a piece of B (default: any) of the other
    /// colour — the pinned piece. The value is the pinning pieces, the pinned pieces or the
    /// squares of C, as `part` says (CQL 6.2: the first parameter written; pinned by default).
    PinOf {
        /// Pinning pieces.
        from: Option<FilterId>,
        /// Pinned pieces.
        through: Option<FilterId>,
        /// The squares pinned to (default: kings).
        to: Option<FilterId>,
        /// Which of the three sets is the value.
        part: PinPart,
    },

    // ----- CQL 6.2 keywords: transforms, files, similar positions, debugging -----
    /// `notransform F`: F exactly as written, whatever transform encloses it (a transform
    /// leaves the board of this part alone). Matches and has the value of F.
    NoTransform(FilterId),
    /// `currenttransform`: the string naming the transform that made this copy of the
    /// enclosing transform's body, outermost first, in angle brackets: `"<>"` untransformed,
    /// `"<invertcolor reflect_h>"` for the colour swap, `"<right^2 up^1>"` for a shift. The
    /// string is filled in while transforms are expanded.
    CurrentTransform(String),
    /// `similarposition [notransform] "FILE.pgn"`: the board (pieces on squares and the side
    /// to move; castling rights and en passant do not count) is one reached on the main line of
    /// a game of FILE, directly or (unless `transform` is false) under a symmetry that keeps
    /// the position legal: the 8 board symmetries when there are no pawns, else horizontal
    /// shifts and the mirror a-file ↔ h-file. When `game_number` is set the value is the number
    /// of the first game of FILE that has the position (used as the sort key).
    SimilarPosition {
        /// The PGN file of the positions to look for.
        file: String,
        /// Also look for the symmetric images of the positions.
        transform: bool,
        /// Yield the smallest game number of FILE with this position.
        game_number: bool,
    },
    /// `readfile S`: the whole text of the file named by the string S (`.pgn`, `.cql` or
    /// `.cqo`); does not match when the file cannot be read.
    ReadFile(FilterId),
    /// `writefile (NAME TEXT)`: appends the string TEXT to the file NAME (`.cql` or `.cqo`),
    /// created empty the first time it is written in the run. Never writes over an input.
    WriteFile(FilterId, FilterId),
    /// `equal (A B)`: A and B have the same value here, of the same kind (a filter that
    /// does not match has the value "false"; two such are equal).
    Equal(FilterId, FilterId),
    /// `cql_abort`, or an `assert` that failed: stops the whole run with an error naming
    /// the place in the query (line and column in the string, then what stopped there
    /// when it was not `cql_abort`).
    Abort(String),
    /// `pathdebug`: inside a `path`, writes the path's state (start, length so far) to
    /// the console as a message; always matches.
    PathDebug,
    /// `lastgamenumber`: the number of the last game of the input (by counting games, and
    /// no larger than the upper bound of `cql(gamenumber …)`).
    LastGameNumber,
    /// `consecutivemoves [quiet] [MIN [MAX]] (x y)`: the length of the longest run of
    /// identical consecutive moves that both lines from the common ancestor down to x and
    /// to y contain (at any offset), matching only when it lies in `min..=max` (1.. without
    /// a range). Unless `quiet`, the longest run a matching game had is marked at the end of
    /// the game: `x-move[i]` and `y-move[i]` after the i-th move of the run on each line.
    ConsecutiveMoves {
        /// First position (a position variable).
        x: FilterId,
        /// Second position (a position variable).
        y: FilterId,
        /// Shortest run that matches.
        min: i64,
        /// Longest run that matches.
        max: i64,
        /// `quiet`: no marks.
        quiet: bool,
    },
    // ----- study databases and FEN (CQL 6.2 `hhdb`, `fen`) ------------------------
    /// Does some text of the game — a tag value or a comment anywhere in the game tree,
    /// variations included — contain this text? A game-level fact (CQL 6.2 `hhdb cooked`:
    /// the study's record carries a `<cook…>` note somewhere).
    GameTextContains(String),
    /// CQL 6.2 `hhdb award …`: the distinction a study received, read from the `[Event]` tag of
    /// an HHdb-style PGN (`3.p …` third prize, `1/2.hm` shared first/second honourable mention,
    /// `sp.c` special commendation). Matches when the game has a distinction of the kind asked
    /// for; the value is its rank (the best rank of a shared one, or the worst with `max`; 1 to
    /// 10,000 when no rank is given). A special distinction not asked for with `special`
    /// matches without a rank (no numeric value).
    HhdbAward {
        /// Which kind of distinction.
        kind: HhdbAwardKind,
        /// Only special distinctions (`hhdb special …`).
        special: bool,
        /// The worst rank of a shared distinction instead of the best (`hhdb … max`).
        max: bool,
    },
    /// CQL 6.2 `fen` without a string: the FEN of the current position (board, side to move,
    /// castling rights, en passant square, halfmove clock, move number).
    CurrentFen,
}

/// The kind of distinction a study received, as HHdb records it ([`Filter::HhdbAward`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HhdbAwardKind {
    /// Any distinction: prize, honourable mention or commendation (`award`).
    Any,
    /// A prize (`.p`).
    Prize,
    /// An honourable mention (`.hm`).
    HonourableMention,
    /// A commendation (`.c`).
    Commendation,
}

/// Which set a CQL 6.2 `pin` yields ([`Filter::PinOf`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PinPart {
    /// The pinning line pieces (`pin from …` first).
    Pinners,
    /// The pinned pieces (`pin`, `pin through …` first).
    Pinned,
    /// The squares the pieces are pinned to (`pin to …` first).
    Targets,
}
