// Items (functions, structs, constants) are declared outside the kernel; a kernel body holds
// statements only.
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _k = kernel!(|i| {
        const TWO: f64 = 2.0;
        y[i] = TWO;
    });
}
