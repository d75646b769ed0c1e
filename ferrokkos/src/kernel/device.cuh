// ferrokkos device header.
//
// Prepended to every translation unit that ferrokkos generates from a `kernel!` and compiles with
// NVRTC (`-std=c++17`). It gives generated code the Rust spellings of the primitive types, the View
// descriptor, Rust's semantics for casts, shifts and the float and integer methods, atomics, the
// built-in reducers and the block-level reduce and scan that the entry kernels use.
//
// Constraints: NVRTC has no system headers, so nothing is #included; only CUDA builtins are used
// (sqrtf, fma, __popc, atomicCAS, ...). Everything is a `__device__ __forceinline__` function or a
// template, so a translation unit pays only for what it uses.

#ifndef FERROKKOS_DEVICE_CUH
#define FERROKKOS_DEVICE_CUH

// ---------------------------------------------------------------------------------------------------
// The Rust names of the primitive types (`bool` is `bool`). usize and isize are 64-bit: the host is.
// ---------------------------------------------------------------------------------------------------

typedef signed char i8;
typedef short i16;
typedef int i32;
typedef long long i64;
typedef long long isize;
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef unsigned long long usize;
typedef float f32;
typedef double f64;

static_assert(sizeof(i8) == 1 && sizeof(i16) == 2 && sizeof(i32) == 4 && sizeof(i64) == 8,
              "signed integer widths");
static_assert(sizeof(u8) == 1 && sizeof(u16) == 2 && sizeof(u32) == 4 && sizeof(u64) == 8,
              "unsigned integer widths");
static_assert(sizeof(f32) == 4 && sizeof(f64) == 8 && sizeof(void*) == 8 && sizeof(long) == 8,
              "float, pointer and long widths");

// ---------------------------------------------------------------------------------------------------
// Out-of-bounds accesses. An index outside a View's extents (or a captured array's length) touches no
// memory: a write goes to a sink nothing reads, a read gives zero, and the access is counted in the
// context's fault record (the first one with its index), which the host reads when it next waits for
// the device and reports as an error naming the kernel. Rust's bounds checks, without a trap that
// would end the context.
// ---------------------------------------------------------------------------------------------------

/// The fault record (in pinned host memory; layout shared with `backend/cuda/fault.rs`).
struct FkFault {
  unsigned int state;           // 0: empty, 1: being written, 2: written
  unsigned int rank;            // the rank of the View (1 for a captured array)
  unsigned int kind;            // 0: a View, 1: a captured array, 2: integer division by zero or
                                // MIN / -1, 3: the extent of a dimension the View does not have
  unsigned int reserved;
  unsigned long long count;     // out-of-bounds accesses so far
  unsigned long long unit;      // the module's unit number (`fk_fault_unit`)
  unsigned long long index[8];  // the recorded access's index
  unsigned long long extent[8]; // and the extents it was checked against
};

extern "C" {
// Set by the launcher when it loads the module; while null, nothing is recorded.
__device__ FkFault* fk_fault_record = nullptr;
// The launcher's number for this module, so that the host can name the kernel.
__device__ unsigned long long fk_fault_unit = 0;
}

