//! Atomic Views (Kokkos' `MemoryTraits<Atomic>`): a kernel writes an `AtomicView` at any index,
//! each access atomic (`+=`, `-=`, `|=`, `&=`, `^=` are atomic updates, `=` an atomic store, a read
//! an atomic load), on every space, against plain Rust; the View itself shows the results.

use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Result, functor};

fn atomic_views_take_writes_at_any_index<S: Launch>(exec: &S) -> Result<()> {
    let n = 10_000usize;
    let values: Vec<f64> = (0..n).map(|i| ((i * 7) % 13) as f64 * 0.25).collect();
    let x = upload::<S, f64>("x", &values)?;
    let hist = SView::<S, u64, 1>::new("histogram", [13])?;
    let sums = SView::<S, f64, 1>::new("sums", [13])?;
    let flags = SView::<S, u32, 1>::new("flags", [4])?;
    let last = SView::<S, i64, 1>::new("last", [1])?;
    let (counts, totals, bits, seen) =
        (hist.atomic(), sums.atomic(), flags.atomic(), last.atomic());
    parallel_for(
        "bin",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let bin = ((i * 7) % 13) as usize;
            counts[bin] += 1;
            totals[bin] += x[i];
            bits[i % 4] |= 1u32 << (i % 32) as u32;
            bits[(i + 1) % 4] ^= 0;
            seen[0] = 7;
            if seen[0] != 7 {
                counts[0] -= 1000;
            }
        }),
    )?;
    let mut want_counts = vec![0u64; 13];
    let mut want_sums = vec![0.0f64; 13];
    let mut want_bits = vec![0u32; 4];
    for (i, v) in values.iter().enumerate() {
        let bin = (i * 7) % 13;
        want_counts[bin] += 1;
        want_sums[bin] += v;
        want_bits[i % 4] |= 1 << (i % 32);
    }
    assert_eq!(download(&hist)?, want_counts);
    // Quarters add exactly in any order.
    assert_eq!(download(&sums)?, want_sums);
    assert_eq!(download(&flags)?, want_bits);
    assert_eq!(download(&last)?, vec![7]);
    Ok(())
}
per_space!(
    atomic_views_take_writes_at_any_index,
    atomic_views_take_writes_at_any_index
);

/// A functor struct holding an atomic View: a 2D histogram of points, prepared like any kernel.
struct Deposit<S: Launch> {
    px: SView<S, f64, 1>,
    py: SView<S, f64, 1>,
    grid: ferrokkos::AtomicView<f64, 2, LayoutRight, S::MemorySpace>,
    cells: usize,
}

impl<S: Launch> Deposit<S> {
    #[functor]
    fn deposit(&self, p: usize) {
        let (x, y) = (self.px[p], self.py[p]);
        let (i, j) = (
            (x * self.cells as f64) as usize,
            (y * self.cells as f64) as usize,
        );
        self.grid[(i, j)] += 0.5;
    }
}

fn functor_structs_deposit_through_atomic_views<S: Launch>(exec: &S) -> Result<()> {
    let n = 5000usize;
    let xs: Vec<f64> = (0..n).map(|p| ((p * 37) % 1000) as f64 / 1000.0).collect();
    let ys: Vec<f64> = (0..n).map(|p| ((p * 91) % 1000) as f64 / 1000.0).collect();
    let grid = SView::<S, f64, 2>::new("grid", [8, 8])?;
    let d = Deposit::<S> {
        px: upload::<S, f64>("px", &xs)?,
        py: upload::<S, f64>("py", &ys)?,
        grid: grid.atomic(),
        cells: 8,
    };
    let policy = RangePolicy::new(exec, 0, n)?;
    Prepare::new()
        .parallel_for("deposit", &policy, &d.deposit())?
        .compile()?;
    parallel_for("deposit", policy, d.deposit())?;
    let mut want = vec![0.0; 64];
    for p in 0..n {
        let (i, j) = ((xs[p] * 8.0) as usize, (ys[p] * 8.0) as usize);
        want[i * 8 + j] += 0.5;
    }
    assert_eq!(download(&grid)?, want);
    assert_eq!(d.grid.label(), "grid");
    Ok(())
}
per_space!(
    functor_structs_deposit_through_atomic_views,
    functor_structs_deposit_through_atomic_views
);

/// The atomic View's accesses become the device's atomic operations, and NVRTC compiles them.
#[test]
fn atomic_view_accesses_compile_to_device_atomics() -> Result<()> {
    crate::common::runtime();
    let (h, s, b) = (
        View::<u64, 1>::new("h", [4])?,
        View::<f64, 2>::new("s", [4, 4])?,
        View::<i32, 1>::new("b", [4])?,
    );
    let (h, s, b) = (h.atomic(), s.atomic(), b.atomic());
    let k = kernel!(|i| {
        h[i % 4] += 1;
        s[(i % 4, 0)] -= 0.5;
        b[0] &= 6;
        b[1] = b[2] + 1;
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    for op in [
        "fk::atomic_add(",
        "fk::atomic_sub(",
        "fk::atomic_and(",
        "fk::atomic_store(",
        "fk::atomic_load(",
    ] {
        assert!(text.contains(op), "{op} missing:\n{text}");
    }
    crate::common::check_device_code(&tu);
    Ok(())
}
