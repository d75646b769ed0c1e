// Soundness (what a device copy trusts): a copy on an instance gets the backend's own instance
// state through `ExecutionSpace::copy_instance`, which takes ferrokkos's token. A user's execution
// space can neither override it (to hand a copy some other state) nor call it.
use ferrokkos::traits::HostKind;
use ferrokkos::{DeviceType, ExecutionSpace, HostSpace, LayoutRight, Result, Serial};

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
    fn copy_instance(&self, _: ()) -> &dyn std::any::Any {
        self
    }
}

fn main() {
    let s = Serial::default_instance().unwrap();
    let _ = s.copy_instance(());
}
