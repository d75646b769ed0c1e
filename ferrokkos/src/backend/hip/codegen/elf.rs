//! What a code object says it is: hiprtc hands back a bare ELF image for one AMD GPU processor,
//! named in its header's `e_flags` (LLVM's `EF_AMDGPU_MACH_*` values, the low byte). Checking it
//! catches a compiler that built for another target than asked, and will let the HIP runtime's
//! disk cache refuse a code object that does not fit the device (docs/hip.md, "Code objects").

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
