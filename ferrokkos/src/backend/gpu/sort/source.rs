//! The CUDA C++ of the GPU sort (`ferrokkos_sort.cu`): a stable least-significant-digit radix
//! sort with 8-bit digits, four kernels per digit (count, two scans, scatter). Self-contained (no
//! includes), compiled by NVRTC one entry at a time, like the built-in copies. Every parameter is
//! passed as a 64-bit word.
//!
//! The keys are cut into tiles of [`tile_for`] keys. Per digit: `up` counts each tile's keys of
//! each digit value; the scans turn the counts into where each tile's keys of each value start in
//! the sorted order (`scan_ranges` sums the counts of up to 256 ranges of tiles, `scan_tiles` adds
//! up those sums in each block and scans its range's tiles from there); `down` ranks each
//! tile's keys in shared memory, exchanges them into digit order and writes them out in runs, the
//! values with them. Consecutive tiles are in flight at once, so the runs written to each value's
//! region follow one another and the cache merges them into whole lines. No block waits for
//! another, so any grid is correct.

/// Threads per block of every kernel (one per digit value).
pub(crate) const THREADS: usize = 256;
/// The most ranges of tiles the scans split the counts into (a block each).
pub(crate) const RANGES: usize = 256;

/// Keys per thread of a tile, for keys of `key_bytes` and values of `value_bytes` (0: none) moved
/// by `down`: 24 for 4-byte keys with 4-byte values (`down`'s buffers then take 48 KiB of dynamic
/// shared memory, see [`down_dynamic_shared`]), 18 for 4-byte keys alone, else 16 (`down`'s
/// buffers then fill the 48 KiB of static shared memory). Measured on an H200: keys alone among
/// 12, 16, 18, 24, 28 and 32 (18 to 28 alike); 4-byte pairs among 12, 16, 18, 24, 28 and 32 (24
/// best, 6% ahead of 18).
pub(crate) fn items_for(key_bytes: usize, value_bytes: usize) -> usize {
    match (key_bytes, value_bytes) {
        (4, 4) => 24,
        (4, 0) => 18,
        _ => 16,
    }
}

/// The bytes of dynamic shared memory `down` takes for these widths: its key and value buffers
/// for 4-byte keys with 4-byte values (more than the 48 KiB a block has without opting in, with
/// its static part), else none (its buffers are static).
pub(crate) fn down_dynamic_shared(key_bytes: usize, value_bytes: usize) -> usize {
    match (key_bytes, value_bytes) {
        (4, 4) => tile_for(4, 4) * 8,
        _ => 0,
    }
}

/// Keys per tile (see [`items_for`]).
pub(crate) fn tile_for(key_bytes: usize, value_bytes: usize) -> usize {
    THREADS * items_for(key_bytes, value_bytes)
}

/// Blocks of `down` a multiprocessor holds at once, without and with values (its registers are
/// fitted to them: measured best on an H200 among 2, 3 and 4).
const DOWN_BLOCKS: [u32; 2] = [3, 2];

/// The shared part: the key order and the kernels' bodies.
const BODY: &str = r#"// ferrokkos sort: a stable LSD radix sort, 8-bit digits: count, scan, then scatter, per digit.
// Self-contained (no includes); compiled by NVRTC with -std=c++17 -default-device.

