//! The one typed intermediate representation that every front-end lowers to.
//!
//! Takes in: nothing but constructor calls from `lang::{cql6,legacy,yacpdb}`.
//! Gives out: an [`Ir`] — a flat arena of [`Filter`] nodes addressed by [`FilterId`],
//! plus the query [`Settings`] (the `cql(...)` header and CLI overrides) and the
//! variable table. `ir::transform` expands transforms inside the arena before
//! `eval` ever sees it, and `ir::dump` prints it (`--dump-ir`).
//! Must never: look at a game, read source text, or print.
//!
//! # Matching model
//! Every filter is evaluated at one position of a game (a node of the game tree).
//! It either *does not match* there, or it matches and has a [`ValueType`]d value
//! (a set of squares, a number, a position, a piece, a string) or no value at all.
//! A set filter matches when its set is non-empty, unless noted; a numeric filter
//! matches whenever it has a number. A query matches a game when the number of
//! matching positions lies in `Settings::matchcount` (default at least one).
//!
//! Arena nodes are hash-consed: adding a node equal to an existing one returns the
//! existing id, so copies made by transforms share every sub-tree they leave unchanged.

pub mod cost;
pub mod dump;
pub mod legacy;
pub mod loops;
pub mod normalize;
pub mod props;
pub mod transform;
pub mod visit;

use rustc_hash::FxHashMap as HashMap;

use shakmaty::{Bitboard, Color, Role};

pub use legacy::{LegacyFact, PawnShare};

/// Spans live in [`crate::diag`]; re-exported so `crate::ir::Span` keeps working.
pub use crate::diag::Span;

/// Index of a filter node in the [`Ir`] arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FilterId(pub u32);

/// Index of a variable in [`Ir::vars`] (square, piece, number, string, position, set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// What kind of value a filter yields when it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueType {
    /// Only matches or not (`check`, `and`, universal iteration).
    None,
    /// A set of squares (`♖`, `a-h8`, `♖→♛`).
    Set,
    /// An integer (`#♙`, `ply`, `power ♕`).
    Number,
    /// A node of the game tree (`find check`, `parent`).
    Position,
    /// A piece identity (a piece variable).
    Piece,
    /// A string (`player white`, `"abc"`).
    String,
}

/// A set of piece kinds a piece designator accepts: bit `color*6 + role-1` for the
/// twelve coloured pieces, bit 12 for an empty square.
///
/// `A` is the six white bits, `[Aa]` all twelve, `_` / `□` bit 12 only, `?` all thirteen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PieceMask(pub u16);

impl PieceMask {
    /// The empty-square bit.
    pub const EMPTY: PieceMask = PieceMask(1 << 12);
    /// Every white piece (`A`, `△`).
    pub const WHITE: PieceMask = PieceMask(0x3f);
    /// Every black piece (`a`, `▲`).
    pub const BLACK: PieceMask = PieceMask(0x3f << 6);
    /// Every piece of either colour (`[Aa]`, `◭`).
    pub const ANY_PIECE: PieceMask = PieceMask(0xfff);
    /// Any piece or an empty square (legacy `?`).
    pub const ANYTHING: PieceMask = PieceMask(0x1fff);

    /// The bit of one coloured piece.
    pub fn piece(color: Color, role: Role) -> PieceMask {
        let c = if color.is_white() { 0 } else { 1 };
        PieceMask(1 << (c * 6 + role as u16 - 1))
    }
    /// Union of two masks.
    pub fn with(self, other: PieceMask) -> PieceMask {
        PieceMask(self.0 | other.0)
    }
    /// Does this mask accept this coloured piece?
    pub fn contains_piece(self, color: Color, role: Role) -> bool {
        self.0 & PieceMask::piece(color, role).0 != 0
    }
    /// Does this mask accept an empty square?
    pub fn contains_empty(self) -> bool {
        self.0 & PieceMask::EMPTY.0 != 0
    }
    /// The same mask with white and black exchanged (`flipcolor`, `reversecolor`).
    pub fn swap_colors(self) -> PieceMask {
        let w = self.0 & 0x3f;
        let b = (self.0 >> 6) & 0x3f;
        PieceMask((self.0 & 0x1000) | (w << 6) | b)
    }
}

/// Comparison operators (`<` `<=`/`≤` `==` `!=`/`≠` `>=`/`≥` `>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`, `≤`
    Le,
    /// `==`
    Eq,
    /// `!=`, `≠`
    Ne,
    /// `>=`, `≥`
    Ge,
    /// `>`
    Gt,
}

