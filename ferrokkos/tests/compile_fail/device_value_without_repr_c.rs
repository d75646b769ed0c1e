// A DeviceValue is `#[repr(C)]`: Rust may reorder the fields of other structs, and the device
// must see the same layout; packed and aligned layouts are rejected too.
use ferrokkos::DeviceValue;

#[derive(Clone, Copy, DeviceValue)]
struct Plain {
    a: f64,
    b: f64,
}

#[repr(C, packed)]
#[derive(Clone, Copy, DeviceValue)]
struct Packed {
    a: f64,
    b: f64,
}

fn main() {}
