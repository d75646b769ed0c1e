// ferrokkos device header: reducers.
// One part of the header; `kernel/device_header.rs` joins the parts in order (see types.cuh).

namespace fk {

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

}  // namespace fk
