//! Attacks and board geometry: attacks, attack chains, directions, rays, pins.
//!
//! Part of the filter interpreter ([`super`]): one file per filter family, matching the
//! sections of `docs/attacks-and-geometry.md`; [`Ctx::eval_inner`] sends each filter to its family.

use super::*;

impl<'a> Ctx<'a> {
    /// A set given by the geometry of the board: attacks, attack chains, directions, `between`, rays, pins.
    /// `Ok(None)` when it does not match.
    pub(super) fn eval_attacks_and_geometry(&mut self, f: FilterId, filter: &'a GeometryFilter, at: Loc) -> Eval {
        Ok(match filter {
            GeometryFilter::Direction { dirs, min, max, range_variables, arg } => {
                let Some(from) = self.set_value(*arg, at)? else { return Ok(None) };
                let (min, max) = match *range_variables {
                    (None, None) => (*min, *max),
                    (low, high) => self.direction_range((*min, low), (*max, high))?,
                };
                Some(Value::Set(board::direction(*dirs, min, max, from)))
            }
            GeometryFilter::Attacks { attackers, targets, value_is_targets } => {
                let (Some(a), Some(b)) = (self.set_value(*attackers, at)?, self.set_value(*targets, at)?) else {
                    return Ok(None);
                };
                let Some(pos) = self.pos(at) else { return Ok(None) };
                let set = if *value_is_targets {
                    board::attacked_by(pos.board(), a, b)
                } else {
                    board::attackers(pos.board(), a, b)
                };
                Some(Value::Set(set))
            }
            GeometryFilter::AttackChain { sets, value_is_last } => {
                let mut bbs = [Bitboard::EMPTY; 16];
                if sets.len() > bbs.len() {
                    return Err(internal("attack chain with more than 16 sets"));
                }
                for (k, &s) in sets.iter().enumerate() {
                    bbs[k] = self.set_value(s, at)?.unwrap_or(Bitboard::EMPTY);
                }
                let Some(pos) = self.pos(at) else { return Ok(None) };
                Some(Value::Set(board::attack_chain(pos.board(), &bbs[..sets.len()], *value_is_last)))
            }
            GeometryFilter::Between(..) | GeometryFilter::Ray { .. } => self.direct_set(f, at)?.map(Value::Set),
            GeometryFilter::PinOf { from, through, to, part } => {
                let Some(pos) = self.pos(at) else { return Ok(None) };
                let kings = pos.board().kings();
                let mut set = |x: &Option<FilterId>, default: Bitboard| -> Result<Bitboard, Error> {
                    Ok(match x {
                        Some(x) => self.set_value(*x, at)?.unwrap_or(Bitboard::EMPTY),
                        None => default,
                    })
                };
                let (from, through, to) = (set(from, Bitboard::FULL)?, set(through, Bitboard::FULL)?, set(to, kings)?);
                let Some(pos) = self.pos(at) else { return Ok(None) };
                let (pinners, pinned, targets) = board::pins_cql62(pos.board(), from, through, to);
                Some(Value::Set(match part {
                    crate::ir::PinPart::Pinners => pinners,
                    crate::ir::PinPart::Pinned => pinned,
                    crate::ir::PinPart::Targets => targets,
                }))
            }
        })
    }

    /// The ends of a direction range with variables (`up 1 n ♔`), read now. CQL 6.2
    /// (`DirectionParameter::neighborhood`) stops the run when an end is unbound, beyond
    /// -7..7 or the ends are reversed; here the game is abandoned with that reason.
    fn direction_range(
        &self,
        (min, low): (i8, Option<VarId>),
        (max, high): (i8, Option<VarId>),
    ) -> Result<(i8, i8), Error> {
        let read = |written: i8, var: Option<VarId>| -> Result<i64, Error> {
            self.range_end(i64::from(written), var).ok_or_else(|| {
                let name = var.map_or("?", |v| self.ir.vars[v.0 as usize].name.as_str());
                Error::abandoned(format!("the direction range variable `{name}` has no value"))
            })
        };
        let (a, b) = (read(min, low)?, read(max, high)?);
        match (i8::try_from(a), i8::try_from(b)) {
            (Ok(a), Ok(b)) if (-7..=7).contains(&a) && (-7..=7).contains(&b) && a <= b => Ok((a, b)),
            _ => Err(Error::abandoned(format!(
                "a direction range must lie in -7..7 with its smaller end first, not {a}..{b}"
            ))),
        }
    }
}
