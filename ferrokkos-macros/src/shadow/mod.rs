//! The typed shadow: a kernel body rewritten so that every operation is a builder call of
//! `ferrokkos::kernel::shadow` (DESIGN.md decision 3). Runs only on bodies the analysis accepted.
//!
//! [`expr`] dispatches on each expression's kind to its shadow, in this module's files:
//! `operators.rs`, `calls.rs`, `control.rs` (branches, loops, `match`), `statements.rs`,
//! `output.rs` (`println!`, `panic!`), and
//! `team.rs` (team kernels' constructs).

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{BinOp, Block, Expr, Pat};

use crate::analyze::{ident_of, strip};
use crate::device_reads::calls;

mod calls;
mod control;
mod operators;
mod output;
mod statements;
mod team;
pub use output::with_iteration_end;
pub use team::with_team;

/// The parts of a `for` loop's range: `start..end`, `start..=end`, `.rev()`, `.step_by(step)`.
pub struct RangeParts<'a> {
    pub start: &'a Expr,
    pub end: &'a Expr,
    pub inclusive: bool,
    pub rev: bool,
    pub step: Option<&'a Expr>,
}

/// Splits a `for` loop's iterator into its parts, or says what is supported.
pub fn range_parts(e: &Expr) -> syn::Result<RangeParts<'_>> {
    let mut inner = strip(e);
    let mut step = None;
    let mut rev = false;
    if let Expr::MethodCall(m) = inner
        && m.method == "step_by"
        && m.args.len() == 1
    {
        step = Some(&m.args[0]);
        inner = strip(&m.receiver);
    }
    if let Expr::MethodCall(m) = inner
        && m.method == "rev"
        && m.args.is_empty()
    {
        rev = true;
        inner = strip(&m.receiver);
    }
    match inner {
        Expr::Range(r) => match (&r.start, &r.end) {
            (Some(start), Some(end)) => Ok(RangeParts {
                start,
                end,
                inclusive: matches!(r.limits, syn::RangeLimits::Closed(_)),
                rev,
                step,
            }),
            _ => Err(syn::Error::new(
                r.span(),
                "a kernel's `for` loop needs a range with both ends (`a..b` or `a..=b`)",
            )),
        },
        other => Err(syn::Error::new(
            other.span(),
            "a kernel's `for` loop runs over a range: `a..b`, `a..=b`, optionally followed by \
             `.rev()` and then `.step_by(k)`",
        )),
    }
}

thread_local! {
    /// The constants (`N`, `SCALE`) of the body being translated, set by [`with_constants`].
    static CONSTANTS: std::cell::RefCell<HashSet<String>> = std::cell::RefCell::new(HashSet::new());
}

/// Runs `f` (a translation) with `constants` as the names to write as literals.
pub fn with_constants<R>(constants: &HashSet<String>, f: impl FnOnce() -> R) -> R {
    CONSTANTS.with(|c| *c.borrow_mut() = constants.clone());
    let r = f();
    CONSTANTS.with(|c| c.borrow_mut().clear());
    r
}

thread_local! {
    /// While the shadow of a range or multidimensional kernel is written: what its device-proven
    /// accesses need, and those found (see [`DeviceProven`]).
    static PROVEN: std::cell::RefCell<Option<DeviceProven>> = const { std::cell::RefCell::new(None) };
}

/// The accesses of a range or multidimensional kernel's body that its device code reads or writes
/// unchecked where a launch proves them in bounds: each captured View access at an affine index
/// map (decided as for the host's proven form, `host::proven_access`) is written
/// `x.at_proven(index)`, and recorded here in the order written; the expansion hands the records
/// to `Kernel::with_device_bounds`, and a launch that proves every one of them over its whole
/// iteration box runs the entry whose proven accesses skip their checks (a capture that is not a
/// View keeps its check there).
pub struct DeviceProven {
    /// The iteration index's names.
    pub params: Vec<String>,
    /// The launch constants of index maps.
    pub constants: HashSet<String>,
    /// The captured Views (not arrays, not scratch Views).
    pub views: HashSet<String>,
    /// Those the kernel only reads (the Views it may pass to a `#[device]` function).
    pub read_views: HashSet<String>,
    /// The accesses written `at_proven`: the View, the index map, and the identifiers the map took
    /// for the iteration index (the expansion checks that each resolves to it).
    pub found: Vec<(String, Vec<crate::affine::Coord>, Vec<syn::Ident>)>,
    /// The calls of `#[device]` functions whose View arguments are passed as
    /// `proven_view(u, proves)`: where `proves` holds (the function lists its reads, each composes
    /// with the call's arguments), the expansion adds the composed maps to the device bounds, and
    /// the function reads those Views as the entry's `fk_proven` says.
    pub calls: Vec<crate::host::ProvenCall>,
}

