//! [`Element`]: the types a View can hold.

/// A type whose values a View can store: plain, `Copy` data for which the all-zero byte pattern is a
/// valid value (Views start zero-filled, and copies between spaces move bytes).
///
/// Implemented for the primitive numeric types, `bool`, `char` and arrays of elements.
///
/// # Safety
/// The all-zero byte pattern must be a valid value of the type, the type must have no interior
/// mutability and no drop glue, copying its bytes must copy the value, and it must have no padding
/// (every byte of a value is initialized: values travel to and from devices as bytes, and a fill
/// reads the value's bytes). If [`Element::ANY_BIT_PATTERN`] is `true`, every bit pattern of the
/// type's size must be a valid value.
pub unsafe trait Element: Copy + Send + Sync + 'static {
    /// Whether every bit pattern of the type's size is a valid value (the integers and floats: yes;
    /// `bool` and `char`: no). Memory of a View of a type for which this is `false` is always
    /// zero-filled, also when it is allocated without initializing (device memory could otherwise
    /// hold stale bytes that are no value of the type, and reading them on the host would be
    /// undefined behaviour). `false` unless an implementation says otherwise.
    const ANY_BIT_PATTERN: bool = false;
}

macro_rules! elements {
    ($any:literal: $($t:ty),* $(,)?) => {
        $(
            // SAFETY: a primitive whose all-zero pattern is a valid value (0, 0.0, false, '\0');
            // integers and floats are valid for every bit pattern, `bool` and `char` are not.
            unsafe impl Element for $t {
                const ANY_BIT_PATTERN: bool = $any;
            }
        )*
    };
}

elements!(true: i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);
elements!(false: bool, char);

// SAFETY: an array of elements is all-zero exactly when each element is, has no padding between
// elements of the same type, and is valid for every bit pattern exactly when its element type is.
unsafe impl<T: Element, const N: usize> Element for [T; N] {
    const ANY_BIT_PATTERN: bool = T::ANY_BIT_PATTERN;
}

#[cfg(test)]
mod tests {
    use super::Element;

    #[test]
    fn numbers_take_any_bit_pattern_and_bool_and_char_do_not() {
        let any = [
            f64::ANY_BIT_PATTERN,
            u8::ANY_BIT_PATTERN,
            i128::ANY_BIT_PATTERN,
            <[f32; 3]>::ANY_BIT_PATTERN,
            <[[u16; 2]; 4]>::ANY_BIT_PATTERN,
        ];
        assert_eq!(any, [true; 5]);
        let invalid = [
            bool::ANY_BIT_PATTERN,
            char::ANY_BIT_PATTERN,
            <[bool; 2]>::ANY_BIT_PATTERN,
            <[[char; 1]; 3]>::ANY_BIT_PATTERN,
        ];
        assert_eq!(invalid, [false; 4]);
    }
}
