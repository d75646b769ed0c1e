//! `panic!` and `abort("..")` on the device (Kokkos' `abort`, without the trap): a record in the
//! device's fault record, which the host's next wait returns as `Error::KernelAbort`; the context
//! stays usable.
//!
//! A message without arguments is recorded as its text. With arguments (`panic!("row {} of {}", i,
//! n)`) the device formats nothing: it records a template (the text, each placeholder as `\x01`,
//! the argument's slot, its type and its spec in Rust's syntax, then `\x02`) and the arguments'
//! bits in the record's eight slots, and the host writes the message with Rust's own formatting
//! (`backend/gpu/panic_message.rs`): the same text as the host spaces' panic.

use super::super::builder;
use super::super::expr::Expr;
use super::super::ty::{DeviceScalar, Kind};
use super::print::c_literal_body;
use super::{DeviceInt, DevicePrint, DevicePrintFloat, FormatSpec};

/// The most bytes of a panic's message (or template) the device records (the record's buffer less
/// its NUL).
const MESSAGE_BYTES: usize = 127;

/// The most arguments a kernel's `panic!` takes (the fault record's slots; `kernel!` checks it).
const PANIC_ARGUMENTS: usize = 8;

/// Where a placeholder starts and ends in a template (bytes the message text never holds: a text's
/// own are replaced by `?`).
const OPEN: u8 = 1;
const CLOSE: u8 = 2;

/// `panic!("message")`: the message (cut to the record's 127 bytes at a character boundary) goes
/// to the fault record; in a kernel's body (`ends_iteration`) the iteration ends there, and in a
/// `#[device]` function or a team kernel the thread goes on (all device code is memory-safe
/// whatever the values) and the launch's wait reports the panic.
pub fn kernel_panic(message: &str, ends_iteration: bool) {
    let text = c_literal_body(cut(message, MESSAGE_BYTES));
    builder::line(format!("fk::detail::panic_fault(\"{text}\");"));
    if ends_iteration {
        builder::line("return;");
    }
}

/// A piece of a `panic!`'s template: text, or a placeholder.
#[derive(Debug)]
pub struct PanicPiece(String);

/// Literal text of a `panic!`'s format.
pub fn panic_text(t: &str) -> PanicPiece {
    let clean = t.replace([OPEN as char, CLOSE as char], "?");
    PanicPiece(clean)
}

/// A placeholder `{k:spec}` of a number or `bool`.
pub fn panic_value<T: DevicePrint>(_e: Expr<T>, k: usize, spec: FormatSpec) -> PanicPiece {
    placeholder::<T>(k, spec)
}

/// A placeholder `{k:e}` / `{k:E}` of a float.
pub fn panic_exp<T: DevicePrintFloat>(_e: Expr<T>, k: usize, spec: FormatSpec) -> PanicPiece {
    placeholder::<T>(k, spec)
}

/// A placeholder `{k:x}` / `{k:X}` / `{k:o}` of an integer.
pub fn panic_radix<T: DevicePrint + DeviceInt>(
    _e: Expr<T>,
    k: usize,
    spec: FormatSpec,
) -> PanicPiece {
    placeholder::<T>(k, spec)
}

/// An argument of a `panic!`: its bits as the record keeps them (`fk::detail::panic_bits`: an
/// integer sign-extended, a `bool` 0 or 1, a float's own bits).
pub struct PanicArg(String);

/// The argument `e`.
pub fn panic_arg<T: DevicePrint>(e: Expr<T>) -> PanicArg {
    PanicArg(format!("fk::detail::panic_bits({})", e.text()))
}

/// `panic!` with arguments: the template of `pieces` (cut to the record's 127 bytes, a
/// placeholder that does not fit left out with the rest) and the arguments' bits go to the fault
/// record; the iteration ends as for [`kernel_panic`].
pub fn kernel_panic_args<const N: usize, const M: usize>(
    pieces: [PanicPiece; N],
    args: [PanicArg; M],
    ends_iteration: bool,
) {
    const {
        assert!(
            M <= PANIC_ARGUMENTS,
            "a kernel's `panic!` takes at most 8 arguments"
        )
    };
    let mut template = String::new();
    for PanicPiece(p) in pieces {
        let room = MESSAGE_BYTES - template.len();
        if p.starts_with(OPEN as char) {
            if p.len() > room {
                break;
            }
            template.push_str(&p);
        } else {
            template.push_str(cut(&p, room));
            if p.len() > room {
                break;
            }
        }
    }
    let text = c_literal_body(&template);
    let bits: Vec<String> = args.into_iter().map(|PanicArg(a)| a).collect();
    builder::line(format!(
        "{{ const unsigned long long fk_panic_args[{M}] = {{{}}}; \
         fk::detail::panic_fault_args(\"{text}\", {M}u, fk_panic_args); }}",
        bits.join(", ")
    ));
    if ends_iteration {
        builder::line("return;");
    }
}

/// `{k:spec}` of a `T` as a template's placeholder: `\x01`, the slot, the type (`b1`, `i4`, `u8`,
/// `f4`, ...: its kind and its size in bytes), the spec, `\x02`.
fn placeholder<T: DeviceScalar>(k: usize, spec: FormatSpec) -> PanicPiece {
    let kind = match T::KIND {
        Kind::Bool => 'b',
        Kind::Signed => 'i',
        Kind::Unsigned => 'u',
        Kind::Float | Kind::Complex => 'f',
    };
    let size = std::mem::size_of::<T>();
    let mut s = format!("{}{k}{kind}{size}", OPEN as char);
    if spec.align != 0 {
        s.push(spec.align as char);
    }
    if spec.plus {
        s.push('+');
    }
    if spec.zero {
        s.push('0');
    }
    if let Some(w) = spec.width {
        s.push_str(&w.to_string());
    }
    if let Some(p) = spec.precision {
        s.push_str(&format!(".{p}"));
    }
    if spec.conversion != ' ' {
        s.push(spec.conversion);
    }
    s.push(CLOSE as char);
    PanicPiece(s)
}

/// The longest prefix of `t` of at most `max` bytes that ends at a character boundary.
fn cut(t: &str, max: usize) -> &str {
    let mut end = t.len().min(max);
    while !t.is_char_boundary(end) {
        end -= 1;
    }
    &t[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A placeholder names its slot, type and spec between the two marker bytes.
    #[test]
    fn placeholders_carry_slot_type_and_spec() {
        let spec = FormatSpec {
            align: b'>',
            plus: true,
            zero: false,
            width: Some(8),
            precision: Some(3),
            conversion: 'e',
        };
        assert_eq!(placeholder::<f32>(2, spec).0, "\u{1}2f4>+8.3e\u{2}");
        let plain = FormatSpec {
            align: 0,
            plus: false,
            zero: false,
            width: None,
            precision: None,
            conversion: ' ',
        };
        assert_eq!(placeholder::<i16>(0, plain).0, "\u{1}0i2\u{2}");
        assert_eq!(placeholder::<bool>(7, plain).0, "\u{1}7b1\u{2}");
        assert_eq!(panic_text("a\u{1}b").0, "a?b");
    }
}
