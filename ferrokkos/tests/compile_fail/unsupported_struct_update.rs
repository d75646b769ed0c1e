// Struct update syntax (`..base`) is not in the kernel language: name every field.
use ferrokkos::prelude::*;
use ferrokkos::DeviceValue;

#[repr(C)]
#[derive(Clone, Copy, DeviceValue)]
struct P {
    x: f64,
    v: f64,
}

fn main() {
    let p = View::<P, 1>::new("p", [4]).unwrap();
    let _k = kernel!(|i| {
        let q = p[i];
        p[i] = P { x: 1.0, ..q };
    });
}
