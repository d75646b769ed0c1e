//! The CUDA backend's built-in kernels for `deep_copy` (DESIGN.md decision 9): a strided copy, for
//! copies that are not one contiguous memcpy (the layouts or strides of the two Views differ), and
//! a strided fill, for fills whose bit pattern `cuMemsetD8/16/32` cannot write.
//!
//! Both work on Views of any rank 0..=8 and any element type. An element of `size` bytes and
//! alignment `align` is moved as `words = size / A` words of `A` bytes, where `A` =
//! [`word_bytes`]`(align)` (1, 2, 4 or 8): Rust sizes are multiples of the alignment, so every word
//! is aligned, whatever the element type (`[u8; 16]` has alignment 1 and is moved byte by byte;
//! `f64` as one 8-byte word). The entries, one per `A`, are
//!
//! ```text
//! extern "C" __global__ void fk_copy_strided_a<A>(const u64 count, const u32 rank, const u32 words,
//!                                                 const Desc dst, const Desc src);
//! extern "C" __global__ void fk_fill_strided_a<A>(const u64 count, const u32 rank, const u32 words,
//!                                                 const Desc dst, const Pattern value);
//! ```
//!
//! A [`Desc`] gives a View's data pointer, extents and strides (in elements): element
//! `(i0, .., i_{rank-1})` lives at `data + size * sum(i_r * stride_r)`. Iteration `k` in
//! `0..count` (`count` = the product of the extents) is decomposed row-major (the last index
//! fastest) over the extents, which `dst` and `src` share; a grid-stride loop covers every `k`, so
//! any grid size is correct. A [`Pattern`] holds up to [`MAX_FILL_BYTES`] bytes of the fill value's
//! bit pattern; larger elements are filled another way by the host.
//!
//! [`pack_copy`] and [`pack_fill`] lay the parameters out as the C++ parameter list (each at an
//! offset aligned to its alignment: [`COPY_PARAM_OFFSETS`], [`FILL_PARAM_OFFSETS`]), ready for
//! `CU_LAUNCH_PARAM_BUFFER_POINTER` or, with those offsets, an array of parameter pointers.

use std::mem::{align_of, offset_of, size_of};

use crate::error::{Error, Result};

/// The program name of the built-in kernels in NVRTC's messages (and the disk cache's key).
#[cfg_attr(not(test), allow(dead_code))] // the whole program is compiled by the tests
pub(crate) const BUILTIN_PROGRAM: &str = "ferrokkos_builtin.cu";

/// The most bytes an element may have for the fill kernel (the size of [`Pattern`]).
pub(crate) const MAX_FILL_BYTES: usize = 32;

/// The highest rank a [`Desc`] describes.
pub(crate) const MAX_RANK: usize = 8;

/// The word sizes `A` of the entries, in bytes, with their C++ word types.
const WORDS: [(usize, &str); 4] = [
    (1, "unsigned char"),
    (2, "unsigned short"),
    (4, "unsigned int"),
    (8, "unsigned long long"),
];

/// The copy entries, by word size 1, 2, 4, 8.
const COPY_ENTRIES: [&str; 4] = [
    "fk_copy_strided_a1",
    "fk_copy_strided_a2",
    "fk_copy_strided_a4",
    "fk_copy_strided_a8",
];

/// The fill entries, by word size 1, 2, 4, 8.
const FILL_ENTRIES: [&str; 4] = [
    "fk_fill_strided_a1",
    "fk_fill_strided_a2",
    "fk_fill_strided_a4",
    "fk_fill_strided_a8",
];

/// The byte offsets of the copy entries' parameters `count`, `rank`, `words`, `dst`, `src`.
#[cfg_attr(not(test), allow(dead_code))] // used by the tests
pub(crate) const COPY_PARAM_OFFSETS: [usize; 5] = [0, 8, 12, 16, 16 + size_of::<Desc>()];

/// The size in bytes of the copy entries' parameter buffer.
pub(crate) const COPY_PARAMS_SIZE: usize = 16 + 2 * size_of::<Desc>();

