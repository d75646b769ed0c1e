// Race rule: writing a View at a constant index makes every iteration write the same element.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[0] = i as f64;
    });
}