impl CmpOp {
    /// Apply the comparison to two ordered values.
    pub fn holds<T: Ord>(self, a: T, b: T) -> bool {
        match self {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::Ge => a >= b,
            CmpOp::Gt => a > b,
        }
    }
}

/// Integer arithmetic operators. Division and remainder by zero do not match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithOp {
    /// `+` (also string concatenation when both sides are strings)
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (integer division, truncating)
    Div,
    /// `%`
    Rem,
}

/// The eight board directions, as a bit mask, used by direction filters, `ray`, `pin`
/// and `rotate45`.
///
/// Bits: 0 up (north), 1 down, 2 right (east), 3 left, 4 northeast, 5 northwest,
/// 6 southeast, 7 southwest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Directions(pub u8);

impl Directions {
    /// `up`
    pub const UP: Directions = Directions(1);
    /// `down`
    pub const DOWN: Directions = Directions(2);
    /// `right`
    pub const RIGHT: Directions = Directions(4);
    /// `left`
    pub const LEFT: Directions = Directions(8);
    /// `northeast`
    pub const NORTHEAST: Directions = Directions(16);
    /// `northwest`
    pub const NORTHWEST: Directions = Directions(32);
    /// `southeast`
    pub const SOUTHEAST: Directions = Directions(64);
    /// `southwest`
    pub const SOUTHWEST: Directions = Directions(128);
    /// `vertical` = up and down
    pub const VERTICAL: Directions = Directions(3);
    /// `horizontal` = left and right
    pub const HORIZONTAL: Directions = Directions(12);
    /// `orthogonal` = vertical and horizontal (rook lines)
    pub const ORTHOGONAL: Directions = Directions(15);
    /// `diagonal` = the four diagonals (bishop lines)
    pub const DIAGONAL: Directions = Directions(0xf0);
    /// `anydirection` = all eight (queen lines)
    pub const ANY: Directions = Directions(0xff);

    /// (file delta, rank delta) of each bit, in bit order.
    pub const DELTAS: [(i8, i8); 8] = [(0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1)];

    /// The opposite directions: `down` for `up`, `southwest` for `northeast`.
    pub fn reversed(self) -> Directions {
        // Bits 0/1, 2/3, 4/7 and 5/6 are opposites.
        let b = self.0;
        Directions(
            (b & 0x01) << 1
                | (b & 0x02) >> 1
                | (b & 0x04) << 1
                | (b & 0x08) >> 1
                | (b & 0x10) << 3
                | (b & 0x80) >> 3
                | (b & 0x20) << 1
                | (b & 0x40) >> 1,
        )
    }
}

/// How `find` walks the game tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FindDirection {
    /// `find F`: this position and its descendants (main line only unless `variations`).
    Forward,
    /// `find <-- F`: this position and its ancestors.
    Backward,
}

/// Whether a move filter looks at a move actually played or at possible moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveSource {
    /// The move played from this position to its (main-line, or each) child: `X――Y`, `move`.
    Next,
    /// The move that led into this position: `move previous`.
    Previous,
    /// Any legal move in this position: `legal`, `move legal`.
    Legal,
    /// Any pseudo-legal move (ignores checks): `pseudolegal`.
    Pseudolegal,
}

/// Special kinds a move filter can require.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveKind {
    /// Any move.
    Any,
    /// `o-o` — king-side castling.
    CastleKingside,
    /// `o-o-o` — queen-side castling.
    CastleQueenside,
    /// `castle` — either castling.
    Castle,
    /// `enpassant` — an en-passant capture.
    EnPassant,
    /// `null` / `--` in PGN — a null move.
    Null,
}

/// Which part of the matching moves a move filter yields as its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveValue {
    /// The set of destination squares (the default for `X――Y` and `move to`).
    To,
    /// The set of origin squares (`move from`).
    From,
    /// The number of matching moves (`countmoves`).
    Count,
    /// The value of the target filter `(F)` after the first matching move (`――(from)` is
    /// the square the moving piece left); the destination squares when `F` has no value.
    Then,
}

