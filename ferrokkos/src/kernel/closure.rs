//! [`DeviceClosure`]: a function of values that kernels call, written as a closure with its
//! parameter and result types, `kernel!(|x: f64| -> bool { x > t })` (Kokkos' `KOKKOS_LAMBDA`
//! handed to an algorithm: a predicate, a binary operation, a transform).
//!
//! A closure is its captured values (a tuple of [`DeviceValue`]s, copied when it is made), its host
//! form (a Rust closure taking the captures and the arguments) and its typed shadow (which emits its
//! body as a C++ device function whose parameters are the captures, then the arguments). A kernel
//! captures a closure like a number and calls it as `f.call(x)`: on the host that is the host form;
//! on the device the closure travels as one parameter (a struct of its captures, `closure_cxx.rs`)
//! and the call is the device function's.
//!
//! Soundness: a closure reads nothing but its captures and arguments and writes nothing outside
//! itself (`kernel!` refuses captures it writes, atomics, `unsafe`, Views), so calling it from any
//! number of iterations at once races with nothing; its captures are values, so it holds no borrow
//! and may outlive what it was made from.

use std::marker::PhantomData;

use super::capture::{Borrowed, IntoCapture, KernelScalar, KernelValue};
use super::closure_cxx::{ClosureArgs, ClosureCaptures, ClosureCxx};
use super::expr::Expr;
use super::params::ParamWriter;
use super::value::DeviceValue;
use crate::seal::{Sealed, SealedKernelValue};
use crate::view::kernel_access::ViewAccess;

/// A function of values that kernels (and the std algorithms) call, made by
/// `kernel!(|x: T| -> R { ... })` with up to three typed parameters. `C` is its captured values,
/// `A` the tuple of its parameter types, `R` its result type; `H` and `S` are its host form and
/// typed shadow (generated). Call it in a kernel as `f.call(x)` (`f.call(a, b)` for two
/// parameters), or on the host with the same method.
///
/// ```
/// use ferrokkos::prelude::*;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Serial::default_instance()?;
/// let t = 0.5;
/// let above = kernel!(|x: f64| -> bool { x > t });
/// assert!(above.call(0.75) && !above.call(0.25));
///
/// let x = View::<f64, 1>::new("x", [4])?;
/// x.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[0.1, 0.6, 0.9, 0.3]);
/// let flags = View::<u8, 1>::new("flags", [4])?;
/// parallel_for("flag", RangePolicy::new(&exec, 0, 4)?,
///     kernel!(|i| flags[i] = above.call(x[i]) as u8))?;
/// assert_eq!(flags.to_vec()?, [0, 1, 1, 0]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct DeviceClosure<C, A, R, H, S> {
    captures: C,
    host: H,
    shadow: S,
    _signature: PhantomData<fn(A) -> R>,
}

impl<C: Copy, A, R, H: Copy, S: Copy> Clone for DeviceClosure<C, A, R, H, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: Copy, A, R, H: Copy, S: Copy> Copy for DeviceClosure<C, A, R, H, S> {}

impl<C, A, R, H, S> std::fmt::Debug for DeviceClosure<C, A, R, H, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceClosure({} -> {})",
            std::any::type_name::<A>(),
            std::any::type_name::<R>()
        )
    }
}

impl<C, A, R, H, S> DeviceClosure<C, A, R, H, S>
where
    C: ClosureCaptures,
    A: ClosureArgs,
    R: DeviceValue,
    H: Fn(C, A) -> R + Copy + Send + Sync + 'static,
    S: Fn(ClosureKey, C::Shadow, A::Shadow) -> Expr<R> + Copy + Send + Sync + 'static,
{
    /// The closure of `captures`, host form `host` and typed shadow `shadow` (`kernel!` calls this).
    ///
    /// # Safety
    /// `host` and `shadow` are the same function: `host` the closure's body as Rust runs it over the
    /// captures and arguments, `shadow` the translation of the same body by the typed shadow (after
    /// the same checks as a kernel body), which reads only its captures and arguments and writes
    /// nothing outside itself.
    #[doc(hidden)]
    pub unsafe fn new(captures: C, host: H, shadow: S) -> Self {
        DeviceClosure {
            captures,
            host,
            shadow,
            _signature: PhantomData,
        }
    }

    /// The closure's result for the argument tuple `args`.
    #[inline(always)]
    fn apply(&self, args: A) -> R {
        (self.host)(self.captures, args)
    }
}

