// A kernel prints numbers and `bool`: a complex number (which the host could print) is refused at
// the argument, with the hint to print its parts.
use ferrokkos::kernel;
use ferrokkos::prelude::*;
use num_complex::Complex;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let z = Complex::new(i as f64, 1.0);
        println!("z = {}", z);
        y[i] = z.re;
    });
}
