//! The OpenMP peer of `stream --compare` on the host spaces: BabelStream's kernels in C with OpenMP
//! (`csrc/stream_omp_kernels.h`, like BabelStream's OMP model: `parallel for` with static
//! schedules, parallel first-touch initialization, `reduction(+:sum)` for Dot), on arrays the C
//! allocates, with as many threads as the ferrokkos space it is compared with; and the peers of the
//! `deep_copy` kernels: a `memcpy` per thread over its static block (DeepCopy), a static parallel
//! loop (Fill).

use std::ffi::c_int;

use super::float::StreamFloat;
use super::kernel::{FILL, Kernel, SCALAR, START_A, START_B, START_C};
use super::{ArrayCheck, Implementation};
use crate::Failure;
use crate::openmp::{CBuffer, ZeroValid, c_threads, peer_name};

/// The C kernels of one element type, behind safe wrappers: each takes slices and passes C their
/// common length, so that C never reads or writes past one of them.
pub trait OmpKernels: ZeroValid + Sized {
    /// `a = a0, b = b0, c = c0` in parallel (first touch).
    fn init(a: &mut [Self], b: &mut [Self], c: &mut [Self], start: [Self; 3], threads: c_int);
    /// Copy: `c = a`.
    fn copy(a: &[Self], c: &mut [Self], threads: c_int);
    /// Mul: `b = s c`.
    fn mul(b: &mut [Self], c: &[Self], s: Self, threads: c_int);
    /// Add: `c = a + b`.
    fn add(a: &[Self], b: &[Self], c: &mut [Self], threads: c_int);
    /// Triad: `a = b + s c`.
    fn triad(a: &mut [Self], b: &[Self], c: &[Self], s: Self, threads: c_int);
    /// Nstream: `a += b + s c`.
    fn nstream(a: &mut [Self], b: &[Self], c: &[Self], s: Self, threads: c_int);
    /// Dot: the sum of `a b`.
    fn dot(a: &[Self], b: &[Self], threads: c_int) -> Self;
    /// DeepCopy's peer: `c = a`, a `memcpy` per thread.
    fn deep_copy(a: &[Self], c: &mut [Self], threads: c_int);
    /// Fill's peer: `c = value`.
    fn fill(c: &mut [Self], value: Self, threads: c_int);
}

