//! A small program for leak checkers (CI runs it under valgrind): initialize, allocate Views, use a
//! Serial and a Threads instance (and partitions of it) through a fence, finalize.
//!
//! ```text
//! cargo build -p ferrokkos --example leak_check
//! valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=1 \
//!     target/debug/examples/leak_check
//! ```

use ferrokkos::prelude::*;

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
