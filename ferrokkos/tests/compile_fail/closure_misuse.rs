// A device closure writes nothing outside itself, has no `unsafe`, ends with its value, and
// writes each parameter's type; at most three parameters.
use ferrokkos::prelude::*;
use ferrokkos::kernel;

fn main() {
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _writes_a_view = kernel!(|v: f64| -> f64 {
        y[0] = v;
        v
    });
    let _atomic = kernel!(|v: f64| -> f64 {
        y.atomic_add(0, v);
        v
    });
    let _no_value = kernel!(|v: f64| -> f64 {
        let _w = v;
    });
    let _untyped = kernel!(|v| -> f64 { v });
    let _four = kernel!(|a: f64, b: f64, c: f64, d: f64| -> f64 { a + b + c + d });
    let _unsafe = kernel!(|v: f64| -> f64 { unsafe { v } });
}
