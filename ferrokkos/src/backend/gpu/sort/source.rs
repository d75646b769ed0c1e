//! The CUDA C++ of the GPU sort (`ferrokkos_sort.cu`): a stable least-significant-digit radix
//! sort with 8-bit digits, three kernels per digit (reduce, scan, then scatter). Self-contained (no
//! includes), compiled by NVRTC one entry at a time, like the built-in copies. Every parameter is
//! passed as a 64-bit word.
//!
//! The keys are cut into one contiguous chunk of whole tiles ([`TILE`] keys) per block. Per digit:
//! `up` counts each block's keys of each digit value; `scan` (a block per value) turns the counts
//! into where each block's keys of each value start among that value's keys, and sums them; `down` walks each block's chunk tile by tile, ranks the tile's keys in shared
//! memory (each warp counts its own keys in order, the lanes of one digit found through a shared
//! mask, so equal digits keep their order), exchanges them through shared memory into digit order and writes them out in
//! runs, the values after them the same way, and moves its running starts past the tile. No block
//! waits for another, so any grid is correct.

/// Threads per block of every kernel (one per digit value).
pub(crate) const THREADS: usize = 256;
/// Keys per thread of a tile.
pub(crate) const ITEMS: usize = 16;
/// Keys per tile.
pub(crate) const TILE: usize = THREADS * ITEMS;

/// The shared part: the key order and the kernels' bodies.
const BODY: &str = r#"// ferrokkos sort: a stable LSD radix sort, 8-bit digits, reduce then scan then scatter.
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

// The keys of block b: tiles [b * per_block, (b + 1) * per_block) of the n keys.
__device__ __forceinline__ void chunk_of(u64 n, u64 per_block, u64& lo, u64& hi) {
    lo = (u64)blockIdx.x * per_block * TILE;
    hi = lo + per_block * TILE;
    if (hi > n) hi = n;
    if (lo > n) lo = n;
}

// counts[b * 256 + v]: the keys of block b's chunk whose digit at `shift` is v. Each warp counts
// into its own row (so equal keys contend within a warp at most), a tile's keys loaded at once.
template <typename K, typename S>
__device__ void up(const K* keys, u64 n, u32 kind, u32 shift, S* counts, u64 per_block) {
    __shared__ u32 c[WARPS][BINS];
    const u32 warp = threadIdx.x >> 5;
    for (u32 w = 0; w < WARPS; ++w) c[w][threadIdx.x] = 0;
    __syncthreads();
    u64 lo, hi;
    chunk_of(n, per_block, lo, hi);
    for (u64 tile_start = lo; tile_start < hi; tile_start += TILE) {
        K k[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const u64 i = tile_start + (u64)j * THREADS + threadIdx.x;
            if (i < hi) k[j] = keys[i];
        }
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const u64 i = tile_start + (u64)j * THREADS + threadIdx.x;
            if (i < hi) atomicAdd(&c[warp][digit_of<K>(k[j], kind, shift)], 1u);
        }
    }
    __syncthreads();
    u32 total = 0;
    for (u32 w = 0; w < WARPS; ++w) total += c[w][threadIdx.x];
    counts[(u64)blockIdx.x * BINS + threadIdx.x] = (S)total;
}

// The exclusive scan over the block's threads of one value each.
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
    __syncthreads();
    return before + inc - x;
}

// Block v: the counts of value v over the `blocks` blocks become exclusive prefixes (where block
// b's keys of value v start among the keys of value v), and totals[v] their sum.
template <typename S>
__device__ void scan(S* counts, u64 blocks, S* totals) {
    __shared__ S sums[WARPS];
    const u64 v = blockIdx.x;
    const u64 per = (blocks + THREADS - 1) / THREADS;
    const u64 first = (u64)threadIdx.x * per;
    S mine = 0;
    for (u64 b = first; b < first + per && b < blocks; ++b) mine += counts[b * BINS + v];
    S at = block_exclusive<S>(mine, sums);
    for (u64 b = first; b < first + per && b < blocks; ++b) {
        const S c = counts[b * BINS + v];
        counts[b * BINS + v] = at;
        at += c;
    }
    if (threadIdx.x == THREADS - 1) totals[v] = at;
}

struct NoValue {};

