// Soundness (what unsafe code and the race rules trust cannot be forged from safe code): the proof
// that a type's `__fk_<name>` is the shadow `#[device] impl` generated (`DeviceMethod`, an unsafe
// trait), and the proofs that a team kernel's range and `single` scope are the runtime's
// (`NestedRangeKind`, `SingleScopeKind`, sealed) cannot be implemented by hand.
#![forbid(unsafe_code)]
use ferrokkos::__private::{Ch, DeviceMethod, NestedRangeKind, SingleScopeKind};
use ferrokkos::DeviceValue;

#[repr(C)]
#[derive(Clone, Copy, DeviceValue)]
struct Pair {
    a: f64,
    b: f64,
}

impl DeviceMethod<Ch<'d', Ch<'o', Ch<'t', ()>>>> for Pair {}

struct FakeRange;
impl NestedRangeKind<2> for FakeRange {}

struct FakeScope;
impl SingleScopeKind<true> for FakeScope {}

fn main() {}
