//! UniqueTokens in `kernel!` (Kokkos' `int id = token.acquire(); ... token.release(id);`), and
//! random pools, whose states kernels hold the same way (Kokkos' `auto rng = pool.get_state(); ...
//! pool.free_state(rng);`).
//!
//! A pre-pass (before the captures are found) writes every use of a token and of its ids as a
//! marker call, which every later stage sees through:
//! - `let id = token.acquire();` → `let id = __fk_token_acquire(token);` (the only place an id is
//!   made; an iteration holds one id of a token at a time);
//! - `token.release(id);` → `__fk_token_release(token, id);` (a statement);
//! - `token.size()` → `__fk_token_size(token)`;
//! - `id` as a View coordinate (`work[(id, k)]`) → `__fk_token_held(token, id)`, which the race
//!   rules take for an id held from `token`;
//! - `id` anywhere else → `__fk_token_value(id)` (a `usize`).
//!
//! - `let mut rng = pool.get_state();` → `let mut rng = __fk_rand_get(pool);` (an iteration holds one
//!   state of a pool at a time);
//! - `pool.free_state(rng);` → `__fk_rand_free(pool, rng);` (a statement);
//! - `rng` is used only as the receiver of its draws (`rng.drand()`), which stay method calls.
//!
//! The host body calls the runtime's functions of the same names (`ferrokkos::__private`), whose
//! types make the markers what the rules took them for: an id is a `TokenId`, which is made only by
//! `acquire`, is not `Copy`, and is moved by `release` (so a use after the release does not
//! compile), and `token_held` checks that the id is `token`'s. The shadow declares an
//! `fk::TokenHold`, which releases its id whatever way its scope ends.

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, ExprCall, Pat, Stmt};

use crate::analyze::{ident_of, pretty, strip};

const ACQUIRE: &str = "__fk_token_acquire";
const RELEASE: &str = "__fk_token_release";
const SIZE: &str = "__fk_token_size";
const HELD: &str = "__fk_token_held";
const VALUE: &str = "__fk_token_value";
const RAND_GET: &str = "__fk_rand_get";
const RAND_FREE: &str = "__fk_rand_free";

/// Which marker a call is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Marker {
    /// `__fk_token_acquire(token)`.
    Acquire,
    /// `__fk_token_release(token, id)`.
    Release,
    /// `__fk_token_size(token)`.
    Size,
    /// `__fk_token_held(token, id)`: a View coordinate.
    Held,
    /// `__fk_token_value(id)`: the id as a number.
    Value,
    /// `__fk_rand_get(pool)`: a random pool's state taken.
    RandGet,
    /// `__fk_rand_free(pool, rng)`: a random pool's state given back.
    RandFree,
}

impl Marker {
    /// The runtime's function of the marker (under `ferrokkos::__private` for the host, its
    /// `shadow` module for the shadow).
    pub fn function(self) -> &'static str {
        match self {
            Marker::Acquire => "token_acquire",
            Marker::Release => "token_release",
            Marker::Size => "token_size",
            Marker::Held => "token_held",
            Marker::Value => "token_value",
            Marker::RandGet => "rand_get_state",
            Marker::RandFree => "rand_free_state",
        }
    }

    /// The argument that is the token, if the marker has one.
    pub fn token_arg(self) -> Option<usize> {
        match self {
            Marker::Value => None,
            _ => Some(0),
        }
    }
}

/// The marker `c` is, if it is one.
pub fn marker(c: &ExprCall) -> Option<Marker> {
    let Expr::Path(p) = &*c.func else { return None };
    match (p.path.get_ident()?.to_string().as_str(), c.args.len()) {
        (ACQUIRE, 1) => Some(Marker::Acquire),
        (RELEASE, 2) => Some(Marker::Release),
        (SIZE, 1) => Some(Marker::Size),
        (HELD, 2) => Some(Marker::Held),
        (VALUE, 1) => Some(Marker::Value),
        (RAND_GET, 1) => Some(Marker::RandGet),
        (RAND_FREE, 2) => Some(Marker::RandFree),
        _ => None,
    }
}

