//! The team constructs a team body may contain (see the parent module): the member's methods,
//! nested ranges' patterns and `single`, where each may stand, and their closures.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, ExprClosure, Pat};

use super::super::{Walker, ident_of, strip};
use super::{Frame, QUERIES, RangeKind};

impl Walker {
    /// Walks `e` if it is a team construct (a nested range's pattern, `single`, a call of the team
    /// member); returns whether it was one.
    pub(in super::super) fn team_construct(&mut self, e: &Expr) -> bool {
        let Some(t) = &self.team else { return false };
        let team = t.name.clone();
        match e {
            Expr::MethodCall(m) if ident_of(&m.receiver).as_deref() == Some(team.as_str()) => {
                self.team_method(m);
                true
            }
            Expr::MethodCall(m)
                if ["parallel_for", "parallel_reduce", "parallel_scan"]
                    .contains(&m.method.to_string().as_str())
                    && range_constructor(&m.receiver).is_some() =>
            {
                self.nested_range(m);
                true
            }
            Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "single")) =>
            {
                self.single(c);
                true
            }
            _ => false,
        }
    }

    fn team_method(&mut self, m: &syn::ExprMethodCall) {
        let name = m.method.to_string();
        if QUERIES.contains(&name.as_str()) {
            if !m.args.is_empty() {
                self.err(m.span(), format!("`{name}` takes no arguments"));
            }
            return;
        }
        match name.as_str() {
            "team_barrier" => {
                if !m.args.is_empty() {
                    self.err(m.span(), "`team_barrier` takes no arguments");
                }
                self.team_collective(m.span(), "`team_barrier()`");
                let depth = self.scopes.len();
                if let Some(t) = &mut self.team {
                    t.next_phase();
                    if let Some(Frame::Loop {
                        agent, body_depth, ..
                    }) = t
                        .frames
                        .iter()
                        .rev()
                        .find(|f| matches!(f, Frame::Loop { .. }))
                        && *body_depth == depth
                    {
                        let agent = agent.clone();
                        t.separated.insert(agent);
                    }
                }
            }
            "team_broadcast" => {
                if m.args.len() != 2 {
                    self.err(
                        m.span(),
                        "`team_broadcast` takes the value and the source thread's team rank",
                    );
                }
                for a in &m.args {
                    self.expr(a);
                }
                if let Some(source) = m.args.iter().nth(1)
                    && !self.team_uniform(source)
                {
                    self.err_spanned(
                        &source.to_token_stream(),
                        format!(
                            "the source of `team_broadcast` must be the same team rank on every \
                             thread of the team ({UNIFORM}); `{}` may differ between threads, which \
                             would then take the value from different threads and write the \
                             broadcast's shared slot at once",
                            crate::analyze::pretty(source)
                        ),
                    );
                }
                self.team_collective(m.span(), "`team_broadcast`");
            }
            "team_scratch" | "thread_scratch" => self.err(
                m.span(),
                format!(
                    "a team kernel reaches scratch memory only by declaring a scratch View at \
                     team level: `let tile = {}.{name}(0).view::<f64, 2>([n, n]);`",
                    m.receiver.to_token_stream()
                ),
            ),
            _ => self.err(
                m.method.span(),
                format!(
                    "`{name}` is not a team member method a kernel can call; a team kernel calls \
                     `league_rank`, `league_size`, `team_rank`, `team_size`, `vector_length`, \
                     `team_barrier` and `team_broadcast`"
                ),
            ),
        }
    }

    /// A collective of the whole team here: it must be at team level, under uniform control flow.
    fn team_collective(&mut self, span: Span, what: &str) {
        let Some(t) = &mut self.team else { return };
        let problem = if !t.at_team_level() {
            Some("inside a nested range or `single`, where not every thread of the team reaches it")
        } else if t.varying() {
            Some(
                "under a condition (or loop bound) that may differ between the team's threads; \
                 every thread must reach it (a condition of the league rank, captured values and \
                 results of team-wide reductions is fine)",
            )
        } else {
            None
        };
        for f in &mut t.frames {
            if let Frame::Loop { collective, .. } = f {
                *collective = true;
            }
        }
        if let Some(p) = problem {
            self.err(
                span,
                format!(
                    "{what} synchronises the whole team, but it stands {p}; on a GPU that would \
                     deadlock or give wrong results"
                ),
            );
        }
    }

    /// Where a construct that nests may stand: `thread_level` constructs (vector ranges,
    /// `single(PerThread)`) at team level or directly in a `TeamThreadRange`; others at team level.
    fn nesting(&mut self, span: Span, what: &str, thread_level: bool) {
        let Some(t) = &self.team else { return };
        let inner: Vec<&Frame> = t
            .frames
            .iter()
            .filter(|f| matches!(f, Frame::Range { .. } | Frame::Single { .. }))
            .collect();
        let ok = match inner.as_slice() {
            [] => true,
            [
                Frame::Range {
                    kind: RangeKind::TeamThread,
                    ..
                },
            ] => thread_level,
            _ => false,
        };
        if !ok {
            let place = if thread_level {
                "at team level or directly inside a `TeamThreadRange`"
            } else {
                "at team level (outside every nested range and `single`)"
            };
            self.err(span, format!("{what} may stand only {place}, as in Kokkos"));
        }
    }

    /// A nested range's pattern: `X::new(team, ..).parallel_for(..)` (or `parallel_reduce`,
    /// `parallel_scan`).
    fn nested_range(&mut self, m: &syn::ExprMethodCall) {
        let (kind_name, ctor) = range_constructor(&m.receiver).expect("checked by the caller");
        let md = kind_name == "TeamThreadMDRange";
        let Some(kind) = RangeKind::of(&kind_name) else {
            self.err(
                m.receiver.span(),
                format!(
                    "`{kind_name}` is not a nested range of team `kernel!`s; use \
                     `TeamThreadRange`, `ThreadVectorRange`, `TeamVectorRange` or \
                     `TeamThreadMDRange`"
                ),
            );
            return;
        };
        let pattern = m.method.to_string();
        let Some((begin, end, rank)) = self.range_bounds(ctor, &kind_name, md) else {
            return;
        };
        if let (Some(b), Some(e)) = (begin, end) {
            self.expr(b);
            self.expr(e);
        }
        // A range spread over the team's threads gives index `begin + k` to thread `k % threads`:
        // each index belongs to one thread only if every thread has the same bounds.
        if kind.covers_threads() {
            self.uniform_bounds(ctor, begin, end, &kind_name);
        }
        let what = format!("`{kind_name}`");
        self.nesting(m.span(), &what, kind == RangeKind::ThreadVector);
        let Some(closure) = self.range_closure(m, &pattern, md, kind, &what) else {
            return;
        };
        let zero_to = match (begin.is_some_and(literal_zero), end.and_then(ident_of)) {
            (true, Some(c)) if !self.is_local(&c) => Some(c),
            _ => None,
        };
        let fixed = self.names_no_local(ctor);
        self.team_closure(closure, rank, |w, names| {
            let mut agents = Vec::new();
            for name in &names[..rank.min(names.len())] {
                let agent = w.team.as_mut().map(|t| t.fresh_agent()).unwrap_or_default();
                if let Some(t) = &mut w.team
                    && let Some((_, _, l)) = t.locals.iter_mut().rev().find(|(n, _, _)| n == name)
                {
                    l.agent = Some(agent.clone());
                }
                agents.push(agent);
            }
            let scope = w.team.as_mut().map_or(0, |t| {
                t.next_id += 1;
                t.next_id
            });
            Frame::Range {
                kind,
                agents,
                zero_to,
                fixed,
                scope,
            }
        });
    }

    /// Whether the bounds of the range constructor `ctor` (its arguments after the team member)
    /// name no local of the body.
    fn names_no_local(&self, ctor: &syn::ExprCall) -> bool {
        fn idents(ts: proc_macro2::TokenStream, out: &mut Vec<String>) {
            for t in ts {
                match t {
                    proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
                    proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
                    _ => {}
                }
            }
        }
        let mut names = Vec::new();
        for a in ctor.args.iter().skip(1) {
            idents(a.to_token_stream(), &mut names);
        }
        names.iter().all(|n| !self.is_local(n))
    }

    /// A nested range's bounds: `begin, end` (rank 1), or a TeamThreadMDRange's extents
    /// `[e0, e1(, e2)]` (walked here; no `begin` and `end`). `None` after an error.
    fn range_bounds<'e>(
        &mut self,
        ctor: &'e syn::ExprCall,
        kind_name: &str,
        md: bool,
    ) -> Option<(Option<&'e Expr>, Option<&'e Expr>, usize)> {
        let team = self
            .team
            .as_ref()
            .map(|t| t.name.clone())
            .unwrap_or_default();
        let team_first = ctor.args.first().and_then(ident_of).as_deref() == Some(team.as_str());
        match (md, ctor.args.len(), ctor.args.iter().nth(1).map(strip)) {
            (false, 3, _) if team_first => Some((Some(&ctor.args[1]), Some(&ctor.args[2]), 1)),
            (true, 2, Some(Expr::Array(a))) if team_first && (2..=3).contains(&a.elems.len()) => {
                for e in &a.elems {
                    self.expr(e);
                }
                Some((None, None, a.elems.len()))
            }
            _ => {
                let form = if md {
                    format!("`TeamThreadMDRange::new({team}, [e0, e1])` (rank 2 or 3)")
                } else {
                    format!("`{kind_name}::new({team}, begin, end)`")
                };
                self.err(ctor.span(), format!("a nested range is {form}"));
                None
            }
        }
    }

    /// Checks that the bounds of a range spread over the team's threads are the same on every
    /// thread.
    fn uniform_bounds(
        &mut self,
        ctor: &syn::ExprCall,
        begin: Option<&Expr>,
        end: Option<&Expr>,
        kind_name: &str,
    ) {
        let bounds: Vec<&Expr> = match (begin, end, ctor.args.iter().nth(1).map(strip)) {
            (Some(b), Some(e), _) => vec![b, e],
            (_, _, Some(Expr::Array(a))) => a.elems.iter().collect(),
            _ => vec![],
        };
        for b in bounds {
            if !self.team_uniform(b) {
                self.err_spanned(
                    &b.to_token_stream(),
                    format!(
                        "the bounds of `{kind_name}` must be the same on every thread of the \
                         team ({UNIFORM}); `{}` may differ between threads, so an index could \
                         belong to two threads (or none)",
                        crate::analyze::pretty(b)
                    ),
                );
            }
        }
    }

    /// The closure of a nested range's `pattern` (`parallel_for`, `parallel_reduce`,
    /// `parallel_scan`), after the checks of the pattern's arguments (and the reducer's). `None`
    /// after an error.
    fn range_closure<'e>(
        &mut self,
        m: &'e syn::ExprMethodCall,
        pattern: &str,
        md: bool,
        kind: RangeKind,
        what: &str,
    ) -> Option<&'e syn::ExprClosure> {
        let params = match pattern {
            "parallel_for" => 1,
            "parallel_reduce" => 2,
            _ => 3,
        };
        if md && params == 3 {
            self.err(
                m.span(),
                "a `TeamThreadMDRange` has `parallel_for` and `parallel_reduce`",
            );
            return None;
        }
        let wanted_args = if params == 1 { 1 } else { 2 };
        if m.args.len() != wanted_args {
            let form = match params {
                1 => "`.parallel_for(|i| ..)`",
                2 => "`.parallel_reduce(|i, acc| .., Sum::new())`",
                _ => "`.parallel_scan(|i, partial, is_final| .., Sum::new())`",
            };
            self.err(m.span(), format!("a nested {pattern} is {form}"));
            return None;
        }
        if params > 1 {
            if kind != RangeKind::ThreadVector {
                self.team_collective(m.span(), &format!("a {pattern} over {what}"));
            }
            reducer_arg(self, &m.args[1]);
        }
        let Expr::Closure(closure) = strip(&m.args[0]) else {
            self.err(
                m.args[0].span(),
                format!("a nested {pattern} takes a closure written in place"),
            );
            return None;
        };
        if closure.inputs.len() != params {
            self.err(
                closure.span(),
                format!("this closure takes {params} parameter(s) for a nested {pattern}"),
            );
            return None;
        }
        Some(closure)
    }

    fn single(&mut self, c: &syn::ExprCall) {
        let team = self
            .team
            .as_ref()
            .map(|t| t.name.clone())
            .unwrap_or_default();
        let scope_arg = c.args.first().map(strip);
        let per_team = match scope_arg {
            Some(Expr::Call(s))
                if s.args.len() == 1 && ident_of(&s.args[0]).as_deref() == Some(team.as_str()) =>
            {
                match &*s.func {
                    Expr::Path(p) if p.path.is_ident("PerTeam") => Some(true),
                    Expr::Path(p) if p.path.is_ident("PerThread") => Some(false),
                    _ => None,
                }
            }
            _ => None,
        };
        let (Some(per_team), 2) = (per_team, c.args.len()) else {
            self.err(
                c.span(),
                format!(
                    "`single` is `single(PerTeam({team}), || ..)` or `single(PerThread({team}), || ..)`"
                ),
            );
            return;
        };
        let what = if per_team {
            "`single(PerTeam(..))`"
        } else {
            "`single(PerThread(..))`"
        };
        self.nesting(c.span(), what, !per_team);
        if per_team {
            self.team_collective(c.span(), what);
        }
        let Expr::Closure(closure) = strip(&c.args[1]) else {
            self.err(
                c.args[1].span(),
                "`single` takes a closure written in place: `|| ..`",
            );
            return;
        };
        if !closure.inputs.is_empty() {
            self.err(
                closure.span(),
                "the closure of `single` takes no parameters",
            );
            return;
        }
        self.team_closure(closure, 0, |w, _| {
            let scope = w.team.as_mut().map_or(0, |t| {
                t.next_id += 1;
                t.next_id
            });
            Frame::Single { per_team, scope }
        });
    }

    /// Walks a construct's closure: binds its parameters (the first is the index, `rank` names,
    /// a tuple of them for a rank above 1; a second and third of a reduction or scan are its
    /// accumulator and flag), pushes the frame `frame` makes from the parameter names (the index's
    /// first), and walks the body.
    fn team_closure(
        &mut self,
        closure: &ExprClosure,
        rank: usize,
        frame: impl FnOnce(&mut Walker, &[String]) -> Frame,
    ) {
        if closure.asyncness.is_some() || closure.constness.is_some() {
            self.err(closure.span(), "a team construct takes a plain closure");
        }
        self.scopes.push(Default::default());
        let mut names = Vec::new();
        for (k, p) in closure.inputs.iter().enumerate() {
            if k == 0 && rank > 1 {
                match tuple_param(p) {
                    Some(idents) if idents.len() == rank => {
                        for i in idents {
                            names.push(i.to_string());
                            self.bind(i.to_string(), i.span());
                        }
                    }
                    _ => self.err(
                        p.span(),
                        format!("this range's index is a tuple of {rank} names: `|(i, j)|`"),
                    ),
                }
                continue;
            }
            let Some(name) = closure_param(p) else {
                self.err(
                    p.span(),
                    "a closure parameter here is a name (`i`, `acc: &mut f64`)",
                );
                continue;
            };
            names.push(name.to_string());
            if k == 1 && closure.inputs.len() >= 2 {
                // The accumulator (or partial value): dereferenced like a kernel's accumulator.
                self.params.insert(name.to_string());
            } else {
                self.bind(name.to_string(), name.span());
            }
        }
        let f = frame(self, &names);
        if let Some(t) = &mut self.team {
            t.frames.push(f);
        }
        let base = self.scopes.len();
        self.closure_bases.push(base);
        self.expr(&closure.body);
        self.closure_bases.pop();
        if let Some(t) = &mut self.team {
            t.frames.pop();
        }
        if closure.inputs.len() >= 2
            && let Some(acc) = closure.inputs.iter().nth(1).and_then(closure_param)
        {
            self.params.remove(&acc.to_string());
        }
        self.scopes.pop();
        self.team_prune();
    }
}

