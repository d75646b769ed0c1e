//! Host atomics: what a `kernel!` kernel does to a View it updates atomically (`h.atomic_add(k, v)`,
//! `h.atomic_fetch_max(k, v)`, `h.atomic_compare_exchange(k, expected, desired)`), with the
//! semantics of the device header's `fk::atomic_*`, so a kernel gives the same results on every space.
//!
//! Semantics (Kokkos' `atomic_*` and `atomic_fetch_*`): each operation is one indivisible
//! read-modify-write of one element, with relaxed memory order (it orders nothing around it); the
//! `fetch` forms, `exchange` and `compare_exchange` return the element's previous value. Integer
//! `add` and `sub` wrap. Float `min` / `max` ignore a NaN operand (as `f64::min` and C's `fmin`).
//! `compare_exchange` on floats compares bit patterns (as CUDA's `atomicCAS` on their bits: `-0.0`
//! does not match `0.0`, and a NaN matches itself).
//!
//! Soundness: the traits are sealed and their functions `unsafe`; [`AtomicAccess`] calls them only
//! on elements of a View whose every access in the kernel is atomic (the race rules of `kernel!`),
//! under the launch's exclusive borrow of the allocation.

use std::sync::atomic::{
    AtomicI32, AtomicI64, AtomicIsize, AtomicU32, AtomicU64, AtomicUsize, Ordering,
};

use super::element::Element;
use super::kernel_access::{AtomicAccess, KernelIndex};
use crate::layout::Layout;

const RELAXED: Ordering = Ordering::Relaxed;

// `Atomic*::from_ptr` needs the atomic type's alignment; View elements have their type's. They
// agree on the 64-bit targets ferrokkos supports; a target where they do not fails to compile.
const _: () = {
    use std::mem::align_of;
    assert!(align_of::<AtomicI32>() == align_of::<i32>());
    assert!(
        align_of::<AtomicU32>() == align_of::<u32>()
            && align_of::<AtomicU32>() == align_of::<f32>()
    );
    assert!(align_of::<AtomicI64>() == align_of::<i64>());
    assert!(
        align_of::<AtomicU64>() == align_of::<u64>()
            && align_of::<AtomicU64>() == align_of::<f64>()
    );
    assert!(align_of::<AtomicIsize>() == align_of::<isize>());
    assert!(align_of::<AtomicUsize>() == align_of::<usize>());
};

/// Element types with host atomic operations: `i32`, `u32`, `i64`, `u64`, `isize`, `usize`,
/// `f32`, `f64` (sealed: kernels rely on these being atomic).
///
/// Every function has the same contract. # Safety: `p` is valid and aligned for the type, and
/// every access to `*p` concurrent with the call is atomic.
#[allow(clippy::missing_safety_doc)] // one contract for all, above
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic operations",
    label = "atomics act on i32, u32, i64, u64, isize, usize, f32 and f64",
    note = "`HostAtomic` is sealed: kernels rely on these operations being atomic, so only ferrokkos \
            implements it, for these types; make the View's element one of them"
)]
pub trait HostAtomic: Element + crate::seal::SealedHostAtomic {
    /// `*p += v` (wrapping for integers); returns the previous value.
    unsafe fn fetch_add(p: *mut Self, v: Self) -> Self;
    /// `*p -= v` (wrapping for integers); returns the previous value.
    unsafe fn fetch_sub(p: *mut Self, v: Self) -> Self;
    /// `*p = min(*p, v)`; returns the previous value.
    unsafe fn fetch_min(p: *mut Self, v: Self) -> Self;
    /// `*p = max(*p, v)`; returns the previous value.
    unsafe fn fetch_max(p: *mut Self, v: Self) -> Self;
    /// `*p = v`; returns the previous value.
    unsafe fn exchange(p: *mut Self, v: Self) -> Self;
    /// `*p = desired` if `*p` is `expected` (bitwise for floats); returns the previous value.
    unsafe fn compare_exchange(p: *mut Self, expected: Self, desired: Self) -> Self;
    /// `*p`, read atomically.
    unsafe fn load(p: *const Self) -> Self;
    /// `*p = v`, written atomically.
    unsafe fn store(p: *mut Self, v: Self);
}