namespace fks {

typedef unsigned long long u64;
typedef unsigned int u32;

constexpr int THREADS = 256;
constexpr int WARPS = THREADS / 32;
constexpr int BINS = 256;
constexpr u32 ALL = 0xffffffffu;
// Loads of the scans issued together before any is used.
constexpr int BATCH = 64;

// The key's bits mapped so that unsigned order is the key's order: kind 0 unsigned, 1 signed,
// 2 float (total order: negative floats reversed), as one xor.
template <typename K>
struct Order {
    K sign_flip, all_flip;
    __device__ __forceinline__ explicit Order(u32 kind) {
        const K sign = K(1) << (sizeof(K) * 8 - 1);
        sign_flip = kind != 0 ? sign : K(0);
        all_flip = kind == 2 ? ~K(0) : K(0);
    }
    __device__ __forceinline__ K ordered(K k) const {
        const K sign = K(1) << (sizeof(K) * 8 - 1);
        const K negative = (k & sign) ? all_flip : K(0);
        return k ^ (sign_flip | negative);
    }
    __device__ __forceinline__ u32 digit(K k, u32 shift) const {
        return (u32)(ordered(k) >> shift) & 0xffu;
    }
};

// The keys of tile t of TILE keys: [t * TILE, min((t + 1) * TILE, n)).
template <int TILE>
__device__ __forceinline__ u32 tile_keys(u64 n, u64 t) {
    const u64 rest = n - t * TILE;
    return rest < (u64)TILE ? (u32)rest : (u32)TILE;
}

// counts[t * 256 + v]: the keys of tile t (of ITEMS keys per thread) whose digit at `shift` is v,
// for the tiles blockIdx.x, blockIdx.x + gridDim.x, ... Each warp counts into its own row.
template <typename K, typename S, int ITEMS>
__device__ void up(const K* keys, u64 n, u32 kind, u32 shift, S* counts, u64 tiles) {
    constexpr int TILE = THREADS * ITEMS;
    __shared__ u32 c[WARPS][BINS];
    const Order<K> order(kind);
    const u32 warp = threadIdx.x >> 5;
    for (u32 w = 0; w < WARPS; ++w) c[w][threadIdx.x] = 0;
    __syncthreads();
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const u32 here = tile_keys<TILE>(n, t);
        const K* tile = keys + t * TILE;
        K k[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const u32 i = j * THREADS + threadIdx.x;
            if (i < here) k[j] = tile[i];
        }
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const u32 i = j * THREADS + threadIdx.x;
            if (i < here) atomicAdd(&c[warp][order.digit(k[j], shift)], 1u);
        }
        __syncthreads();
        u32 total = 0;
#pragma unroll
        for (int w = 0; w < WARPS; ++w) {
            total += c[w][threadIdx.x];
            c[w][threadIdx.x] = 0;
        }
        counts[t * BINS + threadIdx.x] = (S)total;
        __syncthreads();
    }
}

// The exclusive scan over the block's threads of one value each.
template <typename T>
__device__ __forceinline__ T block_exclusive(T x, T* warp_sums) {
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T inc = x;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const T y = __shfl_up_sync(ALL, inc, o);
        if (lane >= (u32)o) inc += y;
    }
    if (lane == 31) warp_sums[warp] = inc;
    __syncthreads();
    T before = 0;
    for (u32 w = 0; w < warp; ++w) before += warp_sums[w];
    __syncthreads();
    return before + inc - x;
}

// The tiles of range r of `ranges`: [r * per, min((r + 1) * per, tiles)).
__device__ __forceinline__ void range_of(u64 tiles, u64 ranges, u64 r, u64& lo, u64& hi) {
    const u64 per = (tiles + ranges - 1) / ranges;
    lo = r * per;
    hi = lo + per;
    if (hi > tiles) hi = tiles;
    if (lo > tiles) lo = tiles;
}

// Block r of the ranges, thread v: sums[r * 256 + v], the keys of value v in the tiles of range r.
template <typename S>
__device__ void scan_ranges(const S* counts, u64 tiles, S* sums) {
    u64 lo, hi;
    range_of(tiles, gridDim.x, blockIdx.x, lo, hi);
    S sum = 0;
    for (u64 t = lo; t < hi; t += BATCH) {
        S c[BATCH];
#pragma unroll
        for (int j = 0; j < BATCH; ++j) c[j] = t + j < hi ? counts[(t + j) * BINS + threadIdx.x] : 0;
#pragma unroll
        for (int j = 0; j < BATCH; ++j) sum += c[j];
    }
    sums[(u64)blockIdx.x * BINS + threadIdx.x] = sum;
}

