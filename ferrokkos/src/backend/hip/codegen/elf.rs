//! What a code object says it is: hiprtc hands back a bare ELF image for one AMD GPU processor,
//! named in its header's `e_flags` (LLVM's `EF_AMDGPU_MACH_*` values, the low byte). Checking it
//! catches a compiler that built for another target than asked, and will let the HIP runtime's
//! disk cache refuse a code object that does not fit the device (docs/hip.md, "Code objects").

use super::GfxTarget;
use crate::error::{Error, Result};

/// `e_machine` of AMD GPU code: `EM_AMDGPU`.
const EM_AMDGPU: u16 = 224;

/// The `e_flags` bits that name the processor (`EF_AMDGPU_MACH`).
const MACH_MASK: u32 = 0xff;

/// The processors whose `EF_AMDGPU_MACH` value is checked here: those hiprtc 5.2 compiles for
/// without a GPU, with the value read from its own code objects.
const MACH: [(&str, u32); 3] = [("gfx908", 0x30), ("gfx90a", 0x3f), ("gfx1030", 0x36)];

/// The `EF_AMDGPU_MACH` value of `processor` (`gfx90a`), where this file knows it.
pub(crate) fn mach_of(processor: &str) -> Option<u32> {
    MACH.iter().find(|(p, _)| *p == processor).map(|&(_, m)| m)
}

/// Checks that `image` is a 64-bit little-endian AMD GPU ELF object whose processor is
/// `processor` (where [`mach_of`] knows its value); an [`Error::Internal`] naming what differs.
pub(crate) fn check_code_object(image: &[u8], processor: &str) -> Result<()> {
    let wrong = |reason: String| Error::Internal {
        what: format!("checking hiprtc's code object for {processor}"),
        reason,
    };
    if image.len() < 52 || &image[..4] != b"\x7fELF" {
        return Err(wrong(format!(
            "the image ({} bytes) is not an ELF object",
            image.len()
        )));
    }
    if image[4] != 2 || image[5] != 1 {
        return Err(wrong(format!(
            "the ELF class {} and data encoding {} are not 64-bit little-endian",
            image[4], image[5]
        )));
    }
    let machine = u16::from_le_bytes([image[18], image[19]]);
    if machine != EM_AMDGPU {
        return Err(wrong(format!(
            "e_machine is {machine}, not EM_AMDGPU ({EM_AMDGPU})"
        )));
    }
    let flags = u32::from_le_bytes([image[48], image[49], image[50], image[51]]);
    if let Some(expected) = mach_of(processor)
        && flags & MACH_MASK != expected
    {
        return Err(wrong(format!(
            "e_flags {flags:#x} name processor {:#x}, not {processor}'s {expected:#x}",
            flags & MACH_MASK
        )));
    }
    Ok(())
}

/// How a code object was compiled for a target feature (LLVM's code object V4 encoding in
/// `e_flags`), read from hiprtc 5.2's own objects: `gfx90a` is `0x53f` (both any),
/// `gfx90a:xnack+` `0x73f`, `gfx90a:xnack-` `0x63f`, `gfx90a:sramecc+` `0xd3f`, gfx1030 `0x36`
/// (neither feature exists there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FeatureMode {
    /// The processor has no such feature.
    Unsupported,
    /// Runs with the feature on or off.
    Any,
    /// Runs only with the feature off.
    Off,
    /// Runs only with the feature on.
    On,
}

impl FeatureMode {
    /// The mode of the feature whose two bits start at `shift` in `flags`.
    fn of(flags: u32, shift: u32) -> FeatureMode {
        match (flags >> shift) & 3 {
            0 => FeatureMode::Unsupported,
            1 => FeatureMode::Any,
            2 => FeatureMode::Off,
            _ => FeatureMode::On,
        }
    }

    /// Whether code compiled in this mode runs on a device whose feature is `device` (`None`: the
    /// device has no such feature). The HIP runtime's module loading will ask it of the device's
    /// modes.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn fits(self, device: Option<bool>) -> bool {
        matches!(
            (self, device),
            (FeatureMode::Unsupported, None)
                | (FeatureMode::Any, _)
                | (FeatureMode::Off, Some(false))
                | (FeatureMode::On, Some(true))
        )
    }
}

/// The features a code object is compiled for: `(name, shift of its two e_flags bits)`.
const FEATURES: [(&str, u32); 2] = [("xnack", 8), ("sramecc", 10)];

/// The `e_flags` of `image`, if it is long enough to have them (see [`check_code_object`] for
/// the rest of the header).
fn flags_of(image: &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(image.get(48..52)?.try_into().ok()?))
}

/// The mode `image` was compiled in for `feature` (`xnack`, `sramecc`).
pub(crate) fn feature_mode(image: &[u8], feature: &str) -> Option<FeatureMode> {
    let (_, shift) = FEATURES.iter().find(|(name, _)| *name == feature)?;
    flags_of(image).map(|flags| FeatureMode::of(flags, *shift))
}

