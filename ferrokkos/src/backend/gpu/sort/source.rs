//! The CUDA C++ of the GPU sort (`ferrokkos_sort.cu`): a stable least-significant-digit radix
//! sort with 8-bit digits, one sweep over the keys per digit (after one histogram of every digit),
//! in the manner of Adinets and Merrill's Onesweep. Self-contained (no includes), compiled by NVRTC
//! one entry at a time, like the built-in copies. Every parameter is passed as a 64-bit word.
//!
//! Per digit, a block takes the next tile of [`TILE`] keys (in the order blocks start, from a
//! counter, so every earlier tile belongs to a block that is running or done), ranks its keys in
//! shared memory (each warp counts its own keys in order with `__match_any_sync`, so equal digits
//! keep their order), publishes its count of each digit, and looks back over the earlier tiles'
//! published counts (an aggregate, or an inclusive prefix that ends the walk) for where its keys of
//! each digit go. The keys are then exchanged through shared memory into digit order and written
//! out in runs, and the values after them the same way. The tile's status words hold a 2-bit flag
//! above the count, in 32 bits when fewer than 2^30 keys are sorted, else in 64.

/// Threads per block of the sweep (one per digit value).
pub(crate) const THREADS: usize = 256;
/// Keys per thread of the sweep.
pub(crate) const ITEMS: usize = 16;
/// Keys per tile of the sweep.
pub(crate) const TILE: usize = THREADS * ITEMS;
/// The most keys a sort with 32-bit status words takes (counts below the flags' bits).
pub(crate) const STATUS32_MAX: usize = (1 << 30) - 1;

/// The shared part: the key order, the histogram, the sweep, the index and gather kernels.
const BODY: &str = r#"// ferrokkos sort: a stable LSD radix sort, 8-bit digits, one sweep per digit.
// Self-contained (no includes); compiled by NVRTC with -std=c++17 -default-device.

namespace fks {

typedef unsigned long long u64;
typedef unsigned int u32;

constexpr int THREADS = 256;
constexpr int WARPS = THREADS / 32;
constexpr int ITEMS = 16;
constexpr int TILE = THREADS * ITEMS;
constexpr int BINS = 256;

// The key's bits mapped so that unsigned order is the key's order: kind 0 unsigned, 1 signed,
// 2 float (total order: negative floats reversed).
template <typename K>
__device__ __forceinline__ K ordered(K k, u32 kind) {
    const K sign = K(1) << (sizeof(K) * 8 - 1);
    if (kind == 1) return k ^ sign;
    if (kind == 2) return (k & sign) ? ~k : (k | sign);
    return k;
}

template <typename K>
__device__ __forceinline__ u32 digit_of(K k, u32 kind, u32 shift) {
    return (u32)((ordered<K>(k, kind) >> shift) & 0xff);
}

// Counts of every digit of every key: hist[d * 256 + v] += keys with value v in digit d.
template <typename K>
__device__ void histogram(const K* keys, u64 n, u32 kind, u64* hist) {
    constexpr int D = sizeof(K);
    __shared__ u32 h[D * BINS];
    for (int i = threadIdx.x; i < D * BINS; i += blockDim.x) h[i] = 0;
    __syncthreads();
    const u64 step = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const K o = ordered<K>(keys[i], kind);
#pragma unroll
        for (int d = 0; d < D; ++d) atomicAdd(&h[d * BINS + (u32)((o >> (8 * d)) & 0xff)], 1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < D * BINS; i += blockDim.x) {
        if (h[i] != 0) atomicAdd(&hist[i], (u64)h[i]);
    }
}

// Status words: flag in the top two bits (1: the tile's aggregate, 2: the inclusive prefix).
template <typename S> struct Flags {
    static constexpr S SHIFT = sizeof(S) * 8 - 2;
    static constexpr S AGGREGATE = S(1) << SHIFT;
    static constexpr S PREFIX = S(2) << SHIFT;
    static constexpr S VALUE = AGGREGATE - 1;
};

template <typename S>
__device__ __forceinline__ void publish(S* at, S word) {
    *(volatile S*)at = word;
}

template <typename S>
__device__ __forceinline__ S peek(const S* at) {
    return *(const volatile S*)at;
}

// The exclusive scan over the block's threads of one value each, and the total.
template <typename T>
__device__ __forceinline__ T block_exclusive(T x, T* warp_sums) {
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T inc = x;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const T y = __shfl_up_sync(0xffffffffu, inc, o);
        if (lane >= (u32)o) inc += y;
    }
    if (lane == 31) warp_sums[warp] = inc;
    __syncthreads();
    T before = 0;
    for (u32 w = 0; w < warp; ++w) before += warp_sums[w];
    return before + inc - x;
}