/// What every thread of a team computes alike, for the messages that require it.
const UNIFORM: &str = "literals, constants, captured values, the league rank and size, the team \
                       size, reads of Views the kernel does not write at such indices, and \
                       immutable locals of those";

/// Whether `c` is `single(PerTeam(team), ..)`.
pub(super) fn is_single_per_team(c: &syn::ExprCall, team: &str) -> bool {
    matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "single"))
        && matches!(c.args.first().map(strip), Some(Expr::Call(s))
            if s.args.len() == 1
                && ident_of(&s.args[0]).as_deref() == Some(team)
                && matches!(&*s.func, Expr::Path(p) if p.path.is_ident("PerTeam")))
}

/// `X::new(team, b, e)`: the type name and the call.
pub(super) fn range_constructor(e: &Expr) -> Option<(String, &syn::ExprCall)> {
    let Expr::Call(c) = strip(e) else { return None };
    let Expr::Path(p) = &*c.func else { return None };
    let segs: Vec<&syn::PathSegment> = p.path.segments.iter().collect();
    match segs.as_slice() {
        [.., ty, f] if f.ident == "new" => {
            let name = ty.ident.to_string();
            (name.ends_with("Range") || name == "TeamThreadMDRange").then_some((name, c))
        }
        _ => None,
    }
}