namespace fk {

// ---------------------------------------------------------------------------------------------------
// Type traits (no <type_traits> under NVRTC).
// ---------------------------------------------------------------------------------------------------

namespace detail {

template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };

template <class A, class B> struct is_same { static constexpr bool value = false; };
template <class A> struct is_same<A, A> { static constexpr bool value = true; };

template <class T> struct remove_const { typedef T type; };
template <class T> struct remove_const<const T> { typedef T type; };

// int_traits<T>: facts about the ten integer types. `U` is the unsigned type of the same width,
// `W` the unsigned type arithmetic is done in (at least 32 bits, so that u8 and u16 operands are
// not promoted to a signed int that could overflow).
template <class T> struct int_traits { static constexpr bool is_int = false; };

#define FK_INT_TRAITS(T, UT, WT, SIGNED, BITS, MINV, MAXV)                                             \
  template <> struct int_traits<T> {                                                                  \
    static constexpr bool is_int = true;                                                              \
    static constexpr bool is_signed = SIGNED;                                                         \
    static constexpr unsigned bits = BITS;                                                            \
    typedef UT U;                                                                                     \
    typedef WT W;                                                                                     \
    static __device__ __forceinline__ T min() { return MINV; }                                        \
    static __device__ __forceinline__ T max() { return MAXV; }                                        \
  };

FK_INT_TRAITS(i8, u8, u32, true, 8, (i8)(-127 - 1), (i8)127)
FK_INT_TRAITS(i16, u16, u32, true, 16, (i16)(-32767 - 1), (i16)32767)
FK_INT_TRAITS(i32, u32, u32, true, 32, (-2147483647 - 1), 2147483647)
FK_INT_TRAITS(i64, u64, u64, true, 64, (-9223372036854775807LL - 1), 9223372036854775807LL)
FK_INT_TRAITS(u8, u8, u32, false, 8, (u8)0, (u8)255)
FK_INT_TRAITS(u16, u16, u32, false, 16, (u16)0, (u16)65535)
FK_INT_TRAITS(u32, u32, u32, false, 32, 0U, 4294967295U)
FK_INT_TRAITS(u64, u64, u64, false, 64, 0ULL, 18446744073709551615ULL)
// `long` is 64-bit under NVRTC (LP64) and a type distinct from `long long` (size_t is unsigned long).
FK_INT_TRAITS(long, unsigned long, unsigned long, true, 64, (-9223372036854775807L - 1), 9223372036854775807L)
FK_INT_TRAITS(unsigned long, unsigned long, unsigned long, false, 64, 0UL, 18446744073709551615UL)
#undef FK_INT_TRAITS

template <class T> struct is_float { static constexpr bool value = false; };
template <> struct is_float<f32> { static constexpr bool value = true; };
template <> struct is_float<f64> { static constexpr bool value = true; };

// The result type of the integer functions: T, only for the ten integer types.
template <class T> using if_int = typename enable_if<int_traits<T>::is_int, T>::type;

// An integer of type From (any width, any signedness) as an unsigned shift amount masked to the bit
// width `bits` (a power of two), as Rust's release builds do.
template <class From>
__device__ __forceinline__ unsigned shift_amount(From b, unsigned bits) {
  return (unsigned)(u64)b & (bits - 1u);
}

/// Records an out-of-bounds access. Inlined with R known, so that nothing of the caller's (the
/// index, the extents, the View) has its address taken: an out-of-line call here made the compiler
/// keep them in local memory and store the index there on every access (half the bandwidth).
template <int R>
__device__ __forceinline__ void out_of_bounds(unsigned kind, const usize (&index)[R],
                                              const usize (&extent)[R]) {
  FkFault* const f = fk_fault_record;
  if (f == nullptr) return;
  atomicAdd(&f->count, 1ULL);
  if (atomicCAS(&f->state, 0u, 1u) == 0u) {
    f->kind = kind;
    f->rank = (unsigned)R;
    f->unit = fk_fault_unit;
#pragma unroll
    for (int k = 0; k < R && k < 8; ++k) {
      f->index[k] = index[k];
      f->extent[k] = extent[k];
    }
    __threadfence_system();
    atomicExch(&f->state, 2u);
  }
}

/// Records an integer division by zero, or of MIN by -1 (where Rust panics).
__device__ __forceinline__ void arithmetic_fault() {
  FkFault* const f = fk_fault_record;
  if (f == nullptr) return;
  atomicAdd(&f->count, 1ULL);
  if (atomicCAS(&f->state, 0u, 1u) == 0u) {
    f->kind = 2u;
    f->rank = 0u;
    f->unit = fk_fault_unit;
    __threadfence_system();
    atomicExch(&f->state, 2u);
  }
}

// Where out-of-bounds elements are: writes land in a sink nothing reads (threads may overwrite each
// other there; the values are never used), reads of read-only Views and arrays give zero.
template <class T> __device__ T oob_sink;
template <class T> __device__ const T oob_zero = T();
template <class T> struct oob {
  static __device__ __forceinline__ T& element() { return oob_sink<T>; }
};
template <class T> struct oob<const T> {
  static __device__ __forceinline__ const T& element() { return oob_zero<T>; }
};

}  // namespace detail

// ---------------------------------------------------------------------------------------------------
// Views: the device side of a host `View<T, R, L>` (a #[repr(C)] struct: the pointer, then R extents,
// then R strides, all 64-bit; strides count elements).
// ---------------------------------------------------------------------------------------------------

/// The last index is contiguous (C order); `stride[R-1]` is 1 and never read.
struct LayoutRight {};
/// The first index is contiguous (Fortran order); `stride[0]` is 1 and never read.
struct LayoutLeft {};
/// Every stride is read from the descriptor.
struct LayoutStride {};

/// A View of rank R >= 1 over elements of type T (`const T` for read-only captures).
template <class T, int R, class L>
struct View {
  static_assert(R >= 1 && R <= 8, "fk::View: the rank must be 1 to 8 (rank 0 is specialized)");

  T* data;
  usize extent[R];
  usize stride[R];

  /// The element at the multi-index (any integer types, converted to usize; a negative index becomes
  /// a huge one). An index outside the extents reaches no memory (see `detail::out_of_bounds`).
  template <class... I>
  __device__ __forceinline__ T& operator()(I... index) const {
    static_assert(sizeof...(I) == R, "fk::View: the number of indices must equal the rank");
    static_assert((detail::int_traits<typename detail::remove_const<I>::type>::is_int && ...),
                  "fk::View: indices must be integers");
    const usize idx[R] = {static_cast<usize>(index)...};
    usize offset = 0;
#pragma unroll
    for (int k = 0; k < R; ++k) {
      if (idx[k] >= extent[k]) {
        detail::out_of_bounds<R>(0u, idx, extent);
        return detail::oob<T>::element();
      }
      // The unit stride of the contiguous dimension is a constant, so the compiler drops a multiply.
      const bool unit = (detail::is_same<L, LayoutRight>::value && k == R - 1) ||
                        (detail::is_same<L, LayoutLeft>::value && k == 0);
      offset += unit ? idx[k] : idx[k] * stride[k];
    }
    return data[offset];
  }
};

/// A rank-0 View: one element (the host struct is the pointer alone).
template <class T, class L>
struct View<T, 0, L> {
  T* data;

  /// The element.
  __device__ __forceinline__ T& operator()() const { return *data; }
};

/// `x.extent(r)` with a dimension known only at run time: a dimension the View does not have is
/// recorded as a fault (the host panics) and gives 0, instead of reading past the descriptor.
template <class T, int R, class L>
__device__ __forceinline__ usize extent(const View<T, R, L>& v, usize r) {
  if (r >= (usize)R) {
    const usize at[1] = {r};
    const usize rank[1] = {(usize)R};
    detail::out_of_bounds<1>(3u, at, rank);
    return 0;
  }
  return v.extent[r];
}

