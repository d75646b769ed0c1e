//! The message of a device `panic!` with arguments, written on the host with Rust's formatting.
//!
//! The device records a template and the arguments' bits (`kernel/shadow/panic.rs` writes the
//! template; `fk::detail::panic_fault_args` records it): text, and for each placeholder `\x01`,
//! the argument's slot (`0`–`7`), its type (`b1` a `bool`, `i1`–`i8` / `u1`–`u8` an integer of
//! that many bytes, `f4` / `f8` a float), its spec in Rust's syntax (`>+08.3e`), then `\x02`.
//! Each placeholder becomes the text Rust's `format!` gives for that value and spec, so the
//! message reads as the host spaces' panic does.

use std::fmt::Write as _;

/// A placeholder's spec: `[<|>][+][0][width][.precision][?|e|E|x|X|o]`.
#[derive(Default)]
struct Spec {
    align: Option<char>,
    plus: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    conversion: char,
}

/// A recorded argument, as its type.
#[derive(Clone, Copy)]
enum Value {
    Bool(bool),
    Signed(i64, u32),
    Unsigned(u64),
    F32(f32),
    F64(f64),
}

/// The message of `template` over the arguments' bits `args`. A malformed placeholder (the record
/// cut, a slot without a value) is written as `{?}`.
pub(crate) fn render(template: &str, args: &[u64]) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(at) = rest.find('\u{1}') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let Some(end) = after.find('\u{2}') else {
            out.push_str("{?}");
            return out;
        };
        match placeholder(&after[..end], args) {
            Some(text) => out.push_str(&text),
            None => out.push_str("{?}"),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The text of one placeholder (`0i4>8`), if it is well formed.
fn placeholder(p: &str, args: &[u64]) -> Option<String> {
    let mut chars = p.chars();
    let slot = chars.next()?.to_digit(10)? as usize;
    let kind = chars.next()?;
    let bytes = chars.next()?.to_digit(10)?;
    let bits = *args.get(slot)?;
    let value = match (kind, bytes) {
        ('b', 1) => Value::Bool(bits != 0),
        ('i', 1 | 2 | 4 | 8) => Value::Signed(bits as i64, bytes * 8),
        ('u', 1 | 2 | 4 | 8) => Value::Unsigned(bits & mask(bytes * 8)),
        ('f', 4) => Value::F32(f32::from_bits(bits as u32)),
        ('f', 8) => Value::F64(f64::from_bits(bits)),
        _ => return None,
    };
    Some(format_value(value, &parse_spec(chars.as_str())?))
}

/// The low `bits` bits.
fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn parse_spec(s: &str) -> Option<Spec> {
    let mut spec = Spec {
        conversion: ' ',
        ..Spec::default()
    };
    let mut rest = s;
    if let Some(c @ ('<' | '>')) = rest.chars().next() {
        spec.align = Some(c);
        rest = &rest[1..];
    }
    if let Some(r) = rest.strip_prefix('+') {
        spec.plus = true;
        rest = r;
    }
    if let Some(r) = rest.strip_prefix('0') {
        spec.zero = true;
        rest = r;
    }
    let digits = |r: &str| r.chars().take_while(char::is_ascii_digit).count();
    let n = digits(rest);
    if n > 0 {
        spec.width = rest[..n].parse().ok()?;
        rest = &rest[n..];
    }
    if let Some(r) = rest.strip_prefix('.') {
        let n = digits(r);
        spec.precision = Some(r[..n].parse().ok()?);
        rest = &r[n..];
    }
    match rest {
        "" => {}
        "?" | "e" | "E" | "x" | "X" | "o" => spec.conversion = rest.chars().next()?,
        _ => return None,
    }
    Some(spec)
}

/// `value` as Rust's `format!` writes it with `spec`.
fn format_value(value: Value, spec: &Spec) -> String {
    let body = body(value, spec);
    let numeric = !matches!(value, Value::Bool(_));
    let len = body.chars().count();
    if len >= spec.width {
        return body;
    }
    let fill = spec.width - len;
    // Rust pads a number (an infinity and NaN too) with zeros after its sign.
    if spec.zero && numeric {
        let sign = usize::from(body.starts_with(['+', '-']));
        let mut out = body[..sign].to_string();
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(&body[sign..]);
        return out;
    }
    let left = match spec.align {
        Some(c) => c == '<',
        None => !numeric,
    };
    let pad: String = std::iter::repeat_n(' ', fill).collect();
    if left { body + &pad } else { pad + &body }
}

/// The value's text before padding: its sign, digits, precision and conversion.
fn body(value: Value, spec: &Spec) -> String {
    let mut out = String::new();
    let p = spec.precision;
    // `write!` into a `String` cannot fail.
    let _ = match (value, spec.conversion) {
        (Value::Bool(b), _) => match p {
            Some(p) => write!(out, "{b:.p$}"),
            None => write!(out, "{b}"),
        },
        (Value::Signed(v, bits), 'x' | 'X' | 'o') => radix(&mut out, v as u64 & mask(bits), spec),
        (Value::Unsigned(v), 'x' | 'X' | 'o') => radix(&mut out, v, spec),
        (Value::Signed(v, _), _) if spec.plus => write!(out, "{v:+}"),
        (Value::Signed(v, _), _) => write!(out, "{v}"),
        (Value::Unsigned(v), _) if spec.plus => write!(out, "{v:+}"),
        (Value::Unsigned(v), _) => write!(out, "{v}"),
        (Value::F32(x), c) => float(&mut out, x, c, spec),
        (Value::F64(x), c) => float(&mut out, x, c, spec),
    };
    out
}

fn radix(out: &mut String, v: u64, spec: &Spec) -> std::fmt::Result {
    match spec.conversion {
        'x' => write!(out, "{v:x}"),
        'X' => write!(out, "{v:X}"),
        _ => write!(out, "{v:o}"),
    }
}

/// A float as Display (`{}`), Debug (`{:?}`) or exponent (`{:e}`, `{:E}`), with the spec's sign
/// and precision.
fn float<F>(out: &mut String, x: F, conversion: char, spec: &Spec) -> std::fmt::Result
where
    F: std::fmt::Display + std::fmt::Debug + std::fmt::LowerExp + std::fmt::UpperExp,
{
    match (conversion, spec.precision, spec.plus) {
        ('?', Some(p), true) => write!(out, "{x:+.p$?}"),
        ('?', Some(p), false) => write!(out, "{x:.p$?}"),
        ('?', None, true) => write!(out, "{x:+?}"),
        ('?', None, false) => write!(out, "{x:?}"),
        ('e', Some(p), true) => write!(out, "{x:+.p$e}"),
        ('e', Some(p), false) => write!(out, "{x:.p$e}"),
        ('e', None, true) => write!(out, "{x:+e}"),
        ('e', None, false) => write!(out, "{x:e}"),
        ('E', Some(p), true) => write!(out, "{x:+.p$E}"),
        ('E', Some(p), false) => write!(out, "{x:.p$E}"),
        ('E', None, true) => write!(out, "{x:+E}"),
        ('E', None, false) => write!(out, "{x:E}"),
        (_, Some(p), true) => write!(out, "{x:+.p$}"),
        (_, Some(p), false) => write!(out, "{x:.p$}"),
        (_, None, true) => write!(out, "{x:+}"),
        (_, None, false) => write!(out, "{x}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The template of one placeholder of slot 0 with `ty` and `spec`, around some text.
    fn one(ty: &str, spec: &str) -> String {
        format!("<\u{1}0{ty}{spec}\u{2}>")
    }

    macro_rules! same_as_rust {
        ($ty:literal, $bits:expr, $($spec:literal => $fmt:literal),* $(,)?) => {{
            let (bits, v) = $bits;
            $(
                assert_eq!(
                    render(&one($ty, $spec), &[bits]),
                    format!(concat!("<", $fmt, ">"), v),
                    "spec `{}` of {:?}", $spec, v
                );
            )*
        }};
    }

    /// Every spec a kernel's format takes gives the text Rust's `format!` gives, for each type.
    #[test]
    fn placeholders_read_as_rust_formats_them() {
        for v in [
            0.0f64,
            -0.0,
            1.0,
            0.1,
            2.5,
            -1234.5678,
            1e-7,
            1e21,
            f64::INFINITY,
            f64::NAN,
        ] {
            same_as_rust!("f8", (v.to_bits(), v),
                "" => "{}", "?" => "{:?}", ".3" => "{:.3}", "+.2" => "{:+.2}", ">12" => "{:>12}",
                "<12.1" => "{:<12.1}", "012.3" => "{:012.3}", "+010" => "{:+010}",
                "e" => "{:e}", ".2e" => "{:.2e}", "E" => "{:E}", "+12.3e" => "{:+12.3e}",
                ".4?" => "{:.4?}", "8" => "{:8}");
        }
        for v in [0.1f32, -3.25, 16777217.0, f32::NEG_INFINITY] {
            same_as_rust!("f4", (u64::from(v.to_bits()), v),
                "" => "{}", "?" => "{:?}", ".3" => "{:.3}", "e" => "{:e}", "010.2" => "{:010.2}");
        }
        for v in [0i32, 7, -7, i32::MIN, i32::MAX] {
            same_as_rust!("i4", (v as i64 as u64, v),
                "" => "{}", "+" => "{:+}", ">6" => "{:>6}", "<6" => "{:<6}", "06" => "{:06}",
                "+06" => "{:+06}", "x" => "{:x}", "X" => "{:X}", "o" => "{:o}", "08x" => "{:08x}",
                ".3" => "{:.3}", "?" => "{:?}");
        }
        for v in [-1i8, 127, -128] {
            same_as_rust!("i1", (v as i64 as u64, v), "" => "{}", "x" => "{:x}", "o" => "{:o}");
        }
        for v in [0u64, 42, u64::MAX] {
            same_as_rust!("u8", (v, v), "" => "{}", "+" => "{:+}", "x" => "{:x}", "020" => "{:020}");
        }
        for v in [true, false] {
            same_as_rust!("b1", (u64::from(v), v),
                "" => "{}", "8" => "{:8}", ">8" => "{:>8}", ".2" => "{:.2}", "?" => "{:?}");
        }
    }

    /// Text around placeholders, arguments used twice or out of order, and a template the record
    /// cut inside a placeholder.
    #[test]
    fn templates_combine_text_and_arguments() {
        let t = "row \u{1}1u8\u{2} of \u{1}0i4>3\u{2}: \u{1}2f8.2\u{2} (row \u{1}1u8\u{2})";
        let args = [(-4i32) as i64 as u64, 17, 0.125f64.to_bits()];
        assert_eq!(render(t, &args), "row 17 of  -4: 0.12 (row 17)");
        assert_eq!(render("x = \u{1}0i4", &[1]), "x = {?}");
        assert_eq!(render("x = \u{1}5i4\u{2}", &[1]), "x = {?}");
        assert_eq!(render("no placeholders", &[]), "no placeholders");
    }
}
