// In a `match`, a name bound in one case of `|` would be unbound in the other on the device.
use ferrokkos::prelude::*;

fn main() {
    let y = View::<i64, 1>::new("y", [4]).unwrap();
    let _k = kernel!(|i| {
        y[i] = match i as i64 {
            0 | n => n,
        };
    });
}
