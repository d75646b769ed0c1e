//! [`DeviceFor`], [`DeviceReduce`], [`DeviceScan`]: kernels that have a device translation, as a trait
//! that generic code (and the CUDA backend's launches) can require.

use super::capture::Captures;
use super::device_reducer::DeviceReducer;
use super::expr::Expr;
use super::index::ShadowIndex;
use super::kernel::{ForKind, Kernel, ReduceKind, ScanKind};
use super::shadow::Mut;
use super::params::ParamWriter;
use super::unit::{TranslationUnit, UnitOptions};
use crate::policy::Iterate;
use crate::view::kernel_access::ViewAccess;

/// The identity of a kernel's device code: where it was written, a hash of its tokens and the
/// types of its pattern and captures (a kernel in a generic function has one per instantiation).
/// Launches cache compiled code under this key plus the pattern's variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceKey {
    /// The source file of the kernel.
    pub file: &'static str,
    /// The line of the kernel.
    pub line: u32,
    /// The column of the kernel.
    pub column: u32,
    /// The hash of the kernel's tokens.
    pub hash: u64,
    /// The type names of the pattern kind and the captures.
    pub types: &'static str,
}

/// What a device launch needs from any kernel besides its C++: its identity, its captured Views
/// (to check and borrow) and its captures' parameter bytes. Implemented by every `kernel!`.
pub trait DeviceLaunch {
    /// The identity of the kernel's device code.
    #[doc(hidden)]
    fn device_key(&self) -> DeviceKey;
    /// Whether the kernel contains `unsafe { }` (then written Views may alias other captures).
    #[doc(hidden)]
    fn device_is_unsafe(&self) -> bool;
    /// Hands each captured View's access to `f`, in capture order.
    #[doc(hidden)]
    fn device_accesses<'a>(&'a self, f: &mut dyn FnMut(ViewAccess<'a>));
    /// Appends the captures' parameter bytes.
    #[doc(hidden)]
    fn pack_captures(&self, w: &mut ParamWriter<'_>);
}

impl<K: 'static, C: Captures + 'static, H, S> DeviceLaunch for Kernel<K, C, H, S> {
    fn device_key(&self) -> DeviceKey {
        let info = self.info();
        DeviceKey {
            file: info.file,
            line: info.line,
            column: info.column,
            hash: info.hash,
            types: std::any::type_name::<(K, C)>(),
        }
    }
    fn device_is_unsafe(&self) -> bool {
        self.info().is_unsafe
    }
    fn device_accesses<'a>(&'a self, f: &mut dyn FnMut(ViewAccess<'a>)) {
        self.captures().for_each_access(f)
    }
    fn pack_captures(&self, w: &mut ParamWriter<'_>) {
        self.captures().pack(w)
    }
}

impl<K: DeviceLaunch> DeviceLaunch for &K {
    fn device_key(&self) -> DeviceKey {
        (**self).device_key()
    }
    fn device_is_unsafe(&self) -> bool {
        (**self).device_is_unsafe()
    }
    fn device_accesses<'a>(&'a self, f: &mut dyn FnMut(ViewAccess<'a>)) {
        (**self).device_accesses(f)
    }
    fn pack_captures(&self, w: &mut ParamWriter<'_>) {
        (**self).pack_captures(w)
    }
}

/// A `parallel_for` kernel over index `A` with a CUDA C++ translation (every `kernel!`; plain closures
/// have none).
pub trait DeviceFor<A>: DeviceLaunch {
    /// The translation unit; see [`Kernel::cuda_source`].
    fn translation_unit(&self, iterate: Iterate, options: UnitOptions) -> TranslationUnit;
}

/// A `parallel_reduce` kernel over index `A` with a CUDA C++ translation for reducer `R`.
pub trait DeviceReduce<A, R: DeviceReducer>: DeviceLaunch {
    /// The translation unit; see [`Kernel::cuda_source`].
    fn translation_unit(&self, iterate: Iterate, options: UnitOptions) -> TranslationUnit;
}

/// A `parallel_scan` kernel over index `A` with a CUDA C++ translation for reducer `R`.
pub trait DeviceScan<A, R: DeviceReducer>: DeviceLaunch {
    /// The translation unit; see [`Kernel::cuda_source`].
    fn translation_unit(&self, options: UnitOptions) -> TranslationUnit;
}

impl<A: ShadowIndex + 'static, C: Captures + 'static, H, S: Fn(C::Shadow, A::Exprs)> DeviceFor<A>
    for Kernel<ForKind<A>, C, H, S>
{
    fn translation_unit(&self, iterate: Iterate, options: UnitOptions) -> TranslationUnit {
        self.cuda_source_with(iterate, options)
    }
}

impl<A, R, C, H, S> DeviceReduce<A, R> for Kernel<ReduceKind<A, R::Value>, C, H, S>
where
    A: ShadowIndex + 'static,
    R: DeviceReducer,
    R::Value: 'static,
    C: Captures + 'static,
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<R::Value>>),
{
    fn translation_unit(&self, iterate: Iterate, options: UnitOptions) -> TranslationUnit {
        self.cuda_source_with::<R>(iterate, options)
    }
}

impl<A, R, C, H, S> DeviceScan<A, R> for Kernel<ScanKind<A, R::Value>, C, H, S>
where
    A: ShadowIndex + 'static,
    R: DeviceReducer,
    R::Value: 'static,
    C: Captures + 'static,
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<R::Value>>, Expr<bool>),
{
    fn translation_unit(&self, options: UnitOptions) -> TranslationUnit {
        self.cuda_source_with::<R>(options)
    }
}

impl<A, K: DeviceFor<A>> DeviceFor<A> for &K {
    fn translation_unit(&self, iterate: Iterate, options: UnitOptions) -> TranslationUnit {
        (**self).translation_unit(iterate, options)
    }
}

impl<A, R: DeviceReducer, K: DeviceReduce<A, R>> DeviceReduce<A, R> for &K {
    fn translation_unit(&self, iterate: Iterate, options: UnitOptions) -> TranslationUnit {
        (**self).translation_unit(iterate, options)
    }
}

impl<A, R: DeviceReducer, K: DeviceScan<A, R>> DeviceScan<A, R> for &K {
    fn translation_unit(&self, options: UnitOptions) -> TranslationUnit {
        (**self).translation_unit(options)
    }
}
