// ferrokkos device header: Views, special float values, casts, shifts.
// One part of the header; `kernel/device_header.rs` joins the parts in order (see types.cuh).

namespace fk {

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

namespace detail {
template <class T> using remove_const_t = typename remove_const<T>::type;
/// The element types a read-only (`const`) View loads through the read-only data cache
/// (`__ldg`): a capture is `const` only where nothing writes its memory while the kernel runs
/// (`UnitOptions::unsafe_aliasing` in `codegen/unit.rs` says why).
template <class T> struct ldg_able { static constexpr bool value = false; };
template <> struct ldg_able<const f64> { static constexpr bool value = true; };
template <> struct ldg_able<const f32> { static constexpr bool value = true; };
template <> struct ldg_able<const i32> { static constexpr bool value = true; };
template <> struct ldg_able<const u32> { static constexpr bool value = true; };
template <> struct ldg_able<const i64> { static constexpr bool value = true; };
template <> struct ldg_able<const u64> { static constexpr bool value = true; };
}  // namespace detail

/// The first argument of a View access at an index map that the kernel records for its launches
/// to prove (`x(fk_proven, i, j)`): each entry declares `fk_proven` a `Proof<true>` where its
/// launch proved every such access inside its View at every index of the launch (then the access
/// skips its bounds check), a `Proof<false>` everywhere else (then it is checked).
template <bool Proven> struct Proof {};

/// A View of rank R >= 1 over elements of type T (`const T` for read-only captures).
template <class T, int R, class L>
struct View {
  static_assert(R >= 1 && R <= 8, "fk::View: the rank must be 1 to 8 (rank 0 is specialized)");

  T* data;
  usize extent[R];
  usize stride[R];

  /// The element at the multi-index (any integer types, converted to usize; a negative index becomes
  /// a huge one). An index outside the extents reaches no memory (see `detail::out_of_bounds`).
  /// A read-only View of an `ldg_able` type gives the value (loaded with `__ldg`), any other a
  /// reference.
  template <class... I>
  __device__ __forceinline__ decltype(auto) operator()(I... index) const {
    static_assert(sizeof...(I) == R, "fk::View: the number of indices must equal the rank");
    static_assert((detail::int_traits<typename detail::remove_const<I>::type>::is_int && ...),
                  "fk::View: indices must be integers");
    const usize idx[R] = {static_cast<usize>(index)...};
    return at(idx);
  }

  /// The element at the multi-index, as `operator()` gives it; without the bounds check when
  /// `Proven` (see `Proof`; `kernel/bounds.rs`).
  template <bool Proven, class... I>
  __device__ __forceinline__ decltype(auto) operator()(Proof<Proven>, I... index) const {
    static_assert(sizeof...(I) == R, "fk::View: the number of indices must equal the rank");
    static_assert((detail::int_traits<typename detail::remove_const<I>::type>::is_int && ...),
                  "fk::View: indices must be integers");
    const usize idx[R] = {static_cast<usize>(index)...};
    if constexpr (Proven) {
      return at_proven(idx);
    } else {
      return at(idx);
    }
  }

  /// The element at the zero-based coordinates `idx`, which the launch proved inside the extents.
  __device__ __forceinline__ decltype(auto) at_proven(const usize (&idx)[R]) const {
    usize offset = 0;
#pragma unroll
    for (int k = 0; k < R; ++k) {
      const bool unit = (detail::is_same<L, LayoutRight>::value && k == R - 1) ||
                        (detail::is_same<L, LayoutLeft>::value && k == 0);
      offset += unit ? idx[k] : idx[k] * stride[k];
    }
    if constexpr (detail::ldg_able<T>::value) {
      return __ldg(data + offset);
    } else {
      return (data[offset]);
    }
  }

