//! The checks on a kernel body: the supported subset, the captured variables (free identifiers) and
//! the race rules (DESIGN.md decision 4).
//!
//! The walk dispatches on each expression's kind to the check of that construct, in this module's
//! files: `values.rs` (paths, operators, struct literals), `places.rs` (fields, indexing, assignment
//! targets), `methods.rs`, `calls.rs`, `control.rs` (branches, loops, jumps, `match`),
//! `statements.rs`, `output.rs` (`println!`, `panic!`), and `team/` (team kernels' constructs and rules).

use std::collections::HashSet;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{BinOp, Block, Expr, Lit, Pat};

use crate::race::{self, Access, AccessKind, Role};
use crate::subset::SUMMARY;

mod calls;
mod control;
mod methods;
mod output;
mod places;
mod statements;
mod team;
mod values;
pub use calls::mentions_any;
use calls::ref_param_misuse;
pub use calls::{complex_function, is_associated_call, is_constructor, is_device_call};
pub use team::{LEAGUE, TeamAccess, TeamCtx};

/// What is being analysed: a kernel (free identifiers are captures) or a `#[device]` function
/// (they are errors).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Kernel,
    DeviceFn,
    /// A device closure (`kernel!(|x: f64| -> bool { .. })`): captures like a kernel, returns a
    /// value like a device function.
    Closure,
}

/// A `#[device]` function's parameter taken by reference: a View it reads (`u: &View<T, R>`) or an
/// element it may change (`cell: &mut T`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RefParam {
    View,
    Mut,
    /// An atomic View (`h: &AtomicView<T, R>`): reached only through its atomic methods.
    Atomic,
}

/// The result of walking a body.
pub struct Analysis {
    /// Captured names in order of first use, with their roles and where they are first used.
    pub captures: Vec<(String, Role, Span)>,
    /// Whether the body contains `unsafe { }`.
    pub is_unsafe: bool,
    /// Parameters used as `*p` or `p.field` (accumulators, not the scan flag).
    pub dereferenced: HashSet<String>,
    /// Captures used as Views (indexed, `extent`, atomics): the host body borrows them, so their
    /// accessors stay where the launch put them instead of being copied on every iteration.
    pub views: HashSet<String>,
    /// Constants used by name (`N`, `SCALE`): not captured, written as literals in the shadow.
    pub constants: HashSet<String>,
    /// Captured UniqueTokens (`token.acquire()`): captured as tokens.
    pub unique_tokens: HashSet<String>,
    /// Captured random pools (`pool.get_state()`): captured as pools.
    pub random_pools: HashSet<String>,
    /// Captured Views handed whole to `#[device]` functions (`f(&u, i)`): captured as their type
    /// says (`capture::passed`).
    pub passed: HashSet<String>,
    /// The names that are launch constants in index maps (see [`crate::affine::coords`]): the
    /// constants, and captured numbers the body never binds.
    pub launch_constants: HashSet<String>,
    /// The identifiers standing for the iteration index where the race rules rely on it (the
    /// owner positions of written Views): the expansion checks that each resolves to the index
    /// parameter (a name can resolve elsewhere through a `macro_rules!` macro's hygiene).
    pub owner_idents: Vec<syn::Ident>,
    /// Pairs of accesses of written Views whose disjointness each launch checks.
    pub overlaps: Vec<race::OverlapSpec>,
    /// Written Views with a write that is not one to one, and the error that is for a plain View:
    /// the kernel treats them as atomic Views (every access atomic) and requires them to be one.
    pub atomic_only: Vec<(String, syn::Error)>,
    /// Written Views whose plain writes the launch checks (a rank-0 View's `s[()] = v`), with the
    /// error that is for an atomic View: the expansion requires each to be a plain View.
    pub plain_only: Vec<(String, syn::Error)>,
    /// Team kernels: the constants of `c · league_rank + i` index coordinates (see `team_race.rs`).
    pub league_blocks: Vec<String>,
    /// Team kernels: the body relies on one vector lane per thread (`if team.team_rank() == 0`).
    pub one_lane: bool,
    /// Team kernels: (use, binding) pairs of the locals the race rules resolved.
    pub team_witness: Vec<(syn::Ident, syn::Ident)>,
    /// Team kernels: the scratch Views, in declaration order.
    pub scratch: Vec<team::ScratchDecl>,
    pub errors: Vec<syn::Error>,
}