/// Whether `st` is `let id = token.acquire();` or `let mut rng = pool.get_state();` (their
/// marker forms): a hold that ends with its block.
pub fn acquires(st: &Stmt) -> bool {
    matches!(st, Stmt::Local(l) if l.init.as_ref().is_some_and(|i| matches!(
        strip(&i.expr),
        Expr::Call(c) if matches!(marker(c), Some(Marker::Acquire | Marker::RandGet))
    )))
}

impl Marker {
    /// Whether the marker is a random pool's (its first argument a pool, not a token).
    pub fn is_random(self) -> bool {
        matches!(self, Marker::RandGet | Marker::RandFree)
    }
}

/// What a hold is of: a token's id or a pool's generator state.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Kind {
    Id,
    State,
}

impl Kind {
    /// The method that takes a hold, and the one that gives it back.
    fn methods(self) -> (&'static str, &'static str) {
        match self {
            Kind::Id => ("acquire", "release"),
            Kind::State => ("get_state", "free_state"),
        }
    }

    /// What a hold is, for messages.
    fn what(self) -> &'static str {
        match self {
            Kind::Id => "a token's id",
            Kind::State => "a random pool's state",
        }
    }

    /// The statement that takes a hold.
    fn form(self) -> &'static str {
        match self {
            Kind::Id => "`let id = token.acquire();`",
            Kind::State => "`let mut rng = pool.get_state();`",
        }
    }

    /// The statement that gives a hold back.
    fn give_form(self) -> &'static str {
        match self {
            Kind::Id => "`token.release(id);`",
            Kind::State => "`pool.free_state(rng);`",
        }
    }

    /// Why a hold is refused in a team kernel.
    fn team_message(self) -> &'static str {
        match self {
            Kind::Id => {
                "UniqueToken ids are not supported in team kernels yet; acquire them in a range or \
                 multidimensional kernel"
            }
            Kind::State => {
                "random pool states are not supported in team kernels yet; take them in a range or \
                 multidimensional kernel"
            }
        }
    }

    /// The hold's noun and the verb of giving it back (`id of a token`, `release it`).
    fn one_at_a_time(self) -> (&'static str, &'static str) {
        match self {
            Kind::Id => ("id of a token", "release it"),
            Kind::State => ("state of a pool", "give it back"),
        }
    }

    /// The kind a method taking a hold (`acquire`, `get_state`) makes.
    fn of_take(method: &str) -> Option<Kind> {
        match method {
            "acquire" => Some(Kind::Id),
            "get_state" => Some(Kind::State),
            _ => None,
        }
    }

    /// The kind a method giving a hold back (`release`, `free_state`) ends.
    fn of_give(method: &str) -> Option<Kind> {
        match method {
            "release" => Some(Kind::Id),
            "free_state" => Some(Kind::State),
            _ => None,
        }
    }
}

/// The token named by a `__fk_token_held(token, id)` coordinate `e`, if it is one.
pub fn held_token(e: &Expr) -> Option<String> {
    match strip(e) {
        Expr::Call(c) if marker(c) == Some(Marker::Held) => ident_of(&c.args[0]),
        _ => None,
    }
}

/// The first coordinate of `index` that is an id held from a token: its place and the token.
pub fn held_coordinate(index: &Expr) -> Option<(usize, String)> {
    match strip(index) {
        Expr::Tuple(t) => t
            .elems
            .iter()
            .enumerate()
            .find_map(|(k, e)| held_token(e).map(|t| (k, t))),
        e => held_token(e).map(|t| (0, t)),
    }
}

