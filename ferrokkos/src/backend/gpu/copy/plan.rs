//! How `deep_copy` copies and fills on a GPU (DESIGN.md decision 9): the method follows what each
//! pointer *is*, from the driver's pointer attributes (`Driver::pointer_kind`), never the View's
//! declared space. Kokkos' HIP backend sent `deep_copy(view, 0)` on an unmanaged `SharedSpace` View
//! over `calloc`'d memory on MI300A to `hipMemsetAsync`, which refuses memory the runtime did not
//! allocate (kokkos#7377); here a memset never sees pageable memory.
//!
//! Pure functions of the kinds, the layouts and the value, so that the rules are tested without a
//! GPU; `super` carries out what they choose.

use crate::backend::gpu::builtin::MAX_FILL_BYTES;

/// What memory a pointer points to, as the driver sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PointerKind {
    /// Device memory (`cuMemAlloc`, `hipMalloc`, or another library's device allocation): only the
    /// device (and the driver's copies) can access it.
    Device,
    /// Managed memory (`cuMemAllocManaged`, `hipMallocManaged`): the host and the device can both
    /// access it.
    Managed,
    /// Pinned host memory (`cuMemHostAlloc`, `hipHostMalloc`, or registered host memory): the host
    /// accesses it directly and the device through unified addressing.
    PinnedHost,
    /// Memory the driver does not know: plain host memory (`Vec`, `malloc`, `calloc`, the stack).
    /// Only the host can write it, unless the device has pageable memory access; the driver's
    /// memset refuses it.
    Pageable,
}

/// Whether the device reaches memory of `kind`: everything but pageable memory, which it reaches
/// only with pageable memory access (`DeviceInfo::pageable_memory_access`: MI300A with XNACK on).
pub(crate) fn device_reaches(kind: PointerKind, pageable_access: bool) -> bool {
    kind != PointerKind::Pageable || pageable_access
}

/// How a fill (`deep_copy(view, value)`) of a View's block runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FillMethod {
    /// The driver's asynchronous memset (`cuMemsetD8/16/32Async`, `hipMemsetD8/16/32Async`) with
    /// the value's repeated unit of this many bytes.
    Memset {
        /// 1, 2 or 4.
        unit: usize,
    },
    /// The built-in fill kernel (elements of at most [`MAX_FILL_BYTES`]).
    Kernel,
    /// One element uploaded, then the built-in copy kernel reading it for every position (larger
    /// elements); waited for.
    Broadcast,
    /// A loop on the host (memory the device cannot reach).
    HostLoop,
}

impl FillMethod {
    /// Whether the GPU carries the fill out alone (so that a graph can record it).
    pub(crate) fn device_only(self) -> bool {
        matches!(self, FillMethod::Memset { .. } | FillMethod::Kernel)
    }
}

/// The fill of a block of `kind` memory with the element bytes `value` (one element), starting at
/// `address`: a memset only for a contiguous, suitably aligned block that the driver allocated or
/// registered (never pageable memory, whatever the View's space says) and a value that repeats a
/// 1-, 2- or 4-byte unit; else, where the device reaches the memory, the fill kernel or, for
/// elements over [`MAX_FILL_BYTES`], a broadcast; else a host loop.
pub(crate) fn plan_fill(
    kind: PointerKind,
    pageable_access: bool,
    contiguous: bool,
    value: &[u8],
    address: usize,
) -> FillMethod {
    let unit = [1usize, 2, 4].into_iter().find(|&unit| {
        value.len().is_multiple_of(unit)
            && value.chunks(unit).all(|c| c == &value[..unit])
            && address.is_multiple_of(unit)
    });
    match unit {
        Some(unit) if contiguous && kind != PointerKind::Pageable => FillMethod::Memset { unit },
        _ if !device_reaches(kind, pageable_access) => FillMethod::HostLoop,
        _ if value.len() <= MAX_FILL_BYTES => FillMethod::Kernel,
        _ => FillMethod::Broadcast,
    }
}

/// How a copy between two blocks of equal extents runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CopyMethod {
    /// One asynchronous copy of the whole block (both blocks contiguous, in the same layout; the
    /// driver's copy takes any two kinds of memory).
    Memcpy,
    /// The built-in strided copy kernel (the device reaches both sides).
    Kernel,
    /// Element by element on the host (the device reaches neither side).
    HostLoop,
    /// Gathered on the host into a compact block, uploaded, scattered by the copy kernel (the
    /// device reaches only the destination); waited for.
    Upload,
    /// Packed by the copy kernel into a compact block, downloaded, scattered on the host (the
    /// device reaches only the source); waited for.
    Download,
}

/// The copy from a `src` block to a `dst` block: one memcpy when both are contiguous in one layout,
/// else the strided kernel where the device reaches both, else through a compact staging block on
/// the side the device reaches (or on the host alone).
pub(crate) fn plan_copy(
    dst: PointerKind,
    src: PointerKind,
    contiguous_same_layout: bool,
    pageable_access: bool,
) -> CopyMethod {
    if contiguous_same_layout {
        return CopyMethod::Memcpy;
    }
    match (
        device_reaches(dst, pageable_access),
        device_reaches(src, pageable_access),
    ) {
        (true, true) => CopyMethod::Kernel,
        (false, false) => CopyMethod::HostLoop,
        (true, false) => CopyMethod::Upload,
        (false, true) => CopyMethod::Download,
    }
}

