// ferrokkos device header: float and integer methods.
// One part of the header; `kernel/device_header.rs` joins the parts in order (see types.cuh).

namespace fk {

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

/// `x.try_into().unwrap()` between integer types: the value when `To` holds it; otherwise (where
/// Rust panics) an arithmetic fault is recorded and the result is 0.
template <class To, class From>
__device__ __forceinline__ detail::if_int<To> checked_cast(From x) {
  typedef detail::int_traits<From> F;
  typedef detail::int_traits<To> T;
  bool fits;
  if constexpr (F::is_signed && !T::is_signed) {
    fits = x >= 0 && (unsigned long long)x <= (unsigned long long)T::max();
  } else if constexpr (!F::is_signed && T::is_signed) {
    fits = (unsigned long long)x <= (unsigned long long)T::max();
  } else if constexpr (F::is_signed) {
    fits = (long long)x >= (long long)T::min() && (long long)x <= (long long)T::max();
  } else {
    fits = (unsigned long long)x <= (unsigned long long)T::max();
  }
  if (!fits) {
    detail::arithmetic_fault();
    return (To)0;
  }
  return (To)x;
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

}  // namespace fk

// ---------------------------------------------------------------------------------------------------
// Formatting for `println!` (the shadow's `printf` arguments, `kernel/shadow/print.rs`): Rust's
// spellings where C's `printf` has none.
// ---------------------------------------------------------------------------------------------------

namespace fk {

/// `true` / `false`, as Rust prints a `bool`.
__device__ __forceinline__ const char* fmt_bool(bool b) { return b ? "true" : "false"; }

/// The `.0` that Rust's `{:?}` adds to a float `%g` prints without a point (an integral value
/// below 1e6 in magnitude); "" otherwise.
__device__ __forceinline__ const char* fmt_point(f64 x) {
  return (::fabs(x) < 1e6 && ::floor(x) == x) ? ".0" : "";
}

/// Whether `x` is finite, as 1 or 0: the length of the `e` and the exponent digits of `{:e}`
/// (Rust prints `inf` and `NaN` without an exponent).
__device__ __forceinline__ int fmt_finite(f64 x) { return ::fabs(x) <= largest<f64>() ? 1 : 0; }

namespace detail {
/// `10^e` for any exponent of a double (the power split in two, so that neither half overflows).
__device__ __forceinline__ f64 pow10_split(int e) {
  return ::pow(10.0, (f64)(e / 2)) * ::pow(10.0, (f64)(e - e / 2));
}
}  // namespace detail

/// The decimal exponent of `x` in Rust's `{:e}` / `{:.Ne}` (`digits` after the point; -1: the six
/// significant digits of `%g`), after the mantissa's rounding: 0 for zero, infinities and NaN.
__device__ __forceinline__ int fmt_exponent(f64 x, int digits) {
  const f64 a = ::fabs(x);
  if (!(a <= largest<f64>()) || a == 0.0) return 0;
  int e = (int)::floor(::log10(a));
  f64 m = a / detail::pow10_split(e);
  if (m >= 10.0) {
    m /= 10.0;
    e += 1;
  } else if (m < 1.0) {
    m *= 10.0;
    e -= 1;
  }
  const f64 scale = ::pow(10.0, (f64)(digits < 0 ? 5 : digits));
  if (::rint(m * scale) / scale >= 10.0) e += 1;
  return e;
}

/// The mantissa of `x` in `{:e}` (see `fmt_exponent`): `x / 10^e`, `x` itself when not finite.
__device__ __forceinline__ f64 fmt_mantissa(f64 x, int digits) {
  return x / detail::pow10_split(fmt_exponent(x, digits));
}

}  // namespace fk
