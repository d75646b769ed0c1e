// Soundness: `ViewRead` is what a `#[device]` function's `&View<T, R>` parameter reads through, and
// kernels trust it to read only. It is sealed: a type of the user's cannot implement it (and so
// cannot be handed to a device function in a View's place).
use ferrokkos::traits::ViewRead;

struct Forged;

impl ViewRead<f64, 1> for Forged {
    fn at(&self, _index: impl ferrokkos::__private::KernelIndex<1>) -> f64 {
        0.0
    }
    fn extent(&self, _r: usize) -> usize {
        0
    }
}

fn main() {}
