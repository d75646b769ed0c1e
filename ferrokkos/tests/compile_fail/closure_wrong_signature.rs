// An algorithm's operation takes the View's element type and gives what the algorithm needs.
use ferrokkos::kernel;
use ferrokkos::prelude::*;
use ferrokkos::std_algorithms::{count_if, transform};

fn main() -> ferrokkos::Result<()> {
    let exec = Serial::default_instance()?;
    let x = View::<f64, 1>::new("x", [4])?;
    let _ = count_if(&exec, &x, kernel!(|v: i32| -> bool { v > 0 }))?;
    let _ = count_if(&exec, &x, kernel!(|v: f64| -> f64 { v }))?;
    let y = View::<f32, 1>::new("y", [4])?;
    let _ = transform(&exec, &x, &y, kernel!(|v: f64| -> f64 { v * 2.0 }))?;
    Ok(())
}
