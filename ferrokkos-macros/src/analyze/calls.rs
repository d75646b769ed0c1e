//! The arguments of calls of `#[device]` functions in a kernel or device function body: values,
//! Views passed whole (`f(&u, i)`), elements passed by `&mut` (`f(&mut y[i])`), and a device
//! function's own reference parameters passed on; and which paths a kernel may call.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::Expr;
use syn::spanned::Spanned;

use super::{Mode, RefParam, Walker, ident_of, pretty, strip};
use crate::race::AccessKind;
use crate::subset::SUMMARY;

impl Walker {
    /// A call: of a `#[device]` function, a constructor, a complex-number function or an
    /// associated function.
    pub(super) fn call(&mut self, c: &syn::ExprCall) {
        if self.output_call(c) {
            return;
        }
        // A UniqueToken's use (`crate::unique_token`): the token is a capture, the id a local.
        if let Some(m) = crate::unique_token::marker(c) {
            self.token_marker(c, m);
            return;
        }
        // A subview's range check (`crate::subview_range`): its arguments are values.
        if crate::subview_range::marker(c).is_some() {
            for a in &c.args {
                self.expr(a);
            }
            return;
        }
        match &*c.func {
            Expr::Path(p) if p.qself.is_none() && complex_function(&p.path).is_some() => {}
            Expr::Path(p) if p.qself.is_none() && is_associated_call(&p.path) => {}
            Expr::Path(p) if is_function_path(&p.path) && p.qself.is_none() => {}
            other => self.err_spanned(
                &other.to_token_stream(),
                format!(
                    "`{}` cannot be called in a kernel: kernels call `#[ferrokkos::device]` \
                     functions by name (`helper(x)`, `module::helper(x)`); {SUMMARY}",
                    pretty(other)
                ),
            ),
        }
        // References (`&u`, `&mut y[i]`) go to `#[device]` functions only; a constructor,
        // complex function or associated function takes values.
        if matches!(&*c.func, Expr::Path(p) if p.qself.is_none() && is_device_call(&p.path)) {
            self.call_args(&c.args);
        } else {
            for a in &c.args {
                self.expr(a);
            }
        }
    }

    /// The arguments of a call of a `#[device]` function: values; a captured View it reads
    /// (`&u`); an element or local it may change (`&mut y[i]`, `&mut t`); or a reference
    /// parameter of the calling device function, passed on (`u`, `cell`).
    pub(super) fn call_args(&mut self, args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>) {
        let mut changed: Vec<(String, usize)> = Vec::new();
        for (k, a) in args.iter().enumerate() {
            match strip(a) {
                Expr::Path(_) if ident_of(a).is_some_and(|n| self.ref_params.contains_key(&n)) => {}
                Expr::Reference(r) if r.mutability.is_none() => match ident_of(&r.expr) {
                    Some(view) if self.ref_params.contains_key(&view) => self.err(
                        r.span(),
                        format!("`{view}` is already a reference: pass it as `{view}`"),
                    ),
                    Some(view) if !self.is_local(&view) && self.mode == Mode::Kernel => {
                        let index: Expr = syn::parse_quote!(());
                        self.view_access(
                            &view,
                            &index,
                            AccessKind::Passed,
                            a.to_token_stream(),
                            r.expr.span(),
                        );
                    }
                    _ => self.err(
                        r.span(),
                        "a device function takes a captured View by reference (`f(&u, i)`), an \
                         element it may change by `&mut` (`f(&mut y[i])`) and values as \
                         themselves (`f(x)`)",
                    ),
                },
                Expr::Reference(r) => {
                    match strip(&r.expr) {
                        Expr::Index(_) | Expr::Field(_) => {
                            if let Some(view) = element_base(&r.expr)
                                && !self.is_local(&view)
                            {
                                changed.push((view, k));
                            }
                        }
                        Expr::Path(_)
                            if ident_of(&r.expr)
                                .is_some_and(|n| self.scopes.iter().any(|s| s.contains(&n))) => {}
                        _ => {
                            self.err(
                                r.span(),
                                "`&mut` in a kernel takes an element of a View (`&mut y[i]`), a \
                                 local (`&mut t`) or a field of one, to pass to a device function",
                            );
                            continue;
                        }
                    }
                    self.place(&r.expr);
                }
                _ => self.expr(a),
            }
        }
        // C++ passes `&mut y[i]` by reference and the host copies the element in and out: the two
        // agree only if nothing else in the call reaches that View.
        for (view, k) in changed {
            for (j, other) in args.iter().enumerate() {
                if j != k && mentions(other, &view) {
                    self.err_spanned(
                        &other.to_token_stream(),
                        format!(
                            "View `{view}` is passed as `&mut` to this call, so no other argument \
                             of the call may use it"
                        ),
                    );
                }
            }
        }
    }
}

/// The View of an element place `y[i]`, `y[i].a.b`, `y[i].pos[k]`.
fn element_base(e: &Expr) -> Option<String> {
    match strip(e) {
        Expr::Index(ix) => ident_of(&ix.expr).or_else(|| element_base(&ix.expr)),
        Expr::Field(f) => element_base(&f.base),
        _ => None,
    }
}

/// Whether the identifier `name` occurs in `e`.
fn mentions(e: &Expr, name: &str) -> bool {
    mentions_any(e.to_token_stream(), &[name])
}

