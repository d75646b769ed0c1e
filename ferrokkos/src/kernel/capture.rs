//! Captures: the values a kernel uses from its surroundings, found by `kernel!` (the free identifiers
//! of the body) and passed by value: numbers as themselves, Views and arrays as accessors on the host
//! and as `fk::View` / `fk::Array` parameters on the device.
//!
//! Soundness: [`Capture`], [`Captures`] and [`KernelValue`] are sealed. A launch trusts them to report
//! every captured View (it checks and borrows exactly those), to make host accessors only for Views
//! it borrowed (the [`Borrowed`] proof, which only this crate makes), and to describe the device
//! parameters truthfully; an implementation outside this crate could break any of these.
//!
//! The host values of a launch borrow the kernel (`Host<'a>`), so no accessor outlives the launch.

use super::expr::Expr;
use super::params::ParamWriter;
use super::ty::DeviceScalar;
use super::value::DeviceValue;
use super::view_expr::ViewExpr;
use crate::seal::{Sealed, SealedCapture, SealedCaptures, SealedKernelValue, SealedKernelWrite};
use crate::space::MemorySpace;
use crate::view::atomic::HostAtomic;
use crate::view::kernel_access::{AccessMode, AtomicAccess, ReadAccess, ViewAccess, WriteAccess};
use crate::view::{Element, Layout, View};

/// Proof that a launch holds the borrows of a kernel's captured Views; only this crate makes one.
pub struct Borrowed(());

impl Borrowed {
    /// # Safety
    /// The caller holds the borrows that the captures' accesses ask for, taken for a host launch
    /// (`LaunchBorrows` with `Reach::Host`, which also checked that every View is host-accessible),
    /// for as long as the host values made with this proof are used.
    pub(crate) unsafe fn assert() -> Self {
        Borrowed(())
    }
}

/// One captured value of a kernel, in the role the kernel gives it (sealed: made by `kernel!`
/// through [`read()`], [`value()`], [`write()`] and [`atomic()`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be captured this way by a kernel",
    note = "kernels write and update atomically only Views of numbers"
)]
pub trait Capture: SealedCapture + Send + Sync {
    /// What the host body sees (a copy of the value, or an accessor borrowed from the kernel).
    type Host<'a>: Copy + Sync
    where
        Self: 'a;
    /// What the typed shadow sees.
    type Shadow: Copy;
    /// The capture's name in the kernel.
    #[doc(hidden)]
    fn name(&self) -> &'static str;
    /// The View access to check and borrow at launch, if this is a View.
    #[doc(hidden)]
    fn access(&self) -> Option<ViewAccess<'_>>;
    /// The host value; `_proof` shows that the launch holds the borrows.
    #[doc(hidden)]
    fn host<'a>(&'a self, proof: &Borrowed) -> Self::Host<'a>;
    /// The host value for the host job participant that the calling thread runs now (a duplicated
    /// ScatterView's accessor keeps that participant's copy); itself for other captures. A driver
    /// localizes per run of iterations, on the thread that runs them.
    #[doc(hidden)]
    #[inline(always)]
    fn localize<'a>(host: Self::Host<'a>) -> Self::Host<'a>
    where
        Self: 'a,
    {
        host
    }
    /// The shadow handle of the kernel parameter named `cxx_name`.
    #[doc(hidden)]
    fn shadow(&self, cxx_name: &str) -> Self::Shadow;
    /// The C++ type of the kernel parameter (`const f32`, `fk::View<const f64, 1, fk::LayoutRight>`).
    #[doc(hidden)]
    fn cxx_type() -> String;
    /// Appends the kernel parameter's bytes.
    #[doc(hidden)]
    fn pack(&self, w: &mut ParamWriter<'_>);
}

