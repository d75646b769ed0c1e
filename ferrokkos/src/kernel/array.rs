//! Arrays in kernels: `[T; N]` of device values is a device value itself (Kokkos' `Kokkos::Array`
//! and the `[3]` of `View<double*[3]>`): a capture (`[f64; 8]` read by the kernel), a local
//! (`let w = [a, b, c];`, `let mut acc = [0.0; N];`), a struct field, a `#[device]` parameter or
//! result, a View's element (`View<[f64; 3], 1>`). On the device it is `fk::Array<T, N>` (a struct
//! holding `T v[N]`: Rust's size, alignment and layout), indexed with a bounds check.

use super::builder;
use super::builder::prec;
use super::capture::IntoCapture;
use super::expr::Expr;
use super::shadow::Mut;
use super::value::DeviceValue;
use super::view_expr::DeviceIndex;
use crate::view::kernel_access::KernelIndex;

impl<T: DeviceValue, const N: usize> IntoCapture for [T; N] {
    type Value = [T; N];
    fn capture_value(&self) -> [T; N] {
        *self
    }
}

/// Indexing of a captured array in a kernel's host body (`values[j]`, which the host form writes as
/// an accessor call, as for a View). Macro support: the host body brings it into scope.
pub trait CapturedArray<T> {
    /// `values[index]`; panics, naming the length, if `index` is out of range.
    fn at(&self, index: impl KernelIndex<1>) -> T;

    /// `values[index]` in a body's proven form: a launch proves only Views' accesses (an array
    /// has no [`crate::view::kernel_access::ViewAccess`]), so an array keeps its check.
    ///
    /// # Safety
    /// None beyond `at`'s: this is `unsafe` only to match the Views' unchecked accessor.
    unsafe fn at_unchecked(&self, index: impl KernelIndex<1>) -> T;
}

impl<T: Copy, const N: usize> CapturedArray<T> for [T; N] {
    #[inline(always)]
    #[track_caller]
    fn at(&self, index: impl KernelIndex<1>) -> T {
        let [i] = index.to_index();
        match self.get(i) {
            Some(v) => *v,
            None => out_of_range(i, N),
        }
    }

    #[inline(always)]
    #[track_caller]
    unsafe fn at_unchecked(&self, index: impl KernelIndex<1>) -> T {
        self.at(index)
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_range(index: usize, len: usize) -> ! {
    panic!("index {index} is out of bounds for a captured array of length {len}")
}

// The element and the length of an array's shadow, and of a `&mut [T; N]` parameter's. Inherent
// methods of these types only (bounds on the `impl`), so that `len` of another type's shadow falls
// to a `#[device]` method of that name (`kernel/shadow/builtin_named.rs`).
#[allow(clippy::len_without_is_empty)] // a kernel's `a.len()`; Rust arrays have no `is_empty` use here
impl<T: DeviceValue, const N: usize> Expr<[T; N]> {
    /// `values[index]`: an element (assignable where the array is: a `let mut` local, a field of
    /// one, an element of a written View), bounds-checked on the device.
    pub fn at(self, index: impl DeviceIndex<1>) -> Expr<T> {
        let i = index.coordinates().remove(0);
        Expr::new(
            format!("{}[{i}]", self.operand(prec::PRIMARY)),
            prec::PRIMARY,
        )
    }

    /// `values[index]` of a captured array where the macro could not tell it from a View (see
    /// `ViewExpr::at_proven`): a launch proves only Views' accesses, so it keeps its check.
    #[doc(hidden)]
    pub fn at_proven(self, index: impl DeviceIndex<1>) -> Expr<T> {
        self.at(index)
    }

    /// `values.len()`.
    pub fn len(self) -> Expr<usize> {
        Expr::new(format!("{N}ULL"), prec::PRIMARY)
    }
}

#[allow(clippy::len_without_is_empty)]
impl<T: DeviceValue, const N: usize> Expr<Mut<[T; N]>> {
    /// `values[index]` of a `&mut [T; N]` parameter: an element of the array it refers to.
    pub fn at(self, index: impl DeviceIndex<1>) -> Expr<T> {
        self.retype::<[T; N]>().at(index)
    }

    /// `values.len()`.
    pub fn len(self) -> Expr<usize> {
        self.retype::<[T; N]>().len()
    }
}

/// The array literal `[e0, e1, ...]`: a C++ temporary holding the elements, evaluated in order.
pub fn array_of<T: DeviceValue, const N: usize>(elems: [Expr<T>; N]) -> Expr<[T; N]> {
    let ty = <[T; N]>::cxx_name();
    let values: Vec<String> = elems.iter().map(|e| e.text()).collect();
    let t = builder::fresh_temp("fk_array");
    builder::line(format!("const {ty} {t} = {{{{{}}}}};", values.join(", ")));
    Expr::name(&t)
}

/// The array literal `[value; N]`: `N` copies of `value` (evaluated once).
pub fn array_repeat<T: DeviceValue, const N: usize>(value: Expr<T>) -> Expr<[T; N]> {
    let ty = <[T; N]>::cxx_name();
    let fill = builder::fresh_temp("fk_fill");
    builder::line(format!(
        "const {} {fill} = {};",
        T::cxx_name(),
        value.text()
    ));
    let t = builder::fresh_temp("fk_array");
    let k = builder::fresh_temp("fk_k");
    builder::line(format!("{ty} {t};"));
    builder::line(format!(
        "for (usize {k} = 0; {k} < {N}ULL; ++{k}) {t}.v[{k}] = {fill};"
    ));
    Expr::name(&t)
}