/// A rank-0 View has no dimension.
template <class T, class L>
__device__ __forceinline__ usize extent(const View<T, 0, L>&, usize r) {
  const usize at[1] = {r};
  const usize rank[1] = {0};
  detail::out_of_bounds<1>(3u, at, rank);
  return 0;
}

/// A captured Rust array `[T; N]`, passed by value (a struct, since C++ cannot pass an array by
/// value). Read-only in kernels; `values[j]` reads element j.
template <class T, int N>
struct Array {
  static_assert(N >= 1, "fk::Array: a captured array has at least one element");
  T v[N];

  /// Element `i` of any integer type; an index out of range reaches no memory and reads zero (see
  /// `detail::out_of_bounds`).
  template <class I>
  __device__ __forceinline__ const T& operator[](I i) const {
    const usize at[1] = {(usize)i};
    if (at[0] >= (usize)N) {
      const usize len[1] = {(usize)N};
      detail::out_of_bounds<1>(1u, at, len);
      return detail::oob<const T>::element();
    }
    return v[at[0]];
  }
};

// ---------------------------------------------------------------------------------------------------
// Special float values (fk::infinity<f64>(), fk::quiet_nan<f32>()).
// ---------------------------------------------------------------------------------------------------

/// Positive infinity.
template <class T> __device__ __forceinline__ T infinity();
/// A quiet NaN (the bit pattern Rust's `NAN` has).
template <class T> __device__ __forceinline__ T quiet_nan();

template <> __device__ __forceinline__ f32 infinity<f32>() { return __int_as_float(0x7f800000); }
template <> __device__ __forceinline__ f64 infinity<f64>() {
  return __longlong_as_double(0x7ff0000000000000LL);
}
template <> __device__ __forceinline__ f32 quiet_nan<f32>() { return __int_as_float(0x7fc00000); }
template <> __device__ __forceinline__ f64 quiet_nan<f64>() {
  return __longlong_as_double(0x7ff8000000000000LL);
}

/// The largest finite value (`f64::MAX`), the identity of Min.
template <class T> __device__ __forceinline__ T largest() { return detail::int_traits<T>::max(); }
/// The lowest finite value (`f64::MIN`), the identity of Max.
template <class T> __device__ __forceinline__ T lowest() { return detail::int_traits<T>::min(); }
template <> __device__ __forceinline__ f32 largest<f32>() { return 3.40282347e+38f; }
template <> __device__ __forceinline__ f64 largest<f64>() { return 1.7976931348623157e+308; }
template <> __device__ __forceinline__ f32 lowest<f32>() { return -3.40282347e+38f; }
template <> __device__ __forceinline__ f64 lowest<f64>() { return -1.7976931348623157e+308; }

// ---------------------------------------------------------------------------------------------------
// `as` casts with Rust's semantics: fk::cast<To>(x).
// ---------------------------------------------------------------------------------------------------

namespace detail {

// Float to integer: truncate toward zero, saturate at the bounds, NaN gives 0. The bounds are powers
// of two, which are exact in f32 and f64, so the comparisons are exact.
template <class To, class From>
__device__ __forceinline__ To float_to_int(From x) {
  typedef int_traits<To> tr;
  // 2^(bits-1) for signed types, 2^bits for unsigned ones (2 * 2^(k-1), so that 2^64 is no shift).
  constexpr unsigned k = tr::is_signed ? tr::bits - 1 : tr::bits;
  const From hi = (From)((u64)1 << (k - 1)) * (From)2;
  if constexpr (tr::is_signed) {
    if (x != x) return (To)0;
    if (x < -hi) return tr::min();
    if (x >= hi) return tr::max();
    return (To)x;
  } else {
    if (!(x > (From)-1)) return (To)0;  // NaN and everything that truncates below zero
    if (x >= hi) return tr::max();
    return (To)x;
  }
}

}  // namespace detail

/// `x as To`: float to integer saturates (NaN gives 0), integer to integer wraps (two's complement
/// truncation or sign/zero extension by the source's signedness), integer to float and f64 to f32
/// round to nearest, bool gives 0 or 1.
template <class To, class From>
__device__ __forceinline__ To cast(From x) {
  static_assert(detail::int_traits<To>::is_int || detail::is_float<To>::value,
                "fk::cast: the target must be one of the twelve numeric types");
  static_assert(detail::int_traits<From>::is_int || detail::is_float<From>::value ||
                    detail::is_same<From, bool>::value,
                "fk::cast: the source must be a numeric type or bool");
  if constexpr (detail::is_float<From>::value && detail::int_traits<To>::is_int) {
    return detail::float_to_int<To>(x);
  } else if constexpr (detail::is_same<From, f64>::value && detail::is_same<To, f32>::value) {
    return __double2float_rn(x);
  } else if constexpr (detail::is_same<From, bool>::value) {
    return x ? (To)1 : (To)0;
  } else {
    return (To)x;
  }
}

// ---------------------------------------------------------------------------------------------------
// Shifts with Rust's release semantics: the amount (any integer type) is masked to the bit width of
// the left operand's type; `>>` is arithmetic for signed types. The result has the left type.
// ---------------------------------------------------------------------------------------------------

/// `a << b`.
template <class T, class S>
__device__ __forceinline__ detail::if_int<T> shl(T a, S b) {
  typedef detail::int_traits<T> tr;
  const unsigned n = detail::shift_amount(b, tr::bits);
  return (T)((typename tr::W)(typename tr::U)a << n);
}