struct Walker {
    mode: Mode,
    scopes: Vec<HashSet<String>>,
    index_params: Vec<String>,
    params: HashSet<String>,
    captures: Vec<(String, Span)>,
    accesses: Vec<(String, Access)>,
    unsafe_depth: usize,
    is_unsafe: bool,
    dereferenced: HashSet<String>,
    views: HashSet<String>,
    constants: HashSet<String>,
    /// Captured UniqueTokens.
    unique_tokens: HashSet<String>,
    /// Captured random pools.
    random_pools: HashSet<String>,
    /// Captured names used as values (not indexed, not the receiver of `extent` or an atomic).
    value_uses: Vec<(String, Span)>,
    /// A device function's parameters taken by reference.
    ref_params: std::collections::HashMap<String, RefParam>,
    /// A team kernel's state (see `team.rs`).
    team: Option<TeamCtx>,
    /// The scope depths at which the team constructs' closures being walked start.
    closure_bases: Vec<usize>,
    /// The (use, binding) pairs the scratch rules resolved.
    team_witness_extra: Vec<(syn::Ident, syn::Ident)>,
    errors: Vec<syn::Error>,
}

/// Walks `body`, whose parameters are `index_params` (the iteration index, whose names may not be
/// rebound) and `other_params`, of which `ref_params` are references (device functions only).
pub fn analyze(
    mode: Mode,
    body: &Expr,
    index_params: &[String],
    other_params: &[String],
    ref_params: &[(String, RefParam)],
) -> Analysis {
    analyze_with(mode, body, index_params, other_params, ref_params, None)
}

/// Walks a team kernel's body: `team` is its member parameter, `acc` a reduction's accumulator.
pub fn analyze_team(body: &Expr, team: &str, acc: Option<&str>) -> Analysis {
    let others: Vec<String> = std::iter::once(team.to_string())
        .chain(acc.map(str::to_string))
        .collect();
    let ctx = TeamCtx::new(team.to_string(), acc.map(str::to_string));
    analyze_with(Mode::Kernel, body, &[], &others, &[], Some(ctx))
}

fn analyze_with(
    mode: Mode,
    body: &Expr,
    index_params: &[String],
    other_params: &[String],
    ref_params: &[(String, RefParam)],
    team: Option<TeamCtx>,
) -> Analysis {
    let mut w = Walker {
        mode,
        scopes: vec![HashSet::new()],
        index_params: index_params.to_vec(),
        params: index_params.iter().chain(other_params).cloned().collect(),
        captures: Vec::new(),
        accesses: Vec::new(),
        unsafe_depth: 0,
        is_unsafe: false,
        dereferenced: HashSet::new(),
        views: HashSet::new(),
        constants: HashSet::new(),
        unique_tokens: HashSet::new(),
        random_pools: HashSet::new(),
        value_uses: Vec::new(),
        ref_params: ref_params.iter().cloned().collect(),
        team,
        closure_bases: Vec::new(),
        team_witness_extra: Vec::new(),
        errors: Vec::new(),
    };
    w.expr(body);
    w.check_value_uses();
    w.finish(body)
}

impl Walker {
    /// A View or array is reached only through its accesses: used as a value it could be handed to
    /// code the race rules do not see.
    fn check_value_uses(&mut self) {
        let mut reported = HashSet::new();
        for (name, span) in std::mem::take(&mut self.value_uses) {
            if self.unique_tokens.contains(&name) && reported.insert(name.clone()) {
                self.errors.push(syn::Error::new(
                    span,
                    format!(
                        "`{name}` is a captured UniqueToken here used as a value; a kernel uses a \
                         token only as `let id = {name}.acquire();`, `{name}.release(id);` and \
                         `{name}.size()`"
                    ),
                ));
                continue;
            }
            if self.random_pools.contains(&name) && reported.insert(name.clone()) {
                self.errors.push(syn::Error::new(
                    span,
                    format!(
                        "`{name}` is a captured random pool here used as a value; a kernel uses a \
                         pool only as `let mut rng = {name}.get_state();` and \
                         `{name}.free_state(rng);`"
                    ),
                ));
                continue;
            }
            if self.views.contains(&name) && reported.insert(name.clone()) {
                self.errors.push(syn::Error::new(
                    span,
                    format!(
                        "`{name}` is a captured View (or array) here used as a value; a kernel reaches \
                         a View only by indexing it (`{name}[i]`), with `{name}.extent(r)` or with an \
                         atomic (`{name}.atomic_add(k, v)`), so it cannot pass it to a function, call \
                         other methods on it or copy it"
                    ),
                ));
            }
        }
    }

