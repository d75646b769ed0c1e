//! Multi-indices: the [`ViewIndex`] forms accepted by accessors, and iteration over a box.

/// A multi-index of a rank-`R` View: `()` for rank 0, `i` for rank 1, `(i, j, ...)` for ranks 2 to 8,
/// and `[usize; R]` for any rank.
pub trait ViewIndex<const R: usize>: Copy {
    /// The index as an array.
    fn to_array(self) -> [usize; R];
}

impl<const R: usize> ViewIndex<R> for [usize; R] {
    #[inline(always)]
    fn to_array(self) -> [usize; R] {
        self
    }
}

impl ViewIndex<0> for () {
    #[inline(always)]
    fn to_array(self) -> [usize; 0] {
        []
    }
}

impl ViewIndex<1> for usize {
    #[inline(always)]
    fn to_array(self) -> [usize; 1] {
        [self]
    }
}

macro_rules! tuple_index {
    ($r:literal: $($name:ident),+) => {
        impl ViewIndex<$r> for ($(tuple_index!(@usize $name),)+) {
            #[inline(always)]
            fn to_array(self) -> [usize; $r] {
                let ($($name,)+) = self;
                [$($name),+]
            }
        }
    };
    (@usize $name:ident) => { usize };
}

tuple_index!(2: i0, i1);
tuple_index!(3: i0, i1, i2);
tuple_index!(4: i0, i1, i2, i3);
tuple_index!(5: i0, i1, i2, i3, i4);
tuple_index!(6: i0, i1, i2, i3, i4, i5);
tuple_index!(7: i0, i1, i2, i3, i4, i5, i6);
tuple_index!(8: i0, i1, i2, i3, i4, i5, i6, i7);

/// Calls `f` with every multi-index of the box `extents`, the last index fastest (row-major order).
/// An empty box calls nothing; rank 0 calls once with `[]`.
pub(crate) fn for_each_index<const R: usize>(extents: &[usize; R], mut f: impl FnMut(&[usize; R])) {
    if extents.contains(&0) {
        return;
    }
    let mut index = [0usize; R];
    loop {
        f(&index);
        let mut r = R;
        loop {
            if r == 0 {
                return;
            }
            r -= 1;
            index[r] += 1;
            if index[r] < extents[r] {
                break;
            }
            index[r] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_forms_convert_to_arrays() {
        assert_eq!(ViewIndex::<0>::to_array(()), []);
        assert_eq!(ViewIndex::<1>::to_array(4usize), [4]);
        assert_eq!((1usize, 2usize, 3usize).to_array(), [1, 2, 3]);
        assert_eq!(
            [1usize, 2, 3, 4, 5, 6, 7, 8].to_array(),
            [1, 2, 3, 4, 5, 6, 7, 8]
        );
    }

    #[test]
    fn iteration_is_row_major_and_complete() {
        let mut seen = Vec::new();
        for_each_index(&[2, 3], |i| seen.push(*i));
        assert_eq!(seen, [[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]]);
        let mut count = 0;
        for_each_index(&[], |_| count += 1);
        assert_eq!(count, 1);
        for_each_index(&[4, 0, 2], |_| count += 1);
        assert_eq!(count, 1);
    }
}