impl<C, R, H, S> DeviceClosure<C, (), R, H, S>
where
    C: ClosureCaptures,
    R: DeviceValue,
    H: Fn(C, ()) -> R + Copy + Send + Sync + 'static,
    S: Fn(ClosureKey, C::Shadow, ()) -> Expr<R> + Copy + Send + Sync + 'static,
{
    /// The closure's value (in a kernel as on the host).
    #[inline(always)]
    pub fn call(&self) -> R {
        self.apply(())
    }
}

impl<C, A0, R, H, S> DeviceClosure<C, (A0,), R, H, S>
where
    C: ClosureCaptures,
    (A0,): ClosureArgs,
    R: DeviceValue,
    H: Fn(C, (A0,)) -> R + Copy + Send + Sync + 'static,
    S: Fn(ClosureKey, C::Shadow, <(A0,) as ClosureArgs>::Shadow) -> Expr<R>
        + Copy
        + Send
        + Sync
        + 'static,
{
    /// The closure's value at `x` (in a kernel as on the host).
    #[inline(always)]
    pub fn call(&self, x: A0) -> R {
        self.apply((x,))
    }
}

impl<C, A0, A1, R, H, S> DeviceClosure<C, (A0, A1), R, H, S>
where
    C: ClosureCaptures,
    (A0, A1): ClosureArgs,
    R: DeviceValue,
    H: Fn(C, (A0, A1)) -> R + Copy + Send + Sync + 'static,
    S: Fn(ClosureKey, C::Shadow, <(A0, A1) as ClosureArgs>::Shadow) -> Expr<R>
        + Copy
        + Send
        + Sync
        + 'static,
{
    /// The closure's value at `(a, b)` (in a kernel as on the host).
    #[inline(always)]
    pub fn call(&self, a: A0, b: A1) -> R {
        self.apply((a, b))
    }
}

impl<C, A0, A1, A2, R, H, S> DeviceClosure<C, (A0, A1, A2), R, H, S>
where
    C: ClosureCaptures,
    (A0, A1, A2): ClosureArgs,
    R: DeviceValue,
    H: Fn(C, (A0, A1, A2)) -> R + Copy + Send + Sync + 'static,
    S: Fn(ClosureKey, C::Shadow, <(A0, A1, A2) as ClosureArgs>::Shadow) -> Expr<R>
        + Copy
        + Send
        + Sync
        + 'static,
{
    /// The closure's value at `(a, b, c)` (in a kernel as on the host).
    #[inline(always)]
    pub fn call(&self, a: A0, b: A1, c: A2) -> R {
        self.apply((a, b, c))
    }
}

/// A function of the argument tuple `A` that kernels call: a [`DeviceClosure`] (sealed). The std
/// algorithms take their operations as `F: DeviceFn<(T,), Output = bool>` (a predicate of `T`),
/// `F: DeviceFn<(T, T), Output = T>` (a binary operation), and so on.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a device closure taking `{A}`",
    label = "expected `kernel!(|..| -> R {{ .. }})` with these parameter types",
    note = "write the operation as a closure with typed parameters and a result type, e.g. \
            `kernel!(|x: f64| -> bool {{ x > 0.0 }})`; its parameter types are the algorithm's \
            element types"
)]
pub trait DeviceFn<A: ClosureArgs>: Sealed + Copy + Send + Sync + 'static {
    /// The result type.
    type Output: DeviceValue;
    #[doc(hidden)]
    type Captures: ClosureCaptures;
    #[doc(hidden)]
    type Host: Fn(Self::Captures, A) -> Self::Output + Copy + Send + Sync + 'static;
    #[doc(hidden)]
    type Shadow: Fn(ClosureKey, <Self::Captures as ClosureCaptures>::Shadow, A::Shadow) -> Expr<Self::Output>
        + Copy
        + Send
        + Sync
        + 'static;
    /// The closure itself, as its type (generic code captures this).
    #[doc(hidden)]
    fn closure(self) -> DeviceClosure<Self::Captures, A, Self::Output, Self::Host, Self::Shadow>;
}

