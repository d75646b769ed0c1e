// Soundness (deep_copy's device rows): `deep_copy_async` hands the backend's copies an instance
// and the copies of its memory space; the description is the crate's own (`CopyExec`, unnameable),
// and a memory space's copies are reached only with the crate's `Token`, so safe code can neither
// forge the pair nor call a space's copies with raw sides.
use ferrokkos::{HostSpace, MemorySpace};

fn main() {
    let _ = HostSpace.device_copy(ferrokkos::seal::Token::new());
    let _ = ferrokkos::space::CopyExec {
        instance: &0u8,
        copies: None,
    };
}
