//! Problemist qualities of a final position (pure, model, ideal mates and stalemates).
//!
//! TEMPORARY STUB written by the evaluator engineer so the evaluator compiles; the real
//! module is written by another engineer and replaces this file at merge.
//! Takes in: a position. Gives out: its [`Finale`] if it is mate or stalemate.
//! Must never: panic on a legal position (the stub does: it is not implemented here).

use shakmaty::Chess;

/// What a mate or stalemate looks like to a problemist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finale {
    /// Checkmate (otherwise stalemate).
    pub mate: bool,
    /// Every flight square of the king is guarded or blocked exactly once.
    pub pure: bool,
    /// Pure and every attacker's piece takes part (kings and pawns aside).
    pub model: bool,
    /// Pure and every piece of both sides takes part.
    pub ideal: bool,
    /// Number of pinned pieces of the mated side.
    pub pins: u32,
}

/// Classify a final position; `None` when it is neither mate nor stalemate.
pub fn classify(pos: &Chess) -> Option<Finale> {
    let _ = pos;
    unimplemented!("finale::classify is provided by the finale module at merge")
}
