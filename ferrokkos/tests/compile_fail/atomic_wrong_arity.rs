// Each atomic takes the View's index first and then its values: `atomic_load` reads one element
// (`h.atomic_load(k)`), `atomic_compare_exchange` takes the expected and the new value.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let h = View::<i32, 1>::new("h", [4]).unwrap();
    let y = View::<i32, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = h.atomic_load(i % 4, 1);
    });
    let _kernel = kernel!(|i| {
        y[i] = h.atomic_compare_exchange(i % 4, 1);
    });
}