/// The byte offsets of the fill entries' parameters `count`, `rank`, `words`, `dst`, `value`.
#[cfg_attr(not(test), allow(dead_code))] // used by the tests
pub(crate) const FILL_PARAM_OFFSETS: [usize; 5] = [0, 8, 12, 16, 16 + size_of::<Desc>()];

/// The size in bytes of the fill entries' parameter buffer.
pub(crate) const FILL_PARAMS_SIZE: usize = 16 + size_of::<Desc>() + size_of::<Pattern>();

/// A View's memory as the built-in kernels see it: the C++ `fkb::Desc`
/// (`{ char* data; u64 extent[8]; u64 stride[8]; }`). Entries past the rank are unused.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Desc {
    /// The device address of element `(0, .., 0)`.
    pub data: u64,
    /// The extents; `extent[r]` for `r` below the rank.
    pub extent: [u64; 8],
    /// The strides, in elements; `stride[r]` for `r` below the rank.
    pub stride: [u64; 8],
}

/// Up to [`MAX_FILL_BYTES`] bytes of an element's bit pattern, little-endian, zero-padded: the C++
/// `fkb::Pattern` (`{ u64 w[4]; }`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pattern {
    /// The pattern's bytes as little-endian words.
    pub w: [u64; 4],
}

// The layouts the C++ side asserts too (`static_assert` in the source).
const _: () = {
    assert!(size_of::<Desc>() == 136 && align_of::<Desc>() == 8);
    assert!(offset_of!(Desc, extent) == 8 && offset_of!(Desc, stride) == 72);
    assert!(size_of::<Pattern>() == MAX_FILL_BYTES && align_of::<Pattern>() == 8);
    assert!(COPY_PARAMS_SIZE == 288 && FILL_PARAMS_SIZE == 184);
};

impl Desc {
    /// The descriptor of memory at device address `data` with `extents` and `strides` (in elements;
    /// the rank is their length). Unused entries are extent 1, stride 0.
    ///
    /// Errors: [`Error::InvalidArgument`] when the rank exceeds 8 or `extents` and `strides` differ
    /// in length.
    pub(crate) fn new(data: u64, extents: &[usize], strides: &[usize]) -> Result<Desc> {
        if extents.len() > MAX_RANK || extents.len() != strides.len() {
            return Err(Error::InvalidArgument {
                operation: "deep_copy",
                reason: format!(
                    "the built-in kernels take Views of rank 0 to {MAX_RANK} with one stride per \
                     extent; got extents {extents:?} and strides {strides:?}"
                ),
            });
        }
        let mut desc = Desc {
            data,
            extent: [1; 8],
            stride: [0; 8],
        };
        for (r, (&e, &s)) in extents.iter().zip(strides).enumerate() {
            desc.extent[r] = e as u64;
            desc.stride[r] = s as u64;
        }
        Ok(desc)
    }

    /// Appends the descriptor's 136 bytes, in the C++ layout, to `out`.
    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.data.to_le_bytes());
        for e in self.extent {
            out.extend_from_slice(&e.to_le_bytes());
        }
        for s in self.stride {
            out.extend_from_slice(&s.to_le_bytes());
        }
    }
}

impl Pattern {
    /// The pattern of an element whose bytes are `bytes` (as in memory).
    ///
    /// Errors: [`Error::InvalidArgument`] when `bytes` is longer than [`MAX_FILL_BYTES`].
    pub(crate) fn from_bytes(bytes: &[u8]) -> Result<Pattern> {
        if bytes.len() > MAX_FILL_BYTES {
            return Err(Error::InvalidArgument {
                operation: "deep_copy",
                reason: format!(
                    "the fill kernel takes elements of at most {MAX_FILL_BYTES} bytes; this \
                     element has {}",
                    bytes.len()
                ),
            });
        }
        let mut padded = [0u8; MAX_FILL_BYTES];
        padded[..bytes.len()].copy_from_slice(bytes);
        let mut w = [0u64; 4];
        for (word, chunk) in w.iter_mut().zip(padded.chunks_exact(8)) {
            let mut b = [0u8; 8];
            b.copy_from_slice(chunk);
            *word = u64::from_le_bytes(b);
        }
        Ok(Pattern { w })
    }
}

