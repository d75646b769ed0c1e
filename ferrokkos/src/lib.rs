//! ferrokkos: the [Kokkos](https://kokkos.org) performance-portability programming model in Rust.
//!
//! Write a parallel kernel once, over multidimensional [`View`]s that live in explicit memory spaces,
//! and run it on one core ([`Serial`]), on all cores ([`Threads`]) or on an NVIDIA GPU (`Cuda`, with
//! the default `cuda` feature; the driver and NVRTC are loaded at run time), chosen at run time
//! ([`SpaceChoice`], [`run_on`]). The concepts and names are Kokkos': execution spaces and their
//! instances, memory spaces, Views with layouts, subviews, mirrors, [`deep_copy`],
//! [`parallel_for`] / [`parallel_reduce`] / [`parallel_scan`] over [`RangePolicy`] and
//! [`MDRangePolicy`], reducers, fences, [`partition_space`], Kokkos Tools ([`profiling`]).
//!
//! - [`kernel!`] writes a kernel once for every space; its View writes are checked for races at
//!   compile time (see [`kernel`](mod@kernel)). Code generic over the space names
//!   [`Launch`](traits::Launch) (the seams' traits are in [`traits`]).
//! - Safe code cannot race or touch freed memory: Views are borrow-checked on the host, and device
//!   work on them is waited for before the host reads or frees them.
//! - Errors are values ([`Error`]) that name what was wrong (label, space, sizes, bounds).
//!
//! ```
//! use ferrokkos::prelude::*;
//!
//! let rt = ferrokkos::initialize(InitSettings::from_env()?)?;
//! let exec = Threads::default_instance()?;
//! println!("{} with {} threads", exec.name(), exec.concurrency());
//!
//! let a = View::<f64, 2>::new("A", [3, 4])?;        // zero-filled, LayoutRight, HostSpace
//! deep_copy(&a, 1.0)?;                                // fill
//! let row = subview(&a, (1, ALL))?;                   // a rank-1 View into row 1
//! row.set(2, 5.0)?;
//! let left = View::<f64, 2, LayoutLeft>::new("A_left", [3, 4])?;
//! deep_copy(&left, &a)?;                              // any layouts, equal extents
//! assert_eq!(left.get((1, 2))?, 5.0);
//! {
//!     let g = a.host()?;                              // borrow-checked host access
//!     assert_eq!(g[(0, 0)] + g[(1, 2)], 6.0);
//! }
//! exec.fence("done")?;
//! drop((a, row, left));
//! rt.finalize()?;
//! # Ok::<(), ferrokkos::Error>(())
//! ```
//!
//! The architecture is described in `docs/architecture.md` of the repository.

#![warn(missing_docs)]
// Functions short enough to read at once (the threshold is in clippy.toml).
#![warn(clippy::too_many_lines)]

// Lets `kernel!`, `#[device]` and `#[derive(DeviceValue)]` (which name `::ferrokkos`) expand inside
// the crate: its unit tests, and the containers' device types (`InsertResult`).
extern crate self as ferrokkos;

mod algorithms;
mod backend;
mod choice;
mod containers;
mod dispatch;
mod error;
mod graph;
pub mod kernel;
mod layout;
mod plain;
mod policy;
mod reducer;
mod runtime;
mod seal;
mod settings;
mod space;
mod timer;
mod tools;
mod view;

#[cfg(doctest)]
mod guide;

#[cfg(feature = "cuda")]
pub use backend::cuda::nvrtc;
#[cfg(feature = "cuda")]
pub use backend::cuda::{
    Cuda, CudaDevice, CudaHandles, CudaHostPinnedSpace, CudaSpace, CudaUVMSpace, JitStats,
};
#[cfg(feature = "hip")]
pub use backend::hip::hiprtc;
pub use backend::host::{DefaultHostExecutionSpace, Serial, Threads, host_vector_instructions};
pub use backend::shared::{SharedHostPinnedSpace, SharedSpace};
pub use choice::{SpaceChoice, SpaceTask, run_on};
pub use dispatch::{
    Functor, Prepare, PrepareReport, ScratchView, TeamMember, TeamThreadMDRange, TeamThreadRange,
    TeamVectorRange, ThreadVectorRange, parallel_for, parallel_reduce, parallel_scan,
    parallel_scan_with, single,
};
pub use error::{BackendError, BorrowKind, DeviceTarget, Error, Result};
/// A single-source kernel: `kernel!(|i| y[i] = a * x[i] + y[i])` runs on the host spaces as Rust and
/// becomes CUDA C++ for the GPU. Its language, parameters and race rules are described in the
/// [`kernel`](mod@kernel) module. With a result type, `kernel!(|x: f64| -> bool { x > t })` is a
/// device closure ([`kernel::DeviceClosure`]) that kernels and the [`std_algorithms`] call.
pub use ferrokkos_macros::kernel;
pub use graph::{Graph, GraphNode, create_graph, when_all};

