// ferrokkos device header: block-level reduce and scan.
// One part of the header; `kernel/device_header.rs` joins the parts in order (see types.cuh).

namespace fk {

// ---------------------------------------------------------------------------------------------------
// Block-level reduce and exclusive scan for the entry kernels: one 1-D block of blockDim.x <= 1024
// threads, every thread calls. Joins keep thread order (the lower-indexed side is always dst), so the
// result depends only on blockDim.x, never on timing. Values go through warp shuffles (any trivially
// copyable value_type, moved in 32-bit words) and one shared-memory slot per warp. The warp is the
// target's (FK_WARP: 32 on NVIDIA GPUs, 64 or 32 on AMD ones, from the target prelude).
// ---------------------------------------------------------------------------------------------------

namespace detail {

template <class T>
union words {
  T value;
  u32 word[(sizeof(T) + 3) / 4];
};

// A warp shuffle of any trivially copyable T: `shuffle` moves one 32-bit word.
template <class T, class Shuffle>
__device__ __forceinline__ T shfl_words(const T& v, Shuffle shuffle) {
  words<T> w;
  w.value = v;
#pragma unroll
  for (unsigned k = 0; k < sizeof(w.word) / 4; ++k) w.word[k] = shuffle(w.word[k]);
  return w.value;
}

// Shuffles of any trivially copyable T over the lanes in `mask` (`width`: the shuffle's segment, a
// power of two up to the warp), through the target prelude's one-word shuffles (`shfl_*_word`).
template <class T>
__device__ __forceinline__ T shfl_down(const T& v, unsigned delta, lanemask mask,
                                       unsigned width = FK_WARP) {
  return shfl_words(v, [&](u32 x) { return shfl_down_word(mask, x, delta, width); });
}
template <class T>
__device__ __forceinline__ T shfl_up(const T& v, unsigned delta, lanemask mask,
                                     unsigned width = FK_WARP) {
  return shfl_words(v, [&](u32 x) { return shfl_up_word(mask, x, delta, width); });
}
template <class T>
__device__ __forceinline__ T shfl_xor(const T& v, unsigned delta, lanemask mask,
                                      unsigned width = FK_WARP) {
  return shfl_words(v, [&](u32 x) { return shfl_xor_word(mask, x, delta, width); });
}
template <class T>
__device__ __forceinline__ T shfl_idx(const T& v, unsigned src, lanemask mask, unsigned width) {
  return shfl_words(v, [&](u32 x) { return shfl_idx_word(mask, x, src, width); });
}

// How many threads this thread's warp has in the block (the last warp may be partial), and the
// shuffle mask of those lanes.
__device__ __forceinline__ unsigned warp_lanes() {
  const unsigned n = blockDim.x - (threadIdx.x & ~(FK_WARP - 1u));
  return n >= FK_WARP ? FK_WARP : n;
}
__device__ __forceinline__ lanemask lane_mask(unsigned lanes) {
  return lanes >= FK_WARP ? ~(lanemask)0 : (((lanemask)1 << lanes) - 1u);
}

// Where this thread is: its lane, its warp, the block's warps, its warp's lanes and their mask.
struct warp_place {
  unsigned lane, warp, warps, lanes;
  lanemask mask;
};
__device__ __forceinline__ warp_place this_warp() {
  const unsigned lanes = warp_lanes();
  return warp_place{threadIdx.x & (FK_WARP - 1u), threadIdx.x >> FK_WARP_SHIFT,
                    (blockDim.x + FK_WARP - 1u) >> FK_WARP_SHIFT, lanes, lane_mask(lanes)};
}

// After it, lane 0 holds the in-order join of the values of lanes [0, valid). `mask` holds every lane
// of the warp that exists (all must call); valid <= their number.
template <class Red>
__device__ __forceinline__ void warp_reduce(typename Red::value_type& v, unsigned lane, lanemask mask,
                                            unsigned valid) {
#pragma unroll
  for (unsigned d = 1; d < FK_WARP; d *= 2) {
    // Lanes that are multiples of 2d hold the join of [lane, lane + d) and join [lane + d, lane + 2d).
    const typename Red::value_type higher = shfl_down(v, d, mask);
    if (lane + d < valid) Red::join(v, higher);
  }
}

// After it, lane i holds the in-order join of the values of lanes 0..=i (inclusive scan). `mask`
// holds every lane of the warp that exists (all must call).
template <class Red>
__device__ __forceinline__ void warp_inclusive_scan(typename Red::value_type& v, unsigned lane,
                                                    lanemask mask) {
#pragma unroll
  for (unsigned d = 1; d < FK_WARP; d *= 2) {
    // Lane i holds [i - d + 1, i] and gets [i - 2d + 1, i - d] from lane i - d.
    typename Red::value_type lower = shfl_up(v, d, mask);
    if (lane >= d) {
      Red::join(lower, v);  // the lower lanes are dst
      v = lower;
    }
  }
}

}  // namespace detail

/// Reduces the block's values: afterwards thread 0's `v` is the join of every thread's `v` in thread
/// order (other threads' `v` are unspecified). `smem` is shared memory of blockDim.x values (one per
/// warp is used). Every thread of the block must call it (it contains __syncthreads()); `smem` may be
/// reused when it returns.
template <class Red>
__device__ __forceinline__ void block_reduce(typename Red::value_type& v,
                                             typename Red::value_type* smem) {
  const auto [lane, warp, warps, lanes, mask] = detail::this_warp();
  detail::warp_reduce<Red>(v, lane, mask, lanes);
  if (warps > 1u) {  // uniform over the block
    if (lane == 0u) smem[warp] = v;
    __syncthreads();
    if (warp == 0u) {  // a full warp here, since there are several
      if (lane < warps) v = smem[lane];
      detail::warp_reduce<Red>(v, lane, mask, warps);
    }
    __syncthreads();
  }
}

/// Exclusive scan over the block: returns the join of the values of all lower-indexed threads, in
/// thread order (the identity for thread 0), and sets `total` (in every thread) to the join of all.
/// `smem` is shared memory of blockDim.x values (one per warp is used). Every thread of the block must
/// call it (it contains __syncthreads()); `smem` may be reused when it returns.
template <class Red>
__device__ __forceinline__ typename Red::value_type block_exclusive_scan(
    typename Red::value_type v, typename Red::value_type* smem, typename Red::value_type& total) {
  typedef typename Red::value_type T;
  const auto [lane, warp, warps, lanes, mask] = detail::this_warp();

  // Inclusive scan in the warp; a lane's exclusive value is its lower neighbour's inclusive one.
  T inclusive = v;
  detail::warp_inclusive_scan<Red>(inclusive, lane, mask);
  const T exclusive = detail::shfl_up(inclusive, 1u, mask);

  // The warps' totals go to smem[warp]; warp 0 replaces them by their inclusive scan. Each lane
  // reads and writes only its own slot, so warp 0 needs no barrier between the two.
  if (lane == lanes - 1u) smem[warp] = inclusive;
  __syncthreads();
  if (warp == 0u) {
    T t = lane < warps ? smem[lane] : Red::identity();
    detail::warp_inclusive_scan<Red>(t, lane, mask);
    if (lane < warps) smem[lane] = t;
  }
  __syncthreads();

  total = smem[warps - 1u];
  T result;
  if (warp == 0u) {
    result = lane == 0u ? Red::identity() : exclusive;
  } else {
    result = smem[warp - 1u];  // the join of all lower warps
    if (lane != 0u) Red::join(result, exclusive);
  }
  __syncthreads();
  return result;
}

}  // namespace fk
