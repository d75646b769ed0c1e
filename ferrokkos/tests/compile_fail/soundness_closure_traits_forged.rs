// The traits a launch trusts about a device closure are sealed: a type of one's own cannot pose
// as a closure (`DeviceFn`), as a closure's captures (their C++ struct and bytes) or arguments.
use ferrokkos::kernel::{ClosureArgs, ClosureCaptures, DeviceFn};

#[derive(Clone, Copy)]
struct Fake;

impl ClosureCaptures for Fake {
    type Shadow = ();
    fn fields(_: ferrokkos::__private::Expr<ferrokkos::kernel::ClosureCxx>) {}
    fn cxx_struct() -> String {
        "struct Lie { double x; }".into()
    }
}

impl ClosureArgs for Fake {
    type Shadow = ();
}

impl DeviceFn<(f64,)> for Fake {
    type Output = bool;
}

fn main() {}
