//! [`ParamWriter`]: the bytes of a kernel's parameter list, laid out as the C++ compiler lays out
//! the entry's parameters (each at an offset aligned to its type's alignment), which is also the
//! layout of a C++ struct with the same members.

/// Appends kernel parameters to a byte buffer at their C++ offsets.
///
/// ```
/// use ferrokkos::kernel::ParamWriter;
/// let mut bytes = Vec::new();
/// let mut w = ParamWriter::new(&mut bytes);
/// w.push(1u8);
/// w.push(2.0f64); // aligned to 8: offset 8
/// w.push(3u32);
/// assert_eq!(w.len(), 20);
/// assert_eq!(bytes[8..16], 2.0f64.to_ne_bytes());
/// ```
#[derive(Debug)]
pub struct ParamWriter<'a> {
    bytes: &'a mut Vec<u8>,
    start: usize,
}

impl<'a> ParamWriter<'a> {
    /// A writer appending to `bytes`; offsets count from the current end of `bytes`.
    pub fn new(bytes: &'a mut Vec<u8>) -> Self {
        let start = bytes.len();
        ParamWriter { bytes, start }
    }

    /// The number of bytes written so far.
    pub fn len(&self) -> usize {
        self.bytes.len() - self.start
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pads with zeros to a multiple of `align` (a power of two).
    pub fn align(&mut self, align: usize) {
        let len = self.len();
        let padded = len.next_multiple_of(align);
        self.bytes.resize(self.start + padded, 0);
    }

    /// Appends `value`'s bytes at the next offset aligned for `T`. `T` is a number, `bool`, an
    /// array of them or a `#[repr(C)]` struct of them (no padding bytes).
    pub fn push<T: Copy + 'static>(&mut self, value: T) {
        self.align(std::mem::align_of::<T>());
        let size = std::mem::size_of::<T>();
        let at = self.bytes.len();
        self.bytes.resize(at + size, 0);
        // SAFETY: `value` is a plain Copy value of `size` bytes, the destination has `size` bytes
        // (just resized), and the two do not overlap. Padding bytes inside `T` (if any) would copy
        // as unspecified values, which the device ignores as the C++ compiler does.
        unsafe {
            std::ptr::copy_nonoverlapping(
                (&value as *const T).cast::<u8>(),
                self.bytes.as_mut_ptr().add(at),
                size,
            )
        };
    }

    /// Appends a View descriptor (`fk::View<T, R, L>`): the data pointer, then for rank >= 1 the
    /// extents and the strides.
    pub fn push_view(&mut self, data: u64, extents: &[usize], strides: &[usize]) {
        self.push(data);
        for e in extents {
            self.push(*e as u64);
        }
        for s in strides {
            self.push(*s as u64);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_land_at_their_aligned_offsets() {
        let mut bytes = vec![0xAA; 3];
        let mut w = ParamWriter::new(&mut bytes);
        w.push(true);
        w.push(7u16);
        w.push([1.5f32, 2.5f32]);
        w.push_view(0x1000, &[4, 5], &[5, 1]);
        // bool at 0, u16 at 2, [f32; 2] at 4..12, the descriptor at 16 (8 + 2 * 8 + 2 * 8 bytes).
        assert_eq!(w.len(), 16 + 40);
        // Offsets count from the writer's start (3).
        assert_eq!(bytes[3], 1);
        assert_eq!(bytes[5..7], 7u16.to_ne_bytes());
        assert_eq!(bytes[7..11], 1.5f32.to_ne_bytes());
        assert_eq!(bytes[3 + 16..3 + 24], 0x1000u64.to_ne_bytes());
        assert_eq!(bytes[3 + 32..3 + 40], 5u64.to_ne_bytes());
        assert_eq!(bytes[3 + 40..3 + 48], 5u64.to_ne_bytes());
        assert_eq!(bytes[3 + 48..3 + 56], 1u64.to_ne_bytes());
    }
}
