//! Layouts: how a multi-index maps to a memory offset.
//!
//! A View stores its extents and strides; the layout type says which stride is known to be 1 (so that
//! the innermost index of a [`LayoutRight`] or [`LayoutLeft`] View compiles to unit-stride access):
//!
//! | layout | known | built from extents as |
//! |---|---|---|
//! | [`LayoutRight`] (C order) | last stride is 1 | `stride[r] = extent[r+1] * stride[r+1]` |
//! | [`LayoutLeft`] (Fortran order) | first stride is 1 | `stride[r] = extent[r-1] * stride[r-1]` |
//! | [`LayoutStride`] | nothing | given by the user |
//!
//! A subview keeps LayoutRight (LayoutLeft) when it keeps the parent's last (first) dimension as a
//! range; its other strides may then be larger than its extents (padding), which
//! [`crate::View::span_is_contiguous`] reports.

use std::fmt::Debug;

mod sealed {
    /// The seal of [`super::Layout`].
    #[diagnostic::on_unimplemented(
        message = "`Layout` is sealed: a View's layout is LayoutRight, LayoutLeft or LayoutStride",
        label = "`{Self}` cannot be a View's layout",
        note = "a View's accessors rely on its layout's mapping; for other strides, make a \
                LayoutStride View (`View::with_slice_strided`, a subview)"
    )]
    pub trait Sealed {}
    impl Sealed for super::LayoutRight {}
    impl Sealed for super::LayoutLeft {}
    impl Sealed for super::LayoutStride {}
}

/// A memory layout of a View. Sealed: the View's accessors rely on its mapping.
pub trait Layout: sealed::Sealed + Copy + Default + Debug + Send + Sync + 'static {
    /// The layout's name as Kokkos spells it.
    const NAME: &'static str;

    /// The offset, in elements, of `index` given the View's `strides`.
    fn offset<const R: usize>(index: &[usize; R], strides: &[usize; R]) -> usize;

    /// Strides of a new, contiguous View of this layout with these extents, keeping the order of the
    /// dimensions in memory given by `strides` (for LayoutStride), or `None` if the size overflows.
    fn compact_strides<const R: usize>(
        extents: &[usize; R],
        strides: &[usize; R],
    ) -> Option<[usize; R]>;
}

/// A layout whose strides follow from the extents: [`LayoutRight`] and [`LayoutLeft`].
pub trait RegularLayout: Layout {
    /// The compact strides for `extents`, or `None` if the size overflows `usize`.
    fn strides_for<const R: usize>(extents: &[usize; R]) -> Option<[usize; R]>;

    /// The dimension whose stride this layout knows to be 1 (`None` for rank 0).
    fn unit_dim<const R: usize>() -> Option<usize>;
}

/// Row-major layout (C order, Kokkos' `LayoutRight`): the last index is contiguous.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LayoutRight;

/// Column-major layout (Fortran order, Kokkos' `LayoutLeft`): the first index is contiguous.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LayoutLeft;

/// Arbitrary strides (Kokkos' `LayoutStride`), e.g. a column of a row-major matrix.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LayoutStride;

impl Layout for LayoutRight {
    const NAME: &'static str = "LayoutRight";

    #[inline(always)]
    fn offset<const R: usize>(index: &[usize; R], strides: &[usize; R]) -> usize {
        let mut offset = 0;
        for r in 0..R {
            offset += index[r] * if r + 1 == R { 1 } else { strides[r] };
        }
        offset
    }

    fn compact_strides<const R: usize>(extents: &[usize; R], _: &[usize; R]) -> Option<[usize; R]> {
        Self::strides_for(extents)
    }
}

impl RegularLayout for LayoutRight {
    fn strides_for<const R: usize>(extents: &[usize; R]) -> Option<[usize; R]> {
        let mut strides = [0; R];
        let mut stride = 1usize;
        for r in (0..R).rev() {
            strides[r] = stride;
            stride = stride.checked_mul(extents[r])?;
        }
        Some(strides)
    }

    fn unit_dim<const R: usize>() -> Option<usize> {
        R.checked_sub(1)
    }
}

impl Layout for LayoutLeft {
    const NAME: &'static str = "LayoutLeft";

    #[inline(always)]
    fn offset<const R: usize>(index: &[usize; R], strides: &[usize; R]) -> usize {
        let mut offset = 0;
        for r in 0..R {
            offset += index[r] * if r == 0 { 1 } else { strides[r] };
        }
        offset
    }

    fn compact_strides<const R: usize>(extents: &[usize; R], _: &[usize; R]) -> Option<[usize; R]> {
        Self::strides_for(extents)
    }
}

impl RegularLayout for LayoutLeft {
    fn strides_for<const R: usize>(extents: &[usize; R]) -> Option<[usize; R]> {
        let mut strides = [0; R];
        let mut stride = 1usize;
        for r in 0..R {
            strides[r] = stride;
            stride = stride.checked_mul(extents[r])?;
        }
        Some(strides)
    }