pub use algorithms::std_algorithms;
pub use algorithms::{
    BinOp1D, BinOp3D, BinSort, RandomPool, RandomXorShift64Pool, RandomXorShift1024Pool,
    XorShift64, XorShift1024, fill_random, sort, sort_by, sort_by_key, sort_by_key_with, sort_with,
};
pub use backend::initialize;
pub use containers::{
    Bitset, DualView, DynRankView, DynamicView, InsertResult, OffsetView, ScatterMax, ScatterMin,
    ScatterMode, ScatterProd, ScatterSum, ScatterView, UniqueToken, UniqueTokenScope, UnorderedMap,
};
/// Derives [`DeviceValue`] for a `#[repr(C)]` struct of device values (see the trait), so it can be
/// a View element, a capture, a local and a field in kernels on every space.
pub use ferrokkos_macros::DeviceValue;
/// Makes a function callable from kernels: the function stays as it is for the host, and the macro
/// adds its typed shadow, which defines it once in each translation unit that calls it. Its
/// parameters and result are device values (numbers, `bool`, [`Complex`], `#[derive(DeviceValue)]`
/// types, arrays `[T; N]` of them); a parameter may also be a View it reads (`u: &View<T, R>`, any
/// layout and space: kernels pass `&u`, host code a guard; see [`ViewRead`](traits::ViewRead)), an
/// atomic View it updates (`h: &AtomicView<T, R>`: kernels pass `&h` of an [`AtomicView`], and
/// every access of `h` is atomic) or an element it may change (`cell: &mut T`:
/// kernels pass `&mut y[i]` under the race rules, or `&mut local`). It may be generic over number
/// types (`fn lerp<T: Add<Output = T> + ...>(a: T, b: T, t: T) -> T`: one C++ function per type it
/// is called with; each type parameter is also bounded by [`kernel::DeviceScalar`]). Its body uses
/// the kernel language (see [`kernel`](mod@kernel)); it cannot capture variables. On an `impl` block of a
/// `DeviceValue` type it makes the methods callable from kernels.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::{device, kernel};
///
/// #[device]
/// fn smoothstep(x: f64) -> f64 {
///     let t = x.clamp(0.0, 1.0);
///     t * t * (3.0 - 2.0 * t)
/// }
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let y = View::<f64, 1>::new("y", [11])?;
/// parallel_for("ramp", 11, kernel!(|i| y[i] = smoothstep(i as f64 / 10.0)))?;
/// assert_eq!(y.get(5)?, 0.5);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub use ferrokkos_macros::device;
/// A method whose body is a kernel: Kokkos' functor (a struct whose `operator()` is the kernel,
/// its members the data), for every space, the GPU included.
///
/// On `fn name(&self, index: I, ...) { body }` in an `impl` block, the macro makes `name(&self)`
/// return the [`kernel!`] of `body` (an `impl` [`ForFunctor`](traits::ForFunctor),
/// [`ReduceFunctor`](traits::ReduceFunctor) or
/// [`ScanFunctor`](traits::ScanFunctor), as the parameters after the index say, just as in `kernel!`). The struct's
/// members that the body names (`self.u[(i, j)]`, `self.alpha`) are the kernel's captures, under
/// the same race rules. Launch it with `parallel_for(label, policy, s.name())`.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::functor;
///
/// struct Axpy<M: MemorySpace> {
///     a: f64,
///     x: View<f64, 1, LayoutRight, M>,
///     y: View<f64, 1, LayoutRight, M>,
/// }
///
/// impl<M: MemorySpace> Axpy<M> {
///     #[functor]
///     fn update(&self, i: usize) {
///         self.y[i] += self.a * self.x[i];
///     }
///
///     #[functor]
///     fn norm2(&self, i: usize, acc: &mut f64) {
///         *acc += self.y[i] * self.y[i];
///     }
/// }
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let s = Axpy::<HostSpace> { a: 2.0, x: View::new("x", [4])?, y: View::new("y", [4])? };
/// deep_copy(&s.x, 1.0)?;
/// parallel_for("axpy", RangePolicy::new(&exec, 0, 4)?, s.update())?;
/// assert_eq!(parallel_reduce("norm", RangePolicy::new(&exec, 0, 4)?, s.norm2(), Sum::new())?, 16.0);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub use ferrokkos_macros::functor;
pub use kernel::abort;
pub use kernel::join::{DeviceJoin, Join};
pub use kernel::value::DeviceValue;
/// num-complex's complex number, a device type in kernels (`Complex<f32>`, `Complex<f64>`).
pub use num_complex::Complex;
pub use policy::{
    AUTO, Auto, Iterate, MAX_VECTOR_LENGTH, MDRangePolicy, PerTeam, PerThread, RangePolicy,
    Schedule, ScratchRequest, TeamPolicy, TeamSize,
};
pub use reducer::{
    BAnd, BOr, ByValue, Custom, LAnd, LOr, Max, MaxLoc, Min, MinLoc, MinMax, MinMaxLoc,
    MinMaxLocScalar, MinMaxScalar, Prod, ReduceInto, Reducer, Sum, ValLocScalar,
};
pub use runtime::{Runtime, is_finalized, is_initialized, push_finalize_hook, settings};
pub use settings::InitSettings;
pub use space::host_space::{HOST_ALIGNMENT, HostSpace};
pub use space::{
    DeviceType, ExecutionSpace, MemorySpace, MemoryStats, device_id, fence, partition_space,
    partition_space_with_weights,
};
pub use timer::Timer;
pub use tools::profiling;
pub use view::{
    ALL, AtomicView, HostMut, HostRef, LayoutLeft, LayoutRight, LayoutStride, MAX_RANK,
    MemoryOrder, MemoryScope, ParallelMut, Subview, View, ViewAlloc, create_mirror,
    create_mirror_in, create_mirror_view, create_mirror_view_and_copy, create_mirror_view_in,
    deep_copy, deep_copy_async, realloc, realloc_without_initializing, resize, subview, view_alloc,
};

