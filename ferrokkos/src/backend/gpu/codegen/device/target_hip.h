// ferrokkos device header: the HIP target prelude (hiprtc, AMD GPUs).
// One part of the header; `codegen/header.rs` joins the parts in order (see types.cuh). The parts
// after it are the same text for every target; what differs between CUDA and HIP is here only:
// the warp's width, the type of a set of its lanes, and one-word shuffles over such a set.

// A wavefront is 64 lanes on CDNA GPUs (gfx908, gfx90a, gfx942: MI100, MI250X, MI300) and 32 on
// RDNA ones (gfx1030); the compiler says which for the target it compiles for.
#define FK_WARP ((unsigned)__AMDGCN_WAVEFRONT_SIZE)
#if __AMDGCN_WAVEFRONT_SIZE == 64
#define FK_WARP_SHIFT 6u
#else
#define FK_WARP_SHIFT 5u
#endif

// HIP 5.2 has no atomicMin / atomicMax for a signed 64-bit integer: a compare-and-swap loop.
#define FK_ATOMIC_MINMAX_I64 0

namespace fk {
namespace detail {

// A set of lanes of a wavefront (up to 64).
typedef u64 lanemask;

// One 32-bit word from lane `lane + delta` (down), `lane - delta` (up), `lane ^ delta` (xor) or
// `src` (idx) of this lane's `width`-lane segment. AMD's shuffles take no lane mask: the lanes of
// `mask` are the ones that call (the same contract as CUDA's `_sync` shuffles), and a source lane
// outside the segment gives the caller's own value, as on CUDA.
__device__ __forceinline__ u32 shfl_down_word(lanemask mask, u32 x, unsigned delta, unsigned width) {
  (void)mask;
  return __shfl_down(x, delta, (int)width);
}
__device__ __forceinline__ u32 shfl_up_word(lanemask mask, u32 x, unsigned delta, unsigned width) {
  (void)mask;
  return __shfl_up(x, delta, (int)width);
}
__device__ __forceinline__ u32 shfl_xor_word(lanemask mask, u32 x, unsigned delta, unsigned width) {
  (void)mask;
  return __shfl_xor(x, (int)delta, (int)width);
}
__device__ __forceinline__ u32 shfl_idx_word(lanemask mask, u32 x, unsigned src, unsigned width) {
  (void)mask;
  return __shfl(x, (int)src, (int)width);
}

// A word loaded with acquire ordering (the accesses after it see what the thread that stored it
// with release ordering wrote before), and a word stored with release ordering.
__device__ __forceinline__ u32 load_acquire(const u32* p) {
  return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
__device__ __forceinline__ void store_release(u32* p, u32 v) {
  __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

}  // namespace detail
}  // namespace fk
