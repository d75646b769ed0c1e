// Soundness (traits unsafe code trusts): Views trust a memory space's allocation and its claim
// that host code may dereference its memory, so `MemorySpace` is sealed: a space of the user's could
// claim HOST_ACCESSIBLE and hand out 8 bytes for a 512 KiB View.
use ferrokkos::{MemorySpace, MemoryStats};

#[derive(Debug, Clone, Copy, Default)]
struct Tiny;

impl MemorySpace for Tiny {
    const NAME: &'static str = "Tiny";
    const HOST_ACCESSIBLE: bool = true;
    type HostMirror = ferrokkos::HostSpace;
    type HostStaging = ferrokkos::HostSpace;
    fn stats(&self) -> ferrokkos::Result<MemoryStats> {
        Ok(MemoryStats::default())
    }
}

fn main() {}