/// A value a kernel may read: a [`DeviceValue`], an array of them, or a View of them (sealed).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be captured by a kernel (only read)",
    note = "kernels capture device values (numbers, `bool`s, `Complex`, `#[derive(DeviceValue)]` types), arrays of them and Views of them; compute other values inside the kernel"
)]
pub trait KernelValue: SealedKernelValue + Clone + Send + Sync + 'static {
    /// What the host body sees.
    type Host<'a>: Copy + Sync;
    /// What the typed shadow sees.
    type Shadow: Copy;
    #[doc(hidden)]
    fn read_access(&self, name: &'static str) -> Option<ViewAccess<'_>>;
    #[doc(hidden)]
    fn read_host<'a>(&'a self, proof: &Borrowed) -> Self::Host<'a>;
    #[doc(hidden)]
    fn read_shadow(&self, cxx_name: &str) -> Self::Shadow;
    #[doc(hidden)]
    fn read_cxx_type() -> String;
    /// Appends the kernel parameter's bytes (a number, a View descriptor, an array).
    #[doc(hidden)]
    fn read_pack(&self, w: &mut ParamWriter<'_>);
}

impl<T: DeviceValue> SealedKernelValue for T {}

impl<T: DeviceValue> KernelValue for T {
    type Host<'a> = T;
    type Shadow = Expr<T>;
    fn read_access(&self, _: &'static str) -> Option<ViewAccess<'_>> {
        None
    }
    fn read_host(&self, _: &Borrowed) -> T {
        *self
    }
    fn read_shadow(&self, cxx_name: &str) -> Expr<T> {
        Expr::name(cxx_name)
    }
    fn read_cxx_type() -> String {
        format!("const {}", T::cxx_name())
    }
    fn read_pack(&self, w: &mut ParamWriter<'_>) {
        // By reference: a large value (a captured array of many numbers) is then not copied into
        // the parameter buffer by a launch that passes one pointer per parameter.
        w.push_ref(self);
    }
}

/// The C++ spelling of a View parameter.
pub(crate) fn view_cxx<T: DeviceValue, const R: usize, L: Layout>(konst: bool) -> String {
    let c = if konst { "const " } else { "" };
    format!("fk::View<{c}{}, {R}, fk::{}>", T::cxx_name(), L::NAME)
}

impl<T: DeviceValue, const R: usize, L: Layout, M: MemorySpace> Sealed for View<T, R, L, M> {}

impl<T: DeviceValue, const R: usize, L: Layout, M: MemorySpace> SealedKernelValue
    for View<T, R, L, M>
{
}

impl<T, const R: usize, L, M> KernelValue for View<T, R, L, M>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
{
    type Host<'a> = ReadAccess<'a, T, R, L>;
    type Shadow = ViewExpr<T, R, L>;
    fn read_access(&self, name: &'static str) -> Option<ViewAccess<'_>> {
        Some(ViewAccess::of(name, self, AccessMode::Read))
    }
    fn read_host<'a>(&'a self, _: &Borrowed) -> ReadAccess<'a, T, R, L> {
        // SAFETY: the proof says the launch holds this allocation's borrow (shared or, if another
        // capture writes it in an `unsafe` kernel, exclusive) while the accessor is used, and that
        // the kernel obeys the race rules or was declared unsafe; host values are made only for
        // host launches, which checked that the View's memory is host-accessible (`Reach::Host`).
        unsafe { ReadAccess::new(self) }
    }
    fn read_shadow(&self, cxx_name: &str) -> Self::Shadow {
        ViewExpr::new(cxx_name)
    }
    fn read_cxx_type() -> String {
        view_cxx::<T, R, L>(true)
    }
    fn read_pack(&self, w: &mut ParamWriter<'_>) {
        pack_view(self, w);
    }
}

/// Appends the `fk::View` descriptor of `view`.
fn pack_view<T: Element, const R: usize, L: Layout, M: MemorySpace>(
    view: &View<T, R, L, M>,
    w: &mut ParamWriter<'_>,
) {
    w.push_view(view.as_ptr() as u64, &view.extents(), &view.strides());
}