    /// The analysis of the walked `body`: its launch constants, the team rules that need the whole
    /// body, and the race rules.
    fn finish(self, body: &Expr) -> Analysis {
        let mut w = self;
        // Launch constants in index maps: captured values (not Views) that the body never binds (so
        // the name means the same value when the kernel is made), and named constants.
        let bound = bound_names(body);
        let captured: HashSet<String> = w.captures.iter().map(|(n, _)| n.clone()).collect();
        let constant = |name: &str| {
            w.constants.contains(name)
                || (captured.contains(name) && !w.views.contains(name) && !bound.contains(name))
        };
        // Loops a barrier separates distinguish no concurrent agents (known only after the walk).
        if let Some(t) = &w.team {
            for (_, a) in &mut w.accesses {
                if let Some(ta) = &mut a.team {
                    t.settle(ta);
                }
            }
        }
        let one_lane = w.team.as_ref().is_some_and(|t| t.one_lane);
        let scratch = match w.team.take() {
            Some(t) => team::team_scratch_rules(
                t,
                &constant,
                &w.captures,
                &mut w.errors,
                &mut w.team_witness_extra,
            ),
            None => Vec::new(),
        };
        let launch_constants: HashSet<String> = w
            .constants
            .iter()
            .chain(
                &w.captures
                    .iter()
                    .map(|(n, _)| n.clone())
                    .collect::<Vec<_>>(),
            )
            .filter(|n| constant(n))
            .cloned()
            .collect();
        let passed = w
            .accesses
            .iter()
            .filter(|(_, a)| a.kind == AccessKind::Passed)
            .map(|(n, _)| n.clone())
            .collect();
        let (captures, found) = race::roles(
            std::mem::take(&mut w.captures),
            std::mem::take(&mut w.accesses),
            &w.index_params,
            &constant,
            &mut w.errors,
        );
        Analysis {
            captures,
            is_unsafe: w.is_unsafe,
            dereferenced: w.dereferenced,
            views: w.views,
            constants: w.constants,
            unique_tokens: w.unique_tokens,
            random_pools: w.random_pools,
            passed,
            launch_constants,
            owner_idents: found.owners,
            overlaps: found.overlaps,
            atomic_only: found.atomic_only,
            plain_only: found.plain_only,
            league_blocks: found.league_blocks,
            one_lane,
            team_witness: found
                .team_witness
                .into_iter()
                .chain(w.team_witness_extra)
                .collect(),
            scratch,
            errors: w.errors,
        }
    }
}

/// Every name a pattern of `body` binds (`let`, `for`, `match` arms, closures' parameters).
fn bound_names(body: &Expr) -> HashSet<String> {
    struct Binds(HashSet<String>);
    impl<'ast> syn::visit::Visit<'ast> for Binds {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut b = Binds(HashSet::new());
    syn::visit::Visit::visit_expr(&mut b, body);
    b.0
}

/// The single identifier of a path expression, if it is one.
pub fn ident_of(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) => path_ident(p),
        Expr::Paren(p) => ident_of(&p.expr),
        Expr::Group(g) => ident_of(&g.expr),
        _ => None,
    }
}

/// The single identifier of a path, if it is one.
fn path_ident(p: &syn::ExprPath) -> Option<String> {
    if p.qself.is_none() && p.path.segments.len() == 1 {
        let seg = &p.path.segments[0];
        seg.arguments.is_none().then(|| seg.ident.to_string())
    } else {
        None
    }
}

/// `e` without parentheses.
pub fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

fn unsupported(tokens: &impl ToTokens, what: &str) -> syn::Error {
    syn::Error::new_spanned(
        tokens,
        format!("{what} is not supported in a kernel; {SUMMARY}"),
    )
}

impl Walker {
    fn err(&mut self, span: Span, msg: impl Into<String>) {
        self.errors.push(syn::Error::new(span, msg.into()));
    }

    /// An error underlining all of `tokens`.
    fn err_spanned(&mut self, tokens: &TokenStream, msg: impl Into<String>) {
        self.errors
            .push(syn::Error::new_spanned(tokens, msg.into()));
    }

    fn is_local(&self, name: &str) -> bool {
        self.scopes.iter().any(|s| s.contains(name)) || self.params.contains(name)
    }

    fn bind(&mut self, name: String, span: Span) {
        if name.starts_with(|c: char| c.is_ascii_uppercase()) {
            self.err(
                span,
                format!(
                    "`{name}`: in a kernel, names starting with an uppercase letter are constants; \
                     name the local in snake_case"
                ),
            );
        }
        if self.index_params.contains(&name) {
            self.err(
                span,
                format!(
                    "the iteration index `{name}` may not be rebound in a kernel (the race rules \
                     rely on it); use another name"
                ),
            );
        }
        self.team_bind(&name, span, false);
        self.scopes.last_mut().expect("scope").insert(name);
    }

