//! Transforms inside a `:relation (…)` list (`:flip`, `:shift` and their narrower forms):
//! the relation holds when some image of the earlier position P1 under one of the
//! transforms relates to the later position P2 as the list says.
//!
//! Takes in: the transform keywords of one relation list. Gives out: the square maps of
//! the group they generate, and set filters that carry a square set of P1 through one
//! map, built from the shared `Direction` filter (a move by a fixed distance) on slices
//! of the board (files, ranks, diagonals).
//! Must never: panic; a square carried off the board is dropped (its piece is gone from
//! the image), as a piece shifted off the edge is.

use crate::ir::{GeometryFilter, SetFilter};
use shakmaty::Bitboard;

use super::super::Lowerer;
use crate::diag::Span;
use crate::ir::{Directions, Filter, FilterId};

/// One step of a square map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Mirror about the line between the d- and e-files (a-file ↔ h-file).
    MirrorFiles,
    /// Mirror about the line between the 4th and 5th ranks (rank 1 ↔ rank 8).
    MirrorRanks,
    /// Mirror about the a1–h8 diagonal (file ↔ rank).
    Transpose,
    /// Move every square by (files, ranks); squares leaving the board are dropped.
    Translate(i8, i8),
}

/// A square map: its steps applied in order (the empty map is the identity).
pub(super) type SquareMap = Vec<Step>;

/// The most maps one relation may expand to (`:flip :shift` would be 1,800).
pub(super) const MAX_MAPS: usize = 256;

/// The maps of one transform keyword, the identity first.
pub(super) fn group(keyword: &str) -> Vec<SquareMap> {
    use Step::*;
    let translations = |pairs: Vec<(i8, i8)>| -> Vec<SquareMap> {
        pairs.into_iter().map(|(f, r)| if f == 0 && r == 0 { vec![] } else { vec![Translate(f, r)] }).collect()
    };
    let offsets = || (-7i8..=7).filter(|d| *d != 0);
    match keyword {
        ":flip" | ":flipdihedral" => vec![
            vec![],
            vec![MirrorFiles],
            vec![MirrorRanks],
            vec![MirrorFiles, MirrorRanks],
            vec![Transpose],
            vec![Transpose, MirrorFiles],
            vec![Transpose, MirrorRanks],
            vec![Transpose, MirrorFiles, MirrorRanks],
        ],
        ":flipvertical" => vec![vec![], vec![MirrorFiles]],
        ":fliphorizontal" => vec![vec![], vec![MirrorRanks]],
        ":flipdiagonal" => vec![vec![], vec![Transpose]],
        ":flipoffdiagonal" => vec![vec![], vec![Transpose, MirrorFiles, MirrorRanks]],
        ":shift" => translations((-7i8..=7).flat_map(|f| (-7i8..=7).map(move |r| (f, r))).collect()),
        ":shifthorizontal" => translations(std::iter::once((0, 0)).chain(offsets().map(|d| (d, 0))).collect()),
        ":shiftvertical" => translations(std::iter::once((0, 0)).chain(offsets().map(|d| (0, d))).collect()),
        ":shiftmaindiagonal" => translations(std::iter::once((0, 0)).chain(offsets().map(|d| (d, d))).collect()),
        ":shiftoffdiagonal" => translations(std::iter::once((0, 0)).chain(offsets().map(|d| (d, -d))).collect()),
        _ => vec![vec![]],
    }
}

/// All compositions of one map from each keyword's group (each keyword's map applied
/// after the earlier ones'), without repeats.
pub(super) fn compose(keywords: &[String]) -> Vec<SquareMap> {
    let mut maps: Vec<SquareMap> = vec![vec![]];
    for kw in keywords {
        let mut next = Vec::new();
        for m in &maps {
            for g in group(kw) {
                let mut c = m.clone();
                c.extend(g);
                if !next.contains(&c) {
                    next.push(c);
                }
            }
            if next.len() > MAX_MAPS {
                return next;
            }
        }
        maps = next;
    }
    maps
}

/// Where a square goes under a map (`None` off the board): used by the tests and to
/// state what the built filters compute.
#[cfg(test)]
pub(super) fn image(map: &[Step], file: i8, rank: i8) -> Option<(i8, i8)> {
    let (mut f, mut r) = (file, rank);
    for step in map {
        (f, r) = match *step {
            Step::MirrorFiles => (7 - f, r),
            Step::MirrorRanks => (f, 7 - r),
            Step::Transpose => (r, f),
            Step::Translate(df, dr) => (f + df, r + dr),
        };
        if !(0..8).contains(&f) || !(0..8).contains(&r) {
            return None;
        }
    }
    Some((f, r))
}

/// The squares of file `f`.
fn file_mask(f: i8) -> Bitboard {
    Bitboard(0x0101_0101_0101_0101u64 << f)
}

/// The squares of rank `r`.
fn rank_mask(r: i8) -> Bitboard {
    Bitboard(0xffu64 << (8 * r))
}

/// The squares whose file minus rank is `d`.
fn diagonal_mask(d: i8) -> Bitboard {
    let mut bb = 0u64;
    for r in 0..8i8 {
        let f = r + d;
        if (0..8).contains(&f) {
            bb |= 1u64 << (8 * r + f);
        }
    }
    Bitboard(bb)
}

