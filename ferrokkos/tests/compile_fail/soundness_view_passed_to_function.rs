// Soundness (accessors escape): a kernel may not hand a captured View to a function. The function
// would get the accessor and could write any element (a race) or keep it after the launch.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn helper(_x: &View<f64, 1>) -> f64 {
    0.0
}

fn main() {
    let x = View::<f64, 1>::new("x", [10]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = x[i] + helper(x);
    });
}
