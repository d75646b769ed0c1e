//! [`DualView`]: Kokkos' `Kokkos::DualView`, a View in a memory space and its host mirror, with
//! what each side last changed, so that a program copies only when needed and never reads a stale
//! side.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::layout::{Layout, LayoutRight, RegularLayout};
use crate::space::MemorySpace;
use crate::space::host_space::HostSpace;
use crate::view::{Element, View, create_mirror_view, deep_copy};

/// Which side of a [`DualView`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DualSide {
    /// The host mirror (`view_host`).
    Host,
    /// The View in the DualView's memory space (`view_device`).
    Device,
}

impl DualSide {
    fn name(self) -> &'static str {
        match self {
            DualSide::Host => "host",
            DualSide::Device => "device",
        }
    }

    fn other(self) -> DualSide {
        match self {
            DualSide::Host => DualSide::Device,
            DualSide::Device => DualSide::Host,
        }
    }
}

/// A View in memory space `M` (the "device" side) and its host mirror (Kokkos' `DualView`), with
/// the side modified since the last sync.
///
/// Beyond Kokkos, a stale read is an `Err`, not a silent wrong answer: [`view_host`] and
/// [`view_device`] return the side only when it holds the latest values (else
/// [`Error::DualViewStale`] says which `sync_*` to call), and [`modify_host`] / [`modify_device`]
/// refuse to mark one side while the other has unsynced changes (Kokkos aborts there). Marking a
/// side goes through `&mut self`, so the flags cannot change under a reader of the DualView. Views
/// are shared handles: a clone of a side kept past a `modify_*` of the other side escapes this
/// tracking, as in Kokkos.
///
/// Where `M` is host-accessible (HostSpace, and Cuda's UVM space, whose host mirror is itself)
/// both sides are one View, and syncs copy nothing.
///
/// [`view_host`]: DualView::view_host
/// [`view_device`]: DualView::view_device
/// [`modify_host`]: DualView::modify_host
/// [`modify_device`]: DualView::modify_device
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::DualView;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let mut dv = DualView::<f64, 1>::new("x", [100])?;
/// dv.modify_host()?.host_mut()?.as_mut_slice().unwrap().fill(1.5);
/// dv.sync_device()?;
/// let x = dv.modify_device()?.clone();
/// parallel_for("double", RangePolicy::new(&exec, 0, 100)?, kernel!(|i| x[i] *= 2.0))?;
/// dv.sync_host()?;
/// assert_eq!(dv.view_host()?.get(7)?, 3.0);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct DualView<T: Element, const R: usize, L: Layout = LayoutRight, M: MemorySpace = HostSpace>
{
    device: View<T, R, L, M>,
    host: View<T, R, L, M::HostMirror>,
    /// The side changed since the last sync, if any.
    modified: Option<DualSide>,
}

impl<T: Element, const R: usize, L: Layout, M: MemorySpace> DualView<T, R, L, M> {
    /// A DualView of `device` and a new host mirror holding a copy of its values (the same View
    /// where `M` is host-accessible); neither side modified.
    pub fn from_view(device: View<T, R, L, M>) -> Result<Self> {
        let host = create_mirror_view(&device)?;
        if !Self::shared(&device, &host) {
            deep_copy(&host, &device)?;
        }
        Ok(DualView {
            device,
            host,
            modified: None,
        })
    }

    fn shared(device: &View<T, R, L, M>, host: &View<T, R, L, M::HostMirror>) -> bool {
        Arc::ptr_eq(device.allocation(), host.allocation())
    }

    /// Whether both sides are one View (`M` host-accessible): syncs copy nothing.
    pub fn is_shared(&self) -> bool {
        Self::shared(&self.device, &self.host)
    }

    /// The label of the device View.
    pub fn label(&self) -> &str {
        self.device.label()
    }

    /// The extent of dimension `r`.
    pub fn extent(&self, r: usize) -> usize {
        self.device.extent(r)
    }

    /// The extents.
    pub fn extents(&self) -> [usize; R] {
        self.device.extents()
    }

    fn stale(&self, side: DualSide, wanted: &str) -> Error {
        Error::DualViewStale {
            label: self.label().to_string(),
            wanted: wanted.to_string(),
            stale: side.name(),
            modified: side.other().name(),
        }
    }

    /// The host side to read, if it holds the latest values (Kokkos' `view_host()`); else
    /// [`Error::DualViewStale`]: the device side was modified since the last `sync_host`.
    pub fn view_host(&self) -> Result<&View<T, R, L, M::HostMirror>> {
        match self.need_sync_host() {
            true => Err(self.stale(DualSide::Host, "reading the host side")),
            false => Ok(&self.host),
        }
    }

