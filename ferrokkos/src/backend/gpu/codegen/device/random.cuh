// ferrokkos device header: random pools (Kokkos' `Random_XorShift64_Pool` and
// `Random_XorShift1024_Pool`), an optional part (`codegen/header.rs` includes it when a program
// names `fk::RandomPool`).
//
// A pool is one array of 64-bit words: word j of state i at `words[i * state_stride + j *
// word_stride]` (on a GPU `state_stride` 1 and `word_stride` the number of states, so that a warp's
// states are read together), word 0 the state's lock, then the generator's words. `RandHold`
// takes a free state when it is made (Kokkos' `get_state`: from the thread's global number modulo
// the states, stepping by the block's size, taking a lock by compare-exchange), keeps its
// generator in registers, and when it is destroyed (or by `release()`, Kokkos' `free_state`)
// writes the generator back and frees the lock. `__threadfence` after the take and before the
// free orders the holder's accesses after the previous holder's. A thread holds at most one state
// of a pool at a time (`kernel!` refuses a second `get_state` while one is held).
//
// The draws are Kokkos' formulas, as `algorithms/random/draw.rs` writes them for the host; with
// `--fmad=false` both sides give the same bits (but for `normal`, whose `log` and `cos` are each
// side's own).

namespace fk {

/// Kokkos' `Random_XorShift64`.
struct XorShift64 {
  static constexpr u64 MULTIPLIER = 2685821657736338717ull;
  u64 s;
  __device__ __forceinline__ void load(const u64* w, usize) {
    s = w[0];
    if (s == 0ull) s = 1318319ull;
  }
  __device__ __forceinline__ void store(u64* w, usize) const { w[0] = s; }
  __device__ __forceinline__ u64 step() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s;
  }
};

/// Kokkos' `Random_XorShift1024`, its sixteen words kept rotated so that `r[0]` is the word at the
/// position `p`: every index is then a constant, and the words stay in registers (an array indexed
/// by `p` would live in local memory). A step reads `r[0]` and `r[1]` and rotates by one, with the
/// new word first (Kokkos writes it at position `p + 1`, which becomes `p`).
struct XorShift1024 {
  static constexpr u64 MULTIPLIER = 1181783497276652981ull;
  u64 r[16];
  u32 p;
  __device__ __forceinline__ void load(const u64* w, usize stride) {
    p = (u32)(w[16 * stride] & 15ull);
#pragma unroll
    for (u32 j = 0; j < 16u; ++j) r[j] = w[((p + j) & 15u) * stride];
  }
  __device__ __forceinline__ void store(u64* w, usize stride) const {
#pragma unroll
    for (u32 j = 0; j < 16u; ++j) w[((p + j) & 15u) * stride] = r[j];
    w[16 * stride] = (u64)p;
  }
  __device__ __forceinline__ u64 step() {
    const u64 s0 = r[0];
    u64 s1 = r[1];
    s1 ^= s1 << 31;
    s1 ^= s1 >> 11;
    const u64 out = s0 ^ (s0 >> 30) ^ s1;
#pragma unroll
    for (int j = 1; j < 15; ++j) r[j] = r[j + 1];
    r[15] = s0;
    r[0] = out;
    p = (p + 1u) & 15u;
    return out;
  }
};

/// A kernel's random pool parameter (`G`: its generator).
template <class G>
struct RandomPool {
  u64* words;
  usize states;
  usize state_stride;
  usize word_stride;
};

/// One held state of a random pool (a kernel's `let mut rng = pool.get_state();`) and its draws.
template <class G>
class RandHold {
  u64* lock_;
  usize stride_;
  G gen_;