/// `a >> b` (arithmetic for signed `a`).
template <class T, class S>
__device__ __forceinline__ detail::if_int<T> shr(T a, S b) {
  typedef detail::int_traits<T> tr;
  const unsigned n = detail::shift_amount(b, tr::bits);
  if constexpr (tr::is_signed) {
    return (T)(a >> n);  // promoted signed operands shift arithmetically
  } else {
    return (T)((typename tr::W)a >> n);
  }
}

// ---------------------------------------------------------------------------------------------------
// Float methods, named as Rust's, for f32 (float builtins, nothing promoted to double) and f64.
// abs sqrt floor ceil round trunc signum min max mul_add clamp powi give the bits Rust gives; the
// transcendental ones are CUDA's math library, within its documented ulp bounds of the exact result
// (Rust's libm differs by at most 1 ulp, so the two may differ by a few ulp).
// ---------------------------------------------------------------------------------------------------

/// `x.is_nan()`.
__device__ __forceinline__ bool is_nan(f32 x) { return x != x; }
__device__ __forceinline__ bool is_nan(f64 x) { return x != x; }
/// `x.is_finite()` (false for infinities and NaN).
__device__ __forceinline__ bool is_finite(f32 x) { return ::fabsf(x) <= largest<f32>(); }
__device__ __forceinline__ bool is_finite(f64 x) { return ::fabs(x) <= largest<f64>(); }

#define FK_FLOAT_UNARY(NAME, F32, F64)                                                               \
  __device__ __forceinline__ f32 NAME(f32 x) { return ::F32(x); }                                    \
  __device__ __forceinline__ f64 NAME(f64 x) { return ::F64(x); }
#define FK_FLOAT_BINARY(NAME, F32, F64)                                                              \
  __device__ __forceinline__ f32 NAME(f32 x, f32 y) { return ::F32(x, y); }                          \
  __device__ __forceinline__ f64 NAME(f64 x, f64 y) { return ::F64(x, y); }

FK_FLOAT_UNARY(abs, fabsf, fabs)
FK_FLOAT_UNARY(sqrt, sqrtf, sqrt)
FK_FLOAT_UNARY(cbrt, cbrtf, cbrt)
FK_FLOAT_UNARY(exp, expf, exp)
FK_FLOAT_UNARY(exp2, exp2f, exp2)
FK_FLOAT_UNARY(ln, logf, log)
FK_FLOAT_UNARY(log2, log2f, log2)
FK_FLOAT_UNARY(log10, log10f, log10)
FK_FLOAT_UNARY(sin, sinf, sin)
FK_FLOAT_UNARY(cos, cosf, cos)
FK_FLOAT_UNARY(tan, tanf, tan)
FK_FLOAT_UNARY(asin, asinf, asin)
FK_FLOAT_UNARY(acos, acosf, acos)
FK_FLOAT_UNARY(atan, atanf, atan)
FK_FLOAT_UNARY(sinh, sinhf, sinh)
FK_FLOAT_UNARY(cosh, coshf, cosh)
FK_FLOAT_UNARY(tanh, tanhf, tanh)
FK_FLOAT_UNARY(floor, floorf, floor)
FK_FLOAT_UNARY(ceil, ceilf, ceil)
FK_FLOAT_UNARY(round, roundf, round)  // halfway cases away from zero, as Rust's round
FK_FLOAT_UNARY(trunc, truncf, trunc)
FK_FLOAT_BINARY(powf, powf, pow)
FK_FLOAT_BINARY(atan2, atan2f, atan2)  // y.atan2(x): atan2(y, x)
// min and max ignore a NaN operand, as Rust's do. For min(0.0, -0.0) the device returns -0.0 and
// max(-0.0, 0.0) gives 0.0; Rust leaves the sign of such a zero unspecified.
FK_FLOAT_BINARY(min, fminf, fmin)
FK_FLOAT_BINARY(max, fmaxf, fmax)
#undef FK_FLOAT_UNARY
#undef FK_FLOAT_BINARY

/// `x.hypot(y)`. CUDA's hypot is within 2 ulp, so a result within an ulp or two of the largest finite
/// value can overflow to infinity (hypot(0.5, f64::MAX) must be f64::MAX). When it does for finite
/// inputs, the result is recomputed as a * sqrt(1 + (b/a)^2), a = max(|x|, |y|), b = min(|x|, |y|),
/// which is exactly a when b is negligible and overflows only when the true result does.
__device__ __forceinline__ f32 hypot(f32 x, f32 y) {
  const f32 r = ::hypotf(x, y);
  if (r != infinity<f32>() || !is_finite(x) || !is_finite(y)) return r;
  const f32 a = ::fmaxf(::fabsf(x), ::fabsf(y));
  const f32 t = ::fminf(::fabsf(x), ::fabsf(y)) / a;
  return a * ::sqrtf(::fmaf(t, t, 1.0f));
}
__device__ __forceinline__ f64 hypot(f64 x, f64 y) {
  const f64 r = ::hypot(x, y);
  if (r != infinity<f64>() || !is_finite(x) || !is_finite(y)) return r;
  const f64 a = ::fmax(::fabs(x), ::fabs(y));
  const f64 t = ::fmin(::fabs(x), ::fabs(y)) / a;
  return a * ::sqrt(::fma(t, t, 1.0));
}