/// The word size `A` in bytes, 1, 2, 4 or 8, in which the built-in kernels move elements of
/// alignment `align`: `align` clamped to 8; 1 for an alignment that is not a power of two (every
/// element can be moved byte by byte). An element of `size` bytes is `size / A` words.
pub(crate) fn word_bytes(align: usize) -> usize {
    match align {
        a if !a.is_power_of_two() => 1,
        a => a.min(8),
    }
}

/// The index of `align`'s entry in [`COPY_ENTRIES`] and [`FILL_ENTRIES`].
fn entry_index(align: usize) -> usize {
    word_bytes(align).trailing_zeros() as usize
}

/// The copy entry for elements of alignment `align` (see [`word_bytes`]): `fk_copy_strided_a8` for
/// alignments 8 and up.
pub(crate) fn copy_entry(align: usize) -> &'static str {
    COPY_ENTRIES[entry_index(align)]
}

/// The fill entry for elements of alignment `align` (see [`word_bytes`]): `fk_fill_strided_a8` for
/// alignments 8 and up.
pub(crate) fn fill_entry(align: usize) -> &'static str {
    FILL_ENTRIES[entry_index(align)]
}

/// The parameters of a copy entry, `(count, rank, words, dst, src)`, laid out as the kernel takes
/// them ([`COPY_PARAM_OFFSETS`], [`COPY_PARAMS_SIZE`] bytes). `count` is the product of the extents,
/// `rank` at most 8 (the kernel does nothing otherwise), `words` the element size over
/// [`word_bytes`] of the entry launched.
pub(crate) fn pack_copy(count: u64, rank: u32, words: u32, dst: &Desc, src: &Desc) -> Vec<u8> {
    let mut out = Vec::with_capacity(COPY_PARAMS_SIZE);
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&rank.to_le_bytes());
    out.extend_from_slice(&words.to_le_bytes());
    dst.write(&mut out);
    src.write(&mut out);
    out
}

/// The parameters of a fill entry, `(count, rank, words, dst, value)`, laid out as the kernel takes
/// them ([`FILL_PARAM_OFFSETS`], [`FILL_PARAMS_SIZE`] bytes); `pattern` is the element's bytes (its
/// length is `words` times the entry's word size).
///
/// Errors: [`Error::InvalidArgument`] when `pattern` is longer than [`MAX_FILL_BYTES`].
pub(crate) fn pack_fill(
    count: u64,
    rank: u32,
    words: u32,
    dst: &Desc,
    pattern: &[u8],
) -> Result<Vec<u8>> {
    let value = Pattern::from_bytes(pattern)?;
    let mut out = Vec::with_capacity(FILL_PARAMS_SIZE);
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&rank.to_le_bytes());
    out.extend_from_slice(&words.to_le_bytes());
    dst.write(&mut out);
    for w in value.w {
        out.extend_from_slice(&w.to_le_bytes());
    }
    Ok(out)
}

/// The shared part of the built-in program: types, layout checks and the kernel bodies.
const BODY: &str = r#"// ferrokkos built-in kernels: strided copy and fill for deep_copy.
// Self-contained (no includes); compiled by NVRTC with -std=c++17 -default-device.

