//! HIP code generation: the shared emitter (`backend/gpu/codegen`) writes every kernel's entries
//! once, and a unit becomes HIP C++ by its device header's target prelude alone
//! ([`TranslationUnit::for_target`](crate::backend::gpu::codegen::TranslationUnit::for_target) with
//! `Target::Hip`: `device/target_hip.h` gives the wavefront's width from the compiler, 64-lane
//! masks and AMD's mask-free shuffles). What is HIP's own is here: the names of AMD GPU
//! architectures, hiprtc's options for them, and the check that a code object is for the
//! processor asked (`elf.rs`).
//!
//! The languages are close enough that the entries need no other change: `__global__`,
//! `threadIdx`/`blockIdx`/`blockDim`/`gridDim`, `extern __shared__` dynamic shared memory,
//! `__syncthreads`, `atomicAdd`/`atomicCAS`, `__ldg` and the integer intrinsics (`__popc`, `__clz`)
//! are HIP's too. Block reductions and team collectives are written against `FK_WARP`, so a
//! 64-lane wavefront reduces in one fewer shuffle stage and a block of 1024 threads has 16
//! wavefronts.

mod elf;

#[cfg(test)]
pub(crate) use elf::check_code_object;
pub(crate) use elf::check_for_target;

use crate::backend::gpu::arch::GpuArch;
use crate::error::{Error, Result};

/// An AMD GPU architecture as hiprtc names it: `gfx` and its processor number (`gfx90a`,
/// `gfx908`, `gfx1030`, `gfx942`), optionally followed by target features (`gfx90a:xnack+`,
/// `gfx90a:sramecc-:xnack+`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GfxTarget {
    /// The processor: `gfx90a`.
    processor: String,
    /// The whole name, features included.
    full: String,
}

impl GfxTarget {
    /// Parses `name`: an [`Error::InvalidArgument`] naming it when it is not `gfx` followed by 3
    /// or 4 hexadecimal digits (lower case) and `:feature+` / `:feature-` suffixes.
    pub(crate) fn parse(name: &str) -> Result<GfxTarget> {
        let invalid = |why: &str| Error::InvalidArgument {
            operation: "compile_code_object",
            reason: format!(
                "{name:?} is not an AMD GPU architecture ({why}); expected a name such as gfx90a, \
                 gfx908, gfx1030 or gfx90a:xnack+"
            ),
        };
        let mut parts = name.split(':');
        let processor = parts.next().unwrap_or_default();
        let digits = processor
            .strip_prefix("gfx")
            .ok_or_else(|| invalid("it does not start with gfx"))?;
        let hex = |c: char| c.is_ascii_digit() || ('a'..='f').contains(&c);
        if !(3..=4).contains(&digits.len()) || !digits.chars().all(hex) {
            return Err(invalid("gfx is followed by 3 or 4 digits 0-9, a-f"));
        }
        for feature in parts {
            let body = feature
                .strip_suffix('+')
                .or_else(|| feature.strip_suffix('-'))
                .ok_or_else(|| invalid("a feature ends with + or -"))?;
            if body.is_empty() || !body.chars().all(|c| c.is_ascii_lowercase()) {
                return Err(invalid("a feature is a lower-case name such as xnack"));
            }
        }
        Ok(GfxTarget {
            processor: processor.to_string(),
            full: name.to_string(),
        })
    }

    /// The whole name, features included.
    pub(crate) fn name(&self) -> &str {
        &self.full
    }

    /// The setting of target feature `name` (`xnack`, `sramecc`) the name asks for: `Some(true)`
    /// for `name+`, `Some(false)` for `name-`, `None` when it does not say (the compiler then
    /// builds code that runs in either mode, where the processor has the feature).
    pub(crate) fn feature(&self, name: &str) -> Option<bool> {
        self.full
            .split(':')
            .skip(1)
            .find_map(|f| match f.strip_prefix(name) {
                Some("+") => Some(true),
                Some("-") => Some(false),
                _ => None,
            })
    }

    /// The processor, without features: `gfx90a`.
    pub(crate) fn processor(&self) -> &str {
        &self.processor
    }

    /// The lanes of a wavefront the compiler gives kernels for this processor by default: 64 on
    /// GCN and CDNA GPUs (`gfx9xx`: MI50, MI100, MI250X, MI300), 32 on RDNA ones (`gfx10xx`
    /// and later), whose HIP kernels run in wave32 mode. The device header's `FK_WARP` is the
    /// compiler's own `__AMDGCN_WAVEFRONT_SIZE`, which agrees.
    #[cfg_attr(not(test), allow(dead_code))] // the HIP runtime's launches will use it
    pub(crate) fn wave_size(&self) -> u32 {
        // GCN and CDNA processors have three digits (gfx803, gfx906, gfx90a, gfx942); RDNA ones
        // four (gfx1030, gfx1100).
        if self.processor.len() == "gfx".len() + 3 {
            64
        } else {
            32
        }
    }

