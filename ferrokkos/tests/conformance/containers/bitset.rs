//! Bitset: kernels set, reset and test bits at once without losing one, `set`/`reset` say whether
//! the call changed the bit (exactly one of several iterations setting one bit is told so), and
//! bits past `size()` are never set. On every space, against plain Rust; the C++ compiles with
//! NVRTC and hiprtc.

use crate::common::check_device_code;
use crate::spaces::{SView, download};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Bitset, Error, Result, kernel};

type SBitset<S> = Bitset<<S as ExecutionSpace>::MemorySpace>;

/// Many iterations set the bits of a few keys: the number of calls told "changed" is the number
/// of distinct keys, and the set bits are exactly the keys (a size that is not a multiple of 32;
/// keys past it are refused).
fn iterations_setting_one_bit_are_told_once<S: Launch>(exec: &S) -> Result<()> {
    let (n, size) = (100_000usize, 1000usize);
    let key = |i: usize| (i * 7919) % 1201; // 0..1201: some keys past `size`
    let bits = SBitset::<S>::new("bits", size)?;
    assert_eq!(bits.size(), size);
    let mut firsts = 0usize;
    parallel_reduce(
        "set",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i, f: &mut usize| {
            let k = (i * 7919) % 1201;
            if bits.set(k) {
                *f += 1;
            }
        }),
        &mut firsts,
    )?;
    let keys: std::collections::BTreeSet<usize> = (0..n).map(key).filter(|&k| k < size).collect();
    assert_eq!(firsts, keys.len(), "each key's first set is told once");
    assert_eq!(bits.count()?, keys.len());
    // The bits as kernels test them, and the size they see.
    let tested = SView::<S, u32, 1>::new("tested", [size + 40])?;
    parallel_for(
        "test",
        RangePolicy::new(exec, 0, size + 40)?,
        kernel!(|i| tested[i] = bits.test(i) as u32 + 2 * (bits.size() == 1000) as u32),
    )?;
    let tested = download(&tested)?;
    for (i, t) in tested.iter().enumerate() {
        let want = keys.contains(&i) as u32 + 2;
        assert_eq!(*t, want, "bit {i}");
    }
    Ok(())
}

per_space!(
    iterations_setting_one_bit_are_told_once,
    iterations_setting_one_bit_are_told_once
);

/// `reset` in kernels clears only set bits and says so; `set_all` sets exactly `size()` bits and
/// `reset_all` none.
fn reset_clears_and_set_all_fills_the_size<S: Launch>(exec: &S) -> Result<()> {
    let size = 77usize;
    let bits = SBitset::<S>::new("bits", size)?;
    bits.set_all()?;
    assert_eq!(bits.count()?, size);
    let mut cleared = 0usize;
    parallel_reduce(
        "reset odd",
        RangePolicy::new(exec, 0, 2 * size)?,
        kernel!(|i, c: &mut usize| {
            // Each odd bit is reset twice (by i and by i + size for i < size) but told once.
            if bits.reset(i % size * (i % size % 2) + (1 - i % size % 2) * (size + 5)) {
                *c += 1;
            }
        }),
        &mut cleared,
    )?;
    assert_eq!(cleared, size / 2);
    assert_eq!(bits.count()?, size - size / 2);
    bits.reset_all()?;
    assert_eq!(bits.count()?, 0);
    bits.set_all()?;
    bits.clear()?;
    assert_eq!(bits.count()?, 0);
    Ok(())
}

per_space!(
    reset_clears_and_set_all_fills_the_size,
    reset_clears_and_set_all_fills_the_size
);

/// Bits copy between spaces both ways (sizes must match); on the host one bit is tested, set
/// and reset, and an index past the size is an error naming the Bitset.
fn bits_copy_between_spaces<S: Launch>(exec: &S) -> Result<()> {
    let host = Bitset::<HostSpace>::new("host", 40)?;
    for i in (0..40).step_by(3) {
        assert!(host.set(i)?);
        assert!(!host.set(i)?);
    }
    let dev = SBitset::<S>::new("dev", 40)?;
    dev.deep_copy_from(&host)?;
    assert_eq!(dev.count()?, 14);
    // A kernel sees the copied bits, and sets one more.
    parallel_for(
        "set 1",
        RangePolicy::new(exec, 0, 1)?,
        kernel!(|i| {
            if dev.test(i + 3) {
                dev.set(i + 1);
            }
        }),
    )?;
    let back = Bitset::<HostSpace>::new("back", 40)?;
    back.deep_copy_from(&dev)?;
    assert!((0..40).all(|i| back.test(i).unwrap() == (i % 3 == 0 || i == 1)));
    assert!(back.reset(3)? && !back.reset(3)? && !back.test(3)?);
    assert_eq!(
        back.test(40).unwrap_err().to_string(),
        "index [40] is out of bounds for View \"back\" with extents [40]"
    );
    let other = Bitset::<HostSpace>::new("other", 41)?;
    let e = other.deep_copy_from(&dev).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("destination \"other\" has 41 bits, source \"dev\" has 40"),
        "{e}"
    );
    assert!(Bitset::<HostSpace>::new("huge", (1 << 40) + 1).is_err());
    Ok(())
}

per_space!(bits_copy_between_spaces, bits_copy_between_spaces);

/// The kernel's calls become `fk::bitset_*` calls on the `fk::Bitset` parameter, which NVRTC and
/// hiprtc compile.
#[test]
fn bitset_kernels_compile_for_the_gpu() -> Result<()> {
    crate::common::runtime();
    let bits = Bitset::<HostSpace>::new("bits", 64)?;
    let y = View::<u32, 1>::new("y", [64])?;
    let k = kernel!(|i| {
        let fresh = bits.set(i * 3);
        let gone = bits.reset(i + 1);
        y[i] = fresh as u32 + gone as u32 + bits.test(i) as u32 + bits.size() as u32;
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(text.contains("const fk::Bitset bits"), "{text}");
    assert!(text.contains("fk::bitset_set(bits, "), "{text}");
    assert!(text.contains("fk::bitset_reset(bits, "), "{text}");
    assert!(text.contains("fk::bitset_test(bits, i)"), "{text}");
    assert!(text.contains("bits.size"), "{text}");
    check_device_code(&tu);
    Ok(())
}

/// One Bitset captured under two names is one allocation updated atomically by both: the launch
/// refuses it (as for any View a kernel updates), naming both captures.
#[test]
fn a_bitset_captured_twice_is_refused() -> Result<()> {
    crate::common::runtime();
    let exec = Threads::default_instance()?;
    let bits = Bitset::<HostSpace>::new("bits", 8)?;
    let alias = bits.clone();
    let e = parallel_for(
        "twice",
        RangePolicy::new(&exec, 0, 8)?,
        kernel!(|i| {
            bits.set(i);
            alias.reset(i);
        }),
    )
    .unwrap_err();
    assert!(matches!(e, Error::KernelAlias { .. }), "{e}");
    assert!(e.to_string().contains("\"bits\""), "{e}");
    assert_eq!(bits.count()?, 0);
    Ok(())
}
