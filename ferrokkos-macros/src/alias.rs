//! View aliases in a kernel body: `let w = &c.w;` or `let u = &field;` (Kokkos users write
//! `auto w = chunk.w;` in a lambda) names a capture by another name. Before anything else sees the
//! body, each such `let` is removed and every later use of its name, in its scope, becomes the
//! path it stands for, so that the race rules, the host body and the shadow see the capture itself
//! (a write `w[i] = v` is a write of `c.w`).
//!
//! Only a reference to a name or field path rooted at a name the body binds nowhere is an alias
//! (so the path means the same thing at every use: nothing the body binds can shadow its root);
//! any other `let` binds as written, and a later binding of the alias's name shadows it as in Rust.
//! A subview of a capture (`let row = subview(&a, (j, ALL));`) is an alias too, of part of the
//! View (see [`crate::subview`]), and so is `let access = scatter.access();` (Kokkos' spelling
//! for a ScatterView's updates), of `scatter`.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;

use crate::subview::Subview;

use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Pat, Stmt};

/// Replaces the aliases of `body` by the paths they stand for (`params` are the kernel's
/// parameters: an alias of one is no alias); the errors are subviews used as they cannot be.
pub fn resolve(body: &mut Expr, params: &[String]) -> Vec<syn::Error> {
    let mut bound = Bindings::default();
    for p in params {
        bound.count.entry(p.clone()).or_default().0 += 1;
    }
    bound.visit_expr(body);
    let mut r = Resolve {
        bound,
        scopes: vec![HashMap::new()],
        errors: Vec::new(),
    };
    r.visit_expr_mut(body);
    r.errors
}

/// Every name a pattern of the body binds: how many times, and whether once mutably.
#[derive(Default)]
struct Bindings {
    count: HashMap<String, (usize, bool)>,
}

impl<'ast> Visit<'ast> for Bindings {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        let e = self.count.entry(p.ident.to_string()).or_default();
        e.0 += 1;
        e.1 |= p.mutability.is_some() || p.by_ref.is_some();
        syn::visit::visit_pat_ident(self, p);
    }
}

/// What an alias stands for.
#[derive(Clone)]
enum Alias {
    Path(Expr),
    Subview(Subview),
}

struct Resolve {
    /// The names bound in the body (an alias's root may not be one).
    bound: Bindings,
    /// Per scope, each name bound in it: `Some` for an alias, `None` for another binding.
    scopes: Vec<HashMap<String, Option<Alias>>>,
    errors: Vec<syn::Error>,
}

impl Resolve {
    fn lookup_alias(&self, name: &str) -> Option<&Alias> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
            .and_then(Option::as_ref)
    }

    fn lookup(&self, name: &str) -> Option<&Expr> {
        match self.lookup_alias(name)? {
            Alias::Path(p) => Some(p),
            Alias::Subview(_) => None,
        }
    }

    fn subview(&self, e: &Expr) -> Option<(Subview, Span)> {
        let Expr::Path(p) = e else { return None };
        let ident = p.path.get_ident()?;
        match self.lookup_alias(&ident.to_string())? {
            Alias::Subview(s) => Some((s.clone(), ident.span())),
            Alias::Path(_) => None,
        }
    }

    /// Whether every name of `e` is bound at most once in the body, never mutably (so it means
    /// the same value wherever `e` is written).
    fn stable(&self, e: &Expr) -> bool {
        struct Names<'a>(&'a Bindings, bool);
        impl<'ast> Visit<'ast> for Names<'_> {
            fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
                if let Some(i) = p.path.get_ident()
                    && let Some((n, m)) = self.0.count.get(&i.to_string())
                {
                    self.1 &= *n <= 1 && !*m;
                }
            }
        }
        let mut n = Names(&self.bound, true);
        n.visit_expr(e);
        n.1
    }

    fn shadow(&mut self, pat: &Pat) {
        let mut names = Bindings::default();
        names.visit_pat(pat);
        let scope = self.scopes.last_mut().expect("a scope");
        for n in names.count.into_keys() {
            scope.insert(n, None);
        }
    }

    /// `(name, path)` when `local` is `let name = &path;` with `path` a name or field path rooted
    /// at a name the body does not bind, or `let name = other;` of an alias `other`.
    fn alias(&self, local: &syn::Local) -> Option<(String, Expr)> {
        let Pat::Ident(p) = strip_type(&local.pat) else {
            return None;
        };
        if p.by_ref.is_some() || p.mutability.is_some() || p.subpat.is_some() {
            return None;
        }
        let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
        // `let row = w;` of an alias `w` is one too (a copy of the reference).
        if let Expr::Path(q) = &*init.expr
            && let Some(path) = q.path.get_ident().and_then(|n| self.lookup(&n.to_string()))
        {
            return Some((p.ident.to_string(), path.clone()));
        }
        // `let access = scatter.access();` (Kokkos' `auto access = scatter.access();` of a
        // ScatterView): the ScatterView itself, whose updates the kernel makes.
        if let Expr::MethodCall(m) = &*init.expr
            && m.method == "access"
            && m.args.is_empty()
            && m.turbofish.is_none()
        {
            let root = root_of(&m.receiver)?;
            return (!self.bound.count.contains_key(&root))
                .then(|| (p.ident.to_string(), (*m.receiver).clone()));
        }
        let Expr::Reference(r) = &*init.expr else {
            return None;
        };
        if r.mutability.is_some() {
            return None;
        }
        let root = root_of(&r.expr)?;
        (!self.bound.count.contains_key(&root)).then(|| (p.ident.to_string(), (*r.expr).clone()))
    }
}