/// The integer [`HostAtomic`] types, which also have atomic bitwise operations (sealed).
///
/// Every function has [`HostAtomic`]'s contract.
#[allow(clippy::missing_safety_doc)] // HostAtomic's contract
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic bitwise operations (`atomic_and`, `atomic_or`, `atomic_xor`)",
    label = "bitwise atomics act on i32, u32, i64, u64, isize and usize",
    note = "`HostAtomicBits` is sealed: only ferrokkos implements it, for the integer atomic types"
)]
pub trait HostAtomicBits: HostAtomic {
    /// `*p &= v`; returns the previous value.
    unsafe fn fetch_and(p: *mut Self, v: Self) -> Self;
    /// `*p |= v`; returns the previous value.
    unsafe fn fetch_or(p: *mut Self, v: Self) -> Self;
    /// `*p ^= v`; returns the previous value.
    unsafe fn fetch_xor(p: *mut Self, v: Self) -> Self;
}

macro_rules! int_atomic {
    ($($t:ty => $a:ty),*) => {$(
        impl crate::seal::SealedHostAtomic for $t {}

        impl HostAtomic for $t {
            unsafe fn fetch_add(p: *mut Self, v: Self) -> Self {
                // SAFETY (here and below): by the caller's contract `p` is valid, aligned and only
                // accessed atomically; the atomic type has the integer's size and alignment.
                unsafe { <$a>::from_ptr(p) }.fetch_add(v, RELAXED)
            }
            unsafe fn fetch_sub(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p) }.fetch_sub(v, RELAXED)
            }
            unsafe fn fetch_min(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p) }.fetch_min(v, RELAXED)
            }
            unsafe fn fetch_max(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p) }.fetch_max(v, RELAXED)
            }
            unsafe fn exchange(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p) }.swap(v, RELAXED)
            }
            unsafe fn compare_exchange(p: *mut Self, expected: Self, desired: Self) -> Self {
                // SAFETY: as above.
                let a = unsafe { <$a>::from_ptr(p) };
                match a.compare_exchange(expected, desired, RELAXED, RELAXED) {
                    Ok(old) | Err(old) => old,
                }
            }
            unsafe fn load(p: *const Self) -> Self {
                // SAFETY: as above; the value is only read.
                unsafe { <$a>::from_ptr(p.cast_mut()) }.load(RELAXED)
            }
            unsafe fn store(p: *mut Self, v: Self) {
                // SAFETY: as above.
                unsafe { <$a>::from_ptr(p) }.store(v, RELAXED)
            }
        }

        impl HostAtomicBits for $t {
            unsafe fn fetch_and(p: *mut Self, v: Self) -> Self {
                // SAFETY: as for `fetch_add`.
                unsafe { <$a>::from_ptr(p) }.fetch_and(v, RELAXED)
            }
            unsafe fn fetch_or(p: *mut Self, v: Self) -> Self {
                // SAFETY: as for `fetch_add`.
                unsafe { <$a>::from_ptr(p) }.fetch_or(v, RELAXED)
            }
            unsafe fn fetch_xor(p: *mut Self, v: Self) -> Self {
                // SAFETY: as for `fetch_add`.
                unsafe { <$a>::from_ptr(p) }.fetch_xor(v, RELAXED)
            }
        }
    )*};
}

int_atomic!(i32 => AtomicI32, u32 => AtomicU32, i64 => AtomicI64, u64 => AtomicU64,
    isize => AtomicIsize, usize => AtomicUsize);

macro_rules! float_atomic {
    ($($t:ident => $a:ty),*) => {$(
        impl crate::seal::SealedHostAtomic for $t {}

        impl HostAtomic for $t {
            unsafe fn fetch_add(p: *mut Self, v: Self) -> Self {
                // SAFETY (here and below): by the caller's contract `p` is valid, aligned and only
                // accessed atomically; the atomic integer has the float's size and alignment.
                let a = unsafe { <$a>::from_ptr(p.cast()) };
                update(a, |x: $t| x + v)
            }
            unsafe fn fetch_sub(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                let a = unsafe { <$a>::from_ptr(p.cast()) };
                update(a, |x: $t| x - v)
            }
            unsafe fn fetch_min(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                let a = unsafe { <$a>::from_ptr(p.cast()) };
                update(a, |x: $t| x.min(v))
            }
            unsafe fn fetch_max(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                let a = unsafe { <$a>::from_ptr(p.cast()) };
                update(a, |x: $t| x.max(v))
            }
            unsafe fn exchange(p: *mut Self, v: Self) -> Self {
                // SAFETY: as above.
                let a = unsafe { <$a>::from_ptr(p.cast()) };
                <$t>::from_bits(a.swap(v.to_bits(), RELAXED))
            }
            unsafe fn compare_exchange(p: *mut Self, expected: Self, desired: Self) -> Self {
                // SAFETY: as above.
                let a = unsafe { <$a>::from_ptr(p.cast()) };
                let (e, d) = (expected.to_bits(), desired.to_bits());
                match a.compare_exchange(e, d, RELAXED, RELAXED) {
                    Ok(old) | Err(old) => <$t>::from_bits(old),
                }
            }
            unsafe fn load(p: *const Self) -> Self {
                // SAFETY: as above; the value is only read.
                let a = unsafe { <$a>::from_ptr(p.cast_mut().cast()) };
                <$t>::from_bits(a.load(RELAXED))
            }
            unsafe fn store(p: *mut Self, v: Self) {
                // SAFETY: as above.
                let a = unsafe { <$a>::from_ptr(p.cast()) };
                a.store(v.to_bits(), RELAXED)
            }
        }

        impl FloatBits for $t {
            type Atomic = $a;
        }
    )*};
}

