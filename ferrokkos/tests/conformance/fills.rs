//! Fills (`deep_copy` of a value): every element size, zero and other values, whole Views,
//! contiguous and strided subviews; the elements outside a filled subview, and the holes of a
//! strided View, keep their values.

use ferrokkos::Result;
use ferrokkos::prelude::*;
use ferrokkos::traits::{Element, Layout};

use crate::common::{self, indices};
use crate::deep_copy::fill_distinct;
use crate::spaces::{SView, download};

/// The bytes of an element (plain data without padding: primitives, `bool` and arrays of them).
fn bytes_of<T: Element>(x: &T) -> &[u8] {
    // SAFETY: `x` is a valid `T` of `size_of::<T>()` bytes, all initialized (the element types used
    // here have no padding).
    unsafe { std::slice::from_raw_parts((x as *const T).cast::<u8>(), size_of::<T>()) }
}

/// Asserts that `got[k]` has the bytes of `want(k)` for every `k` (so `-0.0` differs from `0.0`).
fn assert_elements<T: Element + std::fmt::Debug>(got: &[T], want: impl Fn(usize) -> T, what: &str) {
    for (k, g) in got.iter().enumerate() {
        let w = want(k);
        assert!(bytes_of(g) == bytes_of(&w), "{what} at {k}: {g:?} != {w:?}");
    }
}

/// Fills with `value` (and then with `zero`) a rank-1 View of `n` elements, one column of an
/// `n` x 3 LayoutRight View and a block of an `n` x 3 LayoutLeft View of `S`'s space, checking the
/// bytes of every element (the elements outside the column and the block stay zero).
fn fill_case<S: Launch, T: Element + std::fmt::Debug>(n: usize, value: T, zero: T) -> Result<()> {
    let what = format!("{} fill of {n} x {}", S::NAME, std::any::type_name::<T>());
    let v = SView::<S, T, 1>::new("fill", [n])?;
    let got = download(&v)?;
    assert_eq!(got.len(), n);
    assert_elements(&got, |_| zero, &format!("{what}: zeroed"));
    deep_copy(&v, value)?;
    assert_elements(&download(&v)?, |_| value, &what);
    deep_copy(&v, zero)?;
    assert_elements(&download(&v)?, |_| zero, &format!("{what}: back to zero"));
    // A strided column (LayoutStride) of a LayoutRight View, and a block of a LayoutLeft View.
    let m = SView::<S, T, 2>::new("columns", [n, 3])?;
    deep_copy(&subview(&m, (ALL, 1))?, value)?;
    let want = |k: usize| if k % 3 == 1 { value } else { zero };
    assert_elements(&download(&m)?, want, &format!("{what}: column fill"));
    let l = SView::<S, T, 2, LayoutLeft>::new("rows", [n, 3])?;
    let half = n.div_ceil(2);
    deep_copy(&subview(&l, (0..half, 1..3))?, value)?;
    let want = |k: usize| {
        let (i, j) = (k / 3, k % 3);
        if i < half && j >= 1 { value } else { zero }
    };
    assert_elements(&download(&l)?, want, &format!("{what}: block fill"));
    Ok(())
}

fn fills_of_zero_and_other_values_for_every_element_size<S: Launch>(_exec: &S) -> Result<()> {
    for n in [1, 7, 333, 4099] {
        fill_case::<S, u8>(n, 0xab, 0)?;
        fill_case::<S, i16>(n, -2, 0)?;
        fill_case::<S, i32>(n, 0x0102_0304, 0)?;
        fill_case::<S, u32>(n, u32::MAX, 0)?;
        fill_case::<S, i64>(n, i64::MIN + 5, 0)?;
        fill_case::<S, u64>(n, 0x0101_0101_0101_0101, 0)?;
        fill_case::<S, f32>(n, 1.5, 0.0)?;
        fill_case::<S, f32>(n, -0.0, 0.0)?;
        fill_case::<S, f64>(n, -2.5e-300, 0.0)?;
        fill_case::<S, bool>(n, true, false)?;
        fill_case::<S, [f32; 3]>(n, [1.0, -2.0, 3.5], [0.0; 3])?;
        fill_case::<S, [u8; 3]>(n, [1, 2, 3], [0; 3])?;
        fill_case::<S, [i16; 2]>(n, [-1, 7], [0; 2])?;
        // Larger than the device fill kernel's pattern (32 bytes).
        fill_case::<S, [f64; 5]>(n, [1.0, 2.0, 3.0, 4.0, 5.0], [0.0; 5])?;
        // Values that repeat a 1-, 2- or 4-byte unit (one memset on a GPU, whatever the element's
        // size), and a large element that repeats one byte.
        fill_case::<S, u64>(n, 1 << 32 | 1, 0)?;
        fill_case::<S, [u16; 3]>(n, [0x0a0b; 3], [0; 3])?;
        fill_case::<S, [u8; 40]>(n, [7; 40], [0; 40])?;
    }
    Ok(())
}
per_space!(
    fills_of_zero_and_other_values_for_every_element_size,
    fills_of_zero_and_other_values_for_every_element_size
);

