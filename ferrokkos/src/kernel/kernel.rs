//! [`Kernel`]: what `kernel!` produces; a host body and a typed shadow over the same captures.

use std::marker::PhantomData;

use super::capture::{Borrowed, Captures};
use super::expr::Expr;
use super::index::ShadowIndex;
use super::shadow::Mut;
use crate::error::Result;
use crate::view::kernel_access::LaunchBorrows;

/// Where a kernel was written and what the macro found out about it.
#[derive(Clone, Copy, Debug)]
pub struct KernelInfo {
    /// The source file (`file!()` at the macro call).
    pub file: &'static str,
    /// The line of the macro call.
    pub line: u32,
    /// The column of the macro call.
    pub column: u32,
    /// A hash of the kernel's tokens (with `file`, `line` and `column`, the kernel's identity).
    pub hash: u64,
    /// Whether the body contains `unsafe { }` (the launch then skips the aliasing check).
    pub is_unsafe: bool,
    /// The names of the index parameters (`["i"]`, `["i", "j"]`).
    pub index: &'static [&'static str],
    /// The names of the other parameters (the accumulator; scans: the partial value and the flag).
    pub params: &'static [&'static str],
}

/// Marks a `parallel_for` kernel over index `A`.
pub struct ForKind<A>(PhantomData<fn(A)>);
/// Marks a `parallel_reduce` kernel over index `A` with values `V`.
pub struct ReduceKind<A, V>(PhantomData<fn(A, V)>);
/// Marks a `parallel_scan` kernel over index `A` with values `V`.
pub struct ScanKind<A, V>(PhantomData<fn(A, V)>);

/// A single-source kernel, made by [`crate::kernel!`]: its captures `C`, the body compiled for the
/// host `H` and the typed shadow `S` that writes the body in C++.
///
/// Pass it to `parallel_for` / `parallel_reduce` / `parallel_scan` like a closure, by value or by
/// reference (to launch it again). At each launch it checks its captured Views (a written View may
/// not share its allocation with another capture unless the kernel used `unsafe`) and borrows them
/// until the launch ends.
pub struct Kernel<K, C, H, S> {
    pub(super) captures: C,
    host: H,
    pub(super) shadow: S,
    info: KernelInfo,
    _kind: PhantomData<K>,
}

impl<K, C, H, S> Kernel<K, C, H, S> {
    /// What the macro recorded about the kernel.
    pub fn info(&self) -> &KernelInfo {
        &self.info
    }

    /// The captures.
    pub(crate) fn captures(&self) -> &C {
        &self.captures
    }

    fn new(captures: C, host: H, shadow: S, info: KernelInfo) -> Self {
        Kernel {
            captures,
            host,
            shadow,
            info,
            _kind: PhantomData,
        }
    }
}

impl<K, C: Captures, H, S> std::fmt::Debug for Kernel<K, C, H, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kernel")
            .field(
                "at",
                &format_args!("{}:{}:{}", self.info.file, self.info.line, self.info.column),
            )
            .field("index", &self.info.index)
            .field("params", &self.info.params)
            .field("captures", &self.captures.names())
            .field("is_unsafe", &self.info.is_unsafe)
            .finish()
    }
}

impl<K, C: Captures + 'static, H: Copy, S> Kernel<K, C, H, S> {
    /// Checks and borrows the captures, runs `run` with the host body, and releases the borrows.
    pub(crate) fn run_host<R>(
        &self,
        what: &dyn Fn() -> String,
        run: impl FnOnce(&HostBody<C, H>) -> R,
    ) -> Result<R> {
        let borrows = LaunchBorrows::take(
            |f| self.captures.for_each_access(f),
            self.info.is_unsafe,
            crate::view::kernel_access::Reach::Host,
            what,
        )?;
        let r = {
            // SAFETY: `borrows` holds every borrow the accesses asked for until after this block,
            // and the accessors made here live in `body`, which ends with the block.
            let proof = unsafe { Borrowed::assert() };
            // SAFETY: `body` is dropped at the end of this block, while `self.captures` (which the
            // host values borrow) is still borrowed by `&self`; `run` only gets `&body`.
            let body = unsafe { HostBody::new(self.captures.host(&proof), self.host) };
            run(&body)
        };
        drop(borrows);
        Ok(r)
    }
}