/// A float and the atomic integer of its bits.
trait FloatBits: Sized {
    type Atomic;
}

/// Replaces `*a` (the bits of a float) by `f(*a)` with a compare-and-swap loop until it sticks;
/// returns the previous value.
fn update<F: BitsOf>(a: &F::Atomic, f: impl Fn(F) -> F) -> F {
    let mut old = F::read(a);
    loop {
        match F::try_replace(a, old, f(old)) {
            Ok(()) => return old,
            Err(now) => old = now,
        }
    }
}

/// The two atomic steps of [`update`] for one float type.
trait BitsOf: FloatBits + Copy {
    fn read(a: &Self::Atomic) -> Self;
    /// Writes `new` if `*a` still holds the bits of `old`, else returns what it holds.
    fn try_replace(a: &Self::Atomic, old: Self, new: Self) -> Result<(), Self>;
}

macro_rules! bits_of {
    ($($t:ident),*) => {$(
        impl BitsOf for $t {
            fn read(a: &Self::Atomic) -> Self {
                <$t>::from_bits(a.load(RELAXED))
            }
            fn try_replace(a: &Self::Atomic, old: Self, new: Self) -> Result<(), Self> {
                a.compare_exchange_weak(old.to_bits(), new.to_bits(), RELAXED, RELAXED)
                    .map(|_| ())
                    .map_err(<$t>::from_bits)
            }
        }
    )*};
}

float_atomic!(f32 => AtomicU32, f64 => AtomicU64);
bits_of!(f32, f64);

/// Methods of [`AtomicAccess`] that apply one [`HostAtomic`] (or [`HostAtomicBits`]) function to
/// the element at an index: `$name` discards the previous value, `$fetch` returns it. The bound is
/// on each method, not on the `impl`, so that a View of another element type gets the bound's
/// message ("`f64` has no atomic bitwise operations") rather than "its trait bounds were not
/// satisfied".
macro_rules! atomic_methods {
    ($bound:ident: $($op:ident: $name:ident, $fetch:ident, $what:literal;)*) => {
        impl<T: Element, const R: usize, L: Layout> AtomicAccess<'_, T, R, L> {
            $(
                #[doc = concat!("`h.", stringify!($name), "(index, v)`: ", $what, " atomically.")]
                #[inline(always)]
                #[track_caller]
                pub fn $name(&self, index: impl KernelIndex<R>, v: T)
                where
                    T: $bound,
                {
                    self.$fetch(index, v);
                }

                #[doc = concat!("`h.", stringify!($fetch), "(index, v)`: ", $what,
                    " atomically; returns the element's previous value.")]
                #[inline(always)]
                #[track_caller]
                pub fn $fetch(&self, index: impl KernelIndex<R>, v: T) -> T
                where
                    T: $bound,
                {
                    let p = self.raw.element(index.to_index());
                    // SAFETY: in bounds and aligned; by the race rules every access to this View
                    // in the kernel is atomic, and the launch holds the allocation's exclusive
                    // borrow.
                    unsafe { T::$op(p, v) }
                }
            )*
        }
    };
}

atomic_methods! {
    HostAtomic:
    fetch_add: atomic_add, atomic_fetch_add, "adds `v` to the element (integers wrap)";
    fetch_sub: atomic_sub, atomic_fetch_sub, "subtracts `v` from the element (integers wrap)";
    fetch_min: atomic_min, atomic_fetch_min, "lowers the element to `v` if `v` is smaller";
    fetch_max: atomic_max, atomic_fetch_max, "raises the element to `v` if `v` is larger";
}

atomic_methods! {
    HostAtomicBits:
    fetch_and: atomic_and, atomic_fetch_and, "ands `v` into the element";
    fetch_or: atomic_or, atomic_fetch_or, "ors `v` into the element";
    fetch_xor: atomic_xor, atomic_fetch_xor, "xors `v` into the element";
}

