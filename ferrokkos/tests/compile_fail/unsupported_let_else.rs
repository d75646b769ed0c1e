// `let ... else` is not in the kernel language (patterns do not fail in a kernel).
use ferrokkos::prelude::*;

fn main() {
    let y = View::<i64, 1>::new("y", [4]).unwrap();
    let _k = kernel!(|i| {
        let 3 = i as i64 else { return };
        y[i] = 1;
    });
}
