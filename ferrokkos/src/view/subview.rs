//! `subview`: a View of part of another View, sharing its allocation (Kokkos' `subview`).
//!
//! Each argument selects in one dimension of the parent: an index (`usize`) drops the dimension, a
//! range (`a..b`, `a..=b`, `a..`, `..b`, a pair `(a, b)` meaning `a..b` as Kokkos' `make_pair`) or
//! [`ALL`] (also `..`) keeps it. The result's rank is the number of kept dimensions and its layout is
//! decided from the argument kinds at compile time:
//!
//! | parent | result |
//! |---|---|
//! | LayoutRight | LayoutRight if the last argument is a range, else LayoutStride |
//! | LayoutLeft | LayoutLeft if the first argument is a range, else LayoutStride |
//! | LayoutStride | LayoutStride |
//!
//! ```
//! use ferrokkos::{ALL, InitSettings, LayoutRight, LayoutStride, View, subview};
//! let _rt = ferrokkos::initialize(InitSettings::new())?;
//! let a = View::<f64, 3>::new("A", [4, 5, 6])?;
//! let row: View<f64, 1, LayoutRight> = subview(&a, (2, 3, ALL))?; // contiguous
//! let col: View<f64, 1, LayoutStride> = subview(&a, (ALL, 1, 0))?; // stride 30
//! let block = subview(&a, (1..3, (0, 2), ..))?; // rank 3, LayoutRight
//! assert_eq!((row.extent(0), col.stride(0), block.extents()), (6, 30, [2, 2, 6]));
//! assert!(subview(&a, (4, ALL, ALL)).is_err()); // index 4 is out of bounds
//! # Ok::<(), ferrokkos::Error>(())
//! ```

use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};
use std::ptr::NonNull;
use std::sync::Arc;

use super::element::Element;
use super::view::View;
use crate::error::{Error, Result};
use crate::layout::{Layout, LayoutLeft, LayoutRight, LayoutStride};
use crate::space::Allocation;
use crate::space::MemorySpace;

/// Selects a whole dimension (Kokkos' `Kokkos::ALL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct All;

/// Selects a whole dimension in [`subview`] (Kokkos' `Kokkos::ALL`).
pub const ALL: All = All;

/// What one argument selects in its dimension.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// One index: the dimension is dropped.
    Index(usize),
    /// The half-open range `begin..end`: the dimension is kept.
    Range(usize, usize),
}

/// Type-level bookkeeping of [`subview`]: argument kinds, the result's rank and layout.
#[doc(hidden)]
pub mod typelevel {
    use super::*;

    /// The kind of an index argument (drops its dimension).
    pub struct Idx;
    /// The kind of a range argument (keeps its dimension).
    pub struct Rng;
    /// Zero kept dimensions.
    pub struct Z;
    /// One more kept dimension than `N`.
    pub struct S<N>(std::marker::PhantomData<N>);

    /// An argument kind; `Plus<N>` counts kept dimensions.
    pub trait Kind {
        /// `N` plus one if this kind keeps its dimension.
        type Plus<N>;
    }
    impl Kind for Idx {
        type Plus<N> = N;
    }
    impl Kind for Rng {
        type Plus<N> = S<N>;
    }

    /// The parent's allocation and the subview's first element.
    pub struct Origin<T> {
        pub(super) alloc: Arc<Allocation>,
        pub(super) ptr: NonNull<T>,
    }

    /// A type-level rank, with the View type of that rank.
    pub trait Nat {
        /// The View of this rank.
        type View<T: Element, L: Layout, M: MemorySpace>;

        /// Builds that View; `extents` and `strides` have exactly this rank's length.
        fn build<T: Element, L: Layout, M: MemorySpace>(
            origin: Origin<T>,
            extents: &[usize],
            strides: &[usize],
        ) -> Self::View<T, L, M>;
    }

