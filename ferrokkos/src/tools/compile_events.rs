//! Kernel compilations as events a program can watch: a GPU kernel's first launch (or a
//! [`crate::Prepare`]) may run the device compiler (NVRTC) for a second or more, and a command-line
//! tool wants to say so instead of looking stuck.
//!
//! Events go through channels ([`compile_events`] hands out the receiving end), never through a
//! callback: no code of the watcher runs inside the library, so watching cannot deadlock a launch,
//! re-enter the runtime or unwind through it. Sending costs nothing next to a compilation, and with
//! no receiver alive it is one relaxed load.
//!
//! Invariants: every [`CompileStage::Started`] is followed, on every receiver that saw it, by one
//! [`CompileStage::Finished`] or [`CompileStage::Failed`] of the same program (the scope below sends
//! the end in `Drop`, so an early return or a panic still ends it). Receivers that were dropped are
//! removed at the next event.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

/// A compilation of device code, as [`compile_events`] reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompileEvent {
    /// The program's name, as errors and the trace name it (`fk_kernel_l12_0badc0de.cu`).
    pub program: String,
    /// The device architecture compiled for (`sm_90`).
    pub target: String,
    /// Where the compilation is.
    pub stage: CompileStage,
}

/// Where a compilation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompileStage {
    /// The compiler started (the program was not in the on-disk cache).
    Started,
    /// The compiler produced the program's code, after `elapsed`.
    Finished {
        /// From the start to the end of the compilation.
        elapsed: Duration,
    },
    /// The compiler failed (the launch that asked for it returns the error), after `elapsed`.
    Failed {
        /// From the start to the failure.
        elapsed: Duration,
    },
}

/// Whether any receiver was handed out (and not yet found dropped).
static WATCHED: AtomicBool = AtomicBool::new(false);

/// The sending ends, one per receiver handed out.
static WATCHERS: Mutex<Vec<Sender<CompileEvent>>> = Mutex::new(Vec::new());

/// A receiver of every device-code compilation from now on, on any thread, until it is dropped.
///
/// Only compilations report: kernels found in memory or in the on-disk cache
/// (`FERROKKOS_CACHE_DIR`) do not. Host spaces compile nothing, so without a GPU space no event
/// ever comes. Events wait in the channel until received (a few per compilation), so a receiver
/// that is kept should be read or dropped.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::profiling::{CompileStage, compile_events};
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let events = compile_events();
/// let x = View::<f64, 1>::new("x", [10])?;
/// parallel_for("fill", 10, ferrokkos::kernel!(|i| x[i] = 2.0))?;
/// // On the host nothing compiles; on a GPU space the first launch of a kernel not in the disk
/// // cache would send `Started`, then `Finished`.
/// for event in events.try_iter() {
///     assert!(matches!(event.stage, CompileStage::Started | CompileStage::Finished { .. }));
/// }
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn compile_events() -> Receiver<CompileEvent> {
    let (send, receive) = channel();
    let mut watchers = WATCHERS.lock().unwrap_or_else(|e| e.into_inner());
    watchers.push(send);
    WATCHED.store(true, Ordering::Relaxed);
    receive
}

/// Sends `event` to every receiver alive, and forgets the dropped ones.
// Compilations happen in the GPU backends (NVRTC, hiprtc) only; the tests drive them by hand.
#[cfg_attr(not(any(feature = "cuda", feature = "hip")), allow(dead_code))]
fn send(event: CompileEvent) {
    let mut watchers = WATCHERS.lock().unwrap_or_else(|e| e.into_inner());
    watchers.retain(|w| w.send(event.clone()).is_ok());
    if watchers.is_empty() {
        WATCHED.store(false, Ordering::Relaxed);
    }
}

/// One compilation from [`compiling`] to [`Compiling::finish`] (or its drop, which reports a
/// failure).
#[must_use = "the compilation ends when this is finished or dropped"]
// Started by the GPU backends' compilations (NVRTC, hiprtc) only; the tests start some by hand.
#[cfg_attr(not(any(feature = "cuda", feature = "hip")), allow(dead_code))]
pub(crate) struct Compiling {
    /// The program and target, while watched (else nothing is sent).
    watched: Option<(String, String)>,
    start: Instant,
}

/// Reports that the compiler starts on `program` for `target`; the result reports its end.
// Called by the GPU backends' compilations (NVRTC, hiprtc) only, and by the tests.
#[cfg_attr(not(any(feature = "cuda", feature = "hip")), allow(dead_code))]
pub(crate) fn compiling(program: &str, target: &str) -> Compiling {
    let watched = WATCHED.load(Ordering::Relaxed).then(|| {
        let (program, target) = (program.to_string(), target.to_string());
        send(CompileEvent {
            program: program.clone(),
            target: target.clone(),
            stage: CompileStage::Started,
        });
        (program, target)
    });
    Compiling {
        watched,
        start: Instant::now(),
    }
}

// Called by the GPU backends' compilations (NVRTC, hiprtc) only, and by the tests.
#[cfg_attr(not(any(feature = "cuda", feature = "hip")), allow(dead_code))]
impl Compiling {
    /// Reports the end of the compilation: finished when `ok`, else failed.
    pub(crate) fn finish(mut self, ok: bool) {
        self.end(ok);
    }

    fn end(&mut self, ok: bool) {
        if let Some((program, target)) = self.watched.take() {
            let elapsed = self.start.elapsed();
            let stage = if ok {
                CompileStage::Finished { elapsed }
            } else {
                CompileStage::Failed { elapsed }
            };
            send(CompileEvent {
                program,
                target,
                stage,
            });
        }
    }
}

impl Drop for Compiling {
    fn drop(&mut self) {
        self.end(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The events of `program` among those received (other tests may compile at the same time).
    fn of(events: &Receiver<CompileEvent>, program: &str) -> Vec<CompileStage> {
        events
            .try_iter()
            .filter(|e| e.program == program)
            .inspect(|e| assert_eq!(e.target, "sm_90"))
            .map(|e| e.stage)
            .collect()
    }

    #[test]
    fn a_compilation_sends_its_start_then_its_end_to_every_receiver() {
        let (first, second) = (compile_events(), compile_events());
        compiling("events_ok.cu", "sm_90").finish(true);
        for events in [&first, &second] {
            let stages = of(events, "events_ok.cu");
            assert_eq!(stages.len(), 2, "{stages:?}");
            assert_eq!(stages[0], CompileStage::Started);
            assert!(matches!(stages[1], CompileStage::Finished { .. }));
        }
    }

    #[test]
    fn an_unfinished_compilation_reports_a_failure_when_dropped() {
        let events = compile_events();
        compiling("events_failed.cu", "sm_90").finish(false);
        {
            let _cut_short = compiling("events_dropped.cu", "sm_90");
        }
        let received: Vec<CompileEvent> = events.try_iter().collect();
        for program in ["events_failed.cu", "events_dropped.cu"] {
            let stages: Vec<CompileStage> = received
                .iter()
                .filter(|e| e.program == program)
                .map(|e| e.stage)
                .collect();
            assert_eq!(stages.len(), 2, "{program}: {stages:?}");
            assert!(matches!(stages[1], CompileStage::Failed { .. }));
        }
    }

    #[test]
    fn dropped_receivers_are_forgotten_and_later_ones_still_receive() {
        let gone = compile_events();
        drop(gone);
        let kept = compile_events();
        compiling("events_after_drop.cu", "sm_90").finish(true);
        assert_eq!(of(&kept, "events_after_drop.cu").len(), 2);
    }
}
