// Soundness (the generated code depends only on types): a custom reduction's device forms are the
// shadows `#[device] impl DeviceJoin for T` generates. Written by hand they could read values at
// run time; the trait that carries them is `unsafe`, so safe code cannot implement it.
#![forbid(unsafe_code)]
use ferrokkos::__private::{Expr, JoinForms};
use ferrokkos::{DeviceJoin, DeviceValue};

#[repr(C)]
#[derive(Clone, Copy, DeviceValue)]
struct Total {
    n: f64,
}

impl DeviceJoin for Total {
    fn identity() -> Total {
        Total { n: 0.0 }
    }
    fn join(self, other: Total) -> Total {
        Total { n: self.n + other.n }
    }
}

impl JoinForms for Total {
    fn __fk_identity() -> Expr<Total> {
        unimplemented!()
    }
    fn __fk_join(self, _other: Expr<Total>) -> Expr<Total> {
        unimplemented!()
    }
    const __FK_FINALIZE: bool = false;
    fn __fk_finalize(self) -> Expr<Total> {
        unimplemented!()
    }
}

fn main() {}
