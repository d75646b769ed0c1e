// Soundness (device functions): a kernel calls only `#[ferrokkos::device]` functions. A type named
// like the one `#[device]` generates, written by hand, is not one: its host and device forms could
// differ, or its device form could emit anything.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[allow(non_camel_case_types)]
enum __fk_device_twice {}

impl __fk_device_twice {
    fn host(x: f64) -> f64 {
        2.0 * x
    }
    fn shadow(x: ferrokkos::__private::Expr<f64>) -> ferrokkos::__private::Expr<f64> {
        x
    }
}

fn twice(x: f64) -> f64 {
    2.0 * x
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _ = twice(1.0);
    let _kernel = kernel!(|i| {
        y[i] = twice(y[i]);
    });
}
