//! [`Element`]: the types a View can hold.

/// A type whose values a View can store: plain, `Copy` data for which the all-zero byte pattern is a
/// valid value (Views start zero-filled, and copies between spaces move bytes).
///
/// Implemented for the primitive numeric types, `bool`, `char` and arrays of elements.
///
/// # Safety
/// The all-zero byte pattern must be a valid value of the type, the type must have no interior
/// mutability and no drop glue, and copying its bytes must copy the value.
pub unsafe trait Element: Copy + Send + Sync + 'static {}

macro_rules! elements {
    ($($t:ty),* $(,)?) => {
        $(
            // SAFETY: a primitive whose all-zero pattern is a valid value (0, 0.0, false, '\0').
            unsafe impl Element for $t {}
        )*
    };
}

elements!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, bool, char
);

// SAFETY: an array of elements is all-zero exactly when each element is, and has no padding between
// elements of the same type.
unsafe impl<T: Element, const N: usize> Element for [T; N] {}