/// Whether a copy between blocks of these kinds is carried out by the GPU alone (so that a graph
/// can record it): the host reads or writes a pageable side itself.
pub(crate) fn copy_is_device_only(dst: PointerKind, src: PointerKind) -> bool {
    dst != PointerKind::Pageable && src != PointerKind::Pageable
}

#[cfg(test)]
mod tests {
    use super::*;
    use PointerKind::*;

    /// kokkos#7377: zero-filling an unmanaged SharedSpace View over calloc'd
    /// memory on MI300A must not call hipMemsetAsync.
    #[test]
    fn a_fill_of_pageable_memory_is_never_a_memset() {
        let zeros = [0u8; 8];
        for pageable_access in [true, false] {
            let method = plan_fill(Pageable, pageable_access, true, &zeros, 4096);
            assert!(!matches!(method, FillMethod::Memset { .. }), "{method:?}");
        }
        // XNACK on (MI300A): the device reaches it, so the fill kernel; off: the host.
        assert_eq!(
            plan_fill(Pageable, true, true, &zeros, 64),
            FillMethod::Kernel
        );
        assert_eq!(
            plan_fill(Pageable, false, true, &zeros, 64),
            FillMethod::HostLoop
        );
    }

    #[test]
    fn fills_of_runtime_memory_use_the_widest_memset_unit_that_fits() {
        let seven_f64 = 7.0f64.to_ne_bytes();
        let zero_f64 = [0u8; 8];
        let ones_u32 = [1u8, 0, 0, 0, 1, 0, 0, 0];
        let bytes = [7u8, 7, 7, 7];
        for kind in [Device, Managed, PinnedHost] {
            assert_eq!(
                plan_fill(kind, false, true, &zero_f64, 64),
                FillMethod::Memset { unit: 1 }
            );
            assert_eq!(
                plan_fill(kind, false, true, &bytes, 64),
                FillMethod::Memset { unit: 1 }
            );
            assert_eq!(
                plan_fill(kind, false, true, &ones_u32, 64),
                FillMethod::Memset { unit: 4 }
            );
            // 7.0 repeats no 1-, 2- or 4-byte unit; a strided block is never one memset; a block
            // not aligned to the unit is not either.
            assert_eq!(
                plan_fill(kind, false, true, &seven_f64, 64),
                FillMethod::Kernel
            );
            assert_eq!(
                plan_fill(kind, false, false, &zero_f64, 64),
                FillMethod::Kernel
            );
            assert_eq!(
                plan_fill(kind, false, true, &ones_u32, 66),
                FillMethod::Kernel
            );
        }
    }

    #[test]
    fn fills_of_large_elements_broadcast_one_and_only_device_methods_are_recordable() {
        let big = [3u8; MAX_FILL_BYTES + 8];
        let mut mixed = [0u8; MAX_FILL_BYTES + 8];
        mixed[5] = 1;
        // A repeated byte is still one memset, however large the element.
        assert_eq!(
            plan_fill(Device, false, true, &big, 64),
            FillMethod::Memset { unit: 1 }
        );
        assert_eq!(
            plan_fill(Device, false, true, &mixed, 64),
            FillMethod::Broadcast
        );
        assert_eq!(
            plan_fill(Managed, false, false, &big, 64),
            FillMethod::Broadcast
        );
        assert_eq!(
            plan_fill(Pageable, false, true, &mixed, 64),
            FillMethod::HostLoop
        );
        assert!(FillMethod::Memset { unit: 2 }.device_only());
        assert!(FillMethod::Kernel.device_only());
        assert!(!FillMethod::Broadcast.device_only());
        assert!(!FillMethod::HostLoop.device_only());
    }

    #[test]
    fn copies_use_memcpy_when_contiguous_and_stage_what_the_device_cannot_reach() {
        for (dst, src) in [
            (Device, Pageable),
            (Pageable, Device),
            (Managed, PinnedHost),
        ] {
            assert_eq!(plan_copy(dst, src, true, false), CopyMethod::Memcpy);
        }
        assert_eq!(
            plan_copy(Device, PinnedHost, false, false),
            CopyMethod::Kernel
        );
        assert_eq!(
            plan_copy(Device, Pageable, false, false),
            CopyMethod::Upload
        );
        assert_eq!(
            plan_copy(Pageable, Managed, false, false),
            CopyMethod::Download
        );
        assert_eq!(
            plan_copy(Pageable, Pageable, false, false),
            CopyMethod::HostLoop
        );
        assert_eq!(plan_copy(Pageable, Device, false, true), CopyMethod::Kernel);
        assert!(copy_is_device_only(Device, PinnedHost));
        assert!(!copy_is_device_only(Device, Pageable));
        assert!(!copy_is_device_only(Pageable, Managed));
    }
}
