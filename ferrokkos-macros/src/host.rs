//! The host body: the kernel as written, with View accesses turned into accessor calls.
//!
//! - A View the kernel only reads, and a captured array: `x[i]` -> `x.at(i)` (safe).
//! - A View the kernel writes: `y[i]` -> `y.at(i)`, `y[i] = v` -> `y.put(i, v)`. These accessor
//!   methods are `unsafe fn`s whose contract is the race rules. Outside the author's `unsafe { }`
//!   the analysis proved the rules for every such access (it is at the iteration index), so the
//!   expansion calls them in an `unsafe` block of its own, around the call only: the value is
//!   computed outside it. Inside the author's `unsafe { }` the calls are left bare, so the author's
//!   block (kept with the author's own tokens, hence seen by `#![forbid(unsafe_code)]`) is what
//!   allows them.
//! - An atomic View: `h.atomic_add(k, v)` stays as written (safe).

use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, parse_quote};

use crate::affine::{self, Coord};
use crate::analyze::{ident_of, is_compound, strip};
use crate::race::Role;

struct Host<'a, 'p> {
    roles: &'a HashMap<String, Role>,
    /// How many of the author's `unsafe { }` blocks enclose the current expression.
    in_unsafe: usize,
    /// Making the proven form: the accesses whose maps a launch proves in bounds skip their checks.
    proven: Option<&'a mut Proven<'p>>,
}

/// What the proven form of a body needs and records (see `ferrokkos::kernel::bounds`).
pub struct Proven<'a> {
    /// The iteration index's names.
    pub params: &'a [String],
    /// The launch constants of index maps.
    pub constants: &'a HashSet<String>,
    /// The captured Views (not arrays, not scratch Views).
    pub views: &'a HashSet<String>,
    /// The accesses made unchecked: the View, the index map, and the identifiers the map took for
    /// the iteration index (the expansion checks that each resolves to it).
    pub found: Vec<(String, Vec<Coord>, Vec<syn::Ident>)>,
    /// The calls of `#[device]` functions made with their Views read unchecked where the
    /// function's reads compose with the arguments into proven maps.
    pub calls: Vec<ProvenCall>,
}

/// A call `f(&u, i - 1, j)` in a body's proven form: per argument, the captured View it passes
/// (`&u`, a View the kernel reads) and its map of the iteration index (`Any` where it has none).
pub struct ProvenCall {
    /// The function's marker type.
    pub marker: syn::Path,
    pub views: Vec<Option<String>>,
    pub args: Vec<Coord>,
    /// The identifiers the maps took for the iteration index.
    pub idents: Vec<syn::Ident>,
}

impl ProvenCall {
    /// Whether each argument has a map the composition takes (a coordinate of several iteration
    /// coordinates has none: the call then runs checked).
    pub fn known(&self) -> Vec<bool> {
        self.args
            .iter()
            .map(|c| !matches!(c, Coord::Any | Coord::Mixed { .. }))
            .collect()
    }
}

impl Proven<'_> {
    /// Whether the access `base[index]` skips its check in the proven form (then recorded): a
    /// captured View indexed by an affine map in every coordinate.
    fn take(&mut self, base: &Expr, index: &Expr) -> bool {
        match proven_access(base, index, self.params, self.constants, self.views) {
            Some(access) => {
                self.found.push(access);
                true
            }
            None => false,
        }
    }

    /// The record of a call with arguments `args` (before the host form rewrites them): `None`
    /// when it passes no View the kernel reads (it has nothing to prove).
    fn call(
        &self,
        marker: &syn::Path,
        args: &[&Expr],
        roles: &HashMap<String, Role>,
    ) -> Option<ProvenCall> {
        let read = |v: &str| self.views.contains(v) && roles.get(v) == Some(&Role::Read);
        proven_call_record(marker, args, self.params, self.constants, &read)
    }
}

