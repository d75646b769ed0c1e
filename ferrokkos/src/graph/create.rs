//! [`Graph`]: the nodes of a graph, instantiated once for its space and submitted many times.

use std::sync::OnceLock;

use super::builder::{Builder, GraphNode, NodeData};
use super::space::{GraphExecutable, GraphSpace, NodeSpec};
use crate::error::Result;
use crate::seal::Token;

/// A graph of kernels, reductions and copies with their dependencies on one execution-space
/// instance (Kokkos' `Kokkos::Experimental::Graph`): made by [`create_graph`] or
/// [`Graph::capture`], instantiated once ([`Graph::instantiate`], or by the first submit) and run
/// by each [`Graph::submit`].
///
/// On Cuda a graph is a CUDA graph: one submit enqueues all its kernels at the cost of about one
/// launch, and kernels without a dependency between them may run at once. On the host spaces its
/// nodes run one after the other in the order they were added.
///
/// Submitting orders the graph after the device work (on any instance) that uses its Views, and
/// host access to them waits for it, as for single launches. A graph keeps its Views alive; a View
/// lent by `with_slice` that has expired makes the submit fail.
///
/// ```
/// use ferrokkos::prelude::*;
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Serial::default_instance()?;
/// let x = View::<f64, 1>::new("x", [100])?;
/// let total = View::<f64, 0>::new("total", [])?;
/// let graph = create_graph(&exec, |root| {
///     let filled = root.then_fill(x.clone(), 2.0);
///     filled.then_parallel_reduce(
///         "sum",
///         RangePolicy::new(&exec, 0, 100)?,
///         kernel!(|i, acc: &mut f64| *acc += x[i]),
///         total.clone(),
///     );
///     Ok(())
/// })?;
/// for _ in 0..3 {
///     graph.submit()?;
/// }
/// exec.fence("graph")?;
/// assert_eq!(total.get(())?, 200.0);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct Graph<S: GraphSpace> {
    exec: S,
    nodes: Vec<NodeData<S>>,
    executable: OnceLock<Box<dyn GraphExecutable<S>>>,
}

impl<S: GraphSpace> std::fmt::Debug for Graph<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("space", &S::NAME)
            .field(
                "nodes",
                &self.nodes.iter().map(|n| &n.label).collect::<Vec<_>>(),
            )
            .field("instantiated", &self.executable.get().is_some())
            .finish()
    }
}

/// Builds a graph on `exec` (Kokkos' `create_graph`): `build` receives the root node and adds
/// nodes with its `then_*` methods and [`crate::when_all`]. Nothing runs until the graph is
/// submitted. `build`'s error is returned.
pub fn create_graph<S: GraphSpace>(
    exec: &S,
    build: impl FnOnce(GraphNode<'_, S>) -> Result<()>,
) -> Result<Graph<S>> {
    let builder = Builder::new();
    build(GraphNode::root(&builder))?;
    Ok(Graph {
        exec: exec.clone(),
        nodes: builder.nodes.into_inner(),
        executable: OnceLock::new(),
    })
}

impl<S: GraphSpace> Graph<S> {
    /// A graph of what `launches` submits to the instance it is given, in that order (a capture
    /// of a launch sequence): on Cuda the closure runs once, at instantiation, on a private
    /// recording instance, and its kernels and copies are replayed by every submit; on the host
    /// spaces it runs at every submit. It should only launch work on the instance it is given.
    ///
    /// A reduction in it writes into a rank-0 View (on Cuda one the GPU reaches); a reduction into
    /// a host value, a scan or a copy through pageable memory makes the instantiation fail.
    pub fn capture<F>(exec: &S, label: &str, launches: F) -> Result<Graph<S>>
    where
        F: Fn(&S) -> Result<()> + Send + Sync + 'static,
    {
        let label = label.to_string();
        create_graph(exec, move |root| {
            root.then_capture(&label, launches);
            Ok(())
        })
    }

    /// The instance the graph runs on.
    pub fn space(&self) -> &S {
        &self.exec
    }

    /// The number of nodes (joins included, the root not).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    fn specs(&self) -> Vec<NodeSpec<'_, S>> {
        self.nodes
            .iter()
            .map(|n| NodeSpec {
                label: &n.label,
                deps: &n.deps,
                launch: n.launch.as_deref(),
                prepare: n.prepare.as_deref(),
            })
            .collect()
    }

    /// Prepares the graph for its space (Kokkos' `instantiate`): on Cuda, compiles its kernels
    /// (in parallel), records its nodes, checks that nodes no dependency orders do not race on a
    /// View ([`crate::Error::GraphRace`]) and instantiates the CUDA graph. Done by the first
    /// submit otherwise; a second call does nothing.
    pub fn instantiate(&self) -> Result<()> {
        self.executable().map(drop)
    }

    fn executable(&self) -> Result<&dyn GraphExecutable<S>> {
        if let Some(e) = self.executable.get() {
            return Ok(e.as_ref());
        }
        let made = self
            .exec
            .instantiate_graph("graph", &self.specs(), Token::new())?;
        // Another thread may have instantiated it meanwhile: either result will do.
        let _ = self.executable.set(made);
        match self.executable.get() {
            Some(e) => Ok(e.as_ref()),
            None => Err(crate::error::Error::Internal {
                what: "instantiating a graph".into(),
                reason: "the instantiated graph was not kept".into(),
            }),
        }
    }

    /// Runs the graph once on its instance (Kokkos' `submit`), instantiating it first if needed.
    /// On Cuda this enqueues the whole graph and returns; on the host spaces it returns when the
    /// nodes have run.
    pub fn submit(&self) -> Result<()> {
        self.submit_on(&self.exec)
    }

    /// Runs the graph once on `exec` instead of its own instance (Kokkos'
    /// `submit(exec)`).
    pub fn submit_on(&self, exec: &S) -> Result<()> {
        let executable = self.executable()?;
        executable.submit(exec, "graph", &self.specs())
    }
}
