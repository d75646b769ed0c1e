//! The implementations of the host atomics (`atomic.rs`) for the integers (on `std::sync::atomic`'s
//! types), the floats (on the atomic integer of their bits) and the complex numbers (one atomic
//! operation per component).

use std::sync::atomic::{
    AtomicI8, AtomicI16, AtomicI32, AtomicI64, AtomicIsize, AtomicU8, AtomicU16, AtomicU32,
    AtomicU64, AtomicUsize, Ordering,
};

use num_complex::Complex;

use super::atomic::{HostAtomic, HostAtomicBits, HostAtomicScalar, MemoryOrder};

// `Atomic*::from_ptr` needs the atomic type's alignment; View elements have their type's. They
// agree on the 64-bit targets ferrokkos supports; a target where they do not fails to compile.
const _: () = {
    use std::mem::align_of;
    assert!(align_of::<AtomicI8>() == align_of::<i8>());
    assert!(align_of::<AtomicU8>() == align_of::<u8>());
    assert!(align_of::<AtomicI16>() == align_of::<i16>());
    assert!(align_of::<AtomicU16>() == align_of::<u16>());
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

/// `<$a>::from_ptr(p).$method(args)` for an integer pointer under [`HostAtomic`]'s contract.
macro_rules! on_int {
    ($a:ty, $p:expr, $method:ident($($arg:expr),*)) => {{
        // SAFETY: by the caller's contract (`HostAtomic`) `p` is valid, aligned and only accessed
        // atomically; the atomic type has the integer's size and alignment (asserted above).
        let a = unsafe { <$a>::from_ptr($p) };
        a.$method($($arg),*)
    }};
}

macro_rules! int_atomic {
    ($($t:ty => $a:ty),*) => {$(
        impl crate::seal::SealedHostAtomic for $t {}

        impl HostAtomic for $t {
            unsafe fn fetch_add(p: *mut Self, v: Self, o: Ordering) -> Self {
                on_int!($a, p, fetch_add(v, o))
            }
            unsafe fn fetch_sub(p: *mut Self, v: Self, o: Ordering) -> Self {
                on_int!($a, p, fetch_sub(v, o))
            }
            unsafe fn load(p: *const Self, o: Ordering) -> Self {
                on_int!($a, p.cast_mut(), load(o))
            }
            unsafe fn store(p: *mut Self, v: Self, o: Ordering) {
                on_int!($a, p, store(v, o))
            }
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            fn sub(a: Self, b: Self) -> Self {
                a.wrapping_sub(b)
            }
        }

        impl HostAtomicScalar for $t {
            unsafe fn update(p: *mut Self, o: MemoryOrder, mut f: impl FnMut(Self) -> Self) -> Self {
                match on_int!($a, p, fetch_update(o.rmw(), o.failure(), |x| Some(f(x)))) {
                    Ok(old) | Err(old) => old,
                }
            }
            unsafe fn fetch_min(p: *mut Self, v: Self, o: Ordering) -> Self {
                on_int!($a, p, fetch_min(v, o))
            }
            unsafe fn fetch_max(p: *mut Self, v: Self, o: Ordering) -> Self {
                on_int!($a, p, fetch_max(v, o))
            }
            unsafe fn exchange(p: *mut Self, v: Self, o: Ordering) -> Self {
                on_int!($a, p, swap(v, o))
            }
            unsafe fn compare_exchange(p: *mut Self, e: Self, d: Self, o: MemoryOrder) -> Self {
                match on_int!($a, p, compare_exchange(e, d, o.rmw(), o.failure())) {
                    Ok(old) | Err(old) => old,
                }
            }
            fn min(a: Self, b: Self) -> Self {
                Ord::min(a, b)
            }
            fn max(a: Self, b: Self) -> Self {
                Ord::max(a, b)
            }
            fn mul(a: Self, b: Self) -> Self {
                a.wrapping_mul(b)
            }
            fn div(a: Self, b: Self) -> Self {
                a / b
            }
        }

        impl HostAtomicBits for $t {
            const ONE: Self = 1;
            unsafe fn fetch_and(p: *mut Self, v: Self, o: Ordering) -> Self {
                on_int!($a, p, fetch_and(v, o))
            }
            unsafe fn fetch_or(p: *mut Self, v: Self, o: Ordering) -> Self {
                on_int!($a, p, fetch_or(v, o))
            }
            unsafe fn fetch_xor(p: *mut Self, v: Self, o: Ordering) -> Self {
                on_int!($a, p, fetch_xor(v, o))
            }
            unsafe fn fetch_nand(p: *mut Self, v: Self, o: Ordering) -> Self {
                on_int!($a, p, fetch_nand(v, o))
            }
            fn and(a: Self, b: Self) -> Self {
                a & b
            }
            fn or(a: Self, b: Self) -> Self {
                a | b
            }
            fn xor(a: Self, b: Self) -> Self {
                a ^ b
            }
            fn nand(a: Self, b: Self) -> Self {
                !(a & b)
            }
            fn rem(a: Self, b: Self) -> Self {
                a % b
            }
            fn shl(a: Self, n: u32) -> Self {
                a.wrapping_shl(n)
            }
            fn shr(a: Self, n: u32) -> Self {
                a.wrapping_shr(n)
            }
        }
    )*};
}

int_atomic!(i8 => AtomicI8, i16 => AtomicI16, i32 => AtomicI32, i64 => AtomicI64,
    isize => AtomicIsize, u8 => AtomicU8, u16 => AtomicU16, u32 => AtomicU32, u64 => AtomicU64,
    usize => AtomicUsize);

macro_rules! float_atomic {
    ($($t:ident => $a:ty),*) => {$(
        impl crate::seal::SealedHostAtomic for $t {}

        impl HostAtomic for $t {
            unsafe fn fetch_add(p: *mut Self, v: Self, o: Ordering) -> Self {
                // SAFETY: the caller's contract.
                unsafe { Self::update(p, order_of(o), |x| x + v) }
            }
            unsafe fn fetch_sub(p: *mut Self, v: Self, o: Ordering) -> Self {
                // SAFETY: the caller's contract.
                unsafe { Self::update(p, order_of(o), |x| x - v) }
            }
            unsafe fn load(p: *const Self, o: Ordering) -> Self {
                <$t>::from_bits(on_int!($a, p.cast_mut().cast(), load(o)))
            }
            unsafe fn store(p: *mut Self, v: Self, o: Ordering) {
                on_int!($a, p.cast(), store(v.to_bits(), o))
            }
            fn add(a: Self, b: Self) -> Self {
                a + b
            }
            fn sub(a: Self, b: Self) -> Self {
                a - b
            }
        }

        impl HostAtomicScalar for $t {
            unsafe fn update(p: *mut Self, o: MemoryOrder, mut f: impl FnMut(Self) -> Self) -> Self {
                let step = |b| Some(f(<$t>::from_bits(b)).to_bits());
                match on_int!($a, p.cast(), fetch_update(o.rmw(), o.failure(), step)) {
                    Ok(old) | Err(old) => <$t>::from_bits(old),
                }
            }
            unsafe fn fetch_min(p: *mut Self, v: Self, o: Ordering) -> Self {
                // SAFETY: the caller's contract.
                unsafe { Self::update(p, order_of(o), |x| x.min(v)) }
            }
            unsafe fn fetch_max(p: *mut Self, v: Self, o: Ordering) -> Self {
                // SAFETY: the caller's contract.
                unsafe { Self::update(p, order_of(o), |x| x.max(v)) }
            }
            unsafe fn exchange(p: *mut Self, v: Self, o: Ordering) -> Self {
                <$t>::from_bits(on_int!($a, p.cast(), swap(v.to_bits(), o)))
            }
            unsafe fn compare_exchange(p: *mut Self, e: Self, d: Self, o: MemoryOrder) -> Self {
                let (e, d) = (e.to_bits(), d.to_bits());
                match on_int!($a, p.cast(), compare_exchange(e, d, o.rmw(), o.failure())) {
                    Ok(old) | Err(old) => <$t>::from_bits(old),
                }
            }
            fn min(a: Self, b: Self) -> Self {
                a.min(b)
            }
            fn max(a: Self, b: Self) -> Self {
                a.max(b)
            }
            fn mul(a: Self, b: Self) -> Self {
                a * b
            }
            fn div(a: Self, b: Self) -> Self {
                a / b
            }
        }
    )*};
}

float_atomic!(f32 => AtomicU32, f64 => AtomicU64);

/// The [`MemoryOrder`] of a read-modify-write's Rust ordering.
fn order_of(o: Ordering) -> MemoryOrder {
    match o {
        Ordering::Relaxed => MemoryOrder::Relaxed,
        Ordering::Acquire => MemoryOrder::Acquire,
        Ordering::Release => MemoryOrder::Release,
        Ordering::AcqRel => MemoryOrder::AcqRel,
        _ => MemoryOrder::SeqCst,
    }
}

macro_rules! complex_atomic {
    ($($t:ident),*) => {$(
        impl crate::seal::SealedHostAtomic for Complex<$t> {}

        // Each component on its own: `Complex<T>` is `#[repr(C)]` `{ re, im }`, so both are
        // aligned floats inside the element.
        impl HostAtomic for Complex<$t> {
            unsafe fn fetch_add(p: *mut Self, v: Self, o: Ordering) -> Self {
                // SAFETY: the caller's contract for `p` covers its components.
                unsafe {
                    let re = <$t>::fetch_add(&raw mut (*p).re, v.re, o);
                    Complex::new(re, <$t>::fetch_add(&raw mut (*p).im, v.im, o))
                }
            }
            unsafe fn fetch_sub(p: *mut Self, v: Self, o: Ordering) -> Self {
                // SAFETY: as above.
                unsafe {
                    let re = <$t>::fetch_sub(&raw mut (*p).re, v.re, o);
                    Complex::new(re, <$t>::fetch_sub(&raw mut (*p).im, v.im, o))
                }
            }
            unsafe fn load(p: *const Self, o: Ordering) -> Self {
                // SAFETY: as above.
                unsafe { Complex::new(<$t>::load(&raw const (*p).re, o), <$t>::load(&raw const (*p).im, o)) }
            }
            unsafe fn store(p: *mut Self, v: Self, o: Ordering) {
                // SAFETY: as above.
                unsafe {
                    <$t>::store(&raw mut (*p).re, v.re, o);
                    <$t>::store(&raw mut (*p).im, v.im, o);
                }
            }
            fn add(a: Self, b: Self) -> Self {
                a + b
            }
            fn sub(a: Self, b: Self) -> Self {
                a - b
            }
        }
    )*};
}

complex_atomic!(f32, f64);

#[cfg(test)]
#[path = "atomic_types_tests.rs"]
mod tests;
