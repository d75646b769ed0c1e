//! Several translation units as one NVRTC program, for [`crate::Prepare`]: NVRTC's cost per program
//! (its built-in headers, the device library, ptxas's start) is paid once per batch instead of once
//! per kernel.
//!
//! The program is the device header once, with `FK_BATCHED` defined, then each unit's generated
//! part in a namespace of its own (`fk_b<k>`: its device functions and types do not meet the other
//! units'). Entries are `extern "C"`, so their names are global: each unit's are renamed
//! `<entry>_b<k>`. Each entry first stores its slot `k` in the block's `fk_batch_slot`, so that a
//! fault it records names its own kernel (the module's unit number plus the slot).

use super::header::{HeaderParts, device_header};
use super::unit::TranslationUnit;

/// A batch's program: its source, its NVRTC program name, and each unit's main entry name in it.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))] // only the runtime (built with CUDA) calls it
pub(crate) struct BatchProgram {
    pub(crate) source: String,
    pub(crate) program: String,
    pub(crate) entries: Vec<String>,
}

/// The one program of `units` (see the module documentation).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))] // only the runtime (built with CUDA) calls it
pub(crate) fn batch_program(units: &[&TranslationUnit]) -> BatchProgram {
    let generated: usize = units.iter().map(|u| u.generated().len() + 64).sum();
    let parts = units
        .iter()
        .fold(HeaderParts::default(), |p, u| p.union(u.parts));
    // The units of a batch are of one target (a backend batches its own).
    let target = units[0].target();
    let header = device_header(parts, target);
    let mut source = String::with_capacity(header.len() + generated + 64);
    source.push_str("#define FK_BATCHED 1\n");
    source.push_str(&header);
    let mut entries = Vec::with_capacity(units.len());
    for (k, unit) in units.iter().enumerate() {
        let entry = format!("{}_b{k}", unit.entry);
        source.push_str(&format!("\nnamespace fk_b{k} {{\n"));
        // The entry's name is a fresh identifier (`fk_kernel_l<line>_<hash>`), so renaming every
        // occurrence renames exactly the unit's entries (`<entry>`, `<entry>_join`, ...).
        for line in unit.generated().replace(&unit.entry, &entry).lines() {
            source.push_str(line);
            source.push('\n');
            if line.starts_with("extern \"C\" __global__ void ") && line.ends_with('{') {
                source.push_str(&format!("    fk_batch_slot = {k}u;\n"));
            }
        }
        source.push_str(&format!("}} // namespace fk_b{k}\n"));
        entries.push(entry);
    }
    let program = format!(
        "{}_batch{}.{}",
        units[0].entry,
        units.len(),
        target.extension()
    );
    BatchProgram {
        source,
        program,
        entries,
    }
}

#[cfg(all(test, feature = "cuda"))]
mod tests {
    use super::*;
    use crate::View;
    use crate::backend::cuda::nvrtc;
    use crate::policy::Iterate;
    use crate::reducer::Sum;

    /// The same helper in two units: each namespace defines its own.
    #[crate::device]
    fn twice(x: f64) -> f64 {
        2.0 * x
    }

    /// Three units (a `for`, a reduction with its join entry, a scan with its prefix entry; two
    /// of them defining the same device function) make one program in which every entry is
    /// renamed and stores its slot first, and which NVRTC compiles.
    #[test]
    fn units_compile_together_with_renamed_entries_and_slots() -> crate::Result<()> {
        crate::backend::test_runtime();
        let x = View::<f64, 1>::new("x", [8])?;
        let y = View::<f64, 1>::new("y", [8])?;
        let fill = crate::kernel!(|i| y[i] = twice(x[i]));
        let total = crate::kernel!(|i, acc: &mut f64| *acc += twice(x[i]));
        let offsets = crate::kernel!(|i, partial: &mut f64, last: bool| {
            if last {
                y[i] = *partial;
            }
            *partial += x[i];
        });
        let units = [
            TranslationUnit::for_kernel(&fill, Iterate::Right),
            TranslationUnit::reduce_kernel::<Sum<f64>, _>(&total, Iterate::Right),
            TranslationUnit::scan_kernel::<Sum<f64>, _>(&offsets),
        ];
        let batch = batch_program(&units.iter().collect::<Vec<_>>());
        let s = &batch.source;
        assert_eq!(s.matches("\nnamespace fk_b").count(), 3);
        assert_eq!(s.matches("static __device__ f64 twice_fn(").count(), 2);
        for (k, unit) in units.iter().enumerate() {
            let entry = &batch.entries[k];
            assert_eq!(*entry, format!("{}_b{k}", unit.entry));
            assert!(s.contains(&format!("void {entry}(")), "{s}");
            assert!(!s.contains(&format!("void {}(", unit.entry)), "{s}");
        }
        assert!(s.contains(&format!("void {}_join(", batch.entries[1])));
        assert!(s.contains(&format!("void {}_prefix(", batch.entries[2])));
        // Every entry (three main ones, the join, the scan's second entry) stores its slot.
        let entries = s.matches("extern \"C\" __global__ void ").count();
        assert_eq!(entries, 5, "{s}");
        assert_eq!(s.matches("fk_batch_slot = ").count(), entries);
        assert_eq!(s.matches("fk_batch_slot = 2u;").count(), 2);
        if nvrtc::require_or_skip() {
            let cubin = nvrtc::compile_cubin(s, &batch.program, 90)?;
            assert!(cubin.image.starts_with(b"\x7fELF"));
        }
        Ok(())
    }
}
