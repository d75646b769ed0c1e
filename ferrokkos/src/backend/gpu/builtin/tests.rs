//! Tests of `builtin.rs`.

use super::*;

/// Reads the little-endian `u64` at `at` of `bytes`.
fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// Reads the little-endian `u32` at `at` of `bytes`.
fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

/// Checks that `desc` is stored at `at` of `bytes` in the C++ layout.
fn check_desc(bytes: &[u8], at: usize, desc: &Desc) {
    assert_eq!(u64_at(bytes, at), desc.data);
    for r in 0..8 {
        assert_eq!(u64_at(bytes, at + 8 + 8 * r), desc.extent[r]);
        assert_eq!(u64_at(bytes, at + 72 + 8 * r), desc.stride[r]);
    }
}

#[test]
fn copy_parameters_are_laid_out_as_the_kernel_takes_them() {
    let dst = Desc::new(0x7000_0000_1000, &[3, 4, 5], &[20, 5, 1]).expect("rank 3");
    let src = Desc::new(0x7000_0000_9000, &[3, 4, 5], &[1, 3, 12]).expect("rank 3");
    let p = pack_copy(60, 3, 2, &dst, &src);
    assert_eq!(COPY_PARAM_OFFSETS, [0, 8, 12, 16, 152]);
    assert_eq!(p.len(), 288);
    assert_eq!(p.len(), COPY_PARAMS_SIZE);
    assert_eq!(u64_at(&p, 0), 60);
    assert_eq!(u32_at(&p, 8), 3);
    assert_eq!(u32_at(&p, 12), 2);
    check_desc(&p, 16, &dst);
    check_desc(&p, 152, &src);
    // The bytes equal the in-memory #[repr(C)] layout on this (little-endian) host.
    // SAFETY: `Desc` is #[repr(C)] with only `u64` fields and no padding (asserted at compile
    // time), so all of its 136 bytes are initialized.
    let raw = unsafe {
        std::slice::from_raw_parts((&dst as *const Desc).cast::<u8>(), size_of::<Desc>())
    };
    if cfg!(target_endian = "little") {
        assert_eq!(&p[16..152], raw);
    }
}

#[test]
fn fill_parameters_are_laid_out_as_the_kernel_takes_them() {
    let dst = Desc::new(0xdead_bee0, &[7, 9], &[1, 7]).expect("rank 2");
    let pattern: Vec<u8> = (1..=12).collect();
    let p = pack_fill(63, 2, 3, &dst, &pattern).expect("12 bytes fit");
    assert_eq!(FILL_PARAM_OFFSETS, [0, 8, 12, 16, 152]);
    assert_eq!(p.len(), 184);
    assert_eq!(p.len(), FILL_PARAMS_SIZE);
    assert_eq!(u64_at(&p, 0), 63);
    assert_eq!(u32_at(&p, 8), 2);
    assert_eq!(u32_at(&p, 12), 3);
    check_desc(&p, 16, &dst);
    assert_eq!(&p[152..164], &pattern[..], "the pattern's bytes, in order");
    assert!(p[164..].iter().all(|&b| b == 0), "zero-padded");

    let full = [0xabu8; 32];
    let p = pack_fill(1, 0, 4, &dst, &full).expect("32 bytes fit");
    assert_eq!(&p[152..], &full[..]);
    let err = pack_fill(1, 0, 33, &dst, &[0u8; 33]).expect_err("33 bytes do not fit");
    assert!(
        matches!(&err, Error::InvalidArgument { reason, .. } if reason.contains("33")),
        "{err:?}"
    );
}

