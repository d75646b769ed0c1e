//! How a reducer exists in device code: the C++ names of its reducer and value types in the device
//! header, and the value's layout, so that a device reduction's result can be read back on the host.

use std::any::TypeId;

/// A reducer's device description (built-in reducers and tuples of them; [`super::Custom`] has
/// none, as its closures run only on the host).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReducerCxx {
    /// The C++ reducer type (`fk::Sum<f64>`).
    pub reducer: String,
    /// The C++ value type (`f64`, `fk::ValLocScalar<f64, usize>`).
    pub value: String,
    /// C++ definitions the two names need (the struct of a tuple of reducers), or empty.
    pub definitions: String,
    /// The size of the value in device memory, in bytes.
    pub size: usize,
    /// The alignment of the value in device memory.
    pub align: usize,
    /// Definitions that the kernel's own emission must make (a custom reducer's device functions
    /// and types, which join the kernel's): each runs inside it, after the body, and returns C++
    /// text that follows the body's device functions (before [`ReducerCxx::definitions`]).
    pub emit: Vec<fn() -> String>,
    /// Whether the reducer struct has a final step, `static void finalize(value_type&)` (Kokkos'
    /// `final`: a [`crate::DeviceJoin`] type's `finalize`), which a reduction writing its result
    /// into a device place applies first. Without one, the reducer's host `finalize` leaves the
    /// value unchanged.
    pub finalize: bool,
    /// Whether the join does not commute, so that the device must combine contributions in index
    /// order (each thread a contiguous run of iterations; see `UnitOptions`).
    pub ordered: bool,
}

/// The device type name of `T` (`"f64"`), if `T` is a primitive number or `bool` (the
/// `DeviceScalar::CXX` of that type; a test in `kernel/ty.rs` checks that they agree).
pub(crate) fn cxx_name<T: 'static>() -> Option<&'static str> {
    macro_rules! find {
        ($($t:ty)*) => {$(
            if TypeId::of::<T>() == TypeId::of::<$t>() {
                return Some(stringify!($t));
            }
        )*};
    }
    find!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize f32 f64 bool);
    None
}

impl ReducerCxx {
    /// A reducer `reducer<T...>` whose value is the Rust type `V` with the C++ name `value`.
    pub(crate) fn of<V>(reducer: String, value: String) -> ReducerCxx {
        ReducerCxx {
            reducer,
            value,
            definitions: String::new(),
            emit: Vec::new(),
            finalize: false,
            ordered: false,
            size: std::mem::size_of::<V>(),
            align: std::mem::align_of::<V>(),
        }
    }

    /// The description of a tuple of reducers: a generated value struct (`FkTupleValue`, members
    /// `v0, v1, ...` laid out in order) and reducer (`FkTupleReducer`).
    pub(crate) fn tuple(members: &[ReducerCxx]) -> ReducerCxx {
        let fields: Vec<String> = members
            .iter()
            .enumerate()
            .map(|(k, m)| format!("    {} v{k};", m.value))
            .collect();
        let identity: Vec<String> = members
            .iter()
            .enumerate()
            .map(|(k, m)| format!("        v.v{k} = {}::identity();", m.reducer))
            .collect();
        let join: Vec<String> = members
            .iter()
            .enumerate()
            .map(|(k, m)| format!("        {}::join(dst.v{k}, src.v{k});", m.reducer))
            .collect();
        let finalize: Vec<String> = members
            .iter()
            .enumerate()
            .filter(|(_, m)| m.finalize)
            .map(|(k, m)| format!("        {}::finalize(v.v{k});", m.reducer))
            .collect();
        let final_step = if finalize.is_empty() {
            String::new()
        } else {
            format!(
                "    static __device__ __forceinline__ void finalize(value_type& v) {{\n{}\n    }}\n",
                finalize.join("\n")
            )
        };
        let inner: String = members
            .iter()
            .map(|m| m.definitions.as_str())
            .collect::<Vec<_>>()
            .concat();
        let definitions = format!(
            "{inner}// The value and reducer of a tuple of reducers.\n\
             struct FkTupleValue {{\n{}\n}};\n\
             struct FkTupleReducer {{\n    \
             typedef FkTupleValue value_type;\n    \
             static __device__ __forceinline__ value_type identity() {{\n        \
             value_type v;\n{}\n        return v;\n    }}\n    \
             static __device__ __forceinline__ void join(value_type& dst, const value_type& src) {{\n\
             {}\n    }}\n{final_step}}};\n",
            fields.join("\n"),
            identity.join("\n"),
            join.join("\n")
        );
        let (size, align) = struct_layout(members.iter().map(|m| (m.size, m.align)));
        ReducerCxx {
            reducer: "FkTupleReducer".into(),
            value: "FkTupleValue".into(),
            definitions,
            emit: members
                .iter()
                .flat_map(|m| m.emit.iter().copied())
                .collect(),
            finalize: !finalize.is_empty(),
            ordered: members.iter().any(|m| m.ordered),
            size,
            align,
        }
    }
}

