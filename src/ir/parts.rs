//! The parts a [`Filter`](super::Filter) carries besides its children: piece masks, directions,
//! comparison and arithmetic operators, move filters, header fields, tree steps, built-in
//! functions, pawn structures, transforms, and the parameters of `line` and `path`.

use shakmaty::{Color, Role};

use super::{FilterId, VarId};

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
