//! Building a graph: [`GraphNode`] handles and their `then_*` methods, [`when_all`].

use std::cell::RefCell;

use super::space::{GraphPolicy, Launch, PrepareFn};
use crate::dispatch::{ParallelFor, ParallelReduce, Prepare, parallel_for, parallel_reduce};
use crate::error::{Error, Result};
use crate::reducer::ReduceTarget;
use crate::space::ExecutionSpace;
use crate::view::{DeepCopyDst, deep_copy_async};

/// One node while the graph is built.
pub(crate) struct NodeData<S> {
    pub(crate) label: String,
    /// Positions of the nodes it comes after (all smaller than its own).
    pub(crate) deps: Vec<usize>,
    pub(crate) launch: Option<Box<Launch<S>>>,
    pub(crate) prepare: Option<Box<PrepareFn>>,
}

/// The nodes added so far (the graph's closure runs on one thread).
pub(crate) struct Builder<S> {
    pub(crate) nodes: RefCell<Vec<NodeData<S>>>,
}

impl<S> Builder<S> {
    pub(crate) fn new() -> Self {
        Builder {
            nodes: RefCell::new(Vec::new()),
        }
    }

    fn add(&self, node: NodeData<S>) -> usize {
        let mut nodes = self.nodes.borrow_mut();
        nodes.push(node);
        nodes.len()
    }
}

/// A node of a graph under construction (Kokkos' `GraphNodeRef`): the root handed to
/// [`crate::create_graph`]'s closure, or a node a `then_*` method added. Each `then_*` adds a node
/// that runs after this one and returns it; [`when_all`] joins several.
///
/// A kernel node keeps its policy and kernel (launched by reference); the policy's instance is
/// replaced by the one the graph runs on.
pub struct GraphNode<'g, S> {
    builder: &'g Builder<S>,
    /// 0 for the root; node `k` is at position `k - 1`.
    id: usize,
}

impl<S> Clone for GraphNode<'_, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S> Copy for GraphNode<'_, S> {}

impl<S> std::fmt::Debug for GraphNode<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.id {
            0 => f.write_str("GraphNode(root)"),
            id => f
                .debug_tuple("GraphNode")
                .field(&self.builder.nodes.borrow()[id - 1].label)
                .finish(),
        }
    }
}

impl<'g, S: ExecutionSpace> GraphNode<'g, S> {
    pub(crate) fn root(builder: &'g Builder<S>) -> Self {
        GraphNode { builder, id: 0 }
    }

    fn deps(&self) -> Vec<usize> {
        match self.id {
            0 => Vec::new(),
            id => vec![id - 1],
        }
    }