pub mod traits {
    //! The traits of the seams between the parts of ferrokkos (execution spaces, memory spaces,
    //! policies, patterns, reducers, Views, graphs), and the types their methods and bounds name.
    //!
    //! Programs that launch kernels on concrete spaces need none of these by name:
    //! `parallel_for`, `View::new` and the reducers take care of them. A program names them
    //! - in code generic over the execution space: `fn run<E: Launch>(exec: &E)` runs every
    //!   pattern on any space ([`Launch`]), [`HostExecutionSpace`] on the host spaces only,
    //!   [`GraphSpace`] builds graphs; a kernel returned from a function is an
    //!   `impl ForFunctor<usize, Reach = Everywhere>` ([`ForFunctor`], [`Reach`], [`Everywhere`]);
    //! - in code generic over View elements and layouts: `T: Element`, `L: Layout`,
    //!   `L: RegularLayout`, `impl ViewRead<T, R>`; over a ScatterView's operation and elements:
    //!   [`ScatterOp`], [`ScatterValue`];
    //! - in bounds on what a pattern accepts: [`ParallelFor`], [`ParallelReduce`],
    //!   [`ParallelScan`] (a policy that runs a kernel), [`ReduceTarget`] (what a reduction writes
    //!   into), [`IndexType`];
    //! - to write a functor struct of its own: [`ForKernel`], [`ReduceKernel`], [`ScanKernel`],
    //!   [`TeamForKernel`], [`TeamReduceKernel`] (launched as [`Functor`](crate::Functor)`(s)`).
    //!
    //! Most of these traits are sealed: only ferrokkos implements them, because the launches rely
    //! on what the implementations promise.
    //!
    //! ```
    //! use ferrokkos::prelude::*;
    //! use ferrokkos::traits::{Element, Layout};
    //!
    //! /// Counts on any execution space.
    //! fn count<E: Launch>(exec: &E, n: usize) -> ferrokkos::Result<u64> {
    //!     let ones = kernel!(|_i, acc: &mut u64| *acc += 1);
    //!     parallel_reduce("count", RangePolicy::new(exec, 0, n)?, ones, Sum::new())
    //! }
    //!
    //! /// The last element of a rank-1 View of any element type and layout.
    //! fn last<T: Element, L: Layout>(v: &View<T, 1, L>) -> ferrokkos::Result<T> {
    //!     v.get(v.extent(0) - 1)
    //! }
    //!
    //! let _rt = ferrokkos::initialize(InitSettings::new())?;
    //! assert_eq!(count(&Threads::default_instance()?, 1000)?, 1000);
    //! let v = View::<u32, 1, LayoutLeft>::new("v", [4])?;
    //! v.set(3, 7)?;
    //! assert_eq!(last(&v)?, 7);
    //! # Ok::<(), ferrokkos::Error>(())
    //! ```

