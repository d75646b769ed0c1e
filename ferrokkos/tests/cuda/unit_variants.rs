//! Every entry variant a Cuda launch may ask for (32-bit index, captures by pointer, fused join,
//! tiles, read-only Views declared as written ones for a kernel with `unsafe`, proven accesses
//! unchecked) generates C++ that NVRTC compiles, for each pattern and for multidimensional indices.

use crate::common::{self, check_device_code};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::codegen::UnitOptions;
use ferrokkos::prelude::*;

/// All 64 combinations of the six options.
fn variants() -> impl Iterator<Item = UnitOptions> {
    (0..64u8).map(|bits| UnitOptions {
        index32: bits & 1 != 0,
        captures_by_pointer: bits & 2 != 0,
        fused_join: bits & 4 != 0,
        tiled: bits & 8 != 0,
        unsafe_aliasing: bits & 16 != 0,
        // Only reducers with a final step differ (`device_reducers` checks those).
        finalize: false,
        proven: bits & 32 != 0,
    })
}

#[test]
fn every_variant_of_every_pattern_compiles() {
    common::runtime();
    let x = View::<f64, 1>::new("x", [10]).unwrap();
    let m = View::<f32, 2, LayoutLeft>::new("m", [4, 5]).unwrap();
    let table = [0.5f64; 16];
    let s = 2.0;
    let axpy = kernel!(|i| x[i] = s * x[i] + table[i % 16]);
    let md = kernel!(|(i, j)| m[(i, j)] = (i + j) as f32);
    let dot = kernel!(|i, acc: &mut f64| *acc += x[i] * table[0]);
    let md_sum = kernel!(|(i, j), acc: &mut f64| *acc += m[(i, j)] as f64);
    let scan = kernel!(|i, part: &mut f64, last: bool| {
        if last {
            x[i] = *part;
        }
        *part += s;
    });
    for o in variants() {
        check_device_code(&TranslationUnit::for_kernel_with(&axpy, Iterate::Right, o));
        for order in [Iterate::Left, Iterate::Right] {
            let unit = TranslationUnit::for_kernel_with(&md, order, o);
            assert_eq!(unit.source.contains("fk_tile1"), o.tiled);
            check_device_code(&unit);
            check_device_code(&TranslationUnit::reduce_kernel_with::<Sum<f64>, _>(
                &md_sum, order, o,
            ));
        }
        let unit = TranslationUnit::reduce_kernel_with::<Sum<f64>, _>(&dot, Iterate::Right, o);
        assert_eq!(unit.source.contains("fk_done"), o.fused_join);
        // A fused join needs no `_join` entry, so the unit has none (it would be compiled unused).
        assert_eq!(
            unit.source.contains(&format!("{}_join(", unit.entry)),
            !o.fused_join
        );
        // A fused unit reduces its block's iterations and, in its last block, the partial values
        // through one call of the block reduction (compiled once); the other calls it in the
        // entry and in `_join`.
        assert_eq!(
            unit.generated().matches("fk::block_reduce<").count(),
            if o.fused_join { 1 } else { 2 }
        );
        assert_eq!(unit.source.contains("FkCaptures"), o.captures_by_pointer);
        // `dot` only reads x: a read-only View (through the read-only cache) unless the kernel
        // may alias it.
        assert_eq!(
            unit.generated().contains("fk::View<const f64, 1"),
            !o.unsafe_aliasing
        );
        assert_eq!(unit.source.contains("for (u32 fk_k"), o.index32);
        check_device_code(&unit);
        check_device_code(&TranslationUnit::reduce_kernel_with::<Max<f64>, _>(
            &dot,
            Iterate::Right,
            o,
        ));
        check_device_code(&TranslationUnit::scan_kernel_with::<Sum<f64>, _>(&scan, o));
    }
}