/// A capture the kernel indexes and only reads (a View or an array).
pub struct Read<V> {
    value: V,
    name: &'static str,
}

/// A capture the kernel uses as a value (a number).
pub struct Value<V> {
    value: V,
    name: &'static str,
}

/// A capture the kernel writes (a View, or an OffsetView, whose `Capture` implementation lives
/// with it).
pub struct Write<V> {
    pub(crate) value: V,
    pub(crate) name: &'static str,
}

/// A capture the kernel updates atomically (a View, or a container's View such as a
/// `ScatterView`, whose `Capture` implementation lives with it).
pub struct Atomic<V> {
    pub(crate) value: V,
    pub(crate) name: &'static str,
}

/// A capture the kernel acquires ids of (a `UniqueToken`, whose `Capture` implementation lives
/// with it).
pub struct TokenUse<V> {
    pub(crate) value: V,
    pub(crate) name: &'static str,
}

/// What a kernel acquires ids of: a `UniqueToken` (sealed).
#[diagnostic::on_unimplemented(
    message = "the kernel acquires ids of `{Self}`, which is not a UniqueToken",
    label = "`acquire()`, `release(id)` and `size()` in a kernel are a UniqueToken's",
    note = "make one with `UniqueToken::new(&exec)` and capture it: `let id = token.acquire();`"
)]
pub trait KernelToken: Sealed {}

/// Captures `value`, which the kernel uses as a UniqueToken (`token.acquire()`, `token.size()`),
/// as `name`.
pub fn token<C: IntoCapture + ?Sized>(value: &C, name: &'static str) -> TokenUse<C::Value>
where
    C::Value: KernelToken,
    TokenUse<C::Value>: Capture,
{
    TokenUse {
        value: value.capture_value(),
        name,
    }
}

/// A capture the kernel holds generator states of (a random pool, whose `Capture` implementation
/// lives with it).
pub struct PoolUse<V> {
    pub(crate) value: V,
    pub(crate) name: &'static str,
}

/// What a kernel holds generator states of: a random pool (sealed).
#[diagnostic::on_unimplemented(
    message = "the kernel takes generator states of `{Self}`, which is not a random pool",
    label = "`get_state()` and `free_state(rng)` in a kernel are a random pool's",
    note = "make one with `RandomXorShift64Pool::new(&exec, seed)` and capture it: `let mut rng = \
            pool.get_state();`"
)]
pub trait KernelRandomPool: Sealed {}

/// Captures `value`, which the kernel takes generator states of (`pool.get_state()`), as `name`.
pub fn random_pool<C: IntoCapture + ?Sized>(value: &C, name: &'static str) -> PoolUse<C::Value>
where
    C::Value: KernelRandomPool,
    PoolUse<C::Value>: Capture,
{
    PoolUse {
        value: value.capture_value(),
        name,
    }
}

/// How a captured name becomes a captured value: numbers are copied, Views cloned (sharing the
/// allocation), and references to either captured as what they refer to (so that `let x = &self.x;`
/// can be captured).
///
/// Nothing unsafe relies on this trait (a launch trusts only the captured value's own, sealed,
/// [`KernelValue`] implementation), so you may implement it for your own types.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be captured by a kernel",
    note = "kernels capture numbers, `bool`s, arrays of them and Views of them; compute other values inside the kernel"
)]
pub trait IntoCapture {
    /// The captured value.
    type Value: Clone + Send + Sync + 'static;
    /// The value to capture.
    fn capture_value(&self) -> Self::Value;
}

impl<T: IntoCapture + ?Sized> IntoCapture for &T {
    type Value = T::Value;
    fn capture_value(&self) -> T::Value {
        (**self).capture_value()
    }
}

impl<T: IntoCapture + ?Sized> IntoCapture for &mut T {
    type Value = T::Value;
    fn capture_value(&self) -> T::Value {
        (**self).capture_value()
    }
}