#[test]
fn descriptors_check_the_rank() {
    let d = Desc::new(16, &[], &[]).expect("rank 0");
    assert_eq!(d.extent, [1; 8]);
    assert_eq!(d.stride, [0; 8]);
    let d = Desc::new(16, &[2; 8], &[3; 8]).expect("rank 8");
    assert_eq!((d.extent, d.stride), ([2; 8], [3; 8]));
    assert!(matches!(
        Desc::new(16, &[2; 9], &[1; 9]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        Desc::new(16, &[2, 2], &[1]),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn patterns_are_little_endian_words() {
    let p = Pattern::from_bytes(&1.5f64.to_le_bytes()).expect("8 bytes");
    assert_eq!(p.w, [1.5f64.to_bits(), 0, 0, 0]);
    let p = Pattern::from_bytes(&[1, 2, 3]).expect("3 bytes");
    assert_eq!(p.w, [0x03_02_01, 0, 0, 0]);
}

#[test]
fn entries_follow_the_alignment() {
    let cases = [
        (1, 1, "a1"),
        (2, 2, "a2"),
        (4, 4, "a4"),
        (8, 8, "a8"),
        (16, 8, "a8"),
        (4096, 8, "a8"),
        (3, 1, "a1"),
        (0, 1, "a1"),
    ];
    for (align, word, suffix) in cases {
        assert_eq!(word_bytes(align), word, "align {align}");
        assert_eq!(copy_entry(align), format!("fk_copy_strided_{suffix}"));
        assert_eq!(fill_entry(align), format!("fk_fill_strided_{suffix}"));
    }
}

/// What the copy kernel does, on host buffers: `dst` and `src` are the Views' element buffers,
/// elements of `size` bytes (the C++ `offsets`, decomposition and word loop, in Rust).
fn reference_copy(
    count: u64,
    rank: u32,
    size: usize,
    dst: &Desc,
    src: &Desc,
    dst_mem: &mut [u8],
    src_mem: &[u8],
) {
    for k in 0..count {
        let (mut k, mut od, mut os) = (k, 0u64, 0u64);
        for r in (1..rank as usize).rev() {
            let i = k % dst.extent[r];
            k /= dst.extent[r];
            od += i * dst.stride[r];
            os += i * src.stride[r];
        }
        if rank > 0 {
            od += k * dst.stride[0];
            os += k * src.stride[0];
        }
        let (od, os) = (od as usize * size, os as usize * size);
        dst_mem[od..od + size].copy_from_slice(&src_mem[os..os + size]);
    }
}

#[test]
fn the_decomposition_transposes_layouts() {
    // A 3x4x5 View of 2-byte elements, LayoutLeft source to LayoutRight destination.
    let extents = [3usize, 4, 5];
    let left = Desc::new(0, &extents, &[1, 3, 12]).expect("rank 3");
    let right = Desc::new(0, &extents, &[20, 5, 1]).expect("rank 3");
    let value = |i: usize, j: usize, l: usize| (100 * i + 10 * j + l) as u16;
    let mut src = vec![0u8; 120];
    for (i, j, l) in (0..3).flat_map(|i| (0..4).flat_map(move |j| (0..5).map(move |l| (i, j, l)))) {
        let at = 2 * (i + 3 * j + 12 * l);
        src[at..at + 2].copy_from_slice(&value(i, j, l).to_le_bytes());
    }
    let mut dst = vec![0u8; 120];
    reference_copy(60, 3, 2, &right, &left, &mut dst, &src);
    for (i, j, l) in (0..3).flat_map(|i| (0..4).flat_map(move |j| (0..5).map(move |l| (i, j, l)))) {
        let at = 2 * (20 * i + 5 * j + l);
        assert_eq!(u16::from_le_bytes([dst[at], dst[at + 1]]), value(i, j, l));
    }
    // Rank 0: one element at offset 0.
    let mut one = [0u8; 4];
    reference_copy(
        1,
        0,
        4,
        &Desc::new(0, &[], &[]).expect("rank 0"),
        &Desc::new(0, &[], &[]).expect("rank 0"),
        &mut one,
        &[9, 8, 7, 6],
    );
    assert_eq!(one, [9, 8, 7, 6]);
}

#[test]
fn the_source_defines_every_entry() {
    let source = builtin_source();
    for name in COPY_ENTRIES.iter().chain(&FILL_ENTRIES) {
        assert!(source.contains(&format!("void {name}(")), "{name}");
    }
    assert!(!source.contains("#include"));
}

#[test]
fn parameter_pointers_point_at_each_packed_parameter() {
    let dst = Desc::new(0x7000_0000_1000, &[3, 4], &[4, 1]).expect("rank 2");
    let src = Desc::new(0x7000_0000_9000, &[3, 4], &[1, 3]).expect("rank 2");
    let packed = pack_copy(12, 2, 1, &dst, &src);
    let mut params = param_pointers(&packed, &COPY_PARAM_OFFSETS);
    let p = params.pointers();
    assert_eq!(p.len(), 5);
    for (k, &at) in COPY_PARAM_OFFSETS.iter().enumerate() {
        assert_eq!(p[k] as usize - p[0] as usize, at);
    }
    assert!((p[0] as usize).is_multiple_of(8), "8-aligned storage");
    // SAFETY: each pointer points into the storage, at a parameter of that type.
    let (count, rank, words, d) = unsafe {
        (
            p[0].cast::<u64>().read(),
            p[1].cast::<u32>().read(),
            p[2].cast::<u32>().read(),
            p[3].cast::<Desc>().read(),
        )
    };
    assert_eq!((count, rank, words), (12, 2, 1));
    assert_eq!(d, dst);
}
