//! The [`ExecutionSpace`] trait: a place where parallel work runs, through one of its instances.

use std::fmt::Debug;

use super::kind::SpaceKind;
use super::memory::{HostAccessible, MemorySpace};
use crate::error::Result;
use crate::tools::Site;

/// Kokkos Tools' device-type codes (the top byte of a device ID), with Kokkos' numbers: a tool
/// that decodes device IDs reads ferrokkos' as it reads Kokkos'. Kokkos has more backends than
/// ferrokkos, so more variants may come.
///
/// ```
/// use ferrokkos::DeviceType;
/// assert_eq!(DeviceType::Hip as u32, 3);
/// assert!(DeviceType::Cuda.is_gpu() && !DeviceType::Threads.is_gpu());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
#[non_exhaustive]
pub enum DeviceType {
    /// The Serial backend.
    Serial = 0,
    /// The CUDA backend.
    Cuda = 2,
    /// The HIP backend (AMD GPUs). Its execution space waits for hardware (`docs/hip.md`); the
    /// code is reserved so that its device IDs and trace lanes are settled.
    Hip = 3,
    /// The Threads backend.
    Threads = 6,
}

impl DeviceType {
    /// Whether the backend runs on a GPU (its work runs away from the host thread that submits
    /// it): CUDA and HIP.
    pub const fn is_gpu(self) -> bool {
        matches!(self, DeviceType::Cuda | DeviceType::Hip)
    }
}

/// Kokkos Tools' device ID: `type << 24 | device << 17 | instance`.
///
/// ```
/// use ferrokkos::{DeviceType, device_id};
/// assert_eq!(device_id(DeviceType::Threads, 0, 1), 0x0600_0001);
/// assert_eq!(device_id(DeviceType::Cuda, 1, 3), (2 << 24) | (1 << 17) | 3);
/// assert_eq!(device_id(DeviceType::Hip, 0, 2), 0x0300_0002);
/// ```
pub const fn device_id(kind: DeviceType, device: u32, instance: u32) -> u32 {
    ((kind as u32) << 24) | ((device & 0x7f) << 17) | (instance & 0x1_ffff)
}