/// A move filter: CQL 6.2 `X――Y`, `X×Y`, `――=♖`, `o-o`, and the 6.0 `move` filter.
///
/// A move matches when every given part holds. Captures: `capture` is the set the
/// captured piece must stand on (for en passant: the captured pawn's square) —
/// `X×Y` sets it to `Y`. `promote` is a mask of roles the move must promote to
/// (colour is ignored, as in CQL 6.2). `then` is evaluated in the position after the
/// move (`――(check)`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MoveFilter {
    /// Played, previous, legal or pseudo-legal moves.
    pub source: MoveSource,
    /// Set the moving piece must stand on; `None` = any.
    pub from: Option<FilterId>,
    /// Set of destination squares; `None` = any.
    pub to: Option<FilterId>,
    /// Set the captured piece must stand on; `None` = capture not required.
    pub capture: Option<FilterId>,
    /// Roles the move must promote to (bit per `Role as u8`); 0 = promotion not required.
    pub promote: u8,
    /// A special kind of move.
    pub kind: MoveKind,
    /// Filter that must match in the position after the move.
    pub then: Option<FilterId>,
    /// Only the main-line move (`primary`) / only variation moves (`secondary`) / either.
    pub line: LineChoice,
    /// What the filter yields.
    pub value: MoveValue,
    /// Is castling also seen as a move of its rook (`R--f1` matches `O-O`)? CQL 6.2's dash
    /// filters see it so; its `move` filter sees castling as a king move only (`move from
    /// R` does not match `O-O`: `MoveBase` compares the king's squares).
    pub rook_of_castling: bool,
}

impl MoveFilter {
    /// Any move from `source`, with no condition on its squares, captures, promotion or
    /// kind, yielding its destination square: the bare `move` / `move legal` filters.
    pub fn any(source: MoveSource) -> MoveFilter {
        MoveFilter {
            source,
            from: None,
            to: None,
            capture: None,
            promote: 0,
            kind: MoveKind::Any,
            then: None,
            line: LineChoice::Any,
            value: MoveValue::To,
            rook_of_castling: true,
        }
    }
}

/// A choice among the moves from a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LineChoice {
    /// Any child.
    Any,
    /// Only the first child (main continuation): `primary`.
    Primary,
    /// Only later children (variations): `secondary`.
    Secondary,
}

/// A game header field.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum HeaderField {
    /// `[White]` or `[Black]` — the player of that colour (transforms swap it).
    Player(Color),
    /// `[WhiteElo]` / `[BlackElo]`.
    Elo(Color),
    /// `[Event]`
    Event,
    /// `[Site]`
    Site,
    /// `[Date]`
    Date,
    /// `[ECO]`
    Eco,
    /// `[Result]` as text.
    ResultText,
    /// Any tag by name (`tag "TimeControl"`).
    Tag(String),
}

/// A game result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// `1-0`
    WhiteWins,
    /// `0-1`
    BlackWins,
    /// `1/2-1/2`
    Draw,
}

/// Position-tree navigation values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TreeStep {
    /// `parent` — the position before the last move.
    Parent,
    /// `initialposition` — the root of the game.
    Initial,
    /// `currentposition`, `∙`.
    Current,
    /// `lastposition` / the terminal position of the main line below this one.
    Last,
}

/// Relations between two positions of the game tree (`≺ ≻ ≼ ≽`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TreeRelation {
    /// `x ≺ y`: x is a proper ancestor of y.
    Ancestor,
    /// `x ≼ y`: x is y or an ancestor of it.
    AncestorOrSelf,
    /// `x ≻ y`: x is a proper descendant of y.
    Descendant,
    /// `x ≽ y`: x is y or a descendant of it.
    DescendantOrSelf,
}

/// Built-in operations that take evaluated arguments and produce a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `abs(n)`
    Abs,
    /// `min(a b …)` — smallest; all must match.
    Min,
    /// `max(a b …)`
    Max,
    /// `sqrt(n)` — integer square root; negative does not match.
    Sqrt,
    /// `int(s)` — string to number; no match if not numeric.
    Int,
    /// `str(x)` — any value to its string form.
    Str,
    /// `lowercase(s)`
    Lowercase,
    /// `uppercase(s)`
    Uppercase,
    /// `ascii(s)` / `ascii(n)` — character code conversion.
    Ascii,
    /// `indexof(needle haystack)` — byte index or -1.
    IndexOf,
    /// `file s` — 1..8 of a single square.
    File,
    /// `rank s` — 1..8 of a single square.
    Rank,
    /// `makesquare(file rank)` / `makesquare "e4"`.
    MakeSquare,
    /// `type x` — 1 pawn … 6 king of the piece on a single square; 0 empty.
    Type,
    /// `typename x` — the kind of the piece on x as one upper-case letter, "P" … "K", whatever its colour.
    TypeName,
    /// `piecename x` — "P", "n", …
    PieceName,
    /// `colortype x` — 1 white, -1 black, 0 empty.
    ColorType,
    /// `power X` — P1 N3 B3 R5 Q9 K0 summed over the set.
    Power,
    /// `light X` — the light squares of X.
    Light,
    /// `dark X` — the dark squares of X.
    Dark,
    /// `#s` on a string — its length.
    Length,
    /// `s[i]` / `s[i:j]` — substring.
    Substring,
    /// `pieceid x` — the identity number of a piece (or of the piece on a square).
    PieceId,
}

