//! The macros a kernel may call: `print!`, `println!`, `eprint!` and `eprintln!` with a literal
//! format string over scalar arguments (Kokkos' `printf`), and `panic!` with one over at most
//! eight (Kokkos' `abort`). This file parses them; `analyze/output.rs`, `host.rs` and `shadow/output.rs`
//! check, run and translate them.

use syn::punctuated::Punctuated;
use syn::{Expr, Lit, LitStr, Token};

/// Which output macro.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum MacroKind {
    /// `print!` (`stderr: false, newline: false`), `println!`, `eprint!`, `eprintln!`.
    Print { stderr: bool, newline: bool },
    /// `panic!`.
    Panic,
    /// A call `abort("message")` (Kokkos' `Kokkos::abort`; `ferrokkos::abort` on the host): a
    /// panic with that text on the device, and on the host the call of the function the path
    /// names, which must be a `fn(&'static str) -> !`.
    Abort,
}

impl MacroKind {
    /// The macro's name.
    pub fn name(self) -> &'static str {
        match self {
            MacroKind::Print { stderr, newline } => match (stderr, newline) {
                (false, false) => "print",
                (false, true) => "println",
                (true, false) => "eprint",
                (true, true) => "eprintln",
            },
            MacroKind::Panic => "panic",
            MacroKind::Abort => "abort",
        }
    }
}

/// A placeholder's format spec (`{:>8.3e}`): what a kernel's output supports of Rust's.
#[derive(Clone, Copy, Default)]
pub struct Spec {
    /// `<` (left) or `>` (right) alignment, if given.
    pub align: Option<char>,
    /// `+`: a sign for positive numbers.
    pub plus: bool,
    /// `0`: padding with zeros after the sign.
    pub zero: bool,
    pub width: Option<u32>,
    pub precision: Option<u32>,
    /// `' '` (Display), `'?'` (Debug), `'e'`, `'E'`, `'x'`, `'X'` or `'o'`.
    pub conversion: char,
}

/// A piece of a format string: text, or a placeholder of the argument at an index of
/// [`KernelMacro::args`].
pub enum Piece {
    Text(String),
    Arg(usize, Spec),
}

/// A parsed output macro: its literal, pieces and arguments (positional ones, then one path per
/// inline name `{x}`, spanned at the literal).
pub struct KernelMacro {
    pub kind: MacroKind,
    pub format: Option<LitStr>,
    pub pieces: Vec<Piece>,
    pub args: Vec<Expr>,
    /// The function an `abort("..")` calls on the host (its path).
    pub callee: Option<Expr>,
}

impl KernelMacro {
    /// The whole text of a format without placeholders (a `panic!` message).
    pub fn text(&self) -> String {
        self.pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.as_str(),
                Piece::Arg(..) => "",
            })
            .collect()
    }
}

/// Which output macro `mac` calls, if it is one: `println!`, `std::println!`, `::std::panic!`, ...
pub fn kind_of(mac: &syn::Macro) -> Option<MacroKind> {
    let segs: Vec<String> = mac
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let name = match segs.as_slice() {
        [name] if mac.path.leading_colon.is_none() => name,
        [root, name] if root == "std" || root == "core" => name,
        _ => return None,
    };
    Some(match name.as_str() {
        "print" => MacroKind::Print {
            stderr: false,
            newline: false,
        },
        "println" => MacroKind::Print {
            stderr: false,
            newline: true,
        },
        "eprint" => MacroKind::Print {
            stderr: true,
            newline: false,
        },
        "eprintln" => MacroKind::Print {
            stderr: true,
            newline: true,
        },
        "panic" => MacroKind::Panic,
        _ => return None,
    })
}