/// Runs `f` (a kernel's shadow) writing the accesses `proven` describes as device-proven ones;
/// returns `f`'s result and `proven` with the accesses found.
pub fn with_device_proven<R>(proven: DeviceProven, f: impl FnOnce() -> R) -> (R, DeviceProven) {
    PROVEN.with(|p| *p.borrow_mut() = Some(proven));
    let r = f();
    let proven = PROVEN.with(|p| p.borrow_mut().take());
    (r, proven.expect("the device-proven accesses are still set"))
}

/// The call of the `#[device]` function `marker` with `args` as a device-proven call (then
/// recorded): its record, when it passes a captured View the kernel reads (see
/// `host::proven_call_record`).
fn proven_call(marker: &syn::Path, args: &[&Expr]) -> Option<crate::host::ProvenCall> {
    PROVEN.with(|p| {
        let mut p = p.borrow_mut();
        let p = p.as_mut()?;
        let read = |v: &str| p.read_views.contains(v);
        let mut record =
            crate::host::proven_call_record(marker, args, &p.params, &p.constants, &read)?;
        // An argument that calls anything has no map here (a subview range's marker gives a
        // coordinate that only a View's own check keeps from memory when its range check fails).
        for (c, a) in record.args.iter_mut().zip(args) {
            if calls(a) {
                *c = crate::affine::Coord::Any;
            }
        }
        p.calls.push(crate::host::ProvenCall {
            marker: record.marker.clone(),
            views: record.views.clone(),
            args: record.args.clone(),
            idents: record.idents.clone(),
        });
        Some(record)
    })
}

/// Whether `base[index]` is a device-proven access (then recorded). An index that calls anything
/// is not: a subview range's marker (`__fk_subview_range`) is proved as `i + lo` but checks `i`
/// against the range itself, and on the device its failure gives a coordinate that only the View's
/// own check keeps from memory.
fn device_proven(base: &Expr, index: &Expr) -> bool {
    if calls(index) {
        return false;
    }
    PROVEN.with(|p| {
        let mut p = p.borrow_mut();
        let Some(p) = p.as_mut() else {
            return false;
        };
        match crate::host::proven_access(base, index, &p.params, &p.constants, &p.views) {
            Some(access) => {
                p.found.push(access);
                true
            }
            None => false,
        }
    })
}

thread_local! {
    /// The locals of the body being translated whose type may be open where they are declared
    /// (`let w = x.try_into().unwrap();`, typed by a later use), set by [`body`].
    static OPEN: std::cell::RefCell<HashSet<String>> = std::cell::RefCell::new(HashSet::new());
}

