//! [`DeviceFor`], [`DeviceReduce`], [`DeviceScan`]: kernels that have a device translation, as a trait
//! that generic code (and the CUDA backend's launches) can require.

use super::capture::Captures;
use super::device_reducer::DeviceReducer;
use super::expr::Expr;
use super::index::ShadowIndex;
use super::kernel::{ForKind, Kernel, ReduceKind, ScanKind};
use super::params::ParamWriter;
use super::shadow::Mut;
use super::unit::{TranslationUnit, UnitOptions};
use crate::policy::Iterate;
use crate::reducer::ReducerCxx;
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
    /// The type names of the pattern kind and the captures (for messages).
    pub types: &'static str,
    /// The identity of those types: what the cache compares (type names need not be unique, and two
    /// kernels with other capture types have other parameter layouts).
    pub type_id: std::any::TypeId,
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

impl<K: 'static, C: Captures + 'static, H: 'static, S: 'static> DeviceLaunch
    for Kernel<K, C, H, S>
{
    fn device_key(&self) -> DeviceKey {
        let info = self.info();
        DeviceKey {
            file: info.file,
            line: info.line,
            column: info.column,
            hash: info.hash,
            types: std::any::type_name::<(K, C)>(),
            // The closures' types too: they differ between instantiations of a generic function
            // (const generics included) and between expansions of one macro call site.
            type_id: std::any::TypeId::of::<(K, C, H, S)>(),
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

/// The pattern a device translation is made for.
#[derive(Debug, Clone, Copy)]
pub enum DevicePattern<'a> {
    /// `parallel_for`, walking a multidimensional index in `iterate` order.
    For {
        /// The walk order of a multidimensional index.
        iterate: Iterate,
    },
    /// `parallel_reduce` with the reducer `reducer`.
    Reduce {
        /// The walk order of a multidimensional index.
        iterate: Iterate,
        /// The reducer's device description.
        reducer: &'a ReducerCxx,
    },
    /// `parallel_scan` with the reducer `reducer`.
    Scan {
        /// The reducer's device description.
        reducer: &'a ReducerCxx,
    },
}

/// A kernel with a device translation, as a trait object: what the functor traits hand to a device
/// launch ([`crate::ForFunctor::device_kernel`]). Implemented by every `kernel!`.
pub trait DeviceKernel: DeviceLaunch + Sync {
    /// The translation unit for `pattern` (which matches the kernel's own pattern: a launch asks a
    /// `parallel_for` kernel only for `For`).
    #[doc(hidden)]
    fn device_unit(&self, pattern: &DevicePattern<'_>, options: UnitOptions) -> TranslationUnit;
}

impl<A, C, H, S> DeviceKernel for Kernel<ForKind<A>, C, H, S>
where
    A: ShadowIndex + 'static,
    C: Captures + 'static,
    H: Sync + 'static,
    S: Fn(C::Shadow, A::Exprs) + Sync + 'static,
{
    fn device_unit(&self, pattern: &DevicePattern<'_>, options: UnitOptions) -> TranslationUnit {
        let iterate = match pattern {
            DevicePattern::For { iterate } | DevicePattern::Reduce { iterate, .. } => *iterate,
            DevicePattern::Scan { .. } => Iterate::Right,
        };
        self.cuda_source_with(iterate, options)
    }
}

impl<A, V, C, H, S> DeviceKernel for Kernel<ReduceKind<A, V>, C, H, S>
where
    A: ShadowIndex + 'static,
    V: 'static,
    C: Captures + 'static,
    H: Sync + 'static,
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<V>>) + Sync + 'static,
{
    fn device_unit(&self, pattern: &DevicePattern<'_>, options: UnitOptions) -> TranslationUnit {
        match pattern {
            DevicePattern::Reduce { iterate, reducer } => {
                self.cuda_source_for(reducer, *iterate, options)
            }
            DevicePattern::Scan { reducer } => {
                self.cuda_source_for(reducer, Iterate::Right, options)
            }
            DevicePattern::For { .. } => {
                unreachable_pattern(self.info(), "parallel_reduce", "parallel_for")
            }
        }
    }
}

impl<A, V, C, H, S> DeviceKernel for Kernel<ScanKind<A, V>, C, H, S>
where
    A: ShadowIndex + 'static,
    V: 'static,
    C: Captures + 'static,
    H: Sync + 'static,
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<V>>, Expr<bool>) + Sync + 'static,
{
    fn device_unit(&self, pattern: &DevicePattern<'_>, options: UnitOptions) -> TranslationUnit {
        match pattern {
            DevicePattern::Scan { reducer } | DevicePattern::Reduce { reducer, .. } => {
                self.cuda_source_for(reducer, options)
            }
            DevicePattern::For { .. } => {
                unreachable_pattern(self.info(), "parallel_scan", "parallel_for")
            }
        }
    }
}

impl<K: DeviceKernel> DeviceKernel for &K {
    fn device_unit(&self, pattern: &DevicePattern<'_>, options: UnitOptions) -> TranslationUnit {
        (**self).device_unit(pattern, options)
    }
}

/// A kernel asked for another pattern's unit: the typed launch APIs never do this.
fn unreachable_pattern(info: &super::kernel::KernelInfo, is: &str, asked: &str) -> ! {
    unreachable!(
        "the {is} kernel at {}:{} was asked for a {asked} translation",
        info.file, info.line
    )
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

impl<
    A: ShadowIndex + 'static,
    C: Captures + 'static,
    H: 'static,
    S: Fn(C::Shadow, A::Exprs) + 'static,
> DeviceFor<A> for Kernel<ForKind<A>, C, H, S>
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
    H: 'static,
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<R::Value>>) + 'static,
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
    H: 'static,
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<R::Value>>, Expr<bool>) + 'static,
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
