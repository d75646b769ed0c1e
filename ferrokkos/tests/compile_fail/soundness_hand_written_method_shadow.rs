// Soundness (the generated code depends only on types): a kernel's typed shadow reaches a device
// method `v.scaled()` through a hidden shadow of the receiver's type. One written by hand (here an
// inherent `__fk_scaled`, and a trait's for `f64`) could emit code that depends on values the
// shadow reads at run time, so that two launches of one kernel type would need different code
// while the kernel cache keeps the first; only `#[device] impl` blocks prove their shadows
// (`DeviceMethod`, an unsafe trait), and a kernel refuses the others.
#![forbid(unsafe_code)]
use ferrokkos::__private::Expr;
use ferrokkos::prelude::*;
use ferrokkos::{DeviceValue, kernel};

static FACTOR: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(2);

#[repr(C)]
#[derive(Clone, Copy, DeviceValue)]
struct Pair {
    a: f64,
    b: f64,
}

impl Pair {
    fn scaled(self) -> f64 {
        self.a * 2.0
    }
    #[allow(non_snake_case)]
    fn __fk_scaled(self) -> Expr<f64> {
        let k = f64::from(FACTOR.load(std::sync::atomic::Ordering::Relaxed));
        ferrokkos::__private::shadow::lit(k)
    }
}

trait Twice {
    fn twice(self) -> f64;
    #[allow(non_snake_case)]
    fn __fk_twice(self) -> Expr<f64>;
}

impl Twice for f64 {
    fn twice(self) -> f64 {
        self * 2.0
    }
    fn __fk_twice(self) -> Expr<f64> {
        ferrokkos::__private::shadow::lit(3.0)
    }
}

fn main() {
    let p = View::<Pair, 1>::new("p", [4]).unwrap();
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _kernel = kernel!(|i| y[i] = p[i].scaled() + y[i].twice());
}