/// The record of a call of the `#[device]` function `marker` with arguments `args` in a proven
/// form (the host's, or the device's, `shadow::DeviceProven`): per argument, the View it passes
/// (`&u` of a View `read_views` accepts) and its map of the iteration index `params` (with the
/// launch `constants`); `None` when it passes no such View.
pub fn proven_call_record(
    marker: &syn::Path,
    args: &[&Expr],
    params: &[String],
    constants: &HashSet<String>,
    read_views: &dyn Fn(&str) -> bool,
) -> Option<ProvenCall> {
    let views: Vec<Option<String>> = args
        .iter()
        .map(|a| match strip(a) {
            Expr::Reference(r) if r.mutability.is_none() => {
                ident_of(&r.expr).filter(|v| read_views(v))
            }
            _ => None,
        })
        .collect();
    if views.iter().all(Option::is_none) {
        return None;
    }
    let mut idents = Vec::new();
    let args = args
        .iter()
        .map(|a| {
            if matches!(strip(a), Expr::Reference(_)) {
                return Coord::Any;
            }
            match affine::coords(a, params, &|n| constants.contains(n)).as_slice() {
                [c] if !matches!(c, Coord::Any) => {
                    param_idents(a, params, &mut idents);
                    c.clone()
                }
                _ => Coord::Any,
            }
        })
        .collect();
    Some(ProvenCall {
        marker: marker.clone(),
        views,
        args,
        idents,
    })
}

/// The access `base[index]` as a proven form records it (its View, index map and the identifiers
/// the map took for the iteration index `params`), when `base` is one of the captured `views` and
/// `index` an affine map of the iteration index and the launch `constants` in every coordinate.
/// The host's proven form and the device's proven accesses (`shadow::DeviceProven`) both decide
/// here.
pub fn proven_access(
    base: &Expr,
    index: &Expr,
    params: &[String],
    constants: &HashSet<String>,
    views: &HashSet<String>,
) -> Option<(String, Vec<Coord>, Vec<syn::Ident>)> {
    let view = ident_of(base).filter(|v| views.contains(v))?;
    let map = affine::coords(index, params, &|n| constants.contains(n));
    if map
        .iter()
        .any(|c| matches!(c, Coord::Any | Coord::Mixed { .. }))
    {
        return None;
    }
    let mut idents = Vec::new();
    param_idents(index, params, &mut idents);
    Some((view, map, idents))
}

/// The identifiers of `e` that name an iteration index parameter.
pub fn param_idents(e: &Expr, params: &[String], out: &mut Vec<syn::Ident>) {
    struct Find<'a>(&'a [String], &'a mut Vec<syn::Ident>);
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if p.qself.is_none()
                && p.path.segments.len() == 1
                && self.0.iter().any(|n| p.path.segments[0].ident == n)
            {
                self.1.push(p.path.segments[0].ident.clone());
            }
            syn::visit::visit_expr_path(self, p);
        }
    }
    syn::visit::Visit::visit_expr(&mut Find(params, out), e);
}

impl Host<'_, '_> {
    /// Whether `place` (`x[i]`, `y[i].a.b`, `p[i].pos[k]`) indexes a capture (a View or a captured array), whose
    /// accesses become accessor calls; a local array's stay as written.
    fn captured_element(&self, place: &Expr) -> bool {
        element_update_parts(place)
            .is_some_and(|(ix, _)| ident_of(&ix.expr).is_some_and(|n| self.roles.contains_key(&n)))
    }

    /// Whether `place` is an element of a capture itself (`x[i]`, not `y[i].a` or `p[i][k]`).
    fn captured_direct(&self, place: &Expr) -> bool {
        element_update_parts(place).is_some_and(|(ix, path)| {
            path.is_empty() && ident_of(&ix.expr).is_some_and(|n| self.roles.contains_key(&n))
        })
    }

    fn written(&self, base: &Expr) -> bool {
        ident_of(base).is_some_and(|n| self.roles.get(&n) == Some(&Role::Write))
    }

    /// Whether the access `base[index]` skips its bounds check (the proven form only; recorded).
    fn unchecked(&mut self, base: &Expr, index: &Expr) -> bool {
        self.proven.as_mut().is_some_and(|p| p.take(base, index))
    }

    /// The accessor methods of an access: `at` / `put`, or their unchecked forms.
    fn methods(unchecked: bool) -> (syn::Ident, syn::Ident) {
        let s = Span::call_site();
        if unchecked {
            (
                syn::Ident::new("at_unchecked", s),
                syn::Ident::new("put_unchecked", s),
            )
        } else {
            (syn::Ident::new("at", s), syn::Ident::new("put", s))
        }
    }