struct NoValue {};

// One digit's sweep: keys (and values, unless V is NoValue) from `kin` to `kout` by the digit at
// `shift`; `bins` the 256 counts of this digit over all keys; `status` this digit's tile words
// (zeroed); `counter` this digit's tile counter (zeroed).
template <typename K, typename V, typename S>
__device__ void sweep(const K* kin, K* kout, const V* vin, V* vout, u64 n, u32 kind, u32 shift,
                      const u64* bins, S* status, u32* counter) {
    constexpr bool VALUES = sizeof(V) > 1;
    constexpr int BUF = TILE * (sizeof(K) > sizeof(V) ? sizeof(K) : sizeof(V));
    __shared__ __align__(16) unsigned char buf[BUF];
    __shared__ u32 warp_count[WARPS][BINS];
    __shared__ u64 base[BINS];
    __shared__ u32 tile_before[BINS];
    __shared__ u64 sums64[WARPS];
    __shared__ u32 sums32[WARPS];
    __shared__ u32 tile_id;

    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) tile_id = atomicAdd(counter, 1u);
    for (u32 b = lane; b < BINS; b += 32) warp_count[warp][b] = 0;
    __syncthreads();
    const u64 tile = tile_id;
    const u64 first = tile * TILE + (u64)warp * 32 * ITEMS + lane;

    // Load: warp w holds the w-th run of 32 * ITEMS keys of the tile, item j of lane l its key
    // j * 32 + l, so that ranks in (warp, item, lane) order are the keys' order.
    K keys[ITEMS];
    u32 digit[ITEMS];
    u32 rank[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const u64 i = first + (u64)j * 32;
        if (i < n) {
            keys[j] = kin[i];
            digit[j] = digit_of<K>(keys[j], kind, shift);
        } else {
            digit[j] = BINS;  // past the end: counted nowhere
        }
    }
    // Rank within the warp: lanes with the same digit, the lowest one counting for them.
    const u32 below = (1u << lane) - 1;
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const u32 d = digit[j];
        const u32 peers = __match_any_sync(0xffffffffu, d);
        const u32 leader = __ffs(peers) - 1;
        u32 start = 0;
        if (lane == leader && d < BINS) {
            start = warp_count[warp][d];
            warp_count[warp][d] = start + __popc(peers);
        }
        __syncwarp();
        rank[j] = __shfl_sync(0xffffffffu, start, leader) + __popc(peers & below);
    }
    __syncthreads();

    // Thread t owns digit t: the warps' counts become offsets within the tile's run of t.
    const u32 d = threadIdx.x;
    u32 count = 0;
    for (u32 w = 0; w < WARPS; ++w) {
        const u32 c = warp_count[w][d];
        warp_count[w][d] = count;
        count += c;
    }
    // Decoupled look-back: the keys of digit d in the tiles before this one.
    S* mine = status + tile * BINS + d;
    S before = 0;
    if (tile == 0) {
        publish<S>(mine, Flags<S>::PREFIX | (S)count);
    } else {
        publish<S>(mine, Flags<S>::AGGREGATE | (S)count);
        u64 t = tile - 1;
        while (true) {
            const S word = peek<S>(status + t * BINS + d);
            if ((word & ~Flags<S>::VALUE) == 0) continue;  // not published yet
            before += word & Flags<S>::VALUE;
            if (word & Flags<S>::PREFIX) break;
            --t;
        }
        publish<S>(mine, Flags<S>::PREFIX | (before + (S)count));
    }
    const u32 in_tile = block_exclusive<u32>(count, sums32);
    const u64 global = block_exclusive<u64>(bins[d], sums64);
    // Key i of the tile in digit order goes to base[digit] + i.
    base[d] = global + (u64)before - (u64)in_tile;
    tile_before[d] = in_tile;
    __syncthreads();

    K* skeys = reinterpret_cast<K*>(buf);
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        if (digit[j] < BINS) {
            rank[j] += tile_before[digit[j]] + warp_count[warp][digit[j]];
            skeys[rank[j]] = keys[j];
        }
    }
    __syncthreads();
    const u64 tile_start = tile * TILE;
    const u32 here = (u32)(n - tile_start < (u64)TILE ? n - tile_start : (u64)TILE);
    u32 out_digit[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) {
        const u32 i = threadIdx.x + j * THREADS;
        if (i < here) {
            const K k = skeys[i];
            out_digit[j] = digit_of<K>(k, kind, shift);
            kout[base[out_digit[j]] + i] = k;
        }
    }
    if (VALUES) {
        __syncthreads();
        V* svals = reinterpret_cast<V*>(buf);
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            if (digit[j] < BINS) svals[rank[j]] = vin[first + (u64)j * 32];
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const u32 i = threadIdx.x + j * THREADS;
            if (i < here) vout[base[out_digit[j]] + i] = svals[i];
        }
    }
}

