// `#[device]` fills in the device forms of `DeviceJoin` only; other traits' impls are rejected.
use ferrokkos::DeviceValue;

#[repr(C)]
#[derive(Clone, Copy, DeviceValue)]
struct Pair {
    a: f64,
    b: f64,
}

#[ferrokkos::device]
impl Default for Pair {
    fn default() -> Pair {
        Pair { a: 0.0, b: 0.0 }
    }
}

fn main() {}
