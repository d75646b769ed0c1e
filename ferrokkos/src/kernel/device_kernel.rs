//! [`DeviceKernel`], [`DeviceFor`], [`DeviceReduce`], [`DeviceScan`]: kernels that have a device
//! translation (their [`KernelBody`]), as traits that generic code (and the device backends'
//! launches) can require.

use super::body::KernelBody;
use super::capture::Captures;
use super::device_reducer::DeviceReducer;
use super::expr::Expr;
use super::index::ShadowIndex;
use super::kernel::{ForKind, Kernel, ReduceKind, ScanKind, TeamForKind, TeamReduceKind};
use super::params::ParamWriter;
use super::shadow::{Mut, TeamShadow};
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
    /// Whether a launch over the iteration box `ranges` (per index coordinate `[begin, end)`, an
    /// index type of `bits` bits) proves every access the device code writes `at_proven` inside
    /// its View at every index: the launch may then run the entry where they skip their checks.
    #[doc(hidden)]
    fn device_proven_over(&self, ranges: &[(i128, i128)], bits: u32) -> bool;
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
    fn device_proven_over(&self, ranges: &[(i128, i128)], bits: u32) -> bool {
        Kernel::device_proven_over(self, ranges, bits)
    }
}

/// A kernel with a device translation, as a trait object: what the functor traits hand to a device
/// launch ([`crate::traits::ForFunctor::device_kernel`]). Implemented by every `kernel!`.
pub trait DeviceKernel: DeviceLaunch + Sync {
    /// The kernel's body in backend-neutral form, for a backend's code generator; `emit` are the
    /// reducer's definitions made in the same emission ([`crate::reducer::ReducerCxx::emit`]).
    #[doc(hidden)]
    fn device_body(&self, emit: &[fn() -> String]) -> KernelBody;
}

impl<A, C, H, S> DeviceKernel for Kernel<ForKind<A>, C, H, S>
where
    A: ShadowIndex + 'static,
    C: Captures + 'static,
    H: Sync + 'static,
    S: Fn(C::Shadow, A::Exprs) + Sync + 'static,
{
    fn device_body(&self, emit: &[fn() -> String]) -> KernelBody {
        self.body_with(emit)
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
    fn device_body(&self, emit: &[fn() -> String]) -> KernelBody {
        self.body_with(emit)
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
    fn device_body(&self, emit: &[fn() -> String]) -> KernelBody {
        self.body_with(emit)
    }
}

impl<C, H, S> DeviceKernel for Kernel<TeamForKind, C, H, S>
where
    C: Captures + 'static,
    H: Sync + 'static,
    S: Fn(C::Shadow, TeamShadow) + Sync + 'static,
{
    fn device_body(&self, emit: &[fn() -> String]) -> KernelBody {
        self.body_with(emit)
    }
}

impl<V, C, H, S> DeviceKernel for Kernel<TeamReduceKind<V>, C, H, S>
where
    V: 'static,
    C: Captures + 'static,
    H: Sync + 'static,
    S: Fn(C::Shadow, TeamShadow, Expr<Mut<V>>) + Sync + 'static,
{
    fn device_body(&self, emit: &[fn() -> String]) -> KernelBody {
        self.body_with(emit)
    }
}

impl<K: DeviceKernel> DeviceKernel for &K {
    fn device_body(&self, emit: &[fn() -> String]) -> KernelBody {
        (**self).device_body(emit)
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
    fn device_proven_over(&self, ranges: &[(i128, i128)], bits: u32) -> bool {
        (**self).device_proven_over(ranges, bits)
    }
}

/// A `parallel_for` kernel over index `A` with a device translation (every `kernel!`; plain
/// closures have none): what generic code names to return a kernel that runs on every space
/// (`impl ForFunctor<usize, Reach = Everywhere> + DeviceFor<usize>`).
pub trait DeviceFor<A>: DeviceKernel {}

/// A `parallel_reduce` kernel over index `A` with a device translation for reducer `R`.
pub trait DeviceReduce<A, R: DeviceReducer>: DeviceKernel {}

/// A `parallel_scan` kernel over index `A` with a device translation for reducer `R`.
pub trait DeviceScan<A, R: DeviceReducer>: DeviceKernel {}

impl<A, C, H, S> DeviceFor<A> for Kernel<ForKind<A>, C, H, S>
where
    A: ShadowIndex + 'static,
    C: Captures + 'static,
    H: Sync + 'static,
    S: Fn(C::Shadow, A::Exprs) + Sync + 'static,
{
}

impl<A, R, C, H, S> DeviceReduce<A, R> for Kernel<ReduceKind<A, R::Value>, C, H, S>
where
    A: ShadowIndex + 'static,
    R: DeviceReducer,
    R::Value: 'static,
    C: Captures + 'static,
    H: Sync + 'static,
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<R::Value>>) + Sync + 'static,
{
}

impl<A, R, C, H, S> DeviceScan<A, R> for Kernel<ScanKind<A, R::Value>, C, H, S>
where
    A: ShadowIndex + 'static,
    R: DeviceReducer,
    R::Value: 'static,
    C: Captures + 'static,
    H: Sync + 'static,
    S: Fn(C::Shadow, A::Exprs, Expr<Mut<R::Value>>, Expr<bool>) + Sync + 'static,
{
}

impl<A, K: DeviceFor<A>> DeviceFor<A> for &K {}

impl<A, R: DeviceReducer, K: DeviceReduce<A, R>> DeviceReduce<A, R> for &K {}

impl<A, R: DeviceReducer, K: DeviceScan<A, R>> DeviceScan<A, R> for &K {}
