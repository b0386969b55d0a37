//! Position state (docs/position-state.md): check, mate, side to move, where the
//! position lies in the game.
//!
//! One family of the IR's [`Filter`](crate::ir::Filter) (`Filter::PositionState`); its evaluator is
//! `src/eval/engine/` (the file of the same family).

use shakmaty::Color;

/// A fact of the current position or of its place in the game.
///
/// Each variant says what it means in chess terms and how it is spelled in the front-ends
/// (CQL 6 / legacy / YACPDB).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PositionStateFilter {
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
}
