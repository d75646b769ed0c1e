//! How `deep_copy` will copy and fill on HIP (docs/hip.md, "deep_copy and pointer kinds"): the
//! method follows what each pointer *is*, from `hipPointerGetAttributes`, never the View's declared
//! space. Kokkos' HIP backend sent `deep_copy(view, 0)` on an unmanaged `SharedSpace` View over
//! `calloc`'d memory on MI300A to `hipMemsetAsync`, which refuses memory the HIP runtime did not
//! allocate (kokkos#7377); here a memset never sees pageable memory.
//!
//! Pure functions of the attributes, so that the rule is tested without a GPU; the HIP runtime's
//! `copy.rs` will call them with the attributes of real pointers.

// The HIP runtime that calls these waits for hardware (docs/hip.md); until then only the tests do.
#![cfg_attr(not(test), allow(dead_code))]

use crate::error::{Error, Result};

/// A ROCm release, from `hipRuntimeGetVersion` (`major * 10^7 + minor * 10^5 + patch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct RocmVersion {
    pub(crate) major: i32,
    pub(crate) minor: i32,
    pub(crate) patch: i32,
}

impl RocmVersion {
    /// The release `hipRuntimeGetVersion` reports as `n`: 50221153 is 5.2.21153.
    pub(crate) fn from_runtime(n: i32) -> RocmVersion {
        RocmVersion {
            major: n / 10_000_000,
            minor: n / 100_000 % 100,
            patch: n % 100_000,
        }
    }
}

/// What memory a pointer points to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PointerKind {
    /// Device memory (`hipMalloc`, `hipMallocAsync`).
    Device,
    /// Managed memory (`hipMallocManaged`), reachable from host and device.
    Managed,
    /// Page-locked host memory (`hipHostMalloc`, `hipHostRegister`).
    PinnedHost,
    /// Ordinary host memory the HIP runtime does not know (`malloc`, a `Vec`).
    Pageable,
}

/// `hipErrorInvalidValue`: what `hipPointerGetAttributes` answers for memory HIP did not allocate
/// or register (on ROCm 5; ROCm 6 answers with the memory type "unregistered").
const HIP_ERROR_INVALID_VALUE: i32 = 1;

/// The kind of a pointer from `hipPointerGetAttributes`' answer on ROCm `version`: `Err(code)`
/// when the call failed, else the attributes' memory type and `isManaged`. The numbering of
/// `hipMemoryType` changed in ROCm 6:
///
/// | type | ROCm 5 | ROCm 6 |
/// |---|---|---|
/// | unregistered (pageable) | (the call fails with `hipErrorInvalidValue`) | 0 |
/// | host (pinned) | 0 | 1 |
/// | device | 1 | 2 |
/// | managed | 4 | 3 |
/// | unified | 3 | 11 |
/// | array | 2 | 10 |
///
/// `isManaged` wins over the type. Arrays (textures) are an [`Error::Unsupported`]; any other
/// failure of the call is an [`Error::Internal`] naming its code.
pub(crate) fn classify_pointer(
    version: RocmVersion,
    answer: std::result::Result<(i32, bool), i32>,
) -> Result<PointerKind> {
    let (memory_type, is_managed) = match answer {
        Ok(attributes) => attributes,
        Err(HIP_ERROR_INVALID_VALUE) => return Ok(PointerKind::Pageable),
        Err(code) => {
            return Err(Error::Internal {
                what: "deep_copy on HIP".to_string(),
                reason: format!("hipPointerGetAttributes failed with HIP error {code}"),
            });
        }
    };
    if is_managed {
        return Ok(PointerKind::Managed);
    }
    let kind = if version.major >= 6 {
        match memory_type {
            0 => Some(PointerKind::Pageable),
            1 => Some(PointerKind::PinnedHost),
            2 => Some(PointerKind::Device),
            3 | 11 => Some(PointerKind::Managed),
            _ => None,
        }
    } else {
        match memory_type {
            0 => Some(PointerKind::PinnedHost),
            1 => Some(PointerKind::Device),
            3 | 4 => Some(PointerKind::Managed),
            _ => None,
        }
    };
    kind.ok_or_else(|| Error::Unsupported {
        what: "deep_copy on HIP".to_string(),
        reason: format!(
            "the pointer's memory type {memory_type} (ROCm {}) is an array or unknown; Views \
             live in device, managed or host memory",
            version.major
        ),
    })
}