/// Checks the host closure of a `parallel_for` kernel (and gives rustc its parameter types). The
/// closure is `'static`: it reaches nothing around the kernel but the captures (`kernel!` does not
/// make it `move`, so any other variable it used would be a borrow).
pub fn host_for<A, C: Captures, H>(_: &C, host: H) -> H
where
    H: for<'b> Fn(&'b C::Host<'b>, A) + Copy + Sync + 'static,
{
    host
}

/// Checks the shadow of a `parallel_for` kernel.
pub fn shadow_for<A: ShadowIndex, C: Captures, S: Fn(C::Shadow, A::Exprs)>(_: &C, s: S) -> S {
    s
}

/// Checks the host closure of a `parallel_reduce` kernel.
pub fn host_reduce<A, V, C: Captures, H>(_: &C, host: H) -> H
where
    H: for<'b> Fn(&'b C::Host<'b>, A, &mut V) + Copy + Sync + 'static,
{
    host
}

/// Checks the shadow of a `parallel_reduce` kernel.
pub fn shadow_reduce<A: ShadowIndex, V, C: Captures, S: Fn(C::Shadow, A::Exprs, Expr<Mut<V>>)>(
    _: &C,
    s: S,
) -> S {
    s
}

/// Checks the host closure of a `parallel_scan` kernel.
pub fn host_scan<A, V, C: Captures, H>(_: &C, host: H) -> H
where
    H: for<'b> Fn(&'b C::Host<'b>, A, &mut V, bool) + Copy + Sync + 'static,
{
    host
}

/// Checks the shadow of a `parallel_scan` kernel.
pub fn shadow_scan<
    A: ShadowIndex,
    V,
    C: Captures,
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<V>>, Expr<bool>),
>(
    _: &C,
    s: S,
) -> S {
    s
}

/// The type the iteration index has in the check `kernel!` makes that the identifiers its race rules
/// took for the index resolve to the index parameter (see [`iteration_index`]).
#[derive(Debug, Clone, Copy)]
pub struct IterationIndex(());

/// What only the kernel's iteration index is (see [`iteration_index`]).
#[diagnostic::on_unimplemented(
    message = "this is not the kernel's iteration index: it names another binding",
    label = "the race rules need the iteration index here",
    note = "`kernel!` allows writing a View only at the iteration index; this name has the index \
            parameter's text but resolves to another variable, as happens when a `macro_rules!` \
            macro supplies the closure's parameter and its caller the body (hygiene); write the \
            parameter and the body in the same place"
)]
pub trait IsIterationIndex {}

impl IsIterationIndex for IterationIndex {}

/// Compiles only for the iteration index as `kernel!` binds it in its check (a closure that is
/// never called, whose parameter pattern is the kernel's with the type [`IterationIndex`]).
#[inline(always)]
pub fn iteration_index<T: IsIterationIndex>(_: T) {}

/// Opens each `unsafe { }` block of a kernel's host body (the block is the author's, kept with the
/// author's tokens, so that `#![forbid(unsafe_code)]` and `#![deny(unsafe_code)]` see it).
///
/// # Safety
/// The block's author takes over the race rules for the kernel: no element written by one iteration
/// is touched by another, also through Views that share an allocation (the launch then skips its
/// aliasing check).
#[inline(always)]
pub unsafe fn unsafe_block() {}

impl<A, C, H, S> Kernel<ForKind<A>, C, H, S>
where
    A: ShadowIndex,
    C: Captures,
    H: for<'b> Fn(&'b C::Host<'b>, A) + Copy + Sync,
    S: Fn(C::Shadow, A::Exprs),
{
    /// A `parallel_for` kernel.
    ///
    /// # Safety
    /// The host closure obeys the race rules (a written View touched only at the iteration index,
    /// atomic Views only atomically) except where `info.is_unsafe` says its author took over; the
    /// `kernel!` macro checks this on the syntax.
    pub unsafe fn new_for(captures: C, host: H, shadow: S, info: KernelInfo) -> Self {
        Self::new(captures, host, shadow, info)
    }
}

