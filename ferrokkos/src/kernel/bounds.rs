//! Bounds proved at launch (host spaces): `kernel!` records, for each View access whose index is an
//! affine map of the iteration index in every coordinate (`u[(i - 1, j + 1)]`, `x[2 * i + n]`), the
//! View and the map. Before a host launch runs, it cuts its iteration box down to where every such
//! map stays inside its View ([`proven_box`], exact in `i128`): for `c·p + o` in `[0, extent)` that
//! is an interval of `p`. Inside that sub-box the drivers run the kernel's *proven* host body, in
//! which those accesses skip their bounds check; outside it, the checked body, which panics at the
//! first out-of-bounds access as before. A stencil over the interior is proven everywhere; one over
//! the whole box whose boundary cells are handled by `if` is proven on its interior.
//!
//! This is what lets a stencil over an `MDRangePolicy` compile to the loop nest a C++ compiler would
//! produce (no branch per access, so the innermost loop vectorizes).
//!
//! Soundness: the proven body differs from the checked one only in the accesses recorded here (the
//! macro emits both from one walk and records exactly the accesses it made unchecked; see
//! [`Kernel::new_for`]). A recorded access computes its index with the body's own arithmetic, which
//! wraps modulo `2^B` for a `B`-bit type (or panics, in a debug build): the computed value is
//! congruent to the exact affine value, so it equals it whenever the exact value lies in
//! `[0, 2^(B-1))`. The sub-box keeps every exact value in `[0, min(extent, 2^(B-1)))`, so every index
//! the proven body computes there is the exact one and in bounds.
//!
//! [`Kernel::new_for`]: super::Kernel::new_for

use super::overlap::{Bounds, Coord};
use crate::view::kernel_access::ViewAccess;

/// One View access of a kernel whose index map the launch proves within the View's extents.
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct InBounds {
    /// The capture's name (as the kernel passes it to its capture, so as its [`ViewAccess`] names
    /// it).
    pub view: &'static str,
    /// The index map, one coordinate per dimension of the View.
    pub map: Vec<Coord>,
}

/// The most coordinates a proven box has (the rank of an `MDRangePolicy` is at most 6).
const MAX_RANK: usize = 6;

/// The part of a launch's iteration box where the body's proven form may run: per index
/// coordinate `[lo, hi)`, never empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ProvenBox {
    dims: [(i128, i128); MAX_RANK],
    rank: usize,
}

impl ProvenBox {
    /// Per index coordinate `[lo, hi)`.
    pub(crate) fn ranges(&self) -> &[(i128, i128)] {
        &self.dims[..self.rank]
    }
}