/// Whether one of the identifiers `names` occurs in `tokens` (at any depth).
pub fn mentions_any(tokens: TokenStream, names: &[&str]) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => names.iter().any(|n| i == n),
        proc_macro2::TokenTree::Group(g) => mentions_any(g.stream(), names),
        _ => false,
    })
}

/// The error for a reference parameter of a device function used other than as it allows.
pub(super) fn ref_param_misuse(name: &str, kind: RefParam) -> String {
    match kind {
        RefParam::View => format!(
            "`{name}` is a View parameter: a device function indexes it (`{name}[i]`), takes \
             `{name}.extent(r)` or passes it to another device function (`f({name}, i)`)"
        ),
        RefParam::Mut => format!(
            "`{name}` is a `&mut` parameter: a device function reads and assigns `*{name}`, \
             reaches its fields (`{name}.x`) or passes it on (`f({name})`)"
        ),
        RefParam::Atomic => format!(
            "`{name}` is an atomic View parameter: a device function updates it (`{name}[k] += v`, \
             `{name}.atomic_add(k, v)`), loads and stores its elements atomically, takes \
             `{name}.extent(r)` or passes it on (`f({name}, k)`)"
        ),
    }
}

/// Calls `f` with each single-identifier path of `e` (variables and constants it names).
pub fn each_ident(e: &Expr, f: &mut dyn FnMut(&syn::Ident)) {
    struct Idents<'a>(&'a mut dyn FnMut(&syn::Ident));
    impl<'ast> syn::visit::Visit<'ast> for Idents<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if p.qself.is_none()
                && p.path.segments.len() == 1
                && let Some(seg) = p.path.segments.first()
            {
                (self.0)(&seg.ident);
            }
        }
    }
    syn::visit::Visit::visit_expr(&mut Idents(f), e);
}

/// The shadow function of num-complex's associated functions (`Complex::new(re, im)`,
/// `Complex64::from_polar(r, theta)`), which kernels may call.
pub fn complex_function(path: &syn::Path) -> Option<&'static str> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let [.., ty, f] = segs.as_slice() else {
        return None;
    };
    if !["Complex", "Complex32", "Complex64"].contains(&ty.as_str())
        || path.segments.iter().any(|s| !s.arguments.is_none())
    {
        return None;
    }
    match f.as_str() {
        "new" => Some("complex_new"),
        "from_polar" => Some("complex_from_polar"),
        _ => None,
    }
}

/// Whether a call of `path` calls an associated function of a type (`Vec2::new(x, y)`,
/// `Self::zero()`): a CamelCase segment before a snake_case name. Kernels reach the shadow of a
/// `#[device] impl` block's function of that name.
pub fn is_associated_call(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    path.segments.iter().all(|s| s.arguments.is_none())
        && matches!(segs.as_slice(), [.., ty, f]
            if ty.starts_with(|c: char| c.is_ascii_uppercase())
                && f.starts_with(|c: char| c.is_ascii_lowercase() || c == '_'))
}

/// Whether a call of `path` constructs a tuple struct (`Tag(a, b)`): its last segment is a type's
/// name (CamelCase). The typed shadow checks it as `Tag { 0: a, 1: b }`, which only a tuple struct
/// accepts, so a function with such a name is a compile error, never a call.
pub fn is_constructor(path: &syn::Path) -> bool {
    path.segments.last().is_some_and(|s| {
        s.arguments.is_none()
            && s.ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase())
    })
}

/// Whether a call of `path` calls a `#[device]` function (a function path that is not a
/// constructor, a complex-number function or an associated function).
pub fn is_device_call(path: &syn::Path) -> bool {
    is_function_path(path)
        && !is_constructor(path)
        && complex_function(path).is_none()
        && !is_associated_call(path)
}

/// Whether `path` can name a `#[ferrokkos::device]` function: no generic arguments, no type
/// segment (`Vec::new`), nothing from `std` / `core` / `alloc`.
pub fn is_function_path(path: &syn::Path) -> bool {
    let segs: Vec<_> = path.segments.iter().collect();
    let Some(first) = segs.first() else {
        return false;
    };
    let root = first.ident.to_string();
    segs.iter().all(|s| s.arguments.is_none())
        && !["std", "core", "alloc"].contains(&root.as_str())
        && segs[..segs.len() - 1].iter().all(|s| {
            !s.ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase())
        })
}

impl Walker {
    /// A UniqueToken marker (`crate::unique_token`): its token argument is a captured token, the
    /// others are values (an id is a local).
    fn token_marker(&mut self, c: &syn::ExprCall, m: crate::unique_token::Marker) {
        for (k, a) in c.args.iter().enumerate() {
            if m.token_arg() != Some(k) {
                self.expr(a);
                continue;
            }
            match ident_of(a) {
                Some(name) if !self.is_local(&name) => {
                    self.use_name(&name, a.span());
                    self.constants.remove(&name);
                    if m.is_random() {
                        self.random_pools.insert(name);
                    } else {
                        self.unique_tokens.insert(name);
                    }
                }
                _ if m.is_random() => self.err_spanned(
                    &a.to_token_stream(),
                    format!(
                        "`{}` is not a random pool the kernel captures: a kernel takes states of a \
                         captured pool (`let mut rng = pool.get_state();`)",
                        pretty(a)
                    ),
                ),
                _ => self.err_spanned(
                    &a.to_token_stream(),
                    format!(
                        "`{}` is not a UniqueToken the kernel captures: a kernel acquires ids of a \
                         captured token (`let id = token.acquire();`)",
                        pretty(a)
                    ),
                ),
            }
        }
    }
}
