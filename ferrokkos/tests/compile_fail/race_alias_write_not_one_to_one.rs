// `let w = &c.w;` names the capture `c.w`: the race rules see the write through the alias as a
// write of `c.w`, and one that is not one to one stays refused (the message names the path).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

struct Chunk {
    w: View<f64, 1>,
}

fn main() {
    let c = Chunk {
        w: View::new("w", [10]).unwrap(),
    };
    let _kernel = kernel!(|i| {
        let w = &c.w;
        w[i / 2] = 1.0;
    });
}