/// `floor(a / b)` for `b != 0`.
fn floor_div(a: i128, b: i128) -> i128 {
    let q = a / b;
    if a % b != 0 && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// `ceil(a / b)` for `b != 0`.
fn ceil_div(a: i128, b: i128) -> i128 {
    -floor_div(-a, b)
}

/// The values a coordinate of a type of `bits` bits may take for an access to be proved inside a
/// dimension of `extent` whose indices start at `begin` (0 for a View, an OffsetView's begin):
/// `[lo, hi)`, the dimension's `[begin, begin + extent)` cut to `[0, 2^(bits - 1))`, the range where
/// the body's wrapping arithmetic gives the exact value and either sign extension of it is the
/// value (see the module comment).
fn window(extent: usize, begin: i64, bits: u32) -> (i128, i128) {
    let half = 1i128 << (bits.clamp(8, 64) - 1);
    let begin = i128::from(begin);
    (begin.max(0), (begin + extent as i128).min(half))
}

/// Narrows `dims` (per index coordinate `[lo, hi)`, indices of `bits` bits) to where coordinate `c`
/// of an access lies in `[begin, begin + extent)`, within [`window`]; `false` when no iteration can
/// satisfy it.
fn clip(c: &Coord, extent: usize, begin: i64, bits: u32, dims: &mut [(i128, i128)]) -> bool {
    match *c {
        // A coordinate of several iteration coordinates keeps its check (the macro proves none).
        Coord::Any | Coord::Mixed { .. } => false,
        Coord::Fixed { value, bits } => {
            let (lo, hi) = window(extent, begin, bits);
            (lo..hi).contains(&value)
        }
        Coord::Param {
            param,
            coef,
            offset,
        } => {
            let Some((lo, hi)) = dims.get_mut(usize::from(param)) else {
                return false;
            };
            let (c, (bottom, end)) = (i128::from(coef), window(extent, begin, bits));
            let top = end - 1;
            if c == 0 || top < bottom {
                return false;
            }
            // bottom <= c·p + offset <= top.
            let (first, last) = if c > 0 {
                (ceil_div(bottom - offset, c), floor_div(top - offset, c))
            } else {
                (ceil_div(top - offset, c), floor_div(bottom - offset, c))
            };
            *lo = (*lo).max(first);
            *hi = (*hi).min(last.saturating_add(1));
            lo < hi
        }
    }
}

/// The largest sub-box of the launch's box `bounds` over which every access of `checks` to a View
/// stays inside the View's extents (the View found by name among the captures' `accesses`): the
/// launch box cut, coordinate by coordinate, to where each access's index map is valid. `None` when
/// there is nothing to prove or nowhere the proof holds. An entry that names no View access is a
/// captured array's (the macro cannot tell arrays from Views by their syntax), whose proven form
/// keeps its check.
pub(crate) fn proven_box<'a>(
    checks: &[InBounds],
    accesses: impl Fn(&mut dyn FnMut(ViewAccess<'a>)),
    bounds: Bounds<'_>,
) -> Option<ProvenBox> {
    let rank = bounds.ranges.len();
    if checks.is_empty() || rank > MAX_RANK || bounds.ranges.iter().any(|(lo, hi)| lo >= hi) {
        return None;
    }
    let mut dims = [(0i128, 0i128); MAX_RANK];
    dims[..rank].copy_from_slice(bounds.ranges);
    let mut ok = true;
    accesses(&mut |a: ViewAccess<'a>| {
        for c in checks.iter().filter(|c| c.view == a.name) {
            ok &= c.map.len() == a.extents.len()
                && c.map
                    .iter()
                    .zip(a.extents)
                    .enumerate()
                    .all(|(r, (coord, &extent))| {
                        let begin = a.begins.get(r).copied().unwrap_or(0);
                        clip(coord, extent, begin, bounds.bits, &mut dims[..rank])
                    });
        }
    });
    ok.then_some(ProvenBox { dims, rank })
}

/// Whether every coordinate of `map` stays inside `extents` over all of `bounds`.
#[cfg(test)]
fn within(map: &[Coord], extents: &[usize], bounds: Bounds<'_>) -> bool {
    let mut dims = bounds.ranges.to_vec();
    map.len() == extents.len()
        && map
            .iter()
            .zip(extents)
            .all(|(c, &e)| clip(c, e, 0, bounds.bits, &mut dims))
        && dims == bounds.ranges
}

/// The sub-box of `bounds` where `map` stays inside `extents`.
#[cfg(test)]
fn sub_box(map: &[Coord], extents: &[usize], bounds: Bounds<'_>) -> Option<Vec<(i128, i128)>> {
    let mut dims = bounds.ranges.to_vec();
    map.iter()
        .zip(extents)
        .all(|(c, &e)| clip(c, e, 0, bounds.bits, &mut dims))
        .then_some(dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(ranges: &[(i128, i128)]) -> Bounds<'_> {
        Bounds { ranges, bits: 64 }
    }

    #[test]
    fn a_stencil_inside_the_halo_is_within() {
        // u[(i - 1, j + 1)] over i, j in 1..9 of a 10 x 10 View.
        let map = [Coord::param(0, 1, -1), Coord::param(1, 1, 1)];
        assert!(within(&map, &[10, 10], b(&[(1, 9), (1, 9)])));
        // From row 0, i - 1 reaches -1.
        assert!(!within(&map, &[10, 10], b(&[(0, 9), (1, 9)])));
        // Up to column 9, j + 1 reaches 10.
        assert!(!within(&map, &[10, 10], b(&[(1, 9), (1, 10)])));
    }

    #[test]
    fn reversed_and_strided_maps_use_both_ends() {
        // x[n - 1 - i] over 0..n, and x[2 * i + 1] over 0..4 of an 8-element View.
        assert!(within(&[Coord::param(0, -1, 7)], &[8], b(&[(0, 8)])));
        assert!(within(&[Coord::param(0, 2, 1)], &[8], b(&[(0, 4)])));
        assert!(!within(&[Coord::param(0, 2, 1)], &[8], b(&[(0, 5)])));
    }

    #[test]
    fn unknown_coordinates_and_rank_mismatches_prove_nothing() {
        assert!(!within(&[Coord::Any], &[8], b(&[(0, 1)])));
        assert!(!within(&[Coord::param(0, 1, 0)], &[8, 8], b(&[(0, 1)])));
        assert!(within(&[Coord::fixed(3, 64)], &[8], b(&[(0, 100)])));
        assert!(!within(&[Coord::fixed(8, 64)], &[8], b(&[(0, 100)])));
    }

    #[test]
    fn a_full_box_with_boundary_reads_proves_its_interior() {
        // u[(i - 1, j + 1)] over 0..10 x 0..10 of a 10 x 10 View: rows 1.., columns ..9.
        let map = [Coord::param(0, 1, -1), Coord::param(1, 1, 1)];
        assert_eq!(
            sub_box(&map, &[10, 10], b(&[(0, 10), (0, 10)])),
            Some(vec![(1, 10), (0, 9)])
        );
        // x[7 - 2i] over 0..10 of 8 elements: i in 0..=3.
        assert_eq!(
            sub_box(&[Coord::param(0, -2, 7)], &[8], b(&[(0, 10)])),
            Some(vec![(0, 4)])
        );
        // x[3i - 4]: i in 2..=3 (2, 5 fit; 8 does not).
        assert_eq!(
            sub_box(&[Coord::param(0, 3, -4)], &[8], b(&[(0, 10)])),
            Some(vec![(2, 4)])
        );
        // Nowhere: x[i + 20].
        assert_eq!(
            sub_box(&[Coord::param(0, 1, 20)], &[8], b(&[(0, 10)])),
            None
        );
    }

    #[test]
    fn an_offset_dimension_is_proved_inside_its_range_from_zero_up() {
        // o[i - 1] over i in -1..12 of an OffsetView whose dimension is -1..=10 (begin -1, 12
        // elements): i - 1 in [0, 11) gives i in 1..12; the negative indices keep their check.
        let mut dims = [(-1i128, 12i128)];
        assert!(clip(&Coord::param(0, 1, -1), 12, -1, 64, &mut dims));
        assert_eq!(dims, [(1, 12)]);
        // A begin above zero: o[i] over 0..20 of 5..=14 is proved on 5..15.
        let mut dims = [(0i128, 20i128)];
        assert!(clip(&Coord::param(0, 1, 0), 10, 5, 64, &mut dims));
        assert_eq!(dims, [(5, 15)]);
        // A fixed coordinate: inside the range and not negative.
        assert!(clip(&Coord::fixed(7, 64), 10, 5, 64, &mut [(0, 1)]));
        assert!(!clip(&Coord::fixed(4, 64), 10, 5, 64, &mut [(0, 1)]));
        assert!(!clip(&Coord::fixed(-1, 64), 12, -1, 64, &mut [(0, 1)]));
        // Entirely below zero: nothing to prove.
        assert!(!clip(&Coord::param(0, 1, 0), 5, -10, 64, &mut [(-10, -5)]));
    }

    #[test]
    fn floor_and_ceil_division_round_towards_the_right_side() {
        assert_eq!(
            (floor_div(7, 2), floor_div(-7, 2), floor_div(7, -2)),
            (3, -4, -4)
        );
        assert_eq!(
            (ceil_div(7, 2), ceil_div(-7, 2), ceil_div(-7, -2)),
            (4, -3, 4)
        );
        assert_eq!((floor_div(6, 3), ceil_div(-6, 3)), (2, -2));
    }

    #[test]
    fn narrow_index_types_must_stay_non_negative() {
        // A u32 index: i - 1 at i = 0 wraps to 2^32 - 1 in the body, which a huge View could hold.
        let narrow = Bounds {
            ranges: &[(0, 4)],
            bits: 32,
        };
        assert!(!within(&[Coord::param(0, 1, -1)], &[1 << 33], narrow));
        assert!(within(&[Coord::param(0, 1, 0)], &[4], narrow));
    }
}
