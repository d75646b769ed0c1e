//! [`ParamWriter`]: the bytes of a kernel's parameter list, laid out as the C++ compiler lays out
//! the entry's parameters (each at an offset aligned to its type's alignment), which is also the
//! layout of a C++ struct with the same members.
//!
//! A writer made with [`ParamWriter::with_slots`] also records where each parameter is, for a
//! launch that hands the driver one pointer per parameter: large values (captured arrays) are then
//! not copied at all, their slot points at the value where it lives.

use crate::plain::PlainBytes;

/// Where one parameter's bytes are, for a launch that passes one pointer per parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// At this offset in the writer's buffer.
    At(u32),
    /// At this address outside the buffer (a large value, borrowed for the launch).
    External(*const u8),
}

/// Values this large or larger are not copied by a writer with slots.
const EXTERNAL_BYTES: usize = 256;

/// Appends kernel parameters to a byte buffer at their C++ offsets (`push(1u8)` then `push(2.0f64)`
/// puts the `f64` at offset 8). Crate-internal: the buffer becomes a launch's parameters, so only
/// the launch code writes it.
#[derive(Debug)]
pub struct ParamWriter<'a> {
    bytes: &'a mut Vec<u8>,
    start: usize,
    slots: Option<&'a mut Vec<Slot>>,
    external_bytes: usize,
}

impl<'a> ParamWriter<'a> {
    /// A writer appending to `bytes`; offsets count from the current end of `bytes`.
    pub fn new(bytes: &'a mut Vec<u8>) -> Self {
        let start = bytes.len();
        ParamWriter {
            bytes,
            start,
            slots: None,
            external_bytes: 0,
        }
    }

    /// A writer that records each parameter's [`Slot`] in `slots`, and leaves values of 256 bytes
    /// or more where they are ([`Slot::External`]). The pointers stay valid as long as the values
    /// the parameters were pushed from.
    pub fn with_slots(bytes: &'a mut Vec<u8>, slots: &'a mut Vec<Slot>) -> Self {
        let start = bytes.len();
        ParamWriter {
            bytes,
            start,
            slots: Some(slots),
            external_bytes: 0,
        }
    }

    /// The number of bytes written to the buffer so far.
    pub fn len(&self) -> usize {
        self.bytes.len() - self.start
    }

    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The size of the parameter list, external values included (an upper bound: their padding
    /// is counted as 8 bytes each).
    pub fn total_len(&self) -> usize {
        self.len() + self.external_bytes
    }

    /// Pads with zeros to a multiple of `align` (a power of two).
    pub fn align(&mut self, align: usize) {
        let len = self.len();
        let padded = len.next_multiple_of(align);
        self.bytes.resize(self.start + padded, 0);
    }

    /// Appends `value`'s bytes as one parameter, at the next offset aligned for `T` (a number,
    /// `bool` or an array of them).
    pub fn push<T: PlainBytes>(&mut self, value: T) {
        self.align(std::mem::align_of::<T>());
        self.record();
        self.put(&value);
    }

    /// [`ParamWriter::push`] from a reference: with slots, a large value is not copied (its slot
    /// points at `value`, which must outlive the launch).
    pub fn push_ref<T: PlainBytes>(&mut self, value: &T) {
        let size = std::mem::size_of::<T>();
        if size >= EXTERNAL_BYTES
            && let Some(slots) = &mut self.slots
        {
            slots.push(Slot::External((value as *const T).cast::<u8>()));
            self.external_bytes += size + 8;
            return;
        }
        self.align(std::mem::align_of::<T>());
        self.record();
        self.put(value);
    }

    /// Appends a View descriptor (`fk::View<T, R, L>`) as one parameter: the data pointer, then for
    /// rank >= 1 the extents and the strides.
    pub fn push_view(&mut self, data: u64, extents: &[usize], strides: &[usize]) {
        self.align(8);
        self.record();
        self.put(&data);
        for e in extents {
            self.put(&(*e as u64));
        }
        for s in strides {
            self.put(&(*s as u64));
        }
    }

    /// Appends an `fk::OffsetView` descriptor: the View's, then the begin of each dimension.
    pub fn push_offset_view(
        &mut self,
        data: u64,
        extents: &[usize],
        strides: &[usize],
        begins: &[i64],
    ) {
        self.push_view(data, extents, strides);
        for b in begins {
            self.put(b);
        }
    }

    /// Starts a C++ struct parameter aligned to `align` (its most aligned member's alignment);
    /// its members follow ([`ParamWriter::member`]), then [`ParamWriter::end_struct`].
    pub fn begin_struct(&mut self, align: usize) {
        self.align(align);
        self.record();
    }

    /// Appends one member of the struct begun last, at the next offset aligned for `T`.
    pub fn member<T: PlainBytes>(&mut self, value: &T) {
        self.align(std::mem::align_of::<T>());
        self.put(value);
    }

    /// Ends the struct begun last: pads it to a multiple of its alignment.
    pub fn end_struct(&mut self, align: usize) {
        self.align(align);
    }

    /// Notes that a parameter starts here.
    fn record(&mut self) {
        let at = self.len() as u32;
        if let Some(slots) = &mut self.slots {
            slots.push(Slot::At(at));
        }
    }

    /// Appends the bytes of `value` (already aligned).
    fn put<T: PlainBytes>(&mut self, value: &T) {
        let size = std::mem::size_of::<T>();
        // SAFETY: `value` is a `PlainBytes` value of `size` bytes, all initialized (the trait's
        // contract), so they may be read as `u8`s for the duration of this borrow.
        let bytes = unsafe { std::slice::from_raw_parts((value as *const T).cast::<u8>(), size) };
        self.bytes.extend_from_slice(bytes);
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

    #[test]
    fn slots_mark_each_parameter_and_large_values_stay_in_place() {
        let big = [7.0f64; 100];
        let (mut bytes, mut slots) = (Vec::new(), Vec::new());
        let mut w = ParamWriter::with_slots(&mut bytes, &mut slots);
        w.push(1u8);
        w.push_view(7, &[3], &[1]);
        w.push_ref(&[2u32; 3]);
        w.push_ref(&big);
        assert_eq!(w.len(), 8 + 24 + 12);
        assert_eq!(w.total_len(), 8 + 24 + 12 + 800 + 8);
        assert_eq!(
            slots,
            [
                Slot::At(0),
                Slot::At(8),
                Slot::At(32),
                Slot::External(big.as_ptr().cast())
            ]
        );
    }
}
