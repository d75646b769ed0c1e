// `#[ferrokkos::device]`: a View parameter is reached only by indexing, `extent` and passing it on
// to another device function; used as a value it could escape the call (kept, copied, compared),
// and a `&mut` parameter likewise only through `*cell`, its fields or passing it on.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[ferrokkos::device]
fn keep(u: &View<f64, 1>, i: usize) -> f64 {
    let w = u;
    w[i]
}

#[ferrokkos::device]
fn alias(cell: &mut f64) {
    let c = cell;
    *c = 1.0;
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = 1.0;
    });
}
