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

/// Adds `v` to bin `k` of `h` and counts the deposit in `n[0]` (Kokkos' device function taking a
/// `View<double*, MemoryTraits<Atomic>>`): `+=` on an atomic View parameter is atomic.
#[ferrokkos::device]
fn deposit(h: &ferrokkos::AtomicView<f64, 1>, n: &ferrokkos::AtomicView<u64, 1>, k: usize, v: f64) {
    h[k] += v;
    n.atomic_add(0, 1);
}

/// Deposits `v` split over bins `k` and `k + 1` (an atomic View parameter passed on), and returns
/// what bin `k` held before, read atomically.
#[ferrokkos::device]
fn spread(
    h: &ferrokkos::AtomicView<f64, 1>,
    n: &ferrokkos::AtomicView<u64, 1>,
    k: usize,
    v: f64,
) -> f64 {
    let before = h.atomic_fetch_add(k, 0.0);
    deposit(h, n, k, 0.5 * v);
    deposit(h, n, (k + 1) % h.extent(0), 0.5 * v);
    before
}

/// Atomic Views passed to `#[device]` functions, which update them atomically (also passed on
/// by one device function to another), next to the kernel's own atomic updates of the same View.
fn atomic_views_are_device_function_parameters<S: Launch>(exec: &S) -> Result<()> {
    let n = 4096usize;
    let bins = SView::<S, f64, 1>::new("bins", [16])?;
    let count = SView::<S, u64, 1>::new("count", [1])?;
    let seen = SView::<S, f64, 1>::new("seen", [n])?;
    let (h, c) = (bins.atomic(), count.atomic());
    parallel_for(
        "deposit",
        RangePolicy::new(exec, 0, n)?,
        ferrokkos::kernel!(|i| {
            let k = (i * 5) % 16;
            if i % 2 == 0 {
                deposit(&h, &c, k, 0.25);
            } else {
                seen[i] = spread(&h, &c, k, 0.5);
            }
            h[15 - k] += 1.0;
        }),
    )?;
    let mut want = vec![0.0f64; 16];
    for i in 0..n {
        let k = (i * 5) % 16;
        if i % 2 == 0 {
            want[k] += 0.25;
        } else {
            want[k] += 0.25;
            want[(k + 1) % 16] += 0.25;
        }
        want[15 - k] += 1.0;
    }
    // Quarters and ones add exactly in any order.
    assert_eq!(download(&bins)?, want);
    assert_eq!(download(&count)?, vec![(n + n / 2) as u64]);
    let seen = download(&seen)?;
    assert!(
        seen.iter()
            .all(|v| *v >= 0.0 && v.fract() * 4.0 == (v.fract() * 4.0).round())
    );
    Ok(())
}
per_space!(
    atomic_views_are_device_function_parameters,
    atomic_views_are_device_function_parameters
);

/// The C++ of an atomic View parameter: a View of writable elements, updated with atomics.
#[test]
fn atomic_view_parameters_are_writable_views_updated_atomically() -> Result<()> {
    crate::common::runtime();
    let bins = View::<f64, 1>::new("bins", [4])?;
    let count = View::<u64, 1>::new("count", [1])?;
    let (h, c) = (bins.atomic(), count.atomic());
    let k = ferrokkos::kernel!(|i| {
        deposit(&h, &c, i % 4, 1.0);
    });
    parallel_for(
        "deposit",
        RangePolicy::new(&Serial::default_instance()?, 0, 8)?,
        &k,
    )?;
    assert_eq!(bins.to_vec()?, vec![2.0; 4]);
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    for want in [
        "const fk::View<f64, 1, fk::LayoutRight>& h",
        "fk::atomic_add(&h(k), v);",
    ] {
        assert!(text.contains(want), "{want} in\n{text}");
    }
    crate::common::check_device_code(&tu);
    Ok(())
}
