//! Graphs on a GPU: each node's launches are recorded, and one launch of the driver's graph
//! (`cuGraphLaunch`) replays them all. Written once over the driver traits (`Graph`, `GraphExec`);
//! a backend's `GraphSpace` calls [`instantiate`].
//!
//! Instantiation compiles the graph's kernels ahead (one [`crate::Prepare`], whose batches
//! compile in parallel), then runs each node's launch closure on a private *recording* instance
//! whose stream captures (`cuStreamBeginCapture`, relaxed mode). A recording queue (`queue.rs`)
//! orders after nothing and stamps nothing: it notes the allocations each use touches, hands out
//! scratch memory of its own that the graph keeps (reduction partials and counters, teams'
//! level-1 scratch, by-pointer captures), and refuses work the host would wait for. Each node's
//! capture becomes one child-graph node of the driver's graph, after the nodes it depends on; a
//! node that recorded nothing becomes an empty node.
//!
//! Invariants, which make a submit sound: the executable graph only touches memory that the
//! graph keeps alive (the recorded allocations, held by `Arc`, and the recording instance's
//! scratch); nodes that no dependency orders touch no allocation that either writes (checked
//! here, [`Error::GraphRace`]); each submit borrows the allocations for its enqueueing (so an
//! expired lent View or a held host guard refuses it), orders after the work of other instances
//! on them and stamps them, like a single launch. Launches of one executable graph run in order
//! (CUDA orders them), so its scratch is never used by two replays at once. Dropping it waits
//! for the device (its scratch is freed at once, not in a stream's order).

use std::sync::Arc;

use super::driver::{Context as _, Driver, Graph as _, GraphExec as _, PointerKind};
use super::instance::Instance;
use super::queue::Queue;
use super::space::GpuSpace;
use crate::dispatch::Prepare;
use crate::error::{Error, Result};
use crate::graph::{GraphExecutable, NodeSpec};
use crate::space::Allocation;

/// The driver of the space `S`.
type DriverOf<S> = <S as GpuSpace>::Driver;

/// An instantiated graph on a GPU space.
struct GpuGraph<S: GpuSpace> {
    exec: <DriverOf<S> as Driver>::GraphExec,
    /// The recording instance: its queue's scratch holds the memory the graph's nodes use.
    recorder: S,
    /// Every allocation the graph uses, once, with whether some node writes it.
    uses: Vec<(Arc<Allocation>, bool)>,
    /// Whether the graph writes pinned host memory (a copy of its results for the host): then
    /// each submit is marked, so that the host's wait for a replay's results waits for that
    /// replay alone and not for the replays queued after it.
    writes_host: bool,
}

