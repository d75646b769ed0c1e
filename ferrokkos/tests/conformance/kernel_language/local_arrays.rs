//! Local fixed-size arrays in kernels: `let w = [a, b, c];`, `let mut acc = [0.0; N];`, typed
//! `let mut h: [u32; 4] = [0; 4];`, read and written by index (also compound assignment), `len()`,
//! loops over them, on every space with plain Rust's results; the C++ compiles with NVRTC.

use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Result, kernel};

const TAPS: usize = 5;

/// The kernel of [`local_arrays_match_rust`], in plain Rust.
#[allow(clippy::needless_range_loop)] // as the kernel writes it
fn smooth(x: &[f64], i: usize) -> f64 {
    let n = x.len();
    let w = [1.0, 4.0, 6.0, 4.0, 1.0];
    let mut acc = [0.0; TAPS];
    let mut hist: [u32; 4] = [0; 4];
    for k in 0..w.len() {
        let j = (i + k) % n;
        acc[k] = w[k] * x[j];
        hist[j % 4] += 1;
    }
    let mut s = 0.0;
    for k in 0..TAPS {
        s += acc[k];
    }
    s / 16.0 + hist[0] as f64 + hist.len() as f64
}

#[allow(clippy::needless_range_loop)] // the kernel's loops, as a kernel writes them
fn local_arrays_match_rust<S: Launch>(exec: &S) -> Result<()> {
    let values: Vec<f64> = (0..64).map(|k| ((k * 29) % 17) as f64 - 8.0).collect();
    let n = values.len();
    let x = upload::<S, f64>("x", &values)?;
    let y = SView::<S, f64, 1>::new("y", [n])?;
    parallel_for(
        "local_arrays",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let w = [1.0, 4.0, 6.0, 4.0, 1.0];
            let mut acc = [0.0; TAPS];
            let mut hist: [u32; 4] = [0; 4];
            for k in 0..w.len() {
                let j = (i + k) % n;
                acc[k] = w[k] * x[j];
                hist[j % 4] += 1;
            }
            let mut s = 0.0;
            for k in 0..TAPS {
                s += acc[k];
            }
            y[i] = s / 16.0 + hist[0] as f64 + hist.len() as f64;
        }),
    )?;
    let want: Vec<f64> = (0..n).map(|i| smooth(&values, i)).collect();
    assert_eq!(download(&y)?, want);
    Ok(())
}

per_space!(local_arrays_match_rust, local_arrays_match_rust);

#[test]
fn local_arrays_are_fk_arrays_that_compile() -> Result<()> {
    crate::common::runtime();
    let y = View::<f32, 1>::new("y", [4])?;
    let k = kernel!(|i| {
        let w = [0.5f32, 0.25];
        let mut a = [w[0]; 3];
        a[i % 3] += w[1];
        y[i] = a[0] + a[1] + a[2];
    });
    parallel_for(
        "arrays",
        RangePolicy::new(&Serial::default_instance()?, 0, 4)?,
        &k,
    )?;
    assert_eq!(y.to_vec()?, vec![1.75f32; 4]);
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(
        text.contains("const fk::Array<f32, 2> fk_array = {{0.5f, 0.25f}};"),
        "{text}"
    );
    assert!(
        text.contains("const fk::Array<f32, 2> w = fk_array;"),
        "{text}"
    );
    assert!(text.contains("fk::Array<f32, 3> a = fk_array_1;"), "{text}");
    crate::common::check_device_code(&tu);
    Ok(())
}
