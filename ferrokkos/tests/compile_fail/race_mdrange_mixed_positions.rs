// Race rule (MDRange): every write of a View must put the index coordinates at the same positions;
// writing both `a[(i, j)]` and `a[(j, i)]` lets iteration (i, j) write iteration (j, i)'s element.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let a = View::<f64, 2>::new("a", [4, 4]).unwrap();
    let _kernel = kernel!(|(i, j)| {
        a[(i, j)] = 1.0;
        a[(j, i)] = 2.0;
    });
}
