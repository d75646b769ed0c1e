//! DynamicView: a 1-D View that grows between launches keeping its values, in whole chunks, up to
//! its max_extent; kernels see its current elements. On every space, against plain Rust.

use crate::spaces::download;
use ferrokkos::prelude::*;
use ferrokkos::{DynamicView, Error, Result, kernel};

fn grows_between_launches_keeping_its_values<S: Launch>(exec: &S) -> Result<()> {
    let mut d = DynamicView::<f64, S::MemorySpace>::new("d", 100, 5000)?;
    assert_eq!((d.size(), d.chunk_size(), d.chunk_max()), (0, 128, 40));
    let mut want: Vec<f64> = Vec::new();
    for (step, n) in [10usize, 130, 129, 700, 4999, 5000].into_iter().enumerate() {
        let old = d.size();
        d.resize_serial(n)?;
        assert_eq!(d.size(), n);
        assert!(d.allocation_extent() >= n && d.allocation_extent() % 128 == 0);
        assert!(d.allocation_extent() <= 5120);
        want.resize(n, 0.0);
        // Each launch adds to the elements it had and writes the new ones.
        let s = step as f64;
        parallel_for(
            "grow",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                if i < old {
                    d[i] += s;
                } else {
                    d[i] = 1000.0 * s + i as f64;
                }
            }),
        )?;
        for (i, w) in want.iter_mut().enumerate() {
            if i < old {
                *w += s;
            } else {
                *w = 1000.0 * s + i as f64;
            }
        }
        assert_eq!(download(d.view())?, want, "after resize_serial({n})");
    }
    let e = d.resize_serial(5001).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "DynamicView: \"d\": resize_serial to 5001 elements, past its max_extent of 5000"
    );
    assert_eq!(d.size(), 5000);
    Ok(())
}

per_space!(
    grows_between_launches_keeping_its_values,
    grows_between_launches_keeping_its_values
);

/// Shrinking keeps the allocation; growing again within it gives zeros, not the old values.
fn regrowth_within_the_allocation_is_zero<S: Launch>(exec: &S) -> Result<()> {
    let mut d = DynamicView::<u32, S::MemorySpace>::new("d", 16, 1 << 12)?;
    d.resize_serial(64)?;
    parallel_for(
        "ones",
        RangePolicy::new(exec, 0, 64)?,
        kernel!(|i| d[i] = 1),
    )?;
    let allocated = d.allocation_extent();
    d.resize_serial(8)?;
    assert_eq!(d.allocation_extent(), allocated);
    d.resize_serial(40)?;
    let got = download(d.view())?;
    assert_eq!(&got[..8], &[1; 8]);
    assert!(got[8..].iter().all(|&x| x == 0), "{got:?}");
    Ok(())
}

per_space!(
    regrowth_within_the_allocation_is_zero,
    regrowth_within_the_allocation_is_zero
);
