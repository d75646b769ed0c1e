//! The std algorithms that fold a View into one value: [`reduce`], [`reduce_with_init`],
//! [`transform_reduce`], [`transform_reduce_binary`], [`count`], [`count_if`], [`all_of`],
//! [`any_of`], [`none_of`], [`equal`], [`equal_by`]. Each is one `parallel_reduce`.

use super::Number;
use super::check;
use crate::dispatch::{Launch, parallel_reduce};
use crate::error::Result;
use crate::kernel::DeviceFn;
use crate::kernel::value::DeviceValue;
use crate::layout::Layout;
use crate::policy::RangePolicy;
use crate::reducer::Sum;
use crate::space::MemorySpace;
use crate::view::View;

/// The sum of `view`'s elements (Kokkos' `reduce(exec, view)`, Rust's `iter().sum()`).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::std_algorithms::reduce;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let v = View::<i64, 1>::new("v", [100])?;
/// v.host_mut()?.as_mut_slice().unwrap().iter_mut().enumerate().for_each(|(i, x)| *x = i as i64);
/// assert_eq!(reduce(&exec, &v)?, 4950);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn reduce<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>) -> Result<T>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    reduce_with_init(exec, view, T::ZERO)
}

/// `init` plus the sum of `view`'s elements (Kokkos' `reduce(exec, view, init)`).
pub fn reduce_with_init<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>, init: T) -> Result<T>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let v = view;
    let sum = parallel_reduce(
        "Kokkos::reduce",
        RangePolicy::new(exec, 0, view.extent(0))?,
        crate::kernel!(|i, acc| *acc += v[i]),
        Sum::<T>::new(),
    )?;
    Ok(init + sum)
}

/// `init` plus the sum of `op(x)` over `view`'s elements (Kokkos' `transform_reduce(exec, view,
/// init, std::plus, op)`; Rust's `iter().map(op).sum()`).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::std_algorithms::transform_reduce;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Serial::default_instance()?;
/// let v = View::<f64, 1>::new("v", [3])?;
/// v.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[1.0, -2.0, 3.0]);
/// let squares = transform_reduce(&exec, &v, 0.0, kernel!(|x: f64| -> f64 { x * x }))?;
/// assert_eq!(squares, 14.0);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn transform_reduce<T, U, L, M, S, F>(
    exec: &S,
    view: &View<T, 1, L, M>,
    init: U,
    op: F,
) -> Result<U>
where
    T: DeviceValue,
    U: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = U>,
{
    let (v, op) = (view, op.closure());
    let sum = parallel_reduce(
        "Kokkos::transform_reduce",
        RangePolicy::new(exec, 0, view.extent(0))?,
        crate::kernel!(|i, acc| *acc += op.call(v[i])),
        Sum::<U>::new(),
    )?;
    Ok(init + sum)
}

/// `init` plus the sum of `op(a[i], b[i])` (Kokkos' `transform_reduce(exec, a, b, init, plus,
/// op)`; with `|x, y| x * y`, a dot product). The Views have one extent.
pub fn transform_reduce_binary<T, V, U, L, K, M, S, F>(
    exec: &S,
    a: &View<T, 1, L, M>,
    b: &View<V, 1, K, M>,
    init: U,
    op: F,
) -> Result<U>
where
    T: DeviceValue,
    V: DeviceValue,
    U: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, V), Output = U>,
{
    check::same_extent("transform_reduce", a, b)?;
    let op = op.closure();
    let sum = parallel_reduce(
        "Kokkos::transform_reduce",
        RangePolicy::new(exec, 0, a.extent(0))?,
        crate::kernel!(|i, acc| *acc += op.call(a[i], b[i])),
        Sum::<U>::new(),
    )?;
    Ok(init + sum)
}

/// How many elements equal `value` (Kokkos' `count`).
pub fn count<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>, value: T) -> Result<usize>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let v = view;
    parallel_reduce(
        "Kokkos::count",
        RangePolicy::new(exec, 0, view.extent(0))?,
        crate::kernel!(|i, acc| if v[i] == value {
            *acc += 1usize;
        }),
        Sum::<usize>::new(),
    )
}