macro_rules! into_capture {
    ($($t:ty)*) => {$(
        impl IntoCapture for $t {
            type Value = $t;
            fn capture_value(&self) -> $t {
                *self
            }
        }
    )*};
}

into_capture!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize f32 f64 bool);

impl<T: Element, const R: usize, L: Layout, M: crate::space::MemorySpace> IntoCapture
    for View<T, R, L, M>
{
    type Value = View<T, R, L, M>;
    fn capture_value(&self) -> Self::Value {
        self.clone()
    }
}

/// An [`crate::AtomicView`] is captured as its View; the kernel's accesses of it are atomic (the
/// macro rewrites them, and [`AtomicMemory`] lets it).
impl<T, const R: usize, L, M> IntoCapture for crate::view::AtomicView<T, R, L, M>
where
    T: crate::view::atomic::HostAtomic,
    L: Layout,
    M: crate::space::MemorySpace,
{
    type Value = View<T, R, L, M>;
    fn capture_value(&self) -> Self::Value {
        self.view().clone()
    }
}

mod atomic_seal {
    /// The seal of [`super::AtomicMemory`].
    #[diagnostic::on_unimplemented(
        message = "`AtomicMemory` is sealed: only an `AtomicView` is written atomically",
        label = "`{Self}` cannot be written other than one to one",
        note = "a kernel writes a View other than one to one only if every access of it is \
                atomic; capture `view.atomic()` (an `AtomicView`) instead"
    )]
    pub trait Sealed {}
}

pub(crate) use atomic_seal::Sealed as AtomicSeal;

/// What a kernel may write at any index because every access is atomic: an [`crate::AtomicView`]
/// (and references to one). `kernel!` requires it of a View that it writes other than one to one
/// (sealed).
pub trait AtomicMemory: atomic_seal::Sealed {}

impl<T, const R: usize, L, M> atomic_seal::Sealed for crate::view::AtomicView<T, R, L, M>
where
    T: crate::view::atomic::HostAtomic,
    L: Layout,
    M: crate::space::MemorySpace,
{
}

#[diagnostic::do_not_recommend]
impl<T, const R: usize, L, M> AtomicMemory for crate::view::AtomicView<T, R, L, M>
where
    T: crate::view::atomic::HostAtomic,
    L: Layout,
    M: crate::space::MemorySpace,
{
}

impl<A: AtomicMemory + ?Sized> atomic_seal::Sealed for &A {}

#[diagnostic::do_not_recommend]
impl<A: AtomicMemory + ?Sized> AtomicMemory for &A {}

mod plain_seal {
    /// The seal of [`super::PlainMemory`].
    #[diagnostic::on_unimplemented(
        message = "`PlainMemory` is sealed: only a `View` is written plainly",
        label = "`{Self}` is not a plain View"
    )]
    pub trait Sealed {}
}

/// A View whose accesses are plain (not an [`crate::AtomicView`]), and references to one: what a
/// kernel may write at a rank-0 View's one element in a launch of one iteration, which an atomic
/// View would have to do atomically (sealed).
pub trait PlainMemory: plain_seal::Sealed {}

impl<T: Element, const R: usize, L: Layout, M: MemorySpace> plain_seal::Sealed
    for View<T, R, L, M>
{
}

#[diagnostic::do_not_recommend]
impl<T: Element, const R: usize, L: Layout, M: MemorySpace> PlainMemory for View<T, R, L, M> {}

impl<A: PlainMemory + ?Sized> plain_seal::Sealed for &A {}

#[diagnostic::do_not_recommend]
impl<A: PlainMemory + ?Sized> PlainMemory for &A {}

/// Captures `value` (a View or an array, which the kernel indexes) as read-only `name`.
pub fn read<C: IntoCapture + ?Sized>(value: &C, name: &'static str) -> Read<C::Value> {
    Read {
        value: value.capture_value(),
        name,
    }
}

