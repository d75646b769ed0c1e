//! `ferrokkos info`: the version, execution spaces, the CUDA device and memory spaces of this
//! process.

use ferrokkos::{
    Cuda, CudaDevice, CudaHostPinnedSpace, CudaSpace, CudaUVMSpace, Error, ExecutionSpace,
    HOST_ALIGNMENT, HostSpace, InitSettings, MemorySpace, MemoryStats, Serial, SpaceChoice,
    Threads,
};

/// Prints what this process has: execution spaces with their concurrency, the CUDA device (or why
/// there is none), and memory spaces with their accounting.
pub fn info(settings: InitSettings) -> ferrokkos::Result<()> {
    let runtime = ferrokkos::initialize(settings)?;
    let settings = ferrokkos::settings()?;
    let serial = Serial::default_instance()?;
    let threads = Threads::default_instance()?;
    // The default Cuda instance, or why Cuda cannot be used here (no driver, no device, disabled).
    let cuda = Cuda::default_instance().and_then(|exec| Ok((Cuda::device()?, exec)));
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
        "  host kernels' vector instructions: {}",
        ferrokkos::host_vector_instructions()
    );
    match &cuda {
        Ok((device, exec)) => println!(
            "  {:<8} concurrency {:>3}   device id 0x{:08x}   GPU {} ({}), one stream per instance",
            exec.name(),
            exec.concurrency(),
            exec.device_id(),
            device.ordinal,
            device.name
        ),
        Err(e) => println!(
            "  {}: not available ({})",
            Cuda::NAME,
            unavailable_reason(e)
        ),
    }
    println!("  {}", hip_line());
    println!(
        "  Default execution space: {}",
        SpaceChoice::Best.resolve().name()
    );
    println!(
        "  Default host execution space: {}",
        ferrokkos::DefaultHostExecutionSpace::NAME
    );
    if let Ok((device, _)) = &cuda {
        println!();
        print_device(device);
    }
    println!();
    println!("Memory spaces:");
    let stats = HostSpace.stats()?;
    println!(
        "  {:<20} alignment {} B, {}",
        HostSpace.name(),
        HOST_ALIGNMENT,
        usage(&stats)
    );
    if cuda.is_ok() {
        print_space(CudaSpace, "device memory")?;
        print_space(CudaHostPinnedSpace, "page-locked host memory")?;
        print_space(CudaUVMSpace, "managed memory (SharedSpace)")?;
    }
    println!();
    println!(
        "Hardware threads available to this process: {}",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    drop(cuda);
    runtime.finalize()
}

/// What this build does for AMD GPUs: it compiles every kernel's HIP source with hiprtc where
/// hiprtc is found; the HIP runtime is not built yet (docs/hip.md).
fn hip_line() -> String {
    match ferrokkos::hiprtc::version() {
        Ok((major, minor)) => format!(
            "HIP: compile only (hiprtc {major}.{minor} compiles kernels for AMD GPUs such as \
             gfx90a; no HIP execution space yet)"
        ),
        Err(_) => "HIP: compile only, and hiprtc was not found (on Debian: apt-get install \
                   libamdhip64-5 libhiprtc-builtins5); no HIP execution space yet"
            .to_string(),
    }
}

/// Why Cuda is unavailable: the reason of [`Error::Unavailable`], else the whole message.
fn unavailable_reason(e: &Error) -> String {
    match e {
        Error::Unavailable { reason, .. } => reason.clone(),
        other => other.to_string(),
    }
}

/// The CUDA device: name, compute capability, multiprocessors, memory, driver and NVRTC versions.
fn print_device(d: &CudaDevice) {
    let (major, minor) = d.compute_capability;
    let (driver_major, driver_minor) = d.driver_version;
    let nvrtc = match ferrokkos::nvrtc::version() {
        Ok((major, minor)) => format!("{major}.{minor}"),
        Err(e) => format!("not available ({e})"),
    };
    println!("CUDA device {}: {}", d.ordinal, d.name);
    println!("  compute capability   {major}.{minor} (sm_{major}{minor})");
    println!("  multiprocessors      {}", d.multiprocessors);
    println!("  memory               {}", gib(d.memory_bytes));
    println!("  driver               CUDA {driver_major}.{driver_minor}");
    println!("  NVRTC                {nvrtc}");
    println!("  kernel parameters    up to {} B", d.max_param_bytes);
}

/// One CUDA memory space's line.
fn print_space<M: MemorySpace>(space: M, what: &str) -> ferrokkos::Result<()> {
    println!("  {:<20} {what}, {}", space.name(), usage(&space.stats()?));
    Ok(())
}

/// A memory space's accounting in words.
fn usage(stats: &MemoryStats) -> String {
    format!(
        "live {} B in {} allocation(s), high water {} B",
        stats.live_bytes, stats.live_allocations, stats.high_water_bytes
    )
}

/// Bytes in GiB (and bytes).
fn gib(bytes: usize) -> String {
    format!("{:.1} GiB ({bytes} B)", bytes as f64 / (1u64 << 30) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_of_an_unavailable_space_is_shown_alone() {
        let e = Error::Unavailable {
            space: "Cuda",
            reason: "no driver".into(),
        };
        assert_eq!(unavailable_reason(&e), "no driver");
    }

    #[test]
    fn memory_sizes_read_in_gib() {
        assert_eq!(gib(3 << 29), "1.5 GiB (1610612736 B)");
    }
}