    /// The programming model's lanes and launch limits on this processor (see
    /// [`GpuArch::hip`]).
    #[cfg_attr(not(test), allow(dead_code))] // the HIP runtime's launches will use it
    pub(crate) fn arch(&self) -> GpuArch {
        GpuArch::hip(self.wave_size())
    }

    /// An [`Error::Unsupported`] for a target that hiprtc of `version` (major, minor) is known
    /// to crash on: the gfx94x processors (MI300) before ROCm 6, whose hiprtc (5.2 in Debian 12)
    /// aborts the process inside its compiler instead of returning an error.
    pub(crate) fn check_supported(&self, version: (i32, i32)) -> Result<()> {
        if self.processor.starts_with("gfx94") && version.0 < 6 {
            return Err(Error::Unsupported {
                what: format!("compiling for {}", self.full),
                reason: format!(
                    "hiprtc {}.{} crashes on gfx94x targets (MI300); use ROCm 6 or newer",
                    version.0, version.1
                ),
            });
        }
        Ok(())
    }
}

/// hiprtc's options for `target`: the architecture; C++17, as for NVRTC; full optimization; and no
/// contraction of `a * b + c` into a fused multiply-add (each operation rounds as Rust rounds it,
/// NVRTC's `--fmad=false`; a kernel that wants a fused one says `a.mul_add(b, c)`).
pub(crate) fn compile_options(target: &GfxTarget) -> Vec<String> {
    vec![
        format!("--offload-arch={}", target.name()),
        "-std=c++17".to_string(),
        "-O3".to_string(),
        "-ffp-contract=off".to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx_names_parse_with_their_features() {
        for name in [
            "gfx90a",
            "gfx908",
            "gfx1030",
            "gfx942",
            "gfx90a:xnack+",
            "gfx90a:sramecc-:xnack+",
        ] {
            assert_eq!(GfxTarget::parse(name).unwrap().name(), name);
        }
        assert_eq!(
            GfxTarget::parse("gfx90a:xnack+").unwrap().processor,
            "gfx90a"
        );
    }

    #[test]
    fn bad_gfx_names_are_errors_that_name_them() {
        for (name, why) in [
            ("sm_90", "does not start with gfx"),
            ("gfx9", "3 or 4 digits"),
            ("gfx90A", "3 or 4 digits"),
            ("gfx12345", "3 or 4 digits"),
            ("gfx90a:xnack", "ends with + or -"),
            ("gfx90a:+", "lower-case name"),
            ("", "does not start with gfx"),
        ] {
            let e = GfxTarget::parse(name).unwrap_err().to_string();
            assert!(
                e.contains(&format!("{name:?}")) && e.contains(why),
                "{name}: {e}"
            );
        }
    }

    #[test]
    fn features_are_on_off_or_unsaid() {
        let t = GfxTarget::parse("gfx90a:sramecc-:xnack+").unwrap();
        assert_eq!(
            (t.feature("xnack"), t.feature("sramecc")),
            (Some(true), Some(false))
        );
        let t = GfxTarget::parse("gfx90a").unwrap();
        assert_eq!((t.feature("xnack"), t.feature("sramecc")), (None, None));
    }

    #[test]
    fn cdna_wavefronts_have_64_lanes_and_rdna_ones_32() {
        for (name, wave) in [
            ("gfx908", 64),
            ("gfx90a:xnack+", 64),
            ("gfx942", 64),
            ("gfx1030", 32),
            ("gfx1100", 32),
        ] {
            let target = GfxTarget::parse(name).unwrap();
            assert_eq!(target.wave_size(), wave, "{name}");
            assert_eq!(target.arch(), GpuArch::hip(wave), "{name}");
        }
    }

    #[test]
    fn gfx94x_needs_rocm_6() {
        let mi300 = GfxTarget::parse("gfx942").unwrap();
        let e = mi300.check_supported((5, 2)).unwrap_err().to_string();
        assert!(
            e.contains("gfx942") && e.contains("hiprtc 5.2") && e.contains("ROCm 6"),
            "{e}"
        );
        assert!(mi300.check_supported((6, 0)).is_ok());
        assert!(
            GfxTarget::parse("gfx90a")
                .unwrap()
                .check_supported((5, 2))
                .is_ok()
        );
    }

    #[test]
    fn options_name_the_target_and_keep_rust_rounding() {
        let options = compile_options(&GfxTarget::parse("gfx90a:xnack+").unwrap());
        assert_eq!(options[0], "--offload-arch=gfx90a:xnack+");
        assert!(options.iter().any(|o| o == "-ffp-contract=off"));
        assert!(options.iter().any(|o| o == "-std=c++17"));
    }
}
