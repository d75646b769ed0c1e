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

/// The fault record (in pinned host memory; layout shared with `backend/gpu/fault.rs`).
struct FkFault {
  unsigned int state;           // 0: empty, 1: being written, 2: written
  unsigned int rank;            // the rank of the View (1 for a captured array)
  unsigned int kind;            // 0: a View, 1: a captured array, 2: integer division by zero or
                                // MIN / -1, 3: the extent of a dimension the View does not have,
                                // 4: a team_broadcast from a thread outside the team,
                                // 5: a `panic!` (its message in `message`),
                                // 6: a subview range's coordinate outside it,
                                // 7: a `panic!` with arguments (its template in `message`,
                                //    the arguments' bits in `index`, their number in `rank`)
  unsigned int reserved;
  unsigned long long count;     // out-of-bounds accesses so far
  unsigned long long unit;      // the module's unit number (`fk_fault_unit`)
  unsigned long long index[8];  // the recorded access's index
  unsigned long long extent[8]; // and the extents it was checked against
  char message[128];            // a panic's message, NUL-terminated
};

extern "C" {
// Set by the launcher when it loads the module; while null, nothing is recorded.
__device__ FkFault* fk_fault_record = nullptr;
// The launcher's number for this module, so that the host can name the kernel.
__device__ unsigned long long fk_fault_unit = 0;
}

#ifdef FK_BATCHED
// A program of several units (compiled together ahead of time): each entry first stores its unit's
// slot in the program here (every thread the same value), and the unit's number is the module's
// plus the slot.
__shared__ unsigned fk_batch_slot;
#define FK_FAULT_UNIT (fk_fault_unit + fk_batch_slot)
#else
#define FK_FAULT_UNIT fk_fault_unit
#endif

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
/// `counted` false: the access that follows counts it (a subview's range check, whose coordinate
/// the View's own check then finds out of bounds).
template <int R>
__device__ __forceinline__ void out_of_bounds(unsigned kind, const usize (&index)[R],
                                              const usize (&extent)[R], bool counted = true) {
  FkFault* const f = fk_fault_record;
  if (f == nullptr) return;
  if (counted) atomicAdd(&f->count, 1ULL);
  if (atomicCAS(&f->state, 0u, 1u) == 0u) {
    f->kind = kind;
    f->rank = (unsigned)R;
    f->unit = FK_FAULT_UNIT;
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
    f->unit = FK_FAULT_UNIT;
    __threadfence_system();
    atomicExch(&f->state, 2u);
  }
}

/// Records a `panic!` of the kernel with `message` (at most 127 bytes: the shadow cut it), if it is
/// the first fault recorded: the host's next wait returns it as an error.
__device__ __noinline__ void panic_fault(const char* message) {
  FkFault* const f = fk_fault_record;
  if (f == nullptr) return;
  atomicAdd(&f->count, 1ULL);
  if (atomicCAS(&f->state, 0u, 1u) == 0u) {
    f->kind = 5u;
    f->rank = 0u;
    f->unit = FK_FAULT_UNIT;
    int k = 0;
    for (; k < 127 && message[k] != '\0'; ++k) f->message[k] = message[k];
    f->message[k] = '\0';
    __threadfence_system();
    atomicExch(&f->state, 2u);
  }
}

/// Records a `panic!` with arguments: its template (at most 127 bytes; the shadow cut it) and the
/// `n` (at most 8) arguments' bits (`panic_bits`), from which the host writes the message.
__device__ __noinline__ void panic_fault_args(const char* tmpl, unsigned int n,
                                              const unsigned long long* args) {
  FkFault* const f = fk_fault_record;
  if (f == nullptr) return;
  atomicAdd(&f->count, 1ULL);
  if (atomicCAS(&f->state, 0u, 1u) == 0u) {
    f->kind = 7u;
    f->rank = n < 8u ? n : 8u;
    f->unit = FK_FAULT_UNIT;
    for (unsigned int k = 0; k < 8u; ++k) f->index[k] = k < n ? args[k] : 0ULL;
    int k = 0;
    for (; k < 127 && tmpl[k] != '\0'; ++k) f->message[k] = tmpl[k];
    f->message[k] = '\0';
    __threadfence_system();
    atomicExch(&f->state, 2u);
  }
}

/// A `panic!` argument's bits: an integer or `bool` sign-extended to 64 bits, a float's own.
template <class T> __device__ __forceinline__ unsigned long long panic_bits(T x) {
  return (unsigned long long)(long long)x;
}
__device__ __forceinline__ unsigned long long panic_bits(float x) {
  return (unsigned long long)__float_as_uint(x);
}
__device__ __forceinline__ unsigned long long panic_bits(double x) {
  return (unsigned long long)__double_as_longlong(x);
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

}  // namespace fk
