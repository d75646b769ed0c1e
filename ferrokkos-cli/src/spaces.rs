//! How the benchmarks (`stream`, `spmv`, `stencil`) run on the space chosen at run time, and what
//! they say of it: whether it is a
//! GPU, its description for a header, the names of ferrokkos' lines, and counts with their noun.

use ferrokkos::traits::Launch;
use ferrokkos::{Cuda, DeviceType, InitSettings, SpaceChoice, SpaceTask};

use crate::Failure;

/// Initializes ferrokkos with `settings`, runs `task` on the space `space` chooses (an unusable
/// space, Cuda without a GPU, is an error naming why), calls `after` while the runtime is still up,
/// and finalizes. The task's error wins over finalize's.
pub fn run_benchmark<T>(
    settings: InitSettings,
    space: SpaceChoice,
    task: T,
    after: impl FnOnce(),
) -> Result<(), Failure>
where
    T: SpaceTask<Output = Result<(), Failure>>,
{
    let runtime = ferrokkos::initialize(settings)?;
    let outcome = ferrokkos::run_on(space, task)
        .map_err(Failure::from)
        .and_then(|outcome| outcome);
    after();
    let finalized = runtime.finalize();
    outcome?;
    Ok(finalized?)
}

/// Whether `S` runs its work on a GPU (Cuda), where Views live in device memory.
pub fn on_device<S: Launch>() -> bool {
    S::DEVICE_TYPE == DeviceType::Cuda
}

/// `n` and `noun`, plural unless `n` is 1: "1 thread", "16 threads".
pub fn count(n: usize, noun: &str) -> String {
    let plural = if n == 1 { "" } else { "s" };
    format!("{n} {noun}{plural}")
}

/// The space `exec` is, for a header: "Threads (16 threads)", "Cuda (NVIDIA H100 80GB HBM3)".
pub fn describe<S: Launch>(exec: &S) -> String {
    if on_device::<S>() {
        return match Cuda::device() {
            Ok(d) => format!("{} ({})", S::NAME, d.name),
            Err(_) => S::NAME.to_string(),
        };
    }
    format!("{} ({})", S::NAME, count(exec.concurrency(), "thread"))
}

/// The name of a ferrokkos line that runs `what` on `exec`: "ferrokkos Threads {what} (16
/// threads)", or on a GPU "ferrokkos Cuda {what} (NVIDIA H100 80GB HBM3, sm_90, 132 SMs)".
pub fn ferrokkos_line<S: Launch>(exec: &S, what: &str) -> String {
    let head = if what.is_empty() {
        format!("ferrokkos {}", S::NAME)
    } else {
        format!("ferrokkos {} {what}", S::NAME)
    };
    if !on_device::<S>() {
        return format!("{head} ({})", count(exec.concurrency(), "thread"));
    }
    match Cuda::device() {
        Ok(d) => format!(
            "{head} ({}, sm_{}{}, {} SMs)",
            d.name, d.compute_capability.0, d.compute_capability.1, d.multiprocessors
        ),
        Err(_) => head,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_take_their_plural() {
        assert_eq!(count(1, "thread"), "1 thread");
        assert_eq!(count(16, "thread"), "16 threads");
        assert_eq!(count(0, "lane"), "0 lanes");
    }
}
