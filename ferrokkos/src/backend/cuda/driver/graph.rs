//! CUDA graphs: a stream's work captured into a graph, graphs joined as child nodes of one graph
//! with dependencies, and an instantiated (executable) graph launched on a stream.
//!
//! Ownership mirrors CUDA's: a [`Graph`] owns its `CUgraph` (destroyed in `Drop`), a [`Node`] is a
//! handle that is valid only with its graph, and an [`Executable`] owns its `CUgraphExec` and
//! holds the context it was made on, so that it is destroyed before the context is released.

use std::sync::Arc;

use cudarc::driver::sys;

use super::{Context, Stream, check};
use crate::error::Result;

/// A graph under construction (`CUgraph`), destroyed when dropped.
///
/// `Graph` is `Send`: the driver API is thread-safe and only `&mut self` methods change the graph.
pub(crate) struct Graph {
    raw: sys::CUgraph,
    ctx: Arc<Context>,
}

// SAFETY: see the type's documentation.
unsafe impl Send for Graph {}

/// One node of a [`Graph`] (a handle; meaningful only with the graph that made it).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node(sys::CUgraphNode);

// SAFETY: a node handle is an opaque identifier, used only through its graph's methods.
unsafe impl Send for Node {}

/// An instantiated graph (`CUgraphExec`), destroyed when dropped. It holds its context.
///
/// `Executable` is `Send + Sync`: launching is thread-safe in the driver (launches of one
/// executable graph are ordered after each other by the driver).
pub(crate) struct Executable {
    raw: sys::CUgraphExec,
    ctx: Arc<Context>,
}

// SAFETY: see the type's documentation.
unsafe impl Send for Executable {}
// SAFETY: see the type's documentation; no method mutates the value.
unsafe impl Sync for Executable {}

impl Graph {
    /// An empty graph on `ctx` (`cuGraphCreate`).
    pub(crate) fn new(ctx: &Arc<Context>, what: impl FnOnce() -> String) -> Result<Graph> {
        ctx.bind()?;
        let mut raw: sys::CUgraph = std::ptr::null_mut();
        // SAFETY: `ctx` is current; `raw` is valid for a write.
        check(
            unsafe { sys::cuGraphCreate(&mut raw, 0) },
            "cuGraphCreate",
            what,
        )?;
        super::live::created(&super::live::GRAPHS);
        Ok(Graph {
            raw,
            ctx: Arc::clone(ctx),
        })
    }

    /// Starts capturing `stream`'s work (`cuStreamBeginCapture`, relaxed mode: the capturing thread
    /// may still allocate and copy synchronously outside the stream).
    ///
    /// # Safety
    /// Until [`Graph::end_capture`] on the same stream, only work meant for the graph is enqueued
    /// on `stream`, and nothing waits for it.
    pub(crate) unsafe fn begin_capture(
        stream: &Stream,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        stream.context().bind()?;
        let mode = sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED;
        // SAFETY: the stream is alive and its context current; the rest is the caller's contract.
        let code = unsafe { sys::cuStreamBeginCapture_v2(stream.raw(), mode) };
        check(code, "cuStreamBeginCapture", what)
    }

    /// Ends the capture of `stream` (`cuStreamEndCapture`) and returns the captured graph. An error
    /// (work that cannot be captured) ends the capture too.
    pub(crate) fn end_capture(stream: &Stream, what: impl FnOnce() -> String) -> Result<Graph> {
        stream.context().bind()?;
        let mut raw: sys::CUgraph = std::ptr::null_mut();
        // SAFETY: the stream is alive and its context current; `raw` is valid for a write.
        let code = unsafe { sys::cuStreamEndCapture(stream.raw(), &mut raw) };
        if !raw.is_null() {
            super::live::created(&super::live::GRAPHS);
        }
        // Owned from here, also when the call reported an error with a graph.
        let graph = (!raw.is_null()).then(|| Graph {
            raw,
            ctx: Arc::clone(stream.context()),
        });
        check(code, "cuStreamEndCapture", what)?;
        graph.ok_or_else(|| crate::error::Error::Internal {
            what: "ending a Cuda graph capture".into(),
            reason: "the driver returned no graph".into(),
        })
    }