    fn then(
        &self,
        label: &str,
        launch: Box<Launch<S>>,
        prepare: Option<Box<PrepareFn>>,
    ) -> GraphNode<'g, S> {
        let id = self.builder.add(NodeData {
            label: label.to_string(),
            deps: self.deps(),
            launch: Some(launch),
            prepare,
        });
        GraphNode {
            builder: self.builder,
            id,
        }
    }

    /// Adds a `parallel_for` after this node (Kokkos' `then_parallel_for`). The policy's instance
    /// is replaced by the graph's.
    pub fn then_parallel_for<P, K>(&self, label: &str, policy: P, kernel: K) -> GraphNode<'g, S>
    where
        P: GraphPolicy<S> + for<'k> ParallelFor<&'k K>,
        K: Send + Sync + 'static,
    {
        let kernel = std::sync::Arc::new(kernel);
        let (name, p, k) = (label.to_string(), policy.clone(), kernel.clone());
        let launch = move |exec: &S| {
            let policy = policy.on_instance(exec, crate::seal::Token::new());
            parallel_for(&name, policy, &*kernel)
        };
        let name = label.to_string();
        let prepare = move |prep: &mut Prepare| prep.parallel_for(&name, &p, &&*k).map(drop);
        self.then(label, Box::new(launch), Some(Box::new(prepare)))
    }

    /// Adds a `parallel_reduce` after this node whose result goes into `target`, a rank-0 View
    /// (summed) or a reducer's [`crate::Reducer::into_result`] of one; on Cuda the View must be in
    /// memory the GPU reaches, since the graph cannot hand a value back to the host.
    pub fn then_parallel_reduce<P, K, T>(
        &self,
        label: &str,
        policy: P,
        kernel: K,
        target: T,
    ) -> GraphNode<'g, S>
    where
        T: ReduceTarget<Output = ()> + Clone + Send + Sync + 'static,
        P: GraphPolicy<S> + for<'k> ParallelReduce<&'k K, T>,
        K: Send + Sync + 'static,
    {
        let kernel = std::sync::Arc::new(kernel);
        let (name, p, k, t) = (
            label.to_string(),
            policy.clone(),
            kernel.clone(),
            target.clone(),
        );
        let launch = move |exec: &S| {
            let policy = policy.on_instance(exec, crate::seal::Token::new());
            parallel_reduce(&name, policy, &*kernel, target.clone())
        };
        let name = label.to_string();
        let prepare =
            move |prep: &mut Prepare| prep.parallel_reduce(&name, &p, &&*k, t.clone()).map(drop);
        self.then(label, Box::new(launch), Some(Box::new(prepare)))
    }

    /// Adds a `deep_copy` of `src` (a View or a value) into `dst` after this node, on the graph's
    /// instance (Kokkos' `deep_copy(exec, dst, src)`). On Cuda both sides must be in memory the GPU
    /// reaches.
    pub fn then_deep_copy<D, Src>(&self, dst: D, src: Src) -> GraphNode<'g, S>
    where
        D: Send + Sync + 'static,
        Src: Send + Sync + 'static,
        for<'a> &'a D: DeepCopyDst<&'a Src>,
    {
        let launch = move |exec: &S| deep_copy_async(exec, &dst, &src);
        self.then("deep_copy", Box::new(launch), None)
    }

    /// Adds a fill of every element of `dst` with `value` after this node, on the graph's instance
    /// (Kokkos' `deep_copy(exec, view, value)`).
    pub fn then_fill<D, T>(&self, dst: D, value: T) -> GraphNode<'g, S>
    where
        D: Send + Sync + 'static,
        T: Copy + Send + Sync + 'static,
        for<'a> &'a D: DeepCopyDst<T>,
    {
        let launch = move |exec: &S| deep_copy_async(exec, &dst, value);
        self.then("fill", Box::new(launch), None)
    }

    /// Adds a node that runs whatever `launches` submits to the instance it is given (on Cuda, a
    /// private recording instance, once, at instantiation: its launches are recorded and replayed
    /// by every submit; on the host spaces it runs at every submit). The closure should only
    /// launch work on that instance: host code in it runs once on Cuda and at each submit on the
    /// host spaces.
    pub fn then_capture<F>(&self, label: &str, launches: F) -> GraphNode<'g, S>
    where
        F: Fn(&S) -> Result<()> + Send + Sync + 'static,
    {
        self.then(label, Box::new(launches), None)
    }
}

/// A node that comes after all of `nodes` (Kokkos' `when_all`), to continue from with `then_*`.
/// An error if `nodes` is empty or its nodes belong to different graphs.
pub fn when_all<'g, S: ExecutionSpace>(nodes: &[GraphNode<'g, S>]) -> Result<GraphNode<'g, S>> {
    let invalid = |reason: &str| Error::InvalidArgument {
        operation: "when_all",
        reason: reason.into(),
    };
    let first = nodes.first().ok_or_else(|| invalid("no nodes to join"))?;
    if nodes
        .iter()
        .any(|n| !std::ptr::eq(n.builder, first.builder))
    {
        return Err(invalid("the nodes belong to different graphs"));
    }
    let mut deps: Vec<usize> = nodes.iter().flat_map(GraphNode::deps).collect();
    deps.sort_unstable();
    deps.dedup();
    let id = first.builder.add(NodeData {
        label: "when_all".into(),
        deps,
        launch: None,
        prepare: None,
    });
    Ok(GraphNode {
        builder: first.builder,
        id,
    })
}
