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
//! offset aligned to its alignment: [`COPY_PARAM_OFFSETS`], [`FILL_PARAM_OFFSETS`]), and
//! [`param_pointers`] makes the array of parameter pointers a launch takes.

use std::ffi::c_void;
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
pub(crate) const COPY_PARAM_OFFSETS: [usize; 5] = [0, 8, 12, 16, 16 + size_of::<Desc>()];

/// The size in bytes of the copy entries' parameter buffer.
pub(crate) const COPY_PARAMS_SIZE: usize = 16 + 2 * size_of::<Desc>();

/// The byte offsets of the fill entries' parameters `count`, `rank`, `words`, `dst`, `value`.
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

/// A packed parameter list ([`pack_copy`], [`pack_fill`]) in 8-aligned storage, with a pointer to
/// each parameter: what `Driver::launch` takes.
pub(crate) struct ParamPointers {
    /// The packed bytes (kept for the pointers; read through them only).
    _storage: Vec<u64>,
    /// A pointer into `storage` at each parameter's offset (the heap block does not move when the
    /// value does).
    pointers: Vec<*mut c_void>,
}

impl ParamPointers {
    /// The pointers, one per parameter.
    pub(crate) fn pointers(&mut self) -> &mut [*mut c_void] {
        &mut self.pointers
    }
}

/// The parameters `packed` (laid out at `offsets`) as [`ParamPointers`].
pub(crate) fn param_pointers(packed: &[u8], offsets: &[usize]) -> ParamPointers {
    let mut storage = vec![0u64; packed.len().div_ceil(8)];
    for (word, bytes) in storage.iter_mut().zip(packed.chunks(8)) {
        let mut w = [0u8; 8];
        w[..bytes.len()].copy_from_slice(bytes);
        *word = u64::from_ne_bytes(w);
    }
    let base = storage.as_mut_ptr().cast::<u8>();
    let pointers = offsets
        .iter()
        // SAFETY: every offset is inside the packed list, which `storage` holds.
        .map(|&at| unsafe { base.add(at) }.cast::<c_void>())
        .collect();
    ParamPointers {
        _storage: storage,
        pointers,
    }
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
    const u64 step = (u64)gridDim.x * blockDim.x;
    if (rank == 1 && dst.stride[0] == 1) {
        // One contiguous block (the host describes every contiguous View so): the element's words
        // are read once, outside the loop, and the stores are consecutive.
        W* d = reinterpret_cast<W*>(dst.data);
        if (words == 1) {
            const W v = pattern_word<W>(value, 0);
            for (u64 k = (u64)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += step) d[k] = v;
        } else {
            for (u64 k = (u64)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += step) {
                for (u32 w = 0; w < words; ++w) d[k * words + w] = pattern_word<W>(value, w);
            }
        }
        return;
    }
    const u64 elem = (u64)words * sizeof(W);
    for (u64 k = (u64)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += step) {
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

/// Every entry's name, copies first.
#[cfg(test)]
pub(crate) fn entries() -> impl Iterator<Item = &'static str> {
    COPY_ENTRIES.iter().chain(&FILL_ENTRIES).copied()
}

#[cfg(test)]
mod tests;
