// A DeviceValue has no padding (all its bytes travel to the device): f64 then f32 leaves four
// bytes of padding at the end, which the derive's assertion reports.
use ferrokkos::DeviceValue;

#[repr(C)]
#[derive(Clone, Copy, DeviceValue)]
struct Sample {
    value: f64,
    weight: f32,
}

fn main() {}