    /// `call` (a call of an `unsafe` accessor method), in an `unsafe` block of the expansion unless
    /// the author's `unsafe { }` encloses it.
    fn proven(&self, call: TokenStream) -> TokenStream {
        if self.in_unsafe > 0 {
            call
        } else {
            let s = Span::mixed_site();
            quote_spanned!(s=> unsafe { #call })
        }
    }
}

/// An identifier of the expansion that the kernel body cannot name.
fn private(name: &str) -> syn::Ident {
    syn::Ident::new(name, Span::mixed_site())
}

impl VisitMut for Host<'_, '_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Assign(a) if self.captured_direct(&a.left) => self.element_write(e),
            Expr::Assign(_) | Expr::Binary(_)
                if element_update(e).is_some()
                    && match &*e {
                        Expr::Assign(a) => self.captured_element(&a.left),
                        Expr::Binary(b) => self.captured_element(&b.left),
                        _ => false,
                    } =>
            {
                self.element_update(e)
            }
            Expr::Index(_) if self.captured_direct(e) => self.element_read(e),
            Expr::Unsafe(u) => {
                // The author's block, with the author's `unsafe` and braces (so that the
                // `unsafe_code` lint sees it), opened by a call of an `unsafe fn` that marks it: the
                // block is never reported as unused, whatever it holds.
                self.in_unsafe += 1;
                self.visit_block_mut(&mut u.block);
                self.in_unsafe -= 1;
                let mark: syn::Stmt = parse_quote!(::ferrokkos::__private::unsafe_block(););
                u.block.stmts.insert(0, mark);
            }
            // `println!(..)`, `panic!(..)` (a marker call since `format::normalize`): Rust's own
            // macro over the rewritten arguments.
            Expr::Call(c) if crate::format::from_call(c).is_some() => {
                let m = crate::format::from_call(c).expect("checked");
                let mut args = m.args.clone();
                for a in &mut args {
                    self.visit_expr_mut(a);
                }
                *e = crate::format::std_macro(&m, &args);
            }
            // A UniqueToken's use: the runtime's function (`crate::unique_token`).
            Expr::Call(c) if crate::unique_token::marker(c).is_some() => {
                let marker = crate::unique_token::marker(c).expect("checked");
                visit_mut::visit_expr_mut(self, e);
                if let Expr::Call(c) = e {
                    crate::unique_token::host(c, marker);
                }
            }
            // A subview's range check: the runtime's function, over the rewritten arguments.
            Expr::Call(c) if crate::subview_range::marker(c).is_some() => {
                let marker = crate::subview_range::marker(c).expect("checked");
                visit_mut::visit_expr_mut(self, e);
                if let Expr::Call(c) = e {
                    crate::subview_range::host(c, marker);
                }
            }
            Expr::Call(c) if !matches!(&*c.func, Expr::Path(p) if crate::analyze::is_device_call(&p.path)) =>
            {
                // A constructor, complex-number or associated function: values only.
                visit_mut::visit_expr_mut(self, e)
            }
            // A team kernel's `single(PerTeam(team), || ..)`: as written, with the checks that
            // make it what the race rules took it for (see `check_single`).
            Expr::Call(c) if is_single(c) => {
                visit_mut::visit_expr_mut(self, e);
                if let Expr::Call(c) = e {
                    check_single(c);
                }
            }
            // A team kernel's nested range, `TeamThreadRange::new(team, b, e).parallel_for(..)`:
            // as written, checked to be the runtime's range of that kind (`check_nested_range`).
            Expr::MethodCall(_) => {
                visit_mut::visit_expr_mut(self, e);
                if let Expr::MethodCall(m) = e {
                    check_nested_range(m);
                }
            }
            Expr::Call(_) => self.device_call(e),
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }
}

