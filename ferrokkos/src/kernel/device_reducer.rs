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
pub trait DeviceReducer: Reducer {
    /// The C++ reducer type (`fk::Sum<f64>`).
    fn cxx_reducer() -> String;
    /// The C++ type of the value (`f64`, `fk::ValLocScalar<f64, i64>`).
    fn cxx_value() -> String;
    /// C++ definitions the reducer needs before use (for tuples), or nothing.
    fn cxx_definitions() -> String {
        String::new()
    }
    /// The size and alignment of the C++ value type (equal to the Rust value's for every reducer
    /// but the tuples, whose C++ struct is laid out member by member).
    #[doc(hidden)]
    fn device_layout() -> (usize, usize) {
        (
            std::mem::size_of::<Self::Value>(),
            std::mem::align_of::<Self::Value>(),
        )
    }
    /// The value from the bytes of a C++ value (`device_layout().0` bytes).
    #[doc(hidden)]
    fn decode(bytes: &[u8]) -> Self::Value;
}

macro_rules! scalar_reducer {
    ($($r:ident: $bound:ident),*) => {$(
        impl<T: $bound + DeviceType> DeviceReducer for $r<T> {
            fn cxx_reducer() -> String {
                format!("fk::{}<{}>", stringify!($r), T::CXX)
            }
            fn cxx_value() -> String {
                T::CXX.to_string()
            }
            fn decode(bytes: &[u8]) -> T {
                read_value(bytes)
            }
        }
    )*};
}

scalar_reducer!(Sum: ReductionScalar, Prod: ReductionScalar, Min: ReductionScalar,
    Max: ReductionScalar, BAnd: Bitwise, BOr: Bitwise);

macro_rules! logical_reducer {
    ($($r:ident),*) => {$(
        impl DeviceReducer for $r {
            fn cxx_reducer() -> String {
                format!("fk::{}", stringify!($r))
            }
            fn cxx_value() -> String {
                "bool".to_string()
            }
            fn decode(bytes: &[u8]) -> bool {
                bytes.first().is_some_and(|b| *b != 0)
            }
        }
    )*};
}

logical_reducer!(LAnd, LOr);

macro_rules! loc_reducer {
    ($($r:ident => $value:literal),*) => {$(
        impl<T: ReductionScalar + DeviceType, I: IndexType + DeviceType> DeviceReducer for $r<T, I> {
            fn cxx_reducer() -> String {
                format!("fk::{}<{}, {}>", stringify!($r), T::CXX, I::CXX)
            }
            fn cxx_value() -> String {
                format!("fk::{}<{}, {}>", $value, T::CXX, I::CXX)
            }
            fn decode(bytes: &[u8]) -> Self::Value {
                read_value(bytes)
            }
        }
    )*};
}

loc_reducer!(MinLoc => "ValLocScalar", MaxLoc => "ValLocScalar", MinMaxLoc => "MinMaxLocScalar");

impl<T: ReductionScalar + DeviceType> DeviceReducer for MinMax<T> {
    fn cxx_reducer() -> String {
        format!("fk::MinMax<{}>", T::CXX)
    }
    fn cxx_value() -> String {
        format!("fk::MinMaxScalar<{}>", T::CXX)
    }
    fn decode(bytes: &[u8]) -> Self::Value {
        read_value(bytes)
    }
}

/// Reads a `#[repr(C)]` (or primitive) value of plain numbers from the start of `bytes`; a short
/// buffer (never produced by the launches) reads zeros for the missing bytes.
fn read_value<V: Copy + 'static>(bytes: &[u8]) -> V {
    let size = std::mem::size_of::<V>();
    let mut tmp = vec![0u8; size];
    let n = size.min(bytes.len());
    tmp[..n].copy_from_slice(&bytes[..n]);
    // SAFETY: every `V` this is called with (numbers, `bool` excluded, and `#[repr(C)]` structs of
    // numbers) is valid for any bit pattern of its size, and `tmp` holds `size` bytes.
    unsafe { std::ptr::read_unaligned(tmp.as_ptr().cast::<V>()) }
}

macro_rules! tuple_reducer {
    ($($r:ident $k:tt),+) => {
        impl<$($r: DeviceReducer),+> DeviceReducer for ($($r,)+) {
            fn cxx_reducer() -> String {
                "FkTupleReducer".to_string()
            }
            fn cxx_value() -> String {
                "FkTupleValue".to_string()
            }
            fn device_layout() -> (usize, usize) {
                let mut size: usize = 0;
                let mut align: usize = 1;
                $(
                    let (s, a) = $r::device_layout();
                    size = size.next_multiple_of(a) + s;
                    align = align.max(a);
                )+
                (size.next_multiple_of(align), align)
            }
            fn decode(bytes: &[u8]) -> Self::Value {
                let mut at: usize = 0;
                ($({
                    let (s, a) = $r::device_layout();
                    at = at.next_multiple_of(a);
                    let v = $r::decode(bytes.get(at..at + s).unwrap_or(&[]));
                    at += s;
                    v
                },)+)
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