  /// The element at the zero-based coordinates `idx` (checked as `operator()` checks them).
  __device__ __forceinline__ decltype(auto) at(const usize (&idx)[R]) const {
    usize offset = 0;
#pragma unroll
    for (int k = 0; k < R; ++k) {
      if (idx[k] >= extent[k]) {
        detail::out_of_bounds<R>(0u, idx, extent);
        if constexpr (detail::ldg_able<T>::value) {
          return detail::remove_const_t<T>(detail::oob<T>::element());
        } else {
          return detail::oob<T>::element();
        }
      }
      // The unit stride of the contiguous dimension is a constant, so the compiler drops a multiply.
      const bool unit = (detail::is_same<L, LayoutRight>::value && k == R - 1) ||
                        (detail::is_same<L, LayoutLeft>::value && k == 0);
      offset += unit ? idx[k] : idx[k] * stride[k];
    }
    if constexpr (detail::ldg_able<T>::value) {
      return __ldg(data + offset);
    } else {
      return (data[offset]);
    }
  }
};

/// A View that a kernel passes to a `#[device]` function at a call whose reads the launch may prove
/// (`fk::proven(u, fk_proven)`): the function (a template over its View parameters) reads it
/// unchecked when `Proven`, as the View checks otherwise.
template <class T, int R, class L, bool Proven>
struct ProvenView : View<T, R, L> {
  template <class... I>
  __device__ __forceinline__ decltype(auto) operator()(I... index) const {
    return View<T, R, L>::operator()(Proof<Proven>{}, index...);
  }
};

/// `v` as a `ProvenView` of the entry's proof.
template <class T, int R, class L, bool Proven>
__device__ __forceinline__ ProvenView<T, R, L, Proven> proven(const View<T, R, L>& v,
                                                             Proof<Proven>) {
  return ProvenView<T, R, L, Proven>{v};
}

namespace detail {
/// `i - begin` as a zero-based coordinate when `i >= begin` (compared as integers), else a
/// coordinate past every extent: an index below its range is out of bounds, never wrapped into it.
template <class I>
__device__ __forceinline__ usize past_begin(I i, i64 begin) {
  if constexpr (int_traits<typename remove_const<I>::type>::is_signed) {
    const i64 v = static_cast<i64>(i);
    return v < begin ? ~usize(0) : static_cast<usize>(v) - static_cast<usize>(begin);
  } else {
    const usize u = static_cast<usize>(i);
    // An OffsetView's last index is at most the largest i64, so a larger `u` is past it.
    if (u > static_cast<usize>(0x7fffffffffffffffLL)) return ~usize(0);
    return static_cast<i64>(u) < begin ? ~usize(0) : u - static_cast<usize>(begin);
  }
}
}  // namespace detail

/// An OffsetView: a View whose index of dimension `k` starts at `begin[k]` (the host struct is the
/// View's descriptor, then R 64-bit begins). Out-of-range indices reach no memory, as a View's; the
/// fault records the zero-based coordinate.
template <class T, int R, class L>
struct OffsetView : View<T, R, L> {
  i64 begin[R];

  template <class... I>
  __device__ __forceinline__ decltype(auto) operator()(I... index) const {
    static_assert(sizeof...(I) == R, "fk::OffsetView: the number of indices must equal the rank");
    static_assert((detail::int_traits<typename detail::remove_const<I>::type>::is_int && ...),
                  "fk::OffsetView: indices must be integers");
    int k = 0;
    // Braced initializers are evaluated in order, so `k` walks the dimensions.
    const usize idx[R] = {detail::past_begin(index, begin[k++])...};
    return this->at(idx);
  }

  /// As a View's proven access: the coordinates past the begins, unchecked against the extents
  /// when `Proven` (the launch proved the index in `[begin, begin + extent)`).
  template <bool Proven, class... I>
  __device__ __forceinline__ decltype(auto) operator()(Proof<Proven>, I... index) const {
    static_assert(sizeof...(I) == R, "fk::OffsetView: the number of indices must equal the rank");
    int k = 0;
    const usize idx[R] = {detail::past_begin(index, begin[k++])...};
    if constexpr (Proven) {
      return this->at_proven(idx);
    } else {
      return this->at(idx);
    }
  }
};

/// A rank-0 View: one element (the host struct is the pointer alone).
template <class T, class L>
struct View<T, 0, L> {
  T* data;

  /// The element.
  __device__ __forceinline__ T& operator()() const { return *data; }