/// A View a kernel passes whole to a `#[device]` function (`f(&u, i)`) and reaches no other way:
/// a plain View is captured read-only (for a `&View<T, R>` parameter, which only reads it), an
/// [`crate::AtomicView`] as atomic (for a `&AtomicView<T, R>` parameter, whose every access is
/// atomic). The function's host form takes what each capture gives (`ViewRead` or an
/// `AtomicAccess`), so a View reaches a parameter only of its own kind (sealed).
#[diagnostic::on_unimplemented(
    message = "the kernel passes `{Self}` to a device function, but only Views can be passed so",
    note = "a device function takes a View it reads (`&View<T, R>`) or an atomic View it updates \
            (`&AtomicView<T, R>`); pass values as themselves (`f(x)`)"
)]
pub trait PassedView: SealedKernelWrite {
    /// The capture.
    type Capture: Capture;
    /// The capture of `self` as `name`.
    #[doc(hidden)]
    fn passed(&self, name: &'static str) -> Self::Capture;
}

impl<T: DeviceValue, const R: usize, L: Layout, M: MemorySpace> PassedView for View<T, R, L, M> {
    type Capture = Read<View<T, R, L, M>>;
    fn passed(&self, name: &'static str) -> Self::Capture {
        read(self, name)
    }
}

impl<T, const R: usize, L, M> Sealed for crate::view::AtomicView<T, R, L, M>
where
    T: DeviceScalar + HostAtomic,
    L: Layout,
    M: MemorySpace,
{
}

impl<T, const R: usize, L, M> PassedView for crate::view::AtomicView<T, R, L, M>
where
    T: DeviceScalar + HostAtomic,
    L: Layout,
    M: MemorySpace,
{
    type Capture = Atomic<View<T, R, L, M>>;
    fn passed(&self, name: &'static str) -> Self::Capture {
        atomic(self, name)
    }
}

impl<P: PassedView + ?Sized> Sealed for &P {}

impl<P: PassedView + ?Sized> PassedView for &P {
    type Capture = P::Capture;
    fn passed(&self, name: &'static str) -> Self::Capture {
        (**self).passed(name)
    }
}

/// Captures the View `value`, which the kernel only passes to `#[device]` functions, as `name`
/// (see [`PassedView`]).
pub fn passed<P: PassedView + ?Sized>(value: &P, name: &'static str) -> P::Capture {
    value.passed(name)
}

/// A value a kernel may use as a value (not index): a number, a `bool`, a [`DeviceValue`] struct,
/// or a container whose kernel methods it calls (a [`crate::Bitset`]) (sealed).
#[diagnostic::on_unimplemented(
    message = "the kernel uses `{Self}` as a value, but only numbers, `bool`s and `DeviceValue` \
               structs can be used so",
    note = "a kernel reaches a View or an array only by indexing it (`x[i]`), `x.extent(r)` or an atomic \
            (`h.atomic_add(k, v)`); it cannot pass one to a function or call other methods on it"
)]
pub trait KernelScalar: KernelValue {}

impl<T: DeviceValue> KernelScalar for T {}

/// Captures the number `value` as `name` (the kernel uses it as a value, or calls a container's
/// kernel methods on it).
pub fn value<C: IntoCapture + ?Sized>(value: &C, name: &'static str) -> Value<C::Value>
where
    C::Value: KernelScalar,
{
    Value {
        value: value.capture_value(),
        name,
    }
}

/// What a [`DeviceClosure`](super::closure::DeviceClosure) may capture: a device value (a number,
/// a `bool`, a [`DeviceValue`] struct, an array of them).
#[diagnostic::on_unimplemented(
    message = "a device closure captures only values, but `{Self}` is not one",
    note = "a closure `kernel!(|x: T| -> R {{ .. }})` captures numbers, `bool`s, `DeviceValue` structs \
            and arrays of them, copied when it is made; it reads no View (index the View in a \
            kernel and pass the element to the closure)"
)]
pub trait ClosureValue: DeviceValue {}

