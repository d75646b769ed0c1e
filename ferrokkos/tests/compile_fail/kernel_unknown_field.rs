// A field a struct does not have is rustc's error at the field's name in the kernel.
use ferrokkos::prelude::*;
use ferrokkos::{DeviceValue, kernel};

#[repr(C)]
#[derive(Clone, Copy, DeviceValue)]
struct Point {
    x: f64,
    y: f64,
}

fn main() {
    let p = View::<Point, 1>::new("p", [4]).unwrap();
    let out = View::<f64, 1>::new("out", [4]).unwrap();
    let _kernel = kernel!(|i| out[i] = p[i].z);
}
