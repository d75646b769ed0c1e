// The `_ord` atomics take the memory order and scope as constants the kernel names
// (`MemoryOrder::Acquire`, `MemoryScope::Device`), so that the macro sees them; an order a load or
// a store cannot have is rejected, and so is a missing scope.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let h = View::<i32, 1>::new("h", [4]).unwrap();
    let y = View::<i32, 1>::new("y", [10]).unwrap();
    let order = MemoryOrder::Acquire;
    let _kernel = kernel!(|i| {
        y[i] = h.atomic_fetch_add_ord(i % 4, 1, order, MemoryScope::Device);
    });
    let _kernel = kernel!(|i| {
        y[i] = h.atomic_load_ord(i % 4, MemoryOrder::Release, MemoryScope::Device);
        h.atomic_store_ord(i % 4, 1, MemoryOrder::AcqRel, MemoryScope::System);
    });
    let _kernel = kernel!(|i| {
        h.atomic_inc_ord(i % 4, MemoryOrder::SeqCst, 2);
        y[i] = h.atomic_fetch_max_ord(i % 4, 1, MemoryOrder::SeqCst);
    });
}
