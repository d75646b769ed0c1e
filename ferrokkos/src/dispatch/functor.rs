//! What the patterns accept: a kernel that may need to prepare itself at launch.
//!
//! A plain closure is ready as it is. A `kernel!` kernel first checks and borrows its captured Views
//! (DESIGN.md decision 4) and builds the accessors its host body uses; the launch runs that body and
//! releases the borrows when it ends. [`ForFunctor`] and its siblings express both: they lend the
//! launch a body implementing the per-iteration trait.
//!
//! Closures implement these traits. A functor struct of your own implements [`ForKernel`] (or its
//! siblings) and then [`ForFunctor`] with `type Body = Self` and `Ok(run(self))`.

use super::kernel::{ForKernel, ReduceKernel, ScanKernel};
use super::reach::{HostOnly, Reach};
use crate::error::Result;
use crate::kernel::DeviceKernel;
use crate::kernel::seal::Token;

/// Something [`crate::parallel_for`] can run: a closure, a `kernel!` kernel, or a functor struct.
pub trait ForFunctor<A> {
    /// The per-iteration body a launch runs.
    type Body: ForKernel<A>;
    /// Prepares the body (checking and borrowing captures; `what` names the launch for errors), runs
    /// `run` with it, and releases what it took.
    fn with_body<R>(
        &self,
        what: &dyn Fn() -> String,
        run: impl FnOnce(&Self::Body) -> R,
    ) -> Result<R>;

    /// Where the functor can run: [`HostOnly`] for closures and functor structs, [`Everywhere`](super::Everywhere)
    /// for `kernel!`s. A launch on a GPU space of a host-only functor does not compile.
    type Reach: Reach;

    /// The device translation (`Some` for `kernel!`s). Sealed: only this crate can call it or
    /// provide it (its parameter's type cannot be named elsewhere), since a launch trusts the
    /// translation to match the kernel's captures and pattern.
    #[doc(hidden)]
    fn device_kernel(&self, _: Token) -> Option<&dyn DeviceKernel> {
        None
    }
}

impl<A, F: Fn(A) + Sync> ForFunctor<A> for F {
    type Body = F;
    type Reach = HostOnly;
    #[inline]
    fn with_body<R>(&self, _: &dyn Fn() -> String, run: impl FnOnce(&F) -> R) -> Result<R> {
        Ok(run(self))
    }
}

/// Something [`crate::parallel_reduce`] can run: a closure, a `kernel!` kernel, or a functor struct.
pub trait ReduceFunctor<A, V> {
    /// The per-iteration body a launch runs.
    type Body: ReduceKernel<A, V>;
    /// As [`ForFunctor::with_body`].
    fn with_body<R>(
        &self,
        what: &dyn Fn() -> String,
        run: impl FnOnce(&Self::Body) -> R,
    ) -> Result<R>;

    /// Where the functor can run: [`HostOnly`] for closures and functor structs, [`Everywhere`](super::Everywhere)
    /// for `kernel!`s. A launch on a GPU space of a host-only functor does not compile.
    type Reach: Reach;

    /// The device translation (`Some` for `kernel!`s). Sealed: only this crate can call it or
    /// provide it (its parameter's type cannot be named elsewhere), since a launch trusts the
    /// translation to match the kernel's captures and pattern.
    #[doc(hidden)]
    fn device_kernel(&self, _: Token) -> Option<&dyn DeviceKernel> {
        None
    }
}

impl<A, V, F: Fn(A, &mut V) + Sync> ReduceFunctor<A, V> for F {
    type Body = F;
    type Reach = HostOnly;
    #[inline]
    fn with_body<R>(&self, _: &dyn Fn() -> String, run: impl FnOnce(&F) -> R) -> Result<R> {
        Ok(run(self))
    }
}

/// Something [`crate::parallel_scan`] can run: a closure, a `kernel!` kernel, or a functor struct.
pub trait ScanFunctor<A, V> {
    /// The per-iteration body a launch runs.
    type Body: ScanKernel<A, V>;
    /// As [`ForFunctor::with_body`].
    fn with_body<R>(
        &self,
        what: &dyn Fn() -> String,
        run: impl FnOnce(&Self::Body) -> R,
    ) -> Result<R>;

    /// Where the functor can run: [`HostOnly`] for closures and functor structs, [`Everywhere`](super::Everywhere)
    /// for `kernel!`s. A launch on a GPU space of a host-only functor does not compile.
    type Reach: Reach;

    /// The device translation (`Some` for `kernel!`s). Sealed: only this crate can call it or
    /// provide it (its parameter's type cannot be named elsewhere), since a launch trusts the
    /// translation to match the kernel's captures and pattern.
    #[doc(hidden)]
    fn device_kernel(&self, _: Token) -> Option<&dyn DeviceKernel> {
        None
    }
}

impl<A, V, F: Fn(A, &mut V, bool) + Sync> ScanFunctor<A, V> for F {
    type Body = F;
    type Reach = HostOnly;
    #[inline]
    fn with_body<R>(&self, _: &dyn Fn() -> String, run: impl FnOnce(&F) -> R) -> Result<R> {
        Ok(run(self))
    }
}
