// A subview in a kernel is indexed, asked its extent or updated atomically, with an index as many
// coordinates long as the dimensions it keeps; its fixed indices mean the same value at every use
// (no `mut` local), and a range of a dimension excludes its end (`lo..hi`, as Kokkos' pairs).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let a = View::<f64, 2>::new("a", [4, 4]).unwrap();
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _kernel = kernel!(|i| {
        let mut j = i;
        let row = subview(&a, (j, ALL));
        j += 1;
        y[i] = row[0] + j as f64;
    });
    let _kernel = kernel!(|i| {
        let row = subview(&a, (i, 1..=3));
        y[i] = row[0];
    });
    let _kernel = kernel!(|i| {
        let row = subview(&a, (i, ALL));
        y[i] = row[(0, 1)];
    });
    let _kernel = kernel!(|i| {
        let row = subview(&a, (i, ALL));
        let copy = row;
        y[i] = copy[0];
    });
}
