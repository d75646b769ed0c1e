// A range subview's accesses are its View's at the offset coordinate: `row[1]` of
// `subview(&a, (0, 1..4))` is `a[(0, 2)]`, and `col[i % 3]` of `subview(&a, (1..4, 2))` is
// `a[(i % 3 + 1, 2)]`; several iterations write each, so both stay refused.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let a = View::<f64, 2>::new("a", [4, 4]).unwrap();
    let _kernel = kernel!(|i| {
        let row = subview(&a, (0, 1..4));
        row[1] = i as f64;
    });
    let _kernel = kernel!(|i| {
        let col = subview(&a, (1..4, 2));
        col[i % 3] = 1.0;
    });
}