    pub use crate::algorithms::{
        BinKey, BinOp, FillRank, Generator, Permute, RadixBits, RandomValue, SortKey,
    };
    pub use crate::containers::{IndexRange, MapKey, MapValue, ScatterOp, ScatterValue};
    pub use crate::dispatch::{
        Everywhere, ForFunctor, ForKernel, HostExecutionSpace, HostOnly, Launch, LaunchMDRange,
        LaunchRange, LaunchTeam, ParallelFor, ParallelReduce, ParallelScan, Reach, ReachesSpace,
        ReduceFunctor, ReduceKernel, ScanFunctor, ScanKernel, ScratchArena, SingleScope,
        TeamForFunctor, TeamForKernel, TeamLimits, TeamReduceFunctor, TeamReduceKernel,
    };
    pub use crate::graph::{GraphPolicy, GraphSpace};
    pub use crate::policy::{IndexTuple, IndexType};
    pub use crate::reducer::{Bitwise, DevicePlace, ReduceTarget, ReductionScalar, ResultPlace};
    pub use crate::space::{DeviceKind, HostAccessible, HostKind, Init, SpaceKind};
    pub use crate::view::{
        All, DeepCopyDst, Element, Layout, RegularLayout, SubviewArg, SubviewArgs, ViewIndex,
        ViewRead,
    };
}

#[cfg(any(feature = "cuda", feature = "hip"))]
pub mod codegen {
    //! The generated GPU code of kernels: a kernel's translation unit ([`TranslationUnit`], made
    //! by its constructors such as [`TranslationUnit::for_kernel`]), the entry variants
    //! ([`UnitOptions`]) and the GPU language it is written for ([`Target`]). The launches make and
    //! compile these units themselves; a program looks at them to read or test the C++ its kernels
    //! become, or compiles them ahead of time (`nvrtc`, `hiprtc`).

    pub use crate::backend::gpu::codegen::{Target, TranslationUnit, UnitOptions};
}

#[cfg(feature = "cuda")]
pub mod nccl {
    //! NCCL, NVIDIA's collective communication library, over [`Cuda`](crate::Cuda) instances: a
    //! communicator ([`NcclComm`]) of one rank per GPU (in one process, or across processes from
    //! an [`NcclId`]), and its operations on Views in stream order.

    pub use crate::backend::cuda::{NcclComm, NcclId, NcclOp, NcclTransfer, NcclType};
}