/// A nested reduction's reducer: a constructor call without arguments (`Sum::new()`,
/// `Max::<f64>::new()`), evaluated on the host.
fn reducer_arg(w: &mut Walker, e: &Expr) {
    let ok = match strip(e) {
        Expr::Call(c) => {
            c.args.is_empty() && matches!(&*c.func, Expr::Path(p) if p.qself.is_none())
        }
        // A unit reducer (`LAnd`, `LOr`).
        Expr::Path(p) => {
            p.qself.is_none()
                && ident_of(e).is_none_or(|n| n.starts_with(|c: char| c.is_ascii_uppercase()))
        }
        _ => false,
    };
    if !ok {
        w.err(
            e.span(),
            "a nested reduction's reducer is a built-in reducer made in place: `Sum::new()`, \
             `Max::new()`, `Min::<f64>::new()`, `LAnd` ...",
        );
    }
}

fn literal_zero(e: &Expr) -> bool {
    matches!(strip(e), Expr::Lit(l) if matches!(&l.lit, syn::Lit::Int(i) if i.base10_digits() == "0"))
}

/// The name of a closure parameter `x` or `x: T`.
fn closure_param(p: &Pat) -> Option<&syn::Ident> {
    match p {
        Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() && i.mutability.is_none() => {
            Some(&i.ident)
        }
        Pat::Type(t) => closure_param(&t.pat),
        _ => None,
    }
}

/// The names of a tuple parameter `(i, j)` or `(i, j): (usize, usize)`.
fn tuple_param(p: &Pat) -> Option<Vec<&syn::Ident>> {
    match p {
        Pat::Tuple(t) => t.elems.iter().map(closure_param).collect(),
        Pat::Type(t) => tuple_param(&t.pat),
        _ => None,
    }
}
