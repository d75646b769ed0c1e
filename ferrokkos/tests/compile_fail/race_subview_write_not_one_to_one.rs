// A subview's accesses are its View's: `row[i % 3]` of `subview(&a, (0, ALL))` is `a[(0, i % 3)]`,
// which several iterations write, and stays refused (the message names the View's access).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let a = View::<f64, 2>::new("a", [4, 4]).unwrap();
    let _kernel = kernel!(|i| {
        let row = subview(&a, (0, ALL));
        row[i % 3] = 1.0;
    });
}
