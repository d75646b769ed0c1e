// ferrokkos device header: atomics.
// One part of the header; `codegen/header.rs` joins the parts in order (see types.cuh).
//
// One indivisible read-modify-write of one element, relaxed (it orders nothing around it; the
// generated code puts `atomic_fence_*` around an operation given a stronger memory order), with
// the semantics of the host's `view/atomic*.rs`:
// - `fk::atomic_<op>(p, v)` returns the element's previous value, `fk::atomic_<op>_fetch(p, v)` the
//   new one; ops: add sub mul div min max (numbers), mod and or xor nand lshift rshift inc dec
//   (integers);
// - integer add, sub and mul wrap; shifts mask their amount (Rust's release semantics); integer div
//   and mod by zero (or MIN by -1), where Rust panics, store 0 and record an arithmetic fault, as
//   `fk::div` does;
// - f32/f64 min and max ignore a NaN operand (as fmin/fmax and Rust's f64::min);
// - compare_exchange compares bit patterns (-0.0 does not match 0.0; a NaN matches itself);
// - complex add and sub are two atomic operations, one per component (not atomic as a whole), and
//   complex load and store read and write each component atomically.
// Types: i8..i64, u8..u64 (isize and usize are i64 and u64), f32, f64; c32 and c64 for add, sub,
// load and store. Where the target has no instruction for a type (8- and 16-bit integers: a
// compare-and-swap on the aligned 32-bit word that holds the element), a compare-and-swap loop.

