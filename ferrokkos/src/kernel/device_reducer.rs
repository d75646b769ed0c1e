//! [`DeviceReducer`]: the reducers a device reduction or scan can use. Their device description
//! (C++ names, value layout, decoding) is written once, in the reducers themselves
//! ([`crate::Reducer`]'s sealed `device_cxx` / `device_decode`); this marker says, in types, which
//! reducers have one.

use super::ty::DeviceScalar;
use crate::policy::IndexType;
use crate::reducer::{
    BAnd, BOr, Bitwise, LAnd, LOr, Max, MaxLoc, Min, MinLoc, MinMax, MinMaxLoc, Prod, Reducer,
    ReductionScalar, Sum,
};

/// A reducer with a device implementation (`identity` and `join` in the device header): the
/// built-in reducers over the device's numbers, and tuples of them; [`crate::Custom`] reducers
/// (host closures) are not.
///
/// Sealed: a launch writes its C++ names into the generated code and trusts its value's size, so
/// only reducers whose `device_cxx` is `Some` implement it.
pub trait DeviceReducer: Reducer + crate::seal::SealedReducer {}

macro_rules! scalar_reducer {
    ($($r:ident: $bound:ident),*) => {$(
        impl<T: $bound + DeviceScalar> crate::seal::SealedReducer for $r<T> {}

        impl<T: $bound + DeviceScalar> DeviceReducer for $r<T> {}
    )*};
}

scalar_reducer!(Sum: ReductionScalar, Prod: ReductionScalar, Min: ReductionScalar,
    Max: ReductionScalar, BAnd: Bitwise, BOr: Bitwise);

macro_rules! logical_reducer {
    ($($r:ident),*) => {$(
        impl crate::seal::SealedReducer for $r {}

        impl DeviceReducer for $r {}
    )*};
}

logical_reducer!(LAnd, LOr);

macro_rules! loc_reducer {
    ($($r:ident),*) => {$(
        impl<T: ReductionScalar + DeviceScalar, I: IndexType + DeviceScalar> crate::seal::SealedReducer
            for $r<T, I>
        {
        }

        impl<T: ReductionScalar + DeviceScalar, I: IndexType + DeviceScalar> DeviceReducer for $r<T, I> {}
    )*};
}

loc_reducer!(MinLoc, MaxLoc, MinMaxLoc);

impl<T: ReductionScalar + DeviceScalar> crate::seal::SealedReducer for MinMax<T> {}

impl<T: ReductionScalar + DeviceScalar> DeviceReducer for MinMax<T> {}

impl<V: super::join::DeviceJoin> crate::seal::SealedReducer for super::join::Join<V> {}

impl<V: super::join::DeviceJoin> DeviceReducer for super::join::Join<V> {}

macro_rules! tuple_reducer {
    ($($r:ident $k:tt),+) => {
        impl<$($r: DeviceReducer),+> crate::seal::SealedReducer for ($($r,)+) {}

        impl<$($r: DeviceReducer),+> DeviceReducer for ($($r,)+) {}
    };
}

tuple_reducer!(R0 0, R1 1);
tuple_reducer!(R0 0, R1 1, R2 2);
tuple_reducer!(R0 0, R1 1, R2 2, R3 3);
tuple_reducer!(R0 0, R1 1, R2 2, R3 3, R4 4);
tuple_reducer!(R0 0, R1 1, R2 2, R3 3, R4 4, R5 5);

/// A reducer a nested range's `parallel_reduce` / `parallel_scan` can use in a device kernel: the
/// built-in reducers of one number (their C++ needs no definitions of its own). Sealed: its names
/// go into the generated code.
pub trait NestedReducer: DeviceReducer + nested_seal::Sealed {
    /// The C++ reducer and value type names.
    #[doc(hidden)]
    fn names() -> (String, String);
}

mod nested_seal {
    /// Implemented by the nested reducers only (a private module: no other crate can name it).
    #[diagnostic::on_unimplemented(
        message = "`NestedReducer` is sealed: a nested reduction in a device kernel uses a \
                   built-in reducer of one number",
        label = "`{Self}` cannot reduce a nested range in device code",
        note = "its C++ names go into the generated code; use Sum, Prod, Min, Max, BAnd, BOr, LAnd \
                or LOr"
    )]
    pub trait Sealed {}
}

macro_rules! nested_reducer {
    ($($r:ident: $bound:ident),*) => {$(
        impl<T: $bound + DeviceScalar> nested_seal::Sealed for $r<T> {}

        impl<T: $bound + DeviceScalar> NestedReducer for $r<T> {
            fn names() -> (String, String) {
                scalar_names::<Self>()
            }
        }
    )*};
}

nested_reducer!(Sum: ReductionScalar, Prod: ReductionScalar, Min: ReductionScalar,
    Max: ReductionScalar, BAnd: Bitwise, BOr: Bitwise);

impl nested_seal::Sealed for LAnd {}
impl nested_seal::Sealed for LOr {}

impl NestedReducer for LAnd {
    fn names() -> (String, String) {
        scalar_names::<Self>()
    }
}

impl NestedReducer for LOr {
    fn names() -> (String, String) {
        scalar_names::<Self>()
    }
}

/// The names of a reducer of one number (whose device form is in the header).
fn scalar_names<R: DeviceReducer>() -> (String, String) {
    match R::device_cxx(crate::seal::Token::new()) {
        Some(c) => (c.reducer, c.value),
        // Every DeviceReducer has a device form (a test below checks the built-in ones).
        None => (String::from("void"), String::from("void")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reducer::ReducerCxx;
    use crate::seal::Token;

    fn cxx<R: DeviceReducer>() -> ReducerCxx {
        match R::device_cxx(Token::new()) {
            Some(c) => c,
            None => panic!(
                "{} is a DeviceReducer without a device form",
                std::any::type_name::<R>()
            ),
        }
    }

    /// Every device reducer has its one device description, with the device header's names and
    /// the value's host layout.
    #[test]
    fn device_reducers_have_their_description() {
        let s = cxx::<Sum<f64>>();
        assert_eq!(
            (s.reducer.as_str(), s.value.as_str(), s.size),
            ("fk::Sum<f64>", "f64", 8)
        );
        assert_eq!(cxx::<BOr<u8>>().reducer, "fk::BOr<u8>");
        assert_eq!(cxx::<LAnd>().value, "bool");
        let m = cxx::<MinLoc<f32, i64>>();
        assert_eq!(m.reducer, "fk::MinLoc<f32, i64>");
        assert_eq!(m.value, "fk::ValLocScalar<f32, i64>");
        assert_eq!((m.size, m.align), (16, 8));
        assert_eq!(cxx::<MinMax<i32>>().value, "fk::MinMaxScalar<i32>");
        assert_eq!(
            cxx::<MinMaxLoc<f64, usize>>().reducer,
            "fk::MinMaxLoc<f64, usize>"
        );
        let t = cxx::<(Sum<f64>, Max<i32>)>();
        assert_eq!(
            (t.reducer.as_str(), t.value.as_str()),
            ("FkTupleReducer", "FkTupleValue")
        );
        assert!(t.definitions.contains("f64 v0;") && t.definitions.contains("i32 v1;"));
        assert_eq!((t.size, t.align), (16, 8));
    }
}