    /// Adds `child` (cloned by the driver) as one node after `deps` (`cuGraphAddChildGraphNode`).
    pub(crate) fn add_child(
        &mut self,
        deps: &[Node],
        child: &Graph,
        what: impl FnOnce() -> String,
    ) -> Result<Node> {
        self.ctx.bind()?;
        let deps: Vec<sys::CUgraphNode> = deps.iter().map(|n| n.0).collect();
        let mut node: sys::CUgraphNode = std::ptr::null_mut();
        // SAFETY: both graphs are alive on this context; `deps` are nodes of `self` (the caller
        // made them with this graph); `node` is valid for a write.
        let code = unsafe {
            sys::cuGraphAddChildGraphNode(&mut node, self.raw, deps.as_ptr(), deps.len(), child.raw)
        };
        check(code, "cuGraphAddChildGraphNode", what)?;
        Ok(Node(node))
    }

    /// Adds an empty node after `deps` (`cuGraphAddEmptyNode`): a join point, or a node whose work
    /// was empty.
    pub(crate) fn add_empty(
        &mut self,
        deps: &[Node],
        what: impl FnOnce() -> String,
    ) -> Result<Node> {
        self.ctx.bind()?;
        let deps: Vec<sys::CUgraphNode> = deps.iter().map(|n| n.0).collect();
        let mut node: sys::CUgraphNode = std::ptr::null_mut();
        // SAFETY: the graph is alive; `deps` are its nodes; `node` is valid for a write.
        let code =
            unsafe { sys::cuGraphAddEmptyNode(&mut node, self.raw, deps.as_ptr(), deps.len()) };
        check(code, "cuGraphAddEmptyNode", what)?;
        Ok(Node(node))
    }

    /// Instantiates the graph (`cuGraphInstantiateWithFlags`).
    pub(crate) fn instantiate(&self, what: impl FnOnce() -> String) -> Result<Executable> {
        self.ctx.bind()?;
        let mut raw: sys::CUgraphExec = std::ptr::null_mut();
        // SAFETY: the graph is alive on the current context; `raw` is valid for a write.
        let code = unsafe { sys::cuGraphInstantiateWithFlags(&mut raw, self.raw, 0) };
        check(code, "cuGraphInstantiateWithFlags", what)?;
        super::live::created(&super::live::GRAPHS);
        Ok(Executable {
            raw,
            ctx: Arc::clone(&self.ctx),
        })
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: the graph is alive and owned by this value only.
            let code = unsafe { sys::cuGraphDestroy(self.raw) };
            if let Err(e) = check(code, "cuGraphDestroy", || "destroying a Cuda graph".into()) {
                eprintln!("ferrokkos: {e}");
            }
        }
        super::live::destroyed(&super::live::GRAPHS);
    }
}

impl Executable {
    /// Launches the graph on `stream` (`cuGraphLaunch`), after the work enqueued on it so far and
    /// after earlier launches of this graph.
    ///
    /// # Safety
    /// Every address the graph's nodes use is valid until the launch completes, and the memory
    /// they write is not used by other work meanwhile.
    pub(crate) unsafe fn launch(
        &self,
        stream: &Stream,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: the graph and the stream are alive on the current context; the rest is the
        // caller's contract.
        let code = unsafe { sys::cuGraphLaunch(self.raw, stream.raw()) };
        check(code, "cuGraphLaunch", what)
    }

    /// Uploads the graph's launch resources to the device ahead of its first launch
    /// (`cuGraphUpload`), so that the first launch costs what every later one does.
    pub(crate) fn upload(&self, stream: &Stream, what: impl FnOnce() -> String) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: the graph and the stream are alive on the current context; an upload runs no
        // node.
        let code = unsafe { sys::cuGraphUpload(self.raw, stream.raw()) };
        check(code, "cuGraphUpload", what)
    }
}

impl Drop for Executable {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: the executable graph is alive and owned by this value only; the driver
            // keeps it until launches in flight complete.
            let code = unsafe { sys::cuGraphExecDestroy(self.raw) };
            if let Err(e) = check(code, "cuGraphExecDestroy", || {
                "destroying an instantiated Cuda graph".into()
            }) {
                eprintln!("ferrokkos: {e}");
            }
        }
        super::live::destroyed(&super::live::GRAPHS);
    }
}
