// A View written other than one to one is an atomic View, whose accesses are atomic; `*=` has no
// atomic form.
use ferrokkos::prelude::*;

fn main() {
    let h = View::<f64, 1>::new("h", [4]).unwrap();
    let a = h.atomic();
    let _k = kernel!(|i| {
        a[i % 4] *= 2.0;
    });
}
