// ferrokkos device header: teams (TeamPolicy), an optional part.
// One part of the header; `codegen/header.rs` joins the parts in order (see types.cuh).

namespace fk {

// ---------------------------------------------------------------------------------------------------
// A league rank runs as one block. Its block is one-dimensional: thread threadIdx.x is vector lane
// threadIdx.x % vector_length of team thread threadIdx.x / vector_length, with vector_length a power
// of two up to the warp (FK_WARP), so that a thread's lanes are consecutive lanes of one warp. The collectives
// below are called by every thread of the block at the same point (they contain __syncthreads()
// or warp shuffles over the lanes that exist), except the vector ones (vector_reduce,
// vector_exclusive_scan, vector_broadcast), which only the lanes of the calling thread must reach
// together (they shuffle within its vector group). Joins keep index order (the lower-indexed side is
// always dst) and every thread computes its result with the same operations on the same operands,
// so all threads get the same bits and the result depends only on the team's shape.
// ---------------------------------------------------------------------------------------------------

/// A team member's view of its team.
///
/// Scratch memory, per level (index 0: the block's dynamic shared memory; 1: this block's slice of
/// a device buffer): `team_scratch[level]` is the team's part, `team_scratch_bytes[level]` bytes
/// (the policy's request rounded up to 8), shared by the whole team; `thread_scratch[level]` is this
/// team thread's part, `thread_scratch_bytes[level]` bytes, shared by its vector lanes. Parts are
/// 8-byte aligned (level 0's team part 16). Null with 0 bytes when the policy asked for none. The
/// memory holds what earlier league ranks of the block left (as in Kokkos); a block's league ranks
/// run one after the other, apart by a barrier.
struct Team {
  u64 league_rank;
  u64 league_size;
  u32 team_size;
  u32 vector_length;
  unsigned char* team_scratch[2];
  u64 team_scratch_bytes[2];
  unsigned char* thread_scratch[2];
  u64 thread_scratch_bytes[2];
  /// This thread's vector lane.
  __device__ __forceinline__ u32 lane() const { return threadIdx.x & (vector_length - 1u); }
  /// This thread's rank in the team.
  __device__ __forceinline__ u32 rank() const { return threadIdx.x / vector_length; }
};

/// Points `t`'s scratch at its parts (the layout of `backend/cuda/team/scratch.rs`): level 0 in
/// `shared` (the block's dynamic shared memory), level 1 in `global` (this block's slice): each the
/// team part of `team_bytes[level]`, then the parts of team threads 0, 1, ... of
/// `thread_bytes[level]` each. `t.vector_length` must be set.
__device__ __forceinline__ void set_scratch(Team& t, unsigned char* shared, unsigned char* global,
                                            u64 team0, u64 thread0, u64 team1, u64 thread1) {
  const u64 r = t.rank();
  unsigned char* base[2] = {shared, global};
  const u64 team_bytes[2] = {team0, team1};
  const u64 thread_bytes[2] = {thread0, thread1};
#pragma unroll
  for (int level = 0; level < 2; ++level) {
    t.team_scratch[level] = team_bytes[level] != 0 ? base[level] : nullptr;
    t.team_scratch_bytes[level] = team_bytes[level];
    t.thread_scratch[level] =
        thread_bytes[level] != 0 ? base[level] + team_bytes[level] + r * thread_bytes[level]
                                 : nullptr;
    t.thread_scratch_bytes[level] = thread_bytes[level];
  }
}

/// A rank-R View with right layout over scratch memory: elements of type T from `base + offset`
/// (bytes; the caller keeps it aligned for T and inside the scratch part), with the extents given
/// (any integer types). The View does not check that it fits the part; the code that carves
/// scratch does.
template <class T, int R, class... E>
__device__ __forceinline__ View<T, R, LayoutRight> scratch_view(unsigned char* base, u64 offset,
                                                                E... extents) {
  static_assert(R >= 1 && sizeof...(E) == R, "fk::scratch_view: rank 1 or more, one extent each");
  View<T, R, LayoutRight> v;
  v.data = reinterpret_cast<T*>(base + offset);
  const usize e[R] = {static_cast<usize>(extents)...};
  usize stride = 1;
#pragma unroll
  for (int k = R - 1; k >= 0; --k) {
    v.extent[k] = e[k];
    v.stride[k] = stride;
    stride *= e[k];
  }
  return v;
}

namespace detail {

/// Shared memory for one value per warp (at most 32: a block has at most 1024 threads and a warp
/// at least 32 lanes), as raw storage (value types need not be
/// trivially constructible).
template <class T>
__device__ __forceinline__ T* warp_slots() {
  alignas(T) __shared__ unsigned char raw[32 * sizeof(T)];
  return reinterpret_cast<T*>(raw);
}

/// The join, in index order, of `v` over the block's threads, in every thread: with `first` 1, of
/// every thread's value; with `first` the vector length, of each team thread's lane-0 value.
template <class Red>
__device__ __forceinline__ typename Red::value_type block_allreduce(typename Red::value_type v,
                                                                    unsigned first) {
  typedef typename Red::value_type T;
  const auto [lane, warp, warps, lanes, mask] = this_warp();
  if (first > 1u) v = shfl_idx(v, lane & ~(first - 1u), mask, FK_WARP);
  // A tree to lane 0 (a warp may be partial, so a butterfly would miss lanes): lanes that are
  // multiples of 2d hold the join of [lane, lane + d) and join [lane + d, lane + 2d).
  for (unsigned d = first; d < FK_WARP; d *= 2u) {
    const T higher = shfl_down(v, d, mask);
    if (lane + d < lanes) Red::join(v, higher);
  }
  if (warps == 1u) {
    v = shfl_idx(v, 0u, mask, FK_WARP);
  } else {  // uniform over the block
    T* slots = warp_slots<T>();
    if (lane == 0u) slots[warp] = v;
    __syncthreads();
    v = slots[0];
    for (unsigned k = 1; k < warps; ++k) Red::join(v, slots[k]);
    __syncthreads();
  }
  return v;
}

/// The shuffle mask of this thread's vector group: the vector_length consecutive lanes
/// `(lane & ~(vector_length - 1)) ..` of its warp (of those that exist in a partial last warp).
/// Vector collectives shuffle over it only: the team threads of one warp may be in different
/// control flow (another trip count of a TeamThreadRange) while a vector collective needs only the
/// thread's own lanes.
__device__ __forceinline__ lanemask vector_mask(const Team& t) {
  const unsigned width = t.vector_length;
  const lanemask group = width >= FK_WARP ? ~(lanemask)0 : (((lanemask)1 << width) - 1u);
  const unsigned first = (threadIdx.x & (FK_WARP - 1u)) & ~(width - 1u);
  return (group << first) & lane_mask(warp_lanes());
}

}  // namespace detail

/// The join, in lane order, of `v` over this thread's vector lanes (Kokkos' reduction over a
/// ThreadVectorRange), in every lane.
template <class Red>
__device__ __forceinline__ typename Red::value_type vector_reduce(const Team& t,
                                                                  typename Red::value_type v) {
  typedef typename Red::value_type T;
  const detail::lanemask mask = detail::vector_mask(t);
  for (unsigned d = 1; d < t.vector_length; d *= 2u) {
    const T other = detail::shfl_xor(v, d, mask);
    if (t.lane() & d) {
      T lower = other;
      Red::join(lower, v);
      v = lower;
    } else {
      Red::join(v, other);
    }
  }
  return v;
}

/// The join, in rank order, of `v` over the team's threads (Kokkos' reduction over a
/// TeamThreadRange: each thread's lanes hold the same value, lane 0's counts), in every thread.
template <class Red>
__device__ __forceinline__ typename Red::value_type team_thread_reduce(const Team& t,
                                                                       typename Red::value_type v) {
  return detail::block_allreduce<Red>(v, t.vector_length);
}

/// The join, in thread-then-lane order, of `v` over every lane of every thread of the team
/// (Kokkos' reduction over a TeamVectorRange), in every thread.
template <class Red>
__device__ __forceinline__ typename Red::value_type team_vector_reduce(const Team& t,
                                                                       typename Red::value_type v) {
  (void)t;
  return detail::block_allreduce<Red>(v, 1u);
}

/// Exclusive scan over this thread's vector lanes: the join of the lower lanes' values (the
/// identity for lane 0); `total` gets the join of all lanes, in every lane.
template <class Red>
__device__ __forceinline__ typename Red::value_type vector_exclusive_scan(
    const Team& t, typename Red::value_type v, typename Red::value_type& total) {
  typedef typename Red::value_type T;
  const detail::lanemask mask = detail::vector_mask(t);
  const unsigned width = t.vector_length;
  T inclusive = v;
  for (unsigned d = 1; d < width; d *= 2u) {
    T lower = detail::shfl_up(inclusive, d, mask, width);
    if (t.lane() >= d) {
      Red::join(lower, inclusive);
      inclusive = lower;
    }
  }
  total = detail::shfl_idx(inclusive, width - 1u, mask, width);
  const T below = detail::shfl_up(inclusive, 1u, mask, width);
  return t.lane() == 0u ? Red::identity() : below;
}

/// Exclusive scan over the team's threads in rank order (each counted by its lane 0's value): the
/// join of the lower ranks' values (the identity for rank 0); `total` gets the join of all,
/// in every thread.
template <class Red>
__device__ __forceinline__ typename Red::value_type team_thread_exclusive_scan(
    const Team& t, typename Red::value_type v, typename Red::value_type& total) {
  typedef typename Red::value_type T;
  const auto [lane, warp, warps, lanes, mask] = detail::this_warp();
  const unsigned width = t.vector_length;
  // Every lane takes its thread's lane-0 value; then inclusive over the warp's ranks (distances
  // are multiples of the vector length).
  T inclusive = detail::shfl_idx(v, lane & ~(width - 1u), mask, FK_WARP);
  for (unsigned d = width; d < FK_WARP; d *= 2u) {
    T lower = detail::shfl_up(inclusive, d, mask, FK_WARP);
    if (lane >= d) {
      Red::join(lower, inclusive);
      inclusive = lower;
    }
  }
  T below = detail::shfl_up(inclusive, width, mask, FK_WARP);
  T exclusive = lane >= width ? below : Red::identity();
  T* slots = detail::warp_slots<T>();
  // The warp's last rank holds the warp's total.
  if (lane == lanes - width) slots[warp] = inclusive;
  __syncthreads();
  T prefix = Red::identity();
  for (unsigned k = 0; k < warp; ++k) Red::join(prefix, slots[k]);
  T all = prefix;
  for (unsigned k = warp; k < warps; ++k) Red::join(all, slots[k]);
  __syncthreads();
  total = all;
  Red::join(prefix, exclusive);
  return prefix;
}

/// `v` as team thread `source` (its lane 0) has it, in every thread (Kokkos' team_broadcast).
/// `source` is the same in every thread (`kernel!` requires it). A source outside the team (where
/// Rust panics) is recorded as a fault, as an index out of bounds is, and gives `T()` everywhere:
/// every thread takes that branch together, so the barriers below stay uniform.
template <class T>
__device__ __forceinline__ T team_broadcast(const Team& t, const T& v, u64 source) {
  if (source >= (u64)t.team_size) {
    if (threadIdx.x == 0) {
      const usize index[1] = {(usize)source};
      const usize extent[1] = {(usize)t.team_size};
      detail::out_of_bounds<1>(4u, index, extent);
    }
    return T();
  }
  alignas(T) __shared__ unsigned char raw[sizeof(T)];
  T* slot = reinterpret_cast<T*>(raw);
  if (threadIdx.x == (u32)source * t.vector_length) *slot = v;
  __syncthreads();
  const T r = *slot;
  __syncthreads();
  return r;
}

/// `v` as vector lane `source` of this thread has it, in every lane.
template <class T>
__device__ __forceinline__ T vector_broadcast(const Team& t, const T& v, u32 source) {
  return detail::shfl_idx(v, source, detail::vector_mask(t), t.vector_length);
}

/// Waits until every thread of the team has reached it.
__device__ __forceinline__ void team_barrier() { __syncthreads(); }

}  // namespace fk