// Block r of the ranges, thread v: counts[t * 256 + v] becomes where tile t's keys of value v
// start in the sorted keys, for the tiles of range r: after every key of a smaller value (the
// sums of all ranges, which each block adds up itself), the keys of value v of the ranges before,
// and those of the tiles before in the range.
template <typename S>
__device__ void scan_tiles(S* counts, u64 tiles, const S* sums) {
    __shared__ S warp_sums[WARPS];
    const u64 ranges = gridDim.x;
    S before = 0, total = 0;
    for (u64 r = 0; r < ranges; r += BATCH) {
        S c[BATCH];
#pragma unroll
        for (int j = 0; j < BATCH; ++j) c[j] = r + j < ranges ? sums[(r + j) * BINS + threadIdx.x] : 0;
#pragma unroll
        for (int j = 0; j < BATCH; ++j) {
            if (r + j < blockIdx.x) before += c[j];
            total += c[j];
        }
    }
    S at = block_exclusive<S>(total, warp_sums) + before;
    u64 lo, hi;
    range_of(tiles, ranges, blockIdx.x, lo, hi);
    for (u64 t = lo; t < hi; t += BATCH) {
        S c[BATCH];
#pragma unroll
        for (int j = 0; j < BATCH; ++j) c[j] = t + j < hi ? counts[(t + j) * BINS + threadIdx.x] : 0;
#pragma unroll
        for (int j = 0; j < BATCH; ++j) {
            if (t + j < hi) counts[(t + j) * BINS + threadIdx.x] = at;
            at += c[j];
        }
    }
}

struct NoValue {};

// The lanes of the warp whose digit `d` equals this lane's: one vote per bit (cheaper than
// __match_any_sync where the values are many).
__device__ __forceinline__ u32 peers_of(u32 d) {
    u32 peers = ALL;
#pragma unroll
    for (int b = 0; b < 8; ++b) {
        const bool bit = (d >> b) & 1u;
        const u32 set = __ballot_sync(ALL, bit);
        peers &= bit ? set : ~set;
    }
    return peers;
}

// A warp's ITEMS keys of a tile, from `from` (its first): item j of lane l is key j * 32 + l of
// the warp's run, which starts `at` keys into a tile of `here` (zero past the end).
template <typename T, int ITEMS>
__device__ __forceinline__ void load_run(T (&out)[ITEMS], const T* from, u32 at, u32 here) {
#pragma unroll
    for (int j = 0; j < ITEMS; ++j) out[j] = at + j * 32 < here ? from[j * 32] : T();
}

