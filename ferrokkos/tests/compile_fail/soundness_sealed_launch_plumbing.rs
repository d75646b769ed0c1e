// Soundness (traits unsafe code trusts): the launch plumbing is not public, not even in the macro
// support module. `ParamWriter` wrote a
// kernel's parameters (a View descriptor over any pointer), `DeviceKernel` / `DeviceLaunch` gave a
// launch its unit and parameters.
use ferrokkos::__private::{DeviceKernel, DeviceLaunch, ParamWriter};

fn main() {}
