// A held state has only the draws as methods, which take the types they name; only a pool gives
// states.
use ferrokkos::prelude::*;
use ferrokkos::{RandomXorShift64Pool, kernel};

fn main() {
    let exec = Threads::default_instance().unwrap();
    let pool = RandomXorShift64Pool::new(&exec, 1).unwrap();
    let y = View::<f64, 1>::new("y", [64]).unwrap();
    let n = 10usize;
    let _wrong_type = kernel!(|i| {
        let mut rng = pool.get_state();
        y[i] = rng.urand_below(n) as f64;
    });
    let _no_such_draw = kernel!(|i| {
        let mut rng = pool.get_state();
        y[i] = rng.gaussian();
    });
    let not_a_pool = View::<f64, 1>::new("x", [64]).unwrap();
    let _not_a_pool = kernel!(|i| {
        let mut rng = not_a_pool.get_state();
        y[i] = rng.drand();
    });
}