impl<T: DeviceValue> ClosureValue for T {}

/// Captures `value` for a device closure (a copy).
pub fn closure_value<C: IntoCapture + ?Sized>(value: &C) -> C::Value
where
    C::Value: ClosureValue,
{
    value.capture_value()
}

/// A value a kernel may write: a View of [`DeviceValue`] elements (in any memory space; a launch
/// checks that its execution space can reach it).
#[diagnostic::on_unimplemented(
    message = "the kernel writes `{Self}`, but only Views can be written by a kernel",
    note = "captured numbers are read-only copies; declare a local (`let mut t = a;`) or write a View"
)]
pub trait KernelWritable: SealedKernelWrite {}

impl<T: DeviceValue, const R: usize, L: Layout, M: MemorySpace> KernelWritable
    for View<T, R, L, M>
{
}

/// A value a kernel may update atomically: a View of `i32`, `u32`, `i64`, `u64`, `isize`, `usize`,
/// `f32` or `f64`.
#[diagnostic::on_unimplemented(
    message = "the kernel updates `{Self}` atomically, but only Views of i32, u32, i64, u64, isize, \
               usize, f32 or f64 can be",
    note = "`atomic_add`, `atomic_min` and `atomic_max` act on an element of a captured View"
)]
pub trait KernelAtomic: SealedKernelWrite {}

impl<T: DeviceScalar + HostAtomic, const R: usize, L: Layout, M: MemorySpace> KernelAtomic
    for View<T, R, L, M>
{
}

/// Captures the View `value` as `name`, written by the kernel.
pub fn write<C: IntoCapture + ?Sized>(value: &C, name: &'static str) -> Write<C::Value>
where
    C::Value: KernelWritable,
{
    Write {
        value: value.capture_value(),
        name,
    }
}

/// Captures the View `value` as `name`, updated atomically by the kernel.
pub fn atomic<C: IntoCapture + ?Sized>(value: &C, name: &'static str) -> Atomic<C::Value>
where
    C::Value: KernelAtomic,
{
    Atomic {
        value: value.capture_value(),
        name,
    }
}

/// The [`Capture`] implementation of a read-only role (`Read`, `Value`) over a [`KernelValue`].
macro_rules! read_only_capture {
    ($($role:ident),*) => {$(
        impl<V: KernelValue> Sealed for $role<V> {}

        impl<V: KernelValue> Capture for $role<V> {
            type Host<'a> = V::Host<'a>;
            type Shadow = V::Shadow;
            fn name(&self) -> &'static str {
                self.name
            }
            fn access(&self) -> Option<ViewAccess<'_>> {
                self.value.read_access(self.name)
            }
            fn host<'a>(&'a self, proof: &Borrowed) -> V::Host<'a> {
                self.value.read_host(proof)
            }
            fn shadow(&self, cxx_name: &str) -> V::Shadow {
                self.value.read_shadow(cxx_name)
            }
            fn cxx_type() -> String {
                V::read_cxx_type()
            }
            fn pack(&self, w: &mut ParamWriter<'_>) {
                self.value.read_pack(w);
            }
        }
    )*};
}

read_only_capture!(Read, Value);

impl<T: DeviceValue, const R: usize, L: Layout, M: MemorySpace> Sealed for Write<View<T, R, L, M>> {}

