// A device closure captures values only: a View is read in a kernel, which passes the element.
use ferrokkos::prelude::*;
use ferrokkos::kernel;

fn main() {
    let table = View::<f64, 1>::new("table", [4]).unwrap();
    let _lookup = kernel!(|i: usize| -> f64 { table[i] });
}
