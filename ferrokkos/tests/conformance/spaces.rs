//! The execution spaces every generic test runs on, and the helpers of generic test bodies.
//!
//! [`for_each_space!`] is the list of spaces, written here once: one line per space. Adding a
//! backend is adding its line. Two macros instantiate generic bodies from it:
//! - [`per_space!`]`(name, body)`: `body` is `fn body<S: Launch>(exec: &S) -> Result<()>`; the
//!   macro makes a module `name` with one test per space (`name::serial`, `name::threads`,
//!   `name::cuda`), each calling `body::<S>` with the default instance of its space.
//! - `differential!(inputs, run, reference)` (in `differential/mod.rs`): one test per space of a
//!   differential case, compared as the space's line says.

use ferrokkos::Result;
use ferrokkos::prelude::*;
use ferrokkos::traits::RegularLayout;
use ferrokkos::traits::{Element, IndexType, Layout};

/// The execution spaces, one line each: the name of the space's test, the space's type, the
/// attributes of its test (`#[ignore]` where the space needs hardware a machine may lack) and how a
/// differential test checks its results: against the plain Rust `reference` or against `serial`'s
/// results, under a `differential::Mode`.
///
/// `for_each_space!(m!(args...))` expands to `m!(test, Space, [attributes], comparison, args...)`
/// once per space.
macro_rules! for_each_space {
    ($m:ident!($($args:tt)*)) => {
        $m!(serial, ::ferrokkos::Serial, [], reference(Exact), $($args)*);
        $m!(threads, ::ferrokkos::Threads, [], reference(Reassociated), $($args)*);
        $m!(cuda, ::ferrokkos::Cuda, [#[ignore = "needs a CUDA GPU"]], serial(Device), $($args)*);
    };
}

/// Generates the module `$name` with one test per space of [`for_each_space!`], each calling
/// `$body::<Space>(&Space::default_instance()?)`.
macro_rules! per_space {
    ($name:ident, $body:ident) => {
        mod $name {
            for_each_space!(space_test!($body));
        }
    };
}

/// One test of [`per_space!`]: the generic body of the parent module on one space.
macro_rules! space_test {
    ($test:ident, $space:ty, [$(#[$attr:meta])*], $compare:ident($mode:ident), $body:ident) => {
        #[test]
        $(#[$attr])*
        fn $test() -> ::ferrokkos::Result<()> {
            $crate::common::runtime();
            super::$body::<$space>(&<$space as ::ferrokkos::ExecutionSpace>::default_instance()?)
        }
    };
}

/// A View of rank `R` and layout `L` in the memory space of `S`.
pub type SView<S, T, const R: usize, L = LayoutRight> =
    View<T, R, L, <S as ExecutionSpace>::MemorySpace>;

/// A rank-1 View of `S`'s memory space holding `data` (copied from a host View).
pub fn upload<S: Launch, T: Element>(
    label: &str,
    data: &[T],
) -> Result<View<T, 1, LayoutRight, S::MemorySpace>> {
    let host = crate::common::view_from(label, data)?;
    let v = View::<T, 1, LayoutRight, S::MemorySpace>::new(label, [data.len()])?;
    deep_copy(&v, &host)?;
    Ok(v)
}

/// A View of `S`'s memory space with extents `extents` and layout `L`, holding `data` in row-major
/// order (written into a host mirror, then copied).
pub fn upload_nd<S: Launch, T: Element, const R: usize, L: RegularLayout>(
    label: &str,
    extents: [usize; R],
    data: &[T],
) -> Result<View<T, R, L, S::MemorySpace>> {
    let v = View::<T, R, L, S::MemorySpace>::new(label, extents)?;
    let m = create_mirror_view(&v)?;
    {
        let mut g = m.host_mut()?;
        for (n, i) in crate::common::indices(extents).into_iter().enumerate() {
            g[i] = data[n];
        }
    }
    deep_copy(&v, &m)?;
    Ok(v)
}

/// The elements of `v` in row-major order, read back through a host mirror.
pub fn download<T: Element, const R: usize, L: Layout, M: MemorySpace>(
    v: &View<T, R, L, M>,
) -> Result<Vec<T>> {
    let m = create_mirror_view(v)?;
    deep_copy(&m, v)?;
    m.to_vec()
}

/// Every schedule / chunk-size configuration of `begin..end` on `exec` (static and dynamic; no
/// chunk, 1, 7 and one larger than the range), each with a description.
pub fn policies<S: Launch, I: IndexType>(
    exec: &S,
    begin: I,
    end: I,
) -> Result<Vec<(String, RangePolicy<S, I>)>> {
    let base = RangePolicy::new(exec, begin, end)?;
    let mut out = Vec::new();
    for schedule in [Schedule::Static, Schedule::Dynamic] {
        let p = base.clone().schedule(schedule);
        out.push((format!("{} {schedule:?} no chunk", S::NAME), p.clone()));
        for chunk in [1, 7, crate::common::HUGE_CHUNK] {
            let c = p.clone().chunk_size(chunk)?;
            out.push((format!("{} {schedule:?} chunk {chunk}", S::NAME), c));
        }
    }
    Ok(out)
}

/// Asserts that every counter is 1.
pub fn each_once(counts: &[u32], what: &str) {
    for (k, c) in counts.iter().enumerate() {
        assert_eq!(*c, 1, "{what}: slot {k}");
    }
}

/// Asserts `|got - want| <= 1e-12 * scale` (an f64 reduction computed in another order).
#[track_caller]
pub fn assert_sum_close(got: f64, want: f64, scale: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-12 * scale,
        "{what}: {got:e} vs {want:e} (allowed {:e})",
        1e-12 * scale
    );
}
