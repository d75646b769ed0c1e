// A View written other than one to one is an atomic View, whose accesses are atomic: each compound
// assignment is the atomic of its operator (`*=` is `atomic_mul`), which exists only for the types
// that have it (`<<=` on a float has none).
use ferrokkos::prelude::*;

fn main() {
    let h = View::<f64, 1>::new("h", [4]).unwrap();
    let a = h.atomic();
    let _k = kernel!(|i| {
        a[i % 4] *= 2.0;
        a[i % 4] <<= 1u32;
    });
}
