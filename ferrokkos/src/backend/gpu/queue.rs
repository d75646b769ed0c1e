//! [`Queue`]: one GPU instance's stream, the sequence numbers of the work submitted to it, and the
//! instance's [`Scratch`] memory.
//!
//! Work is submitted under the queue's lock, which numbers it; allocations the work uses are
//! stamped with that number ([`Pending`]), so host access waits for exactly the work that uses an
//! allocation, and work on another queue that uses it is ordered after it with an event
//! (DESIGN.md decisions 5 and 8).

use std::any::Any;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use super::clock::{DeviceClock, Timing};
use super::driver::{Driver, Event as _, Stream as _};
use super::fault::Faults;
use super::scratch::Scratch;
use crate::error::Result;
use crate::space::Allocation;
use crate::space::WorkQueue;

/// How many recording queues capture now, in the process (a launch checks [`RECORDING_HERE`]
/// only when some do).
static RECORDINGS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

thread_local! {
    /// Whether this thread records a graph node now.
    static RECORDING_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the calling thread is recording a graph (one of its node's captures is in progress).
pub(crate) fn recording_here() -> bool {
    RECORDING_HERE.with(std::cell::Cell::get)
}

/// What the queue's lock protects.
pub(crate) struct Locked<D: Driver> {
    /// The number of the last work submitted.
    submitted: u64,
    /// What the last work submitted was (`parallel_for "axpy"`), for errors that surface later.
    last: String,
    /// The instance's scratch memory.
    pub(crate) scratch: Scratch<D>,
    /// A recording queue: the allocations its work uses (with whether it writes them), one entry
    /// per use, and the number of submissions recorded.
    recorded: Vec<(Arc<Allocation>, bool)>,
    recorded_work: u64,
    /// Events recorded right after marked work (copies into pinned host memory), with the work's
    /// number, oldest first: the host waits for such work alone, not for the work queued after
    /// it (a kernel the copy should overlap). At most [`MARKS`] are kept; a wait for older work
    /// fences.
    marks: VecDeque<(u64, Arc<D::Event>)>,
}

/// The most marks a queue keeps.
const MARKS: usize = 16;

/// An instance's stream and its bookkeeping.
pub(crate) struct Queue<D: Driver> {
    stream: Arc<D::Stream>,
    /// The GPU clock of the trace, shared by the device's instances.
    clock: Arc<DeviceClock<D>>,
    /// The device's fault record, read after every wait.
    faults: Arc<Faults<D>>,
    /// The instance's Kokkos Tools device ID (its lane in the trace).
    device_id: u32,
    /// The number of the last work known to have completed.
    completed: AtomicU64,
    locked: Mutex<Locked<D>>,
    /// The queue as the weak handle allocations are stamped with.
    me: Weak<dyn WorkQueue>,
    /// Whether this is a graph's recording queue (`super::graph`): its stream is capturing, so work
    /// submitted to it is recorded, not run. A recording queue orders after nothing, stamps
    /// nothing and refuses to wait (see [`Submission`]); its allocations are kept instead.
    recording: bool,
    /// A recording queue accepts work only while its graph captures a node: a handle of the
    /// recording instance kept past that could otherwise run work that nothing stamps.
    capturing: AtomicBool,
}

/// A submission in progress: the locked queue, through which work is enqueued.
pub(crate) struct Submission<'a, D: Driver> {
    queue: &'a Queue<D>,
    locked: MutexGuard<'a, Locked<D>>,
    /// The work's timing for the trace, while one is written.
    timing: Option<Timing<D>>,
}

impl<D: Driver> Queue<D> {
    /// A queue with a new non-blocking stream on `ctx`.
    pub(crate) fn new(
        ctx: &Arc<D::Context>,
        clock: &Arc<DeviceClock<D>>,
        faults: &Arc<Faults<D>>,
        device_id: u32,
        recording: bool,
    ) -> Result<Arc<Queue<D>>> {
        let stream = Arc::new(D::Stream::new(ctx, || {
            format!("creating a {} instance's stream", D::SPACE)
        })?);
        let scratch = Scratch::new(&stream, recording);
        Ok(Arc::new_cyclic(|me| Queue {
            stream,
            clock: Arc::clone(clock),
            faults: Arc::clone(faults),
            device_id,
            completed: AtomicU64::new(0),
            locked: Mutex::new(Locked {
                submitted: 0,
                last: String::new(),
                scratch,
                recorded: Vec::new(),
                recorded_work: 0,
                marks: VecDeque::new(),
            }),
            me: me.clone() as Weak<dyn WorkQueue>,
            recording,
            capturing: AtomicBool::new(false),
        }))
    }

    /// Whether work submitted to this queue is recorded into a graph rather than run.
    pub(crate) fn is_recording(&self) -> bool {
        self.recording
    }

    /// A recording queue: whether its stream is capturing (work is accepted only then). The
    /// calling thread is marked as recording meanwhile, so that work it submits to another
    /// instance (which would run at once, outside the graph) is refused.
    pub(crate) fn set_capturing(&self, capturing: bool) {
        self.capturing.store(capturing, Ordering::Release);
        RECORDING_HERE.with(|r| r.set(capturing));
        match capturing {
            true => RECORDINGS.fetch_add(1, Ordering::AcqRel),
            false => RECORDINGS.fetch_sub(1, Ordering::AcqRel),
        };
    }

    /// Locks the queue to enqueue work; an error on a recording queue whose graph is not
    /// capturing (its handle was kept past the recording), which must run nothing.
    pub(crate) fn begin_work(&self, what: &dyn Fn() -> String) -> Result<Submission<'_, D>> {
        if self.recording && !self.capturing.load(Ordering::Acquire) {
            return Err(crate::error::Error::Unsupported {
                what: what(),
                reason: "this is a graph's recording instance, which takes work only while the \
                         graph records it; launch on the graph's own instance"
                    .into(),
            });
        }
        if !self.recording
            && RECORDINGS.load(Ordering::Acquire) != 0
            && RECORDING_HERE.with(std::cell::Cell::get)
        {
            return Err(crate::error::Error::Unsupported {
                what: what(),
                reason: "this thread is recording a graph node, whose work must go to the \
                         instance the node's closure is given (this work would run now, outside \
                         the graph)"
                    .into(),
            });
        }
        Ok(self.begin())
    }

    /// A recording queue: the allocations used by the work recorded since the last call (with
    /// whether each use writes), and how many submissions that work was.
    pub(crate) fn take_recorded(&self) -> (Vec<(Arc<Allocation>, bool)>, u64) {
        let mut locked = self.locked.lock().unwrap_or_else(|e| e.into_inner());
        let work = std::mem::take(&mut locked.recorded_work);
        (std::mem::take(&mut locked.recorded), work)
    }

    /// The stream.
    pub(crate) fn stream(&self) -> &Arc<D::Stream> {
        &self.stream
    }

    /// Locks the queue to enqueue work.
    pub(crate) fn begin(&self) -> Submission<'_, D> {
        Submission {
            queue: self,
            locked: self.locked.lock().unwrap_or_else(|e| e.into_inner()),
            timing: None,
        }
    }

    /// Waits for all work submitted so far.
    ///
    /// An error of the device work (a fault in a kernel, an out-of-bounds access) surfaces here,
    /// asynchronously: the error names the last work submitted to the instance.
    pub(crate) fn fence(&self, what: &dyn Fn() -> String) -> Result<()> {
        if self.recording {
            return Err(crate::error::Error::Unsupported {
                what: what(),
                reason: "a graph's recording instance cannot be fenced: its work runs when the \
                         graph is submitted (fence the instance the graph runs on)"
                    .into(),
            });
        }
        let (target, last) = {
            let sub = self.begin();
            (sub.locked.submitted, sub.locked.last.clone())
        };
        let describe = || {
            if last.is_empty() {
                what()
            } else {
                format!("{} (the last work submitted to it: {last})", what())
            }
        };
        self.stream.synchronize(describe)?;
        self.completed.fetch_max(target, Ordering::AcqRel);
        self.locked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .marks
            .retain(|(k, _)| *k > target);
        self.faults.check(&describe)
    }
}

