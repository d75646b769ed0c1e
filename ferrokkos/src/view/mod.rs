//! Views: multidimensional arrays in memory spaces, with Kokkos' reference semantics.
//!
//! # Host access and why it is race-free
//!
//! View handles are shared freely (clones, subviews, other threads), so a `&mut View` proves nothing
//! about who else can reach the elements. Host code therefore reaches elements only through *guards*
//! taken on the allocation, which every handle of it shares:
//!
//! - [`View::host`] returns a [`HostRef`]: shared, read-only;
//! - [`View::host_mut`] returns a [`HostMut`]: exclusive, read-write;
//! - [`View::get`] / [`View::set`] take and release a guard for one element.
//!
//! The allocation's borrow flag is an atomic reader-writer state. A guard that conflicts with one alive
//! anywhere in the process is an [`crate::Error::Borrow`] naming the View, never a wait. Since every
//! safe path to the elements holds a guard, no two safe accesses can race. Raw pointers
//! ([`View::as_ptr`]) exist for interoperability; using them is `unsafe`.
//!
//! Guards index with `g[i]` (rank 1), `g[(i, j, ...)]` (ranks 2 to 8), `g[[i, j, ...]]` (any rank) and
//! `g[()]` (rank 0). Indexing is always bounds-checked; an out-of-bounds index panics with a message
//! naming the label, the index and the extents.

mod deep_copy;
mod element;
mod guard;
mod index;
pub(crate) mod kernel_access;
mod mirror;
mod parallel;
pub(crate) mod raw;
mod resize;
mod subview;
mod unmanaged;
#[allow(clippy::module_inception)]
mod view;

pub use crate::layout::{Layout, LayoutLeft, LayoutRight, LayoutStride, RegularLayout};
pub use deep_copy::{DeepCopyDst, deep_copy, deep_copy_async};
pub use element::Element;
pub use guard::{HostMut, HostRef};
pub use index::ViewIndex;
pub use mirror::{
    create_mirror, create_mirror_in, create_mirror_view, create_mirror_view_and_copy,
    create_mirror_view_in,
};
pub use parallel::ParallelMut;
pub use resize::{realloc, realloc_without_initializing, resize};
pub use subview::{ALL, All, Subview, SubviewArg, SubviewArgs, subview, typelevel};
pub use view::{MAX_RANK, View, ViewAlloc, view_alloc};
