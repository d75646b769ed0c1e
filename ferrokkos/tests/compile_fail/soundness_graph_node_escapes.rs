// Soundness (graphs): a node handle borrows the graph under construction; it cannot leave
// `create_graph`'s closure (a node added after the graph was built would be lost, or reach a
// builder that no longer exists).
use ferrokkos::{ExecutionSpace, GraphNode, Result, Serial, create_graph};

fn main() -> Result<()> {
    let exec = Serial::default_instance()?;
    let mut kept: Option<GraphNode<'_, Serial>> = None;
    let _graph = create_graph(&exec, |root| {
        kept = Some(root);
        Ok(())
    })?;
    let _ = kept;
    Ok(())
}
