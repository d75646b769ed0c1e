//! Tuples of reducers: several reductions in one pass.

use super::Reducer;

macro_rules! tuple_reducer {
    ($($r:ident $k:tt),*) => {
        /// Several reductions in one pass: the kernel's accumulator is the tuple of the reducers'
        /// values, and each element is joined by its own reducer.
        impl<$($r: Reducer),*> Reducer for ($($r,)*) {
            type Value = ($($r::Value,)*);
            #[inline(always)]
            fn init(&self) -> Self::Value {
                ($(self.$k.init(),)*)
            }
            #[inline(always)]
            fn join(&self, dst: &mut Self::Value, src: &Self::Value) {
                $(self.$k.join(&mut dst.$k, &src.$k);)*
            }
            fn finalize(&self, value: &mut Self::Value) {
                $(self.$k.finalize(&mut value.$k);)*
            }
            fn device_cxx(_: crate::seal::Token) -> Option<super::ReducerCxx> {
                Some(super::ReducerCxx::tuple(&[$($r::device_cxx(crate::seal::Token::new())?),*]))
            }
            #[allow(unused_assignments)] // the last member's `at +=`
            fn device_decode(bytes: &[u8], _: crate::seal::Token) -> Option<Self::Value> {
                let mut at = 0usize;
                Some(($({
                    let m = $r::device_cxx(crate::seal::Token::new())?;
                    at = at.next_multiple_of(m.align);
                    let v = $r::device_decode(bytes.get(at..at + m.size)?, crate::seal::Token::new())?;
                    at += m.size;
                    v
                },)*))
            }
        }
    };
}

tuple_reducer!(A 0, B 1);
tuple_reducer!(A 0, B 1, C 2);
tuple_reducer!(A 0, B 1, C 2, D 3);
tuple_reducer!(A 0, B 1, C 2, D 3, E 4);
tuple_reducer!(A 0, B 1, C 2, D 3, E 4, F 5);
