// Soundness (bounds proved at launch): the macro supplies the closure's parameter `i` and the
// caller the body, whose `i` is the caller's variable (hygiene). The text reads `x[i]` at the
// iteration index, which a launch over 0..10 would prove in bounds of `x` and read unchecked; the
// binding is 1_000_000, far outside `x`.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

macro_rules! reduce_each {
    ($body:expr) => {
        kernel!(|i, acc: &mut f64| *acc += $body)
    };
}

fn main() {
    let x = View::<f64, 1>::new("x", [10]).unwrap();
    let i = 1_000_000usize;
    let _kernel = reduce_each!(x[i]);
}
