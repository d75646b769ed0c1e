//! The parallel patterns: [`parallel_for`], [`parallel_reduce`], [`parallel_scan`].

mod functor;
mod host;
mod kernel;
mod kernel_functor;
mod launch;
mod patterns;
mod prepare;
mod reach;
pub(crate) mod team;

pub use functor::{ForFunctor, Functor, ReduceFunctor, ScanFunctor};
pub use host::HostExecutionSpace;
pub use kernel::{ForKernel, ReduceKernel, ScanKernel};
pub use launch::{Launch, LaunchMDRange, LaunchRange, LaunchTeam, TeamLimits};
pub use prepare::{Job, Prepare, PrepareReport};
// What a backend that compiles kernels (Cuda) needs to answer a preparation.
#[cfg_attr(not(feature = "cuda"), allow(unused_imports))]
pub use prepare::Request;
#[cfg_attr(not(feature = "cuda"), allow(unused_imports))]
pub(crate) use prepare::{Obtained, RequestPattern, Work};
pub use reach::{Everywhere, HostOnly, Reach, ReachesSpace};
pub use team::{
    ScratchArena, ScratchView, SingleScope, TeamForFunctor, TeamForKernel, TeamMember,
    TeamReduceFunctor, TeamReduceKernel, TeamThreadMDRange, TeamThreadRange, TeamVectorRange,
    ThreadVectorRange, single,
};

use crate::error::Result;
use crate::reducer::{ReduceTarget, Reducer, ReductionScalar, Sum};
use crate::seal::Token;

/// A policy that can run the kernel `K` with [`parallel_for`]. Implemented by [`crate::RangePolicy`]
/// and [`crate::MDRangePolicy`] on the host spaces for every [`ForKernel`] of their index type.
///
/// The compilation a launch asks for ahead of time (the hidden `prepare_for`, and its siblings of
/// [`ParallelReduce`] and [`ParallelScan`]) is ferrokkos's own: the method takes a token of type
/// `SealedMethod` that only ferrokkos can make, so no other crate calls or overrides it.
pub trait ParallelFor<K> {
    /// Runs the kernel; see [`parallel_for`].
    #[doc(hidden)]
    fn launch_for(self, label: &str, kernel: K) -> Result<()>;

    /// The compilation that [`Prepare::parallel_for`] needs for this launch, if any (host
    /// spaces compile nothing).
    #[doc(hidden)]
    fn prepare_for(&self, label: &str, kernel: &K, _: Token) -> Result<Option<Job>> {
        let _ = (label, kernel);
        Ok(None)
    }
}

/// A policy that can run the kernel `K` with [`parallel_reduce`] into the target `T`.
pub trait ParallelReduce<K, T: ReduceTarget> {
    /// Runs the kernel; see [`parallel_reduce`].
    #[doc(hidden)]
    fn launch_reduce(self, label: &str, kernel: K, target: T) -> Result<T::Output>;

    /// The compilation that [`Prepare::parallel_reduce`] needs for this launch, if any.
    #[doc(hidden)]
    fn prepare_reduce(&self, label: &str, kernel: &K, _: Token) -> Result<Option<Job>> {
        let _ = (label, kernel);
        Ok(None)
    }
}

/// A policy that can run the scan kernel `K` with the reducer `Rd` ([`parallel_scan`]).
pub trait ParallelScan<K, Rd: Reducer> {
    /// Runs the kernel; see [`parallel_scan`].
    #[doc(hidden)]
    fn launch_scan(self, label: &str, kernel: K, reducer: Rd) -> Result<Rd::Value>;

    /// The compilation that [`Prepare::parallel_scan`] needs for this launch, if any.
    #[doc(hidden)]
    fn prepare_scan(&self, label: &str, kernel: &K, _: Token) -> Result<Option<Job>> {
        let _ = (label, kernel);
        Ok(None)
    }
}

