// A kernel's `panic!` takes at most eight arguments (the device's fault record keeps eight
// values), each a number or `bool`; `abort("..")` calls a function that never returns (a
// `fn(&str) -> !`, as `ferrokkos::abort`), so a kernel's abort ends its iteration on every space.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

mod mine {
    pub fn abort(message: &str) {
        eprintln!("{message}");
    }
}

#[derive(Clone, Copy, ferrokkos::DeviceValue)]
#[repr(C)]
struct P {
    x: f64,
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let p = P { x: 1.0 };
    let _too_many = kernel!(|i| {
        if i > 5 {
            panic!("{} {} {} {} {} {} {} {} {}", i, i, i, i, i, i, i, i, i);
        }
        y[i] = 1.0;
    });
    let _struct_argument = kernel!(|i| {
        if i > 5 {
            panic!("{}", p);
        }
        y[i] = 1.0;
    });
    let _returning_abort = kernel!(|i| {
        if i > 5 {
            mine::abort("stop");
        }
        y[i] = 1.0;
    });
}
