//! [`DeviceFunction`]: the proof that a function may be called from kernels.

/// Implemented by `#[ferrokkos::device]`, and only by it, for the type it generates next to a device
/// function (`__fk_device_<name>`, with the function's host form `host` and its typed shadow
/// `shadow`). A kernel calls `f(x)` through that type after checking that it implements this trait:
/// an item named like it, written by hand, does not.
///
/// # Safety
/// `host` and `shadow` must be the same function: `host` the function as Rust runs it, `shadow` the
/// translation of the same body by the typed shadow (which `#[device]` generates, after the same
/// checks as a kernel body).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[ferrokkos::device]` function",
    note = "kernels call only functions marked `#[ferrokkos::device]`"
)]
pub unsafe trait DeviceFunction {}

/// Compiles only when `F` is the marker of a `#[device]` function (a kernel's host body calls this
/// before calling the function).
#[inline(always)]
pub fn device_function<F: DeviceFunction + ?Sized>() {}