/// Instantiates a graph of `nodes` (in a topological order) for `space`'s device.
pub(crate) fn instantiate<S: GpuSpace>(
    space: &S,
    label: &str,
    nodes: &[NodeSpec<'_, S>],
) -> Result<Box<dyn GraphExecutable<S>>> {
    let what = || format!("instantiating {label} on {}", S::NAME);
    let shared = space.gpu_instance().shared();
    shared.check_alive(what)?;
    // Compile every kernel first, in parallel batches, so the recording loads only.
    let mut prepare = Prepare::new();
    for node in nodes {
        if let Some(p) = node.prepare {
            p(&mut prepare)?;
        }
    }
    prepare.compile()?;
    let recorder = S::from_gpu_instance(Instance::create(shared, true)?);
    let (graph, node_uses) = record(&recorder, label, nodes)?;
    check_races(nodes, &node_uses)?;
    let exec = graph.instantiate(what)?;
    exec.upload(space.gpu_instance().queue().stream(), what)?;
    let uses = merge(node_uses);
    let writes_host = uses.iter().any(|(a, writes)| {
        *writes
            && matches!(
                DriverOf::<S>::pointer_kind(a.ptr().as_ptr()),
                Ok(PointerKind::PinnedHost)
            )
    });
    Ok(Box::new(GpuGraph {
        exec,
        recorder,
        uses,
        writes_host,
    }))
}

/// The allocations one node uses, each with whether it writes it.
type Uses = Vec<(Arc<Allocation>, bool)>;

/// Records each node's launch on `recorder` into one graph; returns it with each node's uses.
fn record<S: GpuSpace>(
    recorder: &S,
    label: &str,
    nodes: &[NodeSpec<'_, S>],
) -> Result<(<DriverOf<S> as Driver>::Graph, Vec<Uses>)> {
    let queue = recorder.gpu_instance().queue();
    let mut graph =
        <DriverOf<S> as Driver>::Graph::new(&recorder.gpu_instance().shared().ctx, || {
            format!("instantiating {label} on {}", S::NAME)
        })?;
    let mut handles = Vec::with_capacity(nodes.len());
    let mut node_uses: Vec<Uses> = Vec::with_capacity(nodes.len());
    for node in nodes {
        let deps: Vec<_> = node.deps.iter().map(|&d| handles[d]).collect();
        let node_what = || {
            format!(
                "recording node \"{}\" of {label} on {}",
                node.label,
                S::NAME
            )
        };
        let Some(launch) = node.launch else {
            handles.push(graph.add_empty(&deps, node_what)?);
            node_uses.push(Vec::new());
            continue;
        };
        // SAFETY: the recording instance was made by the caller for this graph and takes work
        // only while it captures (`Queue::begin_work`), so what reaches its stream until the
        // capture ends is work for the graph (a handle the closure kept is refused afterwards),
        // and a recording queue never waits for its work.
        let capture = unsafe { Capture::begin(queue, node_what)? };
        let launched = launch(recorder);
        // The capture ends whatever happened, so that the stream is usable again (also when the
        // launch unwinds: `Capture`'s drop).
        let captured = capture.end(node_what);
        let (used, work) = queue.take_recorded();
        launched?;
        let captured = captured?;
        let handle = match work {
            0 => graph.add_empty(&deps, node_what)?,
            _ => graph.add_child(&deps, &captured, node_what)?,
        };
        handles.push(handle);
        node_uses.push(used);
    }
    Ok((graph, node_uses))
}

/// One node's capture on the recording queue: the stream captures and the queue (and the calling
/// thread) are marked as capturing until [`Capture::end`], or the drop when a launch unwinds, so
/// that a panic caught by the caller leaves neither a capturing stream nor a thread that refuses
/// launches on other instances.
struct Capture<'a, D: Driver> {
    queue: &'a Queue<D>,
    ended: bool,
    /// No wait for the whole device meanwhile (`capture_lock.rs`).
    _alone: std::sync::RwLockReadGuard<'static, ()>,
}

impl<'a, D: Driver> Capture<'a, D> {
    /// Starts capturing `queue`'s stream.
    ///
    /// # Safety
    /// `queue` is a recording queue private to the caller: only the node's work goes to its
    /// stream until the capture ends, and a recording queue never waits for its work.
    unsafe fn begin(queue: &'a Queue<D>, what: impl FnOnce() -> String) -> Result<Capture<'a, D>> {
        let alone = super::capture_lock::capturing();
        // SAFETY: the caller's contract.
        unsafe { D::Graph::begin_capture(queue.stream(), what)? };
        queue.set_capturing(true);
        Ok(Capture {
            queue,
            ended: false,
            _alone: alone,
        })
    }

    /// Ends the capture and returns its graph.
    fn end(mut self, what: impl FnOnce() -> String) -> Result<D::Graph> {
        self.ended = true;
        self.queue.set_capturing(false);
        D::Graph::end_capture(self.queue.stream(), what)
    }
}

impl<D: Driver> Drop for Capture<'_, D> {
    fn drop(&mut self) {
        if !self.ended {
            self.queue.set_capturing(false);
            let ended = D::Graph::end_capture(self.queue.stream(), || {
                format!("ending an abandoned {} graph capture", D::SPACE)
            });
            drop(ended);
        }
    }
}

/// [`Error::GraphRace`] for the first pair of nodes that no dependency orders and that touch one
/// allocation, one of them writing it.
fn check_races<S: GpuSpace>(nodes: &[NodeSpec<'_, S>], uses: &[Uses]) -> Result<()> {
    // before[j][i]: node i comes before node j (i < j, following dependencies).
    let words = nodes.len().div_ceil(64);
    let mut before: Vec<Vec<u64>> = Vec::with_capacity(nodes.len());
    for node in nodes {
        let mut set = vec![0u64; words];
        for &d in node.deps {
            set[d / 64] |= 1 << (d % 64);
            for (w, b) in set.iter_mut().zip(&before[d]) {
                *w |= b;
            }
        }
        before.push(set);
    }
    for j in 0..nodes.len() {
        for i in 0..j {
            if before[j][i / 64] & (1 << (i % 64)) != 0 {
                continue;
            }
            for (a, a_writes) in &uses[i] {
                for (b, b_writes) in &uses[j] {
                    if Arc::ptr_eq(a, b) && (*a_writes || *b_writes) {
                        return Err(Error::GraphRace {
                            space: S::NAME,
                            first: nodes[i].label.to_string(),
                            second: nodes[j].label.to_string(),
                            first_writes: *a_writes,
                            label: a.label().to_string(),
                        });
                    }
                }
            }
        }
    }
    Ok(())
}

/// Each allocation once, written if any use writes it.
fn merge(uses: Vec<Uses>) -> Uses {
    let mut merged: Uses = Vec::new();
    for (a, writes) in uses.into_iter().flatten() {
        match merged.iter_mut().find(|(b, _)| Arc::ptr_eq(&a, b)) {
            Some(entry) => entry.1 |= writes,
            None => merged.push((a, writes)),
        }
    }
    merged
}

/// The borrows of one submit, given back when it has been enqueued (or has failed).
struct Borrowed<'a>(Vec<&'a (Arc<Allocation>, bool)>);

impl Drop for Borrowed<'_> {
    fn drop(&mut self) {
        for (a, exclusive) in &self.0 {
            if *exclusive {
                a.release_exclusive();
            } else {
                a.release_shared();
            }
        }
    }
}

