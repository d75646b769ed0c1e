// Soundness (traits the launch trusts): the host drivers run a kernel's body on the participants a
// `HostExecutionSpace` hands out (and every such space gets the host launch seams), so it is
// sealed: a space of the user's cannot run kernel bodies on threads of its choosing.
use ferrokkos::traits::HostKind;
use ferrokkos::{DeviceType, ExecutionSpace, HostSpace, LayoutRight, Result};
use ferrokkos::traits::{HostExecutionSpace};

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

impl HostExecutionSpace for Mine {
    fn run_participants(
        &self,
        _: &dyn Fn() -> String,
        f: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<()> {
        f(0, 1);
        Ok(())
    }
}

fn main() {}