/// The C declarations of one element type and their [`OmpKernels`] wrappers.
macro_rules! omp_kernels {
    ($t:ty, $init:ident, $copy:ident, $mul:ident, $add:ident, $triad:ident, $nstream:ident,
     $dot:ident, $deep_copy:ident, $fill:ident) => {
        unsafe extern "C" {
            fn $init(
                a: *mut $t,
                b: *mut $t,
                c: *mut $t,
                a0: $t,
                b0: $t,
                c0: $t,
                n: usize,
                threads: c_int,
            );
            fn $copy(a: *const $t, c: *mut $t, n: usize, threads: c_int);
            fn $mul(b: *mut $t, c: *const $t, s: $t, n: usize, threads: c_int);
            fn $add(a: *const $t, b: *const $t, c: *mut $t, n: usize, threads: c_int);
            fn $triad(a: *mut $t, b: *const $t, c: *const $t, s: $t, n: usize, threads: c_int);
            fn $nstream(a: *mut $t, b: *const $t, c: *const $t, s: $t, n: usize, threads: c_int);
            fn $dot(a: *const $t, b: *const $t, n: usize, threads: c_int) -> $t;
            fn $deep_copy(a: *const $t, c: *mut $t, n: usize, threads: c_int);
            fn $fill(c: *mut $t, value: $t, n: usize, threads: c_int);
        }

        // Why every `unsafe` block below is sound: the pointers come from live slices, each valid for at least
        // `n` elements (n is the shortest length); those written come from `&mut` slices, so
        // nothing else reads or writes them during the call, and a `&mut` never aliases another
        // argument; the C reads and writes elements 0..n only, and returns when all threads are
        // done with them (the end of its parallel region).
        impl OmpKernels for $t {
            fn init(
                a: &mut [$t],
                b: &mut [$t],
                c: &mut [$t],
                [a0, b0, c0]: [$t; 3],
                threads: c_int,
            ) {
                let n = a.len().min(b.len()).min(c.len());
                // SAFETY: `n` is the shortest length, the borrows are exclusive (see above the impl).
                unsafe {
                    $init(
                        a.as_mut_ptr(),
                        b.as_mut_ptr(),
                        c.as_mut_ptr(),
                        a0,
                        b0,
                        c0,
                        n,
                        threads,
                    )
                }
            }
            fn copy(a: &[$t], c: &mut [$t], threads: c_int) {
                let n = a.len().min(c.len());
                // SAFETY: `n` is the shortest length, the borrows are exclusive (see above the impl).
                unsafe { $copy(a.as_ptr(), c.as_mut_ptr(), n, threads) }
            }
            fn mul(b: &mut [$t], c: &[$t], s: $t, threads: c_int) {
                let n = b.len().min(c.len());
                // SAFETY: `n` is the shortest length, the borrows are exclusive (see above the impl).
                unsafe { $mul(b.as_mut_ptr(), c.as_ptr(), s, n, threads) }
            }
            fn add(a: &[$t], b: &[$t], c: &mut [$t], threads: c_int) {
                let n = a.len().min(b.len()).min(c.len());
                // SAFETY: `n` is the shortest length, the borrows are exclusive (see above the impl).
                unsafe { $add(a.as_ptr(), b.as_ptr(), c.as_mut_ptr(), n, threads) }
            }
            fn triad(a: &mut [$t], b: &[$t], c: &[$t], s: $t, threads: c_int) {
                let n = a.len().min(b.len()).min(c.len());
                // SAFETY: `n` is the shortest length, the borrows are exclusive (see above the impl).
                unsafe { $triad(a.as_mut_ptr(), b.as_ptr(), c.as_ptr(), s, n, threads) }
            }
            fn nstream(a: &mut [$t], b: &[$t], c: &[$t], s: $t, threads: c_int) {
                let n = a.len().min(b.len()).min(c.len());
                // SAFETY: `n` is the shortest length, the borrows are exclusive (see above the impl).
                unsafe { $nstream(a.as_mut_ptr(), b.as_ptr(), c.as_ptr(), s, n, threads) }
            }
            fn dot(a: &[$t], b: &[$t], threads: c_int) -> $t {
                let n = a.len().min(b.len());
                // SAFETY: `n` is the shortest length, the borrows are exclusive (see above the impl).
                unsafe { $dot(a.as_ptr(), b.as_ptr(), n, threads) }
            }
            fn deep_copy(a: &[$t], c: &mut [$t], threads: c_int) {
                let n = a.len().min(c.len());
                // SAFETY: `n` is the shortest length, the borrows are exclusive (see above the impl).
                unsafe { $deep_copy(a.as_ptr(), c.as_mut_ptr(), n, threads) }
            }
            fn fill(c: &mut [$t], value: $t, threads: c_int) {
                // SAFETY: `n` is the slice's length, the borrow is exclusive (see above the impl).
                unsafe { $fill(c.as_mut_ptr(), value, c.len(), threads) }
            }
        }
    };
}

omp_kernels!(
    f64,
    ferrokkos_stream_init_f64,
    ferrokkos_stream_copy_f64,
    ferrokkos_stream_mul_f64,
    ferrokkos_stream_add_f64,
    ferrokkos_stream_triad_f64,
    ferrokkos_stream_nstream_f64,
    ferrokkos_stream_dot_f64,
    ferrokkos_stream_deep_copy_f64,
    ferrokkos_stream_fill_f64
);
omp_kernels!(
    f32,
    ferrokkos_stream_init_f32,
    ferrokkos_stream_copy_f32,
    ferrokkos_stream_mul_f32,
    ferrokkos_stream_add_f32,
    ferrokkos_stream_triad_f32,
    ferrokkos_stream_nstream_f32,
    ferrokkos_stream_dot_f32,
    ferrokkos_stream_deep_copy_f32,
    ferrokkos_stream_fill_f32
);

/// BabelStream in C with OpenMP: the arrays (allocated by C) and the thread count.
pub struct OpenMp<T: OmpKernels> {
    /// Array a.
    a: CBuffer<T>,
    /// Array b.
    b: CBuffer<T>,
    /// Array c.
    c: CBuffer<T>,
    /// The OpenMP threads of every kernel.
    threads: c_int,
}

