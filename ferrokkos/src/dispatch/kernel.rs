//! The kernel traits: what a parallel pattern calls for each iteration (DESIGN.md decision 3).
//!
//! Plain closures implement them, so host code can pass `|i: usize| ...`; the `kernel!` macro will
//! produce values that implement them too, plus the device side. Closure parameters need their types
//! written out (`|i: usize, acc: &mut f64|`): Rust infers closure parameter types only from `Fn`
//! bounds, and the dispatch is bounded by these traits so that non-closure kernels fit.

/// A `parallel_for` kernel: called once per iteration with its index (`usize` for a `RangePolicy`, a
/// tuple such as `(i64, i64)` for an `MDRangePolicy`).
pub trait ForKernel<A>: Sync {
    /// Runs iteration `index`.
    fn apply(&self, index: A);

    /// Where in its iteration box this launch proved the body's View accesses in bounds (per index
    /// coordinate `[lo, hi)`), so that the host drivers may call [`ForKernel::apply_in_bounds`]
    /// there (a `kernel!` body; see `kernel/bounds.rs`). Other kernels keep `None`.
    #[doc(hidden)]
    #[inline(always)]
    fn proven_box(&self) -> Option<&[(i128, i128)]> {
        None
    }

    /// Runs iteration `index` with the accesses the launch proved in bounds left unchecked.
    ///
    /// # Safety
    /// `index` lies in the box [`ForKernel::proven_box`] returned for this launch.
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn apply_in_bounds(&self, index: A) {
        self.apply(index)
    }

    /// Runs `f` with this kernel as the thread running it now sees it: a `kernel!` body localized
    /// for the host job participant this thread runs (a duplicated ScatterView's updates then find
    /// their copy once per run, not per update); itself for other kernels. The host drivers call it
    /// once per run of iterations.
    #[doc(hidden)]
    #[inline(always)]
    fn with_local<R>(&self, f: impl FnOnce(&Self) -> R) -> R
    where
        Self: Sized,
    {
        f(self)
    }
}

impl<A, F: Fn(A) + Sync> ForKernel<A> for F {
    #[inline(always)]
    fn apply(&self, index: A) {
        self(index)
    }
}

/// A `parallel_reduce` kernel: called once per iteration with its index and the running value of the
/// thread (or chunk) that runs it, which it updates (`*acc += x[i]`).
pub trait ReduceKernel<A, V>: Sync {
    /// Runs iteration `index`, contributing to `acc`.
    fn apply(&self, index: A, acc: &mut V);

    /// As [`ForKernel::proven_box`].
    #[doc(hidden)]
    #[inline(always)]
    fn proven_box(&self) -> Option<&[(i128, i128)]> {
        None
    }

    /// As [`ForKernel::apply_in_bounds`].
    ///
    /// # Safety
    /// As for [`ForKernel::apply_in_bounds`].
    #[doc(hidden)]
    #[inline(always)]
    unsafe fn apply_in_bounds(&self, index: A, acc: &mut V) {
        self.apply(index, acc)
    }

    /// As [`ForKernel::with_local`].
    #[doc(hidden)]
    #[inline(always)]
    fn with_local<R>(&self, f: impl FnOnce(&Self) -> R) -> R
    where
        Self: Sized,
    {
        f(self)
    }
}

impl<A, V, F: Fn(A, &mut V) + Sync> ReduceKernel<A, V> for F {
    #[inline(always)]
    fn apply(&self, index: A, acc: &mut V) {
        self(index, acc)
    }
}

/// A `parallel_scan` kernel (Kokkos' scan functor): called with the index, the running prefix and
/// whether this is the final pass. On entry `partial` holds the combined contributions of all earlier
/// iterations (an exclusive prefix); the kernel adds its own contribution. When `is_final` is true the
/// prefix is exact and the kernel may store it (before adding: exclusive scan; after: inclusive).
/// Iterations may be called more than once with `is_final == false`.
pub trait ScanKernel<A, V>: Sync {
    /// Runs iteration `index` of one pass.
    fn apply(&self, index: A, partial: &mut V, is_final: bool);
}

impl<A, V, F: Fn(A, &mut V, bool) + Sync> ScanKernel<A, V> for F {
    #[inline(always)]
    fn apply(&self, index: A, partial: &mut V, is_final: bool) {
        self(index, partial, is_final)
    }
}
