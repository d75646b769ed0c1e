// Soundness (accessors escape): a View that the kernel never indexes is still not a value it may
// hand around; kernels use numbers as values.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

trait Peek {
    fn abs(&self) -> f64;
}

impl<T> Peek for T {
    fn abs(&self) -> f64 {
        0.0
    }
}

fn main() {
    let x = View::<f64, 1>::new("x", [10]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = x.abs();
    });
}