namespace fk {

template <class T> struct complex;

namespace detail {

// The unsigned integer of N bytes (an element's bits).
template <int N> struct uint_of;
template <> struct uint_of<1> { typedef u8 type; };
template <> struct uint_of<2> { typedef u16 type; };
template <> struct uint_of<4> { typedef u32 type; };
template <> struct uint_of<8> { typedef u64 type; };
template <class T> using bits_t = typename uint_of<sizeof(T)>::type;

// A parameter type that does not take part in deduction (the pointer decides the type).
template <class T> struct same { typedef T type; };
template <class T> using same_t = typename same<T>::type;

template <class T> __device__ __forceinline__ bits_t<T> to_bits(T v) { return (bits_t<T>)v; }
__device__ __forceinline__ u32 to_bits(f32 v) { return __float_as_uint(v); }
__device__ __forceinline__ u64 to_bits(f64 v) { return (u64)__double_as_longlong(v); }
template <class T> __device__ __forceinline__ T from_bits(bits_t<T> b) { return (T)b; }
template <> __device__ __forceinline__ f32 from_bits<f32>(u32 b) { return __uint_as_float(b); }
template <> __device__ __forceinline__ f64 from_bits<f64>(u64 b) { return __longlong_as_double((i64)b); }

// A compare-and-swap of an 8- or 16-bit element: on the aligned 32-bit word that holds it (the
// word lies in the element's allocation granule: allocations are at least 4-byte aligned), until
// the element differs from `expected` or the word is swapped. Little-endian lanes.
template <class B>
__device__ __forceinline__ B cas_narrow(B* p, B expected, B desired) {
  u32* const word = (u32*)((usize)p & ~(usize)3);
  const unsigned shift = (unsigned)((usize)p & 3u) * 8u;
  const u32 mask = (u32)(B)~(B)0 << shift;
  u32 old = *(volatile u32*)word;
  for (;;) {
    const B seen = (B)((old & mask) >> shift);
    if (seen != expected) return seen;
    const u32 next = (old & ~mask) | ((u32)desired << shift);
    const u32 now = ::atomicCAS(word, old, next);
    if (now == old) return expected;
    old = now;
  }
}

// Compare-and-swap of bits: `*p = d` if `*p == e`; returns what `*p` held.
__device__ __forceinline__ u8 cas_bits(u8* p, u8 e, u8 d) { return cas_narrow(p, e, d); }
__device__ __forceinline__ u16 cas_bits(u16* p, u16 e, u16 d) { return cas_narrow(p, e, d); }
__device__ __forceinline__ u32 cas_bits(u32* p, u32 e, u32 d) { return ::atomicCAS(p, e, d); }
__device__ __forceinline__ u64 cas_bits(u64* p, u64 e, u64 d) { return ::atomicCAS(p, e, d); }

// Replaces *p by op(*p) with a compare-and-swap loop until it sticks; returns the previous value.
// It writes nothing when op leaves the bits unchanged.
template <class T, class Op>
__device__ __forceinline__ T atomic_update(T* p, Op op) {
  typedef bits_t<T> B;
  B* const bits = (B*)p;
  B old = *(volatile B*)bits;
  for (;;) {
    const B desired = to_bits(op(from_bits<T>(old)));
    if (desired == old) return from_bits<T>(old);
    const B seen = cas_bits(bits, old, desired);
    if (seen == old) return from_bits<T>(old);
    old = seen;
  }
}

// The operations as pure functions of the old value and the operand (Rust's release semantics).
template <class T> __device__ __forceinline__ T op_add(T a, T b) {
  if constexpr (int_traits<T>::is_int) return wrapping_add(a, b); else return a + b;
}
template <class T> __device__ __forceinline__ T op_sub(T a, T b) {
  if constexpr (int_traits<T>::is_int) return wrapping_sub(a, b); else return a - b;
}
template <class T> __device__ __forceinline__ T op_mul(T a, T b) {
  if constexpr (int_traits<T>::is_int) return wrapping_mul(a, b); else return a * b;
}
// Integer division or remainder where Rust panics gives 0 (the caller records the fault).
template <class T> __device__ __forceinline__ T op_div(T a, T b) {
  if constexpr (int_traits<T>::is_int) return division_fails(a, b) ? (T)0 : (T)(a / b);
  else return a / b;
}
template <class T> __device__ __forceinline__ T op_mod(T a, T b) {
  return division_fails(a, b) ? (T)0 : (T)(a % b);
}
__device__ __forceinline__ f32 op_min(f32 a, f32 b) { return ::fminf(a, b); }
__device__ __forceinline__ f64 op_min(f64 a, f64 b) { return ::fmin(a, b); }
__device__ __forceinline__ f32 op_max(f32 a, f32 b) { return ::fmaxf(a, b); }
__device__ __forceinline__ f64 op_max(f64 a, f64 b) { return ::fmax(a, b); }
template <class T> __device__ __forceinline__ if_int<T> op_min(T a, T b) { return b < a ? b : a; }
template <class T> __device__ __forceinline__ if_int<T> op_max(T a, T b) { return b > a ? b : a; }
template <class T> __device__ __forceinline__ T op_and(T a, T b) { return (T)(a & b); }
template <class T> __device__ __forceinline__ T op_or(T a, T b) { return (T)(a | b); }
template <class T> __device__ __forceinline__ T op_xor(T a, T b) { return (T)(a ^ b); }
template <class T> __device__ __forceinline__ T op_nand(T a, T b) { return (T)~(a & b); }
template <class T> __device__ __forceinline__ T op_lshift(T a, u32 n) { return shl(a, n); }
template <class T> __device__ __forceinline__ T op_rshift(T a, u32 n) { return shr(a, n); }
}  // namespace detail

// The operations with no instruction (or none for this type): a compare-and-swap loop. Integer
// templates; the instructions below are overloads of exact types, which win.
#define FK_ATOMIC_LOOP(NAME, RET, ARG)                                                              \
  template <class T>                                                                                \
  __device__ __forceinline__ RET atomic_##NAME(T* p, detail::same_t<ARG> v) {                      \
    return detail::atomic_update(p, [v](T x) { return detail::op_##NAME(x, v); });                  \
  }
FK_ATOMIC_LOOP(add, detail::if_int<T>, T)
FK_ATOMIC_LOOP(sub, detail::if_int<T>, T)
FK_ATOMIC_LOOP(mul, T, T)
FK_ATOMIC_LOOP(min, detail::if_int<T>, T)
FK_ATOMIC_LOOP(max, detail::if_int<T>, T)
FK_ATOMIC_LOOP(and, detail::if_int<T>, T)
FK_ATOMIC_LOOP(or, detail::if_int<T>, T)
FK_ATOMIC_LOOP(xor, detail::if_int<T>, T)
FK_ATOMIC_LOOP(nand, detail::if_int<T>, T)
FK_ATOMIC_LOOP(lshift, detail::if_int<T>, u32)
FK_ATOMIC_LOOP(rshift, detail::if_int<T>, u32)
#undef FK_ATOMIC_LOOP

/// `*p /= v`; an integer division where Rust panics stores 0 and records an arithmetic fault.
template <class T>
__device__ __forceinline__ T atomic_div(T* p, detail::same_t<T> v) {
  const T old = detail::atomic_update(p, [v](T x) { return detail::op_div(x, v); });
  if constexpr (detail::int_traits<T>::is_int) {
    if (division_fails(old, v)) detail::arithmetic_fault();
  }
  return old;
}

/// `*p %= v` (integers), faulting as `atomic_div`.
template <class T>
__device__ __forceinline__ detail::if_int<T> atomic_mod(T* p, detail::same_t<T> v) {
  const T old = detail::atomic_update(p, [v](T x) { return detail::op_mod(x, v); });
  if (division_fails(old, v)) detail::arithmetic_fault();
  return old;
}

/// `*p += v`, `*p -= v`: instructions (two's complement addition is the same on unsigned bits).
__device__ __forceinline__ i32 atomic_add(i32* p, i32 v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ u32 atomic_add(u32* p, u32 v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ u64 atomic_add(u64* p, u64 v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ i64 atomic_add(i64* p, i64 v) { return (i64)::atomicAdd((u64*)p, (u64)v); }
__device__ __forceinline__ f32 atomic_add(f32* p, f32 v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ f64 atomic_add(f64* p, f64 v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ i32 atomic_sub(i32* p, i32 v) { return (i32)::atomicSub((u32*)p, (u32)v); }
__device__ __forceinline__ u32 atomic_sub(u32* p, u32 v) { return ::atomicSub(p, v); }
__device__ __forceinline__ u64 atomic_sub(u64* p, u64 v) { return ::atomicAdd(p, (u64)0 - v); }
__device__ __forceinline__ i64 atomic_sub(i64* p, i64 v) { return (i64)::atomicAdd((u64*)p, (u64)0 - (u64)v); }
__device__ __forceinline__ f32 atomic_sub(f32* p, f32 v) { return ::atomicAdd(p, -v); }
__device__ __forceinline__ f64 atomic_sub(f64* p, f64 v) { return ::atomicAdd(p, -v); }

/// `*p = min(*p, v)`, `*p = max(*p, v)`.
__device__ __forceinline__ i32 atomic_min(i32* p, i32 v) { return ::atomicMin(p, v); }
__device__ __forceinline__ u32 atomic_min(u32* p, u32 v) { return ::atomicMin(p, v); }
__device__ __forceinline__ u64 atomic_min(u64* p, u64 v) { return ::atomicMin(p, v); }
__device__ __forceinline__ i32 atomic_max(i32* p, i32 v) { return ::atomicMax(p, v); }
__device__ __forceinline__ u32 atomic_max(u32* p, u32 v) { return ::atomicMax(p, v); }
__device__ __forceinline__ u64 atomic_max(u64* p, u64 v) { return ::atomicMax(p, v); }
#if FK_ATOMIC_MINMAX_I64
__device__ __forceinline__ i64 atomic_min(i64* p, i64 v) { return ::atomicMin(p, v); }
__device__ __forceinline__ i64 atomic_max(i64* p, i64 v) { return ::atomicMax(p, v); }
#endif
__device__ __forceinline__ f32 atomic_min(f32* p, f32 v) { return detail::atomic_update(p, [v](f32 x) { return detail::op_min(x, v); }); }
__device__ __forceinline__ f64 atomic_min(f64* p, f64 v) { return detail::atomic_update(p, [v](f64 x) { return detail::op_min(x, v); }); }
__device__ __forceinline__ f32 atomic_max(f32* p, f32 v) { return detail::atomic_update(p, [v](f32 x) { return detail::op_max(x, v); }); }
__device__ __forceinline__ f64 atomic_max(f64* p, f64 v) { return detail::atomic_update(p, [v](f64 x) { return detail::op_max(x, v); }); }

/// `*p &= v`, `*p |= v`, `*p ^= v` (the same operation on signed and unsigned bits).
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

/// `*p += 1`, `*p -= 1` (integers, wrapping).
template <class T> __device__ __forceinline__ T atomic_inc(T* p) { return atomic_add(p, (T)1); }
template <class T> __device__ __forceinline__ T atomic_dec(T* p) { return atomic_sub(p, (T)1); }

/// Complex add and sub: one atomic operation per component (not atomic as a whole).
template <class T>
__device__ __forceinline__ complex<T> atomic_add(complex<T>* p, complex<T> v) {
  const T re = atomic_add(&p->re, v.re);
  return complex<T>(re, atomic_add(&p->im, v.im));
}
template <class T>
__device__ __forceinline__ complex<T> atomic_sub(complex<T>* p, complex<T> v) {
  const T re = atomic_sub(&p->re, v.re);
  return complex<T>(re, atomic_sub(&p->im, v.im));
}

/// The `_fetch` forms: the operation's new value (what it stored).
#define FK_ATOMIC_OP_FETCH(NAME, ARG)                                                               \
  template <class T>                                                                                \
  __device__ __forceinline__ T atomic_##NAME##_fetch(T* p, detail::same_t<ARG> v) {                 \
    return detail::op_##NAME(atomic_##NAME(p, v), v);                                               \
  }
FK_ATOMIC_OP_FETCH(add, T)
FK_ATOMIC_OP_FETCH(sub, T)
FK_ATOMIC_OP_FETCH(mul, T)
FK_ATOMIC_OP_FETCH(div, T)
FK_ATOMIC_OP_FETCH(mod, T)
FK_ATOMIC_OP_FETCH(min, T)
FK_ATOMIC_OP_FETCH(max, T)
FK_ATOMIC_OP_FETCH(and, T)
FK_ATOMIC_OP_FETCH(or, T)
FK_ATOMIC_OP_FETCH(xor, T)
FK_ATOMIC_OP_FETCH(nand, T)
FK_ATOMIC_OP_FETCH(lshift, u32)
FK_ATOMIC_OP_FETCH(rshift, u32)
#undef FK_ATOMIC_OP_FETCH
template <class T> __device__ __forceinline__ T atomic_inc_fetch(T* p) { return atomic_add_fetch(p, (T)1); }
template <class T> __device__ __forceinline__ T atomic_dec_fetch(T* p) { return atomic_sub_fetch(p, (T)1); }

/// `*p = v`, on the bits of any of the scalar types.
template <class T>
__device__ __forceinline__ T atomic_exchange(T* p, detail::same_t<T> v) {
  if constexpr (sizeof(T) >= 4) {
    typedef detail::bits_t<T> B;
    return detail::from_bits<T>(::atomicExch((B*)p, detail::to_bits(v)));
  } else {
    return detail::atomic_update(p, [v](T) { return v; });
  }
}

/// `*p = desired` if the bits of `*p` are those of `expected`; returns the previous value.
template <class T>
__device__ __forceinline__ T atomic_compare_exchange(T* p, detail::same_t<T> expected,
                                                      detail::same_t<T> desired) {
  typedef detail::bits_t<T> B;
  return detail::from_bits<T>(
      detail::cas_bits((B*)p, detail::to_bits(expected), detail::to_bits(desired)));
}

/// `*p`, read once (a naturally aligned load of at most 8 bytes is single-copy atomic); a complex
/// number's components each so.
template <class T>
__device__ __forceinline__ T atomic_load(T* p) { return *(volatile T*)p; }
template <class T>
__device__ __forceinline__ complex<T> atomic_load(complex<T>* p) {
  return complex<T>(*(volatile T*)&p->re, *(volatile T*)&p->im);
}

/// `*p = v`, written once (single-copy atomic, as the load).
template <class T>
__device__ __forceinline__ void atomic_store(T* p, detail::same_t<T> v) { *(volatile T*)p = v; }
template <class T>
__device__ __forceinline__ void atomic_store(complex<T>* p, complex<T> v) {
  *(volatile T*)&p->re = v.re;
  *(volatile T*)&p->im = v.im;
}

/// The fences that give a relaxed operation a memory order (`MemoryOrder`): before it for
/// release (`Release`, `AcqRel`, `SeqCst`), after it for acquire (`Acquire`, `AcqRel`, `SeqCst`);
/// device or system scope (`MemoryScope`). A CUDA fence is sequentially consistent.
__device__ __forceinline__ void atomic_fence_device() { __threadfence(); }
__device__ __forceinline__ void atomic_fence_system() { __threadfence_system(); }

}  // namespace fk