/// Pawn-structure sets (CQL 6.2 `passedpawns` …): the pawns of both colours with
/// that property.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PawnStructure {
    /// No enemy pawn ahead on its own or an adjacent file.
    Passed,
    /// Another pawn of its colour on the same file.
    Doubled,
    /// No pawn of its colour on an adjacent file.
    Isolated,
    /// A pawn of its colour on an adjacent file.
    Connected,
}

/// The board transforms of CQL 6 (`flip`, `shift`, …). They exist only until
/// `ir::transform::expand` has replaced them by copies of their argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TransformKind {
    /// `flip`, `✵`: the 8 symmetries of the square (dihedral group).
    Flip,
    /// `flipvertical`: mirror a-file ↔ h-file… no: mirror about the vertical axis (a↔h).
    FlipVertical,
    /// `fliphorizontal`: mirror about the horizontal axis (rank 1 ↔ rank 8).
    FlipHorizontal,
    /// `flipcolor`, `⬓`: identity and the colour-swapped, rank-mirrored copy.
    FlipColor,
    /// `reversecolor`: only the colour-swapped copy (no identity).
    ReverseColor,
    /// `rotate90`: the four rotations by multiples of 90°.
    Rotate90,
    /// `rotate45`: the eight rotations of directions by multiples of 45°.
    Rotate45,
    /// `shift`: all translations keeping named squares on the board.
    Shift,
    /// `shifthorizontal`: translations along ranks.
    ShiftHorizontal,
    /// `shiftvertical`: translations along files.
    ShiftVertical,
    /// Legacy `:flipdiagonal`: the identity and the mirror about the a1–h8 diagonal.
    FlipDiagonal,
    /// Legacy shifts (`:shift…` of CQL 1–3 / CQL-S) with the CQL 3 edge rule: a square on
    /// the trailing edge stays and its images are added, one on the leading edge is lost.
    LegacyShift(ShiftAxes),
    /// Legacy `:flipoffdiagonal`: the identity and the mirror about the a8–h1 diagonal.
    FlipOffDiagonal,
}

/// The translations of a legacy shift keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ShiftAxes {
    /// `:shift`: every file and rank offset.
    Both,
    /// `:shifthorizontal`: along ranks.
    Horizontal,
    /// `:shiftvertical`: along files.
    Vertical,
    /// `:shiftmaindiagonal`: along the a1–h8 direction (equal file and rank offsets).
    MainDiagonal,
    /// `:shiftoffdiagonal`: along the a8–h1 direction (opposite offsets).
    OffDiagonal,
    /// `:shiftdiagonal`: both diagonal directions.
    Diagonals,
}

/// One game-level analysis of the YACPDB query language: a predicate name and its
/// arguments as given (`*` = wildcard), validated by the front-end.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct YacpdbPredicate {
    /// Predicate name as in YACPDB (`ClosedWalk`, `PW`, `Author`, …).
    pub name: String,
    /// Arguments, `None` for the wildcard `*`.
    pub args: Vec<Option<String>>,
}

/// Parameters of a `line` sequence filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LineParams {
    /// `<--` instead of `-->`.
    pub backward: bool,
    /// `firstmatch`
    pub first_match: bool,
    /// `lastposition` — the value is the last matched position.
    pub last_position: bool,
    /// `singlecolor` — only positions with the same side to move.
    pub single_color: bool,
    /// `nestban`
    pub nest_ban: bool,
    /// `primary` — follow main continuations only.
    pub primary: bool,
    /// `secondary`
    pub secondary: bool,
    /// `quiet` — no comments.
    pub quiet: bool,
    /// A CQL 6.2 path (`⊢`): a move constituent (a `move next` filter, possibly with
    /// conditions before it) is tested against each single continuation, and the line goes on
    /// along the continuation whose move matched, not along any other one.
    pub follow_moves: bool,
    /// `line MIN [MAX] …`: the line matches only when the number of positions it matched
    /// (counted in moves of one side with `singlecolor`) lies in `MIN..=MAX`.
    pub range: Option<(i64, i64)>,
    /// Numeric variables written for `MIN` / `MAX` (`line 1 v --> …`, as CQL 6.2 ranges
    /// allow): their values, read when the line runs, stand for that end of `range`.
    pub range_variables: (Option<VarId>, Option<VarId>),
}

