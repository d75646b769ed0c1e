// Arrays have one dimension, and only arrays and Views are indexed.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let x = View::<[f64; 3], 1>::new("x", [10]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _tuple_index = kernel!(|i| {
        y[i] = x[i][(0, 1)];
    });
    let _scalar_index = kernel!(|i| {
        let s = x[i][0];
        y[i] = s[0];
    });
}
