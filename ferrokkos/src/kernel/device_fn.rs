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

/// Implemented by `#[ferrokkos::device] impl T { ... }`, and only by it (and by this crate for the
/// shadows of its containers' kernel methods), for each method and associated function of the block: `NAME` is the function's name as a type ([`Ch`]). A kernel's
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

/// What a kernel's shadow calls a method on: a value of a `#[device]` type (`Expr<T>`, whose
/// expression is noted for the method's shadow), or a captured container's shadow that kernels
/// call methods of (a [`crate::Bitset`]'s). `Target` is what the method's shadow `__fk_<name>` is
/// called on, and proves with [`DeviceMethod`] that it has that method.
///
/// # Safety
/// `Target` is the type whose `DeviceMethod` proofs and shadows the call uses: the receiver's own.
#[diagnostic::on_unimplemented(
    message = "kernels call no methods on `{Self}` but the built-in ones",
    note = "kernels call the methods of `#[ferrokkos::device] impl` blocks, the built-in methods of \
            numbers and Views, and a captured container's kernel methods (a Bitset's `set`, \
            `reset`, `test`, `size`)"
)]
pub unsafe trait MethodReceiver {
    /// What the method's shadow is called on.
    type Target;
    /// Gives the value the method's shadow is called on.
    fn receive(self) -> Self::Target;
}

// SAFETY: the target is the receiver's type.
unsafe impl<T: crate::kernel::value::DeviceValue> MethodReceiver for crate::kernel::expr::Expr<T> {
    type Target = T;
    fn receive(self) -> T {
        crate::kernel::shadow::receiver(self)
    }
}

/// A call of the method named `NAME` on `receiver` (a `#[device]` type's value, whose expression
/// is noted for the method's shadow, [`crate::__private::shadow::receiver`], or a captured
/// container's shadow): runs `call`, which calls the method's shadow on the receiver's
/// [`MethodReceiver::Target`], after checking that it has that method ([`DeviceMethod`]).
pub fn device_method<T, R, NAME>(receiver: T, call: impl FnOnce(T::Target) -> R) -> R
where
    T: MethodReceiver,
    T::Target: DeviceMethod<NAME>,
{
    call(receiver.receive())
}

/// Compiles only when `T` has the `#[device]` associated function named `NAME` (a kernel's shadow
/// calls this before `T::__fk_<name>(..)`).
#[inline(always)]
pub fn device_assoc<T: DeviceMethod<NAME> + ?Sized, NAME>() {}