impl<T: StreamFloat> OpenMp<T> {
    /// The arrays of `n` elements, initialized in parallel by `threads` OpenMP threads.
    pub fn new(n: usize, threads: usize) -> Result<Self, Failure> {
        let threads = c_threads(threads).map_err(|e| Failure::Run(format!("stream: {e}")))?;
        let alloc = |what: &str| {
            CBuffer::zeroed(what, n, threads).map_err(|e| Failure::Run(format!("stream: {e}")))
        };
        let (mut a, mut b, mut c) = (alloc("a")?, alloc("b")?, alloc("c")?);
        let start = [T::of(START_A), T::of(START_B), T::of(START_C)];
        T::init(
            a.as_mut_slice(),
            b.as_mut_slice(),
            c.as_mut_slice(),
            start,
            threads,
        );
        Ok(OpenMp { a, b, c, threads })
    }
}

impl<T: StreamFloat> Implementation<T> for OpenMp<T> {
    fn name(&self) -> String {
        peer_name(self.threads)
    }

    fn short_name(&self) -> &'static str {
        "OpenMP"
    }

    fn run(&mut self, kernel: Kernel) -> Result<Option<T>, Failure> {
        let (s, t) = (T::of(SCALAR), self.threads);
        let (a, b, c) = (&mut self.a, &mut self.b, &mut self.c);
        // (`OmpKernels::` because `mul` and `add` are also `Mul`'s and `Add`'s.)
        match kernel {
            Kernel::Copy => OmpKernels::copy(a.as_slice(), c.as_mut_slice(), t),
            Kernel::Mul => OmpKernels::mul(b.as_mut_slice(), c.as_slice(), s, t),
            Kernel::Add => OmpKernels::add(a.as_slice(), b.as_slice(), c.as_mut_slice(), t),
            Kernel::Triad => OmpKernels::triad(a.as_mut_slice(), b.as_slice(), c.as_slice(), s, t),
            Kernel::Nstream => {
                OmpKernels::nstream(a.as_mut_slice(), b.as_slice(), c.as_slice(), s, t)
            }
            Kernel::Dot => return Ok(Some(OmpKernels::dot(a.as_slice(), b.as_slice(), t))),
            Kernel::DeepCopy => OmpKernels::deep_copy(a.as_slice(), c.as_mut_slice(), t),
            Kernel::Fill => OmpKernels::fill(c.as_mut_slice(), T::of(FILL), t),
        }
        Ok(None)
    }

    fn arrays(&self, check: &mut ArrayCheck<'_, T>) -> Result<(), Failure> {
        check(self.a.as_slice(), self.b.as_slice(), self.c.as_slice());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::peers::PlainLoop;
    use super::*;

    /// Every kernel of the OpenMP peer (the deep_copy peers included) gives the plain loop's arrays
    /// (exactly: the same operations per element) and its dot product (within rounding: the sums
    /// are ordered differently).
    fn agrees_with_the_plain_loop<T: StreamFloat>() {
        let n = 10_007;
        let mut omp = OpenMp::<T>::new(n, 3).unwrap();
        let mut plain = PlainLoop::<T>::new(n);
        // BabelStream's kernels, then Fill, a Triad that reads the filled c, and DeepCopy (the
        // last, so that the arrays compared below show both deep_copy peers' work).
        let copies = [Kernel::Fill, Kernel::Triad, Kernel::DeepCopy];
        for kernel in super::super::kernel::ALL.into_iter().chain(copies) {
            let (x, y) = (omp.run(kernel).unwrap(), plain.run(kernel).unwrap());
            match (x, y) {
                (Some(x), Some(y)) => {
                    let (x, y) = (x.to_f64(), y.to_f64());
                    let tolerance = T::EPSILON.to_f64() * 1e4;
                    assert!(
                        (x - y).abs() <= tolerance * y.abs(),
                        "{kernel:?}: {x} vs {y}"
                    );
                }
                (None, None) => {}
                other => panic!("{kernel:?}: {other:?}"),
            }
        }
        let mut ours = Vec::new();
        omp.arrays(&mut |a, b, c| ours = vec![a.to_vec(), b.to_vec(), c.to_vec()])
            .unwrap();
        let mut theirs = Vec::new();
        plain
            .arrays(&mut |a, b, c| theirs = vec![a.to_vec(), b.to_vec(), c.to_vec()])
            .unwrap();
        assert_eq!(ours, theirs);
        assert!(ours.iter().all(|v| v.len() == n));
        assert!(omp.name().starts_with("C + OpenMP (") && omp.name().ends_with("; 3 threads)"));
    }

    #[test]
    fn the_openmp_peer_agrees_with_the_plain_loop() {
        agrees_with_the_plain_loop::<f64>();
        agrees_with_the_plain_loop::<f32>();
    }
}
