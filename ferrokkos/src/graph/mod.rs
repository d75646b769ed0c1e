//! Graphs (Kokkos' `Kokkos::Experimental::Graph`): kernels, reductions and copies with their
//! dependencies, described once, instantiated once and submitted many times.
//!
//! [`create_graph`] hands its closure the graph's root; each `then_*` adds a node after the node
//! it is called on, and [`when_all`] joins nodes. [`Graph::capture`] makes a graph of whatever a
//! closure launches on the instance it is given. [`Graph::instantiate`] prepares the graph
//! (explicitly, or at the first submit) and [`Graph::submit`] runs it on its instance.
//!
//! Where the work runs is the space's business ([`GraphSpace`], sealed): on Cuda a graph is a CUDA
//! graph (`backend/gpu/graph.rs`: each node's launches are recorded on a private stream and
//! become one node of the CUDA graph, and one `cuGraphLaunch` submits them all); on the host
//! spaces the nodes run in the order they were added, which respects every dependency.
//!
//! Invariants: a node only depends on nodes added before it (a `then_*` on an existing node), so
//! the order of addition is a topological order and a graph has no cycle. The graph holds what its
//! nodes launch (policies, kernels and their captured Views, copy targets); a recorded CUDA graph
//! holds the allocations its work uses as well, so no address in it outlives its memory. Nodes
//! that no chain of dependencies orders must not touch one allocation where either writes it:
//! on Cuda, `instantiate` checks this on the recorded accesses ([`crate::Error::GraphRace`]).

mod builder;
mod create;
mod space;

pub use builder::{GraphNode, when_all};
pub use create::{Graph, create_graph};
pub(crate) use space::{GraphExecutable, NodeSpec};
pub use space::{GraphPolicy, GraphSpace};