    /// The device side to read, if it holds the latest values (Kokkos' `view_device()`); else
    /// [`Error::DualViewStale`]: the host side was modified since the last `sync_device`.
    pub fn view_device(&self) -> Result<&View<T, R, L, M>> {
        match self.need_sync_device() {
            true => Err(self.stale(DualSide::Device, "reading the device side")),
            false => Ok(&self.device),
        }
    }

    /// Marks the host side modified and returns it to write (Kokkos' `modify_host()` then
    /// `view_host()`); [`Error::DualViewStale`] if the device side has unsynced changes (call
    /// `sync_host` first).
    pub fn modify_host(&mut self) -> Result<&View<T, R, L, M::HostMirror>> {
        self.modify(DualSide::Host)?;
        Ok(&self.host)
    }

    /// Marks the device side modified and returns it to write (Kokkos' `modify_device()` then
    /// `view_device()`); [`Error::DualViewStale`] if the host side has unsynced changes (call
    /// `sync_device` first).
    pub fn modify_device(&mut self) -> Result<&View<T, R, L, M>> {
        self.modify(DualSide::Device)?;
        Ok(&self.device)
    }

    fn modify(&mut self, side: DualSide) -> Result<()> {
        if self.modified == Some(side.other()) {
            return Err(self.stale(side, &format!("modifying the {} side", side.name())));
        }
        if !self.is_shared() {
            self.modified = Some(side);
        }
        let ptr = match side {
            DualSide::Host => self.host.as_ptr().cast(),
            DualSide::Device => self.device.as_ptr().cast(),
        };
        crate::tools::dual_view(false, self.label(), ptr, side == DualSide::Device);
        Ok(())
    }

    /// Whether the host side is stale: the device side was modified since the last sync (Kokkos'
    /// `need_sync_host()`).
    pub fn need_sync_host(&self) -> bool {
        self.modified == Some(DualSide::Device)
    }

    /// Whether the device side is stale (Kokkos' `need_sync_device()`).
    pub fn need_sync_device(&self) -> bool {
        self.modified == Some(DualSide::Host)
    }

    /// Copies the device side to the host if the host is stale (Kokkos' `sync_host()`); then
    /// neither side is modified. With the host side modified it does nothing: the device side
    /// stays stale (a sync in the wrong direction forgets nothing).
    pub fn sync_host(&mut self) -> Result<()> {
        if self.need_sync_host() {
            deep_copy(&self.host, &self.device)?;
            crate::tools::dual_view(true, self.label(), self.host.as_ptr().cast(), false);
            self.modified = None;
        }
        Ok(())
    }

    /// Copies the host side to the device if the device is stale (Kokkos' `sync_device()`); then
    /// neither side is modified. With the device side modified it does nothing.
    pub fn sync_device(&mut self) -> Result<()> {
        if self.need_sync_device() {
            deep_copy(&self.device, &self.host)?;
            crate::tools::dual_view(true, self.label(), self.device.as_ptr().cast(), true);
            self.modified = None;
        }
        Ok(())
    }

    /// Forgets which side was modified, without copying (Kokkos' `clear_sync_state()`).
    pub fn clear_sync_state(&mut self) {
        self.modified = None;
    }
}

impl<T: Element, const R: usize, L: RegularLayout, M: MemorySpace> DualView<T, R, L, M> {
    /// A DualView of a new View `label` of `extents` in `M` (zeroed) and its host mirror; neither
    /// side modified.
    pub fn new(label: &str, extents: [usize; R]) -> Result<Self> {
        Self::from_view(View::new(label, extents)?)
    }

    /// New Views of `extents` on both sides, zeroed, neither modified (Kokkos' `realloc`: the
    /// values are not kept).
    pub fn realloc(&mut self, extents: [usize; R]) -> Result<()> {
        let label = self.label().to_string();
        *self = Self::new(&label, extents)?;
        Ok(())
    }

    /// New extents keeping the values in the common index range (Kokkos' `resize`): the side
    /// holding the latest values is resized (the device if neither was modified) and the other
    /// side made its copy; neither side is modified after.
    pub fn resize(&mut self, extents: [usize; R]) -> Result<()> {
        if self.need_sync_device() {
            self.sync_device()?;
        }
        crate::view::resize(&mut self.device, extents)?;
        *self = Self::from_view(self.device.clone())?;
        Ok(())
    }
}