/// `path` with every token at `span` (the use's), so that errors about the access point at it.
fn at(path: &Expr, span: proc_macro2::Span) -> Expr {
    fn respan(ts: proc_macro2::TokenStream, span: proc_macro2::Span) -> proc_macro2::TokenStream {
        ts.into_iter()
            .map(|mut t| {
                if let proc_macro2::TokenTree::Group(g) = &t {
                    let mut g2 = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                    g2.set_span(span);
                    t = proc_macro2::TokenTree::Group(g2);
                } else {
                    t.set_span(span);
                }
                t
            })
            .collect()
    }
    syn::parse2(respan(quote::ToTokens::to_token_stream(path), span))
        .unwrap_or_else(|_| path.clone())
}

/// The name `let name = ..` binds, immutably and by value.
fn plain_name(p: &Pat) -> Option<String> {
    match strip_type(p) {
        Pat::Ident(i) if i.by_ref.is_none() && i.mutability.is_none() && i.subpat.is_none() => {
            Some(i.ident.to_string())
        }
        _ => None,
    }
}

fn strip_type(p: &Pat) -> &Pat {
    match p {
        Pat::Type(t) => &t.pat,
        p => p,
    }
}

/// The root name of a name or a field path (`c.w.v` -> `c`).
fn root_of(e: &Expr) -> Option<String> {
    match e {
        Expr::Field(f) => root_of(&f.base),
        Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            let seg = &p.path.segments[0];
            seg.arguments.is_none().then(|| seg.ident.to_string())
        }
        _ => None,
    }
}

impl VisitMut for Resolve {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        // A subview's index, extent and atomics are the View's.
        if let Expr::Index(ix) = e
            && let Some((sub, span)) = self.subview(&ix.expr)
        {
            self.visit_expr_mut(&mut ix.index);
            match sub.index(at(&sub.base, span), &ix.index, ix.span()) {
                Ok(access) => *e = access,
                Err(err) => self.errors.push(err),
            }
            return;
        }
        if let Expr::MethodCall(m) = e
            && let Some((sub, span)) = self.subview(&m.receiver)
        {
            for a in &mut m.args {
                self.visit_expr_mut(a);
            }
            match sub.method(at(&sub.base, span), m) {
                Ok(call) => *e = call,
                Err(err) => self.errors.push(err),
            }
            return;
        }
        if let Some((_, span)) = self.subview(e) {
            self.errors.push(crate::subview::misuse(span));
            return;
        }
        // `*w` of an alias `w = &path` is `path`.
        if let Expr::Unary(u) = e
            && matches!(u.op, syn::UnOp::Deref(_))
            && let Expr::Path(p) = &*u.expr
            && let Some(ident) = p.path.get_ident()
            && let Some(path) = self.lookup(&ident.to_string())
        {
            *e = at(path, ident.span());
            return;
        }
        if let Expr::Path(p) = e
            && p.qself.is_none()
            && let Some(name) = p.path.get_ident().map(ToString::to_string)
            && let Some(path) = self.lookup(&name)
        {
            *e = at(path, p.path.segments[0].ident.span());
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        self.scopes.push(HashMap::new());
        let stmts = std::mem::take(&mut b.stmts);
        for mut stmt in stmts {
            if let Stmt::Local(l) = &stmt
                && let Some((name, mut path)) = self.alias(l)
            {
                // An alias of an alias stands for the first one's path.
                self.visit_expr_mut(&mut path);
                self.scopes
                    .last_mut()
                    .expect("a scope")
                    .insert(name, Some(Alias::Path(path)));
                continue;
            }
            if let Stmt::Local(l) = &mut stmt
                && let Some(name) = plain_name(&l.pat)
                && let Some(init) = l.init.as_mut().filter(|i| i.diverge.is_none())
            {
                self.visit_expr_mut(&mut init.expr);
                match crate::subview::parse(&init.expr, &|e| self.stable(e)) {
                    Some(Ok(sub))
                        if root_of(&sub.base)
                            .is_some_and(|r| !self.bound.count.contains_key(&r)) =>
                    {
                        self.scopes
                            .last_mut()
                            .expect("a scope")
                            .insert(name, Some(Alias::Subview(sub)));
                        continue;
                    }
                    Some(Err(err)) => self.errors.push(err),
                    _ => {}
                }
                self.shadow(&l.pat);
                b.stmts.push(stmt);
                continue;
            }
            self.visit_stmt_mut(&mut stmt);
            b.stmts.push(stmt);
        }
        self.scopes.pop();
    }

    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        // The initializer is evaluated before its pattern binds.
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, diverge)) = &mut init.diverge {
                self.visit_expr_mut(diverge);
            }
        }
        self.shadow(&l.pat);
    }

    fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
        self.visit_expr_mut(&mut f.expr);
        self.scopes.push(HashMap::new());
        self.shadow(&f.pat);
        self.visit_block_mut(&mut f.body);
        self.scopes.pop();
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        self.scopes.push(HashMap::new());
        for p in &c.inputs {
            self.shadow(p);
        }
        self.visit_expr_mut(&mut c.body);
        self.scopes.pop();
    }

    fn visit_arm_mut(&mut self, a: &mut syn::Arm) {
        self.scopes.push(HashMap::new());
        self.shadow(&a.pat);
        syn::visit_mut::visit_arm_mut(self, a);
        self.scopes.pop();
    }
}
