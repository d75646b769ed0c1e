//! The output macros of a body (`println!` and its siblings, `panic!`; see `format.rs`): their
//! arguments are values the body reads. The expansion first made each one that parses a marker
//! call ([`crate::format::normalize`]); a macro left is refused here with the reason.

use super::{Walker, unsupported};
use crate::format::{self, MacroKind};

impl Walker {
    /// A macro call left by the normalization: not an output macro, one that does not parse, or a
    /// `panic!` with more arguments than the device records.
    pub(super) fn kernel_macro(&mut self, m: &syn::Macro) {
        let Some(kind) = format::kind_of(m) else {
            self.errors.push(unsupported(
                m,
                "a macro call (other than `print!`, `println!`, `eprint!`, `eprintln!` and \
                 `panic!`)",
            ));
            return;
        };
        match format::parse(m, kind) {
            Err(e) => self.errors.push(e),
            Ok(_) if kind == MacroKind::Panic => self.err_spanned(
                &quote::ToTokens::to_token_stream(m),
                format!(
                    "`panic!` in a kernel takes at most {} arguments (the device's fault record \
                     keeps that many values); print the others first (`eprintln!(\"{{}}\", x)`)",
                    format::PANIC_ARGUMENTS
                ),
            ),
            Ok(_) => self.errors.push(unsupported(m, "this macro call")),
        }
    }

    /// An output macro's marker call: its arguments are values. Whether each is a number or
    /// `bool` is the typed shadow's check.
    pub(super) fn output_call(&mut self, c: &syn::ExprCall) -> bool {
        let Some(m) = format::from_call(c) else {
            return false;
        };
        for a in &m.args {
            self.expr(a);
        }
        true
    }
}
