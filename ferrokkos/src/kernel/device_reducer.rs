//! [`DeviceReducer`]: the reducers a device reduction or scan can use, by their C++ names in the
//! device header.

use super::ty::DeviceType;
use crate::policy::IndexType;
use crate::reducer::{
    BAnd, BOr, Bitwise, LAnd, LOr, Max, MaxLoc, Min, MinLoc, MinMax, MinMaxLoc, Prod, Reducer,
    ReductionScalar, Sum,
};

/// A reducer with a device implementation (`identity` and `join` in C++). Built-in reducers and
/// tuples of them are; [`crate::Custom`] reducers (host closures) are not.
///
/// Sealed: a launch writes its C++ names into the generated code and trusts its value's size.
pub trait DeviceReducer: Reducer + crate::seal::SealedReducer {
    /// The C++ reducer type (`fk::Sum<f64>`).
    fn cxx_reducer() -> String;
    /// The C++ type of the value (`f64`, `fk::ValLocScalar<f64, i64>`).
    fn cxx_value() -> String;
    /// C++ definitions the reducer needs before use (for tuples), or nothing.
    fn cxx_definitions() -> String {
        String::new()
    }
}

macro_rules! scalar_reducer {
    ($($r:ident: $bound:ident),*) => {$(
        impl<T: $bound + DeviceType> crate::seal::SealedReducer for $r<T> {}

        impl<T: $bound + DeviceType> DeviceReducer for $r<T> {
            fn cxx_reducer() -> String {
                format!("fk::{}<{}>", stringify!($r), T::CXX)
            }
            fn cxx_value() -> String {
                T::CXX.to_string()
            }
        }
    )*};
}

scalar_reducer!(Sum: ReductionScalar, Prod: ReductionScalar, Min: ReductionScalar,
    Max: ReductionScalar, BAnd: Bitwise, BOr: Bitwise);

macro_rules! logical_reducer {
    ($($r:ident),*) => {$(
        impl crate::seal::SealedReducer for $r {}

        impl DeviceReducer for $r {
            fn cxx_reducer() -> String {
                format!("fk::{}", stringify!($r))
            }
            fn cxx_value() -> String {
                "bool".to_string()
            }
        }
    )*};
}

logical_reducer!(LAnd, LOr);

macro_rules! loc_reducer {
    ($($r:ident => $value:literal),*) => {$(
        impl<T: ReductionScalar + DeviceType, I: IndexType + DeviceType> crate::seal::SealedReducer
            for $r<T, I>
        {
        }

        impl<T: ReductionScalar + DeviceType, I: IndexType + DeviceType> DeviceReducer for $r<T, I> {
            fn cxx_reducer() -> String {
                format!("fk::{}<{}, {}>", stringify!($r), T::CXX, I::CXX)
            }
            fn cxx_value() -> String {
                format!("fk::{}<{}, {}>", $value, T::CXX, I::CXX)
            }
        }
    )*};
}

loc_reducer!(MinLoc => "ValLocScalar", MaxLoc => "ValLocScalar", MinMaxLoc => "MinMaxLocScalar");

impl<T: ReductionScalar + DeviceType> crate::seal::SealedReducer for MinMax<T> {}

impl<T: ReductionScalar + DeviceType> DeviceReducer for MinMax<T> {
    fn cxx_reducer() -> String {
        format!("fk::MinMax<{}>", T::CXX)
    }
    fn cxx_value() -> String {
        format!("fk::MinMaxScalar<{}>", T::CXX)
    }
}

macro_rules! tuple_reducer {
    ($($r:ident $k:tt),+) => {
        impl<$($r: DeviceReducer),+> crate::seal::SealedReducer for ($($r,)+) {}

        impl<$($r: DeviceReducer),+> DeviceReducer for ($($r,)+) {
            fn cxx_reducer() -> String {
                "FkTupleReducer".to_string()
            }
            fn cxx_value() -> String {
                "FkTupleValue".to_string()
            }
            fn cxx_definitions() -> String {
                let members = [$(format!("    {} v{};", $r::cxx_value(), $k)),+].join("\n");
                let identity = [$(format!("        v.v{k} = {}::identity();", $r::cxx_reducer(), k = $k)),+]
                    .join("\n");
                let join = [$(format!("        {}::join(dst.v{k}, src.v{k});", $r::cxx_reducer(), k = $k)),+]
                    .join("\n");
                format!(
                    "// The value and reducer of a tuple of reducers.\n\
                     struct FkTupleValue {{\n{members}\n}};\n\
                     struct FkTupleReducer {{\n    \
                     typedef FkTupleValue value_type;\n    \
                     static __device__ __forceinline__ value_type identity() {{\n        \
                     value_type v;\n{identity}\n        return v;\n    }}\n    \
                     static __device__ __forceinline__ void join(value_type& dst, const value_type& src) {{\n\
                     {join}\n    }}\n}};\n"
                )
            }
        }
    };
}

tuple_reducer!(R0 0, R1 1);
tuple_reducer!(R0 0, R1 1, R2 2);
tuple_reducer!(R0 0, R1 1, R2 2, R3 3);
tuple_reducer!(R0 0, R1 1, R2 2, R3 3, R4 4);
tuple_reducer!(R0 0, R1 1, R2 2, R3 3, R4 4, R5 5);
