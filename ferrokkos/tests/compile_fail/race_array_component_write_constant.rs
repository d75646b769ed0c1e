// Race rule: a component of a View's array element is part of that element, so writing
// `y[0][k]` writes `y[0]` from every iteration (the array index does not make it one to one).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<[f64; 3], 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[0][i % 3] = i as f64;
    });
}
