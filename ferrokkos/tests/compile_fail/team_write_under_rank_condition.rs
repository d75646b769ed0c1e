// A team's result written under `if team.team_rank() == 0` is one thread's write (each launch
// checks for one vector lane); under any other condition on the team rank, several threads of a
// team may write the same element, and the write stays refused.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let out = View::<u64, 1>::new("out", [8]).unwrap();
    let _kernel = kernel!(|team: &TeamMember| {
        let lr = team.league_rank();
        if team.team_rank() < 2 {
            out[lr] = 1;
        }
    });
}
