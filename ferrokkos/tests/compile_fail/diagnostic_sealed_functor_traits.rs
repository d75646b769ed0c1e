// The functor traits are sealed: a launch lends a functor's body to its drivers only, which run each
// index once (what the accessors of a `kernel!` rely on). A struct of the user's that implements
// them is refused with a message that names the trait and says what to implement instead
// (`ForKernel` and `Functor(..)`, or `#[functor]`), not with the traits' hidden items.
use ferrokkos::traits::{Everywhere, HostOnly};
use ferrokkos::traits::{ForFunctor, ReduceFunctor, ScanFunctor, TeamForFunctor, TeamReduceFunctor};

struct Mine;

impl ForFunctor<usize> for Mine {
    type Reach = Everywhere;
}

impl ReduceFunctor<usize, f64> for Mine {
    type Reach = HostOnly;
}

impl ScanFunctor<usize, u64> for Mine {
    type Reach = HostOnly;
}

impl TeamForFunctor for Mine {
    type Reach = HostOnly;
}

impl TeamReduceFunctor<f64> for Mine {
    type Reach = HostOnly;
}

fn main() {}