/// Parameters of a CQL 6.2 `path` (`⊢`) filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PathParams {
    /// `focus capture S`: a move that captures a focused piece counts as a move of the focus.
    pub focus_capture: bool,
    /// `keepallbest`: keep the output (comments …) of every best path, not only the first.
    pub keep_all_best: bool,
    /// `piecepath`: comment the route of the focused piece along the best path.
    pub piece_path: bool,
    /// `nestban`
    pub nest_ban: bool,
    /// `firstmatch`
    pub first_match: bool,
    /// `lastposition`: the value is the last position of the best path.
    pub last_position: bool,
    /// `primary`: follow main continuations only.
    pub primary: bool,
    /// `secondary`: follow variations only.
    pub secondary: bool,
    /// `quiet`: no automatic comments.
    pub quiet: bool,
    /// `verbose`: note each move of the best path (`move i of n`).
    pub verbose: bool,
    /// `path MIN [MAX] …`: the path matches only when its value (its length, or its best
    /// `max` value) lies in `MIN..=MAX`.
    pub range: Option<(i64, i64)>,
    /// Numeric variables written for `MIN` / `MAX`: their values, read when the path runs,
    /// stand for that end of `range`.
    pub range_variables: (Option<VarId>, Option<VarId>),
}

/// What a path status filter reports about the path being matched (inside its
/// constituents) or the last path matched (after it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathStatus {
    /// `pathcount`: moves of the focus made along the path so far.
    Count,
    /// `pathcountunfocused`: moves of other pieces skipped over along the path so far.
    CountUnfocused,
    /// `pathstart`: the position the path started from.
    Start,
    /// `pathlastposition`: the position the path has reached.
    LastPosition,
}

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
    /// `pin [from A] [through B] [to C]`: the set of pinned pieces — pieces of B
    /// standing between a line piece of A of the other colour and a piece of C of their own
    /// colour, nothing else between. Defaults: A all sliders, B any piece, C the kings.
    /// With `from` given and `through` not, the value is the set of pinning pieces instead.
    Pin {
        /// Pinning pieces.
        from: Option<FilterId>,
        /// Pinned pieces.
        through: Option<FilterId>,
        /// Pieces shielded (default: kings).
        to: Option<FilterId>,
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
        /// The dictionary (a variable of kind [`VarKind::Dictionary`]).
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

/// What a variable holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarKind {
    /// A square (bound by square iteration) — a one-square set.
    Square,
    /// A piece identity.
    Piece,
    /// A number, set, string or position (typed by its first assignment).
    Value,
    /// A position variable (`echo`).
    Position,
    /// A dictionary (`dictionary D`): a map from keys (strings, numbers, sets, positions)
    /// to values. `local`: emptied at the start of every game (`local dictionary D`);
    /// otherwise its entries are kept from one game to the next.
    Dictionary {
        /// Emptied for every game.
        local: bool,
    },
}

/// A variable of the query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarInfo {
    /// The name the user wrote.
    pub name: String,
    /// What it holds.
    pub kind: VarKind,
    /// `persistent`: summed over all games and printed at the end (a `persistent
    /// dictionary` is kept across games and its entries printed at the end).
    pub persistent: bool,
}

/// Query options from the `cql(...)` header, legacy match-list keywords and the CLI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Input files named by the script (`cql(input f)`); the CLI overrides.
    pub input: Vec<String>,
    /// Output file (`cql(output f)`).
    pub output: Option<String>,
    /// Search variations too (`cql(variations)`, `--variations`).
    pub variations: bool,
    /// Number of matching positions a game needs (inclusive).
    pub matchcount: (u64, u64),
    /// Text written at matching positions instead of `CQL` (`matchstring`).
    pub matchstring: Option<String>,
    /// Only games whose number is in this range (`gamenumber N M`).
    pub gamenumber: Option<(u64, u64)>,
    /// `silent`: no comments of the run's in the written games (see [`crate::output::PgnStyle`]).
    pub silent: bool,
    /// `quiet`: no marks at matching positions; the query's own comments stay.
    pub quiet: bool,
    /// `noremovecomment`: `removecomment` leaves the game's comments in the output.
    pub keep_removed_comments: bool,
    /// `result R` in the header: restrict to games with this result.
    pub result: Option<GameResult>,
    /// Evaluate the body once per game at the root (YACPDB queries, legacy match
    /// lists) instead of at every position.
    pub per_game: bool,
    /// `sort matchcount` in the header: games come out by their number of matching
    /// positions, most first.
    pub sort_matchcount: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            input: Vec::new(),
            output: None,
            variations: false,
            matchcount: (1, u64::MAX),
            sort_matchcount: false,
            matchstring: None,
            gamenumber: None,
            silent: false,
            quiet: false,
            keep_removed_comments: false,
            result: None,
            per_game: false,
        }
    }
}

