// A functor's kernel method returns nothing: a reduction's contribution goes to its accumulator.
use ferrokkos::prelude::*;

struct Norm {
    y: View<f64, 1>,
}

impl Norm {
    #[functor]
    fn square(&self, i: usize) -> f64 {
        self.y[i] * self.y[i]
    }
}

fn main() {
    let _ = Norm { y: View::new("y", [1]).unwrap() }.y;
}
