//! Choosing the execution space at run time: the same generic code runs on Serial, Threads or Cuda
//! without recompiling.

use std::fmt;
use std::str::FromStr;

#[cfg(feature = "cuda")]
use crate::backend::cuda::Cuda;
use crate::backend::host::{Serial, Threads};
use crate::dispatch::Launch;
use crate::error::{Error, Result};
use crate::graph::GraphSpace;
use crate::space::ExecutionSpace;

/// Work written once for every execution space: its [`SpaceTask::run`] is generic over the space
/// (allocate Views in `S::MemorySpace`, launch `kernel!`s on `exec`, build [`crate::Graph`]s on
/// it), and [`run_on`] calls it with the space chosen at run time. An implementation may ask for
/// less than the trait offers: `fn run<S: Launch>` is enough when the work makes no graph.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::{SpaceChoice, SpaceTask, run_on};
///
/// struct Total(usize);
/// impl SpaceTask for Total {
///     type Output = f64;
///     fn run<S: Launch>(self, exec: &S) -> ferrokkos::Result<f64> {
///         let x = View::<f64, 1, LayoutRight, S::MemorySpace>::new("x", [self.0])?;
///         parallel_for("fill", RangePolicy::new(exec, 0, self.0)?, kernel!(|i| x[i] = i as f64))?;
///         parallel_reduce("sum", RangePolicy::new(exec, 0, self.0)?,
///             kernel!(|i, acc: &mut f64| *acc += x[i]), Sum::new())
///     }
/// }
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// assert_eq!(run_on(SpaceChoice::Serial, Total(10))?, 45.0);
/// // `Best` is Cuda when the process has a GPU, else Threads.
/// assert_eq!(run_on(SpaceChoice::Best, Total(10))?, 45.0);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub trait SpaceTask {
    /// What the work returns.
    type Output;
    /// Runs the work on `exec`.
    fn run<S: Launch + GraphSpace>(self, exec: &S) -> Result<Self::Output>;
}

/// An execution space chosen at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpaceChoice {
    /// [`Serial`].
    Serial,
    /// [`Threads`].
    Threads,
    /// [`Cuda`] (an error when the process has no usable GPU).
    Cuda,
    /// Cuda when available, else Threads (Kokkos' default execution space).
    #[default]
    Best,
}

impl SpaceChoice {
    /// The space [`SpaceChoice::Best`] stands for in this process.
    pub fn resolve(self) -> SpaceChoice {
        match self {
            #[cfg(feature = "cuda")]
            SpaceChoice::Best if Cuda::is_available() => SpaceChoice::Cuda,
            SpaceChoice::Best => SpaceChoice::Threads,
            other => other,
        }
    }

    /// The name of the space (`"Serial"`, `"Threads"`, `"Cuda"`, or `"Best"`).
    pub fn name(self) -> &'static str {
        match self {
            SpaceChoice::Serial => Serial::NAME,
            SpaceChoice::Threads => Threads::NAME,
            SpaceChoice::Cuda => "Cuda",
            SpaceChoice::Best => "Best",
        }
    }
}

impl fmt::Display for SpaceChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SpaceChoice {
    type Err = Error;

    /// `serial`, `threads`, `cuda` or `best` (any case).
    fn from_str(s: &str) -> Result<SpaceChoice> {
        match s.to_ascii_lowercase().as_str() {
            "serial" => Ok(SpaceChoice::Serial),
            "threads" => Ok(SpaceChoice::Threads),
            "cuda" => Ok(SpaceChoice::Cuda),
            "best" | "default" => Ok(SpaceChoice::Best),
            _ => Err(Error::InvalidArgument {
                operation: "choosing an execution space",
                reason: format!("unknown space {s:?}; expected serial, threads, cuda or best"),
            }),
        }
    }
}

/// Runs `task` on the default instance of the space `choice` stands for.
pub fn run_on<T: SpaceTask>(choice: SpaceChoice, task: T) -> Result<T::Output> {
    match choice.resolve() {
        SpaceChoice::Serial => task.run(&Serial::default_instance()?),
        #[cfg(feature = "cuda")]
        SpaceChoice::Cuda => task.run(&Cuda::default_instance()?),
        #[cfg(not(feature = "cuda"))]
        SpaceChoice::Cuda => Err(Error::Unavailable {
            space: "Cuda",
            reason: "ferrokkos was built without its `cuda` feature".into(),
        }),
        SpaceChoice::Threads | SpaceChoice::Best => task.run(&Threads::default_instance()?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_in_any_case_and_bad_names_are_errors() {
        assert_eq!("CUDA".parse::<SpaceChoice>().unwrap(), SpaceChoice::Cuda);
        assert_eq!(
            "threads".parse::<SpaceChoice>().unwrap(),
            SpaceChoice::Threads
        );
        let e = "gpu".parse::<SpaceChoice>().unwrap_err();
        assert!(e.to_string().contains("unknown space \"gpu\""), "{e}");
    }
}