/// Parses an output macro (`kind_of` said it is one).
pub fn parse(mac: &syn::Macro, kind: MacroKind) -> syn::Result<KernelMacro> {
    let name = kind.name();
    let mut items = mac
        .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)?
        .into_iter();
    let format = match items.next() {
        None => None,
        Some(Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        })) => Some(s),
        Some(other) => {
            return Err(syn::Error::new_spanned(
                other,
                format!(
                    "`{name}!` in a kernel takes a string literal first (the device's format is \
                     fixed when the kernel is compiled)"
                ),
            ));
        }
    };
    let mut args = Vec::new();
    for a in items {
        if let Expr::Assign(_) = a {
            return Err(syn::Error::new_spanned(
                a,
                format!(
                    "`{name}!` in a kernel takes positional arguments (`{{}}`, `{{0}}`) and inline \
                     names of locals (`{{x}}`), not named arguments"
                ),
            ));
        }
        args.push(a);
    }
    let pieces = match &format {
        Some(f) => pieces(f, &mut args)?,
        None => Vec::new(),
    };
    checked(KernelMacro {
        kind,
        format,
        pieces,
        args,
        callee: None,
    })
}

/// `m` if each placeholder names an argument and each argument is used (Rust's rules).
fn checked(m: KernelMacro) -> syn::Result<KernelMacro> {
    let span = m
        .format
        .as_ref()
        .map_or_else(proc_macro2::Span::call_site, LitStr::span);
    let mut used = vec![false; m.args.len()];
    for p in &m.pieces {
        if let Piece::Arg(k, _) = p {
            match used.get_mut(*k) {
                Some(u) => *u = true,
                None => {
                    return Err(syn::Error::new(
                        span,
                        format!(
                            "the format names argument {k}, but `{}!` has {} argument(s)",
                            m.kind.name(),
                            m.args.len()
                        ),
                    ));
                }
            }
        }
    }
    if let Some(k) = used.iter().position(|u| !u) {
        return Err(syn::Error::new_spanned(
            &m.args[k],
            "this argument is never used by the format string",
        ));
    }
    Ok(m)
}

/// The most arguments a kernel's `panic!` takes (the device's fault record keeps eight values).
pub const PANIC_ARGUMENTS: usize = 8;

/// The name of the call that stands for an output macro between [`normalize`] and the
/// translations (`__fk_kernel_output(KIND, "format", args..)`): a plain call, so that every
/// rewriting of the body (field captures, accumulators, `self`) reaches its arguments.
const MARKER: &str = "__fk_kernel_output";

/// Replaces each output macro of `body` that parses (see [`parse`]) with its marker call: its
/// kind, its format with numbered placeholders (inline names become arguments) and its arguments.
/// Other macros stay, for the analysis to report.
pub fn normalize(body: &mut Expr) {
    struct Normalize;
    impl syn::visit_mut::VisitMut for Normalize {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            syn::visit_mut::visit_expr_mut(self, e);
            if let Expr::Macro(m) = e
                && let Some(call) = marker_call(&m.mac)
            {
                *e = call;
            }
            if let Expr::Call(c) = e
                && let Some(call) = abort_marker(c)
            {
                *e = call;
            }
        }
        fn visit_stmt_mut(&mut self, s: &mut syn::Stmt) {
            syn::visit_mut::visit_stmt_mut(self, s);
            if let syn::Stmt::Macro(m) = s
                && let Some(call) = marker_call(&m.mac)
            {
                *s = syn::Stmt::Expr(call, Some(m.semi_token.unwrap_or_default()));
            }
        }
    }
    syn::visit_mut::VisitMut::visit_expr_mut(&mut Normalize, body);
}

