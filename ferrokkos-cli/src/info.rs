//! `ferrokkos info`: the version, execution spaces and memory spaces of this process.

use ferrokkos::{
    ExecutionSpace, HOST_ALIGNMENT, HostSpace, InitSettings, MemorySpace, Serial, Threads,
};

/// Prints what this process has: execution spaces with their concurrency, and memory spaces.
pub fn info(settings: InitSettings) -> ferrokkos::Result<()> {
    let runtime = ferrokkos::initialize(settings)?;
    let settings = ferrokkos::settings()?;
    let serial = Serial::default_instance()?;
    let threads = Threads::default_instance()?;
    println!("ferrokkos {}", env!("CARGO_PKG_VERSION"));
    println!();
    println!("Execution spaces:");
    println!(
        "  {:<8} concurrency {:>3}   device id 0x{:08x}   runs on the calling thread",
        serial.name(),
        serial.concurrency(),
        serial.device_id()
    );
    println!(
        "  {:<8} concurrency {:>3}   device id 0x{:08x}   calling thread + {} pool worker(s), pinning {}",
        threads.name(),
        threads.concurrency(),
        threads.device_id(),
        threads.concurrency() - 1,
        if settings.pins_threads() { "on" } else { "off" }
    );
    println!(
        "  Default execution space: {}",
        ferrokkos::DefaultHostExecutionSpace::NAME
    );
    println!();
    println!("Memory spaces:");
    let stats = HostSpace.stats()?;
    println!(
        "  {:<10} alignment {} B, live {} B in {} allocation(s), high water {} B",
        HostSpace.name(),
        HOST_ALIGNMENT,
        stats.live_bytes,
        stats.live_allocations,
        stats.high_water_bytes
    );
    println!();
    println!(
        "Hardware threads available to this process: {}",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    runtime.finalize()
}
