// A `for` loop binds a name or `_`, not a tuple.
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _k = kernel!(|i| {
        for (a, b) in 0..3 {
            y[i] += 1.0;
        }
    });
}