impl Host<'_, '_> {
    /// `y[i] = v` for a captured View `y`: its `put` (unchecked where the launch proved the access).
    fn element_write(&mut self, e: &mut Expr) {
        let Expr::Assign(a) = e else { unreachable!() };
        let Expr::Index(mut ix) = strip(&a.left).clone() else {
            unreachable!()
        };
        let unchecked = self.written(&ix.expr) && self.unchecked(&ix.expr, &ix.index);
        let (_, put_m) = Self::methods(unchecked);
        self.visit_expr_mut(&mut ix.index);
        self.visit_expr_mut(&mut a.right);
        let (base, idx, value) = (&ix.expr, &ix.index, &a.right);
        if self.written(base) {
            let (i, v) = (private("__fk_index"), private("__fk_value"));
            let put = self.proven(quote!(#base.#put_m(#i, #v)));
            // The author's expressions are evaluated outside the expansion's `unsafe`.
            *e = parse_quote!({
                let #v = #value;
                let #i = #idx;
                #put
            });
        } else {
            // Not a written View (the analysis allows indexed writes only to Views): the
            // accessor then has no `put`, and rustc reports the type.
            *e = parse_quote!(#base.put(#idx, #value));
        }
    }

    /// `y[i] op= v`, `y[i].x = v`, `y[i].a.b op= v`: the element is read, updated as a local and
    /// written back (the iteration owns it, so this is the same as updating it in place).
    fn element_update(&mut self, e: &mut Expr) {
        let (left, op, mut value) = match e {
            Expr::Assign(a) => (&*a.left, quote!(=), (*a.right).clone()),
            Expr::Binary(b) => {
                let op = &b.op;
                (&*b.left, quote!(#op), (*b.right).clone())
            }
            _ => unreachable!(),
        };
        let (mut ix, mut path) = element_update_parts(left).expect("checked above");
        let unchecked = self.written(&ix.expr) && self.unchecked(&ix.expr, &ix.index);
        let (at_m, put_m) = Self::methods(unchecked);
        self.visit_expr_mut(&mut ix.index);
        self.visit_path(&mut path);
        self.visit_expr_mut(&mut value);
        let (base, idx) = (&ix.expr, &ix.index);
        let (i, v, el) = (
            private("__fk_index"),
            private("__fk_value"),
            private("__fk_element"),
        );
        let at = self.proven(quote!(#base.#at_m(#i)));
        let put = self.proven(quote!(#base.#put_m(#i, #el)));
        // Rust evaluates the assigned value first (for compound assignments of primitives
        // too), then the place.
        *e = parse_quote!({
            let #v = #value;
            let #i = #idx;
            let mut #el = #at;
            #el #(#path)* #op #v;
            #put
        });
    }

    /// The host forms of the array indices of a path to a part of an element.
    fn visit_path(&mut self, path: &mut [Step]) {
        for step in path {
            if let Step::Index(k) = step {
                self.visit_expr_mut(k);
            }
        }
    }

    /// `y[i]` read, for a captured View `y`: its `at` (unchecked where the launch proved the access).
    fn element_read(&mut self, e: &mut Expr) {
        let Expr::Index(ix) = e else { unreachable!() };
        let unchecked = self.unchecked(&ix.expr, &ix.index);
        let (at_m, _) = Self::methods(unchecked);
        self.visit_expr_mut(&mut ix.index);
        let (base, idx) = (&ix.expr, &ix.index);
        if self.written(base) || unchecked {
            let i = private("__fk_index");
            let at = self.proven(quote!(#base.#at_m(#i)));
            *e = parse_quote!({
                let #i = #idx;
                #at
            });
        } else {
            *e = parse_quote!(#base.at(#idx));
        }
    }

    /// A call of a `#[device]` function: through its marker's host form, with `&mut y[i]` (an
    /// element of a captured View) read into a local before the call and written back after it.
    fn device_call(&mut self, e: &mut Expr) {
        let Expr::Call(c) = e else { unreachable!() };
        let record = match (&self.proven, &*c.func) {
            (Some(p), Expr::Path(f)) => {
                let args: Vec<&Expr> = c.args.iter().collect();
                p.call(&crate::device::marker_path(&f.path), &args, self.roles)
            }
            _ => None,
        };
        // `&mut y[i]` (an element of a captured View): the element is read into a local
        // before the call, passed as `&mut`, and written back after it (C++ passes the
        // element itself by reference; nothing else in the call reaches `y`, so the two
        // agree). `&u` (a captured View): its accessor, which the body holds by reference.
        let mut before = Vec::new();
        let mut after = Vec::new();
        for (k, a) in c.args.iter_mut().enumerate() {
            let Expr::Reference(r) = strip(a) else {
                self.visit_expr_mut(a);
                continue;
            };
            if r.mutability.is_none() {
                if let Some(view) = ident_of(&r.expr)
                    && self.roles.contains_key(&view)
                {
                    *a = (*r.expr).clone();
                } else {
                    self.visit_expr_mut(a);
                }
                continue;
            }
            if !self.captured_element(&r.expr) {
                self.visit_expr_mut(a);
                continue;
            }
            let (mut ix, mut path) = element_update_parts(&r.expr).expect("checked above");
            let unchecked = self.written(&ix.expr) && self.unchecked(&ix.expr, &ix.index);
            let (at_m, put_m) = Self::methods(unchecked);
            self.visit_expr_mut(&mut ix.index);
            self.visit_path(&mut path);
            let (base, idx) = (&ix.expr, &ix.index);
            let (i, el) = (
                private(&format!("__fk_index{k}")),
                private(&format!("__fk_element{k}")),
            );
            let at = self.proven(quote!(#base.#at_m(#i)));
            let put = self.proven(quote!(#base.#put_m(#i, #el)));
            before.push(quote!(let #i = #idx; let mut #el = #at;));
            after.push(quote!(#put;));
            *a = parse_quote!(&mut #el #(#path)*);
        }
        // `f(a, b)` -> the `#[device]` marker's host form, after a check that the marker
        // is one (`DeviceFunction` is an `unsafe trait` that only `#[device]` implements).
        if let Expr::Path(p) = &*c.func {
            let marker = crate::device::marker_path(&p.path);
            let args = &c.args;
            let result = private("__fk_result");
            let call = match record {
                Some(record) => self.proven_call(record, args),
                None => quote!(#marker::host(#args)),
            };
            *e = parse_quote!({
                ::ferrokkos::__private::device_function::<#marker>();
                #(#before)*
                let #result = #call;
                #(#after)*
                #result
            });
        }
    }
}

impl Host<'_, '_> {
    /// The call `record` describes, with `args` (the host form's): where the function's reads
    /// compose with the arguments into maps of the iteration index (decided when the program is
    /// compiled, `proves`), with the Views it reads unchecked, which the launch proves in bounds
    /// before it runs this form (the record goes to its list); else as written.
    fn proven_call(
        &mut self,
        record: ProvenCall,
        args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    ) -> TokenStream {
        let k = quote!(::ferrokkos::__private);
        let marker = &record.marker;
        let known = record.known();
        let is_view = record.views.iter().map(Option::is_some);
        let unchecked = args.iter().zip(&record.views).map(|(a, v)| match v {
            Some(_) => {
                let wrap = self.proven(quote!((#a).proven()));
                quote!(&#wrap)
            }
            None => quote!(#a),
        });
        let call = quote!(if const {
            #k::proves(<#marker as #k::DeviceFunction>::ACCESSES, &[#(#known),*], &[#(#is_view),*])
        } {
            #marker::host(#(#unchecked),*)
        } else {
            #marker::host(#args)
        });
        if let Some(p) = self.proven.as_mut() {
            p.calls.push(record);
        }
        call
    }
}

/// The nested ranges of team kernels (see `analyze/team/constructs.rs`), by their kind numbers in
/// `ferrokkos::__private::NestedRangeKind`.
const NESTED_RANGES: &[&str] = &[
    "TeamThreadRange",
    "ThreadVectorRange",
    "TeamVectorRange",
    "TeamThreadMDRange",
];

/// If `m` is a nested range's pattern (`X::new(team, ..).parallel_for(..)`, also `parallel_reduce`
/// and `parallel_scan`), passes the range through `nested_range::<KIND, _>`, which compiles only if
/// `X` is the runtime's range of the kind its name says.
fn check_nested_range(m: &mut syn::ExprMethodCall) {
    if !["parallel_for", "parallel_reduce", "parallel_scan"]
        .contains(&m.method.to_string().as_str())
    {
        return;
    }
    let Expr::Call(c) = strip(&m.receiver) else {
        return;
    };
    let Expr::Path(p) = &*c.func else {
        return;
    };
    let segs: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
    let [.., ty, f] = segs.as_slice() else {
        return;
    };
    let name = ty.ident.to_string();
    let Some(kind) = NESTED_RANGES.iter().position(|n| *n == name) else {
        return;
    };
    if f.ident != "new" {
        return;
    }
    let kind = kind as u8;
    let span = ty.ident.span();
    let range = &m.receiver;
    let check = quote_spanned!(span=> ::ferrokkos::__private::nested_range::<#kind, _>);
    *m.receiver = parse_quote!(#check(#range));
}

/// `single(PerTeam(team), || body)`: its scope through `single_scope::<PER_TEAM, _>`, which
/// compiles only for the runtime's scope its name says, and its closure owning a `NotSync`, so
/// that whatever `single` resolves to cannot run it on several threads at once (nor twice).
fn check_single(c: &mut syn::ExprCall) {
    let k = quote!(::ferrokkos::__private);
    if let Some(scope) = c.args.first_mut() {
        let per_team = matches!(strip(scope), Expr::Call(s)
            if matches!(&*s.func, Expr::Path(p) if p.path.is_ident("PerTeam")));
        let span = scope.span();
        let check = quote_spanned!(span=> #k::single_scope::<#per_team, _>);
        *scope = parse_quote!(#check(#scope));
    }
    if let Some(Expr::Closure(f)) = c.args.iter_mut().nth(1).map(strip_mut) {
        // Taken by value (the closure owns it: `single` takes an `FnOnce`).
        let (held, kept) = (private("__fk_not_sync"), private("_fk_kept"));
        let body = &f.body;
        *f.body = parse_quote!({
            let #kept = #held;
            #body
        });
        let closure = f.clone();
        *c.args.iter_mut().nth(1).expect("checked") = parse_quote!({
            let #held = #k::NotSync::new();
            #closure
        });
    }
}

/// `e` without parentheses, mutably.
fn strip_mut(e: &mut Expr) -> &mut Expr {
    match e {
        Expr::Paren(p) => strip_mut(&mut p.expr),
        Expr::Group(g) => strip_mut(&mut g.expr),
        _ => e,
    }
}

/// Whether `c` is `single(PerTeam(..), ..)` or `single(PerThread(..), ..)`.
fn is_single(c: &syn::ExprCall) -> bool {
    matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "single"))
        && matches!(c.args.first().map(strip), Some(Expr::Call(s))
            if matches!(&*s.func, Expr::Path(p) if p.path.is_ident("PerTeam") || p.path.is_ident("PerThread")))
}

/// Whether `e` updates a View element or a field of one: `y[i] op= v`, `y[i].x = v`,
/// `y[i].a.b op= v` (a plain `y[i] = v` is not an update: it writes the element directly).
fn element_update(e: &Expr) -> Option<()> {
    match e {
        Expr::Assign(a) => {
            let (_, path) = element_update_parts(&a.left)?;
            (!path.is_empty()).then_some(())
        }
        Expr::Binary(b) if is_compound(&b.op) => element_update_parts(&b.left).map(|_| ()),
        _ => None,
    }
}

/// One step from an element to a part of it: a field (`.a`) or an array element (`[k]`).
enum Step {
    Field(syn::Member),
    Index(Expr),
}

impl quote::ToTokens for Step {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            Step::Field(m) => quote!(.#m).to_tokens(tokens),
            Step::Index(k) => quote!([#k]).to_tokens(tokens),
        }
    }
}

/// `y[i].a.pos[k]` as the element access `y[i]` (the innermost index of a name) and the path
/// `[.a, .pos, [k]]` to the part of it.
fn element_update_parts(e: &Expr) -> Option<(syn::ExprIndex, Vec<Step>)> {
    match strip(e) {
        Expr::Index(ix) => match element_update_parts(&ix.expr) {
            Some((inner, mut path)) => {
                path.push(Step::Index((*ix.index).clone()));
                Some((inner, path))
            }
            None => ident_of(&ix.expr).map(|_| (ix.clone(), Vec::new())),
        },
        Expr::Field(f) => {
            let (ix, mut path) = element_update_parts(&f.base)?;
            path.push(Step::Field(f.member.clone()));
            Some((ix, path))
        }
        _ => None,
    }
}

/// The host form of a kernel body; `roles` are the captured Views' roles. With `proven`, its
/// proven form: the accesses `proven` takes skip their bounds checks, and `proven.found` lists them.
pub fn body(
    e: &Expr,
    roles: &HashMap<String, Role>,
    proven: Option<&mut Proven<'_>>,
) -> TokenStream {
    let mut e = e.clone();
    ScratchLets.visit_expr_mut(&mut e);
    Host {
        roles,
        in_unsafe: 0,
        proven,
    }
    .visit_expr_mut(&mut e);
    quote!(#e)
}

/// A team body's scratch View declarations, `let tile = team.team_scratch(0).view::<T, R>([..]);`,
/// become the runtime's kernel scratch Views (`kernel_scratch`), which nested ranges' closures
/// read and write through shared references (the analysis accepted them).
struct ScratchLets;

impl VisitMut for ScratchLets {
    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        visit_mut::visit_local_mut(self, l);
        let Some(init) = &mut l.init else { return };
        let Expr::MethodCall(view) = strip(&init.expr) else {
            return;
        };
        let Expr::MethodCall(part) = strip(&view.receiver) else {
            return;
        };
        if view.method != "view"
            || !(part.method == "team_scratch" || part.method == "thread_scratch")
        {
            return;
        }
        let Some(generics) = view.turbofish.as_ref().map(|g| &g.args) else {
            return;
        };
        let (arena, args) = (&view.receiver, &view.args);
        *init.expr =
            parse_quote!(::ferrokkos::__private::kernel_scratch::<#generics>(#arena, #args));
    }
}
