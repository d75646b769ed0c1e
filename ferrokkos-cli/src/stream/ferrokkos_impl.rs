//! The benchmark written with ferrokkos: three Views and one kernel per BabelStream kernel, run on any
//! host execution space.

use ferrokkos::kernel::{DeviceFor, DeviceReduce};
use ferrokkos::prelude::*;
use ferrokkos::{ForFunctor, HostExecutionSpace, ReduceFunctor, Result};

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
        parallel_for("babelstream::copy", self.policy()?, self.copy_kernel())
    }

    fn mul(&self) -> Result<()> {
        parallel_for("babelstream::mul", self.policy()?, self.mul_kernel())
    }

    fn add(&self) -> Result<()> {
        parallel_for("babelstream::add", self.policy()?, self.add_kernel())
    }

    fn triad(&self) -> Result<()> {
        parallel_for("babelstream::triad", self.policy()?, self.triad_kernel())
    }

    fn nstream(&self) -> Result<()> {
        parallel_for(
            "babelstream::nstream",
            self.policy()?,
            self.nstream_kernel(),
        )
    }

    fn dot(&self) -> Result<T> {
        let mut sum = T::ZERO;
        parallel_reduce(
            "babelstream::dot",
            self.policy()?,
            self.dot_kernel(),
            &mut sum,
        )?;
        Ok(sum)
    }

    // The kernels, one per BabelStream kernel (each usable on the host, and by the CUDA backend
    // through its device translation).

    fn copy_kernel(&self) -> impl ForFunctor<usize> + DeviceFor<usize> {
        let (a, c) = (&self.a, &self.c);
        kernel!(|i| c[i] = a[i])
    }

    fn mul_kernel(&self) -> impl ForFunctor<usize> + DeviceFor<usize> {
        let s = T::of(SCALAR);
        let (b, c) = (&self.b, &self.c);
        kernel!(|i| b[i] = s * c[i])
    }

    fn add_kernel(&self) -> impl ForFunctor<usize> + DeviceFor<usize> {
        let (a, b, c) = (&self.a, &self.b, &self.c);
        kernel!(|i| c[i] = a[i] + b[i])
    }

    fn triad_kernel(&self) -> impl ForFunctor<usize> + DeviceFor<usize> {
        let s = T::of(SCALAR);
        let (a, b, c) = (&self.a, &self.b, &self.c);
        kernel!(|i| a[i] = b[i] + s * c[i])
    }

    fn nstream_kernel(&self) -> impl ForFunctor<usize> + DeviceFor<usize> {
        let s = T::of(SCALAR);
        let (a, b, c) = (&self.a, &self.b, &self.c);
        kernel!(|i| a[i] += b[i] + s * c[i])
    }

    fn dot_kernel(&self) -> impl ReduceFunctor<usize, T> + DeviceReduce<usize, Sum<T>> {
        let (a, b) = (&self.a, &self.b);
        kernel!(|i, acc| *acc += a[i] * b[i])
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The benchmark's kernels have device translations that NVRTC compiles (for the GPU machine's
    /// sm_90 and for sm_80), in both precisions.
    fn kernels_compile<T: StreamFloat>() {
        let stream =
            FerrokkosStream::<Serial, T>::new(Serial::default_instance().unwrap(), 8).unwrap();
        let units = [
            stream.copy_kernel().translation_unit(Iterate::Right, Default::default()),
            stream.mul_kernel().translation_unit(Iterate::Right, Default::default()),
            stream.add_kernel().translation_unit(Iterate::Right, Default::default()),
            stream.triad_kernel().translation_unit(Iterate::Right, Default::default()),
            stream.nstream_kernel().translation_unit(Iterate::Right, Default::default()),
            stream.dot_kernel().translation_unit(Iterate::Right, Default::default()),
        ];
        assert!(units[3].generated().contains("a(i) = b(i) + s * c(i);"));
        if !ferrokkos::nvrtc::require_or_skip() {
            return;
        }
        for unit in &units {
            for arch in [80, 90] {
                if let Err(e) = unit.compile_cubin(arch) {
                    panic!("{e}\n{}", unit.generated());
                }
            }
        }
    }

    #[test]
    fn stream_kernels_compile_for_the_gpu() {
        static RUNTIME: std::sync::OnceLock<ferrokkos::Runtime> = std::sync::OnceLock::new();
        RUNTIME.get_or_init(|| ferrokkos::initialize(InitSettings::new().num_threads(1)).unwrap());
        kernels_compile::<f64>();
        kernels_compile::<f32>();
    }
}
