//! [`DeviceValue`]: the types a kernel can hold as values on every space (the numbers, `bool`, and
//! `#[repr(C)]` structs that derive it), and the C++ definitions of the structs.
//!
//! A struct deriving `DeviceValue` is a View element, a capture, a local, a field, a `#[device]`
//! parameter or return value. Its C++ form is a struct of the same fields in the same order,
//! defined once in each translation unit that uses it (before the functions that name it), and
//! followed by a `static_assert` of its size and alignment against Rust's and of its size against
//! the sum of its fields' (so the C++ struct has no padding either: with the fields in the same
//! order and of the same sizes, every offset is Rust's), so the bytes a View or a kernel parameter
//! carries mean the same on both sides.

use std::any::TypeId;

use super::builder;

/// A type whose values kernels hold, copy and pass on every space: the primitive numbers, `bool`,
/// [`crate::Complex`], arrays `[T; N]` of them (`N` at least 1; Kokkos' `Kokkos::Array`), `#[repr(C)]`
/// structs of them (nested) and fieldless enums with an integer
/// `#[repr]` that `#[derive(DeviceValue)]` (an enum needs a variant whose discriminant is 0, since
/// Views start zero-filled; on the device it is its discriminant).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::{DeviceValue, kernel};
///
/// #[repr(C)]
/// #[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
/// struct Particle {
///     x: f64,
///     v: f64,
/// }
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let p = View::<Particle, 1>::new("particles", [4])?;
/// let dt = 0.5;
/// parallel_for("push", 4, kernel!(|i| {
///     let mut q = p[i];
///     q.v += 1.0;
///     q.x += q.v * dt;
///     p[i] = q;
/// }))?;
/// assert_eq!(p.get(3)?, Particle { x: 0.5, v: 1.0 });
/// # Ok::<(), ferrokkos::Error>(())
/// ```
///
/// The derive checks what the device relies on: `#[repr(C)]` (not `packed`, no `align`), no
/// generics, every field a `DeviceValue`, and no padding (the size is the sum of the fields' sizes;
/// add an explicit field where the layout would have a gap), so every byte of a value is
/// initialized and the all-zero value is valid (Views start zero-filled).
///
/// # Safety
/// Implement it only through the derive. An implementation promises that the type is
/// [`crate::traits::Element`] and that [`DeviceValue::cxx_name`] defines a C++ type with exactly its size,
/// alignment and layout, where every field's C++ value has the Rust field's bytes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a device value",
    note = "kernels and `#[device]` functions hold numbers, `bool`s, `#[repr(C)]` structs that \
            `#[derive(DeviceValue)]` and arrays `[T; N]` of them"
)]
pub unsafe trait DeviceValue: crate::view::Element + crate::plain::PlainBytes {
    /// The type's C++ name in the translation unit being written, defining it there first (and the
    /// types of its fields) when it is a struct.
    #[doc(hidden)]
    fn cxx_name() -> String;
}

macro_rules! primitive_values {
    ($($t:ty)*) => {$(
        // SAFETY: a primitive whose C++ typedef (device header, `types.cuh`) has its size and
        // representation (checked there by `static_assert`s).
        unsafe impl DeviceValue for $t {
            fn cxx_name() -> String {
                <$t as super::ty::DeviceScalar>::CXX.to_string()
            }
        }
    )*};
}

primitive_values!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize f32 f64 bool);

// SAFETY: `fk::Array<T, N>` (device header, `views.cuh`) is a struct of one member `T v[N]`: N
// elements of `T`'s C++ type (same size and layout as `T`, by `T`'s own contract) without gaps,
// aligned as `T`, which is Rust's layout of `[T; N]`; `N` is at least 1 (checked below, as C++ has
// no arrays of length 0). `[T; N]` is an `Element` and `PlainBytes` when `T` is.
unsafe impl<T: DeviceValue, const N: usize> DeviceValue for [T; N] {
    fn cxx_name() -> String {
        const { assert!(N > 0, "a kernel's arrays have at least one element") };
        format!("fk::Array<{}, {N}>", T::cxx_name())
    }
}

/// Device values that `==` and `!=` compare in device code: the device types and the fieldless
/// enums that derive [`DeviceValue`] (compared by discriminant).
pub trait DeviceEq: DeviceValue {}

