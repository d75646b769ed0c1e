// A flat index `a[j * m + i]` over an MDRange is one to one where the launch proves each row's
// `i`s fit in `m`; an index that is no linear map of the iteration index (a product of its
// coordinates) gives no such proof and stays refused.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let a = View::<f64, 1>::new("a", [100]).unwrap();
    let _kernel = kernel!(|(j, i)| {
        a[(j * i) as usize] = 1.0;
    });
}