/// The race rule of a View that a kernel writes at an id held from a token (one of `accesses`
/// has a held coordinate): every access outside `unsafe` is at an id held from the same token in
/// the same place of the index. Then no two threads touch one element at the same time (each
/// holds a different id), and holders of one id follow one another.
pub fn check_held(name: &str, accesses: &[&crate::race::Access], errors: &mut Vec<syn::Error>) {
    use crate::race::AccessKind;
    let Some((first, (place, token))) = accesses
        .iter()
        .filter(|a| !a.in_unsafe)
        .find_map(|a| held_coordinate(&a.index).map(|h| (*a, h)))
    else {
        return;
    };
    for a in accesses.iter().filter(|a| !a.in_unsafe) {
        if !matches!(a.kind, AccessKind::Read | AccessKind::Write) {
            continue;
        }
        if held_coordinate(&a.index).as_ref() == Some(&(place, token.clone())) {
            continue;
        }
        let what = if a.kind == AccessKind::Write {
            "writes"
        } else {
            "reads"
        };
        errors.push(syn::Error::new_spanned(
            &a.tokens,
            format!(
                "the kernel writes View `{name}` at `{name}[{}]`, whose coordinate {place} is an id \
                 held from UniqueToken `{token}`: an iteration owns those elements only while it \
                 holds the id, so every access of `{name}` must be at an id held from `{token}` in \
                 coordinate {place}, but here it {what} `{name}[{}]`",
                pretty(&first.index),
                pretty(&a.index)
            ),
        ));
    }
}

/// A binding of a hold in the pre-pass's scopes: the token's (or pool's) expression, what it
/// holds, and whether the block gave it back already.
struct Held {
    token: Expr,
    kind: Kind,
    released: bool,
}

/// The pre-pass (see the module's documentation); `team`: the kernel is a team kernel, where
/// tokens and pools are not supported yet.
pub fn rewrite(body: &mut Expr, team: bool) -> Vec<syn::Error> {
    let mut tokens = HashSet::new();
    collect_tokens(body, &mut tokens);
    if tokens.is_empty() {
        return Vec::new();
    }
    let mut r = Rewrite {
        tokens,
        scopes: vec![Vec::new()],
        team,
        errors: Vec::new(),
    };
    r.visit_expr_mut(body);
    r.errors
}

/// The receivers of `.acquire()` and `.get_state()` (as text, with the kind they hold): the
/// tokens and pools of the body.
fn collect_tokens(body: &Expr, out: &mut HashSet<(String, Kind)>) {
    struct Find<'a>(&'a mut HashSet<(String, Kind)>);
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            if let Some(kind) = Kind::of_take(&m.method.to_string())
                && m.args.is_empty()
            {
                self.0.insert((key(&m.receiver), kind));
            }
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    syn::visit::Visit::visit_expr(&mut Find(out), body);
}

/// A receiver's text, the same for every occurrence of one path.
fn key(e: &Expr) -> String {
    strip(e).to_token_stream().to_string()
}

struct Rewrite {
    /// The tokens and pools, with what they hold.
    tokens: HashSet<(String, Kind)>,
    /// Per block, the names it bound in order: `Some` for a hold, `None` for anything else.
    scopes: Vec<Vec<(String, Option<Held>)>>,
    team: bool,
    errors: Vec<syn::Error>,
}

