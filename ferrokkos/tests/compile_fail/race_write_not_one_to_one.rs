// Race rule: a written View's index must follow the iteration index one to one; `y[i / 2]` gives
// iterations 0 and 1 the same element.
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i / 2] = 1.0;
    });
}
