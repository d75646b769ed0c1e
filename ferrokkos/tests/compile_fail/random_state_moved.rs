// A held state is mutable (its draws advance it) and gone once given back (the host's borrow and
// move errors).
use ferrokkos::prelude::*;
use ferrokkos::{RandomXorShift64Pool, kernel};

fn main() {
    let exec = Threads::default_instance().unwrap();
    let pool = RandomXorShift64Pool::new(&exec, 1).unwrap();
    let y = View::<f64, 1>::new("y", [64]).unwrap();
    let _not_mut = kernel!(|i| {
        let rng = pool.get_state();
        y[i] = rng.drand();
    });
    let _after_free = kernel!(|i| {
        let mut rng = pool.get_state();
        pool.free_state(rng);
        y[i] = rng.drand();
    });
}
