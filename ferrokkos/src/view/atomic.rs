//! Host atomics: what a `kernel!` kernel does to a View it updates atomically (`h.atomic_add(k, v)`,
//! `h.atomic_fetch_max(k, v)`, `h.atomic_mul_fetch(k, v)`, `h.atomic_compare_exchange(k, expected,
//! desired)`), with the semantics of the device header's `fk::atomic_*`, so a kernel gives the same
//! results on every space. The traits are here; their implementations in `atomic_types.rs`, the
//! accessor's methods in `atomic_access.rs`.
//!
//! Semantics (Kokkos' `atomic_<op>`, `atomic_fetch_<op>` and `atomic_<op>_fetch`): each operation
//! is one indivisible read-modify-write of one element, relaxed unless given a [`MemoryOrder`];
//! `atomic_fetch_<op>`, `exchange` and `compare_exchange` return the element's previous value,
//! `atomic_<op>_fetch` its new one. Integer `add`, `sub` and `mul` wrap and shifts mask their amount
//! (Rust's release semantics); integer `div` and `mod` by zero (or MIN by -1) panic on the host as
//! Rust's `/` does (the GPU stores 0 and the next wait returns `Error::DeviceArithmetic`, as for
//! `/`). Float `min` / `max` ignore a NaN operand (as `f64::min` and C's `fmin`).
//! `compare_exchange` on floats compares bit patterns (as CUDA's `atomicCAS` on their bits: `-0.0`
//! does not match `0.0`, and a NaN matches itself). Complex `add` and `sub` (and `load`, `store`)
//! act on each component atomically, not on the number as a whole (as Kokkos).
//!
//! Soundness: the traits are sealed and their functions `unsafe`; [`AtomicAccess`] calls them only
//! on elements of a View whose every access in the kernel is atomic (the race rules of `kernel!`),
//! under the launch's exclusive borrow of the allocation.
//!
//! [`AtomicAccess`]: super::kernel_access::AtomicAccess

use std::sync::atomic::Ordering;

use super::element::Element;
pub use super::memory_order::{MemoryOrder, MemoryScope};

/// Element types with host atomic operations: the integers (`i8` to `i64`, `u8` to `u64`, `isize`,
/// `usize`), `f32`, `f64` and `Complex<f32>`, `Complex<f64>` (sealed: kernels rely on these being
/// atomic). Complex numbers have only `add`, `sub`, `load` and `store`, each component atomically.
///
/// Every unsafe function has the same contract. # Safety: `p` is valid and aligned for the type,
/// and every access to `*p` concurrent with the call is atomic.
#[allow(clippy::missing_safety_doc)] // one contract for all, above
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic operations",
    label = "atomics act on the integers, f32, f64 and Complex<f32>, Complex<f64>",
    note = "`HostAtomic` is sealed: kernels rely on these operations being atomic, so only ferrokkos \
            implements it, for these types; make the View's element one of them"
)]
pub trait HostAtomic: Element + crate::seal::SealedHostAtomic {
    /// `*p += v` (wrapping for integers); returns the previous value.
    unsafe fn fetch_add(p: *mut Self, v: Self, o: Ordering) -> Self;
    /// `*p -= v` (wrapping for integers); returns the previous value.
    unsafe fn fetch_sub(p: *mut Self, v: Self, o: Ordering) -> Self;
    /// `*p`, read atomically (`o` is a load's ordering).
    unsafe fn load(p: *const Self, o: Ordering) -> Self;
    /// `*p = v`, written atomically (`o` is a store's ordering).
    unsafe fn store(p: *mut Self, v: Self, o: Ordering);
    /// `a + b` as the atomic computes it (the new value of `fetch_add`).
    fn add(a: Self, b: Self) -> Self;
    /// `a - b` as the atomic computes it.
    fn sub(a: Self, b: Self) -> Self;
}