 public:
  __device__ explicit RandHold(const RandomPool<G>& pool) : lock_(nullptr), stride_(pool.word_stride) {
    const usize threads = (usize)blockDim.x * blockDim.y * blockDim.z;
    const usize block = (usize)blockIdx.x + (usize)gridDim.x * ((usize)blockIdx.y + (usize)gridDim.y * blockIdx.z);
    const usize thread = threadIdx.x + (usize)blockDim.x * (threadIdx.y + (usize)blockDim.y * threadIdx.z);
    usize i = (block * threads + thread) % pool.states;
    for (;;) {
      u64* const lock = pool.words + i * pool.state_stride;
      if (*(volatile u64*)lock == 0ull && ::atomicCAS((unsigned long long*)lock, 0ull, 1ull) == 0ull) {
        lock_ = lock;
        break;
      }
      i += threads;
      if (i >= pool.states) i = thread % pool.states;
    }
    __threadfence();
    gen_.load(lock_ + stride_, stride_);
  }

  /// Writes the generator back and frees the state (Kokkos' `pool.free_state(rng)`); a second call
  /// does nothing.
  __device__ void release() {
    if (lock_ != nullptr) {
      gen_.store(lock_ + stride_, stride_);
      __threadfence();
      ::atomicExch((unsigned long long*)lock_, 0ull);
      lock_ = nullptr;
    }
  }

  __device__ ~RandHold() { release(); }

  RandHold(const RandHold&) = delete;
  RandHold& operator=(const RandHold&) = delete;

  __device__ __forceinline__ u32 urand() { return (u32)((gen_.step() * G::MULTIPLIER) >> 16); }
  __device__ __forceinline__ u64 urand64() { return gen_.step() * G::MULTIPLIER - 1ull; }
  __device__ u32 urand_below(u32 range) {
    if (range == 0u) return 0u;
    const u32 max = (0xffffffffu / range) * range;
    for (;;) {
      const u32 v = urand();
      if (v < max) return v % range;
    }
  }
  __device__ u32 urand_between(u32 start, u32 end) { return urand_below(end - start) + start; }
  __device__ u64 urand64_below(u64 range) {
    if (range == 0ull) return 0ull;
    const u64 max = (0xffffffffffffffffull / range) * range;
    for (;;) {
      const u64 v = urand64();
      if (v < max) return v % range;
    }
  }
  __device__ u64 urand64_between(u64 start, u64 end) { return urand64_below(end - start) + start; }
  __device__ __forceinline__ i32 rand() { return (i32)(urand() / 2u); }
  __device__ i32 rand_below(i32 range) {
    if (range <= 0) return 0;
    const i32 max = (2147483647 / range) * range;
    for (;;) {
      const i32 v = rand();
      if (v < max) return v % range;
    }
  }
  __device__ i32 rand_between(i32 start, i32 end) {
    return (i32)((u32)rand_below((i32)((u32)end - (u32)start)) + (u32)start);
  }
  __device__ __forceinline__ i64 rand64() { return (i64)(urand64() / 2ull); }
  __device__ i64 rand64_below(i64 range) {
    if (range <= 0) return 0;
    const i64 max = (9223372036854775807ll / range) * range;
    for (;;) {
      const i64 v = rand64();
      if (v < max) return v % range;
    }
  }
  __device__ i64 rand64_between(i64 start, i64 end) {
    return (i64)((u64)rand64_below((i64)((u64)end - (u64)start)) + (u64)start);
  }
  __device__ __forceinline__ f32 frand_below(f32 range) {
    return range * (f32)urand64() / (f32)18446744073709551615ull;
  }
  __device__ __forceinline__ f32 frand() { return frand_below(1.0f); }
  __device__ __forceinline__ f32 frand_between(f32 start, f32 end) { return frand_below(end - start) + start; }
  __device__ __forceinline__ f64 drand_below(f64 range) {
    return range * (f64)urand64() / (f64)18446744073709551615ull;
  }
  __device__ __forceinline__ f64 drand() { return drand_below(1.0); }
  __device__ __forceinline__ f64 drand_between(f64 start, f64 end) { return drand_below(end - start) + start; }
  __device__ f64 normal() {
    const f64 u = drand_below(1.0);
    const f64 v = drand_below(1.0);
    const f64 r = ::sqrt(-2.0 * ::log(u));
    return r * ::cos(v * (2.0 * 3.141592653589793));
  }
  __device__ f64 normal_with(f64 mean, f64 std_dev) { return mean + normal() * std_dev; }
};

}  // namespace fk