/// `x.mul_add(a, b)`: x * a + b rounded once.
__device__ __forceinline__ f32 mul_add(f32 x, f32 a, f32 b) { return ::fmaf(x, a, b); }
__device__ __forceinline__ f64 mul_add(f64 x, f64 a, f64 b) { return ::fma(x, a, b); }

/// `x.signum()`: 1 for +0.0 and positive numbers, -1 for -0.0 and negative ones, NaN for NaN.
__device__ __forceinline__ f32 signum(f32 x) { return x != x ? x : ::copysignf(1.0f, x); }
__device__ __forceinline__ f64 signum(f64 x) { return x != x ? x : ::copysign(1.0, x); }

/// `x.clamp(lo, hi)`: NaN stays NaN. (Rust panics when lo > hi or either is NaN; here the result is
/// then hi or lo.)
__device__ __forceinline__ f32 clamp(f32 x, f32 lo, f32 hi) {
  if (x < lo) x = lo;
  if (x > hi) x = hi;
  return x;
}
__device__ __forceinline__ f64 clamp(f64 x, f64 lo, f64 hi) {
  if (x < lo) x = lo;
  if (x > hi) x = hi;
  return x;
}

namespace detail {
// x^n by binary powering, the way LLVM's powi runtime routine (used by Rust's powi) computes it:
// the same multiplications in the same order, then a reciprocal for negative n.
template <class F>
__device__ __forceinline__ F powi(F x, i32 n) {
  const bool reciprocal = n < 0;
  F r = (F)1;
  for (;;) {
    if (n & 1) r *= x;
    n /= 2;
    if (n == 0) break;
    x *= x;
  }
  return reciprocal ? (F)1 / r : r;
}
}  // namespace detail

/// `x.powi(n)`.
__device__ __forceinline__ f32 powi(f32 x, i32 n) { return detail::powi(x, n); }
__device__ __forceinline__ f64 powi(f64 x, i32 n) { return detail::powi(x, n); }

// ---------------------------------------------------------------------------------------------------
// Integer methods for the ten integer types (i8 ... u64; isize and usize are i64 and u64), with
// Rust's release semantics. Arithmetic that may overflow is done in an unsigned type (no UB).
// ---------------------------------------------------------------------------------------------------

/// `a.min(b)`.
template <class T> __device__ __forceinline__ detail::if_int<T> min(T a, T b) { return b < a ? b : a; }
/// `a.max(b)`.
template <class T> __device__ __forceinline__ detail::if_int<T> max(T a, T b) { return a < b ? b : a; }

/// `a.abs()`: MIN stays MIN (wrapping); unsigned values are returned as they are.
template <class T>
__device__ __forceinline__ detail::if_int<T> abs(T a) {
  typedef detail::int_traits<T> tr;
  if constexpr (tr::is_signed) {
    return a < 0 ? (T)((typename tr::W)0 - (typename tr::W)(typename tr::U)a) : a;
  } else {
    return a;
  }
}

/// `a.wrapping_add(b)`.
template <class T>
__device__ __forceinline__ detail::if_int<T> wrapping_add(T a, T b) {
  typedef typename detail::int_traits<T>::W W;
  typedef typename detail::int_traits<T>::U U;
  return (T)((W)(U)a + (W)(U)b);
}

/// `a.wrapping_sub(b)`.
template <class T>
__device__ __forceinline__ detail::if_int<T> wrapping_sub(T a, T b) {
  typedef typename detail::int_traits<T>::W W;
  typedef typename detail::int_traits<T>::U U;
  return (T)((W)(U)a - (W)(U)b);
}

/// `a.wrapping_mul(b)`.
template <class T>
__device__ __forceinline__ detail::if_int<T> wrapping_mul(T a, T b) {
  typedef typename detail::int_traits<T>::W W;
  typedef typename detail::int_traits<T>::U U;
  return (T)((W)(U)a * (W)(U)b);
}

/// `a.pow(exp)`: wrapping, by squaring.
template <class T>
__device__ __forceinline__ detail::if_int<T> pow(T a, u32 exp) {
  typedef typename detail::int_traits<T>::W W;
  typedef typename detail::int_traits<T>::U U;
  W base = (W)(U)a;
  W acc = 1;
  while (exp != 0) {
    if (exp & 1u) acc *= base;
    exp >>= 1;
    base *= base;
  }
  return (T)acc;
}

/// `-a` for an integer, wrapping (Rust's release build: `-MIN` is MIN), without C++'s undefined
/// signed overflow.
template <class T>
__device__ __forceinline__ detail::if_int<T> wrapping_neg(T a) {
  typedef typename detail::int_traits<T>::W W;
  typedef typename detail::int_traits<T>::U U;
  return (T)((W)0 - (W)(U)a);
}

/// Whether `a / b` or `a % b` is one Rust panics on: `b == 0`, or MIN / -1 for a signed type.
template <class T>
__device__ __forceinline__ bool division_fails(T a, T b) {
  if (b == 0) return true;
  if constexpr (detail::int_traits<T>::is_signed) {
    return a == detail::int_traits<T>::min() && b == (T)-1;
  } else {
    return false;
  }
}

/// `a / b` for integers (truncating, as Rust). Where Rust panics (by zero, MIN / -1) the division
/// is recorded as an arithmetic fault (an error at the next wait for the device) and gives 0.
template <class T>
__device__ __forceinline__ detail::if_int<T> div(T a, T b) {
  if (division_fails(a, b)) {
    detail::arithmetic_fault();
    return (T)0;
  }
  return (T)(a / b);
}