/// An execution space instance: a handle to an ordered stream of work on one backend.
///
/// Handles are cheap to clone and clones refer to the same instance. Work submitted to one instance runs
/// in submission order; different instances may run concurrently. On the host backends a dispatch
/// returns when its work is done, so [`ExecutionSpace::fence`] only waits for dispatches that other
/// threads are running on the same instance.
///
/// ```
/// use ferrokkos::{ExecutionSpace, InitSettings, Threads};
/// let _rt = ferrokkos::initialize(InitSettings::new().num_threads(2))?;
/// let exec = Threads::default_instance()?;
/// assert_eq!(exec.name(), "Threads");
/// assert_eq!(exec.concurrency(), 2);
/// exec.fence("after setup")?;
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub trait ExecutionSpace: Clone + Debug + Send + Sync + 'static {
    /// The memory space this execution space allocates in by default.
    type MemorySpace: MemorySpace;

    /// Kokkos' `SharedSpace` for this space: memory that host code and this space's kernels both
    /// reach, without copies (`HostSpace` on Serial and Threads, `CudaUVMSpace` on Cuda). Generic
    /// code allocates in it to share data between the host and any space:
    ///
    /// ```
    /// use ferrokkos::prelude::*;
    ///
    /// /// Doubles, on `exec`, values the host wrote, and sums them on the host.
    /// fn doubled_sum<S: Launch>(exec: &S) -> ferrokkos::Result<f64> {
    ///     let v = View::<f64, 1, LayoutRight, S::SharedSpace>::new("shared", [4])?;
    ///     v.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[1.0, 2.0, 3.0, 4.0]);
    ///     parallel_for("double", RangePolicy::new(exec, 0, 4)?, kernel!(|i| v[i] *= 2.0))?;
    ///     let sum = v.host()?.as_slice().unwrap().iter().sum();
    ///     Ok(sum)
    /// }
    ///
    /// let _rt = ferrokkos::initialize(InitSettings::new())?;
    /// assert_eq!(doubled_sum(&Serial::default_instance()?)?, 20.0);
    /// # Ok::<(), ferrokkos::Error>(())
    /// ```
    type SharedSpace: HostAccessible;

    /// Kokkos' `SharedHostPinnedSpace` for this space: host memory that this space's kernels
    /// reach too (`HostSpace` on Serial and Threads, `CudaHostPinnedSpace` on Cuda).
    type SharedHostPinnedSpace: HostAccessible;

    /// The layout that suits this space best (Kokkos' `array_layout`): `LayoutRight` on the host. An
    /// `MDRangePolicy` walks its box in this layout's order unless told otherwise.
    type ArrayLayout: crate::layout::Layout;

    /// The space's name, as Kokkos spells it (`"Serial"`, `"Threads"`).
    const NAME: &'static str;

    /// The Kokkos Tools device type of this backend.
    const DEVICE_TYPE: DeviceType;

    /// The default instance of this space. An error before `initialize` or after finalize.
    fn default_instance() -> Result<Self>;

    /// The space's name.
    fn name(&self) -> &'static str {
        Self::NAME
    }

    /// Waits until all work submitted to this instance has completed. `label` names the fence for tools.
    ///
    /// On a host space, a fence (or a launch, or finalize) from inside a kernel running on the
    /// instance would wait for itself: there it returns at once (a launch runs inline, finalize is
    /// deferred until the kernel's launch has returned). The same holds on a thread that the
    /// running kernel started (`std::thread::scope` in a kernel body, which joins its threads): a
    /// thread that would wait for a running host kernel, and that started after the kernel's launch
    /// began (told by std's thread numbers, allocated in spawn order: numbered above every thread
    /// that had used ferrokkos when the launch began), waits 100 ms (once per kernel), then is
    /// treated as part of that kernel (on Threads its launches run every participant on the calling
    /// thread, with the result the workers would give). A thread that unrelated code started while
    /// the kernel runs, or that first uses ferrokkos then, is treated the same way if the kernel
    /// outlasts those 100 ms; all it loses is the ordering with that one kernel (its Views stay
    /// borrow-checked: a View the kernel uses gives it a borrow error, never a race).
    fn fence(&self, label: &str) -> Result<()>;

    /// The maximum number of threads (or lanes) that work on this instance runs on at once.
    fn concurrency(&self) -> usize;

    /// This instance's number within its backend, counted from 1 in creation order.
    fn instance_id(&self) -> u32;

    /// Kokkos Tools' device ID of this instance (see [`device_id`]).
    fn device_id(&self) -> u32 {
        device_id(Self::DEVICE_TYPE, 0, self.instance_id())
    }

    /// Splits this instance into `weights.len()` instances whose shares of the resources follow the
    /// weights. See [`crate::partition_space`].
    fn partition(&self, weights: &[f64]) -> Result<Vec<Self>>;

    /// The memory space Views default to for this execution space.
    fn memory_space(&self) -> Self::MemorySpace {
        Self::MemorySpace::default()
    }

    /// What a device copy on this instance is handed to carry it out (the backend's own instance
    /// state; the instance itself for host spaces). Not for users: the token is the crate's.
    #[doc(hidden)]
    fn copy_instance(&self, _: crate::seal::Token) -> &dyn std::any::Any {
        self
    }

    /// Whether work on this space runs as Rust on host threads ([`super::HostKind`]) or as device
    /// code ([`super::DeviceKind`], where only `kernel!`s can run: launching a closure there does not
    /// compile).
    type Kind: SpaceKind;
}

/// Where work on `space` runs, as tools see it, for `tools::profiled` (evaluated only when a tool
/// is active).
#[inline(always)]
pub(crate) fn tool_site<S: ExecutionSpace>(space: &S) -> impl FnOnce() -> Site + '_ {
    move || Site {
        space: S::NAME,
        device_id: space.device_id(),
        instance: space.instance_id(),
        host: !S::DEVICE_TYPE.is_gpu(),
    }
}

/// Fences the default instance of every backend of this process (Kokkos' global `fence`). `label`
/// names the fence for tools. Called from inside a host kernel, or from a thread that a running host
/// kernel started, it does not wait for that kernel (see [`ExecutionSpace::fence`]).
pub fn fence(label: &str) -> Result<()> {
    crate::runtime::fence_all(label)
}
