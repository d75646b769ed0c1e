//! The benchmark written with ferrokkos: three Views and one kernel per BabelStream kernel, written
//! once and run on any execution space (Serial, Threads or Cuda, chosen at run time); DeepCopy and
//! Fill call the library's `deep_copy` on the same Views.

use ferrokkos::Result;
use ferrokkos::kernel::{DeviceFor, DeviceReduce};
use ferrokkos::prelude::*;
use ferrokkos::traits::Everywhere;
use ferrokkos::traits::{ForFunctor, ReduceFunctor};

use super::float::StreamFloat;
use super::kernel::{FILL, Kernel, SCALAR, START_A, START_B, START_C};
use super::{ArrayCheck, Implementation};
use crate::Failure;

/// One of BabelStream's arrays: a View in the execution space's own memory space (host memory for
/// Serial and Threads, device memory for Cuda).
type Array<S, T> = View<T, 1, LayoutRight, <S as ExecutionSpace>::MemorySpace>;

pub use crate::spaces::on_device;

/// BabelStream's arrays as Views, and the instance the kernels run on.
pub struct FerrokkosStream<S: Launch, T: StreamFloat> {
    /// The instance the kernels run on.
    space: S,
    /// Array a.
    a: Array<S, T>,
    /// Array b.
    b: Array<S, T>,
    /// Array c.
    c: Array<S, T>,
    /// Elements per array.
    n: usize,
}

// Kernels are `kernel!`s: each writes its output View at the iteration index only, which the macro
// checks, so no `unsafe` is needed. On the host, their captures (the Views' pointers and extents)
// are copied into the launch's body, so they stay in registers inside the loop and the loop
// vectorizes; on Cuda, the same kernels run as their CUDA C++ translation.
impl<S: Launch, T: StreamFloat> FerrokkosStream<S, T> {
    /// Allocates the arrays (uninitialized) in `S::MemorySpace` and initializes them with a kernel,
    /// so that on the host each page is first touched by the thread that later works on it.
    pub fn new(space: S, n: usize) -> Result<Self> {
        let alloc = |label: &str| Array::<S, T>::new(view_alloc(label).without_initializing(), [n]);
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

    /// The range of all elements on the instance.
    fn policy(&self) -> Result<RangePolicy<S>> {
        RangePolicy::new(&self.space, 0, self.n)
    }

    /// Copy: `c = a`.
    fn copy(&self) -> Result<()> {
        parallel_for("babelstream::copy", self.policy()?, self.copy_kernel())
    }

    /// Mul: `b = s * c`.
    fn mul(&self) -> Result<()> {
        parallel_for("babelstream::mul", self.policy()?, self.mul_kernel())
    }

    /// Add: `c = a + b`.
    fn add(&self) -> Result<()> {
        parallel_for("babelstream::add", self.policy()?, self.add_kernel())
    }

    /// Triad: `a = b + s * c`.
    fn triad(&self) -> Result<()> {
        parallel_for("babelstream::triad", self.policy()?, self.triad_kernel())
    }

    /// Nstream: `a += b + s * c`.
    fn nstream(&self) -> Result<()> {
        parallel_for(
            "babelstream::nstream",
            self.policy()?,
            self.nstream_kernel(),
        )
    }

    /// DeepCopy: `c = a`, by the library's View-to-View `deep_copy` (which waits for the copy).
    fn copy_by_deep_copy(&self) -> Result<()> {
        deep_copy(&self.c, &self.a)
    }

    /// Fill: `c = FILL`, by the library's `deep_copy` of a value (which waits for the fill).
    fn fill_by_deep_copy(&self) -> Result<()> {
        deep_copy(&self.c, T::of(FILL))
    }

    /// Dot: `sum(a * b)`, returned to the host.
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
    // through its device translation: `Reach = Everywhere` says they may run on every space).

    /// The kernel of Copy.
    fn copy_kernel(&self) -> impl ForFunctor<usize, Reach = Everywhere> + DeviceFor<usize> {
        let (a, c) = (&self.a, &self.c);
        kernel!(|i| c[i] = a[i])
    }

    /// The kernel of Mul.
    fn mul_kernel(&self) -> impl ForFunctor<usize, Reach = Everywhere> + DeviceFor<usize> {
        let s = T::of(SCALAR);
        let (b, c) = (&self.b, &self.c);
        kernel!(|i| b[i] = s * c[i])
    }

    /// The kernel of Add.
    fn add_kernel(&self) -> impl ForFunctor<usize, Reach = Everywhere> + DeviceFor<usize> {
        let (a, b, c) = (&self.a, &self.b, &self.c);
        kernel!(|i| c[i] = a[i] + b[i])
    }

    /// The kernel of Triad.
    fn triad_kernel(&self) -> impl ForFunctor<usize, Reach = Everywhere> + DeviceFor<usize> {
        let s = T::of(SCALAR);
        let (a, b, c) = (&self.a, &self.b, &self.c);
        kernel!(|i| a[i] = b[i] + s * c[i])
    }

    /// The kernel of Nstream.
    fn nstream_kernel(&self) -> impl ForFunctor<usize, Reach = Everywhere> + DeviceFor<usize> {
        let s = T::of(SCALAR);
        let (a, b, c) = (&self.a, &self.b, &self.c);
        kernel!(|i| a[i] += b[i] + s * c[i])
    }

    /// The kernel of Dot.
    fn dot_kernel(
        &self,
    ) -> impl ReduceFunctor<usize, T, Reach = Everywhere> + DeviceReduce<usize, Sum<T>> {
        let (a, b) = (&self.a, &self.b);
        kernel!(|i, acc| *acc += a[i] * b[i])
    }
}

impl<S: Launch, T: StreamFloat> Implementation<T> for FerrokkosStream<S, T> {
    fn name(&self) -> String {
        crate::spaces::ferrokkos_line(&self.space, "")
    }

