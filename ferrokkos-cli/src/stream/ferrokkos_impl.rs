//! The benchmark written with ferrokkos: three Views and one kernel per BabelStream kernel, run on any
//! host execution space.

use ferrokkos::prelude::*;
use ferrokkos::{HostExecutionSpace, Result};

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

// Kernels are `move` closures: they own the guards (released when the launch ends), so their
// pointers and extents live in the kernel itself and stay in registers inside the loop.
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
        {
            let (a0, b0, c0) = (T::of(START_A), T::of(START_B), T::of(START_C));
            // SAFETY (all three): iteration i writes element i of each array and reads nothing.
            let a = unsafe { stream.a.parallel_mut()? };
            let b = unsafe { stream.b.parallel_mut()? };
            let c = unsafe { stream.c.parallel_mut()? };
            parallel_for("babelstream::init", stream.policy()?, move |i: usize| {
                a.set(i, a0);
                b.set(i, b0);
                c.set(i, c0);
            })?;
        }
        stream.space.fence("babelstream::init")?;
        Ok(stream)
    }

    fn policy(&self) -> Result<RangePolicy<S>> {
        RangePolicy::new(&self.space, 0, self.n)
    }

    fn copy(&self) -> Result<()> {
        let a = self.a.host()?;
        // SAFETY: iteration i writes c[i] only, and c is not read.
        let c = unsafe { self.c.parallel_mut()? };
        parallel_for("babelstream::copy", self.policy()?, move |i: usize| {
            c.set(i, a[i])
        })
    }

    fn mul(&self) -> Result<()> {
        let s = T::of(SCALAR);
        let c = self.c.host()?;
        // SAFETY: iteration i writes b[i] only, and b is not read.
        let b = unsafe { self.b.parallel_mut()? };
        parallel_for("babelstream::mul", self.policy()?, move |i: usize| {
            b.set(i, s * c[i])
        })
    }

    fn add(&self) -> Result<()> {
        let (a, b) = (self.a.host()?, self.b.host()?);
        // SAFETY: iteration i writes c[i] only, and c is not read.
        let c = unsafe { self.c.parallel_mut()? };
        parallel_for("babelstream::add", self.policy()?, move |i: usize| {
            c.set(i, a[i] + b[i])
        })
    }

    fn triad(&self) -> Result<()> {
        let s = T::of(SCALAR);
        let (b, c) = (self.b.host()?, self.c.host()?);
        // SAFETY: iteration i writes a[i] only, and a is not read.
        let a = unsafe { self.a.parallel_mut()? };
        parallel_for("babelstream::triad", self.policy()?, move |i: usize| {
            a.set(i, b[i] + s * c[i])
        })
    }

    fn nstream(&self) -> Result<()> {
        let s = T::of(SCALAR);
        let (b, c) = (self.b.host()?, self.c.host()?);
        // SAFETY: iteration i reads and writes a[i] only.
        let a = unsafe { self.a.parallel_mut()? };
        parallel_for("babelstream::nstream", self.policy()?, move |i: usize| {
            a.set(i, a.get(i) + b[i] + s * c[i])
        })
    }

    fn dot(&self) -> Result<T> {
        let (a, b) = (self.a.host()?, self.b.host()?);
        let mut sum = T::ZERO;
        parallel_reduce(
            "babelstream::dot",
            self.policy()?,
            move |i: usize, acc: &mut T| *acc += a[i] * b[i],
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
