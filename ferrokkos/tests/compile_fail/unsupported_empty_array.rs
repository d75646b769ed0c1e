// An empty local array has no element type to infer on the device.
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _k = kernel!(|i| {
        let w: [f64; 0] = [];
        y[i] = w.len() as f64;
    });
}
