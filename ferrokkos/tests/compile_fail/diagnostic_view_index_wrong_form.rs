// A kernel's View index has one integer per dimension: one integer for a rank-1 View, a tuple for
// ranks 2 to 8. An integer for a rank-2 View, or a float coordinate, is refused with the rule.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let a = View::<f64, 2>::new("a", [10, 10]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _rank = kernel!(|i| {
        y[i] = a[i];
    });
    let _float = kernel!(|i| {
        y[i] = a[(i, 0.5)];
    });
}
