// ferrokkos device header: UnorderedMap (Kokkos' `Kokkos::UnorderedMap`), an optional part
// (`codegen/header.rs` includes it when a program names `fk::UnorderedMap`).
//
// An open-addressing table of `capacity` slots (a power of two): a state word per slot
// (0 empty, 1 being written, 2 valid, 3 erased), keys, and values (none for a set). A key's probe
// starts at its hash (MurmurHash3's finalizer of its 64-bit form, as on the host) and goes up by
// one. An insert takes an empty slot with atomicCAS, writes the key and value, and publishes the
// slot valid with a release store; it waits on a slot being written (it may hold the same key), so
// a key is in at most one slot. Slots never empty again within a launch, so a lookup stops at the
// first empty one. Keys and values are read only from slots whose state an acquire load saw valid,
// and are never written again.
// (`containers/map_access.rs` is the host's form of the same rules.)

namespace fk {

/// A kernel's UnorderedMap parameter.
template <class K, class V>
struct UnorderedMap {
  u32* states;
  K* keys;
  V* values;
  usize capacity;
  u32* failed;
};

/// What an insert did: status 0 failed, 1 inserted, 2 there already; the slot.
struct MapInsert {
  u64 index;
  u64 status;
};

__device__ __forceinline__ u64 map_hash(u64 x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

// A slot's state, with acquire ordering: a valid slot's key and value, read after it, are the ones
// its inserter wrote before publishing it.
__device__ __forceinline__ u32 map_state(const u32* s) { return detail::load_acquire(s); }

template <class K, class V>
__device__ MapInsert map_insert(const UnorderedMap<K, V>& m, K k, V v, bool store) {
  const usize mask = m.capacity - 1;
  usize s = (usize)(map_hash((u64)k) & (u64)mask);
  for (usize n = 0; n < m.capacity; ++n, s = (s + 1) & mask) {
    u32 st = map_state(m.states + s);
    if (st == 0u) {
      st = atomicCAS(m.states + s, 0u, 1u);
      if (st == 0u) {
        m.keys[s] = k;
        if (store) m.values[s] = v;
        detail::store_release(m.states + s, 2u);
        return MapInsert{(u64)s, 1ull};
      }
    }
    while (st == 1u) st = map_state(m.states + s);
    if (st == 2u && m.keys[s] == k) return MapInsert{(u64)s, 2ull};
  }
  atomicOr(m.failed, 1u);
  return MapInsert{~0ull, 0ull};
}

template <class K, class V>
__device__ usize map_find(const UnorderedMap<K, V>& m, K k) {
  const usize mask = m.capacity - 1;
  usize s = (usize)(map_hash((u64)k) & (u64)mask);
  for (usize n = 0; n < m.capacity; ++n, s = (s + 1) & mask) {
    const u32 st = map_state(m.states + s);
    if (st == 0u) return ~(usize)0;
    if (st == 2u && m.keys[s] == k) return s;
  }
  return ~(usize)0;
}

template <class K, class V>
__device__ __forceinline__ bool map_exists(const UnorderedMap<K, V>& m, K k) {
  return map_find(m, k) != ~(usize)0;
}

template <class K, class V>
__device__ __forceinline__ bool map_erase(const UnorderedMap<K, V>& m, K k) {
  const usize s = map_find(m, k);
  return s != ~(usize)0 && atomicCAS(m.states + s, 2u, 3u) == 2u;
}

template <class K, class V>
__device__ __forceinline__ bool map_valid_at(const UnorderedMap<K, V>& m, usize i) {
  return i < m.capacity && map_state(m.states + i) == 2u;
}

template <class K, class V>
__device__ __forceinline__ K map_key_at(const UnorderedMap<K, V>& m, usize i) {
  if (!map_valid_at(m, i)) return K{};
  return m.keys[i];
}

template <class K, class V>
__device__ __forceinline__ V map_value_at(const UnorderedMap<K, V>& m, usize i) {
  if (!map_valid_at(m, i)) return V{};
  return m.values[i];
}

template <class K, class V>
__device__ __forceinline__ usize map_capacity(const UnorderedMap<K, V>& m) {
  return m.capacity;
}

}  // namespace fk