/// [`check_code_object`] for `target`'s processor, and each feature compiled as the target's
/// name asks: `xnack+` on, `xnack-` off, unsaid any (or unsupported, on a processor without
/// it); an [`Error::Internal`] naming the feature and both modes otherwise. The disk cache uses
/// it, so an entry compiled for another mode is a miss.
pub(crate) fn check_for_target(image: &[u8], target: &GfxTarget) -> Result<()> {
    check_code_object(image, target.processor())?;
    for (feature, _) in FEATURES {
        let mode = feature_mode(image, feature).unwrap_or(FeatureMode::Unsupported);
        let ok = match target.feature(feature) {
            Some(true) => mode == FeatureMode::On,
            Some(false) => mode == FeatureMode::Off,
            None => matches!(mode, FeatureMode::Any | FeatureMode::Unsupported),
        };
        if !ok {
            return Err(Error::Internal {
                what: format!("checking hiprtc's code object for {}", target.name()),
                reason: format!(
                    "it is compiled with {feature} {mode:?}, which the target does not ask"
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF header: 64-bit, little-endian, `machine`, `flags`.
    fn header(machine: u16, flags: u32) -> Vec<u8> {
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2;
        h[5] = 1;
        h[18..20].copy_from_slice(&machine.to_le_bytes());
        h[48..52].copy_from_slice(&flags.to_le_bytes());
        h
    }

    #[test]
    fn the_processor_in_e_flags_is_checked_with_feature_bits_ignored() {
        assert!(check_code_object(&header(224, 0x3f), "gfx90a").is_ok());
        // xnack and sramecc settings live above the processor byte.
        assert!(check_code_object(&header(224, 0x33f), "gfx90a").is_ok());
        let e = check_code_object(&header(224, 0x30), "gfx90a").unwrap_err();
        assert!(
            e.to_string().contains("processor 0x30, not gfx90a's 0x3f"),
            "{e}"
        );
        // A processor without a known value: only the ELF kind is checked.
        assert!(check_code_object(&header(224, 0x4c), "gfx942").is_ok());
    }

    /// The `e_flags` values hiprtc 5.2 gives (see [`FeatureMode`]).
    #[test]
    fn feature_modes_are_read_from_e_flags_and_checked_against_the_target() {
        let image = |flags| header(224, flags);
        let target = |name| GfxTarget::parse(name).unwrap();
        assert_eq!(feature_mode(&image(0x73f), "xnack"), Some(FeatureMode::On));
        assert_eq!(
            feature_mode(&image(0x73f), "sramecc"),
            Some(FeatureMode::Any)
        );
        assert_eq!(
            feature_mode(&image(0xb3f), "sramecc"),
            Some(FeatureMode::Off)
        );
        assert_eq!(
            feature_mode(&image(0x36), "xnack"),
            Some(FeatureMode::Unsupported)
        );
        assert_eq!(feature_mode(b"short", "xnack"), None);
        assert!(check_for_target(&image(0x53f), &target("gfx90a")).is_ok());
        assert!(check_for_target(&image(0x73f), &target("gfx90a:xnack+")).is_ok());
        assert!(check_for_target(&image(0xb3f), &target("gfx90a:sramecc-:xnack+")).is_ok());
        assert!(check_for_target(&image(0x36), &target("gfx1030")).is_ok());
        let e = check_for_target(&image(0x63f), &target("gfx90a:xnack+")).unwrap_err();
        assert!(e.to_string().contains("compiled with xnack Off"), "{e}");
        assert!(check_for_target(&image(0x73f), &target("gfx90a")).is_err());
        assert!(check_for_target(&image(0x53f), &target("gfx908")).is_err());
    }

    #[test]
    fn code_for_any_mode_fits_every_device_and_code_for_one_mode_only_that_mode() {
        use FeatureMode::*;
        for device in [Some(true), Some(false)] {
            assert!(Any.fits(device));
            assert!(!Unsupported.fits(device));
        }
        assert!(On.fits(Some(true)) && !On.fits(Some(false)) && !On.fits(None));
        assert!(Off.fits(Some(false)) && !Off.fits(Some(true)));
        assert!(Unsupported.fits(None) && Any.fits(None));
    }

    #[test]
    fn other_images_are_refused_with_what_differs() {
        let e = check_code_object(b"not an elf", "gfx90a").unwrap_err();
        assert!(e.to_string().contains("not an ELF object"), "{e}");
        let e = check_code_object(&header(190, 0x3f), "gfx90a").unwrap_err();
        assert!(e.to_string().contains("e_machine is 190"), "{e}");
        let mut big_endian = header(224, 0x3f);
        big_endian[5] = 2;
        assert!(check_code_object(&big_endian, "gfx90a").is_err());
    }
}