/// How many places beyond the first are recorded for one node (for diagnostics only).
const MAX_OCCURRENCES: usize = 64;

/// A whole query in IR form: the arena, its variables, the root filter and settings.
#[derive(Clone, Debug, Default)]
pub struct Ir {
    nodes: Vec<Filter>,
    /// The span each node was first added with.
    spans: Vec<Span>,
    /// The span each node was last added with (see [`Ir::span`]).
    latest: Vec<Span>,
    /// The further distinct spans a node was added with, in the order they came (at most
    /// [`MAX_OCCURRENCES`] per node): equal nodes written in several places share one id,
    /// and these let a diagnostic point at the place it is about.
    occurrences: HashMap<FilterId, Vec<Span>>,
    dedup: HashMap<Filter, FilterId>,
    /// Variables, indexed by [`VarId`].
    pub vars: Vec<VarInfo>,
    /// The filter evaluated at each position (or once per game).
    pub root: Option<FilterId>,
    /// Header options.
    pub settings: Settings,
}

impl Ir {
    /// An empty query.
    pub fn new() -> Ir {
        Ir::default()
    }

    /// Add a node (or find the equal one already there) and return its id.
    ///
    /// Equal nodes are one node: adding a node that is already there records `span` as
    /// one more place it is written (see [`Ir::span`], [`Ir::span_within`]).
    pub fn add(&mut self, filter: Filter, span: Span) -> FilterId {
        if let Some(&id) = self.dedup.get(&filter) {
            self.note_occurrence(id, span);
            return id;
        }
        let id = FilterId(self.nodes.len() as u32);
        self.nodes.push(filter.clone());
        self.spans.push(span);
        self.latest.push(span);
        self.dedup.insert(filter, id);
        id
    }

    /// Add a node made from `original` (its image under a transform, or its rebuilt form
    /// after a child changed): the new node is written wherever the original is, so it
    /// gets every span of the original, the first one first.
    pub fn add_copy(&mut self, filter: Filter, original: FilterId) -> FilterId {
        let id = self.add(filter, self.first_span(original));
        if id != original {
            let more = self.occurrences.get(&original).cloned().unwrap_or_default();
            for span in more {
                self.note_occurrence(id, span);
            }
            let latest = self.span(original);
            self.note_occurrence(id, latest);
        }
        id
    }

    /// Record that node `id` is also written at `span`. A span without text (the
    /// default, for nodes a caller made up) is not a place.
    fn note_occurrence(&mut self, id: FilterId, span: Span) {
        let i = id.0 as usize;
        if span == Span::default() || self.latest[i] == span {
            return;
        }
        self.latest[i] = span;
        if self.spans[i] == span {
            return;
        }
        let more = self.occurrences.entry(id).or_default();
        if more.len() < MAX_OCCURRENCES && !more.contains(&span) {
            more.push(span);
        }
    }

    /// The node behind an id.
    pub fn get(&self, id: FilterId) -> &Filter {
        &self.nodes[id.0 as usize]
    }

    /// Source span of a node: the place it was last added for. While a front-end builds
    /// the tree bottom-up, that is the text just parsed, so a parent's span, joined from
    /// its children's, covers the children as written inside it (not an equal filter
    /// written earlier). A diagnostic after parsing should name the place it is about
    /// with [`Ir::span_within`] or [`Ir::span_along`].
    pub fn span(&self, id: FilterId) -> Span {
        self.latest[id.0 as usize]
    }

    /// The span a node was first added with: its first place in the text.
    pub fn first_span(&self, id: FilterId) -> Span {
        self.spans[id.0 as usize]
    }