fn call(name: &str, span: Span, args: TokenStream) -> Expr {
    let f = syn::Ident::new(name, span);
    syn::parse2(quote_spanned!(span=> #f(#args))).expect("a call")
}

impl Rewrite {
    fn err(&mut self, span: Span, msg: impl Into<String>) {
        self.errors.push(syn::Error::new(span, msg.into()));
    }

    /// Whether `receiver` is a token or pool of `kind`.
    fn is_holder(&self, receiver: &Expr, kind: Kind) -> bool {
        self.tokens.contains(&(key(receiver), kind))
    }

    /// The binding `name` resolves to, if it is a hold.
    fn id(&self, name: &str) -> Option<&Held> {
        for scope in self.scopes.iter().rev() {
            if let Some((_, b)) = scope.iter().rev().find(|(n, _)| n == name) {
                return b.as_ref();
            }
        }
        None
    }

    /// The name of an id that `e` is, if it is one.
    fn id_name(&self, e: &Expr) -> Option<String> {
        ident_of(e).filter(|n| self.id(n).is_some_and(|h| h.kind == Kind::Id))
    }

    /// The name of a held generator state that `e` is, if it is one.
    fn state_name(&self, e: &Expr) -> Option<String> {
        ident_of(e).filter(|n| self.id(n).is_some_and(|h| h.kind == Kind::State))
    }

    fn bind(&mut self, name: String, held: Option<Held>) {
        self.scopes.last_mut().expect("a scope").push((name, held));
    }

    /// Every name `p` binds, bound as a plain value.
    fn bind_pat(&mut self, p: &Pat) {
        struct Names<'a>(&'a mut Vec<String>);
        impl<'ast> syn::visit::Visit<'ast> for Names<'_> {
            fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
                self.0.push(p.ident.to_string());
                syn::visit::visit_pat_ident(self, p);
            }
        }
        let mut names = Vec::new();
        syn::visit::Visit::visit_pat(&mut Names(&mut names), p);
        for n in names {
            self.bind(n, None);
        }
    }

    /// The hold of `token` held now (not given back in the block that took it), if any.
    fn held_of(&self, token: &str) -> Option<String> {
        self.scopes.iter().flatten().find_map(|(n, b)| {
            b.as_ref()
                .filter(|b| !b.released && key(&b.token) == token)
                .map(|_| n.clone())
        })
    }

    /// `let id = token.acquire();` or `let mut rng = pool.get_state();`, if `l` is one
    /// (rewritten, the hold bound).
    fn acquire_let(&mut self, l: &mut syn::Local) -> bool {
        let Some(init) = &l.init else { return false };
        let Expr::MethodCall(m) = strip(&init.expr) else {
            return false;
        };
        let Some(kind) = Kind::of_take(&m.method.to_string()) else {
            return false;
        };
        if !m.args.is_empty() || !self.is_holder(&m.receiver, kind) {
            return false;
        }
        let (_, give) = kind.methods();
        let span = m.method.span();
        if self.team {
            self.err(span, kind.team_message());
        }
        if m.turbofish.is_some() || init.diverge.is_some() {
            self.err(span, format!("{} is taken as {}", kind.what(), kind.form()));
        }
        let token = (*m.receiver).clone();
        let name = match &l.pat {
            Pat::Ident(p)
                if (p.mutability.is_none() || kind == Kind::State)
                    && p.by_ref.is_none()
                    && p.subpat.is_none() =>
            {
                p.ident.to_string()
            }
            other => {
                let rule = match kind {
                    Kind::Id => "not `mut`, not a pattern or a typed binding",
                    Kind::State => "not a pattern or a typed binding",
                };
                let msg = format!(
                    "{} is bound to a plain name: {} ({rule})",
                    kind.what(),
                    kind.form()
                );
                self.err(other.span(), msg);
                return true;
            }
        };
        if let Some(other) = self.held_of(&key(&token)) {
            let t = pretty(&token);
            let (noun, verb) = kind.one_at_a_time();
            self.err(
                span,
                format!(
                    "this iteration holds `{other}` from `{t}` already: an iteration holds one \
                     {noun} at a time ({verb} first with `{t}.{give}({other});`)"
                ),
            );
        }
        let init = l.init.as_mut().expect("checked");
        let marker = match kind {
            Kind::Id => ACQUIRE,
            Kind::State => RAND_GET,
        };
        *init.expr = call(marker, span, token.to_token_stream());
        self.bind(
            name,
            Some(Held {
                token,
                kind,
                released: false,
            }),
        );
        true
    }

    /// `token.release(id);` or `pool.free_state(rng);`, if `e` is one (rewritten; the hold given
    /// back if this block bound it).
    fn release_stmt(&mut self, e: &mut Expr) -> bool {
        let Expr::MethodCall(m) = strip(e) else {
            return false;
        };
        let Some(kind) = Kind::of_give(&m.method.to_string()) else {
            return false;
        };
        let arg = match m.args.iter().collect::<Vec<_>>().as_slice() {
            [a] => ident_of(a).filter(|n| self.id(n).is_some_and(|h| h.kind == kind)),
            _ => None,
        };
        if !self.is_holder(&m.receiver, kind) && arg.is_none() {
            return false;
        }
        let (take, give) = kind.methods();
        let span = m.method.span();
        let token = key(&m.receiver);
        if let Some(id) = &arg
            && let Some(b) = self.id(id)
            && key(&b.token) != token
        {
            let (what, verb) = match kind {
                Kind::Id => ("an id", "released"),
                Kind::State => ("a state", "given back"),
            };
            let msg = format!(
                "`{id}` is {what} of `{}`, so it is {verb} by `{}.{give}({id})`, not by `{}`",
                pretty(&b.token),
                pretty(&b.token),
                pretty(&m.receiver)
            );
            self.err(span, msg);
            return true;
        }
        let Some(id) = arg else {
            let r = pretty(&m.receiver);
            let bound = match kind {
                Kind::Id => "let id",
                Kind::State => "let mut rng",
            };
            let held = match kind {
                Kind::Id => "id",
                Kind::State => "rng",
            };
            self.err(
                span,
                format!("`{r}.{give}({held})` takes what `{bound} = {r}.{take}();` holds"),
            );
            return true;
        };
        let receiver = (*m.receiver).clone();
        if let Some((_, Some(b))) = self
            .scopes
            .last_mut()
            .expect("a scope")
            .iter_mut()
            .rev()
            .find(|(n, _)| *n == id)
        {
            b.released = true;
        }
        let id = syn::Ident::new(&id, m.args[0].span());
        let marker = match kind {
            Kind::Id => RELEASE,
            Kind::State => RAND_FREE,
        };
        *e = call(marker, span, quote!(#receiver, #id));
        true
    }

    fn block(&mut self, b: &mut syn::Block) {
        self.scopes.push(Vec::new());
        for s in &mut b.stmts {
            match s {
                Stmt::Local(l) => {
                    if !self.acquire_let(l) {
                        if let Some(init) = &mut l.init {
                            self.visit_expr_mut(&mut init.expr);
                            if let Some((_, e)) = &mut init.diverge {
                                self.visit_expr_mut(e);
                            }
                        }
                        self.bind_pat(&l.pat);
                    }
                }
                Stmt::Expr(e, semi) => {
                    let _ = semi;
                    if !self.release_stmt(e) {
                        self.visit_expr_mut(e);
                    }
                }
                Stmt::Macro(m) => self.visit_stmt_macro_mut(m),
                Stmt::Item(_) => {}
            }
        }
        self.scopes.pop();
    }

    /// A View index: coordinates that are ids become held coordinates.
    fn index(&mut self, index: &mut Expr) {
        let held = |r: &Self, e: &Expr| -> Option<Expr> {
            let name = r.id_name(e)?;
            let token = r.id(&name)?.token.clone();
            let id = syn::Ident::new(&name, e.span());
            Some(call(HELD, e.span(), quote!(#token, #id)))
        };
        match index {
            Expr::Tuple(t) => {
                for e in &mut t.elems {
                    match held(self, e) {
                        Some(h) => *e = h,
                        None => self.visit_expr_mut(e),
                    }
                }
            }
            Expr::Paren(p) => self.index(&mut p.expr),
            e => match held(self, e) {
                Some(h) => *e = h,
                None => self.visit_expr_mut(e),
            },
        }
    }
}

impl Rewrite {
    /// A method call of a token, a pool or a held state outside the statements that take and give
    /// back holds: refused (a take or give-back in an expression), rewritten (`token.size()`), or
    /// a draw (`rng.drand()`, which stays a method call with its receiver as it is). Whether `e`
    /// was one.
    fn hold_method(&mut self, e: &mut Expr) -> bool {
        let Expr::MethodCall(m) = e else { return false };
        let method = m.method.to_string();
        let span = m.method.span();
        if let Some(kind) = Kind::of_take(&method)
            && m.args.is_empty()
            && self.is_holder(&m.receiver, kind)
        {
            let verb = match kind {
                Kind::Id => "acquired",
                Kind::State => "taken",
            };
            let msg = format!(
                "{} is {verb} only as a statement of its own: {}",
                kind.what(),
                kind.form()
            );
            self.err(span, msg);
            return true;
        }
        if let Some(kind) = Kind::of_give(&method)
            && self.is_holder(&m.receiver, kind)
        {
            let verb = match kind {
                Kind::Id => "released",
                Kind::State => "given back",
            };
            let msg = format!(
                "{} is {verb} only as a statement of its own: {}",
                kind.what(),
                kind.give_form()
            );
            self.err(span, msg);
            return true;
        }
        if method == "size" && m.args.is_empty() && self.is_holder(&m.receiver, Kind::Id) {
            let token = (*m.receiver).clone();
            *e = call(SIZE, span, token.to_token_stream());
            return true;
        }
        if self.state_name(&m.receiver).is_some() {
            for a in &mut m.args {
                self.visit_expr_mut(a);
            }
            return true;
        }
        false
    }
}

impl VisitMut for Rewrite {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        self.block(b);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if self.hold_method(e) {
            return;
        }
        match e {
            Expr::Index(ix) => {
                self.visit_expr_mut(&mut ix.expr);
                self.index(&mut ix.index);
            }
            Expr::Path(_) if self.state_name(e).is_some() => {
                let name = self.state_name(e).expect("checked");
                let pool = self.id(&name).map(|h| pretty(&h.token)).unwrap_or_default();
                self.err(
                    e.span(),
                    format!(
                        "`{name}` is a state held from random pool `{pool}`: a kernel uses it \
                         only through its draws (`{name}.drand()`, `{name}.urand_below(n)`, ...) \
                         and gives it back with `{pool}.free_state({name});`"
                    ),
                );
            }
            Expr::Path(_) if self.id_name(e).is_some() => {
                let span = e.span();
                *e = call(VALUE, span, e.to_token_stream());
            }
            Expr::ForLoop(f) => {
                self.visit_expr_mut(&mut f.expr);
                self.scopes.push(Vec::new());
                self.bind_pat(&f.pat);
                self.block(&mut f.body);
                self.scopes.pop();
            }
            Expr::Closure(c) => {
                self.scopes.push(Vec::new());
                for p in &c.inputs {
                    self.bind_pat(p);
                }
                self.visit_expr_mut(&mut c.body);
                self.scopes.pop();
            }
            Expr::Match(m) => {
                self.visit_expr_mut(&mut m.expr);
                for arm in &mut m.arms {
                    self.scopes.push(Vec::new());
                    self.bind_pat(&arm.pat);
                    if let Some((_, g)) = &mut arm.guard {
                        self.visit_expr_mut(g);
                    }
                    self.visit_expr_mut(&mut arm.body);
                    self.scopes.pop();
                }
            }
            // `if let` / `while let` bind in their block: a scope around the whole expression.
            Expr::If(_) | Expr::While(_) => {
                self.scopes.push(Vec::new());
                visit_mut::visit_expr_mut(self, e);
                self.scopes.pop();
            }
            Expr::Let(l) => {
                self.visit_expr_mut(&mut l.expr);
                self.bind_pat(&l.pat);
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// The marker call `c` as the host body's call of the runtime's function: the token and a held id
/// by reference, a released id by value.
pub fn host(c: &mut ExprCall, marker: Marker) {
    let span = match &*c.func {
        Expr::Path(p) => p.path.segments[0].ident.span(),
        _ => Span::call_site(),
    };
    let f = syn::Ident::new(marker.function(), span);
    *c.func = syn::parse2(quote_spanned!(span=> ::ferrokkos::__private::#f)).expect("a path");
    for (k, a) in c.args.iter_mut().enumerate() {
        let by_value = matches!(marker, Marker::Release | Marker::RandFree) && k == 1;
        if !by_value {
            *a = syn::parse2(quote_spanned!(a.span()=> &#a)).expect("a reference");
        }
    }
}

/// `e` as the user wrote it, if it is a marker (for messages).
pub fn as_written(c: &ExprCall) -> Option<Expr> {
    let m = marker(c)?;
    let a = |k: usize| c.args[k].clone();
    Some(match m {
        Marker::Acquire => {
            let t = a(0);
            syn::parse_quote!(#t.acquire())
        }
        Marker::Release => {
            let (t, id) = (a(0), a(1));
            syn::parse_quote!(#t.release(#id))
        }
        Marker::Size => {
            let t = a(0);
            syn::parse_quote!(#t.size())
        }
        Marker::Held => a(1),
        Marker::Value => a(0),
        Marker::RandGet => {
            let p = a(0);
            syn::parse_quote!(#p.get_state())
        }
        Marker::RandFree => {
            let (p, g) = (a(0), a(1));
            syn::parse_quote!(#p.free_state(#g))
        }
    })
}