impl<S: GpuSpace> GraphExecutable<S> for GpuGraph<S> {
    fn submit(&self, exec: &S, label: &str, _nodes: &[NodeSpec<'_, S>]) -> Result<()> {
        let what = || format!("submitting {label} on {}", S::NAME);
        let recorder = self.recorder.gpu_instance();
        let exec = exec.gpu_instance();
        exec.shared().check_alive(what)?;
        if !Arc::ptr_eq(exec.shared(), recorder.shared()) {
            return Err(Error::InvalidArgument {
                operation: "Graph::submit_on",
                reason: "the instance is on another device than the graph's".into(),
            });
        }
        if exec.queue().is_recording() {
            return Err(Error::Unsupported {
                what: what(),
                reason: "a graph cannot be submitted inside another graph's recording".into(),
            });
        }
        let mut borrowed = Borrowed(Vec::with_capacity(self.uses.len()));
        for entry in &self.uses {
            match entry.1 {
                true => entry.0.borrow_exclusive_async()?,
                false => entry.0.borrow_shared_async()?,
            }
            borrowed.0.push(entry);
        }
        let mut sub = exec.queue().begin_work(&what)?;
        for (a, writes) in &self.uses {
            sub.order_after(a, *writes, &what)?;
        }
        sub.note("graph", label);
        sub.trace(
            "kernel",
            || label.to_string(),
            || vec![("pattern", "graph".into()), ("space", S::NAME.into())],
        );
        // SAFETY: every address in the graph is memory the graph keeps alive (its allocations,
        // held in `uses`, and the recorder's scratch); the allocations are borrowed for this
        // enqueueing and stamped with it below, so host access and frees wait for it and other
        // instances order after it; nodes that no dependency orders write no allocation the
        // other uses (checked at instantiation); replays of one graph run in order (CUDA's rule),
        // so its scratch is used by one replay at a time.
        let launched = unsafe { self.exec.launch(exec.queue().stream(), what) };
        let used = self.uses.iter().map(|(a, _)| -> &Allocation { a });
        let finished = match self.writes_host {
            true => sub.finish_marked(used, &what).map(|_| ()),
            false => {
                sub.finish(used);
                Ok(())
            }
        };
        drop(borrowed);
        launched.and(finished)
    }
}

impl<S: GpuSpace> Drop for GpuGraph<S> {
    fn drop(&mut self) {
        // The scratch memory is freed at once when the recorder goes: wait for replays first.
        let shared = self.recorder.gpu_instance().shared();
        let _alone = super::capture_lock::whole_device();
        if let Err(e) = shared.ctx.synchronize(String::new) {
            eprintln!("ferrokkos: dropping a {} graph: {e}", S::NAME);
        }
    }
}