/// Whether the device reaches memory of `kind`: everything but pageable memory, which it reaches
/// only where `hipDeviceAttributePageableMemoryAccess` is 1 (MI300A with XNACK on).
pub(crate) fn device_reaches(kind: PointerKind, pageable_access: bool) -> bool {
    kind != PointerKind::Pageable || pageable_access
}

/// How a fill (`deep_copy(view, value)`) of a View's block runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FillMethod {
    /// `hipMemsetD8Async`, `D16` or `D32` with the value's repeated unit of this many bytes.
    Memset {
        /// 1, 2 or 4.
        unit: usize,
    },
    /// The built-in fill kernel.
    Kernel,
    /// A loop on the host (memory the device cannot reach).
    HostLoop,
}

/// The fill of a block of `kind` memory with the element bytes `value`: a memset only for a
/// contiguous, suitably aligned block that the HIP runtime allocated or registered (never
/// pageable memory, whatever the View's space says) and a value that repeats a 1-, 2- or 4-byte
/// unit; else the fill kernel where the device reaches the memory; else a host loop.
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
        _ if device_reaches(kind, pageable_access) => FillMethod::Kernel,
        _ => FillMethod::HostLoop,
    }
}

/// How a copy between two blocks runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CopyMethod {
    /// One `hipMemcpyAsync` (both blocks contiguous, in the same layout).
    Memcpy,
    /// The built-in strided copy kernel (the device reaches both sides).
    Kernel,
    /// Through a contiguous staging buffer on the side the device cannot reach: gather on the
    /// host, upload, kernel (or kernel, download, scatter on the host).
    Staged,
}

/// The copy from `src` to `dst` blocks: one memcpy when both are contiguous in one layout
/// (`hipMemcpyAsync` takes any two kinds), else the strided kernel where the device reaches both,
/// else through staging.
pub(crate) fn plan_copy(
    dst: PointerKind,
    src: PointerKind,
    contiguous_same_layout: bool,
    pageable_access: bool,
) -> CopyMethod {
    if contiguous_same_layout {
        CopyMethod::Memcpy
    } else if device_reaches(dst, pageable_access) && device_reaches(src, pageable_access) {
        CopyMethod::Kernel
    } else {
        CopyMethod::Staged
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PointerKind::*;

    const ROCM5: RocmVersion = RocmVersion {
        major: 5,
        minor: 2,
        patch: 21153,
    };
    const ROCM6: RocmVersion = RocmVersion {
        major: 6,
        minor: 2,
        patch: 0,
    };

    #[test]
    fn the_runtime_version_decodes() {
        assert_eq!(RocmVersion::from_runtime(50221153), ROCM5);
        let six = RocmVersion::from_runtime(60241134);
        assert_eq!((six.major, six.minor, six.patch), (6, 2, 41134));
        assert!(six > ROCM5);
    }

    #[test]
    fn pointer_kinds_follow_each_rocm_numbering() {
        for (version, table) in [
            (
                ROCM5,
                [(0, PinnedHost), (1, Device), (3, Managed), (4, Managed)],
            ),
            (
                ROCM6,
                [(1, PinnedHost), (2, Device), (3, Managed), (11, Managed)],
            ),
        ] {
            for (memory_type, kind) in table {
                assert_eq!(
                    classify_pointer(version, Ok((memory_type, false))).unwrap(),
                    kind,
                    "ROCm {} type {memory_type}",
                    version.major
                );
            }
            // Unregistered host memory: an error on ROCm 5, type 0 on ROCm 6.
            assert_eq!(classify_pointer(version, Err(1)).unwrap(), Pageable);
            // isManaged wins; arrays are refused with the type named.
            assert_eq!(classify_pointer(version, Ok((1, true))).unwrap(), Managed);
            let array = if version.major >= 6 { 10 } else { 2 };
            let e = classify_pointer(version, Ok((array, false))).unwrap_err();
            assert!(
                e.to_string().contains(&format!("memory type {array}")),
                "{e}"
            );
        }
        assert_eq!(classify_pointer(ROCM6, Ok((0, false))).unwrap(), Pageable);
        assert!(matches!(
            classify_pointer(ROCM5, Err(700)),
            Err(Error::Internal { reason, .. }) if reason.contains("700")
        ));
    }

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
            CopyMethod::Staged
        );
        assert_eq!(plan_copy(Pageable, Device, false, true), CopyMethod::Kernel);
    }
}
