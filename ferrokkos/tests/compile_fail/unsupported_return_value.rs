// A kernel's iteration returns nothing: a reduction's contribution goes to its accumulator.
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _k = kernel!(|i, acc: &mut f64| {
        if i == 0 {
            return 1.0;
        }
        *acc += y[i];
    });
}
