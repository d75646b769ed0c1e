//! The seams between graphs and the spaces: [`GraphSpace`] (how a space instantiates and runs a
//! graph) and [`GraphPolicy`] (a policy re-aimed at the instance a node runs on). Both are sealed:
//! a space's implementation records and replays launches, which the race and lifetime guarantees
//! of graphs rely on.

use crate::error::Result;
use crate::policy::{IndexTuple, IndexType, MDRangePolicy, RangePolicy, TeamPolicy};
use crate::seal::{Sealed, SealedGraphPolicy, SealedGraphSpace, Token};
use crate::space::ExecutionSpace;

/// What one node launches on the instance it is given (its policies re-aimed at that instance).
pub(crate) type Launch<S> = dyn Fn(&S) -> Result<()> + Send + Sync;

/// Adds what one node compiles to a preparation (see [`crate::Prepare`]).
pub(crate) type PrepareFn = dyn Fn(&mut crate::dispatch::Prepare) -> Result<()> + Send + Sync;

/// One node as a space sees it when it instantiates a graph.
// The host spaces run the launches in order; the Cuda backend also reads the labels, dependencies
// and preparations when it records a CUDA graph.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub struct NodeSpec<'a, S> {
    /// The node's label (for errors and tools).
    pub(crate) label: &'a str,
    /// The nodes it comes after (their positions, all smaller than its own).
    pub(crate) deps: &'a [usize],
    /// What it launches; `None` for a join ([`crate::when_all`]).
    pub(crate) launch: Option<&'a Launch<S>>,
    /// Compiles its kernels ahead of the recording, where the space compiles any.
    pub(crate) prepare: Option<&'a PrepareFn>,
}

/// An instantiated graph of a space.
pub trait GraphExecutable<S>: Send + Sync {
    /// Runs the graph once on `exec`; `nodes` are the graph's nodes.
    fn submit(&self, exec: &S, label: &str, nodes: &[NodeSpec<'_, S>]) -> Result<()>;
}

/// An execution space that runs [`crate::Graph`]s (sealed): Serial and Threads run the nodes in
/// order, Cuda through a CUDA graph.
pub trait GraphSpace: ExecutionSpace + SealedGraphSpace {
    /// Instantiates a graph of `nodes` (in a topological order) for this instance.
    #[doc(hidden)]
    fn instantiate_graph(
        &self,
        label: &str,
        nodes: &[NodeSpec<'_, Self>],
        _: Token,
    ) -> Result<Box<dyn GraphExecutable<Self>>>;
}

/// A policy a graph node can run with (sealed): the node's launch re-aims it at the instance the
/// graph runs on (on Cuda, a private recording instance).
pub trait GraphPolicy<S: ExecutionSpace>:
    Clone + Send + Sync + 'static + SealedGraphPolicy
{
    /// The same policy on `exec`.
    #[doc(hidden)]
    fn on_instance(&self, exec: &S, _: Token) -> Self;
}

impl<S: ExecutionSpace, I: IndexType> Sealed for RangePolicy<S, I> {}
impl<S: ExecutionSpace, I: IndexType> GraphPolicy<S> for RangePolicy<S, I>
where
    RangePolicy<S, I>: Send + Sync,
{
    fn on_instance(&self, exec: &S, _: Token) -> Self {
        self.clone().with_space(exec)
    }
}

impl<S: ExecutionSpace, const R: usize, I: IndexType> Sealed for MDRangePolicy<S, R, I> where
    [I; R]: IndexTuple<I>
{
}
impl<S: ExecutionSpace, const R: usize, I: IndexType> GraphPolicy<S> for MDRangePolicy<S, R, I>
where
    [I; R]: IndexTuple<I>,
    MDRangePolicy<S, R, I>: Send + Sync,
{
    fn on_instance(&self, exec: &S, _: Token) -> Self {
        self.clone().with_space(exec)
    }
}

impl<S: ExecutionSpace> Sealed for TeamPolicy<S> {}
impl<S: ExecutionSpace> GraphPolicy<S> for TeamPolicy<S>
where
    TeamPolicy<S>: Send + Sync,
{
    fn on_instance(&self, exec: &S, _: Token) -> Self {
        self.clone().with_space(exec)
    }
}