/// Runs `kernel` once for every iteration of `policy` (Kokkos' `parallel_for`). `label` names the
/// launch for tools and errors. The policy is a [`crate::RangePolicy`], an [`crate::MDRangePolicy`],
/// or, as Kokkos' `parallel_for(n, f)`, a plain `usize` `n`: iterations `0..n` on the default instance of
/// [`crate::DefaultHostExecutionSpace`].
///
/// A pattern runs a kernel over the iterations of a policy on the policy's execution-space instance.
/// On the host spaces the call returns when the work is done. A kernel is
/// - a `kernel!` ([`crate::kernel!`]): one body for every space, whose View writes the macro checks
///   (the recommended form; it becomes CUDA C++ for the GPU too);
/// - or, on the host spaces, a plain closure with its parameter types written out (`|i: usize| ...`),
///   or a functor struct implementing [`ForKernel`] / [`ReduceKernel`] / [`ScanKernel`], wrapped in
///   [`Functor`] (`parallel_for("x", policy, Functor(my_struct))`).
///
/// # Writing Views from a plain closure
///
/// A kernel runs on several threads at once, so a closure reads Views through shared guards
/// ([`crate::View::host`]), which are `Sync`, and writes them through a
/// [`crate::ParallelMut`], whose creation is `unsafe`: the caller promises Kokkos' contract that
/// no element is written by two iterations, nor written by one and read by another. `kernel!` checks
/// the common owner-computes case instead, and needs no `unsafe`.
///
/// # Fast kernels
///
/// `kernel!`s are fast as written. Write closures as `move` closures that own their guards and
/// accessors (they are released when the launch ends). The kernel then holds the Views' pointers and
/// extents itself, the compiler keeps them in registers for the whole loop, hoists the bounds checks
/// and vectorizes: a BabelStream Triad runs at the speed of a plain loop over slices. A closure that
/// borrows its guards works too, without vectorization.
///
/// # Examples
///
/// ```
/// use ferrokkos::prelude::*;
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let (x, y) = (View::<f64, 1>::new("x", [1000])?, View::<f64, 1>::new("y", [1000])?);
/// deep_copy(&x, 2.0)?;
/// {
///     let x = x.host()?;
///     // SAFETY: iteration i writes y[i] only and reads no other element of y.
///     let y = unsafe { y.parallel_mut()? };
///     parallel_for("axpy", RangePolicy::new(&exec, 0, 1000)?, move |i: usize| {
///         y.set(i, 3.0 * x[i] + y.get(i));
///     })?;
/// }
/// assert_eq!(y.get(999)?, 6.0);
///
/// // Two dimensions: the kernel receives the index tuple.
/// let a = View::<i64, 2>::new("a", [3, 4])?;
/// {
///     // SAFETY: point (i, j) writes a[(i, j)] only.
///     let a = unsafe { a.parallel_mut()? };
///     parallel_for("fill", MDRangePolicy::new(&exec, [0, 0], [3, 4])?, move |(i, j): (usize, usize)| {
///         a.set((i, j), (10 * i + j) as i64);
///     })?;
/// }
/// assert_eq!(a.get((2, 3))?, 23);
///
/// // Kokkos' short form: 0..n on the default host space.
/// let hits = std::sync::atomic::AtomicUsize::new(0);
/// parallel_for("count", 500, |_i: usize| {
///     hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
/// })?;
/// assert_eq!(hits.into_inner(), 500);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn parallel_for<P, K>(label: &str, policy: P, kernel: K) -> Result<()>
where
    P: ParallelFor<K>,
{
    policy.launch_for(label, kernel)
}

/// Runs `kernel` for every iteration of `policy`, combining the iterations' contributions with a
/// reducer (Kokkos' `parallel_reduce`). `target` is a reducer (the value is returned), a tuple of
/// reducers, a `&mut` number or a rank-0 View (summed into it), or a reducer aimed at a place
/// ([`crate::reducer::Reducer::into_result`]). An empty range gives the reducer's identity. As for
/// [`parallel_for`], the policy may be a plain `usize` `n` (`0..n` on the default host space).
///
/// ```
/// use ferrokkos::prelude::*;
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let policy = RangePolicy::new(&exec, 0, 1000)?;
///
/// let mut sum = 0.0;
/// parallel_reduce("sum", policy.clone(), |i: usize, acc: &mut f64| *acc += i as f64, &mut sum)?;
/// assert_eq!(sum, 499500.0);
///
/// let (lo, hi) = parallel_reduce("range", policy,
///     |i: usize, acc: &mut (i64, i64)| {
///         let v = (i as i64 - 300).pow(2);
///         acc.0 = acc.0.min(v);
///         acc.1 = acc.1.max(v);
///     },
///     (Min::new(), Max::new()))?;
/// assert_eq!((lo, hi), (0, 699 * 699));
///
/// let n_even = parallel_reduce("evens", 10, |i: usize, acc: &mut u32| *acc += (i % 2 == 0) as u32, Sum::new())?;
/// assert_eq!(n_even, 5);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn parallel_reduce<P, K, T>(label: &str, policy: P, kernel: K, target: T) -> Result<T::Output>
where
    T: ReduceTarget,
    P: ParallelReduce<K, T>,
{
    policy.launch_reduce(label, kernel, target)
}

/// A prefix sum over the iterations of `policy` (Kokkos' `parallel_scan`); returns the total. The
/// kernel receives `(i, &mut partial, is_final)`, see [`ScanKernel`].
///
/// ```
/// use ferrokkos::prelude::*;
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let counts = [3u32, 1, 4, 1, 5];
/// let offsets = View::<u32, 1>::new("offsets", [5])?;
/// let total = {
///     // SAFETY: iteration i writes offsets[i] only.
///     let out = unsafe { offsets.parallel_mut()? };
///     parallel_scan("offsets", RangePolicy::new(&exec, 0, 5)?,
///         |i: usize, partial: &mut u32, is_final: bool| {
///             if is_final { out.set(i, *partial); } // exclusive: before adding
///             *partial += counts[i];
///         })?
/// };
/// assert_eq!((offsets.to_vec()?, total), (vec![0, 3, 4, 8, 9], 14));
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn parallel_scan<P, K, V>(label: &str, policy: P, kernel: K) -> Result<V>
where
    V: ReductionScalar,
    P: ParallelScan<K, Sum<V>>,
{
    policy.launch_scan(label, kernel, Sum::new())
}

/// A scan whose contributions combine with `reducer` instead of `+` (any associative join with an
/// identity, e.g. [`crate::Max`] for a running maximum). Returns the total.
pub fn parallel_scan_with<P, K, Rd>(
    label: &str,
    policy: P,
    kernel: K,
    reducer: Rd,
) -> Result<Rd::Value>
where
    Rd: Reducer,
    P: ParallelScan<K, Rd>,
{
    policy.launch_scan(label, kernel, reducer)
}
