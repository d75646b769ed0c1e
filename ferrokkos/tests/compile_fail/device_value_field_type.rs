// Every field of a DeviceValue is one itself: a `String` (or any type that is not a number,
// `bool` or a derived struct) is an error at the field's type.
use ferrokkos::DeviceValue;

#[repr(C)]
#[derive(Clone, Copy, DeviceValue)]
struct Named {
    id: u64,
    tag: &'static str,
}

fn main() {}
