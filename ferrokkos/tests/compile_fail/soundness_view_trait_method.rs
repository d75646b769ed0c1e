// Soundness (accessors escape): a method with an allowed name (`abs`), implemented by a trait of
// the user's for the accessor type, would receive the accessor of a written View.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

trait Abs {
    fn abs(&self) -> f64;
}

impl<T> Abs for T {
    fn abs(&self) -> f64 {
        0.0
    }
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = y.abs();
    });
}