/// The marker call of the output macro `mac`, if it is one that parses.
fn marker_call(mac: &syn::Macro) -> Option<Expr> {
    let kind = kind_of(mac)?;
    let m = parse(mac, kind).ok()?;
    if kind == MacroKind::Panic && m.args.len() > PANIC_ARGUMENTS {
        return None;
    }
    let span = mac
        .path
        .segments
        .last()
        .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
    let code = KINDS.iter().position(|k| *k == kind).unwrap_or(0);
    let code = syn::LitInt::new(&code.to_string(), span);
    let text = match (&m.format, kind) {
        (None, MacroKind::Panic) => "explicit panic".to_string(),
        _ => canonical(&m.pieces),
    };
    let format = LitStr::new(&text, m.format.as_ref().map_or(span, LitStr::span));
    let func = syn::Ident::new(MARKER, span);
    let args = &m.args;
    Some(syn::parse_quote!(#func(#code, #format, #(#args),*)))
}

/// The marker call of `abort("message")` (any path ending in `abort`, one string literal): the
/// message as a format without placeholders, and the path, which the host form calls.
fn abort_marker(c: &syn::ExprCall) -> Option<Expr> {
    let Expr::Path(p) = &*c.func else { return None };
    if p.qself.is_some() || p.path.segments.last()?.ident != "abort" || c.args.len() != 1 {
        return None;
    }
    let Some(Expr::Lit(syn::ExprLit {
        lit: Lit::Str(message),
        ..
    })) = c.args.first()
    else {
        return None;
    };
    let span = p.path.segments.last()?.ident.span();
    let code = KINDS.iter().position(|k| *k == MacroKind::Abort)?;
    let code = syn::LitInt::new(&code.to_string(), span);
    let text = message.value().replace('{', "{{").replace('}', "}}");
    let format = LitStr::new(&text, message.span());
    let func = syn::Ident::new(MARKER, span);
    Some(syn::parse_quote!(#func(#code, #format, #p)))
}

/// The macros by their code in a marker call.
const KINDS: [MacroKind; 6] = [
    MacroKind::Print {
        stderr: false,
        newline: false,
    },
    MacroKind::Print {
        stderr: false,
        newline: true,
    },
    MacroKind::Print {
        stderr: true,
        newline: false,
    },
    MacroKind::Print {
        stderr: true,
        newline: true,
    },
    MacroKind::Panic,
    MacroKind::Abort,
];

/// A format string of `pieces` with numbered placeholders (`{0:>8.3}`).
fn canonical(pieces: &[Piece]) -> String {
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(&t.replace('{', "{{").replace('}', "}}")),
            Piece::Arg(k, s) => {
                out.push_str(&format!("{{{k}:"));
                out.extend(s.align);
                if s.plus {
                    out.push('+');
                }
                if s.zero {
                    out.push('0');
                }
                if let Some(w) = s.width {
                    out.push_str(&w.to_string());
                }
                if let Some(p) = s.precision {
                    out.push_str(&format!(".{p}"));
                }
                if s.conversion != ' ' {
                    out.push(s.conversion);
                }
                out.push('}');
            }
        }
    }
    out
}

/// The output macro a marker call stands for (see [`normalize`]).
pub fn from_call(c: &syn::ExprCall) -> Option<KernelMacro> {
    let Expr::Path(p) = &*c.func else { return None };
    if !p.path.is_ident(MARKER) {
        return None;
    }
    let mut items = c.args.iter();
    let kind = match items.next() {
        Some(Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        })) => *KINDS.get(i.base10_parse::<usize>().ok()?)?,
        _ => return None,
    };
    let format = match items.next() {
        Some(Expr::Lit(syn::ExprLit {
            lit: Lit::Str(s), ..
        })) => s.clone(),
        _ => return None,
    };
    let mut args: Vec<Expr> = items.cloned().collect();
    let callee = match kind {
        MacroKind::Abort => Some(args.pop()?),
        _ => None,
    };
    let pieces = pieces(&format, &mut args).ok()?;
    Some(KernelMacro {
        kind,
        format: Some(format),
        pieces,
        args,
        callee,
    })
}

/// The host form of an output macro: Rust's own macro (`::std::println!`) with the marker's
/// format and the (rewritten) arguments `args`.
pub fn std_macro(m: &KernelMacro, args: &[Expr]) -> Expr {
    if let Some(callee) = &m.callee {
        let message = LitStr::new(
            &m.text(),
            m.format
                .as_ref()
                .map_or_else(proc_macro2::Span::call_site, LitStr::span),
        );
        let span = syn::spanned::Spanned::span(callee);
        return syn::parse_quote_spanned!(span=> (#callee as fn(&'static str) -> !)(#message));
    }
    let name = syn::Ident::new(m.kind.name(), proc_macro2::Span::call_site());
    let format = &m.format;
    syn::parse_quote!(::std::#name!(#format #(, #args)*))
}

/// The pieces of the format literal `f`; each inline name appends a path to `args`.
fn pieces(f: &LitStr, args: &mut Vec<Expr>) -> syn::Result<Vec<Piece>> {
    let text = f.value();
    let err = |msg: String| syn::Error::new(f.span(), msg);
    let mut out = Vec::new();
    let mut lit = String::new();
    let mut next = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                lit.push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                lit.push('}');
            }
            '}' => return Err(err("unmatched `}` in the format string (write `}}`)".into())),
            '{' => {
                let mut inner = String::new();
                loop {
                    match chars.next() {
                        Some('}') => break,
                        Some(c) => inner.push(c),
                        None => return Err(err("unclosed `{` in the format string".into())),
                    }
                }
                if !lit.is_empty() {
                    out.push(Piece::Text(std::mem::take(&mut lit)));
                }
                let (arg, spec) = inner.split_once(':').unwrap_or((inner.as_str(), ""));
                let index = argument(arg, &mut next, args, f).map_err(&err)?;
                let spec = parse_spec(spec).map_err(|m| err(format!("`{{{inner}}}`: {m}")))?;
                out.push(Piece::Arg(index, spec));
            }
            c => lit.push(c),
        }
    }
    if !lit.is_empty() {
        out.push(Piece::Text(lit));
    }
    Ok(out)
}

