// A pool's states are taken as `let mut rng = pool.get_state();`, one at a time per pool, given
// back as a statement with a state of that pool, used only through their draws, and not in team
// kernels; a pool is not a value.
use ferrokkos::prelude::*;
use ferrokkos::{RandomXorShift64Pool, kernel};

fn main() {
    let exec = Threads::default_instance().unwrap();
    let pool = RandomXorShift64Pool::new(&exec, 1).unwrap();
    let other = RandomXorShift64Pool::new(&exec, 2).unwrap();
    let y = View::<f64, 1>::new("y", [64]).unwrap();
    let _twice = kernel!(|i| {
        let mut a = pool.get_state();
        let mut b = pool.get_state();
        y[i] = a.drand() + b.drand();
    });
    let _in_an_expression = kernel!(|i| {
        y[i] = pool.get_state().drand();
    });
    let _give_back_to_another_pool = kernel!(|i| {
        let mut a = pool.get_state();
        y[i] = a.drand();
        other.free_state(a);
    });
    let _as_a_value = kernel!(|i| {
        let mut a = pool.get_state();
        let copy = a;
        y[i] = 1.0;
    });
    let _pool_as_a_value = kernel!(|i| {
        let p = pool;
        y[i] = 1.0;
    });
    let league = TeamPolicy::new(&exec, 4, 1).unwrap();
    let _ = league;
    let _team = kernel!(|team: &TeamMember| {
        let mut rng = pool.get_state();
        y[team.league_rank()] = rng.drand();
    });
}