/// `a % b` for integers (sign of `a`, as Rust); faults as `div`.
template <class T>
__device__ __forceinline__ detail::if_int<T> rem(T a, T b) {
  if (division_fails(a, b)) {
    detail::arithmetic_fault();
    return (T)0;
  }
  return (T)(a % b);
}

/// `a.rem_euclid(b)`: the least non-negative remainder for signed types. By zero, and for
/// `MIN.rem_euclid(-1)`, Rust panics: recorded as an arithmetic fault, giving 0.
template <class T>
__device__ __forceinline__ detail::if_int<T> rem_euclid(T a, T b) {
  if (division_fails(a, b)) {
    detail::arithmetic_fault();
    return (T)0;
  }
  if constexpr (detail::int_traits<T>::is_signed) {
    if (b == (T)-1) return 0;
    const T r = (T)(a % b);
    if (r >= 0) return r;
    return b < 0 ? (T)(r - b) : (T)(r + b);
  } else {
    return (T)(a % b);
  }
}

namespace detail {
// The result type u32, only for the ten integer types.
template <class T> using u32_if_int = typename enable_if<int_traits<T>::is_int, u32>::type;
}  // namespace detail

/// `a.count_ones()`.
template <class T>
__device__ __forceinline__ detail::u32_if_int<T> count_ones(T a) {
  typedef detail::int_traits<T> tr;
  if constexpr (tr::bits == 64) {
    return (u32)__popcll((u64)a);
  } else {
    return (u32)__popc((u32)(typename tr::U)a);  // zero-extended
  }
}

/// `a.leading_zeros()`, counted in T's width (0 gives the width).
template <class T>
__device__ __forceinline__ detail::u32_if_int<T> leading_zeros(T a) {
  typedef detail::int_traits<T> tr;
  if constexpr (tr::bits == 64) {
    return (u32)__clzll((i64)a);
  } else {
    // Zero-extended to 32 bits, which adds 32 - bits leading zeros.
    return (u32)__clz((i32)(u32)(typename tr::U)a) - (32u - tr::bits);
  }
}

// ---------------------------------------------------------------------------------------------------
// Atomics on one element: atomic_add, atomic_min, atomic_max for i32 u32 i64 u64 f32 f64. Each
// returns the element's previous value. f32/f64 min and max ignore NaN as fmin/fmax do.
// ---------------------------------------------------------------------------------------------------

