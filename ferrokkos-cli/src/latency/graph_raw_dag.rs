//! The raw CUDA peer's halo update as a DAG: captured from the peer's stream `s0` with the 4 packs
//! forked to 4 streams (the usual fork/join capture: an event recorded on `s0` that 3 more streams
//! wait for brings them into the capture; an event recorded on each, waited for by `s0`, joins
//! them back), then the 4 unpacks on `s0`. The CUDA graph has the packs as 4 independent roots,
//! each unpack after all of them and the unpacks in a chain, as ferrokkos' `create_graph` DAG.

use std::sync::Arc;

use cudarc::driver::{CudaContext, sys};

use super::graph_raw_kernels::Launches;
use super::halo::PACKS;
use super::raw::check_call;
use crate::Failure;

/// The streams and events a fork/join capture needs, made once (the captured graph keeps neither:
/// recording and waiting for an event in a capture only adds edges), released when dropped.
pub(super) struct Fork {
    /// The context they belong to (current when they are destroyed).
    ctx: Arc<CudaContext>,
    /// The streams of packs 1..4 (pack 0 runs on `s0`); null until created.
    streams: [sys::CUstream; PACKS - 1],
    /// The event recorded on `s0` before the packs; null until created.
    fork: sys::CUevent,
    /// The events recorded on `streams` after their packs; null until created.
    joins: [sys::CUevent; PACKS - 1],
}

impl Fork {
    /// Creates the streams (non-blocking, so that nothing orders them after the legacy default
    /// stream during a capture) and events (without timing) in `ctx`, which must be current.
    pub(super) fn new(ctx: &Arc<CudaContext>) -> Result<Fork, Failure> {
        let mut fork = Fork {
            ctx: ctx.clone(),
            streams: [std::ptr::null_mut(); PACKS - 1],
            fork: std::ptr::null_mut(),
            joins: [std::ptr::null_mut(); PACKS - 1],
        };
        let non_blocking = sys::CUstream_flags_enum::CU_STREAM_NON_BLOCKING as u32;
        for stream in &mut fork.streams {
            // SAFETY: `stream` is valid for a write; the context is current (the caller's
            // promise); the stream is owned by `fork`, which destroys it, from here.
            check_call(
                unsafe { sys::cuStreamCreate(stream, non_blocking) },
                "cuStreamCreate",
            )?;
        }
        let no_timing = sys::CUevent_flags_enum::CU_EVENT_DISABLE_TIMING as u32;
        for event in std::iter::once(&mut fork.fork).chain(&mut fork.joins) {
            // SAFETY: as for the streams above.
            check_call(
                unsafe { sys::cuEventCreate(event, no_timing) },
                "cuEventCreate",
            )?;
        }
        Ok(fork)
    }

    /// Enqueues the halo update as a DAG while `s0` captures (between `cuStreamBeginCapture` and
    /// `cuStreamEndCapture` on `s0`, in `launches`' context): fork, the packs on 4 streams, join,
    /// the unpacks on `s0`. The forked streams are joined back even when a pack fails to launch,
    /// so that ending the capture leaves no stream capturing.
    pub(super) fn halo(&self, launches: &Launches, s0: sys::CUstream) -> Result<(), Failure> {
        // SAFETY: a live event and a stream of this context (the caller's); in a capture the
        // record only marks the point the forked streams will wait for.
        check_call(
            unsafe { sys::cuEventRecord(self.fork, s0) },
            "cuEventRecord (fork)",
        )?;
        for &s in &self.streams {
            // SAFETY: live stream and event of this context; waiting for an event recorded in a
            // capture joins `s` to the capture.
            check_call(
                unsafe { sys::cuStreamWaitEvent(s, self.fork, 0) },
                "cuStreamWaitEvent (fork)",
            )?;
        }
        let packs = launches
            .halo_on(0, s0)
            .and_then(|()| (1..PACKS).try_for_each(|k| launches.halo_on(k, self.streams[k - 1])));
        let mut joined = Ok(());
        for (&s, &join) in self.streams.iter().zip(&self.joins) {
            // SAFETY: live streams and event of this context; the record on `s` and the wait on
            // `s0` make `s0`'s later work depend on `s`'s packs and end `s`'s part of the capture.
            let code = unsafe {
                match sys::cuEventRecord(join, s) {
                    sys::CUresult::CUDA_SUCCESS => sys::cuStreamWaitEvent(s0, join, 0),
                    failed => failed,
                }
            };
            joined = joined.and(check_call(code, "cuEventRecord / cuStreamWaitEvent (join)"));
        }
        packs?;
        joined?;
        (PACKS..8).try_for_each(|k| launches.halo_on(k, s0))
    }
}

impl Drop for Fork {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_err() {
            return;
        }
        // SAFETY: the handles were made by `new`, are owned by this value only, and are destroyed
        // once (null: never made). Nothing runs on the streams (they only took part in a capture);
        // the driver frees a stream's resources once its work, if any, is done.
        unsafe {
            for &event in std::iter::once(&self.fork).chain(&self.joins) {
                if !event.is_null() {
                    sys::cuEventDestroy_v2(event);
                }
            }
            for &stream in &self.streams {
                if !stream.is_null() {
                    sys::cuStreamDestroy_v2(stream);
                }
            }
        }
    }
}
