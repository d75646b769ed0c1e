// Soundness (graphs): a space's graph implementation records launches and replays them, and a
// graph's race and lifetime guarantees rest on it; a graph policy re-aims a policy at the instance
// a node runs on. Both traits are sealed: a type of the user's cannot implement them.
use ferrokkos::traits::HostKind;
use ferrokkos::{DeviceType, ExecutionSpace, HostSpace, LayoutRight};
use ferrokkos::traits::{GraphPolicy, GraphSpace};
use ferrokkos::Result;

#[derive(Debug, Clone)]
struct Mine;

impl ExecutionSpace for Mine {
    type MemorySpace = HostSpace;
    type SharedSpace = HostSpace;
    type SharedHostPinnedSpace = HostSpace;
    type ArrayLayout = LayoutRight;
    const NAME: &'static str = "Mine";
    const DEVICE_TYPE: DeviceType = DeviceType::Serial;
    type Kind = HostKind;
    fn default_instance() -> Result<Self> {
        Ok(Mine)
    }
    fn fence(&self, _: &str) -> Result<()> {
        Ok(())
    }
    fn concurrency(&self) -> usize {
        1
    }
    fn instance_id(&self) -> u32 {
        1
    }
    fn partition(&self, _: &[f64]) -> Result<Vec<Self>> {
        Ok(vec![Mine])
    }
}

impl GraphSpace for Mine {}

#[derive(Clone)]
struct MyPolicy;

impl GraphPolicy<Mine> for MyPolicy {}

fn main() {}