impl<D: Driver> Submission<'_, D> {
    /// The stream to enqueue on.
    pub(crate) fn stream(&self) -> &D::Stream {
        &self.queue.stream
    }

    /// The scratch memory.
    pub(crate) fn scratch(&mut self) -> &mut Scratch<D> {
        &mut self.locked.scratch
    }

    /// Orders the work about to be enqueued after the device work still using `alloc` on other
    /// queues (an event recorded on each, waited for here). `writes`: whether the work writes it.
    /// A recording queue notes the use instead (the graph orders each replay).
    pub(crate) fn order_after(
        &mut self,
        alloc: &Arc<Allocation>,
        writes: bool,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        if self.queue.recording {
            self.locked.recorded.push((Arc::clone(alloc), writes));
            return Ok(());
        }
        for pending in alloc.pending_elsewhere(&self.queue.me) {
            let Some(queue) = pending.queue.upgrade() else {
                continue;
            };
            match queue.as_any().downcast_ref::<Queue<D>>() {
                Some(other) if std::ptr::eq(other, self.queue) => {}
                Some(other) => {
                    let event = D::Event::record(&other.stream, false, what)?;
                    self.queue.stream.wait_event(&event, what)?;
                }
                None => pending.wait(what)?,
            }
        }
        Ok(())
    }

    /// Records what the work of this submission is (`pattern "label"`), for errors that surface at
    /// a later fence.
    pub(crate) fn note(&mut self, pattern: &str, label: &str) {
        if self.queue.recording {
            return;
        }
        let last = &mut self.locked.last;
        last.clear();
        last.push_str(pattern);
        if !label.is_empty() {
            last.push_str(" \"");
            last.push_str(label);
            last.push('"');
        }
    }

    /// Ends the submission: numbers the work enqueued in it and stamps `allocs` with that number.
    /// Times the work enqueued from here to `finish` for the trace, as `cat` (`kernel`, `copy`,
    /// `fill`) named `name`, when a trace is written. Costs one branch otherwise.
    #[inline]
    pub(crate) fn trace(
        &mut self,
        cat: &'static str,
        name: impl FnOnce() -> String,
        args: impl FnOnce() -> Vec<(&'static str, String)>,
    ) {
        if crate::tools::active() && !self.queue.recording {
            let queue = self.queue;
            self.timing = queue
                .clock
                .begin(&queue.stream, queue.device_id, cat, name(), args());
        }
    }

    /// Ends the trace's timing of this submission's work.
    fn end_timing(&mut self) {
        if let Some(timing) = self.timing.take() {
            timing.end(&self.queue.stream);
        }
    }

    /// [`Submission::finish`], then an event after the work, so that the host can wait for this
    /// work without waiting for what is queued after it (see [`Locked::marks`]). For work the
    /// host is likely to wait for while later work still runs: a copy into pinned host memory.
    pub(crate) fn finish_marked<'a>(
        self,
        allocs: impl Iterator<Item = &'a Allocation>,
        what: &dyn Fn() -> String,
    ) -> Result<u64> {
        if self.queue.recording {
            return Ok(self.finish(allocs));
        }
        let stream = Arc::clone(&self.queue.stream);
        let mut sub = self;
        // Recorded under the queue's lock, before any later work: the event completes with this
        // work and all before it.
        let event = D::Event::record(&stream, false, what)?;
        let seq = {
            let marks_seq = sub.locked.submitted + 1;
            if sub.locked.marks.len() == MARKS {
                sub.locked.marks.pop_front();
            }
            sub.locked.marks.push_back((marks_seq, Arc::new(event)));
            marks_seq
        };
        let finished = sub.finish(allocs);
        debug_assert_eq!(finished, seq);
        Ok(finished)
    }

    pub(crate) fn finish<'a>(mut self, allocs: impl Iterator<Item = &'a Allocation>) -> u64 {
        if self.queue.recording {
            self.locked.recorded_work += 1;
            return 0;
        }
        self.end_timing();
        self.locked.submitted += 1;
        let seq = self.locked.submitted;
        for a in allocs {
            a.stamp_from(&self.queue.me, seq);
        }
        seq
    }

    /// Ends the submission and waits for its work (the lock is held meanwhile, so that the
    /// scratch memory is not reused before the caller has read it). Returns the locked queue.
    pub(crate) fn finish_and_wait<'a>(
        mut self,
        allocs: impl Iterator<Item = &'a Allocation>,
        what: &dyn Fn() -> String,
    ) -> Result<Self> {
        if self.queue.recording {
            return Err(crate::error::Error::Unsupported {
                what: what(),
                reason: "a graph cannot hold work whose result the host waits for (a reduction \
                         into a host value, a scan, a deep_copy through host memory); reduce \
                         into a View the GPU reaches"
                    .into(),
            });
        }
        self.end_timing();
        self.locked.submitted += 1;
        let seq = self.locked.submitted;
        for a in allocs {
            a.stamp_from(&self.queue.me, seq);
        }
        self.queue.stream.synchronize(what)?;
        self.queue.completed.fetch_max(seq, Ordering::AcqRel);
        self.queue.faults.check(what)?;
        Ok(self)
    }
}

