// Race rules: `&mut y[i]` passes the element by reference on the GPU and by copy-in, copy-out on
// the host; the two agree only if no other argument of the call reaches `y`.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[ferrokkos::device]
fn relax(cell: &mut f64, toward: f64) {
    *cell += 0.25 * (toward - *cell);
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        relax(&mut y[i], y[i] * 2.0);
    });
}
