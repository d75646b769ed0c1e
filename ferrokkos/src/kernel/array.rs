//! Captured arrays: a kernel may read a Rust array of numbers (`[f64; 8]`) that it captures by value,
//! as Kokkos functors carry small arrays. On the device it is an `fk::Array<T, N>` parameter.

use std::marker::PhantomData;

use super::builder::prec;
use super::capture::{Borrowed, IntoCapture, KernelValue};
use super::expr::Expr;
use super::params::ParamWriter;
use super::value::DeviceValue;
use super::view_expr::DeviceIndex;
use crate::seal::SealedKernelValue;
use crate::view::kernel_access::{KernelIndex, ViewAccess};

impl<T: DeviceValue, const N: usize> IntoCapture for [T; N] {
    type Value = [T; N];
    fn capture_value(&self) -> [T; N] {
        *self
    }
}

/// A captured array as the host body sees it: `values[j]` reads element `j` (bounds-checked). It
/// borrows the array the kernel holds for the launch (a launch does not copy it again).
pub struct HostArray<'a, T, const N: usize> {
    array: &'a [T; N],
}

impl<T, const N: usize> Clone for HostArray<'_, T, N> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, const N: usize> Copy for HostArray<'_, T, N> {}

impl<T: Copy, const N: usize> HostArray<'_, T, N> {
    /// `values[index]`; panics, naming the length, if `index` is out of range.
    #[inline(always)]
    #[track_caller]
    pub fn at(&self, index: impl KernelIndex<1>) -> T {
        let [i] = index.to_index();
        match self.array.get(i) {
            Some(v) => *v,
            None => out_of_range(i, N),
        }
    }

    /// `values[index]` in a body's proven form: a launch proves only Views' accesses (an array
    /// has no [`crate::view::kernel_access::ViewAccess`]), so an array keeps its check.
    ///
    /// # Safety
    /// None beyond `at`'s: this is `unsafe` only to match the Views' unchecked accessor.
    #[doc(hidden)]
    #[inline(always)]
    #[track_caller]
    pub unsafe fn at_unchecked(&self, index: impl KernelIndex<1>) -> T {
        self.at(index)
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_range(index: usize, len: usize) -> ! {
    panic!("index {index} is out of bounds for a captured array of length {len}")
}

/// A captured array in the typed shadow.
pub struct ArrayExpr<T, const N: usize> {
    name: Expr<()>,
    _type: PhantomData<fn() -> T>,
}

impl<T, const N: usize> Clone for ArrayExpr<T, N> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, const N: usize> Copy for ArrayExpr<T, N> {}

#[allow(clippy::len_without_is_empty)] // a kernel's `a.len()`; Rust arrays have no `is_empty` use here
impl<T: DeviceValue, const N: usize> ArrayExpr<T, N> {
    /// `values[index]` (assignable for a local `let mut` array).
    pub fn at(self, index: impl DeviceIndex<1>) -> Expr<T> {
        let i = index.coordinates().remove(0);
        Expr::new(format!("{}[{i}]", self.name.text()), prec::PRIMARY)
    }

    /// `values.len()`.
    pub fn len(self) -> Expr<usize> {
        Expr::new(format!("{N}ULL"), prec::PRIMARY)
    }
}

/// `let name = [e0, e1, ...];` (`mutable`: `let mut`): a local array (`fk::Array<T, N>`, indexed
/// with the bounds check of captured arrays).
pub fn array_local<T: DeviceValue, const N: usize>(
    name: &str,
    mutable: bool,
    elems: [Expr<T>; N],
) -> ArrayExpr<T, N> {
    let ty = format!("fk::Array<{}, {N}>", T::cxx_name());
    let values: Vec<String> = elems.iter().map(|e| e.text()).collect();
    let cxx = super::builder::fresh_name(name);
    let konst = if mutable { "" } else { "const " };
    super::builder::line(format!(
        "{konst}{ty} {cxx} = {{{{{}}}}};",
        values.join(", ")
    ));
    ArrayExpr {
        name: Expr::name(&cxx),
        _type: PhantomData,
    }
}

/// `let name = [value; N];`: a local array of `N` copies of `value` (evaluated once).
pub fn array_repeat<T: DeviceValue, const N: usize>(name: &str, value: Expr<T>) -> ArrayExpr<T, N> {
    let ty = format!("fk::Array<{}, {N}>", T::cxx_name());
    let fill = super::builder::fresh_temp("fk_fill");
    super::builder::line(format!(
        "const {} {fill} = {};",
        T::cxx_name(),
        value.text()
    ));
    let cxx = super::builder::fresh_name(name);
    let k = super::builder::fresh_temp("fk_k");
    super::builder::line(format!("{ty} {cxx};"));
    super::builder::line(format!(
        "for (usize {k} = 0; {k} < {N}ULL; ++{k}) {cxx}.v[{k}] = {fill};"
    ));
    ArrayExpr {
        name: Expr::name(&cxx),
        _type: PhantomData,
    }
}

impl<T: DeviceValue, const N: usize> SealedKernelValue for [T; N] {}

impl<T: DeviceValue, const N: usize> KernelValue for [T; N] {
    type Host<'a> = HostArray<'a, T, N>;
    type Shadow = ArrayExpr<T, N>;
    fn read_access(&self, _: &'static str) -> Option<ViewAccess<'_>> {
        None
    }
    fn read_host<'a>(&'a self, _: &Borrowed) -> HostArray<'a, T, N> {
        HostArray { array: self }
    }
    fn read_shadow(cxx_name: &str) -> ArrayExpr<T, N> {
        ArrayExpr {
            name: Expr::name(cxx_name),
            _type: PhantomData,
        }
    }
    fn read_cxx_type() -> String {
        format!("const fk::Array<{}, {N}>", T::cxx_name())
    }
    fn read_pack(&self, w: &mut ParamWriter<'_>) {
        w.push_ref(self);
    }
}
