//! [`ShadowIndex`]: a kernel's iteration index as the typed shadow sees it.

use super::expr::Expr;
use super::ty::DeviceScalar;
use crate::policy::IndexType;

/// The index type of a kernel (`usize` for a `RangePolicy`, `(i64, i64)` for a rank-2
/// `MDRangePolicy`), with its shadow form: an `Expr` per coordinate.
///
/// Sealed: its C++ names are written into the generated code.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a kernel's index",
    label = "not a kernel index type",
    note = "a kernel's index is `usize`, `u64`, `u32`, `isize`, `i64` or `i32` over a RangePolicy, \
            and a tuple of 2 to 6 of one of these over an MDRangePolicy"
)]
pub trait ShadowIndex: crate::seal::SealedIndex {
    /// The shadow's index: `Expr<I>` or a tuple of them.
    type Exprs;
    /// The coordinate type's C++ name.
    const CXX: &'static str;
    /// The number of coordinates (1 for a range).
    const RANK: usize;
    /// The shadow index for the C++ parameters named `names`.
    fn exprs(names: &[String]) -> Self::Exprs;
}

macro_rules! scalar_index {
    ($($t:ident),*) => {$(
        impl crate::seal::SealedIndex for $t {}

        impl ShadowIndex for $t {
            type Exprs = Expr<$t>;
            const CXX: &'static str = <$t as DeviceScalar>::CXX;
            const RANK: usize = 1;
            fn exprs(names: &[String]) -> Expr<$t> {
                Expr::name(&names[0])
            }
        }
    )*};
}

scalar_index!(usize, u64, u32, isize, i64, i32);

macro_rules! tuple_index {
    ($r:literal: $($k:tt)+) => {
        impl<I: IndexType + DeviceScalar> crate::seal::SealedIndex
            for ($(tuple_index!(@ty $k I),)+)
        {
        }

        impl<I: IndexType + DeviceScalar> ShadowIndex for ($(tuple_index!(@ty $k I),)+) {
            type Exprs = ($(tuple_index!(@ty $k Expr<I>),)+);
            const CXX: &'static str = I::CXX;
            const RANK: usize = $r;
            fn exprs(names: &[String]) -> Self::Exprs {
                ($(Expr::name(&names[$k]),)+)
            }
        }
    };
    (@ty $k:tt $t:ty) => { $t };
}

tuple_index!(2: 0 1);
tuple_index!(3: 0 1 2);
tuple_index!(4: 0 1 2 3);
tuple_index!(5: 0 1 2 3 4);
tuple_index!(6: 0 1 2 3 4 5);
