//! What one game may cost: the step, time, memory, nesting and loop budgets of the
//! interpreter, and the accounting that abandons a runaway game with the reason.
//!
//! Part of the filter interpreter ([`super`]). Takes in: the run's [`super::super::Limits`].
//! Must never: let one game run without bound, or read the clock at every step.

use super::*;

/// Most filter evaluations allowed for one game before it is abandoned as runaway (the
/// default of [`super::Limits::max_steps`]).
pub const STEP_LIMIT: u64 = 200_000_000;
/// The clock is read once every this many steps (reading it costs about as much as a few
/// dozen steps).
pub(super) const CLOCK_EVERY: u64 = 1 << 14;
/// The budgets are first looked at after this many steps of a game, and the game's
/// clock starts then: a game that needs fewer steps (a header-only query needs a handful)
/// never reads the clock, and a game that needs more is timed from here on. The steps
/// before it are bounded work (costly ones are charged for what they cost), a small
/// fraction of a millisecond next to the time budget's seconds.
pub(super) const CLOCK_FIRST: u64 = 1 << 10;
/// Bytes copied that count as one step (a string copy costs what its length costs).
pub const BYTES_PER_STEP: u64 = 64;
/// Deepest nesting of filter evaluations: every IR the transform expander accepts
/// (twice [`crate::NESTING_LIMIT`]) plus room for the evaluator's own helper levels.
/// The scan's workers have a stack sized for it; an embedder evaluating deep queries
/// on its own threads needs a large stack too.
pub const DEPTH_LIMIT: u32 = 2 * crate::NESTING_LIMIT as u32 + 16;
/// Most iterations of one `while`/`loop`.
pub const WHILE_LIMIT: u64 = 1_000_000;

impl<'a> Ctx<'a> {
    /// Count one filter evaluation against the per-game limits (work and nesting).
    #[inline]
    pub(in crate::eval) fn count_step(&mut self) -> Result<(), Error> {
        self.steps += 1;
        if self.steps >= self.next_check {
            self.check_budget()?;
        }
        if self.depth >= DEPTH_LIMIT {
            return Err(Error::abandoned("filters nested too deeply"));
        }
        Ok(())
    }

    /// Look at the game's step and time budgets (after [`CLOCK_FIRST`] steps, then every
    /// [`CLOCK_EVERY`] steps, and when a costly step was charged): past either, the game
    /// is abandoned with the reason. The first look starts the game's clock.
    #[cold]
    fn check_budget(&mut self) -> Result<(), Error> {
        let limits = &self.q.limits;
        if self.steps > limits.max_steps {
            return Err(Error::abandoned(format!(
                "too much work in one game (more than {} steps; see --max-game-steps)",
                limits.max_steps
            )));
        }
        if limits.interrupt.as_ref().is_some_and(|i| i.load(std::sync::atomic::Ordering::Relaxed) != 0) {
            return Err(Error::abandoned("the run was interrupted"));
        }
        if let Some(max) = limits.max_time {
            match self.started {
                Some(started) if started.elapsed() > max => {
                    return Err(Error::abandoned(format!(
                        "the game took more than {} s (see --max-game-time)",
                        max.as_secs_f64()
                    )));
                }
                Some(_) => {}
                None => self.started = Some(std::time::Instant::now()),
            }
        }
        self.next_check = self.steps.saturating_add(CLOCK_EVERY).min(limits.max_steps.saturating_add(1));
        Ok(())
    }

    /// Count work whose cost grows with its size: `bytes` copied or allocated (a string
    /// made or copied, a dictionary entry, a comment) count against the memory budget, and
    /// as one step per [`BYTES_PER_STEP`] of them against the step and time budgets.
    pub(in crate::eval) fn charge(&mut self, bytes: usize) -> Result<(), Error> {
        let bytes = bytes as u64;
        self.memory = self.memory.saturating_add(bytes);
        if self.memory > self.q.limits.max_memory {
            return Err(Error::abandoned(format!(
                "the game needed more than {} bytes for strings, dictionaries and notes, those kept from earlier games included (see --max-game-memory)",
                self.q.limits.max_memory
            )));
        }
        self.steps = self.steps.saturating_add(bytes / BYTES_PER_STEP);
        if self.steps >= self.next_check {
            self.check_budget()?;
        }
        Ok(())
    }

    /// Count visits of positions by a filter that walks many of them without
    /// evaluating a filter at each (a `line` repetition, a search of the game tree).
    #[inline]
    pub(in crate::eval) fn count_visits(&mut self, positions: usize) -> Result<(), Error> {
        self.steps = self.steps.saturating_add(positions as u64);
        if self.steps >= self.next_check {
            self.check_budget()?;
        }
        Ok(())
    }
}