// Words of A bytes (the values' alignment), `words` per element.
template <int A> struct Word;
template <> struct Word<1> { typedef unsigned char T; };
template <> struct Word<2> { typedef unsigned short T; };
template <> struct Word<4> { typedef unsigned int T; };
template <> struct Word<8> { typedef unsigned long long T; };

}  // namespace fks

"#;

/// The name of the whole sort program, in the messages of the tests that compile it.
#[cfg(test)]
pub(crate) const SORT_PROGRAM: &str = "ferrokkos_sort.cu";

/// The key widths in bytes with their C++ types.
const KEYS: [(usize, &str); 2] = [(4, "fks::u32"), (8, "fks::u64")];
/// The value widths in bytes carried by the sweep (0: none) with their C++ types.
const VALUES: [(usize, &str); 3] = [(0, "fks::NoValue"), (4, "fks::u32"), (8, "fks::u64")];
/// The status word widths with their C++ types.
const STATUS: [(usize, &str); 2] = [(4, "fks::u32"), (8, "fks::u64")];

/// The histogram entry for keys of `key_bytes`.
pub(crate) fn histogram_entry(key_bytes: usize) -> &'static str {
    if key_bytes == 8 {
        "fk_sort_hist_k8"
    } else {
        "fk_sort_hist_k4"
    }
}

/// The sweep entries, by key width (4, 8), value width (none, 4, 8), status width (4, 8).
const SWEEPS: [&str; 12] = [
    "fk_sort_sweep_k4_v0_s4",
    "fk_sort_sweep_k4_v0_s8",
    "fk_sort_sweep_k4_v4_s4",
    "fk_sort_sweep_k4_v4_s8",
    "fk_sort_sweep_k4_v8_s4",
    "fk_sort_sweep_k4_v8_s8",
    "fk_sort_sweep_k8_v0_s4",
    "fk_sort_sweep_k8_v0_s8",
    "fk_sort_sweep_k8_v4_s4",
    "fk_sort_sweep_k8_v4_s8",
    "fk_sort_sweep_k8_v8_s4",
    "fk_sort_sweep_k8_v8_s8",
];

/// The gather entries, by word size 1, 2, 4, 8.
const GATHERS: [&str; 4] = [
    "fk_sort_gather_a1",
    "fk_sort_gather_a2",
    "fk_sort_gather_a4",
    "fk_sort_gather_a8",
];

/// The entry that writes 0, 1, ... into a buffer of u32.
pub(crate) const IOTA: &str = "fk_sort_iota";

/// The index of a width among 4 and 8 (`None` for others).
fn wide(bytes: usize) -> Option<usize> {
    match bytes {
        4 => Some(0),
        8 => Some(1),
        _ => None,
    }
}

/// The sweep entry for keys of `key_bytes` (4 or 8), values of `value_bytes` (0, 4 or 8) and status
/// words of `status_bytes` (4 or 8); `None` for other widths.
pub(crate) fn sweep_entry(
    key_bytes: usize,
    value_bytes: usize,
    status_bytes: usize,
) -> Option<&'static str> {
    let v = match value_bytes {
        0 => 0,
        4 => 1,
        8 => 2,
        _ => return None,
    };
    Some(SWEEPS[wide(key_bytes)? * 6 + v * 2 + wide(status_bytes)?])
}