/// The size and alignment of a C struct with members of the given sizes and alignments.
pub(crate) fn struct_layout(members: impl Iterator<Item = (usize, usize)>) -> (usize, usize) {
    let mut size = 0usize;
    let mut align = 1usize;
    for (s, a) in members {
        size = size.next_multiple_of(a) + s;
        align = align.max(a);
    }
    (size.next_multiple_of(align), align)
}

/// Reads a value of plain numbers (a number, or a `#[repr(C)]` struct of numbers) from the start of
/// `bytes`; `None` when `bytes` is too short.
pub(crate) fn read_plain<V: Copy + 'static>(bytes: &[u8]) -> Option<V> {
    let size = std::mem::size_of::<V>();
    let src = bytes.get(..size)?;
    // SAFETY: the values this is called with are numbers or `#[repr(C)]` structs of numbers, valid
    // for any bit pattern of their size (`bool` values are read by `read_bool`), and `src` has
    // exactly `size` bytes.
    Some(unsafe { std::ptr::read_unaligned(src.as_ptr().cast::<V>()) })
}

/// Reads a number or a `bool` (the scalar reducers' values: `BAnd<bool>` has a `bool` value).
pub(crate) fn read_scalar<V: Copy + 'static>(bytes: &[u8]) -> Option<V> {
    if TypeId::of::<V>() == TypeId::of::<bool>() {
        let b = read_bool(bytes)?;
        // SAFETY: `V` is `bool` (checked just above), so this reinterprets a `bool` as itself.
        return Some(unsafe { std::mem::transmute_copy::<bool, V>(&b) });
    }
    read_plain(bytes)
}

/// Reads a C++ `bool` (one byte, non-zero is true).
pub(crate) fn read_bool(bytes: &[u8]) -> Option<bool> {
    bytes.first().map(|b| *b != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_device_types() {
        assert_eq!(cxx_name::<f64>(), Some("f64"));
        assert_eq!(cxx_name::<usize>(), Some("usize"));
        assert_eq!(cxx_name::<i128>(), None);
    }

    #[test]
    fn struct_layout_pads_like_c() {
        assert_eq!(struct_layout([(1, 1), (8, 8)].into_iter()), (16, 8));
        assert_eq!(struct_layout([(8, 8), (4, 4)].into_iter()), (16, 8));
        assert_eq!(struct_layout([(4, 4), (4, 4), (2, 2)].into_iter()), (12, 4));
    }

    #[test]
    fn plain_values_read_back_and_short_buffers_are_none() {
        assert_eq!(read_plain::<f64>(&2.5f64.to_ne_bytes()), Some(2.5));
        assert_eq!(read_plain::<u32>(&[1, 0]), None);
        assert_eq!(read_bool(&[2]), Some(true));
    }
}
