//! The output macros on the device: `println!` and its siblings become one C `printf` (Kokkos'
//! `printf`). `panic!` is `panic.rs`.
//!
//! `kernel!` checked the format (`ferrokkos-macros/src/format.rs`); each placeholder here becomes
//! the conversion its argument's type needs, with Rust's text where C has a spelling for it.

use super::super::builder;
use super::super::expr::Expr;
use super::super::ty::{DeviceScalar, Kind};
use super::DeviceInt;

/// A number or `bool` a kernel may print (`println!("{}", x)`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be printed in a kernel",
    label = "not a number or `bool`",
    note = "a kernel's `print!` / `println!` / `eprint!` / `eprintln!` / `panic!` format numbers and `bool`; \
            print a struct's fields or a complex number's parts (`z.re`, `z.im`) one by one"
)]
pub trait DevicePrint: DeviceScalar {}

macro_rules! device_print {
    ($($t:ident)*) => {$( impl DevicePrint for $t {} )*};
}

device_print!(bool i8 i16 i32 i64 isize u8 u16 u32 u64 usize f32 f64);

/// A float a kernel may print in exponent form (`{:e}`, `{:E}`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be printed with `{{:e}}` in a kernel",
    label = "not `f32` or `f64`",
    note = "a kernel formats `f32` and `f64` with `{{:e}}` and `{{:E}}`; convert an integer with \
            `as f64`"
)]
pub trait DevicePrintFloat: DevicePrint {}

impl DevicePrintFloat for f32 {}
impl DevicePrintFloat for f64 {}

/// A placeholder's spec, as `kernel!` parsed it: `[<|>][+][0][width][.precision][conversion]`.
#[derive(Clone, Copy, Debug)]
pub struct FormatSpec {
    /// `b'<'`, `b'>'` or 0 (the type's default: numbers to the right, `bool` to the left).
    pub align: u8,
    /// `+`.
    pub plus: bool,
    /// `0`.
    pub zero: bool,
    /// The width, if given.
    pub width: Option<u32>,
    /// The precision, if given.
    pub precision: Option<u32>,
    /// `' '` (Display), `'?'`, `'e'`, `'E'`, `'x'`, `'X'` or `'o'`.
    pub conversion: char,
}

impl FormatSpec {
    /// C's flags and width for this spec (`-05`); text is left-aligned unless `>` is given.
    /// A `bool` (`text`) takes no sign or zero padding, as in Rust.
    fn flags(&self, text: bool) -> String {
        let left = self.align == b'<' || (self.align == 0 && text);
        let mut out = String::new();
        if left && self.width.is_some() {
            out.push('-');
        }
        if self.plus && !text {
            out.push('+');
        }
        if self.zero && !text {
            out.push('0');
        }
        if let Some(w) = self.width {
            out.push_str(&w.to_string());
        }
        out
    }
}

/// A piece of a `printf`: its format text (escaped for a C string literal) and its arguments.
#[derive(Debug)]
pub struct FormatPiece {
    format: String,
    args: Vec<String>,
}

/// Literal text of a format (`%` doubled).
pub fn format_text(t: &str) -> FormatPiece {
    FormatPiece {
        format: c_literal_body(t).replace('%', "%%"),
        args: Vec::new(),
    }
}

/// `{}` or `{:?}` of `e`: the conversion of its type.
pub fn print_value<T: DevicePrint>(e: Expr<T>, spec: FormatSpec) -> FormatPiece {
    let x = e.text();
    let precision = spec.precision.map(|p| format!(".{p}")).unwrap_or_default();
    let piece = |f: String, args: Vec<String>| FormatPiece { format: f, args };
    match T::KIND {
        Kind::Bool => piece(
            format!("%{}{precision}s", spec.flags(true)),
            vec![format!("fk::fmt_bool({x})")],
        ),
        Kind::Signed => piece(
            format!("%{}lld", spec.flags(false)),
            vec![format!("(long long)({x})")],
        ),
        Kind::Unsigned => piece(
            format!("%{}llu", spec.flags(false)),
            vec![format!("(unsigned long long)({x})")],
        ),
        Kind::Float if spec.precision.is_some() => piece(
            format!("%{}{precision}f", spec.flags(false)),
            vec![format!("(f64)({x})")],
        ),
        Kind::Float if spec.conversion == '?' => piece(
            "%g%s".into(),
            vec![format!("(f64)({x})"), format!("fk::fmt_point((f64)({x}))")],
        ),
        Kind::Float => piece(
            format!("%{}g", spec.flags(false)),
            vec![format!("(f64)({x})")],
        ),
        // Not a `DevicePrint` type.
        Kind::Complex => piece("?".into(), Vec::new()),
    }
}

