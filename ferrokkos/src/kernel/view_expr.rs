//! [`ViewExpr`]: a captured View inside a kernel's typed shadow (a `fk::View` parameter in C++).

use std::marker::PhantomData;

use super::builder::prec;
use super::device_fn::{Ch, DeviceMethod, MethodReceiver};
use super::expr::Expr;
use super::shadow::{DeviceInt, Takes};
use super::value::DeviceValue;

/// A View captured by a kernel, as the typed shadow sees it: indexing gives the element expression
/// `x(i, j)`.
pub struct ViewExpr<T, const R: usize, L> {
    name: Expr<()>,
    _type: PhantomData<fn() -> (T, L)>,
}

impl<T, const R: usize, L> Clone for ViewExpr<T, R, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, const R: usize, L> Copy for ViewExpr<T, R, L> {}

/// An index of a rank-`R` View in the shadow: an integer expression (rank 1) or a tuple of them
/// (sealed: its coordinates are written into the generated code).
#[diagnostic::on_unimplemented(
    message = "this is not an index of a rank-{R} View in a kernel",
    label = "not an index of a rank-{R} View",
    note = "a kernel indexes a rank-1 View with one integer of any integer type (`x[i]`) and a \
            View of rank 2 to 8 with a tuple of as many integers (`a[(i, j)]`, `a[(i, j, k)]`)",
    note = "an index is computed by the kernel's own code: a name that resolves to a variable \
            outside it (as when a `macro_rules!` macro supplies the closure's parameter and its \
            caller the body) is not an index here"
)]
pub trait DeviceIndex<const R: usize>: crate::seal::SealedDeviceIndex {
    /// The C++ text of each coordinate.
    fn coordinates(self) -> Vec<String>;
}

impl crate::seal::SealedDeviceIndex for () {}

impl DeviceIndex<0> for () {
    fn coordinates(self) -> Vec<String> {
        Vec::new()
    }
}

impl<I: DeviceInt> crate::seal::SealedDeviceIndex for Expr<I> {}

impl<I: DeviceInt> DeviceIndex<1> for Expr<I> {
    fn coordinates(self) -> Vec<String> {
        vec![self.text()]
    }
}

macro_rules! tuple_index {
    ($r:literal: $($i:ident $v:ident),+) => {
        impl<$($i: DeviceInt),+> crate::seal::SealedDeviceIndex for ($(Expr<$i>,)+) {}

        impl<$($i: DeviceInt),+> DeviceIndex<$r> for ($(Expr<$i>,)+) {
            fn coordinates(self) -> Vec<String> {
                let ($($v,)+) = self;
                vec![$($v.text()),+]
            }
        }
    };
}

tuple_index!(2: I0 a, I1 b);
tuple_index!(3: I0 a, I1 b, I2 c);
tuple_index!(4: I0 a, I1 b, I2 c, I3 d);
tuple_index!(5: I0 a, I1 b, I2 c, I3 d, I4 e);
tuple_index!(6: I0 a, I1 b, I2 c, I3 d, I4 e, I5 f);
tuple_index!(7: I0 a, I1 b, I2 c, I3 d, I4 e, I5 f, I6 g);
tuple_index!(8: I0 a, I1 b, I2 c, I3 d, I4 e, I5 f, I6 g, I7 h);

impl<T: DeviceValue, const R: usize, L> ViewExpr<T, R, L> {
    /// The View parameter named `cxx_name`.
    pub(crate) fn new(cxx_name: &str) -> Self {
        ViewExpr {
            name: Expr::name(cxx_name),
            _type: PhantomData,
        }
    }

    /// The C++ text of the View (its parameter name).
    pub(crate) fn text(self) -> String {
        self.name.text()
    }

    /// The C++ text of the element at `index`: `x(i, j)`.
    pub(super) fn element(self, index: impl DeviceIndex<R>) -> String {
        format!("{}({})", self.name.text(), index.coordinates().join(", "))
    }

    /// `x[index]`: the element (readable, and assignable for a written View).
    pub fn at(self, index: impl DeviceIndex<R>) -> Expr<T> {
        Expr::new(self.element(index), prec::PRIMARY)
    }

    /// `x[index]` at an index map the kernel records with `Kernel::with_device_bounds`:
    /// `x(fk_proven, i, j)`, unchecked in an entry whose launch proved every such access in
    /// bounds over its whole iteration box (`fk_proven` is an `fk::Proof<true>`), checked in any
    /// other.
    #[doc(hidden)]
    pub fn at_proven(self, index: impl DeviceIndex<R>) -> Expr<T> {
        let mut args = vec!["fk_proven".to_string()];
        args.extend(index.coordinates());
        Expr::new(
            format!("{}({})", self.name.text(), args.join(", ")),
            prec::PRIMARY,
        )
    }