/// The integer and float [`HostAtomic`] types: whole-element operations (sealed).
///
/// Every unsafe function has [`HostAtomic`]'s contract.
#[allow(clippy::missing_safety_doc)] // HostAtomic's contract
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic `min`, `max`, `mul`, `div`, `exchange` or `compare_exchange`",
    label = "these atomics act on the integers, f32 and f64",
    note = "a complex number's atomics (`add`, `sub`, `load`, `store`) act on each component; \
            `HostAtomicScalar` is sealed"
)]
pub trait HostAtomicScalar: HostAtomic {
    /// `*p = f(*p)` by compare-and-swap until it sticks; returns the previous value.
    unsafe fn update(p: *mut Self, o: MemoryOrder, f: impl FnMut(Self) -> Self) -> Self;
    /// `*p = min(*p, v)`; returns the previous value.
    unsafe fn fetch_min(p: *mut Self, v: Self, o: Ordering) -> Self;
    /// `*p = max(*p, v)`; returns the previous value.
    unsafe fn fetch_max(p: *mut Self, v: Self, o: Ordering) -> Self;
    /// `*p = v`; returns the previous value.
    unsafe fn exchange(p: *mut Self, v: Self, o: Ordering) -> Self;
    /// `*p = desired` if `*p` is `expected` (bitwise for floats); returns the previous value.
    unsafe fn compare_exchange(p: *mut Self, expected: Self, desired: Self, o: MemoryOrder)
    -> Self;
    /// The smaller (a float's NaN operand ignored).
    fn min(a: Self, b: Self) -> Self;
    /// The larger (a float's NaN operand ignored).
    fn max(a: Self, b: Self) -> Self;
    /// `a * b` (wrapping for integers).
    fn mul(a: Self, b: Self) -> Self;
    /// `a / b` (integers: panics by zero or for MIN / -1, as Rust's `/`).
    fn div(a: Self, b: Self) -> Self;
}

/// The integer [`HostAtomic`] types, which also have atomic bitwise operations, remainders, shifts
/// and increments (sealed).
///
/// Every unsafe function has [`HostAtomic`]'s contract.
#[allow(clippy::missing_safety_doc)] // HostAtomic's contract
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic integer operations (`and`, `or`, `xor`, `nand`, `mod`, \
               `lshift`, `rshift`, `inc`, `dec`)",
    label = "these atomics act on the integers",
    note = "`HostAtomicBits` is sealed: only ferrokkos implements it, for the integer types"
)]
pub trait HostAtomicBits: HostAtomicScalar {
    /// One.
    const ONE: Self;
    /// `*p &= v`; returns the previous value.
    unsafe fn fetch_and(p: *mut Self, v: Self, o: Ordering) -> Self;
    /// `*p |= v`; returns the previous value.
    unsafe fn fetch_or(p: *mut Self, v: Self, o: Ordering) -> Self;
    /// `*p ^= v`; returns the previous value.
    unsafe fn fetch_xor(p: *mut Self, v: Self, o: Ordering) -> Self;
    /// `*p = !(*p & v)`; returns the previous value.
    unsafe fn fetch_nand(p: *mut Self, v: Self, o: Ordering) -> Self;
    /// `a & b`.
    fn and(a: Self, b: Self) -> Self;
    /// `a | b`.
    fn or(a: Self, b: Self) -> Self;
    /// `a ^ b`.
    fn xor(a: Self, b: Self) -> Self;
    /// `!(a & b)`.
    fn nand(a: Self, b: Self) -> Self;
    /// `a % b` (panics by zero or for MIN % -1, as Rust's `%`).
    fn rem(a: Self, b: Self) -> Self;
    /// `a << n`, the amount masked to the width (Rust's release semantics).
    fn shl(a: Self, n: u32) -> Self;
    /// `a >> n` (arithmetic for signed types), the amount masked.
    fn shr(a: Self, n: u32) -> Self;
}

