// Soundness (names resolved as rustc resolves them): as for range kernels, in a team kernel an
// UPPER_CASE name in a `match` arm that is not a `const` item binds the matched value, so the race
// rules cannot take it for a constant.
#![forbid(unsafe_code)]
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[allow(non_snake_case)]
fn main() {
    let d = View::<usize, 1>::new("d", [10]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let K = 0usize;
    let _kernel = kernel!(|team: &TeamMember| {
        let lr = team.league_rank();
        single(PerTeam(team), || match d[lr] {
            K => y[lr + K] = 1.0,
            _ => {}
        });
    });
}