// One digit's scatter: keys (and values, unless V is NoValue) from `kin` to `kout` by the digit
// at `shift`, block b's keys of value v going to `starts[b * 256 + v]` on.
template <typename K, typename V, typename S>
__device__ void down(const K* kin, K* kout, const V* vin, V* vout, u64 n, u32 kind, u32 shift,
                     const S* starts, const S* totals, u64 per_block) {
    constexpr bool VALUES = sizeof(V) > 1;
    constexpr int BUF = TILE * (sizeof(K) > sizeof(V) ? sizeof(K) : sizeof(V));
    __shared__ __align__(16) unsigned char buf[BUF];
    __shared__ u32 warp_count[WARPS][BINS];
    __shared__ u64 base[BINS];
    __shared__ u32 tile_before[BINS];
    __shared__ u32 sums[WARPS];
    __shared__ S sums_s[WARPS];

    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const u32 below = (1u << lane) - 1;
    u64 lo, hi;
    chunk_of(n, per_block, lo, hi);
    // Where the chunk's next key of value `threadIdx.x` goes: after the smaller values' keys and
    // this value's keys of the blocks before.
    u64 next = (u64)block_exclusive<S>(totals[threadIdx.x], sums_s) +
               (u64)starts[(u64)blockIdx.x * BINS + threadIdx.x];
    // While a tile is ranked, `buf` holds per warp and value the lanes holding that value in the
    // current item (value BINS: past the end); each leader clears the entry it read.
    u32* peers_of = reinterpret_cast<u32*>(buf) + warp * (BINS + 1);
    static_assert(WARPS * (BINS + 1) * 4 <= BUF, "the masks fit the exchange buffer");
    for (u64 tile_start = lo; tile_start < hi; tile_start += TILE) {
        for (u32 b = lane; b < BINS; b += 32) warp_count[warp][b] = 0;
        for (u32 b = lane; b <= BINS; b += 32) peers_of[b] = 0;
        __syncwarp();
        // Warp w holds the w-th run of 32 * ITEMS keys of the tile, item j of lane l its key
        // j * 32 + l, so that ranks in (warp, item, lane) order are the keys' order.
        const u64 first = tile_start + (u64)warp * 32 * ITEMS + lane;
        K keys[ITEMS];
        u32 digit[ITEMS];
        u32 rank[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const u64 i = first + (u64)j * 32;
            if (i < hi) {
                keys[j] = kin[i];
                digit[j] = digit_of<K>(keys[j], kind, shift);
            } else {
                digit[j] = BINS;  // past the chunk: counted nowhere
            }
        }
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            // The lanes with the same digit (what __match_any_sync gives, through shared memory:
            // much cheaper where the digits are many), the lowest one counting for them.
            const u32 d = digit[j];
            atomicOr(&peers_of[d], 1u << lane);
            __syncwarp();
            const u32 peers = peers_of[d];
            const u32 leader = __ffs(peers) - 1;
            u32 start = 0;
            if (lane == leader) {
                peers_of[d] = 0;
                if (d < BINS) {
                    start = warp_count[warp][d];
                    warp_count[warp][d] = start + __popc(peers);
                }
            }
            __syncwarp();
            rank[j] = __shfl_sync(0xffffffffu, start, leader) + __popc(peers & below);
        }
        __syncthreads();
        // Thread t owns value t: the warps' counts become offsets within the tile's run of t.
        const u32 d = threadIdx.x;
        u32 count = 0;
        for (u32 w = 0; w < WARPS; ++w) {
            const u32 c = warp_count[w][d];
            warp_count[w][d] = count;
            count += c;
        }
        const u32 in_tile = block_exclusive<u32>(count, sums);
        tile_before[d] = in_tile;
        base[d] = next - in_tile;
        next += count;
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
        const u32 here = (u32)(hi - tile_start < (u64)TILE ? hi - tile_start : (u64)TILE);
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
        if constexpr (VALUES) {
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
        __syncthreads();
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
/// The value widths in bytes moved by `down` (0: none) with their C++ types.
const VALUES: [(usize, &str); 3] = [(0, "fks::NoValue"), (4, "fks::u32"), (8, "fks::u64")];
/// The widths of the counts (4 while the keys fit a `u32` count, else 8) with their C++ types.
const COUNTS: [(usize, &str); 2] = [(4, "fks::u32"), (8, "fks::u64")];

/// The `up` entries, by key width (4, 8) and count width (4, 8).
const UPS: [&str; 4] = [
    "fk_sort_up_k4_c4",
    "fk_sort_up_k4_c8",
    "fk_sort_up_k8_c4",
    "fk_sort_up_k8_c8",
];

/// The `scan` entries, by count width (4, 8).
const SCANS: [&str; 2] = ["fk_sort_scan_c4", "fk_sort_scan_c8"];

/// The `down` entries, by key width (4, 8), value width (none, 4, 8), count width (4, 8).
const DOWNS: [&str; 12] = [
    "fk_sort_down_k4_v0_c4",
    "fk_sort_down_k4_v0_c8",
    "fk_sort_down_k4_v4_c4",
    "fk_sort_down_k4_v4_c8",
    "fk_sort_down_k4_v8_c4",
    "fk_sort_down_k4_v8_c8",
    "fk_sort_down_k8_v0_c4",
    "fk_sort_down_k8_v0_c8",
    "fk_sort_down_k8_v4_c4",
    "fk_sort_down_k8_v4_c8",
    "fk_sort_down_k8_v8_c4",
    "fk_sort_down_k8_v8_c8",
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

/// The kernels of one sort: `up`, `scan` and `down` for its widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entries {
    pub(crate) up: &'static str,
    pub(crate) scan: &'static str,
    pub(crate) down: &'static str,
}

/// The entries for keys of `key_bytes` (4 or 8), values of `value_bytes` (0, 4 or 8) moved by
/// `down`, and counts of `count_bytes` (4 or 8); `None` for other widths.
pub(crate) fn entries_for(
    key_bytes: usize,
    value_bytes: usize,
    count_bytes: usize,
) -> Option<Entries> {
    let v = match value_bytes {
        0 => 0,
        4 => 1,
        8 => 2,
        _ => return None,
    };
    let (k, c) = (wide(key_bytes)?, wide(count_bytes)?);
    Some(Entries {
        up: UPS[k * 2 + c],
        scan: SCANS[c],
        down: DOWNS[k * 6 + v * 2 + c],
    })
}

/// The gather entry for elements of alignment `align` (words of 1, 2, 4 or 8 bytes).
pub(crate) fn gather_entry(align: usize) -> &'static str {
    GATHERS[crate::backend::gpu::builtin::word_bytes(align).trailing_zeros() as usize]
}

/// The C++ entry `name` with 64-bit parameters `params`, whose body is `body`.
fn entry(name: &str, params: &[&str], body: &str) -> String {
    let list: Vec<String> = params
        .iter()
        .map(|p| format!("const fks::u64 {p}"))
        .collect();
    format!(
        "extern \"C\" __global__ void __launch_bounds__(256) {name}({}) {{\n    {body}\n}}\n",
        list.join(", ")
    )
}

/// Every entry's C++ text.
fn entry_texts() -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for (k, (_, kt)) in KEYS.iter().enumerate() {
        for (c, (_, ct)) in COUNTS.iter().enumerate() {
            let up = UPS[k * 2 + c];
            let body = format!(
                "fks::up<{kt}, {ct}>((const {kt}*)keys, n, (fks::u32)kind, (fks::u32)shift, \
                 ({ct}*)counts, per_block);"
            );
            let params = ["keys", "n", "kind", "shift", "counts", "per_block"];
            out.push((up, entry(up, &params, &body)));
            for (v, (_, vt)) in VALUES.iter().enumerate() {
                let down = DOWNS[k * 6 + v * 2 + c];
                let body = format!(
                    "fks::down<{kt}, {vt}, {ct}>((const {kt}*)kin, ({kt}*)kout, (const {vt}*)vin, \
                     ({vt}*)vout, n, (fks::u32)kind, (fks::u32)shift, (const {ct}*)starts, \
                     (const {ct}*)totals, per_block);"
                );
                let params = [
                    "kin",
                    "kout",
                    "vin",
                    "vout",
                    "n",
                    "kind",
                    "shift",
                    "starts",
                    "totals",
                    "per_block",
                ];
                out.push((down, entry(down, &params, &body)));
            }
        }
    }
    for (c, (_, ct)) in COUNTS.iter().enumerate() {
        let body = format!("fks::scan<{ct}>(({ct}*)counts, blocks, ({ct}*)totals);");
        let params = ["counts", "blocks", "totals"];
        out.push((SCANS[c], entry(SCANS[c], &params, &body)));
    }
    let body = "const fks::u64 step = (fks::u64)gridDim.x * blockDim.x;\n    \
                for (fks::u64 i = (fks::u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; \
                i += step) ((fks::u32*)out)[i] = (fks::u32)i;";
    out.push((IOTA, entry(IOTA, &["out", "n"], body)));
    for (a, name) in GATHERS.iter().enumerate() {
        let body = format!(
            "typedef fks::Word<{}>::T W;\n    \
             const fks::u64 step = (fks::u64)gridDim.x * blockDim.x;\n    \
             for (fks::u64 i = (fks::u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {{\n    \
             \x20   const fks::u64 from = ((const fks::u32*)index)[i];\n    \
             \x20   for (fks::u64 w = 0; w < words; ++w)\n    \
             \x20       ((W*)dst)[i * words + w] = ((const W*)src)[from * words + w];\n    }}",
            1 << a
        );
        let params = ["dst", "src", "index", "n", "words"];
        out.push((name, entry(name, &params, &body)));
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