namespace fkb {

typedef unsigned long long u64;
typedef unsigned int u32;

// A View's memory: element (i0, .., i_{rank-1}) lives at data + size * sum(i_r * stride[r]), with
// strides in elements. Entries past the rank are unused.
struct Desc {
    char* data;
    u64 extent[8];
    u64 stride[8];
};

// Up to 32 bytes of an element's bit pattern, little-endian, zero-padded.
struct Pattern {
    u64 w[4];
};

// Three 8-byte-aligned members of 8 + 64 + 64 bytes in 136 bytes: no padding, so extent is at 8
// and stride at 72 (NVRTC has no offsetof without headers).
static_assert(sizeof(char*) == 8, "64-bit device pointers");
static_assert(sizeof(Desc) == 136 && alignof(Desc) == 8, "Desc is 136 bytes, 8-aligned");
static_assert(sizeof(Pattern) == 32 && alignof(Pattern) == 8, "Pattern is 32 bytes, 8-aligned");
static_assert(sizeof(u64) == 8 && sizeof(u32) == 4, "u64 and u32");

// q = k / e and i = k % e, in 32-bit arithmetic when both fit (a 64-bit division is a long
// software sequence on the GPU; most Views have fewer than 2^32 elements).
__device__ __forceinline__ void divmod(const u64 k, const u64 e, u64& q, u64& i) {
    if (((k | e) >> 32) == 0) {
        const u32 k32 = (u32)k, e32 = (u32)e;
        q = k32 / e32;
        i = k32 - (u32)q * e32;
    } else {
        q = k / e;
        i = k - q * e;
    }
}

// The element offset in `d` of iteration k, and in `s` when `s` is not null: k is decomposed
// row-major (the last index fastest) over d.extent[0..rank). The loop is unrolled so that every
// extent and stride is read at a constant offset.
__device__ __forceinline__ void offsets(u64 k, const u32 rank, const Desc& d, const Desc* s,
                                        u64& od, u64& os) {
    od = 0;
    os = 0;
#pragma unroll
    for (int r = 7; r >= 1; --r) {
        if ((u32)r < rank) {
            u64 q, i;
            divmod(k, d.extent[r], q, i);
            k = q;
            od += i * d.stride[r];
            if (s) os += i * s->stride[r];
        }
    }
    if (rank > 0) {
        od += k * d.stride[0];
        if (s) os += k * s->stride[0];
    }
}

// Copies `count` elements of `words` words of type W from src to dst.
template <typename W>
__device__ __forceinline__ void copy_strided(const u64 count, const u32 rank, const u32 words,
                                             const Desc& dst, const Desc& src) {
    if (rank > 8) return;
    const u64 elem = (u64)words * sizeof(W);
    for (u64 k = (u64)blockIdx.x * blockDim.x + threadIdx.x; k < count;
         k += (u64)gridDim.x * blockDim.x) {
        u64 od, os;
        offsets(k, rank, dst, &src, od, os);
        W* d = reinterpret_cast<W*>(dst.data + od * elem);
        const W* s = reinterpret_cast<const W*>(src.data + os * elem);
        for (u32 w = 0; w < words; ++w) d[w] = s[w];
    }
}

// Word w (of type W) of the little-endian pattern p; a word never straddles two u64s because
// sizeof(W) divides 8.
template <typename W>
__device__ __forceinline__ W pattern_word(const Pattern& p, const u32 w) {
    const u32 byte = w * (u32)sizeof(W);
    const u32 q = byte / 8;
    const u64 v = q == 0 ? p.w[0] : q == 1 ? p.w[1] : q == 2 ? p.w[2] : p.w[3];
    return (W)(v >> (8 * (byte % 8)));
}

// Writes the pattern `value` (`words` words of type W) to `count` elements of dst.
template <typename W>
__device__ __forceinline__ void fill_strided(const u64 count, const u32 rank, const u32 words,
                                             const Desc& dst, const Pattern& value) {
    if (rank > 8 || (u64)words * sizeof(W) > sizeof(Pattern)) return;
    const u64 elem = (u64)words * sizeof(W);
    for (u64 k = (u64)blockIdx.x * blockDim.x + threadIdx.x; k < count;
         k += (u64)gridDim.x * blockDim.x) {
        u64 od, unused;
        offsets(k, rank, dst, nullptr, od, unused);
        W* d = reinterpret_cast<W*>(dst.data + od * elem);
        for (u32 w = 0; w < words; ++w) d[w] = pattern_word<W>(value, w);
    }
}

}  // namespace fkb

// The entries: one copy and one fill per word size A (the element's alignment, clamped to 8).
"#;

