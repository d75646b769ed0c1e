// Soundness (race rules on bindings): the macro supplies the closure's parameter `i` and the
// caller the body, whose `i` is the caller's variable (hygiene). The text says "the iteration
// index", the binding is a constant: every iteration would write y[5].
use ferrokkos::kernel;
use ferrokkos::prelude::*;

macro_rules! for_each {
    ($body:expr) => {
        kernel!(|i| $body)
    };
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let i = 5usize;
    let _kernel = for_each!(y[i] = 1.0);
}