impl<A, V, C, H, S> Kernel<ReduceKind<A, V>, C, H, S>
where
    A: ShadowIndex,
    C: Captures,
    H: for<'b> Fn(&'b C::Host<'b>, A, &mut V) + Copy + Sync,
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<V>>),
{
    /// A `parallel_reduce` kernel.
    ///
    /// # Safety
    /// As for [`Kernel::new_for`].
    pub unsafe fn new_reduce(captures: C, host: H, shadow: S, info: KernelInfo) -> Self {
        Self::new(captures, host, shadow, info)
    }
}

impl<A, V, C, H, S> Kernel<ScanKind<A, V>, C, H, S>
where
    A: ShadowIndex,
    C: Captures,
    H: for<'b> Fn(&'b C::Host<'b>, A, &mut V, bool) + Copy + Sync,
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<V>>, Expr<bool>),
{
    /// A `parallel_scan` kernel.
    ///
    /// # Safety
    /// As for [`Kernel::new_for`].
    pub unsafe fn new_scan(captures: C, host: H, shadow: S, info: KernelInfo) -> Self {
        Self::new(captures, host, shadow, info)
    }
}

/// The host body of a launch: the captures' host values and the closure that runs one iteration.
///
/// The host values borrow the kernel's captures for the launch; the body keeps them with the
/// lifetime erased (so that its type, a functor trait's associated type, needs no lifetime) and
/// lends them to each iteration for that iteration only.
pub struct HostBody<C: Captures + 'static, H> {
    captures: C::Host<'static>,
    /// The body's closure, called with [`HostBody::captures`] and the iteration's arguments.
    pub(crate) host: H,
}

impl<C: Captures + 'static, H> HostBody<C, H> {
    /// A body over `captures`.
    ///
    /// # Safety
    /// The body must be dropped before the captures that `captures` borrows: it is kept only for
    /// the launch, which borrows the kernel.
    unsafe fn new(captures: C::Host<'_>, host: H) -> Self {
        // SAFETY: `C::Host<'a>` and `C::Host<'static>` differ only in a lifetime, so they have one
        // layout; the caller keeps the borrowed captures alive while the body exists, and the body
        // hands the values out only with the lifetime of a borrow of itself (`captures`).
        let captures = unsafe { std::ptr::read((&raw const captures).cast::<C::Host<'static>>()) };
        HostBody { captures, host }
    }

    /// The host values, for as long as the body is borrowed. The sealed `Captures` types are tuples
    /// of copies and of accessors holding shared borrows (covariant, no interior mutability), so
    /// handing them out with the shorter lifetime `'b` is sound.
    #[inline(always)]
    pub(crate) fn captures<'b>(&'b self) -> &'b C::Host<'b> {
        // SAFETY: a shortening of the erased lifetime back to a borrow of the body, which lives no
        // longer than the borrowed captures (see `new`); one layout, as in `new`.
        unsafe { &*(&raw const self.captures).cast::<C::Host<'b>>() }
    }
}

macro_rules! split {
    ($($f:ident: $($t:ident $v:ident),+;)*) => {$(
        /// The accumulators of a tuple of reducers, one `&mut` each (host side of `kernel!`).
        #[inline(always)]
        pub fn $f<$($t),+>(accs: &mut ($($t,)+)) -> ($(&mut $t,)+) {
            let ($($v,)+) = accs;
            ($($v,)+)
        }
    )*};
}

split! {
    split2: A a, B b;
    split3: A a, B b, C c;
    split4: A a, B b, C c, D d;
    split5: A a, B b, C c, D d, E e;
    split6: A a, B b, C c, D d, E e, F f;
}
