//! What the OpenMP peers of `stream --compare` and `stencil --compare` share: the compiler and
//! flags their C (`csrc/`) was built with, the arrays that C allocates (`CBuffer`), the thread
//! count they are given, and the note printed in their place when the build found no
//! OpenMP-capable C compiler (`ferrokkos_no_openmp`, set by `build.rs`).

#[cfg(all(feature = "peers", not(ferrokkos_no_openmp)))]
pub use built::*;

/// The line `--compare` prints on the host spaces in place of the OpenMP peer's ratios when the
/// peers were built but the OpenMP one could not be (why, as the build script found it); `None`
/// otherwise.
pub fn skipped_note() -> Option<String> {
    #[cfg(all(feature = "peers", ferrokkos_no_openmp))]
    return Some(format!(
        "OpenMP peer skipped: {}",
        env!("FERROKKOS_OPENMP_MISSING")
    ));
    #[cfg(not(all(feature = "peers", ferrokkos_no_openmp)))]
    None
}

/// The shared parts of the peers, when they are built.
#[cfg(all(feature = "peers", not(ferrokkos_no_openmp)))]
mod built {
    use std::ffi::c_int;
    use std::ptr::NonNull;

    /// The compiler and flags the C kernels were built with, e.g.
    /// `gcc 12.2.0 -O3 -fopenmp -ffp-contract=off`.
    pub const FLAGS: &str = env!("FERROKKOS_OPENMP_FLAGS");

    /// Arrays at least this large are aligned to 2 MiB (so that transparent huge pages can back
    /// them), smaller ones to a cache line.
    const HUGE_PAGE: usize = 2 << 20;

    unsafe extern "C" {
        /// `csrc/omp_alloc.c`: `bytes` bytes aligned to `alignment`, zeroed in parallel by
        /// `threads` OpenMP threads; null when the allocation fails.
        fn ferrokkos_omp_alloc_zeroed(bytes: usize, alignment: usize, threads: c_int) -> *mut u8;
        /// `csrc/omp_alloc.c`: frees what `ferrokkos_omp_alloc_zeroed` returned.
        fn ferrokkos_omp_free(memory: *mut u8);
    }

    /// The variables of the OpenMP runtime that change how its idle threads wait (spinning, or
    /// asleep), which matters when the peer shares the cores with ferrokkos' and rayon's pools.
    const WAIT_VARIABLES: [&str; 2] = ["OMP_WAIT_POLICY", "GOMP_SPINCOUNT"];

    /// The peer's name: C with OpenMP, the compiler and flags, the threads, and the wait
    /// variables that are set.
    pub fn peer_name(threads: c_int) -> String {
        let mut name = format!(
            "C + OpenMP ({FLAGS}; {}",
            crate::spaces::count(threads as usize, "thread")
        );
        for var in WAIT_VARIABLES {
            if let Ok(value) = std::env::var(var) {
                name += &format!("; {var}={value}");
            }
        }
        name + ")"
    }

    /// `threads` as the C kernels take it (their `num_threads` clause): 1 or more, fitting a C int.
    pub fn c_threads(threads: usize) -> Result<c_int, String> {
        match c_int::try_from(threads) {
            Ok(t) if t >= 1 => Ok(t),
            _ => Err(format!(
                "the OpenMP peer needs between 1 and {} threads, got {threads}",
                c_int::MAX
            )),
        }
    }

    /// Element types whose all-zero bit pattern is a valid value, so that a zeroed [`CBuffer`] is
    /// initialized.
    ///
    /// # Safety
    /// Implement only for types for which every bit pattern of zeros is a valid value.
    pub unsafe trait ZeroValid: Copy {}
    // SAFETY: all-zero bits are +0.0.
    unsafe impl ZeroValid for f64 {}
    // SAFETY: all-zero bits are +0.0.
    unsafe impl ZeroValid for f32 {}

    /// An array allocated (aligned, and zeroed in parallel by the OpenMP threads: first touch) and
    /// freed by the peers' C, owned here.
    pub struct CBuffer<T: ZeroValid> {
        /// The first element.
        ptr: NonNull<T>,
        /// The number of elements.
        len: usize,
    }

    // SAFETY: a CBuffer owns its memory exclusively (like a Vec<T>), so it may move to and be
    // shared with other threads when T may.
    unsafe impl<T: ZeroValid + Send> Send for CBuffer<T> {}
    // SAFETY: as above; `&CBuffer` only gives out `&[T]`.
    unsafe impl<T: ZeroValid + Sync> Sync for CBuffer<T> {}

    impl<T: ZeroValid> CBuffer<T> {
        /// `len` zeros, first touched by `threads` OpenMP threads; `what` names the array in the
        /// error when the memory cannot be had.
        pub fn zeroed(what: &str, len: usize, threads: c_int) -> Result<Self, String> {
            let bytes = len
                .checked_mul(size_of::<T>())
                .filter(|&b| b <= isize::MAX as usize)
                .ok_or_else(|| format!("{what}: {len} elements do not fit in memory"))?;
            let alignment = if bytes >= HUGE_PAGE { HUGE_PAGE } else { 64 };
            // SAFETY: the alignment is a power of two and a multiple of the pointer size, as
            // posix_memalign requires; the function returns null or `bytes` bytes that this
            // buffer owns from now on, zeroed, and aligned for T (64 >= align_of::<T>()).
            let raw = unsafe { ferrokkos_omp_alloc_zeroed(bytes, alignment, threads) };
            let ptr = NonNull::new(raw.cast::<T>()).ok_or_else(|| {
                format!("{what}: cannot allocate {bytes} bytes for the OpenMP peer")
            })?;
            Ok(CBuffer { ptr, len })
        }

        /// The elements.
        pub fn as_slice(&self) -> &[T] {
            // SAFETY: `ptr` points to `len` initialized elements (zeroed at allocation, T:
            // ZeroValid, then written only as T) that this buffer owns; the shared borrow of self
            // keeps them from being written for the slice's lifetime.
            unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
        }

        /// The elements, to write.
        pub fn as_mut_slice(&mut self) -> &mut [T] {
            // SAFETY: as in `as_slice`, and the exclusive borrow of self makes this the only
            // access to them for the slice's lifetime.
            unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
        }
    }

    impl<T: ZeroValid> Drop for CBuffer<T> {
        fn drop(&mut self) {
            // SAFETY: the pointer came from ferrokkos_omp_alloc_zeroed and is freed once, here.
            unsafe { ferrokkos_omp_free(self.ptr.as_ptr().cast::<u8>()) }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn buffers_start_zeroed_and_hold_what_is_written() {
            for len in [1, 1000, (2 << 20) / 8 + 3] {
                let mut b = CBuffer::<f64>::zeroed("test", len, 2).unwrap();
                assert!(b.as_slice().iter().all(|&v| v == 0.0));
                assert_eq!(b.as_slice().len(), len);
                b.as_mut_slice()[len - 1] = 2.5;
                assert_eq!(b.as_slice()[len - 1], 2.5);
                let align = if len * 8 >= HUGE_PAGE { HUGE_PAGE } else { 64 };
                assert_eq!(b.as_slice().as_ptr() as usize % align, 0);
            }
        }

        #[test]
        fn impossible_sizes_and_thread_counts_are_errors() {
            let e = CBuffer::<f64>::zeroed("a", usize::MAX / 4, 1)
                .err()
                .unwrap();
            assert!(e.starts_with("a: "), "{e}");
            assert_eq!(c_threads(3), Ok(3));
            assert!(c_threads(0).is_err());
            assert!(c_threads(usize::MAX).is_err());
        }
    }
}
