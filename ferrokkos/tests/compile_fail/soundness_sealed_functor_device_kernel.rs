// Soundness (traits unsafe code trusts): a functor of the user's cannot give a launch a device
// kernel (for example a real kernel of another index type, whose parameters the launch would then
// write wrongly): `device_kernel` takes a type no other crate can name, so it cannot be overridden.
use ferrokkos::traits::{Everywhere, ForFunctor};
use ferrokkos::Result;

struct Mine;

impl ForFunctor<usize> for Mine {
    type Body = fn(usize);
    type Reach = Everywhere;
    fn with_body<R>(&self, _: &dyn Fn() -> String, run: impl FnOnce(&Self::Body) -> R) -> Result<R> {
        Ok(run(&((|_| {}) as fn(usize))))
    }
    fn device_kernel(&self, _: ferrokkos::seal::Token) -> Option<&dyn std::any::Any> {
        None
    }
}

fn main() {}
