//! Graphs on Cuda: the runtime's (`backend/gpu/graph.rs`) over CUDA graphs.

use super::instance::Cuda;
use crate::backend::gpu::graph;
use crate::error::Result;
use crate::graph::{GraphExecutable, GraphSpace, NodeSpec};
use crate::seal::Token;

impl GraphSpace for Cuda {
    fn instantiate_graph(
        &self,
        label: &str,
        nodes: &[NodeSpec<'_, Self>],
        _: Token,
    ) -> Result<Box<dyn GraphExecutable<Self>>> {
        graph::instantiate(self, label, nodes)
    }
}
