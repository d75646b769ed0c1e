//! [`abort`]: Kokkos' `Kokkos::abort("message")`, for kernels and host code.

/// Ends the current iteration of a kernel (or the host code calling it) with `message`: Kokkos'
/// `Kokkos::abort`, as a Rust panic.
///
/// On Serial and Threads, and outside kernels, it is `panic!("{message}")`: the panic unwinds out
/// of the launch to its caller (a pool worker's panic is carried to the launching thread). In a
/// `kernel!`, a `#[device]` function or a `#[functor]`, `abort("literal")` is also the device's
/// spelling of `panic!("literal")`: on the GPU the message goes to the fault record and the next
/// wait returns [`Error::KernelAbort`](crate::Error::KernelAbort) naming the kernel and the
/// message, while the context stays usable (Kokkos' `abort` traps and ends the context).
///
/// ```
/// use ferrokkos::prelude::*;
/// use std::panic::{AssertUnwindSafe, catch_unwind};
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Serial::default_instance()?;
/// let y = View::<f64, 1>::new("y", [10])?;
/// let run = catch_unwind(AssertUnwindSafe(|| {
///     parallel_for("check", RangePolicy::new(&exec, 0, 10)?, kernel!(|i| {
///         if i == 7 {
///             abort("row 7 is singular");
///         }
///         y[i] = 1.0;
///     }))
/// }));
/// let payload = run.expect_err("the kernel aborted");
/// assert_eq!(payload.downcast_ref::<String>().map(String::as_str), Some("row 7 is singular"));
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[track_caller]
pub fn abort(message: &str) -> ! {
    panic!("{message}")
}