    fn short_name(&self) -> &'static str {
        "ferrokkos"
    }

    fn run(&mut self, kernel: Kernel) -> std::result::Result<Option<T>, Failure> {
        let dot = match kernel {
            Kernel::Copy => self.copy().map(|()| None),
            Kernel::Mul => self.mul().map(|()| None),
            Kernel::Add => self.add().map(|()| None),
            Kernel::Triad => self.triad().map(|()| None),
            Kernel::Nstream => self.nstream().map(|()| None),
            Kernel::Dot => self.dot().map(Some),
            Kernel::DeepCopy => self.copy_by_deep_copy().map(|()| None),
            Kernel::Fill => self.fill_by_deep_copy().map(|()| None),
        }?;
        // BabelStream fences after every kernel (its Kokkos version with Kokkos::fence, its CUDA
        // version with a stream synchronization); so do we. On a device, Dot already waited to
        // bring its value to the host, and `deep_copy` waited for its copy or fill, so a second
        // wait would only add a driver call.
        let waited = matches!(kernel, Kernel::Dot | Kernel::DeepCopy | Kernel::Fill);
        if !(on_device::<S>() && waited) {
            self.space.fence("babelstream::kernel")?;
        }
        Ok(dot)
    }

    fn arrays(&self, check: &mut ArrayCheck<'_, T>) -> std::result::Result<(), Failure> {
        // Host mirrors: the Views themselves on host spaces, copies in host memory on a device.
        let read = |v: &Array<S, T>| -> Result<Vec<T>> {
            let mirror = create_mirror_view(v)?;
            deep_copy(&mirror, v)?;
            mirror.to_vec()
        };
        let (a, b, c) = (read(&self.a)?, read(&self.b)?, read(&self.c)?);
        check(&a, &b, &c);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrokkos::codegen::TranslationUnit;

    /// The benchmark's kernels have device translations that NVRTC compiles (for the GPU machine's
    /// sm_90 and for sm_80), in both precisions.
    fn kernels_compile<T: StreamFloat>() {
        let stream =
            FerrokkosStream::<Serial, T>::new(Serial::default_instance().unwrap(), 8).unwrap();
        let units = [
            TranslationUnit::for_kernel_with(
                &stream.copy_kernel(),
                Iterate::Right,
                Default::default(),
            ),
            TranslationUnit::for_kernel_with(
                &stream.mul_kernel(),
                Iterate::Right,
                Default::default(),
            ),
            TranslationUnit::for_kernel_with(
                &stream.add_kernel(),
                Iterate::Right,
                Default::default(),
            ),
            TranslationUnit::for_kernel_with(
                &stream.triad_kernel(),
                Iterate::Right,
                Default::default(),
            ),
            TranslationUnit::for_kernel_with(
                &stream.nstream_kernel(),
                Iterate::Right,
                Default::default(),
            ),
            TranslationUnit::reduce_kernel_with(
                &stream.dot_kernel(),
                Iterate::Right,
                Default::default(),
            ),
        ];
        assert!(
            units[3]
                .generated()
                .contains("a(fk_proven, i) = b(fk_proven, i) + s * c(fk_proven, i);")
        );
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
