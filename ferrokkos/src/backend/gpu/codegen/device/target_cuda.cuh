// ferrokkos device header: the CUDA target prelude (NVRTC, NVIDIA GPUs).
// One part of the header; `codegen/header.rs` joins the parts in order (see types.cuh). The parts
// after it are the same text for every target; what differs between CUDA and HIP is here only:
// the warp's width, the type of a set of its lanes, and one-word shuffles over such a set.

// A warp is 32 lanes on every NVIDIA GPU.
#define FK_WARP 32u
#define FK_WARP_SHIFT 5u

// atomicMin / atomicMax on a signed 64-bit integer are instructions (sm_35 on).
#define FK_ATOMIC_MINMAX_I64 1

namespace fk {
namespace detail {

// A set of lanes of a warp (the `mask` of CUDA's `_sync` shuffles).
typedef u32 lanemask;

// One 32-bit word from lane `lane + delta` (down), `lane - delta` (up), `lane ^ delta` (xor) or
// `src` (idx) of this lane's `width`-lane segment; every lane in `mask` must call.
__device__ __forceinline__ u32 shfl_down_word(lanemask mask, u32 x, unsigned delta, unsigned width) {
  return __shfl_down_sync(mask, x, delta, width);
}
__device__ __forceinline__ u32 shfl_up_word(lanemask mask, u32 x, unsigned delta, unsigned width) {
  return __shfl_up_sync(mask, x, delta, width);
}
__device__ __forceinline__ u32 shfl_xor_word(lanemask mask, u32 x, unsigned delta, unsigned width) {
  return __shfl_xor_sync(mask, x, delta, width);
}
__device__ __forceinline__ u32 shfl_idx_word(lanemask mask, u32 x, unsigned src, unsigned width) {
  return __shfl_sync(mask, x, src, width);
}

// A word loaded with acquire ordering at device scope (the accesses after it see what the thread
// that stored it with release ordering wrote before), and a word stored with release ordering.
// Volta and later have the instructions; older GPUs a volatile access and a fence.
__device__ __forceinline__ u32 load_acquire(const u32* p) {
#if __CUDA_ARCH__ >= 700
  u32 v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
#else
  const u32 v = *(const volatile u32*)p;
  __threadfence();
  return v;
#endif
}
__device__ __forceinline__ void store_release(u32* p, u32 v) {
#if __CUDA_ARCH__ >= 700
  asm volatile("st.release.gpu.global.u32 [%0], %1;" : : "l"(p), "r"(v) : "memory");
#else
  __threadfence();
  *(volatile u32*)p = v;
#endif
}

}  // namespace detail
}  // namespace fk
