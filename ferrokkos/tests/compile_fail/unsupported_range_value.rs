// A range is a `for` loop's bounds only, not a value.
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _k = kernel!(|i| {
        let r = 0..i;
        y[i] = 1.0;
    });
}
