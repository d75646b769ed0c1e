//! [`PlainBytes`]: values that travel as their bytes (to kernel parameters, device memory, fills).

/// A value whose bytes are all initialized: no padding, no uninitialized parts, so its bytes can be
/// copied into the parameter buffer as `u8`s.
///
/// # Safety
/// Every byte of every value of the type is initialized (numbers, `bool`, arrays of them).
pub unsafe trait PlainBytes: Copy + 'static {}

macro_rules! plain_bytes {
    ($($t:ty)*) => {$(
        // SAFETY: a primitive number or `bool`: no padding.
        unsafe impl PlainBytes for $t {}
    )*};
}

plain_bytes!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize f32 f64 bool);

// SAFETY: an array has no padding between elements of one type, and each element has none.
unsafe impl<T: PlainBytes, const N: usize> PlainBytes for [T; N] {}
