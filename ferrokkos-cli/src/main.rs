//! `ferrokkos`: the command-line front end of ferrokkos.
//!
//! `ferrokkos info` prints the version, the execution spaces of this process with their concurrency,
//! and the memory spaces. Kokkos options (`--kokkos-num-threads=N`) and the `FERROKKOS_*` / `KOKKOS_*`
//! environment variables are honoured.

use std::process::ExitCode;

use ferrokkos::{
    ExecutionSpace, HOST_ALIGNMENT, HostSpace, InitSettings, MemorySpace, Serial, Threads,
};

const USAGE: &str = "\
usage: ferrokkos <command> [options]

commands:
  info      version, execution spaces, thread count and memory spaces of this process
  help      this text

options (any command):
  --kokkos-num-threads=N     threads of the Threads space (env FERROKKOS_NUM_THREADS)
  --ferrokkos-pin-threads    pin pool workers to cores (env FERROKKOS_PIN_THREADS=1)";

fn main() -> ExitCode {
    let (settings, rest) = match InitSettings::from_args(std::env::args()) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("ferrokkos: {e}");
            return ExitCode::from(2);
        }
    };
    let command = rest.get(1).map(String::as_str);
    let extra = rest.get(2..).unwrap_or_default();
    let outcome = match command {
        Some("info") if extra.is_empty() => info(settings),
        None | Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some("info") => {
            eprintln!("ferrokkos: info takes no arguments, got {extra:?}\n\n{USAGE}");
            return ExitCode::from(2);
        }
        Some(other) => {
            eprintln!("ferrokkos: unknown command {other:?}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ferrokkos: {e}");
            ExitCode::FAILURE
        }
    }
}

fn info(settings: InitSettings) -> ferrokkos::Result<()> {
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