    /// Every place node `id` is written (as far as recorded), first one first.
    pub fn spans_of(&self, id: FilterId) -> impl Iterator<Item = Span> + '_ {
        let more = self.occurrences.get(&id).map_or(&[][..], |v| v.as_slice());
        std::iter::once(self.first_span(id)).chain(more.iter().copied())
    }

    /// The place node `id` is written inside `outer` (the text of an enclosing filter):
    /// its earliest such span, or its first span if none lies inside.
    pub fn span_within(&self, id: FilterId, outer: Span) -> Span {
        self.spans_of(id)
            .filter(|s| outer.start <= s.start && s.end <= outer.end)
            .min_by_key(|s| (s.start, std::cmp::Reverse(s.end)))
            .unwrap_or_else(|| self.first_span(id))
    }

    /// The place of the last node of `path` (a chain of nodes from an ancestor down to
    /// it, each the child of the one before): each node is placed inside the place of its
    /// parent, the first at its first span.
    pub fn span_along(&self, path: &[FilterId]) -> Span {
        let mut place: Option<Span> = None;
        for &id in path {
            place = Some(match place {
                None => self.first_span(id),
                Some(outer) => self.span_within(id, outer),
            });
        }
        place.unwrap_or_default()
    }

    /// Number of nodes in the arena.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Is the arena empty?
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Declare a variable, or return the existing one of that name.
    pub fn var(&mut self, name: &str, kind: VarKind) -> VarId {
        if let Some(i) = self.vars.iter().position(|v| v.name == name) {
            return VarId(i as u32);
        }
        self.vars.push(VarInfo { name: name.to_string(), kind, persistent: false });
        VarId(self.vars.len() as u32 - 1)
    }

    /// Copy the tree below `id` of another query into this arena (hash-consed, so shared
    /// nodes stay shared) and return its new id. Used to embed one front-end's query in
    /// another's, e.g. a YACPDB predicate inside a CQL 6 script. Every copied node gets
    /// `span`, since the other query's spans point into another text. The other query must
    /// have no variables.
    pub fn import(&mut self, other: &Ir, id: FilterId, span: Span) -> FilterId {
        let mut memo: HashMap<FilterId, FilterId> = HashMap::default();
        // Children before parents, without recursion: a post-order walk.
        let mut stack = vec![(id, false)];
        while let Some((node, expanded)) = stack.pop() {
            if memo.contains_key(&node) {
                continue;
            }
            let filter = other.get(node);
            if !expanded {
                stack.push((node, true));
                for child in visit::children(filter) {
                    if !memo.contains_key(&child) {
                        stack.push((child, false));
                    }
                }
                continue;
            }
            let copied = visit::map_children::<()>(filter, |c| Ok(memo[&c])).unwrap_or_else(|_| filter.clone());
            let new_id = self.add(copied, span);
            memo.insert(node, new_id);
        }
        memo[&id]
    }

    /// Look a variable up by name.
    pub fn find_var(&self, name: &str) -> Option<VarId> {
        self.vars.iter().position(|v| v.name == name).map(|i| VarId(i as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runaway_pattern_is_refused_and_an_ordinary_one_compiles() {
        // A fuzz input whose `Stip('…{77666}…')` took seconds to compile before the limit.
        assert!(compile_pattern("a{77666}{77666}").is_err());
        assert!(compile_pattern("^#[2-5]$").is_ok());
    }

    #[test]
    fn equal_filters_written_twice_keep_both_places() {
        let mut ir = Ir::new();
        let first = ir.add(Filter::Check, Span::new(6, 11));
        let again = ir.add(Filter::Check, Span::new(20, 25));
        assert_eq!(first, again);
        assert_eq!(ir.first_span(first), Span::new(6, 11));
        // The place last added: what a parent built right now is made of.
        assert_eq!(ir.span(first), Span::new(20, 25));
        assert_eq!(ir.spans_of(first).collect::<Vec<_>>(), vec![Span::new(6, 11), Span::new(20, 25)]);
        assert_eq!(ir.span_within(first, Span::new(15, 30)), Span::new(20, 25));
        assert_eq!(ir.span_within(first, Span::new(0, 30)), Span::new(6, 11));
        // Nowhere inside: the first place.
        assert_eq!(ir.span_within(first, Span::new(40, 50)), Span::new(6, 11));
        // A made-up node (no text) is not a place.
        ir.add(Filter::Check, Span::default());
        assert_eq!(ir.spans_of(first).count(), 2);
    }

    #[test]
    fn a_path_places_each_node_inside_its_parent() {
        let mut ir = Ir::new();
        let check_alone = ir.add(Filter::Check, Span::new(6, 11));
        let check = ir.add(Filter::Check, Span::new(20, 25));
        let not = ir.add(Filter::Not(check), Span::new(16, 25));
        let root = ir.add(Filter::And(vec![check_alone, not]), Span::new(0, 26));
        assert_eq!(ir.span_along(&[root, not, check]), Span::new(20, 25));
        assert_eq!(ir.span_along(&[root, check_alone]), Span::new(6, 11));
        assert_eq!(ir.span_along(&[]), Span::default());
    }

    #[test]
    fn a_copy_is_written_wherever_its_original_is() {
        let mut ir = Ir::new();
        let a1 = ir.add(Filter::Squares(Bitboard::from_square(shakmaty::Square::A1)), Span::new(2, 4));
        ir.add(Filter::Squares(Bitboard::from_square(shakmaty::Square::A1)), Span::new(10, 12));
        let h1 = ir.add_copy(Filter::Squares(Bitboard::from_square(shakmaty::Square::H1)), a1);
        assert_ne!(h1, a1);
        assert_eq!(ir.spans_of(h1).collect::<Vec<_>>(), vec![Span::new(2, 4), Span::new(10, 12)]);
        assert_eq!(ir.span(h1), Span::new(10, 12));
        // Copying a node onto itself changes nothing.
        assert_eq!(ir.add_copy(ir.get(a1).clone(), a1), a1);
        assert_eq!(ir.spans_of(a1).count(), 2);
    }

    #[test]
    fn places_per_node_are_bounded() {
        let mut ir = Ir::new();
        let id = ir.add(Filter::Mate, Span::new(0, 1));
        for i in 1..1000 {
            ir.add(Filter::Mate, Span::new(i * 2, i * 2 + 1));
        }
        assert_eq!(ir.spans_of(id).count(), MAX_OCCURRENCES + 1);
        // The latest place is still known exactly.
        assert_eq!(ir.span(id), Span::new(1998, 1999));
    }
}

/// The compiled size a query's regular expression may reach (`~~`, YACPDB `Stip`, …): ample
/// for any pattern a user writes, and a quick refusal for a runaway repetition such as
/// `a{77666}{77666}` instead of a long compile.
pub const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// Compile a regular expression of a query: every front-end and the evaluator use this, so
/// that a pattern is accepted or refused the same way everywhere. The last few patterns are
/// remembered per thread with their outcome: a front-end compiles a pattern to check it and
/// the compiled query compiles it again, and building a regex (its literal prefilters, its
/// Unicode classes) costs far more than the check of most queries. At most
/// [`REMEMBERED_PATTERNS`] are kept, each of at most [`PATTERN_SIZE_LIMIT`].
pub fn compile_pattern(pattern: &str) -> Result<regex::Regex, regex::Error> {
    type Compiled = HashMap<String, Result<regex::Regex, regex::Error>>;
    thread_local! {
        static COMPILED: std::cell::RefCell<Compiled> = std::cell::RefCell::new(Compiled::default());
    }
    COMPILED.with(|compiled| {
        if let Some(known) = compiled.borrow().get(pattern) {
            return known.clone();
        }
        let outcome = regex::RegexBuilder::new(pattern).size_limit(PATTERN_SIZE_LIMIT).build();
        let mut compiled = compiled.borrow_mut();
        if compiled.len() >= REMEMBERED_PATTERNS {
            compiled.clear();
        }
        compiled.insert(pattern.to_string(), outcome.clone());
        outcome
    })
}

/// How many compiled patterns [`compile_pattern`] keeps per thread.
pub const REMEMBERED_PATTERNS: usize = 16;

#[cfg(test)]
mod pattern_tests {
    use super::*;

    /// A remembered pattern gives what compiling it gives, refusals included, also after the
    /// memory has been emptied to make room.
    #[test]
    fn remembered_patterns_give_the_compiled_outcome() {
        for round in 0..2 {
            for i in 0..REMEMBERED_PATTERNS + 3 {
                let pattern = format!("^a{i}b+$");
                let re = compile_pattern(&pattern).expect("a valid pattern");
                assert!(re.is_match(&format!("a{i}bb")), "round {round}, {pattern}");
                assert!(!re.is_match(&format!("a{i}")), "round {round}, {pattern}");
            }
            assert!(compile_pattern("(unclosed").is_err());
            assert!(compile_pattern("a{77666}{77666}").is_err(), "over the size limit");
        }
    }
}
