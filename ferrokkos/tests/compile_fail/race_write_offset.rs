// Race rule: a kernel may write a View only at the iteration index; `y[i + 1]` is another
// iteration's element.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i + 1] = 1.0;
    });
}
