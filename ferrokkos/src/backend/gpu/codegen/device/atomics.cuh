// ferrokkos device header: atomics.
// One part of the header; `codegen/header.rs` joins the parts in order (see types.cuh).
//
// One indivisible read-modify-write of one element, relaxed (it orders nothing around it), with the
// semantics of the host's `view/atomic.rs`: every function returns the element's previous value;
// integer add and sub wrap; f32/f64 min and max ignore a NaN operand (as fmin/fmax and Rust's
// f64::min); compare_exchange compares bit patterns (so -0.0 does not match 0.0 and a NaN matches
// itself). Types: i32 u32 i64 u64 f32 f64 (isize and usize are i64 and u64); and/or/xor on the
// integers only. Where CUDA has no instruction for a type, a compare-and-swap loop on its bits.

namespace fk {

namespace detail {
// The unsigned integer of a type's bits, and the conversions between them.
__device__ __forceinline__ u32 bits_of(i32 v) { return (u32)v; }
__device__ __forceinline__ u32 bits_of(u32 v) { return v; }
__device__ __forceinline__ u64 bits_of(i64 v) { return (u64)v; }
__device__ __forceinline__ u64 bits_of(u64 v) { return v; }
__device__ __forceinline__ u32 bits_of(f32 v) { return __float_as_uint(v); }
__device__ __forceinline__ u64 bits_of(f64 v) { return (u64)__double_as_longlong(v); }
template <class T> __device__ __forceinline__ T from_bits(u32 b);
template <> __device__ __forceinline__ i32 from_bits<i32>(u32 b) { return (i32)b; }
template <> __device__ __forceinline__ u32 from_bits<u32>(u32 b) { return b; }
template <> __device__ __forceinline__ f32 from_bits<f32>(u32 b) { return __uint_as_float(b); }
template <class T> __device__ __forceinline__ T from_bits(u64 b);
template <> __device__ __forceinline__ i64 from_bits<i64>(u64 b) { return (i64)b; }
template <> __device__ __forceinline__ u64 from_bits<u64>(u64 b) { return b; }
template <> __device__ __forceinline__ f64 from_bits<f64>(u64 b) { return __longlong_as_double((i64)b); }

// The bits as the type CUDA's atomics take (`unsigned` or `unsigned long long`).
template <class T> struct bits_type { typedef u64 type; };
template <> struct bits_type<i32> { typedef u32 type; };
template <> struct bits_type<u32> { typedef u32 type; };
template <> struct bits_type<f32> { typedef u32 type; };

// Replaces *p by op(*p, v) with a compare-and-swap loop until it sticks; returns the previous value.
// It writes nothing when op leaves the bits unchanged.
template <class T, class Op>
__device__ __forceinline__ T atomic_update(T* p, T v, Op op) {
  typedef typename bits_type<T>::type B;
  B* bits = (B*)p;
  B old = *(volatile B*)bits;
  for (;;) {
    const B desired = bits_of(op(from_bits<T>(old), v));
    if (desired == old) return from_bits<T>(old);
    const B seen = ::atomicCAS(bits, old, desired);
    if (seen == old) return from_bits<T>(old);
    old = seen;
  }
}
struct fmin_op {
  __device__ __forceinline__ f32 operator()(f32 a, f32 b) const { return ::fminf(a, b); }
  __device__ __forceinline__ f64 operator()(f64 a, f64 b) const { return ::fmin(a, b); }
};
// For targets without a signed 64-bit atomicMin / atomicMax (FK_ATOMIC_MINMAX_I64 is 0).
struct imin_op {
  __device__ __forceinline__ i64 operator()(i64 a, i64 b) const { return b < a ? b : a; }
};
struct imax_op {
  __device__ __forceinline__ i64 operator()(i64 a, i64 b) const { return b > a ? b : a; }
};
struct fmax_op {
  __device__ __forceinline__ f32 operator()(f32 a, f32 b) const { return ::fmaxf(a, b); }
  __device__ __forceinline__ f64 operator()(f64 a, f64 b) const { return ::fmax(a, b); }
};
}  // namespace detail

/// `*p += v`.
__device__ __forceinline__ i32 atomic_add(i32* p, i32 v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ u32 atomic_add(u32* p, u32 v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ u64 atomic_add(u64* p, u64 v) { return ::atomicAdd(p, v); }
// Two's complement addition is the same operation on the unsigned bits.
__device__ __forceinline__ i64 atomic_add(i64* p, i64 v) { return (i64)::atomicAdd((u64*)p, (u64)v); }
__device__ __forceinline__ f32 atomic_add(f32* p, f32 v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ f64 atomic_add(f64* p, f64 v) { return ::atomicAdd(p, v); }

/// `*p -= v`: adding the wrapped negation is the same operation on the bits.
__device__ __forceinline__ i32 atomic_sub(i32* p, i32 v) { return (i32)::atomicSub((u32*)p, (u32)v); }
__device__ __forceinline__ u32 atomic_sub(u32* p, u32 v) { return ::atomicSub(p, v); }
__device__ __forceinline__ u64 atomic_sub(u64* p, u64 v) { return ::atomicAdd(p, (u64)0 - v); }
__device__ __forceinline__ i64 atomic_sub(i64* p, i64 v) { return (i64)::atomicAdd((u64*)p, (u64)0 - (u64)v); }
__device__ __forceinline__ f32 atomic_sub(f32* p, f32 v) { return ::atomicAdd(p, -v); }
__device__ __forceinline__ f64 atomic_sub(f64* p, f64 v) { return ::atomicAdd(p, -v); }

/// `*p = min(*p, v)`.
__device__ __forceinline__ i32 atomic_min(i32* p, i32 v) { return ::atomicMin(p, v); }
__device__ __forceinline__ u32 atomic_min(u32* p, u32 v) { return ::atomicMin(p, v); }
#if FK_ATOMIC_MINMAX_I64
__device__ __forceinline__ i64 atomic_min(i64* p, i64 v) { return ::atomicMin(p, v); }
#else
__device__ __forceinline__ i64 atomic_min(i64* p, i64 v) { return detail::atomic_update(p, v, detail::imin_op()); }
#endif
__device__ __forceinline__ u64 atomic_min(u64* p, u64 v) { return ::atomicMin(p, v); }
__device__ __forceinline__ f32 atomic_min(f32* p, f32 v) { return detail::atomic_update(p, v, detail::fmin_op()); }
__device__ __forceinline__ f64 atomic_min(f64* p, f64 v) { return detail::atomic_update(p, v, detail::fmin_op()); }

/// `*p = max(*p, v)`.
__device__ __forceinline__ i32 atomic_max(i32* p, i32 v) { return ::atomicMax(p, v); }
__device__ __forceinline__ u32 atomic_max(u32* p, u32 v) { return ::atomicMax(p, v); }
#if FK_ATOMIC_MINMAX_I64
__device__ __forceinline__ i64 atomic_max(i64* p, i64 v) { return ::atomicMax(p, v); }
#else
__device__ __forceinline__ i64 atomic_max(i64* p, i64 v) { return detail::atomic_update(p, v, detail::imax_op()); }
#endif
__device__ __forceinline__ u64 atomic_max(u64* p, u64 v) { return ::atomicMax(p, v); }
__device__ __forceinline__ f32 atomic_max(f32* p, f32 v) { return detail::atomic_update(p, v, detail::fmax_op()); }
__device__ __forceinline__ f64 atomic_max(f64* p, f64 v) { return detail::atomic_update(p, v, detail::fmax_op()); }

/// `*p &= v`, `*p |= v`, `*p ^= v` (bitwise operations are the same on signed and unsigned bits).
__device__ __forceinline__ i32 atomic_and(i32* p, i32 v) { return ::atomicAnd(p, v); }
__device__ __forceinline__ u32 atomic_and(u32* p, u32 v) { return ::atomicAnd(p, v); }
__device__ __forceinline__ u64 atomic_and(u64* p, u64 v) { return ::atomicAnd(p, v); }
__device__ __forceinline__ i64 atomic_and(i64* p, i64 v) { return (i64)::atomicAnd((u64*)p, (u64)v); }
__device__ __forceinline__ i32 atomic_or(i32* p, i32 v) { return ::atomicOr(p, v); }
__device__ __forceinline__ u32 atomic_or(u32* p, u32 v) { return ::atomicOr(p, v); }
__device__ __forceinline__ u64 atomic_or(u64* p, u64 v) { return ::atomicOr(p, v); }
__device__ __forceinline__ i64 atomic_or(i64* p, i64 v) { return (i64)::atomicOr((u64*)p, (u64)v); }
__device__ __forceinline__ i32 atomic_xor(i32* p, i32 v) { return ::atomicXor(p, v); }
__device__ __forceinline__ u32 atomic_xor(u32* p, u32 v) { return ::atomicXor(p, v); }
__device__ __forceinline__ u64 atomic_xor(u64* p, u64 v) { return ::atomicXor(p, v); }
__device__ __forceinline__ i64 atomic_xor(i64* p, i64 v) { return (i64)::atomicXor((u64*)p, (u64)v); }

/// `*p = v`, on the bits of any of the types.
template <class T>
__device__ __forceinline__ T atomic_exchange(T* p, T v) {
  typedef typename detail::bits_type<T>::type B;
  return detail::from_bits<T>(::atomicExch((B*)p, detail::bits_of(v)));
}

/// `*p = desired` if the bits of `*p` are those of `expected`.
template <class T>
__device__ __forceinline__ T atomic_compare_exchange(T* p, T expected, T desired) {
  typedef typename detail::bits_type<T>::type B;
  return detail::from_bits<T>(
      ::atomicCAS((B*)p, detail::bits_of(expected), detail::bits_of(desired)));
}

/// `*p`, read once (a naturally aligned load of at most 8 bytes is single-copy atomic).
template <class T>
__device__ __forceinline__ T atomic_load(T* p) { return *(volatile T*)p; }

/// `*p = v`, written once (single-copy atomic, as the load).
template <class T>
__device__ __forceinline__ void atomic_store(T* p, T v) { *(volatile T*)p = v; }

}  // namespace fk