/// The names most programs need: `use ferrokkos::prelude::*;`.
pub mod prelude {
    pub use crate::traits::Launch;
    pub use crate::{
        ALL, BAnd, BOr, ByValue, Custom, ExecutionSpace, HostSpace, InitSettings, Iterate, LAnd,
        LOr, LayoutLeft, LayoutRight, LayoutStride, MDRangePolicy, Max, MaxLoc, MemoryOrder,
        MemoryScope, MemorySpace, Min, MinLoc, MinMax, MinMaxLoc, MinMaxLocScalar, MinMaxScalar,
        Prepare, Prod, RangePolicy, Reducer, Schedule, Serial, Sum, Threads, Timer, ValLocScalar,
        View, abort, create_mirror_view, deep_copy, parallel_for, parallel_reduce, parallel_scan,
        partition_space, subview, view_alloc,
    };
    pub use crate::{
        AUTO, PerTeam, PerThread, TeamMember, TeamPolicy, TeamThreadMDRange, TeamThreadRange,
        TeamVectorRange, ThreadVectorRange, single,
    };
    #[cfg(feature = "cuda")]
    pub use crate::{Cuda, CudaHostPinnedSpace, CudaSpace, CudaUVMSpace};
    pub use crate::{DeviceValue, device, functor, kernel};
    pub use crate::{Graph, create_graph, when_all};
}

/// Macro support: what `kernel!` and `#[device]` expand to (the typed shadow's builders, the
/// capture constructors, the host-body helpers). Not API: it may change in any release, and
/// nothing here is needed to write or launch kernels.
#[doc(hidden)]
pub mod __private {
    pub use crate::algorithms::random::{PoolAccess, RandState, rand_free_state, rand_get_state};
    pub use crate::containers::{
        BitsetAccess, MapAccess, ScatterAccess, TokenAccess, TokenId, token_acquire, token_held,
        token_release, token_size, token_value,
    };
    pub use crate::dispatch::team::kernel::{host_team_for, host_team_reduce};
    pub use crate::dispatch::team::kernel_scratch::{KernelScratch, kernel_scratch};
    pub use crate::dispatch::team::names::{
        NestedRangeKind, NotSync, SingleScopeKind, nested_range, single_scope,
    };
    pub use crate::kernel::array::CapturedArray;
    pub use crate::kernel::bounds::InBounds;
    pub use crate::kernel::capture::{AtomicMemory, PlainMemory};
    pub use crate::kernel::device_bounds::{DeviceAccess, DeviceCoord, device_bounds, proves};
    pub use crate::kernel::device_fn::{
        Ch, DeviceFunction, DeviceMethod, MethodReceiver, device_function,
    };
    pub use crate::kernel::expr::Expr;
    pub use crate::kernel::index::ShadowIndex;
    pub use crate::kernel::join::JoinForms;
    pub use crate::kernel::kernel::{
        HostBody, IterationIndex, host_for, host_reduce, host_scan, iteration_index, league_block,
        scratch_bytes, shadow_for, shadow_reduce, shadow_scan, shadow_team_for, shadow_team_reduce,
        split2, split3, split4, split5, split6, unsafe_block,
    };
    pub use crate::kernel::overlap::{Coord as OverlapCoord, Overlap, int_bits};
    pub use crate::kernel::subview_range::{subview_extent, subview_range};
    pub use crate::kernel::value::{
        DeviceEnum, DeviceEq, FieldDef, device_struct, int_literal, is_device_value,
    };
    pub use crate::kernel::view_expr::{DeviceIndex, OffsetExpr, ViewExpr};
    pub use crate::plain::PlainBytes;
    pub use crate::reducer::device::ReducerCxx;
    pub use crate::view::atomic::{HostAtomic, HostAtomicBits, HostAtomicScalar};
    pub use crate::view::kernel_access::{
        AccessMode, AtomicAccess, IndexInt, KernelIndex, ReadAccess, ViewAccess, WriteAccess,
    };
    pub use crate::view::offset_access::{OffsetReadAccess, OffsetWriteAccess};
    pub use crate::view::subview::typelevel;
    pub use crate::view::view_read::{ProvenArg, ProvenRead};

    /// The typed shadow's builders (one call per operation of a kernel body).
    pub mod shadow {
        pub use crate::algorithms::random::{
            PoolShadow, StateShadow, rand_free_state_shadow as rand_free_state,
            rand_get_state_shadow as rand_get_state,
        };
        pub use crate::kernel::shadow::*;
    }

    /// The capture constructors and the accessors the host body uses.
    pub mod capture {
        pub use crate::kernel::capture::*;
    }
}

/// The README's example, compiled and run as a doctest so that it stays true.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeExample;
