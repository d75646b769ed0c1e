//! [`DeviceFor`], [`DeviceReduce`], [`DeviceScan`]: kernels that have a device translation, as a trait
//! that generic code (and the CUDA backend's launches) can require.

use super::capture::Captures;
use super::device_reducer::DeviceReducer;
use super::expr::Expr;
use super::index::ShadowIndex;
use super::kernel::{ForKind, Kernel, ReduceKind, ScanKind};
use super::shadow::Mut;
use super::unit::TranslationUnit;
use crate::policy::Iterate;

/// A `parallel_for` kernel over index `A` with a CUDA C++ translation (every `kernel!`; plain closures
/// have none).
pub trait DeviceFor<A> {
    /// The translation unit; see [`Kernel::cuda_source`].
    fn translation_unit(&self, iterate: Iterate) -> TranslationUnit;
}

/// A `parallel_reduce` kernel over index `A` with a CUDA C++ translation for reducer `R`.
pub trait DeviceReduce<A, R: DeviceReducer> {
    /// The translation unit; see [`Kernel::cuda_source`].
    fn translation_unit(&self, iterate: Iterate) -> TranslationUnit;
}

/// A `parallel_scan` kernel over index `A` with a CUDA C++ translation for reducer `R`.
pub trait DeviceScan<A, R: DeviceReducer> {
    /// The translation unit; see [`Kernel::cuda_source`].
    fn translation_unit(&self) -> TranslationUnit;
}

impl<A: ShadowIndex, C: Captures, H, S: Fn(C::Shadow, A::Exprs)> DeviceFor<A>
    for Kernel<ForKind<A>, C, H, S>
{
    fn translation_unit(&self, iterate: Iterate) -> TranslationUnit {
        self.cuda_source(iterate)
    }
}

impl<A, R, C, H, S> DeviceReduce<A, R> for Kernel<ReduceKind<A, R::Value>, C, H, S>
where
    A: ShadowIndex,
    R: DeviceReducer,
    C: Captures,
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<R::Value>>),
{
    fn translation_unit(&self, iterate: Iterate) -> TranslationUnit {
        self.cuda_source::<R>(iterate)
    }
}

impl<A, R, C, H, S> DeviceScan<A, R> for Kernel<ScanKind<A, R::Value>, C, H, S>
where
    A: ShadowIndex,
    R: DeviceReducer,
    C: Captures,
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<R::Value>>, Expr<bool>),
{
    fn translation_unit(&self) -> TranslationUnit {
        self.cuda_source::<R>()
    }
}

impl<A, K: DeviceFor<A>> DeviceFor<A> for &K {
    fn translation_unit(&self, iterate: Iterate) -> TranslationUnit {
        (**self).translation_unit(iterate)
    }
}

impl<A, R: DeviceReducer, K: DeviceReduce<A, R>> DeviceReduce<A, R> for &K {
    fn translation_unit(&self, iterate: Iterate) -> TranslationUnit {
        (**self).translation_unit(iterate)
    }
}

impl<A, R: DeviceReducer, K: DeviceScan<A, R>> DeviceScan<A, R> for &K {
    fn translation_unit(&self) -> TranslationUnit {
        (**self).translation_unit()
    }
}
