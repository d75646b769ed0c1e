//! [`DeviceScalar`]: the Rust types a kernel can compute with, and their C++ spellings.

/// A type that kernels can use on the device: the primitive numbers and `bool`. Its C++ name is the
/// Rust name, made a type by the device header (`typedef double f64;`), so generated code reads like
/// the kernel it came from.
///
/// Sealed: the generated device code is written from these names and literals.
pub trait DeviceScalar:
    crate::seal::SealedDeviceScalar
    + super::value::DeviceValue
    + crate::plain::PlainBytes
    + Send
    + Sync
    + super::capture::IntoCapture<Value = Self>
{
    /// The C++ spelling (`"f64"`, `"u32"`, `"bool"`).
    const CXX: &'static str;
    /// Whether arithmetic on it is promoted to `int` in C++ (8- and 16-bit integers and `bool`), so
    /// that results must be converted back to keep Rust's type.
    const PROMOTED: bool = false;
    /// The kind of number, for operators whose C++ spelling depends on it.
    const KIND: Kind;
    /// This value as a C++ literal of exactly this type (`1.5f`, `7ULL`, `-2147483647 - 1`).
    fn literal(self) -> String;
}

/// The kinds of [`DeviceScalar`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `bool`.
    Bool,
    /// A signed integer.
    Signed,
    /// An unsigned integer.
    Unsigned,
    /// `f32` or `f64`.
    Float,
    /// `Complex<f32>` or `Complex<f64>` (num-complex).
    Complex,
}

impl crate::seal::Sealed for bool {}

impl DeviceScalar for bool {
    const CXX: &'static str = "bool";
    const PROMOTED: bool = true;
    const KIND: Kind = Kind::Bool;
    fn literal(self) -> String {
        self.to_string()
    }
}

macro_rules! signed {
    ($($t:ty => $suffix:literal, $promoted:literal;)*) => {$(
        impl crate::seal::Sealed for $t {}

        impl DeviceScalar for $t {
            const CXX: &'static str = stringify!($t);
            const PROMOTED: bool = $promoted;
            const KIND: Kind = Kind::Signed;
            fn literal(self) -> String {
                let text = if self == <$t>::MIN {
                    // `-9223372036854775808LL` is the negation of a literal that does not fit.
                    format!("({}{} - 1)", <$t>::MIN + 1, $suffix)
                } else {
                    format!("{self}{}", $suffix)
                };
                if $promoted { format!("{}({text})", stringify!($t)) } else { text }
            }
        }
    )*};
}

signed! {
    i8 => "", true;
    i16 => "", true;
    i32 => "", false;
    i64 => "LL", false;
    isize => "LL", false;
}

macro_rules! unsigned {
    ($($t:ty => $suffix:literal, $promoted:literal;)*) => {$(
        impl crate::seal::Sealed for $t {}

        impl DeviceScalar for $t {
            const CXX: &'static str = stringify!($t);
            const PROMOTED: bool = $promoted;
            const KIND: Kind = Kind::Unsigned;
            fn literal(self) -> String {
                if $promoted {
                    format!("{}({self})", stringify!($t))
                } else {
                    format!("{self}{}", $suffix)
                }
            }
        }
    )*};
}

unsigned! {
    u8 => "", true;
    u16 => "", true;
    u32 => "U", false;
    u64 => "ULL", false;
    usize => "ULL", false;
}

macro_rules! float {
    ($($t:ident => $suffix:literal;)*) => {$(
        impl crate::seal::Sealed for $t {}

        impl DeviceScalar for $t {
            const CXX: &'static str = stringify!($t);
            const KIND: Kind = Kind::Float;
            fn literal(self) -> String {
                if self.is_nan() {
                    return format!("fk::quiet_nan<{}>()", stringify!($t));
                }
                if self.is_infinite() {
                    let sign = if self < 0.0 { "-" } else { "" };
                    return format!("{sign}fk::infinity<{}>()", stringify!($t));
                }
                // `{:?}` is the shortest text that reads back as the same value, with a `.` or an
                // exponent, so C++ parses it as a floating literal.
                let mut text = format!("{self:?}");
                if !text.contains(['.', 'e', 'E']) {
                    text.push_str(".0");
                }
                text.push_str($suffix);
                text
            }
        }
    )*};
}

float! {
    f32 => "f";
    f64 => "";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reducers_name_device_types_as_the_kernel_language_does() {
        fn agree<T: DeviceScalar>() {
            assert_eq!(crate::reducer::cxx_name::<T>(), Some(T::CXX));
        }
        agree::<i8>();
        agree::<i16>();
        agree::<i32>();
        agree::<i64>();
        agree::<isize>();
        agree::<u8>();
        agree::<u16>();
        agree::<u32>();
        agree::<u64>();
        agree::<usize>();
        agree::<f32>();
        agree::<f64>();
        agree::<bool>();
        assert_eq!(crate::reducer::cxx_name::<(i32, i32)>(), None);
    }

    #[test]
    fn literals_have_the_exact_type_in_cxx() {
        assert_eq!(2.0f32.literal(), "2.0f");
        assert_eq!(0.1f64.literal(), "0.1");
        assert_eq!(1e300f64.literal(), "1e300");
        assert_eq!(f64::MAX.literal(), "1.7976931348623157e308");
        assert_eq!(f32::NEG_INFINITY.literal(), "-fk::infinity<f32>()");
        assert_eq!(f64::NAN.literal(), "fk::quiet_nan<f64>()");
        assert_eq!(7u64.literal(), "7ULL");
        assert_eq!(7u32.literal(), "7U");
        assert_eq!((-3i32).literal(), "-3");
        assert_eq!(i32::MIN.literal(), "(-2147483647 - 1)");
        assert_eq!(i64::MIN.literal(), "(-9223372036854775807LL - 1)");
        assert_eq!(200u8.literal(), "u8(200)");
        assert_eq!(true.literal(), "true");
    }
}
