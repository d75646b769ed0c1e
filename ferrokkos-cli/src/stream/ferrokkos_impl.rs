//! The benchmark written with ferrokkos: three Views and one kernel per BabelStream kernel, run on any
//! host execution space.

use ferrokkos::prelude::*;
use ferrokkos::{HostExecutionSpace, Result, kernel};

use super::float::StreamFloat;
use super::kernel::{Kernel, SCALAR, START_A, START_B, START_C};
use super::{ArrayCheck, Implementation};

/// BabelStream's arrays as Views, and the instance the kernels run on.
pub struct FerrokkosStream<S: HostExecutionSpace, T: StreamFloat> {
    space: S,
    a: View<T, 1>,
    b: View<T, 1>,
    c: View<T, 1>,
    n: usize,
}

// Kernels are `kernel!`s: each writes its output View at the iteration index only, which the macro
// checks, so no `unsafe` is needed. Their captures (the Views' pointers and extents) are copied into
// the launch's body, so they stay in registers inside the loop and the loop vectorizes.
impl<S: HostExecutionSpace, T: StreamFloat> FerrokkosStream<S, T> {
    /// Allocates the arrays (uninitialized) and initializes them with a kernel, so that each page is
    /// first touched by the thread that later works on it.
    pub fn new(space: S, n: usize) -> Result<Self> {
        let alloc = |label: &str| View::new(view_alloc(label).without_initializing(), [n]);
        let stream = FerrokkosStream {
            a: alloc("babelstream::a")?,
            b: alloc("babelstream::b")?,
            c: alloc("babelstream::c")?,
            space,
            n,
        };
        let (a0, b0, c0) = (T::of(START_A), T::of(START_B), T::of(START_C));
        let (a, b, c) = (&stream.a, &stream.b, &stream.c);
        parallel_for(
            "babelstream::init",
            stream.policy()?,
            kernel!(|i| {
                a[i] = a0;
                b[i] = b0;
                c[i] = c0;
            }),
        )?;
        stream.space.fence("babelstream::init")?;
        Ok(stream)
    }

    fn policy(&self) -> Result<RangePolicy<S>> {
        RangePolicy::new(&self.space, 0, self.n)
    }

    fn copy(&self) -> Result<()> {
        let (a, c) = (&self.a, &self.c);
        parallel_for(
            "babelstream::copy",
            self.policy()?,
            kernel!(|i| c[i] = a[i]),
        )
    }

    fn mul(&self) -> Result<()> {
        let s = T::of(SCALAR);
        let (b, c) = (&self.b, &self.c);
        parallel_for(
            "babelstream::mul",
            self.policy()?,
            kernel!(|i| b[i] = s * c[i]),
        )
    }

    fn add(&self) -> Result<()> {
        let (a, b, c) = (&self.a, &self.b, &self.c);
        parallel_for(
            "babelstream::add",
            self.policy()?,
            kernel!(|i| c[i] = a[i] + b[i]),
        )
    }

    fn triad(&self) -> Result<()> {
        let s = T::of(SCALAR);
        let (a, b, c) = (&self.a, &self.b, &self.c);
        parallel_for(
            "babelstream::triad",
            self.policy()?,
            kernel!(|i| a[i] = b[i] + s * c[i]),
        )
    }

    fn nstream(&self) -> Result<()> {
        let s = T::of(SCALAR);
        let (a, b, c) = (&self.a, &self.b, &self.c);
        parallel_for(
            "babelstream::nstream",
            self.policy()?,
            kernel!(|i| a[i] += b[i] + s * c[i]),
        )
    }

    fn dot(&self) -> Result<T> {
        let (a, b) = (&self.a, &self.b);
        let mut sum = T::ZERO;
        parallel_reduce(
            "babelstream::dot",
            self.policy()?,
            kernel!(|i, acc| *acc += a[i] * b[i]),
            &mut sum,
        )?;
        Ok(sum)
    }
}

impl<S: HostExecutionSpace, T: StreamFloat> Implementation<T> for FerrokkosStream<S, T> {
    fn name(&self) -> String {
        format!(
            "ferrokkos {} ({} thread{})",
            S::NAME,
            self.space.concurrency(),
            if self.space.concurrency() == 1 {
                ""
            } else {
                "s"
            }
        )
    }

    fn short_name(&self) -> &'static str {
        "ferrokkos"
    }

    fn run(&mut self, kernel: Kernel) -> Result<Option<T>> {
        let dot = match kernel {
            Kernel::Copy => self.copy().map(|()| None),
            Kernel::Mul => self.mul().map(|()| None),
            Kernel::Add => self.add().map(|()| None),
            Kernel::Triad => self.triad().map(|()| None),
            Kernel::Nstream => self.nstream().map(|()| None),
            Kernel::Dot => self.dot().map(Some),
        }?;
        // BabelStream's Kokkos version fences after every kernel; so do we.
        self.space.fence("babelstream::kernel")?;
        Ok(dot)
    }

    fn arrays(&self, check: &mut ArrayCheck<'_, T>) -> Result<()> {
        let (a, b, c) = (self.a.to_vec()?, self.b.to_vec()?, self.c.to_vec()?);
        check(&a, &b, &c);
        Ok(())
    }
}