    macro_rules! nat {
        ($r:literal => $t:ty) => {
            impl Nat for $t {
                type View<T: Element, L: Layout, M: MemorySpace> = View<T, $r, L, M>;

                fn build<T: Element, L: Layout, M: MemorySpace>(
                    origin: Origin<T>,
                    extents: &[usize],
                    strides: &[usize],
                ) -> View<T, $r, L, M> {
                    View::from_parts(
                        origin.alloc,
                        origin.ptr,
                        std::array::from_fn(|r| extents[r]),
                        std::array::from_fn(|r| strides[r]),
                    )
                }
            }
        };
    }
    nat!(0 => Z);
    nat!(1 => S<Z>);
    nat!(2 => S<S<Z>>);
    nat!(3 => S<S<S<Z>>>);
    nat!(4 => S<S<S<S<Z>>>>);
    nat!(5 => S<S<S<S<S<Z>>>>>);
    nat!(6 => S<S<S<S<S<S<Z>>>>>>);
    nat!(7 => S<S<S<S<S<S<S<Z>>>>>>>);
    nat!(8 => S<S<S<S<S<S<S<S<Z>>>>>>>>);

    /// The layout of a subview of a View in this layout, given its first and last argument kinds.
    pub trait SubLayout<First: Kind, Last: Kind>: Layout {
        /// The result's layout.
        type Out: Layout;
    }
    impl<F: Kind> SubLayout<F, Rng> for LayoutRight {
        type Out = LayoutRight;
    }
    impl<F: Kind> SubLayout<F, Idx> for LayoutRight {
        type Out = LayoutStride;
    }
    impl<La: Kind> SubLayout<Rng, La> for LayoutLeft {
        type Out = LayoutLeft;
    }
    impl<La: Kind> SubLayout<Idx, La> for LayoutLeft {
        type Out = LayoutStride;
    }
    impl<F: Kind, La: Kind> SubLayout<F, La> for LayoutStride {
        type Out = LayoutStride;
    }
}

use typelevel::{Idx, Kind, Nat, Origin, Rng, SubLayout, Z};

mod sealed {
    /// The seal of [`super::SubviewArg`]: a subview trusts its selections to lie inside the
    /// extents (it offsets pointers by them).
    #[diagnostic::on_unimplemented(
        message = "`SubviewArg` is sealed: a subview's argument is an index or a range of `usize`",
        label = "`{Self}` cannot select in a dimension of a subview",
        note = "a subview trusts its arguments to select inside the extents; pass `i`, `a..b`, \
                `a..=b`, `a..`, `..b`, `..=b`, `..`, `All` or a pair `(a, b)`"
    )]
    pub trait Sealed {}
    /// The seal of [`super::SubviewArgs`] (one argument, or tuples of them).
    #[diagnostic::on_unimplemented(
        message = "`SubviewArgs` is sealed: a subview of a rank-{R} View takes {R} arguments",
        label = "`{Self}` cannot be the arguments of a subview of a rank-{R} View",
        note = "pass one `SubviewArg` per dimension, as a tuple (`(i, .., 2..5)`), or a single one \
                for a rank-1 View; each is an index or a range of `usize` (`i`, `a..b`, `..`, \
                `All`, ..)"
    )]
    pub trait SealedArgs<const R: usize> {}
}

/// One argument of [`subview`]: an index or a range of one dimension (sealed).
pub trait SubviewArg: sealed::Sealed {
    /// Whether the argument keeps its dimension.
    #[doc(hidden)]
    type Kind: Kind;

    /// What the argument selects in a dimension of `extent`, or the argument as text if it is out of
    /// bounds.
    #[doc(hidden)]
    fn select(self, extent: usize) -> std::result::Result<Selection, String>;
}

fn range(begin: usize, end: usize, extent: usize) -> std::result::Result<Selection, String> {
    if begin <= end && end <= extent {
        Ok(Selection::Range(begin, end))
    } else {
        Err(format!("{begin}..{end}"))
    }
}

impl sealed::Sealed for usize {}

impl SubviewArg for usize {
    type Kind = Idx;
    fn select(self, extent: usize) -> std::result::Result<Selection, String> {
        if self < extent {
            Ok(Selection::Index(self))
        } else {
            Err(self.to_string())
        }
    }
}

impl sealed::Sealed for All {}

impl SubviewArg for All {
    type Kind = Rng;
    fn select(self, extent: usize) -> std::result::Result<Selection, String> {
        Ok(Selection::Range(0, extent))
    }
}