// One digit's scatter: keys (and values, unless V is NoValue) from `kin` to `kout` by the digit
// at `shift`, tile t's keys of value v going to `starts[t * 256 + v]` on. Per tile (ITEMS keys per
// thread; the values loaded with the keys): each warp ranks its run of keys (the lanes of one
// digit found by votes, the lowest counting for them into the warp's row, so equal digits keep
// their order); thread v turns the rows of value v into offsets in the tile; the keys (and values)
// are exchanged through shared memory into digit order and written out in runs. Past the end, keys
// count as digit 255: they rank after every key of the tile and are never written.
template <typename K, typename V, typename S, int ITEMS, bool DYN>
__device__ void down(const K* kin, K* kout, const V* vin, V* vout, u64 n, u32 kind, u32 shift,
                     const S* starts, u64 tiles) {
    constexpr int TILE = THREADS * ITEMS;
    constexpr bool VALUES = sizeof(V) > 1;
    // Keys and values each in their own buffer where both fit, else one after the other in one.
    constexpr bool SPLIT = VALUES && sizeof(K) + sizeof(V) <= 8;
    constexpr int BUF = TILE * (sizeof(K) > sizeof(V) ? sizeof(K) : sizeof(V));
    // The buffers: in dynamic shared memory (BUF bytes, then the values') where DYN, else static.
    extern __shared__ __align__(16) unsigned char dyn[];
    __shared__ __align__(16) unsigned char sbuf[DYN ? 1 : BUF];
    __shared__ __align__(16) unsigned char svbuf[SPLIT && !DYN ? TILE * sizeof(V) : 1];
    unsigned char* const buf = DYN ? dyn : sbuf;
    unsigned char* const vbuf = DYN ? dyn + BUF : svbuf;
    __shared__ u32 offsets[WARPS][BINS + 1];
    __shared__ S base[BINS];
    __shared__ u32 sums[WARPS];
    __shared__ unsigned char sdig[VALUES && !SPLIT ? TILE : 1];

    const Order<K> order(kind);
    const u32 lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const u32 lower = (1u << lane) - 1;
    const u32 run = warp * 32 * ITEMS + lane;  // this thread's first key in a tile
    u32* count = offsets[warp];
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const u64 tile_start = t * TILE;
        const u32 here = tile_keys<TILE>(n, t);
        const S next = starts[t * BINS + threadIdx.x];
        K keys[ITEMS];
        V vals[ITEMS];
        load_run<K, ITEMS>(keys, kin + tile_start + run, run, here);
        if constexpr (VALUES) load_run<V, ITEMS>(vals, vin + tile_start + run, run, here);
        for (u32 b = lane; b < BINS; b += 32) count[b] = 0;
        __syncwarp();
        u32 rank[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const u32 d = run + j * 32 < here ? order.digit(keys[j], shift) : BINS - 1;
            const u32 peers = peers_of(d);
            const u32 leader = 31 - __clz(peers);
            u32 before = 0;
            if (lane == leader) before = atomicAdd(&count[d], __popc(peers));
            before = __shfl_sync(ALL, before, leader);
            rank[j] = (before + __popc(peers & lower)) | (d << 16);
        }
        __syncthreads();
        {
            // Thread v owns value v: the warps' counts become offsets in the tile.
            const u32 v = threadIdx.x;
            u32 c[WARPS];
            u32 sum = 0;
#pragma unroll
            for (int w = 0; w < WARPS; ++w) {
                c[w] = offsets[w][v];
                sum += c[w];
            }
            u32 at = block_exclusive<u32>(sum, sums);
            base[v] = next - (S)at;
#pragma unroll
            for (int w = 0; w < WARPS; ++w) {
                offsets[w][v] = at;
                at += c[w];
            }
        }
        __syncthreads();
        K* skeys = reinterpret_cast<K*>(buf);
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const u32 d = rank[j] >> 16;
            rank[j] = (rank[j] & 0xffffu) + offsets[warp][d];
            skeys[rank[j]] = keys[j];
            if constexpr (SPLIT) reinterpret_cast<V*>(vbuf)[rank[j]] = vals[j];
        }
        __syncthreads();
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) {
            const u32 i = threadIdx.x + j * THREADS;
            if (i < here) {
                const K k = skeys[i];
                const u32 d = order.digit(k, shift);
                kout[base[d] + (S)i] = k;
                if constexpr (SPLIT) vout[base[d] + (S)i] = reinterpret_cast<const V*>(vbuf)[i];
                if constexpr (VALUES && !SPLIT) sdig[i] = (unsigned char)d;
            }
        }
        if constexpr (VALUES && !SPLIT) {
            __syncthreads();
            V* svals = reinterpret_cast<V*>(buf);
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) svals[rank[j]] = vals[j];
            __syncthreads();
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) {
                const u32 i = threadIdx.x + j * THREADS;
                if (i < here) vout[base[sdig[i]] + (S)i] = svals[i];
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

/// The `up` entries, by key width (4, 8), value width (none, 4, 8: they set the tile), count width
/// (4, 8).
const UPS: [&str; 12] = [
    "fk_sort_up_k4_v0_c4",
    "fk_sort_up_k4_v0_c8",
    "fk_sort_up_k4_v4_c4",
    "fk_sort_up_k4_v4_c8",
    "fk_sort_up_k4_v8_c4",
    "fk_sort_up_k4_v8_c8",
    "fk_sort_up_k8_v0_c4",
    "fk_sort_up_k8_v0_c8",
    "fk_sort_up_k8_v4_c4",
    "fk_sort_up_k8_v4_c8",
    "fk_sort_up_k8_v8_c4",
    "fk_sort_up_k8_v8_c8",
];

/// The scans' entries (`scan_ranges`, `scan_tiles`), by count width (4, 8).
const SCANS: [[&str; 2]; 2] = [
    ["fk_sort_scan_ranges_c4", "fk_sort_scan_tiles_c4"],
    ["fk_sort_scan_ranges_c8", "fk_sort_scan_tiles_c8"],
];

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

/// The kernels of one sort: `up`, the two scans and `down` for its widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Entries {
    pub(crate) up: &'static str,
    pub(crate) scan_ranges: &'static str,
    pub(crate) scan_tiles: &'static str,
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
        up: UPS[k * 6 + v * 2 + c],
        scan_ranges: SCANS[c][0],
        scan_tiles: SCANS[c][1],
        down: DOWNS[k * 6 + v * 2 + c],
    })
}

