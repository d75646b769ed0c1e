//! Graphs on the host spaces: the nodes run in the order they were added (a topological order),
//! each launch as if submitted by itself, so every dependency holds and no two nodes overlap.

use super::{Serial, Threads};
use crate::error::Result;
use crate::graph::{GraphExecutable, GraphSpace, NodeSpec};
use crate::seal::Token;

/// An instantiated host graph: nothing to prepare; each submit runs the nodes in order.
struct InOrder;

impl<S> GraphExecutable<S> for InOrder {
    fn submit(&self, exec: &S, _label: &str, nodes: &[NodeSpec<'_, S>]) -> Result<()> {
        for node in nodes {
            if let Some(launch) = node.launch {
                launch(exec)?;
            }
        }
        Ok(())
    }
}

/// Both host spaces instantiate a graph as [`InOrder`].
macro_rules! in_order {
    ($($space:ty),*) => {$(
        impl GraphSpace for $space {
            fn instantiate_graph(
                &self,
                _label: &str,
                _nodes: &[NodeSpec<'_, Self>],
                _: Token,
            ) -> Result<Box<dyn GraphExecutable<Self>>> {
                Ok(Box::new(InOrder))
            }
        }
    )*};
}

in_order!(Serial, Threads);