/// The argument index of a placeholder's argument part: empty (the next one), a number, or an
/// inline name (appended to `args`).
fn argument(
    arg: &str,
    next: &mut usize,
    args: &mut Vec<Expr>,
    f: &LitStr,
) -> Result<usize, String> {
    let arg = arg.trim();
    if arg.is_empty() {
        *next += 1;
        return Ok(*next - 1);
    }
    if let Ok(k) = arg.parse::<usize>() {
        return Ok(k);
    }
    let is_name = arg.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && arg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_name {
        return Err(format!(
            "`{{{arg}}}` is not an argument of a kernel's format"
        ));
    }
    let ident = syn::Ident::new(arg, f.span());
    args.push(syn::parse_quote!(#ident));
    Ok(args.len() - 1)
}

/// A placeholder's spec: `[<|>][+][0][width][.precision][?|e|E|x|X|o]`.
fn parse_spec(spec: &str) -> Result<Spec, String> {
    let supported = "a kernel's format supports `{}`, `{:?}`, `{:e}`, `{:E}`, `{:x}`, `{:X}` and \
                     `{:o}`, with `<` or `>` alignment, `+`, `0`, a width and a precision given as \
                     numbers (`{:>8.3}`)";
    let mut s = Spec {
        conversion: ' ',
        ..Spec::default()
    };
    let mut rest = spec;
    if let Some(r) = rest.strip_prefix('<') {
        s.align = Some('<');
        rest = r;
    } else if let Some(r) = rest.strip_prefix('>') {
        s.align = Some('>');
        rest = r;
    }
    if let Some(r) = rest.strip_prefix('+') {
        s.plus = true;
        rest = r;
    }
    if let Some(r) = rest.strip_prefix('0') {
        s.zero = true;
        rest = r;
    }
    let digits = |r: &str| r.chars().take_while(char::is_ascii_digit).count();
    let n = digits(rest);
    if n > 0 {
        s.width = Some(
            rest[..n]
                .parse()
                .map_err(|_| "the width is too large".to_string())?,
        );
        rest = &rest[n..];
    }
    if let Some(r) = rest.strip_prefix('.') {
        let n = digits(r);
        if n == 0 {
            return Err(supported.into());
        }
        s.precision = Some(
            r[..n]
                .parse()
                .map_err(|_| "the precision is too large".to_string())?,
        );
        rest = &r[n..];
    }
    s.conversion = match rest {
        "" => ' ',
        "?" | "e" | "E" | "x" | "X" | "o" => rest.chars().next().unwrap_or(' '),
        _ => return Err(supported.into()),
    };
    check_spec(&s)?;
    Ok(s)
}

/// The combinations of a spec that C's `printf` cannot give as Rust does.
fn check_spec(s: &Spec) -> Result<(), String> {
    let flags = s.align.is_some() || s.plus || s.zero || s.width.is_some();
    if s.conversion == '?' && flags {
        return Err("`{:?}` in a kernel takes no width, alignment or sign flags".into());
    }
    if matches!(s.conversion, 'x' | 'X' | 'o') && (s.plus || s.precision.is_some()) {
        return Err("`{:x}`, `{:X}` and `{:o}` in a kernel take no `+` or precision".into());
    }
    if s.zero && s.align.is_some() {
        return Err("a kernel's format takes `0` padding or an alignment, not both".into());
    }
    Ok(())
}
