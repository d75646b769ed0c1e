// A kernel's `panic!` takes a literal message: the device keeps its text, not formatted values.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        if i > 5 {
            panic!("row {} is singular", i);
        }
        y[i] = 1.0;
    });
}
