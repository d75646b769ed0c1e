//! Views: multidimensional arrays in memory spaces, with Kokkos' reference semantics.

pub(crate) mod atomic;
mod atomic_access;
mod atomic_types;
mod atomic_view;
mod deep_copy;
mod element;
mod guard;
mod host_bulk;
mod index;
pub(crate) mod kernel_access;
mod memory_order;
mod mirror;
pub(crate) mod offset_access;
mod parallel;
pub(crate) mod raw;
mod resize;
pub(crate) mod subview;
mod unmanaged;
#[allow(clippy::module_inception)]
mod view;
pub(crate) mod view_read;

pub use crate::layout::{Layout, LayoutLeft, LayoutRight, LayoutStride, RegularLayout};
pub use atomic_view::AtomicView;
pub use deep_copy::{DeepCopyDst, deep_copy, deep_copy_async};
pub use element::Element;
pub use guard::{HostMut, HostRef};
pub use index::ViewIndex;
pub use memory_order::{MemoryOrder, MemoryScope};
pub use mirror::{
    create_mirror, create_mirror_in, create_mirror_view, create_mirror_view_and_copy,
    create_mirror_view_in,
};
pub use parallel::ParallelMut;
pub use resize::{realloc, realloc_without_initializing, resize};
pub use subview::{ALL, All, Subview, SubviewArg, SubviewArgs, subview};
pub use view::{MAX_RANK, View, ViewAlloc, view_alloc};
pub use view_read::ViewRead;
