// Trusted methods take ferrokkos's token: safe code cannot call them (here: a reducer's device
// description, a memory space's allocation and a functor's body), and the message names the
// token's type, `SealedMethod`.
use ferrokkos::prelude::*;
use ferrokkos::{MemorySpace, Reducer};
use ferrokkos::traits::{ForFunctor, ForKernel, Init};

fn run_body<K: ForFunctor<usize>>(k: &K) {
    let _ = k.with_body(&|| String::new(), |body| body.apply(0));
}

fn main() {
    let _ = Sum::<f64>::device_cxx();
    let _ = HostSpace.allocate("x", 8, Init::Zeroed);
    run_body(&|_: usize| {});
}