/// The gather entry for elements of alignment `align` (words of 1, 2, 4 or 8 bytes).
pub(crate) fn gather_entry(align: usize) -> &'static str {
    GATHERS[crate::backend::gpu::builtin::word_bytes(align).trailing_zeros() as usize]
}

/// Every entry's C++ text, in the order of [`entries`].
fn entry_texts() -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for (i, (bytes, ty)) in KEYS.iter().enumerate() {
        out.push((
            histogram_entry(*bytes),
            format!(
                "extern \"C\" __global__ void {}(const fks::u64 keys, const fks::u64 n,\n\
                 \x20   const fks::u64 kind, const fks::u64 hist) {{\n\
                 \x20   fks::histogram<{ty}>((const {ty}*)keys, n, (fks::u32)kind, (fks::u64*)hist);\n}}\n",
                histogram_entry(*bytes)
            ),
        ));
        for (v, (_, vty)) in VALUES.iter().enumerate() {
            for (s, (_, sty)) in STATUS.iter().enumerate() {
                let name = SWEEPS[i * 6 + v * 2 + s];
                out.push((
                    name,
                    format!(
                        "extern \"C\" __global__ void __launch_bounds__(256) {name}(\n\
                         \x20   const fks::u64 kin, const fks::u64 kout, const fks::u64 vin,\n\
                         \x20   const fks::u64 vout, const fks::u64 n, const fks::u64 kind,\n\
                         \x20   const fks::u64 shift, const fks::u64 bins, const fks::u64 status,\n\
                         \x20   const fks::u64 counter) {{\n\
                         \x20   fks::sweep<{ty}, {vty}, {sty}>((const {ty}*)kin, ({ty}*)kout,\n\
                         \x20       (const {vty}*)vin, ({vty}*)vout, n, (fks::u32)kind,\n\
                         \x20       (fks::u32)shift, (const fks::u64*)bins, ({sty}*)status,\n\
                         \x20       (fks::u32*)counter);\n}}\n"
                    ),
                ));
            }
        }
    }
    out.push((
        IOTA,
        format!(
            "extern \"C\" __global__ void {IOTA}(const fks::u64 out, const fks::u64 n) {{\n\
             \x20   const fks::u64 step = (fks::u64)gridDim.x * blockDim.x;\n\
             \x20   for (fks::u64 i = (fks::u64)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n\
             \x20        i += step) ((fks::u32*)out)[i] = (fks::u32)i;\n}}\n"
        ),
    ));
    for (k, name) in GATHERS.iter().enumerate() {
        let a = 1usize << k;
        out.push((
            name,
            format!(
                "extern \"C\" __global__ void {name}(const fks::u64 dst, const fks::u64 src,\n\
                 \x20   const fks::u64 index, const fks::u64 n, const fks::u64 words) {{\n\
                 \x20   typedef fks::Word<{a}>::T W;\n\
                 \x20   const fks::u64 step = (fks::u64)gridDim.x * blockDim.x;\n\
                 \x20   for (fks::u64 i = (fks::u64)blockIdx.x * blockDim.x + threadIdx.x; i < n;\n\
                 \x20        i += step) {{\n\
                 \x20       const fks::u64 from = ((const fks::u32*)index)[i];\n\
                 \x20       for (fks::u64 w = 0; w < words; ++w)\n\
                 \x20           ((W*)dst)[i * words + w] = ((const W*)src)[from * words + w];\n\
                 \x20   }}\n}}\n"
            ),
        ));
    }
    out
}

/// The source of one entry alone (the shared part and that entry); `None` for a name that is not
/// one of the sort's entries.
pub(crate) fn entry_source(entry: &str) -> Option<String> {
    let (_, text) = entry_texts().into_iter().find(|(n, _)| *n == entry)?;
    Some(format!("{BODY}{text}"))
}

/// The whole program: every entry (for the tests that compile it).
#[cfg(test)]
pub(crate) fn program_source() -> String {
    let mut s = String::from(BODY);
    for (_, text) in entry_texts() {
        s.push_str(&text);
    }
    s
}

/// Every entry's name.
#[cfg(test)]
pub(crate) fn entries() -> Vec<&'static str> {
    entry_texts().into_iter().map(|(n, _)| n).collect()
}
