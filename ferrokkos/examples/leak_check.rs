//! A small program for leak checkers (CI runs it under valgrind): initialize, allocate Views, run the
//! parallel patterns (`kernel!`s and a closure) on a Serial and a Threads instance (and partitions of
//! it), generate a kernel's CUDA C++, fence, finalize.
//!
//! ```text
//! cargo build -p ferrokkos --example leak_check
//! valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=1 \
//!     target/debug/examples/leak_check
//! ```

use ferrokkos::prelude::*;

/// A device function, so that generating code defines one.
#[device]
fn col_view_len(i: usize) -> f64 {
    i as f64 * 0.5
}

fn main() -> ferrokkos::Result<()> {
    let rt = ferrokkos::initialize(InitSettings::from_env()?.num_threads(2))?;
    let serial = Serial::default_instance()?;
    let threads = Threads::default_instance()?;
    let parts = partition_space(&threads, 2)?;

    let a = View::<f64, 2>::new("a", [100, 50])?;
    let b = View::<f64, 2, LayoutLeft>::new("b", [100, 50])?;
    deep_copy(&a, 2.0)?;
    deep_copy(&b, &a)?;
    let row = subview(&b, (7, ALL))?;
    let mirror = create_mirror_view(&row)?;
    assert_eq!(mirror.get(3)?, 2.0);

    // The patterns, with every kind of partial-result storage: per thread, per chunk, scans.
    let n = a.extent(0);
    {
        let col = subview(&a, (ALL, 0))?;
        let out = View::<f64, 1>::new("out", [n])?;
        parallel_for(
            "leak_check: for",
            RangePolicy::new(&threads, 0, n)?,
            kernel!(|i| out[i] = col[i] + 1.0),
        )?;
        let dynamic = RangePolicy::new(&threads, 0, n)?
            .schedule(Schedule::Dynamic)
            .chunk_size(7)?;
        let (sum, max) = parallel_reduce(
            "leak_check: reduce",
            dynamic,
            kernel!(|i, sum, max: &mut usize| {
                *sum += i as f64;
                *max = max.max(i);
            }),
            (Sum::new(), Max::new()),
        )?;
        assert_eq!((sum, max), (4950.0, 99));
        let total = parallel_scan(
            "leak_check: scan",
            RangePolicy::new(&serial, 0, n)?,
            kernel!(|i, partial, is_final| {
                if !is_final {
                    *partial += i as u64;
                } else {
                    *partial += i as u64;
                }
            }),
        )?;
        let md = parallel_reduce(
            "leak_check: mdrange",
            MDRangePolicy::new(&parts[0], [0, 0], [4, 5])?,
            kernel!(|(i, j), acc| *acc += i * j),
            Sum::new(),
        )?;
        // A plain closure with the unsafe accessor still works alongside.
        let col = col.host()?;
        // SAFETY: iteration i writes out[i] only.
        let w = unsafe { out.parallel_mut()? };
        parallel_for(
            "leak_check: closure",
            RangePolicy::new(&threads, 0, n)?,
            move |i: usize| w.set(i, w.get(i) + col[i]),
        )?;
        // Generating the device code allocates and frees its own state.
        let unit = ferrokkos::codegen::TranslationUnit::for_kernel(
            &kernel!(|i| out[i] = col_view_len(i)),
            Iterate::Right,
        );
        assert!(unit.generated().contains("col_view_len_fn"));
        assert_eq!((total, md, out.get(99)?), (4950, 60, 5.0));
    }

    serial.fence("leak_check: serial")?;
    threads.fence("leak_check: threads")?;
    for p in &parts {
        p.fence("leak_check: partition")?;
    }
    println!(
        "leak_check: {} and {} ({} threads, {} partitions) fenced; {} elements copied",
        serial.name(),
        threads.name(),
        threads.concurrency(),
        parts.len(),
        b.size()
    );
    drop((a, b, row, mirror, parts, serial, threads));
    rt.finalize()
}