impl<D: Driver> WorkQueue for Queue<D> {
    fn wait_for(&self, seq: u64, what: &dyn Fn() -> String) -> Result<()> {
        if self.completed(seq) {
            return Ok(());
        }
        // The first mark at or after `seq`: waiting for it waits for `seq` and not for the work
        // queued after the mark (the copy of a halo overlaps the kernel queued behind it).
        let mark = {
            let locked = self.locked.lock().unwrap_or_else(|e| e.into_inner());
            locked
                .marks
                .iter()
                .find(|(m, _)| *m >= seq)
                .map(|(m, e)| (*m, Arc::clone(e)))
        };
        match mark {
            Some((m, event)) => {
                event.synchronize(what)?;
                self.completed.fetch_max(m, Ordering::AcqRel);
                let mut locked = self.locked.lock().unwrap_or_else(|e| e.into_inner());
                locked.marks.retain(|(k, _)| *k > m);
                drop(locked);
                self.faults.check(what)
            }
            None => self.fence(what),
        }
    }

    fn completed(&self, seq: u64) -> bool {
        self.completed.load(Ordering::Acquire) >= seq
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl<D: Driver> Drop for Queue<D> {
    fn drop(&mut self) {
        // Waits for the instance's work and reports its errors. Then the fields drop: the scratch
        // buffers free themselves in the stream's order (the free of the pinned buffer does not
        // wait, hence this synchronize first), and the stream, which the buffers hold, is
        // destroyed after the last of them (its own drop synchronizes again).
        let what = || format!("dropping a {} instance", D::SPACE);
        if let Err(e) = self
            .stream
            .synchronize(what)
            .and_then(|()| self.faults.check(&what))
        {
            eprintln!("ferrokkos: {e}");
        }
    }
}