impl<C, A, R, H, S> Sealed for DeviceClosure<C, A, R, H, S> {}

impl<C, A, R, H, S> DeviceFn<A> for DeviceClosure<C, A, R, H, S>
where
    C: ClosureCaptures,
    A: ClosureArgs,
    R: DeviceValue,
    H: Fn(C, A) -> R + Copy + Send + Sync + 'static,
    S: Fn(ClosureKey, C::Shadow, A::Shadow) -> Expr<R> + Copy + Send + Sync + 'static,
{
    type Output = R;
    type Captures = C;
    type Host = H;
    type Shadow = S;
    fn closure(self) -> Self {
        self
    }
}

/// A kernel captures a closure as itself.
impl<C, A, R, H, S> IntoCapture for DeviceClosure<C, A, R, H, S>
where
    C: ClosureCaptures,
    A: ClosureArgs,
    R: DeviceValue,
    H: Fn(C, A) -> R + Copy + Send + Sync + 'static,
    S: Fn(ClosureKey, C::Shadow, A::Shadow) -> Expr<R> + Copy + Send + Sync + 'static,
{
    type Value = Self;
    fn capture_value(&self) -> Self {
        *self
    }
}

impl<C, A, R, H, S> SealedKernelValue for DeviceClosure<C, A, R, H, S> {}

impl<C, A, R, H, S> KernelValue for DeviceClosure<C, A, R, H, S>
where
    C: ClosureCaptures,
    A: ClosureArgs,
    R: DeviceValue,
    H: Fn(C, A) -> R + Copy + Send + Sync + 'static,
    S: Fn(ClosureKey, C::Shadow, A::Shadow) -> Expr<R> + Copy + Send + Sync + 'static,
{
    type Host<'a> = Self;
    type Shadow = ClosureShadow<C, A, R, S>;
    fn read_access(&self, _: &'static str) -> Option<ViewAccess<'_>> {
        None
    }
    fn read_host(&self, _: &Borrowed) -> Self {
        *self
    }
    fn read_shadow(&self, cxx_name: &str) -> Self::Shadow {
        ClosureShadow {
            param: Expr::name(cxx_name),
            shadow: self.shadow,
            _signature: PhantomData,
        }
    }
    fn read_cxx_type() -> String {
        format!("const {}", C::cxx_struct())
    }
    fn read_pack(&self, w: &mut ParamWriter<'_>) {
        self.captures.pack(w);
    }
}

impl<C, A, R, H, S> KernelScalar for DeviceClosure<C, A, R, H, S>
where
    C: ClosureCaptures,
    A: ClosureArgs,
    R: DeviceValue,
    H: Fn(C, A) -> R + Copy + Send + Sync + 'static,
    S: Fn(ClosureKey, C::Shadow, A::Shadow) -> Expr<R> + Copy + Send + Sync + 'static,
{
}

/// A captured closure in the typed shadow: its kernel parameter (the struct of its captures) and
/// its shadow, which `f.call(x)` runs on the struct's fields and the arguments.
pub struct ClosureShadow<C, A, R, S> {
    param: Expr<ClosureCxx>,
    shadow: S,
    _signature: PhantomData<fn(C, A) -> R>,
}

impl<C, A, R, S: Copy> Clone for ClosureShadow<C, A, R, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C, A, R, S: Copy> Copy for ClosureShadow<C, A, R, S> {}

impl<C: ClosureCaptures, A: ClosureArgs, R, S: 'static> ClosureShadow<C, A, R, S>
where
    S: Fn(ClosureKey, C::Shadow, A::Shadow) -> Expr<R>,
{
    /// The call with the argument tuple `args`.
    pub(crate) fn apply(self, args: A::Shadow) -> Expr<R> {
        let key = ClosureKey(std::any::TypeId::of::<S>());
        (self.shadow)(key, C::fields(self.param), args)
    }
}

/// What identifies a closure's C++ function in a translation unit: the type of its shadow, which
/// differs between the instantiations of generic code around it (type and const parameters
/// alike), so that each gets its own function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClosureKey(std::any::TypeId);

impl ClosureKey {
    /// The key as a `TypeId` (what `device_call` keys functions by).
    pub fn type_id(self) -> std::any::TypeId {
        self.0
    }
}
