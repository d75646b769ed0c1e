// A ScatterView takes only its operation's updates in a kernel: nothing reads it (its copies hold
// parts of the result until `contribute`), a sum is not multiplied, and only Views of integers and
// floats are scattered.
use ferrokkos::prelude::*;
use ferrokkos::{Complex, ScatterView, kernel};

fn main() {
    let bins = View::<f64, 1>::new("bins", [8]).unwrap();
    let out = View::<f64, 1>::new("out", [8]).unwrap();
    let s = ScatterView::new(&bins).unwrap();
    let _read = kernel!(|i| {
        s[i % 8] += 1.0;
        out[i] = s[i % 8];
    });
    let _multiplied = kernel!(|i| {
        s[i % 8] *= 2.0;
    });
    let z = View::<Complex<f64>, 1>::new("z", [8]).unwrap();
    let _complex = ScatterView::new(&z);
}
