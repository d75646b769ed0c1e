//! Field-path captures: a kernel may name a field of a variable around it (`c.u[(j, k)]`,
//! `self.a[i]`, `s.grid.v[i]`, `p.0`). Before the analysis, each such path, rooted at a name the
//! body does not bind, becomes one plain identifier (`c_u`), so that the rest of the macro (subset,
//! race rules, host body, shadow) sees an ordinary capture; the expansion then captures the path
//! itself (`&c.u`) under that identifier.
//!
//! Paths rooted at the kernel's parameters (an accumulator's `best.val`) or at the body's own
//! locals stay as they are. The identifier is made unique against every identifier of the body, so
//! it cannot capture or shadow one of the user's names.

use std::collections::HashSet;

use proc_macro2::{Span, TokenTree};
use quote::ToTokens;
use syn::visit_mut::VisitMut;
use syn::{Expr, Member, Pat};

/// A field path replaced by an identifier.
pub struct FieldCapture {
    /// The identifier that stands for the path in the body (`c_u`).
    pub name: String,
    /// The path as written (`c.u`), with the user's spans: what the expansion captures.
    pub path: Expr,
}

/// Replaces the field paths of `body` rooted at names it does not bind (`params` are bound) and
/// returns them with their identifiers, in order of first use.
pub fn flatten(body: &mut Expr, params: &[String]) -> Vec<FieldCapture> {
    let mut used = HashSet::new();
    collect_idents(body.to_token_stream(), &mut used);
    let mut f = Flatten {
        scopes: vec![params.iter().cloned().collect()],
        used,
        found: Vec::new(),
    };
    f.visit_expr_mut(body);
    f.found
}

fn collect_idents(ts: proc_macro2::TokenStream, out: &mut HashSet<String>) {
    for t in ts {
        match t {
            TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            TokenTree::Group(g) => collect_idents(g.stream(), out),
            _ => {}
        }
    }
}

struct Flatten {
    scopes: Vec<HashSet<String>>,
    used: HashSet<String>,
    found: Vec<FieldCapture>,
}

impl Flatten {
    fn bound(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.contains(name))
    }

    fn bind(&mut self, pat: &Pat) {
        let mut names = HashSet::new();
        collect_idents(pat.to_token_stream(), &mut names);
        if let Some(scope) = self.scopes.last_mut() {
            scope.extend(names);
        }
    }

    /// The root identifier and the members of a field path (`c.u.v` -> `c`, [`u`, `v`]).
    fn path(e: &Expr) -> Option<(syn::Ident, Vec<String>)> {
        match e {
            Expr::Field(f) => {
                let (root, mut members) = Self::path(&f.base)?;
                members.push(match &f.member {
                    Member::Named(n) => n.to_string(),
                    Member::Unnamed(i) => i.index.to_string(),
                });
                Some((root, members))
            }
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                let seg = &p.path.segments[0];
                seg.arguments
                    .is_none()
                    .then(|| seg.ident.clone())
                    .map(|i| (i, Vec::new()))
            }
            _ => None,
        }
    }

    /// The identifier for the path `root.members`: the same path always gets the same one.
    fn name_for(&mut self, path: &Expr, root: &str, members: &[String]) -> String {
        let text = path.to_token_stream().to_string().replace(' ', "");
        if let Some(c) = self
            .found
            .iter()
            .find(|c| c.path.to_token_stream().to_string().replace(' ', "") == text)
        {
            return c.name.clone();
        }
        let root = root.strip_prefix("r#").unwrap_or(root);
        let mut name = format!("{root}_{}", members.join("_"));
        while self.used.contains(&name) {
            name.push('_');
        }
        self.used.insert(name.clone());
        self.found.push(FieldCapture {
            name: name.clone(),
            path: path.clone(),
        });
        name
    }
}

impl VisitMut for Flatten {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Field(_) = e
            && let Some((root, members)) = Self::path(e)
            && !self.bound(&root.to_string())
        {
            let name = self.name_for(e, &root.to_string(), &members);
            let span: Span = root.span();
            let ident = syn::Ident::new(&name, span);
            *e = syn::parse_quote!(#ident);
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        self.scopes.push(HashSet::new());
        syn::visit_mut::visit_block_mut(self, b);
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
        self.bind(&l.pat);
    }

    fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
        self.visit_expr_mut(&mut f.expr);
        self.scopes.push(HashSet::new());
        self.bind(&f.pat);
        self.visit_block_mut(&mut f.body);
        self.scopes.pop();
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        self.scopes.push(HashSet::new());
        for p in &c.inputs {
            self.bind(p);
        }
        self.visit_expr_mut(&mut c.body);
        self.scopes.pop();
    }
}
