// A Bitset in a kernel is reached only by its kernel methods (`set`, `reset`, `test`, `size`),
// with `usize` bit indices: indexing it, a host-only method, or another index type do not compile.
use ferrokkos::prelude::*;
use ferrokkos::{Bitset, kernel};

fn main() {
    let bits = Bitset::<HostSpace>::new("bits", 64).unwrap();
    let y = View::<u32, 1>::new("y", [64]).unwrap();
    let _indexed = kernel!(|i| y[i] = bits[i]);
    let _host_only = kernel!(|i| {
        if bits.count() > i {
            y[i] = 1;
        }
    });
    let _index_type = kernel!(|i| {
        if bits.set(i as u32) {
            y[i] = 1;
        }
    });
}