/// Fills `parent` with distinct values, fills `sub` with `value` and checks every parent element:
/// `inside(index)` ones hold `value`, the others their old value.
fn check_fill<L: Layout, K: Layout, const R: usize, const Q: usize>(
    parent: &View<i64, R, L>,
    sub: &View<i64, Q, K>,
    inside: impl Fn([usize; R]) -> bool,
) -> Result<()> {
    fill_distinct(parent, 1)?;
    deep_copy(sub, -3)?;
    assert_eq!(sub.to_vec()?, vec![-3; sub.size()]);
    let mut filled = 0;
    for (n, i) in indices(parent.extents()).into_iter().enumerate() {
        let expected = if inside(i) { -3 } else { 1 + 7 * n as i64 };
        filled += usize::from(inside(i));
        assert_eq!(parent.get(i)?, expected, "at {i:?}");
    }
    assert_eq!(filled, sub.size());
    Ok(())
}

#[test]
fn fill_sets_every_element_of_a_whole_view() -> Result<()> {
    common::runtime();
    let v = View::<f64, 3, LayoutLeft>::new("v", [2, 3, 4])?;
    deep_copy(&v, 2.5)?;
    assert_eq!(v.to_vec()?, vec![2.5; 24]);
    let s = View::<f64, 2, LayoutStride>::new_strided("s", [3, 4], [10, 2])?;
    deep_copy(&s, 1.5)?;
    assert_eq!(s.to_vec()?, vec![1.5; 12]);
    let _reader = s.host()?;
    // SAFETY: 3 * 4 elements with strides [10, 2] span 27 elements; a reader guard is held.
    let raw = unsafe { std::slice::from_raw_parts(s.as_ptr(), 27) };
    assert_eq!(
        raw.iter().filter(|&&x| x == 1.5).count(),
        12,
        "holes were filled"
    );
    Ok(())
}

#[test]
fn fill_of_a_contiguous_subview_leaves_the_rest_untouched() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2>::new("a", [4, 5])?;
    let rows: View<i64, 2, LayoutRight> = subview(&a, (1..3, ALL))?;
    assert!(rows.span_is_contiguous());
    check_fill(&a, &rows, |[i, _]| (1..3).contains(&i))?;
    let row: View<i64, 1, LayoutRight> = subview(&a, (3, ALL))?;
    check_fill(&a, &row, |[i, _]| i == 3)
}

#[test]
fn fill_of_a_strided_subview_leaves_the_rest_untouched() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2>::new("a", [4, 5])?;
    let col: View<i64, 1, LayoutStride> = subview(&a, (ALL, 2))?;
    check_fill(&a, &col, |[_, j]| j == 2)?;
    let block: View<i64, 2, LayoutRight> = subview(&a, (1..3, 1..4))?;
    assert!(!block.span_is_contiguous());
    check_fill(&a, &block, |[i, j]| {
        (1..3).contains(&i) && (1..4).contains(&j)
    })?;
    let l = View::<i64, 3, LayoutLeft>::new("l", [3, 4, 2])?;
    let plane: View<i64, 2, LayoutStride> = subview(&l, (1, ALL, ALL))?;
    check_fill(&l, &plane, |[i, _, _]| i == 1)?;
    let s = View::<i64, 3, LayoutStride>::new_strided("s", [3, 4, 2], [1, 6, 30])?;
    let part: View<i64, 2, LayoutStride> = subview(&s, (0..2, 3, ALL))?;
    check_fill(&s, &part, |[i, j, _]| i < 2 && j == 3)
}