/// `{:e}` / `{:E}` of a float: the mantissa (`%g`, or `%.Nf` with a precision), then the `e` and
/// the exponent as Rust writes them (`1.5e3`, not C's `1.500000e+03`), both left out for an
/// infinity or NaN.
pub fn print_exp<T: DevicePrintFloat>(e: Expr<T>, spec: FormatSpec) -> FormatPiece {
    let x = format!("(f64)({})", e.text());
    let sign = if spec.plus { "+" } else { "" };
    let (mantissa, digits) = match spec.precision {
        Some(p) => (format!("%{sign}.{p}f"), p as i64),
        None => (format!("%{sign}g"), -1),
    };
    let letter = if spec.conversion == 'E' { "E" } else { "e" };
    FormatPiece {
        format: format!("{mantissa}%.*s%.*d"),
        args: vec![
            format!("fk::fmt_mantissa({x}, {digits})"),
            format!("fk::fmt_finite({x})"),
            format!("\"{letter}\""),
            format!("fk::fmt_finite({x})"),
            format!("fk::fmt_exponent({x}, {digits})"),
        ],
    }
}

/// `{:x}`, `{:X}` or `{:o}` of an integer: its bits in its own width (a negative `i8` prints two
/// hex digits, as in Rust).
pub fn print_radix<T: DevicePrint + DeviceInt>(e: Expr<T>, spec: FormatSpec) -> FormatPiece {
    let bits = T::CXX.trim_start_matches(['i', 'u']);
    let bits = if bits == "size" { "64" } else { bits };
    let conversion = match spec.conversion {
        'X' => 'X',
        'o' => 'o',
        _ => 'x',
    };
    FormatPiece {
        format: format!("%{}ll{conversion}", spec.flags(false)),
        args: vec![format!("(unsigned long long)(u{bits})({})", e.text())],
    }
}

/// `print!` (to stdout) and its siblings: one `printf` of the pieces, with `\n` for `println!`.
/// The device has one output stream: `eprint!` prints there too.
pub fn print<const N: usize>(_stderr: bool, newline: bool, pieces: [FormatPiece; N]) {
    let mut format: String = pieces.iter().map(|p| p.format.as_str()).collect();
    if newline {
        format.push_str("\\n");
    }
    let args: Vec<&str> = pieces
        .iter()
        .flat_map(|p| p.args.iter().map(String::as_str))
        .collect();
    let mut line = format!("printf(\"{format}\"");
    for a in args {
        line.push_str(", ");
        line.push_str(a);
    }
    line.push_str(");");
    builder::line(line);
}

/// `t` as the inside of a C string literal: printable ASCII as itself (`\` and `"` escaped), every
/// other byte as a three-digit octal escape (which, unlike `\x`, takes no more digits after it).
pub(super) fn c_literal_body(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    for b in t.bytes() {
        match b {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Control characters, quotes, backslashes and non-ASCII bytes are escaped so that no escape
    /// runs into the text after it.
    #[test]
    fn c_literals_escape_what_c_would_read_otherwise() {
        assert_eq!(c_literal_body("a\"b\\c\n"), "a\\\"b\\\\c\\n");
        assert_eq!(c_literal_body("é1"), "\\303\\2511");
        assert_eq!(format_text("100%").format, "100%%");
    }
}
