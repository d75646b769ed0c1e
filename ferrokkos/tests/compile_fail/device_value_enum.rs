// A DeviceValue enum is fieldless, has an integer `#[repr]` and a variant whose discriminant is 0
// (Views start zero-filled, so all-zero must be a value).
use ferrokkos::DeviceValue;

#[derive(Clone, Copy, DeviceValue)]
enum NoRepr {
    A,
    B,
}

#[repr(i32)]
#[derive(Clone, Copy, DeviceValue)]
enum NoZero {
    A = 1,
    B = 2,
}

#[repr(u8)]
#[derive(Clone, Copy, DeviceValue)]
enum WithData {
    A,
    B(u8),
}

fn main() {}
