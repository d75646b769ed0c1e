// Soundness: a ScatterView's host copies and device atomics are made for the operations and
// element types ferrokkos knows (`ScatterOp`, `ScatterValue`, sealed): a user's operation or
// element type cannot be plugged in, since the identity, the combine and the device atomic must
// agree.
#![forbid(unsafe_code)]
use ferrokkos::traits::{ScatterOp, ScatterValue};

struct Concat;

impl ScatterOp for Concat {
    const NAME: &'static str = "concat";
    fn identity<T: ScatterValue>() -> T {
        T::ZERO
    }
    fn combine<T: ScatterValue>(a: T, _b: T) -> T {
        a
    }
}

#[derive(Clone, Copy)]
struct Meters(f64);

impl ScatterValue for Meters {
    const ZERO: Self = Meters(0.0);
    const ONE: Self = Meters(1.0);
    const LARGEST: Self = Meters(f64::MAX);
    const SMALLEST: Self = Meters(f64::MIN);
}

fn main() {}
