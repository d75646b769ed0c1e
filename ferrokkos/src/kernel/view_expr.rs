//! [`ViewExpr`]: a captured View inside a kernel's typed shadow (a `fk::View` parameter in C++).

use std::marker::PhantomData;

use super::builder::prec;
use super::expr::Expr;
use super::shadow::DeviceInt;
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

    /// `x.extent(r)`: a literal dimension of the View reads `x.extent[r]`; any other goes through
    /// `fk::extent`, which checks it (a dimension the View does not have is a fault, as the host
    /// panics) instead of reading past the descriptor.
    pub fn extent(self, r: Expr<usize>) -> Expr<usize> {
        let text = r.text();
        let literal = text
            .strip_suffix("ULL")
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|d| d.parse::<usize>().ok());
        match literal {
            Some(dim) if dim < R => {
                Expr::new(format!("{}.extent[{dim}]", self.name.text()), prec::PRIMARY)
            }
            _ => super::expr::call("fk::extent", &[self.name.text(), text]),
        }
    }
}