/// The CUDA C++ source of the built-in kernels: a complete translation unit (no includes) for
/// NVRTC with `-std=c++17`, defining [`copy_entry`]'s and [`fill_entry`]'s entries for every word
/// size. Compile it under the name [`BUILTIN_PROGRAM`].
/// The source of one built-in entry alone (the shared part and that entry): what a process compiles
/// on the first copy or fill that needs it (each compiles in a fraction of the whole program's
/// time). `None` for a name that is not a built-in entry.
pub(crate) fn entry_source(entry: &str) -> Option<String> {
    let full = builtin_source();
    let start = full.find(&format!("extern \"C\" __global__ void {entry}("))?;
    let end = full[start..]
        .find("\n}\n")
        .map(|e| start + e + 3)
        .unwrap_or(full.len());
    Some(format!("{BODY}{}", &full[start..end]))
}

pub(crate) fn builtin_source() -> String {
    let mut s = String::from(BODY);
    for (i, (bytes, ty)) in WORDS.iter().enumerate() {
        s.push_str(&format!(
            "extern \"C\" __global__ void {copy}(const fkb::u64 count, const fkb::u32 rank,\n\
             \x20   const fkb::u32 words, const fkb::Desc dst, const fkb::Desc src) {{\n\
             \x20   static_assert(sizeof({ty}) == {bytes}, \"word size\");\n\
             \x20   fkb::copy_strided<{ty}>(count, rank, words, dst, src);\n}}\n\
             extern \"C\" __global__ void {fill}(const fkb::u64 count, const fkb::u32 rank,\n\
             \x20   const fkb::u32 words, const fkb::Desc dst, const fkb::Pattern value) {{\n\
             \x20   fkb::fill_strided<{ty}>(count, rank, words, dst, value);\n}}\n",
            copy = COPY_ENTRIES[i],
            fill = FILL_ENTRIES[i],
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvrtc::{compile_cubin, require_or_skip};

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
        for (i, j, l) in
            (0..3).flat_map(|i| (0..4).flat_map(move |j| (0..5).map(move |l| (i, j, l))))
        {
            let at = 2 * (i + 3 * j + 12 * l);
            src[at..at + 2].copy_from_slice(&value(i, j, l).to_le_bytes());
        }
        let mut dst = vec![0u8; 120];
        reference_copy(60, 3, 2, &right, &left, &mut dst, &src);
        for (i, j, l) in
            (0..3).flat_map(|i| (0..4).flat_map(move |j| (0..5).map(move |l| (i, j, l))))
        {
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
    fn the_builtin_program_compiles_for_sm80_and_sm90() {
        if !require_or_skip() {
            return;
        }
        let source = builtin_source();
        for arch in [80, 90] {
            let cubin = compile_cubin(&source, BUILTIN_PROGRAM, arch)
                .unwrap_or_else(|e| panic!("the built-in kernels do not compile: {e}"));
            assert!(cubin.image.starts_with(b"\x7fELF"));
            assert!(
                cubin.log.trim().is_empty(),
                "the built-in kernels compile without warnings: {}",
                cubin.log
            );
            for name in COPY_ENTRIES.iter().chain(&FILL_ENTRIES) {
                assert!(
                    cubin
                        .image
                        .windows(name.len() + 1)
                        .any(|w| w[..name.len()] == *name.as_bytes() && w[name.len()] == 0),
                    "the CUBIN for sm_{arch} exports {name}"
                );
            }
            eprintln!(
                "{BUILTIN_PROGRAM} for sm_{arch}: {} bytes in {:.2?}",
                cubin.image.len(),
                cubin.compile_time
            );
        }
    }

    #[test]
    fn each_entry_compiles_alone() {
        if !require_or_skip() {
            return;
        }
        for entry in COPY_ENTRIES.iter().chain(&FILL_ENTRIES) {
            let src = entry_source(entry).expect("a built-in entry");
            assert_eq!(src.matches("__global__").count(), 1, "{entry}");
            let cubin = compile_cubin(&src, &format!("{entry}.cu"), 90).unwrap();
            println!("{entry}: {:?}", cubin.compile_time);
        }
        assert!(entry_source("fk_nope").is_none());
    }
}