impl sealed::Sealed for RangeFull {}

impl SubviewArg for RangeFull {
    type Kind = Rng;
    fn select(self, extent: usize) -> std::result::Result<Selection, String> {
        Ok(Selection::Range(0, extent))
    }
}

impl sealed::Sealed for (usize, usize) {}

impl SubviewArg for (usize, usize) {
    type Kind = Rng;
    fn select(self, extent: usize) -> std::result::Result<Selection, String> {
        range(self.0, self.1, extent).map_err(|_| format!("({}, {})", self.0, self.1))
    }
}

impl sealed::Sealed for Range<usize> {}

impl SubviewArg for Range<usize> {
    type Kind = Rng;
    fn select(self, extent: usize) -> std::result::Result<Selection, String> {
        range(self.start, self.end, extent)
    }
}

impl sealed::Sealed for RangeInclusive<usize> {}

impl SubviewArg for RangeInclusive<usize> {
    type Kind = Rng;
    fn select(self, extent: usize) -> std::result::Result<Selection, String> {
        let (b, e) = (*self.start(), *self.end());
        let Some(end) = e.checked_add(1) else {
            return Err(format!("{b}..={e}"));
        };
        // An exhausted range (iterated to its end) selects nothing, as in slice indexing.
        let begin = if self.is_empty() && b <= e { end } else { b };
        range(begin, end, extent).map_err(|_| format!("{b}..={e}"))
    }
}

impl sealed::Sealed for RangeFrom<usize> {}

impl SubviewArg for RangeFrom<usize> {
    type Kind = Rng;
    fn select(self, extent: usize) -> std::result::Result<Selection, String> {
        range(self.start, extent, extent).map_err(|_| format!("{}..", self.start))
    }
}

impl sealed::Sealed for RangeTo<usize> {}

impl SubviewArg for RangeTo<usize> {
    type Kind = Rng;
    fn select(self, extent: usize) -> std::result::Result<Selection, String> {
        range(0, self.end, extent).map_err(|_| format!("..{}", self.end))
    }
}

impl sealed::Sealed for RangeToInclusive<usize> {}

impl SubviewArg for RangeToInclusive<usize> {
    type Kind = Rng;
    fn select(self, extent: usize) -> std::result::Result<Selection, String> {
        match self.end.checked_add(1) {
            Some(end) => range(0, end, extent).map_err(|_| format!("..={}", self.end)),
            None => Err(format!("..={}", self.end)),
        }
    }
}

/// The arguments of a [`subview`] of a rank-`R` View: a tuple of `R` [`SubviewArg`]s (or, for rank 1,
/// a single argument). Sealed.
pub trait SubviewArgs<const R: usize>: sealed::SealedArgs<R> {
    /// The result's rank (a type-level number).
    #[doc(hidden)]
    type Rank;
    /// The first argument's kind.
    #[doc(hidden)]
    type First: Kind;
    /// The last argument's kind.
    #[doc(hidden)]
    type Last: Kind;

    /// The selections, or the position and text of the first out-of-bounds argument.
    #[doc(hidden)]
    fn select(self, extents: &[usize; R]) -> std::result::Result<[Selection; R], (usize, String)>;
}

impl<A: SubviewArg> sealed::SealedArgs<1> for A {}

impl<A: SubviewArg> SubviewArgs<1> for A {
    type Rank = <A::Kind as Kind>::Plus<Z>;
    type First = A::Kind;
    type Last = A::Kind;
    fn select(self, extents: &[usize; 1]) -> std::result::Result<[Selection; 1], (usize, String)> {
        Ok([SubviewArg::select(self, extents[0]).map_err(|g| (0, g))?])
    }
}

macro_rules! rank_of {
    () => { Z };
    ($a:ident $(, $rest:ident)*) => { <<$a as SubviewArg>::Kind as Kind>::Plus<rank_of!($($rest),*)> };
}