impl<T: super::ty::DeviceScalar> DeviceEq for T {}

/// A fieldless enum that derives [`DeviceValue`]: on the device it is its discriminant, an integer
/// of its `#[repr]` type.
///
/// # Safety
/// Implement it only through the derive: `cxx_name` is the C++ integer type of the `#[repr]`, and
/// `discriminant` is the value's discriminant as a literal of that type.
pub unsafe trait DeviceEnum: DeviceEq {
    /// The value's discriminant as a C++ literal.
    #[doc(hidden)]
    fn discriminant(self) -> String;
}

/// `v` as a C++ literal of its type (for the discriminants of derived enums).
pub fn int_literal<T: super::ty::DeviceScalar>(v: T) -> String {
    v.literal()
}

/// Compiles only for a [`DeviceValue`] (`#[device]` checks its parameter and return types with it,
/// so that an error points at the type).
pub fn is_device_value<T: DeviceValue>() {}

/// One field of a derived struct: its Rust name and its type's C++ name (a function, so that
/// nested structs are defined first).
pub struct FieldDef {
    /// The field's name (`x`, or `0` for a tuple struct's first field).
    pub name: &'static str,
    /// The C++ name of the field's type.
    pub cxx: fn() -> String,
}

/// The C++ name of a field (a tuple struct's `0` is `_0`; C++ keywords get a `_` suffix).
pub(crate) fn member_name(field: &str) -> String {
    if field.starts_with(|c: char| c.is_ascii_digit()) {
        return format!("_{field}");
    }
    let name = builder::identifier(field);
    if builder::is_reserved(&name) {
        format!("{name}_")
    } else {
        name
    }
}

/// The `cxx_name` of a derived struct `S` named `name` with `fields`: defines it in the current
/// emission if it is not yet defined there, and returns its C++ name (outside an emission, only
/// the name).
pub fn device_struct<S: 'static>(name: &str, fields: &[FieldDef]) -> String {
    builder::device_type(TypeId::of::<S>(), name, |cxx| {
        let members: Vec<(String, String)> = fields
            .iter()
            .map(|f| ((f.cxx)(), member_name(f.name)))
            .collect();
        definition(
            cxx,
            &members,
            std::mem::size_of::<S>(),
            std::mem::align_of::<S>(),
        )
    })
}

/// The C++ definition of struct `cxx` with `members` (type, name) and Rust's size and alignment,
/// checked by a `static_assert` (with the size also against the sum of the members' sizes: no
/// padding, hence Rust's offsets).
fn definition(cxx: &str, members: &[(String, String)], size: usize, align: usize) -> String {
    let mut text = format!("struct {cxx} {{\n");
    for (ty, name) in members {
        text.push_str(&format!("    {ty} {name};\n"));
    }
    text.push_str("};\n");
    let sum: Vec<String> = members
        .iter()
        .map(|(ty, _)| format!("sizeof({ty})"))
        .collect();
    text.push_str(&format!(
        "static_assert(sizeof({cxx}) == {size} && alignof({cxx}) == {align} && {} == {size}, \
         \"ferrokkos: {cxx} has another layout in C++ than in Rust\");\n",
        sum.join(" + ")
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_struct_definition_checks_rusts_layout() {
        let members = vec![
            ("f64".to_string(), "x".to_string()),
            ("f32".to_string(), "class_".to_string()),
            ("i32".to_string(), "_0".to_string()),
        ];
        assert_eq!(
            definition("Particle", &members, 16, 8),
            "struct Particle {\n    f64 x;\n    f32 class_;\n    i32 _0;\n};\n\
             static_assert(sizeof(Particle) == 16 && alignof(Particle) == 8 && \
             sizeof(f64) + sizeof(f32) + sizeof(i32) == 16, \
             \"ferrokkos: Particle has another layout in C++ than in Rust\");\n"
        );
    }

    #[test]
    fn member_names_are_cxx_identifiers() {
        assert_eq!(member_name("x"), "x");
        assert_eq!(member_name("0"), "_0");
        assert_eq!(member_name("class"), "class_");
        assert_eq!(member_name("r#type"), "type");
    }
}
