// Soundness (team race rules on bindings): the macro supplies the nested range's parameter `r` and
// the caller the index, whose `r` is the caller's constant (hygiene). The text says "the range
// index", the binding is a constant: every lane of every thread would write y[(lr, 3)].
use ferrokkos::kernel;
use ferrokkos::prelude::*;

macro_rules! each_row {
    ($y:ident, $index:expr) => {
        kernel!(|team: &TeamMember| {
            let lr = team.league_rank();
            TeamVectorRange::new(team, 0, 8usize).parallel_for(|r| $y[(lr, $index)] = 1.0);
        })
    };
}

#[allow(non_upper_case_globals)]
const r: usize = 3;

fn main() {
    let y = View::<f64, 2>::new("y", [4, 8]).unwrap();
    let _kernel = each_row!(y, r);
}