/// The gather entry for elements of alignment `align` (words of 1, 2, 4 or 8 bytes).
pub(crate) fn gather_entry(align: usize) -> &'static str {
    GATHERS[crate::backend::gpu::builtin::word_bytes(align).trailing_zeros() as usize]
}

/// The C++ entry `name` with 64-bit parameters `params`, whose body is `body`.
fn entry(name: &str, params: &[&str], body: &str) -> String {
    entry_bounded(name, 1, params, body)
}

/// [`entry`], asking the compiler to fit `blocks` blocks on a multiprocessor (its registers).
fn entry_bounded(name: &str, blocks: u32, params: &[&str], body: &str) -> String {
    let list: Vec<String> = params
        .iter()
        .map(|p| format!("const fks::u64 {p}"))
        .collect();
    format!(
        "extern \"C\" __global__ void __launch_bounds__(256, {blocks}) {name}({}) {{\n    \
         {body}\n}}\n",
        list.join(", ")
    )
}

/// Every entry's C++ text.
fn entry_texts() -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for (k, (kb, kt)) in KEYS.iter().enumerate() {
        for (c, (_, ct)) in COUNTS.iter().enumerate() {
            for (v, (vb, vt)) in VALUES.iter().enumerate() {
                let items = items_for(*kb, *vb);
                let up = UPS[k * 6 + v * 2 + c];
                let body = format!(
                    "fks::up<{kt}, {ct}, {items}>((const {kt}*)keys, n, (fks::u32)kind, \
                     (fks::u32)shift, ({ct}*)counts, tiles);"
                );
                let params = ["keys", "n", "kind", "shift", "counts", "tiles"];
                out.push((up, entry(up, &params, &body)));
                let down = DOWNS[k * 6 + v * 2 + c];
                let dynamic = down_dynamic_shared(*kb, *vb) > 0;
                let body = format!(
                    "fks::down<{kt}, {vt}, {ct}, {items}, {dynamic}>((const {kt}*)kin, ({kt}*)kout, \
                     (const {vt}*)vin, ({vt}*)vout, n, (fks::u32)kind, (fks::u32)shift, \
                     (const {ct}*)starts, tiles);"
                );
                let params = [
                    "kin", "kout", "vin", "vout", "n", "kind", "shift", "starts", "tiles",
                ];
                let blocks = DOWN_BLOCKS[usize::from(*vb > 0)];
                out.push((down, entry_bounded(down, blocks, &params, &body)));
            }
        }
    }
    for (c, (_, ct)) in COUNTS.iter().enumerate() {
        let [ranges, tiles] = SCANS[c];
        let body = format!("fks::scan_ranges<{ct}>((const {ct}*)counts, tiles, ({ct}*)sums);");
        out.push((ranges, entry(ranges, &["counts", "tiles", "sums"], &body)));
        let body = format!("fks::scan_tiles<{ct}>(({ct}*)counts, tiles, (const {ct}*)sums);");
        out.push((tiles, entry(tiles, &["counts", "tiles", "sums"], &body)));
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
