// Only a UniqueToken has ids: `acquire()` on anything else is the bound's error.
use ferrokkos::prelude::*;
use ferrokkos::kernel;

fn main() {
    let work = View::<f64, 2>::new("work", [64, 64]).unwrap();
    let not_a_token = View::<f64, 1>::new("v", [4]).unwrap();
    let _not_a_token = kernel!(|_i| {
        let id = not_a_token.acquire();
        work[(id, 0)] = 1.0;
    });
}
