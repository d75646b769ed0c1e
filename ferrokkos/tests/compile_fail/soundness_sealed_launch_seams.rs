// Soundness (traits the launch trusts): a launch seam receives the kernel and runs it on the
// space's threads, and a host execution space hands participants out to the host drivers, so both
// are sealed. A space of the user's may implement `ExecutionSpace`, but cannot become launchable.
use ferrokkos::traits::{ForFunctor, LaunchRange, ReduceFunctor, ScanFunctor};
use ferrokkos::{Reducer};
use ferrokkos::traits::{ReduceTarget};
use ferrokkos::traits::HostKind;
use ferrokkos::{DeviceType, ExecutionSpace, HostSpace, LayoutRight};
use ferrokkos::traits::{IndexType};
use ferrokkos::{RangePolicy, Result};

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

impl LaunchRange for Mine {
    fn launch_range_for<I: IndexType, K: ForFunctor<I>>(
        _: RangePolicy<Self, I>,
        _: &str,
        _: K,
    ) -> Result<()> {
        Ok(())
    }
    fn launch_range_reduce<I, K, T>(_: RangePolicy<Self, I>, _: &str, _: K, _: T) -> Result<T::Output>
    where
        I: IndexType,
        T: ReduceTarget,
        K: ReduceFunctor<I, <T::Reducer as Reducer>::Value>,
    {
        unimplemented!()
    }
    fn launch_range_scan<I, K, Rd>(_: RangePolicy<Self, I>, _: &str, _: K, _: Rd) -> Result<Rd::Value>
    where
        I: IndexType,
        Rd: Reducer,
        K: ScanFunctor<I, Rd::Value>,
    {
        unimplemented!()
    }
}

fn main() {}
