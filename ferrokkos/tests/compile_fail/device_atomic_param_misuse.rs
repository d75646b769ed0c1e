// An atomic View parameter takes only atomic Views, and an atomic View goes only to atomic View
// parameters (never to a View a function reads).
use ferrokkos::prelude::*;
use ferrokkos::{AtomicView, kernel};

#[device]
fn deposit(h: &AtomicView<f64, 1>, k: usize) {
    h[k] += 1.0;
}

#[device]
fn peek(u: &View<f64, 1>, k: usize) -> f64 {
    u[k]
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let z = View::<f64, 1>::new("z", [10]).unwrap();
    let _plain_to_atomic = kernel!(|i| {
        deposit(&y, i);
    });
    let h = z.atomic();
    let w = View::<f64, 1>::new("w", [10]).unwrap();
    let _atomic_to_read = kernel!(|i| {
        w[i] = peek(&h, i);
    });
}