/// `*p += v` atomically.
__device__ __forceinline__ i32 atomic_add(i32* p, i32 v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ u32 atomic_add(u32* p, u32 v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ u64 atomic_add(u64* p, u64 v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ i64 atomic_add(i64* p, i64 v) {
  // Two's complement addition is the same operation on the unsigned bits.
  return (i64)::atomicAdd((u64*)p, (u64)v);
}
__device__ __forceinline__ f32 atomic_add(f32* p, f32 v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ f64 atomic_add(f64* p, f64 v) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
  return ::atomicAdd(p, v);
#else
  u64* bits = (u64*)p;
  u64 old = *bits;
  for (;;) {
    const u64 desired = (u64)__double_as_longlong(__longlong_as_double((i64)old) + v);
    const u64 seen = ::atomicCAS(bits, old, desired);
    if (seen == old) return __longlong_as_double((i64)old);
    old = seen;
  }
#endif
}

/// `*p = min(*p, v)` atomically.
__device__ __forceinline__ i32 atomic_min(i32* p, i32 v) { return ::atomicMin(p, v); }
__device__ __forceinline__ u32 atomic_min(u32* p, u32 v) { return ::atomicMin(p, v); }
__device__ __forceinline__ i64 atomic_min(i64* p, i64 v) { return ::atomicMin(p, v); }
__device__ __forceinline__ u64 atomic_min(u64* p, u64 v) { return ::atomicMin(p, v); }
/// `*p = max(*p, v)` atomically.
__device__ __forceinline__ i32 atomic_max(i32* p, i32 v) { return ::atomicMax(p, v); }
__device__ __forceinline__ u32 atomic_max(u32* p, u32 v) { return ::atomicMax(p, v); }
__device__ __forceinline__ i64 atomic_max(i64* p, i64 v) { return ::atomicMax(p, v); }
__device__ __forceinline__ u64 atomic_max(u64* p, u64 v) { return ::atomicMax(p, v); }

namespace detail {
// A compare-and-swap loop that replaces *p by op(*p, v) until it sticks; returns the previous value.
// It writes nothing when op leaves the bits unchanged.
template <class Op>
__device__ __forceinline__ f32 atomic_update(f32* p, f32 v, Op op) {
  u32* bits = (u32*)p;
  u32 old = *(volatile u32*)bits;
  for (;;) {
    const u32 desired = __float_as_uint(op(__uint_as_float(old), v));
    if (desired == old) return __uint_as_float(old);
    const u32 seen = ::atomicCAS(bits, old, desired);
    if (seen == old) return __uint_as_float(old);
    old = seen;
  }
}
template <class Op>
__device__ __forceinline__ f64 atomic_update(f64* p, f64 v, Op op) {
  u64* bits = (u64*)p;
  u64 old = *(volatile u64*)bits;
  for (;;) {
    const u64 desired = (u64)__double_as_longlong(op(__longlong_as_double((i64)old), v));
    if (desired == old) return __longlong_as_double((i64)old);
    const u64 seen = ::atomicCAS(bits, old, desired);
    if (seen == old) return __longlong_as_double((i64)old);
    old = seen;
  }
}
struct fmin_op {
  __device__ __forceinline__ f32 operator()(f32 a, f32 b) const { return ::fminf(a, b); }
  __device__ __forceinline__ f64 operator()(f64 a, f64 b) const { return ::fmin(a, b); }
};
struct fmax_op {
  __device__ __forceinline__ f32 operator()(f32 a, f32 b) const { return ::fmaxf(a, b); }
  __device__ __forceinline__ f64 operator()(f64 a, f64 b) const { return ::fmax(a, b); }
};
}  // namespace detail

__device__ __forceinline__ f32 atomic_min(f32* p, f32 v) { return detail::atomic_update(p, v, detail::fmin_op()); }
__device__ __forceinline__ f64 atomic_min(f64* p, f64 v) { return detail::atomic_update(p, v, detail::fmin_op()); }
__device__ __forceinline__ f32 atomic_max(f32* p, f32 v) { return detail::atomic_update(p, v, detail::fmax_op()); }
__device__ __forceinline__ f64 atomic_max(f64* p, f64 v) { return detail::atomic_update(p, v, detail::fmax_op()); }

// ---------------------------------------------------------------------------------------------------
// Reducers, matching ferrokkos' host reducers: `value_type`, `identity()` (Kokkos'
// reduction_identity) and `join(dst, src)`, where dst holds the earlier contributions.
// ---------------------------------------------------------------------------------------------------

/// Sum (identity 0; integers wrap).
template <class T>
struct Sum {
  typedef T value_type;
  static __device__ __forceinline__ T identity() { return (T)0; }
  static __device__ __forceinline__ void join(T& dst, const T& src) {
    if constexpr (detail::is_float<T>::value) {
      dst = dst + src;
    } else {
      dst = wrapping_add(dst, src);
    }
  }
};

/// Product (identity 1; integers wrap).
template <class T>
struct Prod {
  typedef T value_type;
  static __device__ __forceinline__ T identity() { return (T)1; }
  static __device__ __forceinline__ void join(T& dst, const T& src) {
    if constexpr (detail::is_float<T>::value) {
      dst = dst * src;
    } else {
      dst = wrapping_mul(dst, src);
    }
  }
};

/// Minimum (identity: the largest finite value; a NaN src is ignored).
template <class T>
struct Min {
  typedef T value_type;
  static __device__ __forceinline__ T identity() { return largest<T>(); }
  static __device__ __forceinline__ void join(T& dst, const T& src) {
    if (src < dst) dst = src;
  }
};

/// Maximum (identity: the lowest finite value; a NaN src is ignored).
template <class T>
struct Max {
  typedef T value_type;
  static __device__ __forceinline__ T identity() { return lowest<T>(); }
  static __device__ __forceinline__ void join(T& dst, const T& src) {
    if (src > dst) dst = src;
  }
};

/// Bitwise and (identity: all bits set); T is an integer type or bool.
template <class T>
struct BAnd {
  typedef T value_type;
  static __device__ __forceinline__ T identity() {
    if constexpr (detail::is_same<T, bool>::value) {
      return true;
    } else {
      return (T)~(typename detail::int_traits<T>::U)0;
    }
  }
  static __device__ __forceinline__ void join(T& dst, const T& src) { dst = (T)(dst & src); }
};

/// Bitwise or (identity: no bit set); T is an integer type or bool.
template <class T>
struct BOr {
  typedef T value_type;
  static __device__ __forceinline__ T identity() { return (T)0; }
  static __device__ __forceinline__ void join(T& dst, const T& src) { dst = (T)(dst | src); }
};

/// Logical and (identity true).
struct LAnd {
  typedef bool value_type;
  static __device__ __forceinline__ bool identity() { return true; }
  static __device__ __forceinline__ void join(bool& dst, const bool& src) { dst = dst && src; }
};

/// Logical or (identity false).
struct LOr {
  typedef bool value_type;
  static __device__ __forceinline__ bool identity() { return false; }
  static __device__ __forceinline__ void join(bool& dst, const bool& src) { dst = dst || src; }
};

/// A value and its location (host: `ValLocScalar<T, I>`, same field order).
template <class T, class I>
struct ValLocScalar {
  T val;
  I loc;
};

/// A minimum and a maximum (host: `MinMaxScalar<T>`).
template <class T>
struct MinMaxScalar {
  T min_val;
  T max_val;
};

/// A minimum and a maximum with their locations (host: `MinMaxLocScalar<T, I>`).
template <class T, class I>
struct MinMaxLocScalar {
  T min_val;
  T max_val;
  I min_loc;
  I max_loc;
};

namespace detail {
// Whether (v, l) beats (best, at): a strictly better value, or an equal one at a smaller location.
template <class T, class I>
__device__ __forceinline__ bool better_min(const T& v, const I& l, const T& best, const I& at) {
  return v < best || (v == best && l < at);
}
template <class T, class I>
__device__ __forceinline__ bool better_max(const T& v, const I& l, const T& best, const I& at) {
  return v > best || (v == best && l < at);
}
}  // namespace detail

/// The minimum and its location; ties keep the smallest location. Identity: (largest, I's max).
template <class T, class I>
struct MinLoc {
  typedef ValLocScalar<T, I> value_type;
  static __device__ __forceinline__ value_type identity() {
    return value_type{largest<T>(), detail::int_traits<I>::max()};
  }
  static __device__ __forceinline__ void join(value_type& dst, const value_type& src) {
    if (detail::better_min(src.val, src.loc, dst.val, dst.loc)) dst = src;
  }
};

/// The maximum and its location; ties keep the smallest location. Identity: (lowest, I's max).
template <class T, class I>
struct MaxLoc {
  typedef ValLocScalar<T, I> value_type;
  static __device__ __forceinline__ value_type identity() {
    return value_type{lowest<T>(), detail::int_traits<I>::max()};
  }
  static __device__ __forceinline__ void join(value_type& dst, const value_type& src) {
    if (detail::better_max(src.val, src.loc, dst.val, dst.loc)) dst = src;
  }
};

/// The minimum and the maximum. Identity: (largest, lowest).
template <class T>
struct MinMax {
  typedef MinMaxScalar<T> value_type;
  static __device__ __forceinline__ value_type identity() {
    return value_type{largest<T>(), lowest<T>()};
  }
  static __device__ __forceinline__ void join(value_type& dst, const value_type& src) {
    if (src.min_val < dst.min_val) dst.min_val = src.min_val;
    if (src.max_val > dst.max_val) dst.max_val = src.max_val;
  }
};

/// The minimum and the maximum with their locations; ties keep the smallest locations. Identity:
/// (largest, lowest, I's max, I's max).
template <class T, class I>
struct MinMaxLoc {
  typedef MinMaxLocScalar<T, I> value_type;
  static __device__ __forceinline__ value_type identity() {
    return value_type{largest<T>(), lowest<T>(), detail::int_traits<I>::max(),
                      detail::int_traits<I>::max()};
  }
  static __device__ __forceinline__ void join(value_type& dst, const value_type& src) {
    if (detail::better_min(src.min_val, src.min_loc, dst.min_val, dst.min_loc)) {
      dst.min_val = src.min_val;
      dst.min_loc = src.min_loc;
    }
    if (detail::better_max(src.max_val, src.max_loc, dst.max_val, dst.max_loc)) {
      dst.max_val = src.max_val;
      dst.max_loc = src.max_loc;
    }
  }
};

// ---------------------------------------------------------------------------------------------------
// Block-level reduce and exclusive scan for the entry kernels: one 1-D block of blockDim.x <= 1024
// threads, every thread calls. Joins keep thread order (the lower-indexed side is always dst), so the
// result depends only on blockDim.x, never on timing. Values go through warp shuffles (any trivially
// copyable value_type, moved in 32-bit words) and one shared-memory slot per warp.
// ---------------------------------------------------------------------------------------------------

namespace detail {

template <class T>
union words {
  T value;
  u32 word[(sizeof(T) + 3) / 4];
};

// __shfl_down_sync / __shfl_up_sync for any trivially copyable T.
template <class T>
__device__ __forceinline__ T shfl_down(const T& v, unsigned delta, unsigned mask) {
  words<T> w;
  w.value = v;
#pragma unroll
  for (unsigned k = 0; k < sizeof(w.word) / 4; ++k) w.word[k] = __shfl_down_sync(mask, w.word[k], delta);
  return w.value;
}
template <class T>
__device__ __forceinline__ T shfl_up(const T& v, unsigned delta, unsigned mask) {
  words<T> w;
  w.value = v;
#pragma unroll
  for (unsigned k = 0; k < sizeof(w.word) / 4; ++k) w.word[k] = __shfl_up_sync(mask, w.word[k], delta);
  return w.value;
}

// How many threads this thread's warp has in the block (the last warp may be partial), and the
// shuffle mask of those lanes.
__device__ __forceinline__ unsigned warp_lanes() {
  const unsigned n = blockDim.x - (threadIdx.x & ~31u);
  return n >= 32u ? 32u : n;
}
__device__ __forceinline__ unsigned lane_mask(unsigned lanes) {
  return lanes >= 32u ? 0xffffffffu : ((1u << lanes) - 1u);
}

// After it, lane 0 holds the in-order join of the values of lanes [0, valid). `mask` holds every lane
// of the warp that exists (all must call); valid <= their number.
template <class Red>
__device__ __forceinline__ void warp_reduce(typename Red::value_type& v, unsigned lane, unsigned mask,
                                            unsigned valid) {
#pragma unroll
  for (unsigned d = 1; d < 32u; d *= 2) {
    // Lanes that are multiples of 2d hold the join of [lane, lane + d) and join [lane + d, lane + 2d).
    const typename Red::value_type higher = shfl_down(v, d, mask);
    if (lane + d < valid) Red::join(v, higher);
  }
}

// After it, lane i holds the in-order join of the values of lanes 0..=i (inclusive scan). `mask`
// holds every lane of the warp that exists (all must call).
template <class Red>
__device__ __forceinline__ void warp_inclusive_scan(typename Red::value_type& v, unsigned lane,
                                                    unsigned mask) {
#pragma unroll
  for (unsigned d = 1; d < 32u; d *= 2) {
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
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  const unsigned warps = (blockDim.x + 31u) >> 5;
  const unsigned lanes = detail::warp_lanes();
  const unsigned mask = detail::lane_mask(lanes);
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
  const unsigned lane = threadIdx.x & 31u;
  const unsigned warp = threadIdx.x >> 5;
  const unsigned warps = (blockDim.x + 31u) >> 5;
  const unsigned lanes = detail::warp_lanes();
  const unsigned mask = detail::lane_mask(lanes);

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

#endif  // FERROKKOS_DEVICE_CUH