    fn use_name(&mut self, name: &str, span: Span) {
        if self.is_local(name) {
            return;
        }
        // `N`, `SCALE`: constants (const items, const generics, statics) are used as values, not
        // captured; the shadow writes their value as a literal.
        if name.starts_with(|c: char| c.is_ascii_uppercase()) && !self.views.contains(name) {
            self.constants.insert(name.to_string());
            return;
        }
        if self.mode == Mode::DeviceFn {
            self.err(
                span,
                format!(
                    "a device function cannot use `{name}` from its surroundings; pass it as a \
                     parameter"
                ),
            );
            return;
        }
        if !self.captures.iter().any(|(n, _)| n == name) {
            self.captures.push((name.to_string(), span));
        }
    }

    fn block(&mut self, b: &Block) {
        self.scopes.push(HashSet::new());
        for s in &b.stmts {
            self.stmt(s);
        }
        self.scopes.pop();
        self.team_prune();
    }

    /// An expression: dispatches to the check of its kind (one method per construct, in this module's
    /// files), after the team constructs (`team.team_for(...)`, see `team/`).
    fn expr(&mut self, e: &Expr) {
        if self.team_construct(e) {
            return;
        }
        match e {
            Expr::Lit(l) => match &l.lit {
                Lit::Int(_) | Lit::Float(_) | Lit::Bool(_) => {}
                other => self.errors.push(unsupported(other, "this literal")),
            },
            Expr::Path(p) => self.path_expr(p),
            Expr::Binary(b) => self.binary(b),
            Expr::Assign(a) => {
                self.place(&a.left);
                self.expr(&a.right);
            }
            Expr::Unary(u) => self.unary(u),
            Expr::Cast(c) => {
                self.expr(&c.expr);
                self.check_type(&c.ty);
            }
            Expr::Paren(p) => self.expr(&p.expr),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Index(ix) => {
                self.index(&ix.expr, &ix.index, AccessKind::Read, e.to_token_stream())
            }
            Expr::MethodCall(m) => self.method_call(m),
            Expr::Call(c) => self.call(c),
            Expr::If(i) => self.if_expr(i),
            Expr::Block(b) => {
                if let Some(l) = &b.label {
                    self.errors.push(unsupported(l, "a labeled block"));
                }
                self.block(&b.block)
            }
            Expr::Unsafe(u) => self.unsafe_block(u),
            Expr::ForLoop(f) => self.for_loop(f),
            Expr::While(w) => self.while_loop(w),
            Expr::Loop(l) => {
                self.team_loop(None, l.span(), |w| w.block(&l.body));
            }
            Expr::Break(b) => self.break_expr(b),
            Expr::Continue(_) => self.team_jump(),
            Expr::Return(r) => self.return_expr(r),
            Expr::Field(f) => self.field(f),
            Expr::Struct(st) => self.struct_literal(st),
            Expr::Array(_) | Expr::Repeat(_) => self.array_value(e),
            Expr::Tuple(t) => self.errors.push(unsupported(
                t,
                "a tuple (tuples appear only as View indices: `a[(i, j)]`)",
            )),
            Expr::Closure(c) => self.errors.push(unsupported(c, "a closure")),
            Expr::Match(m) => self.match_expr(m),
            Expr::Macro(m) => self.kernel_macro(&m.mac),
            Expr::Reference(r) => self.errors.push(unsupported(r, "taking a reference")),
            Expr::Range(r) => self
                .errors
                .push(unsupported(r, "a range outside a `for` loop")),
            other => self.errors.push(unsupported(other, "this expression")),
        }
    }
}

/// Whether a pattern binds a name (an or-pattern's cases may not, in kernels).
fn binds(p: &Pat) -> bool {
    match p {
        Pat::Ident(i) => {
            !i.ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase())
                || i.subpat.is_some()
        }
        Pat::Or(o) => o.cases.iter().any(binds),
        Pat::Paren(p) => binds(&p.pat),
        _ => false,
    }
}

/// Whether `op` is a compound assignment (`+=` ...).
pub fn is_compound(op: &BinOp) -> bool {
    matches!(
        op,
        BinOp::AddAssign(_)
            | BinOp::SubAssign(_)
            | BinOp::MulAssign(_)
            | BinOp::DivAssign(_)
            | BinOp::RemAssign(_)
            | BinOp::BitXorAssign(_)
            | BinOp::BitAndAssign(_)
            | BinOp::BitOrAssign(_)
            | BinOp::ShlAssign(_)
            | BinOp::ShrAssign(_)
    )
}

/// Tokens as text without the spaces `to_string` puts around `::`, `<`, `>`, `(`, `)` and `.`.
pub fn pretty(t: &impl ToTokens) -> String {
    let mut s = crate::subview_range::as_written(t.to_token_stream()).to_string();
    for (from, to) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" < ", "<"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        ("( ", "("),
        (" )", ")"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        (" . ", "."),
        (" ,", ","),
        ("& ", "&"),
    ] {
        s = s.replace(from, to);
    }
    s
}
