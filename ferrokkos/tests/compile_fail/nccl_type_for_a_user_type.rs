// `NcclType` is sealed: a user type cannot claim an NCCL data type (NCCL would reduce its bytes
// as that type).
use ferrokkos::nccl::NcclType;

#[derive(Clone, Copy, Default, Debug, PartialEq)]
#[repr(C)]
struct Pair(f32, f32);

impl NcclType for Pair {}

fn main() {}
