// ferrokkos device header: Bitset (Kokkos' `Kokkos::Bitset`), an optional part
// (`codegen/header.rs` includes it when a program names `fk::Bitset`).
//
// Bit `i` is bit `i % 32` of word `i / 32`. `set` and `reset` are one atomic operation on the
// word each and say whether they changed the bit; `test` reads the word as the device sees it
// now. A bit at or past `size` is never touched: it is not set and tests false (as in Kokkos);
// the host made the words for `size` bits.

namespace fk {

/// A kernel's Bitset parameter: its words and its number of bits.
struct Bitset {
  u32* words;
  usize size;
};

/// Sets bit `i`: true when this call changed it.
__device__ __forceinline__ bool bitset_set(const Bitset& b, usize i) {
  if (i >= b.size) return false;
  const u32 mask = 1u << (u32)(i & 31u);
  return (atomicOr(b.words + (i >> 5), mask) & mask) == 0u;
}

/// Clears bit `i`: true when this call changed it.
__device__ __forceinline__ bool bitset_reset(const Bitset& b, usize i) {
  if (i >= b.size) return false;
  const u32 mask = 1u << (u32)(i & 31u);
  return (atomicAnd(b.words + (i >> 5), ~mask) & mask) != 0u;
}

/// Whether bit `i` is set.
__device__ __forceinline__ bool bitset_test(const Bitset& b, usize i) {
  if (i >= b.size) return false;
  const volatile u32* word = b.words + (i >> 5);
  return ((*word >> (u32)(i & 31u)) & 1u) != 0u;
}

}  // namespace fk