impl<T, const R: usize, L, M> Capture for Write<View<T, R, L, M>>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
{
    type Host<'a> = WriteAccess<'a, T, R, L>;
    type Shadow = ViewExpr<T, R, L>;
    fn name(&self) -> &'static str {
        self.name
    }
    fn access(&self) -> Option<ViewAccess<'_>> {
        Some(ViewAccess::of(self.name, &self.value, AccessMode::Write))
    }
    fn host<'a>(&'a self, _: &Borrowed) -> WriteAccess<'a, T, R, L> {
        // SAFETY: the proof says the launch holds this allocation's exclusive borrow while the
        // accessor is used; the accessor's element methods are `unsafe` (the kernel's race rules are
        // their contract); the host launch checked that the memory is host-accessible.
        unsafe { WriteAccess::new(&self.value) }
    }
    fn shadow(&self, cxx_name: &str) -> Self::Shadow {
        ViewExpr::new(cxx_name)
    }
    fn cxx_type() -> String {
        view_cxx::<T, R, L>(false)
    }
    fn pack(&self, w: &mut ParamWriter<'_>) {
        pack_view(&self.value, w);
    }
}

impl<T: DeviceScalar + HostAtomic, const R: usize, L: Layout, M: MemorySpace> Sealed
    for Atomic<View<T, R, L, M>>
{
}

impl<T, const R: usize, L, M> Capture for Atomic<View<T, R, L, M>>
where
    T: DeviceScalar + HostAtomic,
    L: Layout,
    M: MemorySpace,
{
    type Host<'a> = AtomicAccess<'a, T, R, L>;
    type Shadow = ViewExpr<T, R, L>;
    fn name(&self) -> &'static str {
        self.name
    }
    fn access(&self) -> Option<ViewAccess<'_>> {
        Some(ViewAccess::of(self.name, &self.value, AccessMode::Atomic))
    }
    fn host<'a>(&'a self, _: &Borrowed) -> AtomicAccess<'a, T, R, L> {
        // SAFETY: the proof says the launch holds this allocation's exclusive borrow while the
        // accessor is used, and that the kernel reaches this View only atomically or was declared
        // unsafe; the host launch checked that the memory is host-accessible.
        unsafe { AtomicAccess::new(&self.value) }
    }
    fn shadow(&self, cxx_name: &str) -> Self::Shadow {
        ViewExpr::new(cxx_name)
    }
    fn cxx_type() -> String {
        view_cxx::<T, R, L>(false)
    }
    fn pack(&self, w: &mut ParamWriter<'_>) {
        pack_view(&self.value, w);
    }
}

/// All captures of one kernel: a tuple of [`Capture`]s (up to 16; sealed).
pub trait Captures: SealedCaptures + Send + Sync {
    /// The tuple of host values, borrowed from the captures for `'a`.
    type Host<'a>: Copy + Sync
    where
        Self: 'a;
    /// The tuple of shadow handles.
    type Shadow: Copy;
    /// The captures' names, in order.
    #[doc(hidden)]
    fn names(&self) -> Vec<&'static str>;
    /// Hands each captured View's access (to check and borrow at launch) to `f`, in capture order.
    #[doc(hidden)]
    fn for_each_access<'a>(&'a self, f: &mut dyn FnMut(ViewAccess<'a>));
    /// The host values (after the borrows are taken).
    #[doc(hidden)]
    fn host<'a>(&'a self, proof: &Borrowed) -> Self::Host<'a>;
    /// The host values for the participant the calling thread runs now ([`Capture::localize`]).
    #[doc(hidden)]
    fn localize<'a>(host: Self::Host<'a>) -> Self::Host<'a>
    where
        Self: 'a;
    /// The shadow handles of the parameters named `cxx_names`.
    #[doc(hidden)]
    fn shadow(&self, cxx_names: &[String]) -> Self::Shadow;
    /// The C++ types of the parameters.
    #[doc(hidden)]
    fn cxx_types() -> Vec<String>;
    /// Appends the parameters' bytes, in order.
    #[doc(hidden)]
    fn pack(&self, w: &mut ParamWriter<'_>);
}