/// How many elements satisfy `pred` (Kokkos' `count_if`, Rust's `iter().filter(pred).count()`).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::std_algorithms::count_if;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let v = View::<i32, 1>::new("v", [10])?;
/// v.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[3, -1, 4, -1, 5, -9, 2, 6, -5, 3]);
/// let floor = 0;
/// assert_eq!(count_if(&exec, &v, kernel!(|x: i32| -> bool { x > floor }))?, 6);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn count_if<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, pred: F) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    let (v, pred) = (view, pred.closure());
    parallel_reduce(
        "Kokkos::count_if",
        RangePolicy::new(exec, 0, view.extent(0))?,
        crate::kernel!(|i, acc| if pred.call(v[i]) {
            *acc += 1usize;
        }),
        Sum::<usize>::new(),
    )
}

/// Whether every element satisfies `pred` (Kokkos' `all_of`, Rust's `iter().all(pred)`; true
/// for an empty View).
pub fn all_of<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, pred: F) -> Result<bool>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    Ok(count_if(exec, view, pred)? == view.extent(0))
}

/// Whether some element satisfies `pred` (Kokkos' `any_of`, Rust's `iter().any(pred)`).
pub fn any_of<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, pred: F) -> Result<bool>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    Ok(count_if(exec, view, pred)? > 0)
}

/// Whether no element satisfies `pred` (Kokkos' `none_of`).
pub fn none_of<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, pred: F) -> Result<bool>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    Ok(count_if(exec, view, pred)? == 0)
}

/// Whether `a` and `b` have one extent and equal elements (Kokkos' `equal`, Rust's `a == b` on
/// slices). Floats compare with `==`: a NaN equals nothing.
pub fn equal<T, L, K, M, S>(exec: &S, a: &View<T, 1, L, M>, b: &View<T, 1, K, M>) -> Result<bool>
where
    T: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    if a.extent(0) != b.extent(0) {
        return Ok(false);
    }
    let differ = parallel_reduce(
        "Kokkos::equal",
        RangePolicy::new(exec, 0, a.extent(0))?,
        crate::kernel!(|i, acc| if a[i] != b[i] {
            *acc += 1usize;
        }),
        Sum::<usize>::new(),
    )?;
    Ok(differ == 0)
}

/// Whether `a` and `b` have one extent and `pred(a[i], b[i])` holds for every `i` (Kokkos'
/// `equal(exec, a, b, pred)`).
pub fn equal_by<T, V, L, K, M, S, F>(
    exec: &S,
    a: &View<T, 1, L, M>,
    b: &View<V, 1, K, M>,
    pred: F,
) -> Result<bool>
where
    T: DeviceValue,
    V: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, V), Output = bool>,
{
    if a.extent(0) != b.extent(0) {
        return Ok(false);
    }
    let pred = pred.closure();
    let differ = parallel_reduce(
        "Kokkos::equal",
        RangePolicy::new(exec, 0, a.extent(0))?,
        crate::kernel!(|i, acc| if !pred.call(a[i], b[i]) {
            *acc += 1usize;
        }),
        Sum::<usize>::new(),
    )?;
    Ok(differ == 0)
}

/// How many `i` have `pred(view[i - 1]) == before` and `pred(view[i]) == after`.
pub(super) fn count_if_pairs<T, L, M, S, F>(
    exec: &S,
    view: &View<T, 1, L, M>,
    pred: F,
    before: bool,
    after: bool,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    let (v, n, pred) = (view, view.extent(0), pred.closure());
    if n < 2 {
        return Ok(0);
    }
    parallel_reduce(
        "Kokkos::is_partitioned",
        RangePolicy::new(exec, 1, n)?,
        crate::kernel!(
            |i, acc| if pred.call(v[i - 1]) == before && pred.call(v[i]) == after {
                *acc += 1usize;
            }
        ),
        Sum::<usize>::new(),
    )
}
