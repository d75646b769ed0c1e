//! Single-source kernels: the typed shadow and the CUDA C++ emitter (DESIGN.md decisions 3 and 4).
//!
//! `kernel!(|i| y[i] = a * x[i] + y[i])` expands to a [`Kernel`]: the body as a Rust closure for the
//! host spaces, and the same body as a *typed shadow*, Rust code in which every operation is a call
//! of [`shadow`] on [`Expr`] values. Running the shadow once writes the body in C++ with explicit
//! types, which [`Kernel`]'s source methods wrap into a translation unit with the device header.

mod builder;
pub mod capture;
pub mod device_header;
mod device_reducer;
mod expr;
mod index;
#[allow(clippy::module_inception)]
mod kernel;
pub mod shadow;
mod ty;
mod unit;
mod view_expr;

pub use crate::view::kernel_access::{
    AccessMode, AtomicAccess, HostAtomic, IndexInt, KernelIndex, ReadAccess, ViewAccess,
    WriteAccess,
};
pub use device_reducer::DeviceReducer;
pub use expr::Expr;
pub use index::ShadowIndex;
pub use kernel::{
    ForKind, HostBody, Kernel, KernelInfo, ReduceKind, ScanKind, host_for, host_reduce, host_scan,
    shadow_for, shadow_reduce, shadow_scan, split2, split3, split4, split5, split6,
};
pub use ty::{DeviceType, Kind};
pub use unit::TranslationUnit;
pub use view_expr::{DeviceIndex, ViewExpr};