/// The shadow of a kernel's or a `#[device]` function's body (see [`block`]). `open_params` are the
/// body's parameters whose type is open (a kernel's unannotated accumulators: typed by the body).
pub fn body(b: &Block, open_params: &[String]) -> TokenStream {
    struct Open(HashSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for Open {
        fn visit_local(&mut self, l: &'ast syn::Local) {
            if let (Pat::Ident(p), Some(init)) = (&l.pat, &l.init)
                && !known_type(&init.expr)
            {
                self.0.insert(p.ident.to_string());
            }
            if let (Pat::Tuple(p), Some(init)) = (&l.pat, &l.init)
                && let Expr::Tuple(t) = strip(&init.expr)
            {
                for (p, e) in p.elems.iter().zip(&t.elems) {
                    if let Pat::Ident(p) = p
                        && !known_type(e)
                    {
                        self.0.insert(p.ident.to_string());
                    }
                }
            }
            syn::visit::visit_local(self, l);
        }
    }
    // Over-approximated by name (a name open anywhere is open everywhere), which only leaves
    // more operands unchecked.
    let mut open = Open(open_params.iter().cloned().collect());
    for _ in 0..2 {
        // A second pass: `let v = w;` is open when `w` is.
        syn::visit::Visit::visit_block(&mut open, b);
        OPEN.with(|o| o.borrow_mut().clone_from(&open.0));
    }
    let r = block(b);
    OPEN.with(|o| o.borrow_mut().clear());
    r
}

/// A name or path the kernel uses as a constant, as the shadow writes its value: `const { N }`.
/// rustc accepts it only if `N` is a constant (a `const` item, a const generic, an associated
/// constant) and refuses a local variable or parameter ("attempt to use a non-constant value in a
/// constant"), so what the macro takes for a constant by its UPPER_CASE name is one, with one value
/// per instantiation of the kernel: the race rules' launch constants and the generated code (keyed
/// by the kernel's types) depend on no run-time value.
pub fn as_constant(path: &TokenStream) -> TokenStream {
    let span = path
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span());
    quote_spanned!(span=> const { #path })
}

fn is_constant(name: &str) -> bool {
    CONSTANTS.with(|c| c.borrow().contains(name))
}

fn s() -> TokenStream {
    quote!(::ferrokkos::__private::shadow)
}

/// The shadow of a block: each statement preceded by its source line.
pub fn block(b: &Block) -> TokenStream {
    let last = b.stmts.len().saturating_sub(1);
    let stmts = b
        .stmts
        .iter()
        .enumerate()
        .map(|(k, st)| statements::stmt(st, k == last));
    // A block that acquires a token's ids is a C++ scope of its own, which ends their holds.
    if b.stmts.iter().any(crate::unique_token::acquires) {
        let s = s();
        return quote!(#s::token_scope(|| { #(#stmts)* }));
    }
    quote!({ #(#stmts)* })
}

fn source_marker(span: Span) -> TokenStream {
    let s = s();
    quote_spanned!(span=> #s::source(line!(), file!());)
}

/// A field's name as text (`x`, or `0` for a tuple struct's first field).
fn member_text(m: &syn::Member) -> String {
    match m {
        syn::Member::Named(n) => n.to_string().trim_start_matches("r#").to_string(),
        syn::Member::Unnamed(i) => i.index.to_string(),
    }
}

/// The shadow of a View index: a tuple of shadows, or one.
fn index(e: &Expr) -> TokenStream {
    match strip(e) {
        Expr::Tuple(t) => {
            let elems = t.elems.iter().map(expr);
            quote!((#(#elems,)*))
        }
        e => expr(e),
    }
}

/// Whether a call of a `#[device]` function or method with `args` goes to its checked shadow: every
/// argument's type is known (or it is a reference, which the checked shadow passes through).
fn checked_args(args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>) -> bool {
    args.iter()
        .all(|a| matches!(strip(a), Expr::Reference(_)) || known_type(a))
}

/// Whether rustc knows the type of `e`'s shadow from `e` alone: literals, names, fields, elements,
/// casts, comparisons, `Complex::new` and `Complex::from_polar`, and operators and built-in
/// methods (but `unwrap`) applied to such.
fn known_type(e: &Expr) -> bool {
    match e {
        Expr::Path(_) => !ident_of(e).is_some_and(|n| OPEN.with(|o| o.borrow().contains(&n))),
        Expr::Lit(_) | Expr::Field(_) | Expr::Index(_) | Expr::Cast(_) => true,
        Expr::Paren(p) => known_type(&p.expr),
        Expr::Group(g) => known_type(&g.expr),
        Expr::Array(a) => a.elems.iter().all(known_type),
        Expr::Repeat(r) => known_type(&r.expr),
        Expr::Unary(u) => known_type(&u.expr),
        Expr::Binary(b) => match b.op {
            BinOp::Eq(_)
            | BinOp::Ne(_)
            | BinOp::Lt(_)
            | BinOp::Le(_)
            | BinOp::Gt(_)
            | BinOp::Ge(_)
            | BinOp::And(_)
            | BinOp::Or(_) => true,
            _ => known_type(&b.left),
        },
        // `Complex::new(re, im)`, `Complex::from_polar(r, theta)`; a subview's range (`usize`).
        Expr::Call(c) if crate::subview_range::marker(c).is_some() => true,
        Expr::Call(c) => {
            matches!(&*c.func, Expr::Path(p) if p.path.segments.len() == 2
                && p.path.segments[0].ident == "Complex"
                && ["new", "from_polar"].iter().any(|f| p.path.segments[1].ident == f))
                && c.args.iter().all(known_type)
        }
        Expr::MethodCall(m) => {
            let name = m.method.to_string();
            name != "unwrap"
                && (crate::subset::METHODS.contains(&name.as_str())
                    || crate::subset::atomic_arity(&name).is_some())
                && known_type(&m.receiver)
        }
        _ => false,
    }
}

/// The shadow of a call: a `println!` / `panic!`, a marker (a subview's range, a UniqueToken's use:
/// the shadow's function of its name), or a function call.
fn call_expr(c: &syn::ExprCall, span: Span) -> TokenStream {
    let s = s();
    let marker = crate::unique_token::marker(c)
        .map(|m| m.function())
        .or_else(|| crate::subview_range::marker(c).map(|m| m.function()));
    match (crate::format::from_call(c), marker) {
        (Some(m), _) => output::call(&m, span),
        (None, Some(f)) => {
            let f = syn::Ident::new(f, span);
            let args = c.args.iter().map(expr);
            quote_spanned!(span=> #s::#f(#(#args),*))
        }
        (None, None) => calls::call(c, span),
    }
}

/// The shadow of an expression: dispatches to the shadow of its kind (in this module's files),
/// after the team constructs (`team.rs`).
pub fn expr(e: &Expr) -> TokenStream {
    if let Some(t) = team::construct(e) {
        return t;
    }
    let s = s();
    let span = e.span();
    match e {
        Expr::Lit(l) => quote_spanned!(span=> #s::lit(#l)),
        Expr::Path(p) => match ident_of(e) {
            Some(name) if !is_constant(&name) => quote!(#p),
            None if control::is_variant(&p.path) => quote_spanned!(span=> #s::variant(#p)),
            _ => {
                let c = as_constant(&quote!(#p));
                quote_spanned!(span=> #s::lit(#c))
            }
        },
        Expr::Binary(b) => operators::binary(b, span),
        Expr::Assign(a) => operators::assign(a, span),
        Expr::Unary(u) => operators::unary(u, span),
        Expr::Cast(c) => {
            let inner = expr(&c.expr);
            let ty = &c.ty;
            quote_spanned!(span=> #s::cast::<#ty, _>(#inner))
        }
        Expr::Paren(p) => expr(&p.expr),
        Expr::Group(g) => expr(&g.expr),
        Expr::Index(ix) => {
            let proven = device_proven(&ix.expr, &ix.index);
            let base = expr(&ix.expr);
            let idx = index(&ix.index);
            if proven {
                quote_spanned!(span=> #base.at_proven(#idx))
            } else {
                quote_spanned!(span=> #base.at(#idx))
            }
        }
        Expr::MethodCall(m) => calls::method_call(m, span),
        Expr::Call(c) => call_expr(c, span),
        Expr::If(i) => control::if_(i, span),
        Expr::Block(b) => block(&b.block),
        Expr::Match(m) => control::match_(m),
        Expr::Unsafe(u) => block(&u.block),
        Expr::ForLoop(f) => control::for_range(f, span),
        Expr::While(w) => {
            let c = expr(&w.cond);
            let body = block(&w.body);
            control::labeled(&w.label, quote_spanned!(span=> #s::while_(|| #c, || #body)))
        }
        Expr::Loop(l) => {
            let body = block(&l.body);
            control::labeled(&l.label, quote_spanned!(span=> #s::loop_(|| #body)))
        }
        Expr::Break(_) | Expr::Continue(_) | Expr::Return(_) => control::jump(e, span),
        // A device function's argument: `&u` is the View itself, `&mut place` the place, which
        // the C++ function takes by reference.
        Expr::Reference(r) => {
            let inner = expr(&r.expr);
            if r.mutability.is_some() {
                quote_spanned!(span=> #s::mut_ref(#inner))
            } else {
                inner
            }
        }
        Expr::Field(f) => {
            let base = expr(&f.base);
            let member = &f.member;
            let name = member_text(member);
            // The selector (never called) makes rustc check the field and give its type, with an
            // error at the user's field name.
            let v = syn::Ident::new("__fk_v", Span::mixed_site());
            quote_spanned!(span=> #s::field(#base, #name, |#v| &#v.#member))
        }
        Expr::Array(_) | Expr::Repeat(_) => array(e, span),
        Expr::Struct(st) => calls::construct(
            &st.path,
            st.fields.iter().map(|f| f.member.clone()).collect(),
            st.fields.iter().map(|f| &f.expr).collect(),
            span,
        ),
        // Rejected by the analysis.
        _ => quote!(),
    }
}

/// An array literal: `[a, b, c]` or `[v; N]` (a C++ temporary).
fn array(e: &Expr, span: Span) -> TokenStream {
    let s = s();
    match e {
        Expr::Array(a) => {
            let elems = a.elems.iter().map(expr);
            quote_spanned!(span=> #s::array_of([#(#elems),*]))
        }
        Expr::Repeat(r) => {
            let v = expr(&r.expr);
            let len = &r.len;
            quote_spanned!(span=> #s::array_repeat::<_, { #len }>(#v))
        }
        _ => quote!(),
    }
}
