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
        }
    };
}

tuple_reducer!(A 0, B 1);
tuple_reducer!(A 0, B 1, C 2);
tuple_reducer!(A 0, B 1, C 2, D 3);
tuple_reducer!(A 0, B 1, C 2, D 3, E 4);
tuple_reducer!(A 0, B 1, C 2, D 3, E 4, F 5);
