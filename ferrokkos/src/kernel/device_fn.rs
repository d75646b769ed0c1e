//! [`DeviceFunction`]: the proof that a function may be called from kernels.

/// Implemented by `#[ferrokkos::device]`, and only by it, for the type it generates next to a device
/// function (`__fk_device_<name>`, with the function's host form `host` and its typed shadow
/// `shadow`). A kernel calls `f(x)` through that type after checking that it implements this trait:
/// an item named like it, written by hand, does not.
///
/// # Safety
/// `host` and `shadow` must be the same function: `host` the function as Rust runs it, `shadow` the
/// translation of the same body by the typed shadow (which `#[device]` generates, after the same
/// checks as a kernel body). Where [`DeviceFunction::ACCESSES`] is `Some`, `host` reads each of
/// its View parameters only at the index maps listed there (evaluated at its arguments, in their
/// types) and uses it otherwise only for its extents.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[ferrokkos::device]` function",
    note = "kernels call only functions marked `#[ferrokkos::device]`"
)]
pub unsafe trait DeviceFunction {
    /// Every read of a View parameter that the function makes, when each index is an affine map
    /// of its parameters (a kernel's launch then proves them in bounds at the call's arguments,
    /// see `kernel/device_bounds.rs`); `None` otherwise.
    const ACCESSES: Option<&'static [super::device_bounds::DeviceAccess]> = None;
}

/// Compiles only when `F` is the marker of a `#[device]` function (a kernel's host body calls this
/// before calling the function).
#[inline(always)]
pub fn device_function<F: DeviceFunction + ?Sized>() {}

/// One character of a `#[device] impl` function's name, as a type: a name is the list
/// `Ch<'d', Ch<'o', Ch<'t', ()>>>` (`dot`), the `NAME` of its [`DeviceMethod`] proof. Two names
/// are one type exactly when they are one name.
pub struct Ch<const C: char, Rest>(std::marker::PhantomData<Rest>);

/// Implemented by `#[ferrokkos::device] impl T { ... }`, and only by it, for each method and
/// associated function of the block: `NAME` is the function's name as a type ([`Ch`]). A kernel's
/// typed shadow reaches a device method `v.dot(w)` through the hidden shadow `__fk_dot` of the
/// receiver's type, found by its name; this proof, checked first, makes that shadow the one
/// `#[device]` generated (an inherent function of the same name written by hand would be a second
/// definition, and a trait's loses to the inherent one), so the device code of a kernel is the
/// translation of the bodies it calls, which depends only on their types.
///
/// # Safety
/// `T::__fk_<name>` and `T::__fkt_<name>` must be the typed shadows `#[device]` generated from the
/// body of `T::<name>` (the name `NAME` spells).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `#[ferrokkos::device]` method or associated function of the name \
               called here",
    label = "not a method or associated function kernels can call on `{Self}`",
    note = "kernels call the methods and associated functions of `#[ferrokkos::device] impl` blocks \
            (and of `#[ferrokkos::device] impl DeviceJoin for T`), besides the built-in methods of \
            numbers and Views"
)]
pub unsafe trait DeviceMethod<NAME> {}

/// A call of the `#[device]` method named `NAME` on `receiver`: notes the receiver's expression
/// for the method's shadow ([`crate::__private::shadow::receiver`]) and runs `call`, which calls the
/// shadow on a value of the receiver's type.
pub fn device_method<T, R, NAME>(
    receiver: crate::kernel::expr::Expr<T>,
    call: impl FnOnce(T) -> R,
) -> R
where
    T: crate::kernel::value::DeviceValue + DeviceMethod<NAME>,
{
    call(crate::kernel::shadow::receiver(receiver))
}

/// Compiles only when `T` has the `#[device]` associated function named `NAME` (a kernel's shadow
/// calls this before `T::__fk_<name>(..)`).
#[inline(always)]
pub fn device_assoc<T: DeviceMethod<NAME> + ?Sized, NAME>() {}
