//! The CUDA C++ of the hand-written peer of `stencil --compare` on Cuda (`cuda_peer.rs` runs it):
//! the kernels as a CUDA programmer writes them for a row-major grid with one halo layer, with
//! `int` indices and two-dimensional blocks, one thread per interior cell (x along the rows'
//! cells, y along the rows).
//!
//! Reductions (the dot products, and TeaLeaf-shaped CG's operator and update, which also write
//! their fields) walk the rows grid-stride in y on a grid that fills the device once, reduce each
//! block's values with warp shuffles, write one partial value per block, and the last block to
//! finish (an atomic counter, which wraps back to 0 for the next launch) adds the partial values in
//! block order and writes the sum into page-locked host memory mapped for the device: one launch
//! and a stream synchronization per reduction, as ferrokkos' reductions.
//!
//! Each kernel does the arithmetic of `problem.rs` in its order; NVRTC compiles with
//! `--fmad=false` (`ferrokkos::nvrtc::compile_cubin`), as for ferrokkos' kernels, so the sweep's
//! fields agree bit for bit.

use super::problem::{C0, C1, C2};

/// Threads per block in x (along a row): a warp.
pub const BLOCK_X: u32 = 32;

/// Threads per block in y (rows).
pub const BLOCK_Y: u32 = 8;

