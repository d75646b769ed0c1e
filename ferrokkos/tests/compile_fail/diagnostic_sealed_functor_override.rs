// What a launch uses of a functor (its body, the overlap check, the device translation) is not a
// member of the public functor traits: a user's implementation that writes those methods is told
// so, and that the trait is sealed, instead of a mismatch of parameter counts.
use ferrokkos::{Result};
use ferrokkos::traits::{Everywhere, ForFunctor};

struct Mine;

impl ForFunctor<usize> for Mine {
    type Reach = Everywhere;
    fn with_body<R>(&self, _: &dyn Fn() -> String, run: impl FnOnce(&fn(usize)) -> R) -> Result<R> {
        Ok(run(&((|_| {}) as fn(usize))))
    }
    fn check_overlaps(&self, _: &[(i128, i128)], _: u32, _: &dyn Fn() -> String) -> Result<()> {
        Ok(())
    }
}

fn main() {}
