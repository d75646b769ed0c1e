// Race rule: a captured struct is a read-only copy, like a captured number: assigning one of its
// fields is an error that says so (a kernel writes Views, or locals).
use ferrokkos::prelude::*;
use ferrokkos::{DeviceValue, kernel};

#[repr(C)]
#[derive(Clone, Copy, DeviceValue)]
struct Params {
    dt: f64,
    steps: f64,
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let p = Params { dt: 0.1, steps: 4.0 };
    // A local copy may be changed.
    let _fine = kernel!(|i| {
        let mut q = p;
        q.dt = 0.2;
        y[i] = q.dt * q.steps;
    });
    let _kernel = kernel!(|i| {
        p.dt = 0.2;
        y[i] = p.dt;
    });
}