macro_rules! subview_args {
    ($r:literal; $first:ident; $last:ident; $($a:ident $v:ident $n:literal),+) => {
        impl<$($a: SubviewArg),+> sealed::SealedArgs<$r> for ($($a,)+) {}

        impl<$($a: SubviewArg),+> SubviewArgs<$r> for ($($a,)+) {
            type Rank = rank_of!($($a),+);
            type First = <$first as SubviewArg>::Kind;
            type Last = <$last as SubviewArg>::Kind;
            fn select(
                self,
                extents: &[usize; $r],
            ) -> std::result::Result<[Selection; $r], (usize, String)> {
                let ($($v,)+) = self;
                Ok([$(SubviewArg::select($v, extents[$n]).map_err(|g| ($n, g))?),+])
            }
        }
    };
}

subview_args!(1; A0; A0; A0 a0 0);
subview_args!(2; A0; A1; A0 a0 0, A1 a1 1);
subview_args!(3; A0; A2; A0 a0 0, A1 a1 1, A2 a2 2);
subview_args!(4; A0; A3; A0 a0 0, A1 a1 1, A2 a2 2, A3 a3 3);
subview_args!(5; A0; A4; A0 a0 0, A1 a1 1, A2 a2 2, A3 a3 3, A4 a4 4);
subview_args!(6; A0; A5; A0 a0 0, A1 a1 1, A2 a2 2, A3 a3 3, A4 a4 4, A5 a5 5);
subview_args!(7; A0; A6; A0 a0 0, A1 a1 1, A2 a2 2, A3 a3 3, A4 a4 4, A5 a5 5, A6 a6 6);
subview_args!(8; A0; A7; A0 a0 0, A1 a1 1, A2 a2 2, A3 a3 3, A4 a4 4, A5 a5 5, A6 a6 6, A7 a7 7);

/// The View type that `subview(&View<T, R, L, M>, A)` returns.
pub type Subview<T, const R: usize, L, M, A> = <<A as SubviewArgs<R>>::Rank as Nat>::View<
    T,
    <L as SubLayout<<A as SubviewArgs<R>>::First, <A as SubviewArgs<R>>::Last>>::Out,
    M,
>;

/// A View of the part of `view` that `args` select, sharing its allocation (see the [module
/// docs](crate::view::subview)). An argument outside the parent's extents is [`Error::SubviewBounds`], naming the
/// label, the argument and the extents.
pub fn subview<T, const R: usize, L, M, A>(
    view: &View<T, R, L, M>,
    args: A,
) -> Result<Subview<T, R, L, M, A>>
where
    T: Element,
    L: Layout + SubLayout<A::First, A::Last>,
    M: MemorySpace,
    A: SubviewArgs<R>,
    A::Rank: Nat,
{
    let extents = view.extents();
    let selections = args
        .select(&extents)
        .map_err(|(arg, given)| Error::SubviewBounds {
            label: view.label().to_string(),
            arg,
            given,
            extent: extents[arg],
            extents: extents.to_vec(),
        })?;
    let strides = view.strides();
    let (mut offset, mut empty) = (0usize, false);
    let (mut kept_extents, mut kept_strides) = (Vec::with_capacity(R), Vec::with_capacity(R));
    for (r, selection) in selections.iter().enumerate() {
        match *selection {
            Selection::Index(i) => offset += i * strides[r],
            Selection::Range(begin, end) => {
                offset += begin * strides[r];
                empty |= begin == end;
                kept_extents.push(end - begin);
                kept_strides.push(strides[r]);
            }
        }
    }
    let ptr = if empty {
        view.ptr() // An empty View never dereferences its pointer; keep it inside the allocation.
    } else {
        // SAFETY: every selection is in bounds, so `offset` is the offset of an element of the parent,
        // which lies inside the allocation.
        unsafe { view.ptr().add(offset) }
    };
    let origin = Origin {
        alloc: Arc::clone(view.allocation()),
        ptr,
    };
    Ok(<A::Rank as Nat>::build(
        origin,
        &kept_extents,
        &kept_strides,
    ))
}

impl<T: Element, const R: usize, L: Layout, M: MemorySpace> View<T, R, L, M> {
    /// `subview(self, args)` as a method.
    pub fn subview<A>(&self, args: A) -> Result<Subview<T, R, L, M, A>>
    where
        L: SubLayout<A::First, A::Last>,
        A: SubviewArgs<R>,
        A::Rank: Nat,
    {
        subview(self, args)
    }
}
