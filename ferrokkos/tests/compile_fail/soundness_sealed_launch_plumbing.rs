// Soundness (traits unsafe code trusts): the launch plumbing is not public. `ParamWriter` wrote a
// kernel's parameters (a View descriptor over any pointer), `DeviceKernel` / `DeviceLaunch` gave a
// launch its unit and parameters.
use ferrokkos::kernel::{DeviceKernel, DeviceLaunch, ParamWriter};

fn main() {}
