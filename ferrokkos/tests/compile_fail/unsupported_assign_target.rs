// Only locals, View elements, fields and array elements are assigned in a kernel.
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _k = kernel!(|i| {
        (y[i]).max(0.0) = 1.0;
    });
}