    /// `x.extent(r)`: a literal dimension of the View reads `x.extent[r]`; any other goes through
    /// `fk::extent`, which checks it (a dimension the View does not have is a fault, as the host
    /// panics) instead of reading past the descriptor.
    pub fn extent(self, r: Expr<usize>) -> Expr<usize> {
        match literal_dim::<R>(r) {
            Some(dim) => Expr::new(format!("{}.extent[{dim}]", self.name.text()), prec::PRIMARY),
            None => super::expr::call("fk::extent", &[self.name.text(), r.text()]),
        }
    }
}

/// The dimension `r` when it is a literal below `R` (`2ULL`): such a dimension is read from the
/// descriptor directly; any other goes through a checked device function.
fn literal_dim<const R: usize>(r: Expr<usize>) -> Option<usize> {
    r.text()
        .strip_suffix("ULL")
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|d| d.parse::<usize>().ok())
        .filter(|&d| d < R)
}

/// An OffsetView captured by a kernel, as the typed shadow sees it (an `fk::OffsetView`
/// parameter): indexing gives `x(i, j)`, which subtracts the begins in C++.
pub struct OffsetExpr<T, const R: usize, L> {
    view: ViewExpr<T, R, L>,
}

impl<T, const R: usize, L> Clone for OffsetExpr<T, R, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, const R: usize, L> Copy for OffsetExpr<T, R, L> {}

impl<T: DeviceValue, const R: usize, L> OffsetExpr<T, R, L> {
    /// The OffsetView parameter named `cxx_name`.
    pub(crate) fn new(cxx_name: &str) -> Self {
        OffsetExpr {
            view: ViewExpr::new(cxx_name),
        }
    }

    /// `x[index]`: the element at the OffsetView's own index.
    pub fn at(self, index: impl DeviceIndex<R>) -> Expr<T> {
        self.view.at(index)
    }

    /// `x[index]` at a recorded index map (see [`ViewExpr::at_proven`]): the index is checked
    /// against the begins, and the coordinate it gives against the extents only where
    /// `fk_proven` is false.
    #[doc(hidden)]
    pub fn at_proven(self, index: impl DeviceIndex<R>) -> Expr<T> {
        self.view.at_proven(index)
    }

    /// `x.extent(r)`.
    pub fn extent(self, r: Expr<usize>) -> Expr<usize> {
        self.view.extent(r)
    }

    /// `x.begin(r)` for an argument of a known type.
    pub fn __fk_begin<A>(self, r: Expr<A>) -> Expr<i64>
    where
        usize: Takes<A>,
    {
        self.__fkt_begin(<usize as Takes<A>>::take(r))
    }

    /// `x.end(r)` for an argument of a known type.
    pub fn __fk_end<A>(self, r: Expr<A>) -> Expr<i64>
    where
        usize: Takes<A>,
    {
        self.__fkt_end(<usize as Takes<A>>::take(r))
    }

    /// `x.begin(r)`: the first index of dimension `r` (a dimension the OffsetView does not have
    /// is a fault, as on the host a panic).
    pub fn __fkt_begin(self, r: Expr<usize>) -> Expr<i64> {
        let name = self.view.text();
        match literal_dim::<R>(r) {
            Some(dim) => Expr::new(format!("{name}.begin[{dim}]"), prec::PRIMARY),
            None => super::expr::call("fk::offset_begin", &[name, r.text()]),
        }
    }

    /// `x.end(r)`: one past the last index of dimension `r`.
    pub fn __fkt_end(self, r: Expr<usize>) -> Expr<i64> {
        super::expr::call("fk::offset_end", &[self.view.text(), r.text()])
    }
}

// SAFETY: an OffsetView's shadow is called as itself.
#[diagnostic::do_not_recommend]
unsafe impl<T, const R: usize, L> MethodReceiver for OffsetExpr<T, R, L> {
    type Target = OffsetExpr<T, R, L>;
    fn receive(self) -> Self {
        self
    }
}

// SAFETY: `OffsetExpr::__fk_begin` / `__fkt_begin` emit the device form of the host accessors'
// `begin` (`view/offset_access.rs`): the first index of the dimension, a fault past the rank.
#[diagnostic::do_not_recommend]
unsafe impl<T, const R: usize, L> DeviceMethod<Ch<'b', Ch<'e', Ch<'g', Ch<'i', Ch<'n', ()>>>>>>
    for OffsetExpr<T, R, L>
{
}

// SAFETY: as for `begin`, with `end`: the begin plus the extent.
#[diagnostic::do_not_recommend]
unsafe impl<T, const R: usize, L> DeviceMethod<Ch<'e', Ch<'n', Ch<'d', ()>>>>
    for OffsetExpr<T, R, L>
{
}