/// The peer's CUDA C++.
pub fn source() -> String {
    format!(
        r#"// Hand-written CUDA peers of `ferrokkos stencil --compare`.
#define C0 {C0:?}
#define C1 {C1:?}
#define C2 {C2:?}
#define BX {BLOCK_X}
#define BY {BLOCK_Y}
#define IDX(i, j) ((i) * w + (j))

// The interior cell of this thread: row i (y), column j (x), both from 1; false outside.
__device__ __forceinline__ bool cell(int n, int& i, int& j) {{
    j = blockIdx.x * BX + threadIdx.x + 1;
    i = blockIdx.y * BY + threadIdx.y + 1;
    return i <= n && j <= n;
}}

__device__ __forceinline__ long long rhs(long long i, long long j) {{ return (i * 5 + j * 3) % 17; }}

// The sweep's start value on every cell (halo included).
extern "C" __global__ void sweep_init(double* u, double* v, int n) {{
    const int w = n + 2;
    const int j = blockIdx.x * BX + threadIdx.x, i = blockIdx.y * BY + threadIdx.y;
    if (i >= w || j >= w) return;
    const double s = (double)(((long long)i * 7 + (long long)j * 13) % 32) / 32.0;
    u[IDX(i, j)] = s;
    v[IDX(i, j)] = s;
}}

extern "C" __global__ void sweep(const double* __restrict__ u, double* __restrict__ v, int n) {{
    int i, j;
    if (!cell(n, i, j)) return;
    const int w = n + 2;
    v[IDX(i, j)] = C0 * u[IDX(i, j)]
        + C1 * (u[IDX(i - 1, j)] + u[IDX(i + 1, j)] + u[IDX(i, j - 1)] + u[IDX(i, j + 1)])
        + C2 * (u[IDX(i - 1, j - 1)] + u[IDX(i - 1, j + 1)] + u[IDX(i + 1, j - 1)]
                + u[IDX(i + 1, j + 1)]);
}}

// x = 0, r = p = b (0 on the halo), ap = 0, on every cell; TeaLeaf-shaped CG's fields likewise.
extern "C" __global__ void cg_reset(double* x, double* r, double* p, double* ap, int n) {{
    const int w = n + 2;
    const int j = blockIdx.x * BX + threadIdx.x, i = blockIdx.y * BY + threadIdx.y;
    if (i >= w || j >= w) return;
    const bool inside = i >= 1 && i <= n && j >= 1 && j <= n;
    const double b = inside ? (double)rhs(i, j) / 16.0 - 0.5 : 0.0;
    x[IDX(i, j)] = 0.0;
    r[IDX(i, j)] = b;
    p[IDX(i, j)] = b;
    ap[IDX(i, j)] = 0.0;
}}

extern "C" __global__ void tea_init(double* kx, double* ky, int n) {{
    const int w = n + 2;
    const int j = blockIdx.x * BX + threadIdx.x, i = blockIdx.y * BY + threadIdx.y;
    if (i >= w || j >= w) return;
    kx[IDX(i, j)] = 0.25 + (double)(((long long)i * 3 + (long long)j * 5) % 16) / 64.0;
    ky[IDX(i, j)] = 0.25 + (double)(((long long)i * 7 + (long long)j * 3) % 16) / 64.0;
}}

extern "C" __global__ void cg_apply(const double* __restrict__ p, double* __restrict__ ap, int n) {{
    int i, j;
    if (!cell(n, i, j)) return;
    const int w = n + 2;
    ap[IDX(i, j)] = 4.0 * p[IDX(i, j)]
        - (p[IDX(i - 1, j)] + p[IDX(i + 1, j)] + p[IDX(i, j - 1)] + p[IDX(i, j + 1)]);
}}

extern "C" __global__ void cg_axpy(double* __restrict__ y, const double* __restrict__ x, double a,
                                   int n) {{
    int i, j;
    if (!cell(n, i, j)) return;
    const int w = n + 2;
    y[IDX(i, j)] += a * x[IDX(i, j)];
}}

extern "C" __global__ void cg_direction(double* __restrict__ p, const double* __restrict__ r,
                                        double beta, int n) {{
    int i, j;
    if (!cell(n, i, j)) return;
    const int w = n + 2;
    p[IDX(i, j)] = r[IDX(i, j)] + beta * p[IDX(i, j)];
}}

// The sum of v over the block's threads, in thread 0.
__device__ __forceinline__ double block_sum(double v) {{
    __shared__ double warps[BX * BY / 32];
    const int t = threadIdx.y * BX + threadIdx.x;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((t & 31) == 0) warps[t >> 5] = v;
    __syncthreads();
    v = t < BX * BY / 32 ? warps[t] : 0.0;
    if (t < 32) {{
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    }}
    return v;
}}

// Writes the block's sum to partials; the last block adds them in block order into *result.
__device__ __forceinline__ void finish(double v, double* partials, unsigned* done,
                                       double* result) {{
    __shared__ bool last;
    const int t = threadIdx.y * BX + threadIdx.x;
    const unsigned blocks = gridDim.x * gridDim.y, b = blockIdx.y * gridDim.x + blockIdx.x;
    v = block_sum(v);
    if (t == 0) {{
        partials[b] = v;
        __threadfence();
        last = atomicInc(done, blocks - 1) == blocks - 1;
    }}
    __syncthreads();
    if (!last) return;
    __threadfence();
    double s = 0.0;
    for (unsigned k = t; k < blocks; k += BX * BY) s += ((volatile double*)partials)[k];
    s = block_sum(s);
    if (t == 0) *result = s;
}}

// The rows of this thread in a reduction: from its first interior row, grid-stride in y.
#define REDUCE_ROWS(body)                                                        \
    const int w = n + 2;                                                         \
    const int j = blockIdx.x * BX + threadIdx.x + 1;                             \
    double acc = 0.0;                                                            \
    if (j <= n) {{                                                                \
        for (int i = blockIdx.y * BY + threadIdx.y + 1; i <= n; i += gridDim.y * BY) {{ body; }} \
    }}                                                                           \
    finish(acc, partials, done, result);

extern "C" __global__ void cg_dot(const double* __restrict__ a, const double* __restrict__ b,
                                  int n, double* partials, unsigned* done, double* result) {{
    REDUCE_ROWS(acc += a[IDX(i, j)] * b[IDX(i, j)])
}}

// TeaLeaf's operator at (i, j), in its order of operations.
__device__ __forceinline__ double smvp(const double* __restrict__ kx,
                                       const double* __restrict__ ky,
                                       const double* __restrict__ p, int w, int i, int j) {{
    return (1.0 + (kx[IDX(i + 1, j)] + kx[IDX(i, j)]) + (ky[IDX(i, j + 1)] + ky[IDX(i, j)]))
               * p[IDX(i, j)]
        - (kx[IDX(i + 1, j)] * p[IDX(i + 1, j)] + kx[IDX(i, j)] * p[IDX(i - 1, j)])
        - (ky[IDX(i, j + 1)] * p[IDX(i, j + 1)] + ky[IDX(i, j)] * p[IDX(i, j - 1)]);
}}

// w = A p, and p . w.
extern "C" __global__ void tea_w(const double* __restrict__ kx, const double* __restrict__ ky,
                                 const double* __restrict__ p, double* __restrict__ wv, int n,
                                 double* partials, unsigned* done, double* result) {{
    REDUCE_ROWS(const double a = smvp(kx, ky, p, w, i, j); wv[IDX(i, j)] = a;
                acc += p[IDX(i, j)] * a)
}}

// u += alpha p, r -= alpha w, and r . r.
extern "C" __global__ void tea_ur(double* __restrict__ u, double* __restrict__ r,
                                  const double* __restrict__ p, const double* __restrict__ wv,
                                  double alpha, int n, double* partials, unsigned* done,
                                  double* result) {{
    REDUCE_ROWS(u[IDX(i, j)] += alpha * p[IDX(i, j)];
                const double ri = r[IDX(i, j)] - alpha * wv[IDX(i, j)]; r[IDX(i, j)] = ri;
                acc += ri * ri)
}}
"#
    )
}
