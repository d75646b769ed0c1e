use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[test]
fn smoke() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new().num_threads(2))?;
    let exec = Threads::default_instance()?;
    let n = 1000;
    let x = View::<f32, 1>::new("x", [n])?;
    let y = View::<f32, 1>::new("y", [n])?;
    deep_copy(&x, 1.5f32)?;
    deep_copy(&y, 2.0f32)?;
    let a = 2.0f32;
    let k = kernel!(|i| {
        let t = a * x[i] + 1.0;
        y[i] = t + y[i];
    });
    parallel_for("axpy", RangePolicy::new(&exec, 0, n)?, &k)?;
    assert_eq!(y.get(7)?, 6.0);
    println!("{}", k.cuda_source(Iterate::Right).source);
    let mut s = 0.0;
    let d = kernel!(|i, acc| *acc += x[i] as f64 * y[i] as f64);
    parallel_reduce("dot", RangePolicy::new(&exec, 0, n)?, &d, &mut s)?;
    assert_eq!(s, 9000.0);
    println!("{}", d.cuda_source::<Sum<f64>>(Iterate::Right).source);
    Ok(())
}
