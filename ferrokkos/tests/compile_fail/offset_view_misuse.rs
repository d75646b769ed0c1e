// An OffsetView in a kernel is indexed, written at the iteration index and asked its shape; it has
// no atomics (update its View, `o.view()`, through `.atomic()`), it is not passed whole to a
// `#[device]` function, and it is written one to one like any View.
use ferrokkos::prelude::*;
use ferrokkos::{OffsetView, kernel};

#[ferrokkos::device]
fn first(u: &View<f64, 1>) -> f64 {
    u[0]
}

fn main() {
    let o = OffsetView::<f64, 1>::new("o", [-1..=8]).unwrap();
    let idx = View::<i64, 1>::new("idx", [10]).unwrap();
    let _atomic = kernel!(|i: i64| o.atomic_add(i, 1.0));
    let _passed = kernel!(|i: i64| idx[(i + 1) as usize] = first(&o) as i64);
    let _gather = kernel!(|i: usize| o[idx[i]] = 1.0);
}