  /// The element (a proven access: a rank-0 View has no index to check).
  template <bool Proven>
  __device__ __forceinline__ T& operator()(Proof<Proven>) const { return *data; }
};

namespace detail {
/// Whether dimension `r` of a rank-`rank` View exists; records the fault (kind 3: the dimension and
/// the rank; the host panics) when it does not.
__device__ __forceinline__ bool has_dimension(usize r, usize rank) {
  if (r < rank) return true;
  const usize at[1] = {r};
  const usize ranks[1] = {rank};
  out_of_bounds<1>(3u, at, ranks);
  return false;
}
}  // namespace detail

/// `x.extent(r)` with a dimension known only at run time: a dimension the View does not have is
/// recorded as a fault (the host panics) and gives 0, instead of reading past the descriptor.
template <class T, int R, class L>
__device__ __forceinline__ usize extent(const View<T, R, L>& v, usize r) {
  return detail::has_dimension(r, (usize)R) ? v.extent[r] : 0;
}

/// `x.begin(r)` of an OffsetView with a dimension known only at run time (checked as `extent`).
template <class T, int R, class L>
__device__ __forceinline__ i64 offset_begin(const OffsetView<T, R, L>& v, usize r) {
  return detail::has_dimension(r, (usize)R) ? v.begin[r] : 0;
}

/// `x.end(r)` of an OffsetView: one past its last index (the host checked that it fits i64).
template <class T, int R, class L>
__device__ __forceinline__ i64 offset_end(const OffsetView<T, R, L>& v, usize r) {
  return detail::has_dimension(r, (usize)R) ? v.begin[r] + static_cast<i64>(v.extent[r]) : 0;
}

/// A rank-0 View has no dimension.
template <class T, class L>
__device__ __forceinline__ usize extent(const View<T, 0, L>&, usize r) {
  detail::has_dimension(r, 0);
  return 0;
}

/// A subview's range `lo..hi` of a dimension of `extent` elements, in a kernel
/// (`kernel/subview_range.rs`): `subview_range(i, lo, hi, extent)` is the View's coordinate
/// `lo + i`. Where the host panics (`i` not below `hi - lo`, or the range not within the dimension,
/// which then has no element) it records the fault (kind 6, the subview's index and extent) and
/// gives a coordinate past every extent, so that the View's own check drops the access and counts
/// it. Negative values become huge ones, as in a View's index.
namespace detail {
template <class L, class H>
__device__ __forceinline__ usize subview_length(L lo, H hi, usize extent, bool& ok) {
  const usize b = static_cast<usize>(lo), e = static_cast<usize>(hi);
  ok = b <= e && e <= extent;
  return ok ? e - b : 0;
}
}  // namespace detail

template <class I, class L, class H>
__device__ __forceinline__ usize subview_range(I i, L lo, H hi, usize extent) {
  bool ok;
  const usize len = detail::subview_length(lo, hi, extent, ok);
  const usize at[1] = {static_cast<usize>(i)};
  if (at[0] < len) return static_cast<usize>(lo) + at[0];
  const usize ext[1] = {len};
  detail::out_of_bounds<1>(6u, at, ext, false);
  return ~(usize)0;
}

/// `row.extent(0)` of a subview's range: `hi - lo`; 0, with a fault recorded (counted), where the
/// range is not within the dimension.
template <class L, class H>
__device__ __forceinline__ usize subview_extent(L lo, H hi, usize extent) {
  bool ok;
  const usize len = detail::subview_length(lo, hi, extent, ok);
  if (!ok) {
    const usize at[1] = {static_cast<usize>(hi)};
    const usize ext[1] = {extent};
    detail::out_of_bounds<1>(6u, at, ext);
  }
  return len;
}

/// A Rust array `[T; N]` (a struct, since C++ cannot pass or return an array by value): a capture,
/// a local, a struct's field, a device function's parameter or result, a View's element. Its layout
/// is Rust's: N elements without gaps, aligned as T. `values[j]` is element j.
template <class T, int N>
struct Array {
  static_assert(N >= 1, "fk::Array: an array has at least one element");
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

  /// Element `i` of a mutable array (a `let mut` local, a written View's element), assignable;
  /// out of range: as above, and a write is dropped.
  template <class I>
  __device__ __forceinline__ T& operator[](I i) {
    const usize at[1] = {(usize)i};
    if (at[0] >= (usize)N) {
      const usize len[1] = {(usize)N};
      detail::out_of_bounds<1>(1u, at, len);
      return detail::oob<T>::element();
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

}  // namespace fk
