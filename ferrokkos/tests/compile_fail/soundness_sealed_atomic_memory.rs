// `AtomicMemory` (what lets a kernel write a View other than one to one, every access atomic) is
// sealed: a plain View cannot be passed off as an atomic one by a type of the user's.
struct Mine;

impl ferrokkos::__private::AtomicMemory for Mine {}

fn main() {}