/// Calls `$m!` with the table of the atomic read-modify-writes that take an operand, so that the
/// host accessor (`atomic_access.rs`) and the typed shadow (`kernel/view_atomic.rs`) have the same
/// methods. A row: the trait bound, the names of the three forms (no result, previous value, new
/// value) and of their `_ord` forms, the operand's type, the trait functions giving the previous
/// value (an unsafe `fetch`, or `update` with a pure function) and the new one, the device
/// header's operation, and what it does.
macro_rules! for_each_atomic_op {
    ($m:ident) => {
        $m! {
            HostAtomic: atomic_add atomic_fetch_add atomic_add_fetch, atomic_add_ord
                atomic_fetch_add_ord atomic_add_fetch_ord (T) fetch fetch_add add "add"
                "adds `v` to the element (integers wrap; complex numbers: each component)";
            HostAtomic: atomic_sub atomic_fetch_sub atomic_sub_fetch, atomic_sub_ord
                atomic_fetch_sub_ord atomic_sub_fetch_ord (T) fetch fetch_sub sub "sub"
                "subtracts `v` from the element (integers wrap; complex numbers: each component)";
            HostAtomicScalar: atomic_min atomic_fetch_min atomic_min_fetch, atomic_min_ord
                atomic_fetch_min_ord atomic_min_fetch_ord (T) fetch fetch_min min "min"
                "lowers the element to `v` if `v` is smaller";
            HostAtomicScalar: atomic_max atomic_fetch_max atomic_max_fetch, atomic_max_ord
                atomic_fetch_max_ord atomic_max_fetch_ord (T) fetch fetch_max max "max"
                "raises the element to `v` if `v` is larger";
            HostAtomicScalar: atomic_mul atomic_fetch_mul atomic_mul_fetch, atomic_mul_ord
                atomic_fetch_mul_ord atomic_mul_fetch_ord (T) update mul mul "mul"
                "multiplies the element by `v` (integers wrap)";
            HostAtomicScalar: atomic_div atomic_fetch_div atomic_div_fetch, atomic_div_ord
                atomic_fetch_div_ord atomic_div_fetch_ord (T) update div div "div"
                "divides the element by `v` (integers: by zero, or MIN by -1, panics as `/`)";
            HostAtomicBits: atomic_mod atomic_fetch_mod atomic_mod_fetch, atomic_mod_ord
                atomic_fetch_mod_ord atomic_mod_fetch_ord (T) update rem rem "mod"
                "replaces the element by its remainder by `v` (by zero, or MIN by -1, panics as `%`)";
            HostAtomicBits: atomic_and atomic_fetch_and atomic_and_fetch, atomic_and_ord
                atomic_fetch_and_ord atomic_and_fetch_ord (T) fetch fetch_and and "and"
                "ands `v` into the element";
            HostAtomicBits: atomic_or atomic_fetch_or atomic_or_fetch, atomic_or_ord
                atomic_fetch_or_ord atomic_or_fetch_ord (T) fetch fetch_or or "or"
                "ors `v` into the element";
            HostAtomicBits: atomic_xor atomic_fetch_xor atomic_xor_fetch, atomic_xor_ord
                atomic_fetch_xor_ord atomic_xor_fetch_ord (T) fetch fetch_xor xor "xor"
                "xors `v` into the element";
            HostAtomicBits: atomic_nand atomic_fetch_nand atomic_nand_fetch, atomic_nand_ord
                atomic_fetch_nand_ord atomic_nand_fetch_ord (T) fetch fetch_nand nand "nand"
                "replaces the element by `!(element & v)`";
            HostAtomicBits: atomic_lshift atomic_fetch_lshift atomic_lshift_fetch,
                atomic_lshift_ord atomic_fetch_lshift_ord atomic_lshift_fetch_ord (u32) update
                shl shl "lshift" "shifts the element left by `v` (masked to its width)";
            HostAtomicBits: atomic_rshift atomic_fetch_rshift atomic_rshift_fetch,
                atomic_rshift_ord atomic_fetch_rshift_ord atomic_rshift_fetch_ord (u32) update
                shr shr "rshift"
                "shifts the element right by `v` (masked to its width; arithmetic if signed)";
        }
    };
}
pub(crate) use for_each_atomic_op;

/// Calls `$m!` with the table of the increments and decrements (integers): Kokkos' names, the
/// `HostAtomic` functions that add or subtract `ONE` (previous value, new value) and what the
/// method returns.
macro_rules! for_each_atomic_step {
    ($m:ident) => {
        $m! {
            atomic_inc atomic_inc_ord: fetch_add add none "adds 1 to the element (wrapping)";
            atomic_increment atomic_increment_ord: fetch_add add none "adds 1 to the element (wrapping)";
            atomic_fetch_inc atomic_fetch_inc_ord: fetch_add add old
                "adds 1 to the element (wrapping); returns the previous value";
            atomic_inc_fetch atomic_inc_fetch_ord: fetch_add add new
                "adds 1 to the element (wrapping); returns the new value";
            atomic_dec atomic_dec_ord: fetch_sub sub none "subtracts 1 from the element (wrapping)";
            atomic_decrement atomic_decrement_ord: fetch_sub sub none
                "subtracts 1 from the element (wrapping)";
            atomic_fetch_dec atomic_fetch_dec_ord: fetch_sub sub old
                "subtracts 1 from the element (wrapping); returns the previous value";
            atomic_dec_fetch atomic_dec_fetch_ord: fetch_sub sub new
                "subtracts 1 from the element (wrapping); returns the new value";
        }
    };
}
pub(crate) use for_each_atomic_step;