impl<T: HostAtomic, const R: usize, L: Layout> AtomicAccess<'_, T, R, L> {
    /// `h.atomic_exchange(index, v)`: stores `v` in the element atomically; returns the previous
    /// value.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_exchange(&self, index: impl KernelIndex<R>, v: T) -> T {
        let p = self.raw.element(index.to_index());
        // SAFETY: as in `atomic_fetch_add`.
        unsafe { T::exchange(p, v) }
    }

    /// `h.atomic_compare_exchange(index, expected, desired)`: stores `desired` in the element if it
    /// holds `expected` (bit patterns for floats), atomically; returns the previous value (equal
    /// to `expected` exactly when the store happened).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_compare_exchange(
        &self,
        index: impl KernelIndex<R>,
        expected: T,
        desired: T,
    ) -> T {
        let p = self.raw.element(index.to_index());
        // SAFETY: as in `atomic_fetch_add`.
        unsafe { T::compare_exchange(p, expected, desired) }
    }

    /// `h.atomic_load(index)`: reads the element atomically.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_load(&self, index: impl KernelIndex<R>) -> T {
        let p = self.raw.element(index.to_index());
        // SAFETY: as in `atomic_fetch_add`.
        unsafe { T::load(p) }
    }

    /// `h.atomic_store(index, v)`: writes the element atomically.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_store(&self, index: impl KernelIndex<R>, v: T) {
        let p = self.raw.element(index.to_index());
        // SAFETY: as in `atomic_fetch_add`.
        unsafe { T::store(p, v) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies `op` to a fresh cell holding `start`; returns (previous value, new value).
    fn run<T: HostAtomic>(start: T, op: impl FnOnce(*mut T) -> T) -> (T, T) {
        let mut cell = start;
        let old = op(&mut cell);
        (old, cell)
    }

    #[test]
    fn integer_fetch_operations_return_the_old_value_and_wrap() {
        // SAFETY (all calls here): the pointer is to a live local, reached by this thread only.
        unsafe {
            assert_eq!(
                run(i32::MAX, |p| i32::fetch_add(p, 1)),
                (i32::MAX, i32::MIN)
            );
            assert_eq!(run(0u32, |p| u32::fetch_sub(p, 1)), (0, u32::MAX));
            assert_eq!(run(5i64, |p| i64::fetch_min(p, -3)), (5, -3));
            assert_eq!(run(5u64, |p| u64::fetch_max(p, 3)), (5, 5));
            assert_eq!(
                run(0b1100u32, |p| u32::fetch_and(p, 0b1010)),
                (0b1100, 0b1000)
            );
            assert_eq!(
                run(0b1100i32, |p| i32::fetch_or(p, 0b1010)),
                (0b1100, 0b1110)
            );
            assert_eq!(
                run(0b1100usize, |p| usize::fetch_xor(p, 0b1010)),
                (0b1100, 0b0110)
            );
            assert_eq!(run(7isize, |p| isize::exchange(p, -7)), (7, -7));
            assert_eq!(run(7i32, |p| i32::compare_exchange(p, 7, 9)), (7, 9));
            assert_eq!(run(7i32, |p| i32::compare_exchange(p, 8, 9)), (7, 7));
            assert_eq!(run(4u64, |p| u64::load(p)), (4, 4));
            assert_eq!(
                run(4u64, |p| {
                    u64::store(p, 6);
                    0
                }),
                (0, 6)
            );
        }
    }

    #[test]
    fn float_operations_follow_rust_and_compare_bits() {
        // SAFETY (all calls here): the pointer is to a live local, reached by this thread only.
        unsafe {
            assert_eq!(run(1.5f64, |p| f64::fetch_add(p, 2.0)), (1.5, 3.5));
            assert_eq!(run(1.5f32, |p| f32::fetch_sub(p, 2.0)), (1.5, -0.5));
            assert_eq!(run(1.5f64, |p| f64::fetch_min(p, f64::NAN)), (1.5, 1.5));
            assert_eq!(run(1.5f32, |p| f32::fetch_max(p, 9.0)), (1.5, 9.0));
            assert_eq!(run(1.5f64, |p| f64::exchange(p, -1.0)), (1.5, -1.0));
            // Bit patterns: 0.0 does not match -0.0; a NaN matches itself.
            let (old, new) = run(-0.0f64, |p| f64::compare_exchange(p, 0.0, 1.0));
            assert_eq!(
                (old.to_bits(), new.to_bits()),
                ((-0.0f64).to_bits(), (-0.0f64).to_bits())
            );
            let (_, new) = run(f32::NAN, |p| f32::compare_exchange(p, f32::NAN, 2.0));
            assert_eq!(new, 2.0);
            assert_eq!(run(2.5f32, |p| f32::load(p)), (2.5, 2.5));
        }
    }
}
