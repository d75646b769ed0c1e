// ferrokkos device header: complex numbers.
// One part of the header; `codegen/header.rs` joins the parts in order (see types.cuh).
//
// `fk::complex<T>` is num-complex's `Complex<T>` (`#[repr(C)]`: `re`, then `im`), named `c32` and
// `c64` in generated code. Arithmetic and methods use num-complex's formulas in the same order (the
// units compile with --fmad=false), so `+ - * /` (also with a real operand on either side),
// `conj`, `norm_sqr`, `scale`, `unscale` and `inv` give the host's bits; `norm`, `arg`, `exp`,
// `ln` and `from_polar` go through the header's `hypot`, `atan2`, `exp`, `ln`, `sin` and `cos`
// (within their ulps of the host's).

namespace fk {

template <class T>
struct complex {
  T re;
  T im;
  complex() = default;
  __device__ __forceinline__ complex(T r, T i) : re(r), im(i) {}
};

}  // namespace fk

typedef fk::complex<f32> c32;
typedef fk::complex<f64> c64;
static_assert(sizeof(c32) == 8 && alignof(c32) == 4, "c32: num-complex's Complex<f32>");
static_assert(sizeof(c64) == 16 && alignof(c64) == 8, "c64: num-complex's Complex<f64>");

namespace fk {

template <class T>
__device__ __forceinline__ complex<T> operator+(complex<T> a, complex<T> b) {
  return complex<T>(a.re + b.re, a.im + b.im);
}
template <class T>
__device__ __forceinline__ complex<T> operator-(complex<T> a, complex<T> b) {
  return complex<T>(a.re - b.re, a.im - b.im);
}
template <class T>
__device__ __forceinline__ complex<T> operator*(complex<T> a, complex<T> b) {
  return complex<T>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
template <class T>
__device__ __forceinline__ complex<T> operator/(complex<T> a, complex<T> b) {
  const T n = b.re * b.re + b.im * b.im;
  return complex<T>((a.re * b.re + a.im * b.im) / n, (a.im * b.re - a.re * b.im) / n);
}
template <class T>
__device__ __forceinline__ complex<T> operator-(complex<T> a) {
  return complex<T>(-a.re, -a.im);
}
template <class T>
__device__ __forceinline__ bool operator==(complex<T> a, complex<T> b) {
  return a.re == b.re && a.im == b.im;
}
template <class T>
__device__ __forceinline__ bool operator!=(complex<T> a, complex<T> b) {
  return !(a == b);
}
template <class T>
__device__ __forceinline__ complex<T>& operator+=(complex<T>& a, complex<T> b) { return a = a + b; }
template <class T>
__device__ __forceinline__ complex<T>& operator-=(complex<T>& a, complex<T> b) { return a = a - b; }
template <class T>
__device__ __forceinline__ complex<T>& operator*=(complex<T>& a, complex<T> b) { return a = a * b; }
template <class T>
__device__ __forceinline__ complex<T>& operator/=(complex<T>& a, complex<T> b) { return a = a / b; }

// num-complex's mixed arithmetic of a complex number and a real of its part type.
template <class T>
__device__ __forceinline__ complex<T> operator+(complex<T> a, T b) { return complex<T>(a.re + b, a.im); }
template <class T>
__device__ __forceinline__ complex<T> operator-(complex<T> a, T b) { return complex<T>(a.re - b, a.im); }
template <class T>
__device__ __forceinline__ complex<T> operator*(complex<T> a, T b) { return complex<T>(a.re * b, a.im * b); }
template <class T>
__device__ __forceinline__ complex<T> operator/(complex<T> a, T b) { return complex<T>(a.re / b, a.im / b); }
template <class T>
__device__ __forceinline__ complex<T> operator+(T a, complex<T> b) { return complex<T>(a + b.re, b.im); }
template <class T>
__device__ __forceinline__ complex<T> operator-(T a, complex<T> b) {
  return complex<T>(a - b.re, (T)0 - b.im);
}
template <class T>
__device__ __forceinline__ complex<T> operator*(T a, complex<T> b) { return complex<T>(a * b.re, a * b.im); }
template <class T>
__device__ __forceinline__ complex<T> operator/(T a, complex<T> b) {
  const T n = b.re * b.re + b.im * b.im;
  return complex<T>(a * b.re / n, (T)0 - a * b.im / n);
}
template <class T>
__device__ __forceinline__ complex<T>& operator+=(complex<T>& a, T b) { return a = a + b; }
template <class T>
__device__ __forceinline__ complex<T>& operator-=(complex<T>& a, T b) { return a = a - b; }
template <class T>
__device__ __forceinline__ complex<T>& operator*=(complex<T>& a, T b) { return a = a * b; }
template <class T>
__device__ __forceinline__ complex<T>& operator/=(complex<T>& a, T b) { return a = a / b; }

/// `a % m`: num-complex's remainder, `a - m * q` with `q` the quotient's parts truncated.
template <class T>
__device__ __forceinline__ complex<T> rem(complex<T> a, complex<T> m) {
  const complex<T> q = a / m;
  const complex<T> g(q.re - ::fmod(q.re, (T)1), q.im - ::fmod(q.im, (T)1));
  return a - m * g;
}

/// `a % m` for a real `m`: the parts' remainders.
template <class T>
__device__ __forceinline__ complex<T> rem(complex<T> a, T m) {
  return complex<T>(::fmod(a.re, m), ::fmod(a.im, m));
}
/// `a % m` for a real `a`: `Complex::new(a, 0) % m`.
template <class T>
__device__ __forceinline__ complex<T> rem(T a, complex<T> m) { return rem(complex<T>(a, (T)0), m); }

/// `z.conj()`.
template <class T>
__device__ __forceinline__ complex<T> conj(complex<T> z) { return complex<T>(z.re, -z.im); }
/// `z.norm_sqr()`.
template <class T>
__device__ __forceinline__ T norm_sqr(complex<T> z) { return z.re * z.re + z.im * z.im; }
/// `z.norm()`: `re.hypot(im)`.
template <class T>
__device__ __forceinline__ T norm(complex<T> z) { return hypot(z.re, z.im); }
/// `z.arg()`: `im.atan2(re)`.
template <class T>
__device__ __forceinline__ T arg(complex<T> z) { return atan2(z.im, z.re); }
/// `z.scale(t)`, `z.unscale(t)`.
template <class T>
__device__ __forceinline__ complex<T> scale(complex<T> z, T t) { return complex<T>(z.re * t, z.im * t); }
template <class T>
__device__ __forceinline__ complex<T> unscale(complex<T> z, T t) { return complex<T>(z.re / t, z.im / t); }
/// `z.inv()`.
template <class T>
__device__ __forceinline__ complex<T> inv(complex<T> z) {
  const T n = norm_sqr(z);
  return complex<T>(z.re / n, -z.im / n);
}
/// `Complex::from_polar(r, theta)`.
template <class T>
__device__ __forceinline__ complex<T> from_polar(T r, T theta) {
  return complex<T>(r * cos(theta), r * sin(theta));
}
/// `z.exp()`, with num-complex's treatment of infinite and NaN parts.
template <class T>
__device__ __forceinline__ complex<T> exp(complex<T> z) {
  T re = z.re, im = z.im;
  if (!is_finite(re) && !is_nan(re)) {
    if (re < (T)0) {
      if (!is_finite(im)) return complex<T>((T)0, (T)0);
    } else if (im == (T)0 || !is_finite(im)) {
      if (!is_finite(im) && !is_nan(im)) im = quiet_nan<T>();
      return complex<T>(re, im);
    }
  } else if (is_nan(re) && im == (T)0) {
    return z;
  }
  return from_polar(exp(re), im);
}
/// `z.ln()`: `ln |z| + i arg z`.
template <class T>
__device__ __forceinline__ complex<T> ln(complex<T> z) { return complex<T>(ln(norm(z)), arg(z)); }

}  // namespace fk
