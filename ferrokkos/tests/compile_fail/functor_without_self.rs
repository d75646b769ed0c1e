// A functor's kernel method takes `&self` first: its members are the kernel's captures.
use ferrokkos::prelude::*;

struct Scale {
    y: View<f64, 1>,
}

impl Scale {
    #[functor]
    fn apply(i: usize) {
        let _ = i;
    }
}

fn main() {
    let _ = Scale { y: View::new("y", [1]).unwrap() }.y;
}
