//! Bounds proved at launch (host spaces): `kernel!` records, for each View access whose index is an
//! affine map of the iteration index in every coordinate (`u[(i - 1, j + 1)]`, `x[2 * i + n]`), the
//! View and the map. Before a host launch runs, it computes each map's image over the launch's
//! iteration box exactly (in `i128`, as the overlap checks do) and compares it with the View's
//! extents. When every recorded access stays inside its View over the whole box, the launch runs the
//! kernel's *proven* host body, in which those accesses skip their bounds check; otherwise it runs
//! the checked body, which panics at the first out-of-bounds access as before.
//!
//! This is what lets a stencil over an `MDRangePolicy` compile to the loop nest a C++ compiler would
//! produce (no branch per access, so the innermost loop vectorizes).
//!
//! Soundness: the proven body differs from the checked one only in the accesses recorded here (the
//! macro emits both from one walk, and passes the records to [`Kernel::with_bounds`], an `unsafe fn`
//! whose contract that is). A recorded access computes its index with the body's own arithmetic,
//! which equals the exact affine value wherever that value fits its type's signed range (and, for
//! types narrower than 64 bits, is not negative): [`overlap::interval`] refuses any other interval.
//! An exact value inside `0..extent` in every coordinate is an in-bounds index.
//!
//! [`Kernel::with_bounds`]: super::Kernel::with_bounds

use super::overlap::{self, Bounds, Coord};
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

/// Whether every coordinate of `map` stays inside `extents` over `bounds`.
fn within(map: &[Coord], extents: &[usize], bounds: Bounds<'_>) -> bool {
    map.len() == extents.len()
        && map.iter().zip(extents).all(|(c, &extent)| {
            matches!(overlap::interval(c, bounds), Ok(Some((lo, hi))) if lo >= 0 && hi < extent as i128)
        })
}

/// Whether the launch over `bounds` may run the proven body: every access of `checks` to a View
/// stays inside the View's extents (the View found by name among the captures' `accesses`). An
/// entry that names no View access is a captured array's (the macro cannot tell arrays from Views
/// by their syntax), whose proven form keeps its check. An empty iteration box proves nothing (the
/// body then never runs anyway).
pub(crate) fn proven<'a>(
    checks: &[InBounds],
    accesses: impl Fn(&mut dyn FnMut(ViewAccess<'a>)),
    bounds: Bounds<'_>,
) -> bool {
    if checks.is_empty() || bounds.ranges.iter().any(|(lo, hi)| lo >= hi) {
        return false;
    }
    let mut ok = true;
    accesses(&mut |a: ViewAccess<'a>| {
        for c in checks.iter().filter(|c| c.view == a.name) {
            ok &= within(&c.map, a.extents, bounds);
        }
    });
    ok
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