macro_rules! captures {
    ($($c:ident $k:tt),*) => {
        impl<$($c: Capture),*> SealedCaptures for ($($c,)*) {}

        impl<$($c: Capture),*> Captures for ($($c,)*) {
            type Host<'a> = ($($c::Host<'a>,)*) where Self: 'a;
            type Shadow = ($($c::Shadow,)*);
            fn names(&self) -> Vec<&'static str> {
                vec![$(self.$k.name()),*]
            }
            fn for_each_access<'a>(&'a self, _f: &mut dyn FnMut(ViewAccess<'a>)) {
                $(
                    if let Some(a) = self.$k.access() {
                        _f(a);
                    }
                )*
            }
            #[allow(clippy::unused_unit)]
            fn host<'a>(&'a self, _proof: &Borrowed) -> Self::Host<'a> {
                ($(self.$k.host(_proof),)*)
            }
            #[allow(clippy::unused_unit)]
            #[inline(always)]
            fn localize<'a>(_host: Self::Host<'a>) -> Self::Host<'a> where Self: 'a {
                ($($c::localize(_host.$k),)*)
            }
            #[allow(clippy::unused_unit)]
            fn shadow(&self, _cxx_names: &[String]) -> Self::Shadow {
                ($(self.$k.shadow(&_cxx_names[$k]),)*)
            }
            fn cxx_types() -> Vec<String> {
                vec![$($c::cxx_type()),*]
            }
            fn pack(&self, _w: &mut ParamWriter<'_>) {
                $(self.$k.pack(_w);)*
            }
        }
    };
}

/// More than 16 captures: the first 16 (a tuple) and the rest (a tuple, or `More` again), made by
/// `kernel!`. The captures are in order: all of `A`'s, then all of `B`'s.
#[doc(hidden)]
pub struct More<A, B>(pub A, pub B);

impl<A: Captures, B: Captures> SealedCaptures for More<A, B> {}

impl<A: Captures, B: Captures> Captures for More<A, B> {
    type Host<'a>
        = (A::Host<'a>, B::Host<'a>)
    where
        Self: 'a;
    type Shadow = (A::Shadow, B::Shadow);
    fn names(&self) -> Vec<&'static str> {
        let mut names = self.0.names();
        names.extend(self.1.names());
        names
    }
    fn for_each_access<'a>(&'a self, f: &mut dyn FnMut(ViewAccess<'a>)) {
        self.0.for_each_access(f);
        self.1.for_each_access(f);
    }
    fn host<'a>(&'a self, proof: &Borrowed) -> Self::Host<'a> {
        (self.0.host(proof), self.1.host(proof))
    }
    #[inline(always)]
    fn localize<'a>(host: Self::Host<'a>) -> Self::Host<'a>
    where
        Self: 'a,
    {
        (A::localize(host.0), B::localize(host.1))
    }
    fn shadow(&self, cxx_names: &[String]) -> Self::Shadow {
        // `A` is a tuple of its own parameters, which come first.
        let split = A::cxx_types().len().min(cxx_names.len());
        (
            self.0.shadow(&cxx_names[..split]),
            self.1.shadow(&cxx_names[split..]),
        )
    }
    fn cxx_types() -> Vec<String> {
        let mut types = A::cxx_types();
        types.extend(B::cxx_types());
        types
    }
    fn pack(&self, w: &mut ParamWriter<'_>) {
        self.0.pack(w);
        self.1.pack(w);
    }
}

captures!();
captures!(C0 0);
captures!(C0 0, C1 1);
captures!(C0 0, C1 1, C2 2);
captures!(C0 0, C1 1, C2 2, C3 3);
captures!(C0 0, C1 1, C2 2, C3 3, C4 4);
captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5);
captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6);
captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7);
captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8);
captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9);
captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9, C10 10);
captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9, C10 10, C11 11);
captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9, C10 10, C11 11, C12 12);
captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9, C10 10, C11 11, C12 12,
    C13 13);
captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9, C10 10, C11 11, C12 12,
    C13 13, C14 14);
captures!(C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9, C10 10, C11 11, C12 12,
    C13 13, C14 14, C15 15);
