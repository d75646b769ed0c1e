// Soundness (traits unsafe code trusts): a subview offsets its pointer by what its arguments
// select, so `SubviewArg` is sealed.
use ferrokkos::traits::SubviewArg;

struct Everything;

impl SubviewArg for Everything {}

fn main() {}
