use super::*;
use num_complex::Complex;

const R: Ordering = Ordering::Relaxed;

/// Applies `op` to a fresh cell holding `start`; returns (what `op` returned, the cell's value).
fn run<T: HostAtomic, U>(start: T, op: impl FnOnce(*mut T) -> U) -> (U, T) {
    let mut cell = start;
    let out = op(&mut cell);
    (out, cell)
}

#[test]
fn integer_fetch_operations_return_the_old_value_and_wrap() {
    // SAFETY (all calls here): the pointer is to a live local, reached by this thread only.
    unsafe {
        assert_eq!(
            run(i32::MAX, |p| i32::fetch_add(p, 1, R)),
            (i32::MAX, i32::MIN)
        );
        assert_eq!(run(0u32, |p| u32::fetch_sub(p, 1, R)), (0, u32::MAX));
        assert_eq!(run(5i64, |p| i64::fetch_min(p, -3, R)), (5, -3));
        assert_eq!(run(5u64, |p| u64::fetch_max(p, 3, R)), (5, 5));
        assert_eq!(
            run(0b1100u32, |p| u32::fetch_and(p, 0b1010, R)),
            (0b1100, 0b1000)
        );
        assert_eq!(
            run(0b1100i32, |p| i32::fetch_or(p, 0b1010, R)),
            (0b1100, 0b1110)
        );
        assert_eq!(
            run(0b1100usize, |p| usize::fetch_xor(p, 0b1010, R)),
            (0b1100, 0b0110)
        );
        assert_eq!(
            run(0b1100u8, |p| u8::fetch_nand(p, 0b1010, R)),
            (0b1100, 0b1111_0111)
        );
        assert_eq!(run(7isize, |p| isize::exchange(p, -7, R)), (7, -7));
        let o = MemoryOrder::AcqRel;
        assert_eq!(run(7i16, |p| i16::compare_exchange(p, 7, 9, o)), (7, 9));
        assert_eq!(run(7i32, |p| i32::compare_exchange(p, 8, 9, o)), (7, 7));
        assert_eq!(run(4u64, |p| u64::load(p, R)), (4, 4));
        assert_eq!(run(4u16, |p| u16::store(p, 6, R)), ((), 6));
    }
}

#[test]
fn integer_updates_follow_rust_release_semantics() {
    let o = MemoryOrder::SeqCst;
    // SAFETY (all calls here): the pointer is to a live local, reached by this thread only.
    unsafe {
        assert_eq!(
            run(100i8, |p| i8::update(p, o, |x| i8::mul(x, 3))),
            (100, 44)
        );
        assert_eq!(
            run(-7i32, |p| i32::update(p, o, |x| i32::div(x, 2))),
            (-7, -3)
        );
        assert_eq!(
            run(-7i64, |p| i64::update(p, o, |x| i64::rem(x, 2))),
            (-7, -1)
        );
        assert_eq!(
            run(1u16, |p| u16::update(p, o, |x| u16::shl(x, 17))),
            (1, 2)
        );
        assert_eq!(run(-8i8, |p| i8::update(p, o, |x| i8::shr(x, 1))), (-8, -4));
    }
    assert_eq!(u8::nand(0xF0, 0x3C), 0xCF);
    assert!(std::panic::catch_unwind(|| i32::div(1, 0)).is_err());
    assert!(std::panic::catch_unwind(|| i8::rem(i8::MIN, -1)).is_err());
}

#[test]
fn float_operations_follow_rust_and_compare_bits() {
    let o = MemoryOrder::Relaxed;
    // SAFETY (all calls here): the pointer is to a live local, reached by this thread only.
    unsafe {
        assert_eq!(run(1.5f64, |p| f64::fetch_add(p, 2.0, R)), (1.5, 3.5));
        assert_eq!(run(1.5f32, |p| f32::fetch_sub(p, 2.0, R)), (1.5, -0.5));
        assert_eq!(run(1.5f64, |p| f64::fetch_min(p, f64::NAN, R)), (1.5, 1.5));
        assert_eq!(run(1.5f32, |p| f32::fetch_max(p, 9.0, R)), (1.5, 9.0));
        assert_eq!(run(1.5f64, |p| f64::exchange(p, -1.0, R)), (1.5, -1.0));
        assert_eq!(
            run(1.5f32, |p| f32::update(p, o, |x| f32::div(x, 0.5))),
            (1.5, 3.0)
        );
        // Bit patterns: 0.0 does not match -0.0; a NaN matches itself.
        let (old, new) = run(-0.0f64, |p| f64::compare_exchange(p, 0.0, 1.0, o));
        assert_eq!(
            (old.to_bits(), new.to_bits()),
            ((-0.0f64).to_bits(), (-0.0f64).to_bits())
        );
        let (_, new) = run(f32::NAN, |p| f32::compare_exchange(p, f32::NAN, 2.0, o));
        assert_eq!(new, 2.0);
        assert_eq!(run(2.5f32, |p| f32::load(p, R)), (2.5, 2.5));
    }
}

#[test]
fn complex_operations_act_on_each_component() {
    let (a, b) = (Complex::new(1.0f64, -2.0), Complex::new(0.5, 4.0));
    // SAFETY (all calls here): the pointer is to a live local, reached by this thread only.
    unsafe {
        assert_eq!(run(a, |p| Complex::<f64>::fetch_add(p, b, R)), (a, a + b));
        let (c, d) = (Complex::new(1.0f32, 2.0), Complex::new(3.0f32, -1.0));
        assert_eq!(run(c, |p| Complex::<f32>::fetch_sub(p, d, R)), (c, c - d));
        assert_eq!(run(a, |p| Complex::<f64>::load(p, R)), (a, a));
        assert_eq!(run(a, |p| Complex::<f64>::store(p, b, R)), ((), b));
    }
}
