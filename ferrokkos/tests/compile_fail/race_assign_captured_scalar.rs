// Race rule: captured scalars are read-only copies; assigning to one (`a = 2.0`) is an error.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let mut a = 1.0;
    let _kernel = kernel!(|i| {
        a = 2.0;
        y[i] = a;
    });
    a += 1.0;
    let _ = a;
}
