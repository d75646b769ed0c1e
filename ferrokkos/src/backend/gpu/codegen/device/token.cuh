// ferrokkos device header: UniqueToken (Kokkos' `Kokkos::Experimental::UniqueToken`), an optional
// part (`codegen/header.rs` includes it when a program names `fk::UniqueToken`).
//
// A token is a bitset in device memory, one bit per id (`size` ids), zero when free. `TokenHold`
// acquires one id when it is made and releases it when it is destroyed (or by `release()`), so
// an id is held exactly while the kernel's Rust binding is alive, whatever path leaves the scope
// (a `panic!` ends the iteration with `return`). Acquiring sets a free bit with `atomicOr`; the
// bit that the thread set is its own, and no other thread holds that id until it is cleared.
// Each warp starts at its own word (a hash of its global number), each lane at its own bit, so
// that a warp whose word is free takes 32 ids with 32 uncontended bits. `__threadfence` after
// the set and before the clear orders the holder's accesses after the previous holder's.
//
// A thread holds at most one id of a token at a time (`kernel!` refuses a second acquire while
// one is held), and the default size is the device's resident threads, so a free id always
// exists; with a smaller size a thread waits for a holder, which makes progress on its own.

namespace fk {

/// A kernel's UniqueToken parameter: its bitset and its number of ids.
struct UniqueToken {
  u32* bits;
  usize size;
};

/// One held id of a UniqueToken (a kernel's `let id = token.acquire();`).
class TokenHold {
  u32* word_;
  u32 mask_;
  const u32* owner_;

 public:
  /// The id, `0..size`.
  usize index;

  __device__ explicit TokenHold(const UniqueToken& t) : word_(nullptr), mask_(0u), owner_(t.bits), index(0) {
    const u32 words = (u32)((t.size + 31u) / 32u);
    const u32 tail = (u32)(t.size % 32u);
    const usize threads = (usize)blockDim.x * blockDim.y * blockDim.z;
    const usize block = (usize)blockIdx.x + (usize)gridDim.x * ((usize)blockIdx.y + (usize)gridDim.y * blockIdx.z);
    const usize thread = threadIdx.x + (usize)blockDim.x * (threadIdx.y + (usize)blockDim.y * threadIdx.z);
    const usize global = block * threads + thread;
    u32 w = (u32)(((global / 32u) * 2654435761ull) % words);
    const u32 own = (u32)(global % 32u);
    for (;;) {
      const u32 valid = (w + 1u == words && tail != 0u) ? ((1u << tail) - 1u) : 0xffffffffu;
      u32* const p = t.bits + w;
      const u32 free_bits = ~(*(volatile u32*)p) & valid;
      if (free_bits != 0u) {
        const u32 bit = ((free_bits >> own) & 1u) ? own : (u32)(__ffs(free_bits) - 1);
        const u32 mask = 1u << bit;
        if ((atomicOr(p, mask) & mask) == 0u) {
          __threadfence();
          word_ = p;
          mask_ = mask;
          index = (usize)w * 32u + bit;
          return;
        }
        continue;  // another thread took it: look at this word again
      }
      w = (w + 1u == words) ? 0u : w + 1u;
    }
  }

  /// Releases the id (Kokkos' `token.release(id)`); a second call does nothing.
  __device__ void release() {
    if (word_ != nullptr) {
      __threadfence();
      atomicAnd(word_, ~mask_);
      word_ = nullptr;
    }
  }

  __device__ ~TokenHold() { release(); }

  /// The bitset of the token the id is of.
  __device__ const u32* owner() const { return owner_; }

  TokenHold(const TokenHold&) = delete;
  TokenHold& operator=(const TokenHold&) = delete;
};

/// The id `h` as a View coordinate where the race rules rely on it being held from `t`: an id
/// of another token is a fault (the kernel's `panic!`) and a coordinate no View has.
__device__ __forceinline__ usize token_held(const UniqueToken& t, const TokenHold& h) {
  if (h.owner() != t.bits) {
    detail::panic_fault("a UniqueToken id indexes a View that the kernel indexes with another token's ids");
    return ~(usize)0;
  }
  return h.index;
}

}  // namespace fk