impl Lowerer {
    /// The set filter `set` carried through `map`.
    pub(super) fn map_squares(&mut self, map: &[Step], set: FilterId, span: Span) -> FilterId {
        let mut cur = set;
        for step in map {
            cur = match *step {
                Step::MirrorFiles => {
                    let slices: Vec<(Bitboard, Directions, u8)> = (0..8i8)
                        .map(|f| {
                            let d = 7 - 2 * f;
                            (file_mask(f), if d > 0 { Directions::RIGHT } else { Directions::LEFT }, d.unsigned_abs())
                        })
                        .collect();
                    self.move_slices(cur, &slices, span)
                }
                Step::MirrorRanks => {
                    let slices: Vec<(Bitboard, Directions, u8)> = (0..8i8)
                        .map(|r| {
                            let d = 7 - 2 * r;
                            (rank_mask(r), if d > 0 { Directions::UP } else { Directions::DOWN }, d.unsigned_abs())
                        })
                        .collect();
                    self.move_slices(cur, &slices, span)
                }
                Step::Transpose => {
                    // A square with file − rank = d moves d steps north-west (d > 0) or
                    // south-east (d < 0); the a1–h8 diagonal stays.
                    let slices: Vec<(Bitboard, Directions, u8)> = (-7..=7i8)
                        .map(|d| {
                            let dir = if d > 0 { Directions::NORTHWEST } else { Directions::SOUTHEAST };
                            (diagonal_mask(d), dir, d.unsigned_abs())
                        })
                        .collect();
                    self.move_slices(cur, &slices, span)
                }
                Step::Translate(df, dr) => {
                    let mut s = cur;
                    if df != 0 {
                        let dirs = if df > 0 { Directions::RIGHT } else { Directions::LEFT };
                        let n = i8::try_from(df.unsigned_abs()).unwrap_or(i8::MAX);
                        s = self.add(
                            Filter::Geometry(GeometryFilter::Direction {
                                dirs,
                                min: n,
                                max: n,
                                range_variables: (None, None),
                                arg: s,
                            }),
                            span,
                        );
                    }
                    if dr != 0 {
                        let dirs = if dr > 0 { Directions::UP } else { Directions::DOWN };
                        let n = i8::try_from(dr.unsigned_abs()).unwrap_or(i8::MAX);
                        s = self.add(
                            Filter::Geometry(GeometryFilter::Direction {
                                dirs,
                                min: n,
                                max: n,
                                range_variables: (None, None),
                                arg: s,
                            }),
                            span,
                        );
                    }
                    s
                }
            };
        }
        cur
    }

    /// The union, over the slices, of the set's part on the slice moved `distance` steps
    /// in the direction (a distance of 0 keeps the part where it is).
    fn move_slices(&mut self, set: FilterId, slices: &[(Bitboard, Directions, u8)], span: Span) -> FilterId {
        let mut parts = Vec::with_capacity(slices.len());
        for &(mask, dirs, distance) in slices {
            let squares = self.add(Filter::Sets(SetFilter::Squares(mask)), span);
            let part = self.add(Filter::Sets(SetFilter::Intersection(vec![set, squares])), span);
            parts.push(if distance == 0 {
                part
            } else {
                self.add(
                    Filter::Geometry(GeometryFilter::Direction {
                        dirs,
                        min: i8::try_from(distance).unwrap_or(i8::MAX),
                        max: i8::try_from(distance).unwrap_or(i8::MAX),
                        range_variables: (None, None),
                        arg: part,
                    }),
                    span,
                )
            });
        }
        self.add(Filter::Sets(SetFilter::Union(parts)), span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_have_the_expected_sizes_and_images() {
        assert_eq!(group(":flip").len(), 8);
        assert_eq!(group(":shift").len(), 225);
        assert_eq!(group(":shifthorizontal").len(), 15);
        // The eight symmetries send b1 to eight different squares.
        let mut seen: Vec<(i8, i8)> = group(":flip").iter().filter_map(|m| image(m, 1, 0)).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 8);
        // The off-diagonal mirror sends a1 to h8 and b1 to h7.
        let off = &group(":flipoffdiagonal")[1];
        assert_eq!(image(off, 0, 0), Some((7, 7)));
        assert_eq!(image(off, 1, 0), Some((7, 6)));
        assert_eq!(image(&[Step::Translate(2, 0)], 6, 0), None);
        assert_eq!(compose(&[":flipvertical".into(), ":fliphorizontal".into()]).len(), 4);
    }

    #[test]
    fn every_transform_a_relation_list_takes_has_a_group() {
        use crate::lang::legacy::lower::keywords::{words_in, Place};
        let transforms: Vec<&str> = words_in(Place::RelationList)
            .into_iter()
            .filter(|w| w.starts_with(":flip") || w.starts_with(":shift"))
            .collect();
        assert_eq!(transforms.len(), 11, "{transforms:?}");
        for word in transforms {
            assert!(group(word).len() > 1, "`{word}` has no maps besides the identity");
        }
    }

    #[test]
    fn slice_masks_cover_the_board_once() {
        let files = (0..8).fold(0u64, |acc, f| acc | file_mask(f).0);
        let ranks = (0..8).fold(0u64, |acc, r| acc | rank_mask(r).0);
        let diagonals: Vec<u64> = (-7..=7).map(|d| diagonal_mask(d).0).collect();
        assert_eq!(files, u64::MAX);
        assert_eq!(ranks, u64::MAX);
        assert_eq!(diagonals.iter().fold(0, |acc, d| acc | d), u64::MAX);
        assert_eq!(diagonals.iter().map(|d| d.count_ones()).sum::<u32>(), 64);
        assert_eq!(diagonal_mask(0).0, 0x8040_2010_0804_0201);
    }
}
