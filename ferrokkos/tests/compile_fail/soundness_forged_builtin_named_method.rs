// Soundness: the traits through which a kernel's `v.norm()` reaches a `#[device]` method named
// like a built-in (`shadow::builtin_named`) decide the device code of that call, so they are
// `unsafe` and only `#[device]` implements them; a safe hand-written impl is refused. The
// atomic-parameter conversion (`IntoAtomicParam`) is sealed.
#![forbid(unsafe_code)]
use ferrokkos::DeviceValue;
use ferrokkos::__private::shadow::builtin_named::__FkNorm;
use ferrokkos::__private::shadow::{AtomicParam, IntoAtomicParam};
use ferrokkos::__private::Expr;

#[repr(C)]
#[derive(Clone, Copy, DeviceValue)]
struct V3 {
    x: f64,
}

impl __FkNorm<V3> for Expr<V3> {
    type Output = Expr<f64>;
    fn norm(self) -> Expr<f64> {
        unimplemented!()
    }
}

#[derive(Clone, Copy)]
struct Forged;
impl IntoAtomicParam<f64, 1, ferrokkos::LayoutRight> for Forged {
    fn into_atomic(self) -> AtomicParam<f64, 1, ferrokkos::LayoutRight> {
        unimplemented!()
    }
}

fn main() {}
