//! What a pointer is on HIP, from `hipPointerGetAttributes` (docs/hip.md, "deep_copy and pointer
//! kinds"): the HIP driver's `pointer_kind`, which `deep_copy`'s plan (`backend/gpu/copy/plan.rs`)
//! follows instead of the View's declared space. ROCm 6 renumbered the memory types; a pure function
//! of the answer and the ROCm release, so that both numberings are tested without a GPU.

// The HIP driver that calls it waits for hardware (docs/hip.md); until then only the tests do.
#![cfg_attr(not(test), allow(dead_code))]

use crate::backend::gpu::copy::plan::PointerKind;
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
}
