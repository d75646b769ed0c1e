use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn dot(a: &View<f32, 1>, b: &View<f32, 1>) -> ferrokkos::Result<f32> {
    let exec = Threads::default_instance()?;
    let mut sum = 0.0;
    let d = kernel!(|i, acc| *acc += a[i] * b[i]);
    parallel_reduce("dot", RangePolicy::new(&exec, 0, 10)?, &d, &mut sum)?;
    Ok(sum)
}

#[test]
fn smoke2() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new().num_threads(2))?;
    let x = View::<f32, 1>::new("x", [10])?;
    deep_copy(&x, 1.5f32)?;
    assert_eq!(dot(&x, &x)?, 22.5);
    Ok(())
}
