//! The typed shadow: a kernel body rewritten so that every operation is a builder call of
//! `ferrokkos::kernel::shadow` (DESIGN.md decision 3). Runs only on bodies the analysis accepted.

use std::collections::HashSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{BinOp, Block, Expr, Lit, Pat, Stmt, UnOp};

use crate::analyze::{ident_of, strip};

mod team;
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
        .map(|(k, st)| stmt(st, k == last));
    quote!({ #(#stmts)* })
}

fn source_marker(span: Span) -> TokenStream {
    let s = s();
    quote_spanned!(span=> #s::source(line!(), file!());)
}

/// One statement; `last`: the block's last, whose value (if it has no `;`) is the block's.
fn stmt(st: &Stmt, last: bool) -> TokenStream {
    let s = s();
    match st {
        Stmt::Local(l) if team::scratch_decl(l).is_some() => {
            let marker = source_marker(l.span());
            let (name, level, per_thread, generics, extents) =
                team::scratch_decl(l).expect("checked");
            let text = name.to_string();
            let team = team::name().unwrap_or_default();
            let team = Ident::new(&team, Span::call_site());
            let extents = extents.iter().map(expr);
            quote!(#marker let #name = #s::team::scratch_view::<#generics>(#team, #level, #per_thread,
                #text, [#(#extents),*]);)
        }
        Stmt::Local(l) => {
            let marker = source_marker(l.span());
            // `let w = [a, b];`, `let mut w = [0.0; N];` (optionally typed `[T; N]`): a local array.
            if let (Some(name), Some(init)) = (crate::analyze::array_local_name(&l.pat), &l.init)
                && matches!(strip(&init.expr), Expr::Array(_) | Expr::Repeat(_))
            {
                let mutable = matches!(&l.pat, Pat::Ident(i) if i.mutability.is_some())
                    || matches!(&l.pat, Pat::Type(t) if matches!(&*t.pat, Pat::Ident(i) if i.mutability.is_some()));
                let text = name.to_string();
                let ty = match &l.pat {
                    Pat::Type(t) => match &*t.ty {
                        syn::Type::Array(a) => {
                            let (elem, len) = (&a.elem, &a.len);
                            quote!(: #s::ArrayExpr<#elem, { #len }>)
                        }
                        _ => quote!(),
                    },
                    _ => quote!(),
                };
                let value = match strip(&init.expr) {
                    Expr::Array(a) => {
                        let elems = a.elems.iter().map(expr);
                        quote!(#s::array_local(#text, #mutable, [#(#elems),*]))
                    }
                    Expr::Repeat(r) => {
                        let v = expr(&r.expr);
                        let len = &r.len;
                        quote!(#s::array_repeat::<_, { #len }>(#text, #v))
                    }
                    _ => unreachable!("matched above"),
                };
                return quote!(#marker let #name #ty = #value;);
            }
            // `let (a, b) = (x, y);`: the values first (as Rust evaluates the tuple), then the names.
            if let (Pat::Tuple(p), Some(init)) = (&l.pat, &l.init)
                && let Expr::Tuple(t) = strip(&init.expr)
            {
                let names = p.elems.iter().map(|p| match p {
                    Pat::Ident(i) => {
                        let ident = &i.ident;
                        quote!(#ident)
                    }
                    _ => quote!(_),
                });
                let values = p.elems.iter().zip(&t.elems).map(|(p, e)| {
                    let e = expr(e);
                    match p {
                        Pat::Ident(i) => {
                            let (name, mutable) = (i.ident.to_string(), i.mutability.is_some());
                            quote!(#s::let_(#name, #mutable, #e))
                        }
                        _ => quote!(#s::let_("_", false, #e)),
                    }
                });
                return quote!(#marker let (#(#names,)*) = (#(#values,)*););
            }
            let (pat, ty) = match &l.pat {
                Pat::Type(t) => (&*t.pat, Some(&t.ty)),
                p => (p, None),
            };
            let (ident, mutable) = match pat {
                Pat::Ident(i) => (Some(i.ident.clone()), i.mutability.is_some()),
                _ => (None, false),
            };
            match (ident, &l.init) {
                (None, Some(init)) => {
                    let e = expr(&init.expr);
                    quote!(#marker #s::stmt(#e);)
                }
                (None, None) => quote!(),
                (Some(ident), Some(init)) => {
                    let e = expr(&init.expr);
                    let e = match ty {
                        // The annotation gives the value's type: a mismatch is reported at the
                        // value, in the user's terms.
                        Some(t) if known_type(&init.expr) => {
                            quote_spanned!(init.expr.span()=> <_ as #s::SameType<#t>>::same_as(#e))
                        }
                        _ => e,
                    };
                    let name = ident.to_string();
                    let ty = ty.map(|t| quote!(: ::ferrokkos::__private::Expr<#t>));
                    quote!(#marker let #ident #ty = #s::let_(#name, #mutable, #e);)
                }
                (Some(ident), None) => {
                    let name = ident.to_string();
                    match ty {
                        Some(t) => quote!(#marker let #ident = #s::let_uninit::<#t>(#name);),
                        None => syn::Error::new(
                            l.span(),
                            "a kernel's `let` without a value needs a type: `let x: f64;`",
                        )
                        .to_compile_error(),
                    }
                }
            }
        }
        Stmt::Expr(e, Some(_)) => {
            let marker = source_marker(e.span());
            let e = expr(e);
            quote!(#marker #s::stmt(#e);)
        }
        Stmt::Expr(e, None) if last => {
            let marker = source_marker(e.span());
            let e = expr(e);
            quote!(#marker #e)
        }
        // A block-like expression (`if`, `for`, ...) in statement position.
        Stmt::Expr(e, None) => {
            let marker = source_marker(e.span());
            let e = expr(e);
            quote!(#marker #s::stmt(#e);)
        }
        // Rejected by the analysis.
        _ => quote!(),
    }
}

fn binary_fn(op: &BinOp) -> &'static str {
    match op {
        BinOp::Add(_) => "add",
        BinOp::Sub(_) => "sub",
        BinOp::Mul(_) => "mul",
        BinOp::Div(_) => "div",
        BinOp::Rem(_) => "rem",
        BinOp::BitAnd(_) => "bitand",
        BinOp::BitOr(_) => "bitor",
        BinOp::BitXor(_) => "bitxor",
        BinOp::Shl(_) => "shl",
        BinOp::Shr(_) => "shr",
        BinOp::Eq(_) => "eq",
        BinOp::Ne(_) => "ne",
        BinOp::Lt(_) => "lt",
        BinOp::Le(_) => "le",
        BinOp::Gt(_) => "gt",
        BinOp::Ge(_) => "ge",
        BinOp::And(_) => "and",
        BinOp::Or(_) => "or",
        BinOp::AddAssign(_) => "add_assign",
        BinOp::SubAssign(_) => "sub_assign",
        BinOp::MulAssign(_) => "mul_assign",
        BinOp::DivAssign(_) => "div_assign",
        BinOp::RemAssign(_) => "rem_assign",
        BinOp::BitAndAssign(_) => "bitand_assign",
        BinOp::BitOrAssign(_) => "bitor_assign",
        BinOp::BitXorAssign(_) => "bitxor_assign",
        BinOp::ShlAssign(_) => "shl_assign",
        BinOp::ShrAssign(_) => "shr_assign",
        _ => "unsupported_operator",
    }
}

/// A struct value `path { members: values }` (a tuple struct's members are `0`, `1`, ...): the
/// values in the order written, then the literal over them (never run) for rustc's check of the
/// fields and their types.
fn construct(
    path: &syn::Path,
    members: Vec<impl Into<syn::Member>>,
    values: Vec<&Expr>,
    span: Span,
) -> TokenStream {
    let s = s();
    let members: Vec<syn::Member> = members.into_iter().map(Into::into).collect();
    let temps: Vec<syn::Ident> = (0..values.len())
        .map(|k| syn::Ident::new(&format!("__fk_field{k}"), Span::mixed_site()))
        .collect();
    let values = values.into_iter().map(expr);
    let names = members.iter().map(member_text);
    quote_spanned!(span=> {
        #(let #temps = #values;)*
        #s::construct(
            || #path { #(#members: #s::checked(#temps)),* },
            &[#((#names, #s::field_value(#temps))),*],
        )
    })
}

/// `match v { arms }`: the value in a local, then `if` / `else` over the arms' conditions (a
/// pattern, then its guard with the pattern's name bound). The last arm is the final `else`: rustc
/// proved the match exhaustive for the host, so a value that reaches it matches it.
fn match_(m: &syn::ExprMatch) -> TokenStream {
    let s = s();
    let value = syn::Ident::new("__fk_scrutinee", Span::mixed_site());
    let scrutinee = expr(&m.expr);
    let mut chain: Option<TokenStream> = None;
    for arm in m.arms.iter().rev() {
        let binding = match binding_of(&arm.pat) {
            Some(name) => quote!(let #name = #value;),
            None => quote!(),
        };
        let body = expr(&arm.body);
        let then = quote!({ #binding #body });
        chain = Some(match chain {
            None => then,
            Some(rest) => {
                let mut cond = pattern_cond(&arm.pat, &value);
                if let Some((_, guard)) = &arm.guard {
                    let guard = expr(guard);
                    cond = quote!(#s::and(#cond, || { #binding #guard }));
                }
                quote!(#s::if_else(#cond, || #then, || #rest))
            }
        });
    }
    let span = m.span();
    quote_spanned!(span=> {
        let #value = #s::let_("scrutinee", false, #scrutinee);
        #chain
    })
}

/// Whether `path` names an enum variant (`Species::Ion`).
fn is_variant(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    crate::subset::is_variant_path(&segs)
}

/// The name a `match` pattern binds (`n`, `n @ 1..=5`), if any.
fn binding_of(p: &Pat) -> Option<&syn::Ident> {
    match p {
        Pat::Ident(i)
            if !i
                .ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase()) =>
        {
            Some(&i.ident)
        }
        Pat::Paren(p) => binding_of(&p.pat),
        _ => None,
    }
}

/// The condition under which `value` matches the pattern `p`.
fn pattern_cond(p: &Pat, value: &syn::Ident) -> TokenStream {
    let s = s();
    match p {
        Pat::Lit(l) => quote!(#s::eq(#value, #s::lit(#l))),
        Pat::Range(r) => {
            let lo = r.start.as_ref().map(|b| {
                let b = expr(b);
                quote!(#s::ge(#value, #b))
            });
            let hi = r.end.as_ref().map(|b| {
                let b = expr(b);
                match r.limits {
                    syn::RangeLimits::Closed(_) => quote!(#s::le(#value, #b)),
                    syn::RangeLimits::HalfOpen(_) => quote!(#s::lt(#value, #b)),
                }
            });
            match (lo, hi) {
                (Some(a), Some(b)) => quote!(#s::and(#a, || #b)),
                (Some(c), None) | (None, Some(c)) => c,
                (None, None) => quote!(#s::lit(true)),
            }
        }
        Pat::Or(o) => {
            let mut cases = o.cases.iter().map(|c| pattern_cond(c, value));
            let first = cases.next().unwrap_or_else(|| quote!(#s::lit(false)));
            cases.fold(first, |acc, c| quote!(#s::or(#acc, || #c)))
        }
        Pat::Paren(p) => pattern_cond(&p.pat, value),
        Pat::Ident(i) => match &i.subpat {
            Some((_, sub)) => pattern_cond(sub, value),
            None if i
                .ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase()) =>
            {
                let c = &i.ident;
                let c = as_constant(&quote!(#c));
                quote!(#s::eq(#value, #s::lit(#c)))
            }
            None => quote!(#s::lit(true)),
        },
        Pat::Path(p) if is_variant(&p.path) => quote!(#s::eq(#value, #s::variant(#p))),
        Pat::Path(p) => {
            let c = as_constant(&quote!(#p));
            quote!(#s::eq(#value, #s::lit(#c)))
        }
        // `_`, and what the analysis rejected.
        _ => quote!(#s::lit(true)),
    }
}

/// A loop's shadow, marked with its label if it has one (`'outer: for ...`).
fn labeled(label: &Option<syn::Label>, the_loop: TokenStream) -> TokenStream {
    let s = s();
    match label {
        Some(l) => {
            let name = l.name.ident.to_string();
            quote!(#s::labeled(#name, || #the_loop))
        }
        None => the_loop,
    }
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

/// The shadow `r` of `right`, the right operand of a binary operator (or an argument of a built-in
/// method) whose left operand's shadow is bound to `left`, checked to have the left's type where
/// the user wrote it: a mismatch is reported at `right` in the user's terms (see the runtime's
/// `SameType`). Left unchecked when `right`'s type may come from the left operand
/// (`x.try_into().unwrap()`, a generic device function's result): the check, an obligation on
/// `right`'s type, would not carry the type over.
fn same_type(left: &Ident, right: &Expr, r: TokenStream) -> TokenStream {
    if !known_type(right) {
        return r;
    }
    let s = s();
    quote_spanned!(right.span()=> <_ as #s::SameType<_>>::same(&#left, #r))
}

/// The shadow of `right`, the right operand (shadow `r`) of an arithmetic operator whose left
/// operand is `left_expr`, its shadow bound to `left`, checked where the user wrote it to pair with
/// the left's type: the same type, or a complex number and its real part type (the runtime's
/// `Operand`). Where one side's type may come from the other, the two have one type instead
/// (`like`; with [`same_type`]'s check where `right`'s type is known): `acc += x` with `acc` an
/// unannotated accumulator could be an `f64` or a `Complex<f64>` for an `f64` `x`, and Rust takes
/// the type from the operator.
fn operand(left_expr: &Expr, left: &Ident, right: &Expr, r: TokenStream) -> TokenStream {
    let s = s();
    if known_type(right) && known_type(left_expr) {
        return quote_spanned!(right.span()=> <_ as #s::Operand<_>>::operand(&#left, #r));
    }
    let r = same_type(left, right, r);
    quote_spanned!(right.span()=> #s::like(&#left, #r))
}

/// The left operand's shadow in a check of the right's type ([`same_type`]): a name the user's
/// code cannot see (mixed-site hygiene), so that the right operand's own names are never taken.
fn left_name() -> Ident {
    Ident::new("__fk_left", Span::mixed_site())
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
        // `Complex::new(re, im)`, `Complex::from_polar(r, theta)`.
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

/// The built-in methods whose parameters all have the receiver's type (`x.min(y)`,
/// `x.mul_add(a, b)`).
const SELF_TYPED_METHODS: &[&str] = &[
    "min",
    "max",
    "powf",
    "atan2",
    "hypot",
    "mul_add",
    "clamp",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "rem_euclid",
];

/// The shadow of an expression.
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
            None if is_variant(&p.path) => quote_spanned!(span=> #s::variant(#p)),
            _ => {
                let c = as_constant(&quote!(#p));
                quote_spanned!(span=> #s::lit(#c))
            }
        },
        Expr::Binary(b) => {
            let f = format_ident!("{}", binary_fn(&b.op), span = b.op.span());
            let l = expr(&b.left);
            let r = expr(&b.right);
            match b.op {
                BinOp::And(_) | BinOp::Or(_) => quote_spanned!(span=> #s::#f(#l, || #r)),
                // A shift's amount may have any integer type.
                BinOp::Shl(_) | BinOp::Shr(_) | BinOp::ShlAssign(_) | BinOp::ShrAssign(_) => {
                    quote_spanned!(span=> #s::#f(#l, #r))
                }
                BinOp::Add(_)
                | BinOp::Sub(_)
                | BinOp::Mul(_)
                | BinOp::Div(_)
                | BinOp::Rem(_)
                | BinOp::AddAssign(_)
                | BinOp::SubAssign(_)
                | BinOp::MulAssign(_)
                | BinOp::DivAssign(_)
                | BinOp::RemAssign(_) => {
                    let left = left_name();
                    let r = operand(&b.left, &left, &b.right, r);
                    quote_spanned!(span=> { let #left = #l; #s::#f(#left, #r) })
                }
                _ => {
                    let left = left_name();
                    let r = same_type(&left, &b.right, r);
                    quote_spanned!(span=> { let #left = #l; #s::#f(#left, #r) })
                }
            }
        }
        Expr::Assign(a) => {
            let l = expr(&a.left);
            let left = left_name();
            let r = same_type(&left, &a.right, expr(&a.right));
            quote_spanned!(span=> { let #left = #l; #s::assign(#left, #r) })
        }
        Expr::Unary(u) => match u.op {
            UnOp::Neg(_) => match strip(&u.expr) {
                Expr::Lit(l) if matches!(l.lit, Lit::Int(_) | Lit::Float(_)) => {
                    quote_spanned!(span=> #s::lit(-#l))
                }
                inner => {
                    let inner = expr(inner);
                    quote_spanned!(span=> #s::neg(#inner))
                }
            },
            UnOp::Not(_) => {
                let inner = expr(&u.expr);
                quote_spanned!(span=> #s::not(#inner))
            }
            _ => {
                let inner = expr(&u.expr);
                quote_spanned!(span=> #s::deref(#inner))
            }
        },
        Expr::Cast(c) => {
            let inner = expr(&c.expr);
            let ty = &c.ty;
            quote_spanned!(span=> #s::cast::<#ty, _>(#inner))
        }
        Expr::Paren(p) => expr(&p.expr),
        Expr::Group(g) => expr(&g.expr),
        Expr::Index(ix) => {
            let base = expr(&ix.expr);
            let idx = index(&ix.index);
            quote_spanned!(span=> #base.at(#idx))
        }
        Expr::MethodCall(m) => {
            let recv = expr(&m.receiver);
            let method = &m.method;
            let name = method.to_string();
            let builtin = crate::subset::METHODS.contains(&name.as_str())
                || crate::subset::atomic_arity(&name).is_some();
            if !builtin {
                // A `#[device] impl` method: its shadow `__fk_<name>` on the receiver's type
                // (checked; `__fkt_<name>` when an argument's type may be open).
                let shadow_method = if checked_args(&m.args) {
                    format_ident!("__fk_{}", method, span = method.span())
                } else {
                    format_ident!("__fkt_{}", method, span = method.span())
                };
                let args = m.args.iter().map(expr);
                // Through the proof that `#[device]` generated that shadow (`DeviceMethod`).
                let key = crate::device_impl::method_key(&name);
                let r = Ident::new("__fk_recv", Span::mixed_site());
                // The receiver's value under a name with the method's span, so that a missing
                // proof is reported at the method's name.
                let v = Ident::new(
                    "__fk_receiver",
                    method.span().resolved_at(Span::mixed_site()),
                );
                let call = quote_spanned!(method.span()=> #s::device_method::<_, _, #key>);
                return quote_spanned!(span=> {
                    let #v = #recv;
                    #call(#v, |#r| #r.#shadow_method(#(#args),*))
                });
            }
            let args: Vec<TokenStream> = if crate::subset::atomic_arity(&name).is_some() {
                let mut args = m.args.iter();
                let first = args.next().map(index);
                first.into_iter().chain(args.map(expr)).collect()
            } else if SELF_TYPED_METHODS.contains(&name.as_str()) {
                // `x.min(y)`: `y` is checked to have `x`'s type where the user wrote it.
                let left = left_name();
                let args = m.args.iter().map(|a| same_type(&left, a, expr(a)));
                return quote_spanned!(span=> { let #left = #recv; #left.#method(#(#args),*) });
            } else {
                m.args.iter().map(expr).collect()
            };
            quote_spanned!(span=> #recv.#method(#(#args),*))
        }
        Expr::Call(c) => {
            let Expr::Path(p) = &*c.func else {
                return quote!();
            };
            if let Some(f) = crate::analyze::complex_function(&p.path) {
                let f = format_ident!("{f}", span = p.span());
                let args = c.args.iter().map(expr);
                return quote_spanned!(span=> #s::#f(#(#args),*));
            }
            if crate::analyze::is_associated_call(&p.path) {
                let mut path = p.path.clone();
                let prefix = if checked_args(&c.args) {
                    "__fk_"
                } else {
                    "__fkt_"
                };
                let mut ty = p.path.clone();
                ty.segments.pop();
                let ty_segments = ty.segments.pairs().map(|p| p.into_value());
                let ty = quote!(#(#ty_segments)::*);
                let ty = match p.path.leading_colon {
                    Some(_) => quote!(::#ty),
                    None => ty,
                };
                let mut key = quote!(());
                if let Some(last) = path.segments.last_mut() {
                    key = crate::device_impl::method_key(&last.ident.to_string());
                    last.ident = format_ident!("{prefix}{}", last.ident, span = last.ident.span());
                }
                let args = c.args.iter().map(expr);
                // Through the proof that `#[device]` generated that shadow (`DeviceMethod`).
                let check = quote_spanned!(span=> #s::device_assoc::<#ty, #key>);
                return quote_spanned!(span=> { #check(); #path(#(#args),*) });
            }
            if crate::analyze::is_constructor(&p.path) {
                let members = (0..c.args.len()).map(syn::Index::from);
                return construct(&p.path, members.collect(), c.args.iter().collect(), span);
            }
            let marker = crate::device::marker_path(&p.path);
            // Arguments of known types go to the checked shadow (a mismatch is reported at the
            // argument); one whose type may be open takes its parameter's from the unchecked one.
            let f = if checked_args(&c.args) {
                format_ident!("shadow", span = p.span())
            } else {
                format_ident!("shadow_typed", span = p.span())
            };
            let args = c.args.iter().map(expr);
            quote_spanned!(span=> #marker::#f(#(#args),*))
        }
        Expr::If(i) => {
            let c = expr(&i.cond);
            let then = block(&i.then_branch);
            match &i.else_branch {
                None => quote_spanned!(span=> #s::if_(#c, || #then)),
                Some((_, els)) => {
                    let els = match &**els {
                        Expr::Block(b) => block(&b.block),
                        other => {
                            let e = expr(other);
                            quote!({ #e })
                        }
                    };
                    quote_spanned!(span=> #s::if_else(#c, || #then, || #els))
                }
            }
        }
        Expr::Block(b) => block(&b.block),
        Expr::Match(m) => match_(m),
        Expr::Unsafe(u) => block(&u.block),
        Expr::ForLoop(f) => {
            let Ok(parts) = range_parts(&f.expr) else {
                return quote!();
            };
            let (var, name) = match &*f.pat {
                Pat::Ident(i) => (quote!(#i), i.ident.to_string()),
                _ => (quote!(_), "k".to_string()),
            };
            let start = expr(parts.start);
            let end = expr(parts.end);
            let (inclusive, rev) = (parts.inclusive, parts.rev);
            let step = match parts.step {
                Some(st) => {
                    let st = expr(st);
                    quote!(::core::option::Option::Some(#st))
                }
                None => quote!(::core::option::Option::None),
            };
            let body = block(&f.body);
            labeled(
                &f.label,
                quote_spanned!(span=> #s::for_range(#name, #start, #end,
                #s::RangeShape { inclusive: #inclusive, rev: #rev }, #step, |#var| #body)),
            )
        }
        Expr::While(w) => {
            let c = expr(&w.cond);
            let body = block(&w.body);
            labeled(&w.label, quote_spanned!(span=> #s::while_(|| #c, || #body)))
        }
        Expr::Loop(l) => {
            let body = block(&l.body);
            labeled(&l.label, quote_spanned!(span=> #s::loop_(|| #body)))
        }
        Expr::Break(b) => match &b.label {
            Some(l) => {
                let name = l.ident.to_string();
                quote_spanned!(span=> #s::break_to(#name))
            }
            None => quote_spanned!(span=> #s::break_()),
        },
        Expr::Continue(c) => match &c.label {
            Some(l) => {
                let name = l.ident.to_string();
                quote_spanned!(span=> #s::continue_to(#name))
            }
            None => quote_spanned!(span=> #s::continue_()),
        },
        Expr::Return(r) => match &r.expr {
            None => quote_spanned!(span=> #s::return_unit()),
            Some(v) => {
                let v = expr(v);
                quote_spanned!(span=> #s::return_value(#v))
            }
        },
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
        Expr::Struct(st) => construct(
            &st.path,
            st.fields.iter().map(|f| f.member.clone()).collect(),
            st.fields.iter().map(|f| &f.expr).collect(),
            span,
        ),
        // Rejected by the analysis.
        _ => quote!(),
    }
}
