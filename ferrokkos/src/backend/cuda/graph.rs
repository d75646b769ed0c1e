//! Graphs on Cuda: each node's launches are recorded, and one `cuGraphLaunch` replays them all.
//!
//! Instantiation compiles the graph's kernels ahead (one [`crate::Prepare`], whose batches
//! compile in parallel), then runs each node's launch closure on a private *recording* instance
//! (`Cuda::create_recording`) whose stream captures (`cuStreamBeginCapture`, relaxed mode). A
//! recording queue (`backend/gpu/queue.rs`) orders after nothing and stamps nothing: it notes the allocations
//! each use touches, hands out scratch memory of its own that the graph keeps (reduction
//! partials and counters, teams' level-1 scratch, by-pointer captures), and refuses work the host
//! would wait for. Each node's capture becomes one child-graph node of the CUDA graph, after the
//! nodes it depends on; a node that recorded nothing becomes an empty node.
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

use super::driver::{self, Executable};
use super::instance::Cuda;
use crate::dispatch::Prepare;
use crate::error::{Error, Result};
use crate::graph::{GraphExecutable, GraphSpace, NodeSpec};
use crate::seal::Token;
use crate::space::{Allocation, ExecutionSpace};

/// An instantiated graph on Cuda.
struct CudaGraph {
    exec: Executable,
    /// The recording instance: its queue's scratch holds the memory the graph's nodes use.
    recorder: Cuda,
    /// Every allocation the graph uses, once, with whether some node writes it.
    uses: Vec<(Arc<Allocation>, bool)>,
    /// Whether the graph writes pinned host memory (a copy of its results for the host): then
    /// each submit is marked, so that the host's wait for a replay's results waits for that
    /// replay alone and not for the replays queued after it.
    writes_host: bool,
}

impl GraphSpace for Cuda {
    fn instantiate_graph(
        &self,
        label: &str,
        nodes: &[NodeSpec<'_, Self>],
        _: Token,
    ) -> Result<Box<dyn GraphExecutable<Self>>> {
        let what = || format!("instantiating {label} on Cuda");
        let shared = self.shared();
        shared.check_alive(what)?;
        // Compile every kernel first, in parallel batches, so the recording loads only.
        let mut prepare = Prepare::new();
        for node in nodes {
            if let Some(p) = node.prepare {
                p(&mut prepare)?;
            }
        }
        prepare.compile()?;
        let recorder = Cuda::create_recording(shared)?;
        let mut graph = driver::Graph::new(&shared.ctx, what)?;
        let mut handles: Vec<driver::Node> = Vec::with_capacity(nodes.len());
        let mut node_uses: Vec<Vec<(Arc<Allocation>, bool)>> = Vec::with_capacity(nodes.len());
        for node in nodes {
            let deps: Vec<driver::Node> = node.deps.iter().map(|&d| handles[d]).collect();
            let node_what = || format!("recording node \"{}\" of {label} on Cuda", node.label);
            let Some(launch) = node.launch else {
                handles.push(graph.add_empty(&deps, node_what)?);
                node_uses.push(Vec::new());
                continue;
            };
            // SAFETY: the recording instance was made by this call and takes work only while it
            // captures (`Queue::begin_work`), so what reaches its stream until the capture ends
            // is work for the graph (a handle the closure kept is refused afterwards), and a
            // recording queue never waits for its work.
            let capture = unsafe { Capture::begin(&recorder, node_what)? };
            let launched = launch(&recorder);
            // The capture ends whatever happened, so that the stream is usable again (also when
            // the launch unwinds: `Capture`'s drop).
            let captured = capture.end(node_what);
            let (used, work) = recorder.queue().take_recorded();
            launched?;
            let captured = captured?;
            let handle = match work {
                0 => graph.add_empty(&deps, node_what)?,
                _ => graph.add_child(&deps, &captured, node_what)?,
            };
            handles.push(handle);
            node_uses.push(used);
        }
        check_races(nodes, &node_uses)?;
        let exec = graph.instantiate(what)?;
        exec.upload(self.queue().stream(), what)?;
        let uses = merge(node_uses);
        let writes_host = uses.iter().any(|(a, writes)| {
            *writes
                && matches!(
                    driver::pointer_kind(a.ptr().as_ptr()),
                    Ok(driver::PointerKind::PinnedHost)
                )
        });
        Ok(Box::new(CudaGraph {
            exec,
            recorder,
            uses,
            writes_host,
        }))
    }
}

/// One node's capture on the recording instance: the stream captures and the instance (and the
/// calling thread) are marked as capturing until [`Capture::end`], or the drop when a launch
/// unwinds, so that a panic caught by the caller leaves neither a capturing stream nor a thread
/// that refuses launches on other instances.
struct Capture<'a> {
    recorder: &'a Cuda,
    ended: bool,
}

impl<'a> Capture<'a> {
    /// Starts capturing `recorder`'s stream.
    ///
    /// # Safety
    /// `recorder` is a recording instance private to the caller: only the node's work goes to
    /// its stream until the capture ends, and a recording queue never waits for its work.
    unsafe fn begin(recorder: &'a Cuda, what: impl FnOnce() -> String) -> Result<Capture<'a>> {
        // SAFETY: the caller's contract.
        unsafe { driver::Graph::begin_capture(recorder.queue().stream(), what)? };
        recorder.queue().set_capturing(true);
        Ok(Capture {
            recorder,
            ended: false,
        })
    }

    /// Ends the capture and returns its graph.
    fn end(mut self, what: impl FnOnce() -> String) -> Result<driver::Graph> {
        self.ended = true;
        self.recorder.queue().set_capturing(false);
        driver::Graph::end_capture(self.recorder.queue().stream(), what)
    }
}

impl Drop for Capture<'_> {
    fn drop(&mut self) {
        if !self.ended {
            self.recorder.queue().set_capturing(false);
            let ended = driver::Graph::end_capture(self.recorder.queue().stream(), || {
                "ending an abandoned Cuda graph capture".into()
            });
            drop(ended);
        }
    }
}

/// [`Error::GraphRace`] for the first pair of nodes that no dependency orders and that touch one
/// allocation, one of them writing it.
fn check_races(nodes: &[NodeSpec<'_, Cuda>], uses: &[Vec<(Arc<Allocation>, bool)>]) -> Result<()> {
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
                            space: Cuda::NAME,
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
fn merge(uses: Vec<Vec<(Arc<Allocation>, bool)>>) -> Vec<(Arc<Allocation>, bool)> {
    let mut merged: Vec<(Arc<Allocation>, bool)> = Vec::new();
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

impl GraphExecutable<Cuda> for CudaGraph {
    fn submit(&self, exec: &Cuda, label: &str, _nodes: &[NodeSpec<'_, Cuda>]) -> Result<()> {
        let what = || format!("submitting {label} on Cuda");
        exec.shared().check_alive(what)?;
        if !Arc::ptr_eq(exec.shared(), self.recorder.shared()) {
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
            || vec![("pattern", "graph".into()), ("space", "Cuda".into())],
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

impl Drop for CudaGraph {
    fn drop(&mut self) {
        // The scratch memory is freed at once when the recorder goes: wait for replays first.
        if let Err(e) = self.recorder.shared().ctx.synchronize(String::new) {
            eprintln!("ferrokkos: dropping a Cuda graph: {e}");
        }
    }
}
