//! The std algorithms that set elements in place: [`fill`], [`fill_n`], [`generate`],
//! [`generate_n`], [`for_each`], [`for_each_n`]. Each is one `parallel_for`.

use super::check;
use crate::dispatch::{Launch, parallel_for};
use crate::error::Result;
use crate::kernel::DeviceFn;
use crate::kernel::value::DeviceValue;
use crate::layout::Layout;
use crate::policy::RangePolicy;
use crate::space::MemorySpace;
use crate::view::View;

/// Sets every element of `view` to `value` (Kokkos' `fill`, Rust's `fill`).
pub fn fill<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>, value: T) -> Result<()>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    // A one-element array: kernels capture any device value so.
    let (v, value) = (view, [value]);
    parallel_for(
        "Kokkos::fill",
        RangePolicy::new(exec, 0, view.extent(0))?,
        crate::kernel!(|i| v[i] = value[0]),
    )
}

/// Sets the first `n` elements of `view` to `value`; returns `n` (Kokkos' `fill_n`).
pub fn fill_n<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>, n: usize, value: T) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    check::has("fill_n", view, n)?;
    let (v, value) = (view, [value]);
    parallel_for(
        "Kokkos::fill_n",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| v[i] = value[0]),
    )?;
    Ok(n)
}

/// Sets every element of `view` to `g()` (Kokkos' `generate`; the closure takes no argument:
/// `kernel!(|| -> f64 { c })`). Each element calls `g` once, in any order.
pub fn generate<T, L, M, S, G>(exec: &S, view: &View<T, 1, L, M>, g: G) -> Result<()>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    G: DeviceFn<(), Output = T>,
{
    generate_n(exec, view, view.extent(0), g).map(|_| ())
}

/// Sets the first `n` elements of `view` to `g()`; returns `n` (Kokkos' `generate_n`).
pub fn generate_n<T, L, M, S, G>(exec: &S, view: &View<T, 1, L, M>, n: usize, g: G) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    G: DeviceFn<(), Output = T>,
{
    check::has("generate_n", view, n)?;
    let (v, g) = (view, g.closure());
    parallel_for(
        "Kokkos::generate_n",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| v[i] = g.call()),
    )?;
    Ok(n)
}

/// Replaces every element `x` of `view` by `f(x)` (Kokkos' `for_each`, whose functor changes its
/// argument through a reference: here the closure returns the new value, Rust's
/// `iter_mut().for_each(|x| *x = f(*x))`).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::std_algorithms::for_each;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let v = View::<f64, 1>::new("v", [3])?;
/// v.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[1.0, 2.0, 3.0]);
/// let shift = 0.5;
/// for_each(&exec, &v, kernel!(|x: f64| -> f64 { x * x + shift }))?;
/// assert_eq!(v.to_vec()?, [1.5, 4.5, 9.5]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn for_each<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, f: F) -> Result<()>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = T>,
{
    for_each_n(exec, view, view.extent(0), f).map(|_| ())
}

/// Replaces each of the first `n` elements `x` of `view` by `f(x)`; returns `n` (Kokkos'
/// `for_each_n`).
pub fn for_each_n<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, n: usize, f: F) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = T>,
{
    check::has("for_each_n", view, n)?;
    let (v, f) = (view, f.closure());
    parallel_for(
        "Kokkos::for_each_n",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| v[i] = f.call(v[i])),
    )?;
    Ok(n)
}
