//! A subview's range of a dimension in a kernel (`let row = subview(&a, (j, lo..hi));`, Kokkos'
//! `subview(A, j, make_pair(lo, hi))`): `kernel!` writes `row[i]` as the View's access
//! `a[(j, subview_range(i, lo, hi, a.extent(1)))]` and `row.extent(0)` as
//! `subview_extent(lo, hi, a.extent(1))`. The race rules and the launch's bounds proof take the
//! coordinate for `lo + i` (its value whenever the check passes); the check that `i` lies within
//! the range, and the range within the dimension, stays in every form: the host's checked and
//! proven bodies call the functions here, the device code calls `fk::subview_range` (in
//! `views.cuh`), which records an out-of-bounds fault and gives a coordinate no View has.

use super::expr::{Expr, call};
use super::shadow::DeviceInt;
use crate::error::Error;
use crate::view::kernel_access::IndexInt;

/// The number of elements of the range `lo..hi` of a dimension of `extent` elements; 0 when the
/// range is not within the dimension (then it has no element).
#[inline(always)]
fn length(lo: usize, hi: usize, extent: usize) -> Option<usize> {
    (lo <= hi && hi <= extent).then(|| hi - lo)
}

/// `row[i]` of a subview's range `lo..hi` of a dimension of `extent` elements: the View's
/// coordinate `lo + i`. Panics (as an out-of-bounds View access does) when `i` is not below the
/// range's length or the range is not within the dimension. A negative value is out of bounds.
#[inline(always)]
#[track_caller]
pub fn subview_range(
    i: impl IndexInt,
    lo: impl IndexInt,
    hi: impl IndexInt,
    extent: usize,
) -> usize {
    let (i, lo, hi) = (i.coordinate(), lo.coordinate(), hi.coordinate());
    match length(lo, hi, extent) {
        Some(len) if i < len => lo + i,
        len => out_of_range(i, lo, hi, extent, len),
    }
}

/// `row.extent(0)` of a subview's range `lo..hi` of a dimension of `extent` elements: `hi - lo`.
/// Panics when the range is not within the dimension.
#[inline(always)]
#[track_caller]
pub fn subview_extent(lo: impl IndexInt, hi: impl IndexInt, extent: usize) -> usize {
    let (lo, hi) = (lo.coordinate(), hi.coordinate());
    match length(lo, hi, extent) {
        Some(len) => len,
        None => out_of_range(0, lo, hi, extent, None),
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_range(i: usize, lo: usize, hi: usize, extent: usize, len: Option<usize>) -> ! {
    let label = match len {
        Some(_) => format!("the subview of the range {lo}..{hi} of a dimension"),
        None => format!(
            "the subview of the range {lo}..{hi}, not within its dimension of extent {extent}, \
             so without elements"
        ),
    };
    panic!(
        "{}",
        Error::OutOfBounds {
            label,
            index: vec![i],
            extents: vec![len.unwrap_or(0)],
        }
    )
}

/// The typed shadow of [`subview_range`]: the device's `fk::subview_range`, which records an
/// out-of-bounds fault (a subview's range) and gives a coordinate past every View's extent (so the
/// View's own check drops the access) when the host's form would panic.
pub fn subview_range_shadow<I: DeviceInt, L: DeviceInt, H: DeviceInt>(
    i: Expr<I>,
    lo: Expr<L>,
    hi: Expr<H>,
    extent: Expr<usize>,
) -> Expr<usize> {
    let args = [i.text(), lo.text(), hi.text(), extent.text()];
    call("fk::subview_range", &args)
}

/// The typed shadow of [`subview_extent`]: the device's `fk::subview_extent` (0, with a fault
/// recorded, where the host's form would panic).
pub fn subview_extent_shadow<L: DeviceInt, H: DeviceInt>(
    lo: Expr<L>,
    hi: Expr<H>,
    extent: Expr<usize>,
) -> Expr<usize> {
    call("fk::subview_extent", &[lo.text(), hi.text(), extent.text()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_coordinate_within_the_range_is_offset_by_its_start() {
        assert_eq!(subview_range(0usize, 2, 5, 6), 2);
        assert_eq!(subview_range(2i64, 2usize, 5i32, 6), 4);
        assert_eq!(subview_extent(2, 5usize, 6), 3);
        assert_eq!(subview_extent(6usize, 6usize, 6), 0);
    }

    #[test]
    #[should_panic(
        expected = "index [3] is out of bounds for View \"the subview of the range 2..5"
    )]
    fn a_coordinate_past_the_range_panics_naming_its_extent() {
        subview_range(3usize, 2, 5, 6);
    }

    #[test]
    #[should_panic(expected = "not within its dimension of extent 4")]
    fn a_range_past_the_dimension_has_no_element() {
        subview_range(0usize, 2, 5, 4);
    }

    #[test]
    #[should_panic(expected = "the range 3..2")]
    fn a_reversed_range_has_no_extent() {
        subview_extent(3, 2, 4);
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn a_negative_coordinate_is_out_of_bounds() {
        subview_range(-1i32, 2, 5, 6);
    }
}
