// A loop around a nested range whose bounds move with the loop variable hands one index to
// different threads in different iterations, which no barrier separates: the write of the
// range's own element stays refused (the loop variable distinguishes concurrent agents).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<u64, 2>::new("y", [8, 64]).unwrap();
    let n = 32usize;
    let _kernel = kernel!(|team: &TeamMember| {
        let lr = team.league_rank();
        for k in 0..4usize {
            TeamVectorRange::new(team, k, n + k).parallel_for(|i| {
                y[(lr, i)] += 1;
            });
        }
    });
}
