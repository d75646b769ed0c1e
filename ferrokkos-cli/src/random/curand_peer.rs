//! The Cuda peers of `ferrokkos random --compare`: cuRAND's `curandGenerateUniformDouble` with its
//! default generator (XORWOW) and with Philox4x32-10, each into its own buffer of n doubles, on
//! one stream in the device's primary context (ferrokkos' Cuda space uses it too), each fill
//! followed by a stream synchronization. libcurand is loaded at run time (cudarc's
//! `dynamic-loading`); when it cannot be loaded the peers are reported as skipped.

use super::Fill;

/// The peers for `n` doubles, or why they cannot run.
pub fn peers(n: usize) -> Result<Vec<Box<dyn Fill>>, String> {
    #[cfg(feature = "peers")]
    {
        imp::peers(n)
    }
    #[cfg(not(feature = "peers"))]
    {
        let _ = n;
        Err("the cuRAND peers need ferrokkos-cli built with the `peers` feature".into())
    }
}

#[cfg(feature = "peers")]
mod imp {
    use std::sync::Arc;

    use cudarc::curand::sys;
    use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtrMut};
    use ferrokkos::Cuda;

    use super::Fill;
    use crate::Failure;

    /// A cuRAND generator on the peers' stream, with its buffer; destroyed when dropped.
    struct Curand {
        raw: sys::curandGenerator_t,
        kind: &'static str,
        stream: Arc<CudaStream>,
        out: CudaSlice<f64>,
    }

    impl Drop for Curand {
        fn drop(&mut self) {
            let _ = self.stream.context().bind_to_thread();
            // SAFETY: `raw` was created by curandCreateGenerator and is destroyed only here.
            let _ = unsafe { sys::curandDestroyGenerator(self.raw) };
        }
    }

    fn status(what: &str, s: sys::curandStatus_t) -> Result<(), String> {
        if s == sys::curandStatus_t::CURAND_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(format!("cuRAND: {what}: {s:?}"))
        }
    }

    impl Curand {
        fn new(
            stream: &Arc<CudaStream>,
            rng: sys::curandRngType_t,
            kind: &'static str,
            n: usize,
        ) -> Result<Curand, String> {
            let out = stream
                .alloc_zeros::<f64>(n)
                .map_err(|e| format!("allocating {n} doubles: {e}"))?;
            let mut raw = std::ptr::null_mut();
            // SAFETY: the library is present (checked by `peers`); `raw` receives the generator.
            status("creating the generator", unsafe {
                sys::curandCreateGenerator(&mut raw, rng)
            })?;
            let g = Curand {
                raw,
                kind,
                stream: Arc::clone(stream),
                out,
            };
            // SAFETY: a live generator, and the peers' live stream.
            status("setting the stream", unsafe {
                sys::curandSetStream(g.raw, g.stream.cu_stream() as sys::cudaStream_t)
            })?;
            // SAFETY: a live generator.
            status("seeding", unsafe {
                sys::curandSetPseudoRandomGeneratorSeed(g.raw, 20_241_129)
            })?;
            Ok(g)
        }
    }

    impl Fill for Curand {
        fn name(&self) -> String {
            format!("cuRAND curandGenerateUniformDouble ({})", self.kind)
        }
        fn fill(&mut self) -> Result<(), Failure> {
            let n = self.out.len();
            let (ptr, _record) = self.out.device_ptr_mut(&self.stream);
            // SAFETY: `ptr` is the buffer's n doubles, on the generator's stream, which is
            // synchronized before the buffer is used again.
            status("generating", unsafe {
                sys::curandGenerateUniformDouble(self.raw, ptr as *mut f64, n)
            })
            .map_err(Failure::Run)?;
            drop(_record);
            self.stream
                .synchronize()
                .map_err(|e| Failure::Run(format!("random: cuRAND: synchronizing: {e}")))
        }
        fn numbers(&self) -> Result<Vec<f64>, Failure> {
            self.stream
                .clone_dtoh(&self.out)
                .map_err(|e| Failure::Run(format!("random: cuRAND: downloading: {e}")))
        }
    }

    pub fn peers(n: usize) -> Result<Vec<Box<dyn Fill>>, String> {
        // SAFETY: only tries to load the libraries by their usual names.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err("the CUDA driver library (libcuda) could not be loaded".into());
        }
        // SAFETY: as above.
        if !unsafe { sys::is_culib_present() } {
            return Err("libcurand could not be loaded".into());
        }
        let device = Cuda::device().map_err(|e| e.to_string())?;
        let ctx = CudaContext::new(device.ordinal).map_err(|e| e.to_string())?;
        // SAFETY: the peers work on one stream and synchronize it after each fill, so cudarc's
        // cross-stream event tracking has nothing to order. Disabled before any allocation.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().map_err(|e| e.to_string())?;
        Ok(vec![
            Box::new(Curand::new(
                &stream,
                sys::curandRngType_t::CURAND_RNG_PSEUDO_XORWOW,
                "XORWOW, the default",
                n,
            )?),
            Box::new(Curand::new(
                &stream,
                sys::curandRngType_t::CURAND_RNG_PSEUDO_PHILOX4_32_10,
                "Philox4x32-10",
                n,
            )?),
        ])
    }
}
