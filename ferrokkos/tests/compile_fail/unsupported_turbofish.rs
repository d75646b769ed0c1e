// Generic arguments on a call (`f::<T>()`) are not in the kernel language.
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _k = kernel!(|i| {
        y[i] = (i as f64).max::<>(1.0);
    });
}