    fn unit_dim<const R: usize>() -> Option<usize> {
        (R > 0).then_some(0)
    }
}

impl Layout for LayoutStride {
    const NAME: &'static str = "LayoutStride";

    #[inline(always)]
    fn offset<const R: usize>(index: &[usize; R], strides: &[usize; R]) -> usize {
        let mut offset = 0;
        for r in 0..R {
            offset += index[r] * strides[r];
        }
        offset
    }

    fn compact_strides<const R: usize>(
        extents: &[usize; R],
        strides: &[usize; R],
    ) -> Option<[usize; R]> {
        // Smallest stride first (ties: the later dimension first, as in LayoutRight).
        let mut order: [usize; R] = std::array::from_fn(|r| r);
        order.sort_by(|&a, &b| strides[a].cmp(&strides[b]).then(b.cmp(&a)));
        let mut compact = [0; R];
        let mut stride = 1usize;
        for r in order {
            compact[r] = stride;
            stride = stride.checked_mul(extents[r])?;
        }
        Some(compact)
    }
}

/// The number of elements of a box with these extents, or `None` on overflow.
pub(crate) fn checked_size(extents: &[usize]) -> Option<usize> {
    extents.iter().try_fold(1usize, |n, &e| n.checked_mul(e))
}

/// One past the largest offset of a box with these extents and strides (0 for an empty box), or
/// `None` on overflow.
pub(crate) fn checked_span(extents: &[usize], strides: &[usize]) -> Option<usize> {
    if extents.contains(&0) {
        return Some(0);
    }
    extents
        .iter()
        .zip(strides)
        .try_fold(1usize, |span, (&e, &s)| {
            span.checked_add((e - 1).checked_mul(s)?)
        })
}

/// Whether distinct indices of the box map to distinct offsets (a sufficient check: sorted by stride,
/// each dimension must step over the whole of the smaller ones). Dimensions of extent 0 or 1 never
/// repeat an offset.
pub(crate) fn strides_are_injective(extents: &[usize], strides: &[usize]) -> bool {
    if extents.contains(&0) {
        return true;
    }
    let mut dims: Vec<(usize, usize)> = extents
        .iter()
        .zip(strides)
        .filter(|(e, _)| **e > 1)
        .map(|(&e, &s)| (s, e))
        .collect();
    dims.sort_unstable();
    let mut min = 1usize;
    for (s, e) in dims {
        if s < min {
            return false;
        }
        match s.checked_mul(e) {
            Some(next) => min = next,
            None => return true, // Nothing larger fits in memory anyway; checked_span rejects it.
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_layouts_compute_compact_strides() {
        assert_eq!(LayoutRight::strides_for(&[2, 3, 4]), Some([12, 4, 1]));
        assert_eq!(LayoutLeft::strides_for(&[2, 3, 4]), Some([1, 2, 6]));
        assert_eq!(LayoutRight::strides_for(&[]), Some([]));
        assert_eq!(LayoutRight::strides_for(&[usize::MAX, 2]), None);
    }

    #[test]
    fn offsets_follow_the_strides() {
        assert_eq!(LayoutRight::offset(&[1, 2, 3], &[12, 4, 1]), 12 + 8 + 3);
        assert_eq!(LayoutLeft::offset(&[1, 2, 3], &[1, 2, 6]), 1 + 4 + 18);
        assert_eq!(LayoutStride::offset(&[1, 2], &[10, 3]), 16);
        assert_eq!(LayoutRight::offset::<0>(&[], &[]), 0);
    }

    #[test]
    fn compact_strides_keep_the_memory_order() {
        assert_eq!(
            LayoutStride::compact_strides(&[3, 4], &[100, 1]),
            Some([4, 1])
        );
        assert_eq!(
            LayoutStride::compact_strides(&[3, 4], &[1, 30]),
            Some([1, 3])
        );
        assert_eq!(
            LayoutStride::compact_strides(&[2, 3, 4], &[5, 40, 1]),
            Some([4, 8, 1])
        );
        assert_eq!(LayoutRight::compact_strides(&[2, 3], &[0, 0]), Some([3, 1]));
    }

    #[test]
    fn span_and_injectivity() {
        assert_eq!(checked_span(&[3, 4], &[4, 1]), Some(12));
        assert_eq!(checked_span(&[3, 4], &[10, 1]), Some(24));
        assert_eq!(checked_span(&[3, 0], &[10, 1]), Some(0));
        assert!(strides_are_injective(&[3, 4], &[4, 1]));
        assert!(strides_are_injective(&[3, 4], &[1, 3]));
        assert!(!strides_are_injective(&[3, 4], &[1, 2]));
        assert!(!strides_are_injective(&[3], &[0]));
        assert!(strides_are_injective(&[1, 5], &[0, 1]));
    }
}
