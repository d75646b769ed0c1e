//! Team kernels (`kernel!(|team: &TeamMember| ..)`): the nested constructs the walk accepts, where
//! they may stand, and what each View access and accumulator update knows about who runs it.
//!
//! Agents. A team body runs on every thread and vector lane of every team. A statement runs once
//! per *agent* of its scope: the league rank, the index of each enclosing nested range and the
//! variable of each enclosing `for` loop outside the innermost range or `single`. A write is
//! owner-computes when one thread and lane runs its scope (*covered*: some enclosing construct
//! spreads or collapses the team's threads, `TeamThreadRange`, `TeamVectorRange` or
//! `single(PerTeam)`, and its lanes, `ThreadVectorRange`, `TeamVectorRange` or `single`) and its
//! index is injective in the agents ([`crate::team_race`]).
//!
//! Collectives. Reductions and scans over `TeamThreadRange` / `TeamVectorRange`, `team_barrier`,
//! `team_broadcast` and `single(PerTeam)` synchronise the whole team: they stand at team level
//! (outside every nested range and `single`), under conditions and loop bounds every thread of the
//! team computes alike (*uniform*), and a loop around one neither `break`s nor `continue`s. A
//! vector range and `single(PerThread)` stand at team level or directly in a `TeamThreadRange`,
//! where every lane of a thread runs alike; nothing nests in a vector range or a `single`.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Expr, ExprClosure, Pat, UnOp};

use super::{Walker, ident_of, strip};

/// The name that stands for the league rank in the race rules' index maps.
pub const LEAGUE: &str = "__fk_lr";

/// Which threads a nested range spreads its iterations over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeKind {
    TeamThread,
    ThreadVector,
    TeamVector,
}

impl RangeKind {
    fn of(name: &str) -> Option<RangeKind> {
        match name {
            "TeamThreadRange" => Some(RangeKind::TeamThread),
            "ThreadVectorRange" => Some(RangeKind::ThreadVector),
            "TeamVectorRange" => Some(RangeKind::TeamVector),
            _ => None,
        }
    }

    fn covers_threads(self) -> bool {
        self != RangeKind::ThreadVector
    }

    fn covers_lanes(self) -> bool {
        self != RangeKind::TeamThread
    }
}

/// A construct around the current point of the walk.
enum Frame {
    Range {
        kind: RangeKind,
        /// The agent name of its index.
        agent: String,
        /// `Some(c)` when the range is `0..c` for a launch constant `c`.
        zero_to: Option<String>,
        scope: usize,
    },
    Single {
        per_team: bool,
        scope: usize,
    },
    /// A loop: its variable's agent name (`while` and `loop` have none).
    Loop {
        agent: Option<String>,
        collective: bool,
        jumps: bool,
    },
    /// Team-level control flow whose condition is not uniform.
    Varying,
}

/// What the walk knows of a local of a team body.
#[derive(Clone, Default)]
struct Local {
    /// The agent name of a nested range's index or a loop variable.
    agent: Option<String>,
    /// An immutable local's value with locals resolved (agents, league rank and other such
    /// locals), when it has one: the race rules see through it.
    value: Option<Expr>,
    /// Every thread of the team holds the same value.
    uniform: bool,
    mutable: bool,
    /// The binding's identifier (its span carries its hygiene).
    binding: Option<syn::Ident>,
    /// The (use, binding) pairs that `value` relied on.
    witness: Vec<(syn::Ident, syn::Ident)>,
}

/// The team kernel's state in the walk.
pub struct TeamCtx {
    /// The team member parameter.
    pub name: String,
    /// The team reduction's accumulator.
    pub acc: Option<String>,
    frames: Vec<Frame>,
    /// Locals in binding order with the depth of their scope (pruned when scopes close).
    locals: Vec<(String, usize, Local)>,
    next_id: usize,
}

/// What a View access in a team body knows (see [`crate::team_race`]).
#[derive(Clone)]
pub struct TeamAccess {
    /// The index with locals resolved and the league rank as [`LEAGUE`] (`None`: not resolvable).
    pub index: Option<Expr>,
    /// The agents: [`LEAGUE`], then the enclosing ranges' and loops' agent names.
    pub agents: Vec<String>,
    /// Ranges `0..c` among the agents: `(agent, c)` (`c · league + agent` is then one to one).
    pub blocks: Vec<(String, String)>,
    /// One thread and lane runs the access's scope.
    pub covered: bool,
    /// The innermost range or `single` around the access (0: the team level).
    pub scope: usize,
    /// A `while` or `loop` encloses the scope: its iterations are agents with no name.
    pub unnamed_loop: bool,
    /// Each identifier of the index the rules resolved to a local, with that local's binding:
    /// the expansion checks that each use resolves to that binding (see `kernel.rs`), as a
    /// `macro_rules!` macro's hygiene could make a name resolve elsewhere.
    pub witness: Vec<(syn::Ident, syn::Ident)>,
}

impl TeamCtx {
    pub fn new(name: String, acc: Option<String>) -> TeamCtx {
        TeamCtx {
            name,
            acc,
            frames: Vec::new(),
            locals: Vec::new(),
            next_id: 1,
        }
    }

    fn local(&self, name: &str) -> Option<&Local> {
        self.locals
            .iter()
            .rev()
            .find(|(n, _, _)| n == name)
            .map(|(_, _, l)| l)
    }

    /// Inside no nested range and no `single`.
    fn at_team_level(&self) -> bool {
        !self
            .frames
            .iter()
            .any(|f| matches!(f, Frame::Range { .. } | Frame::Single { .. }))
    }

    fn varying(&self) -> bool {
        self.frames.iter().any(|f| matches!(f, Frame::Varying))
    }

    fn covered(&self) -> (bool, bool) {
        let (mut threads, mut lanes) = (false, false);
        for f in &self.frames {
            match f {
                Frame::Range { kind, .. } => {
                    threads |= kind.covers_threads();
                    lanes |= kind.covers_lanes();
                }
                Frame::Single { per_team, .. } => {
                    threads |= *per_team;
                    lanes = true;
                }
                _ => {}
            }
        }
        (threads, lanes)
    }

    /// The agents of the current point, per the module documentation.
    fn access(&self, index: &Expr) -> TeamAccess {
        let innermost = self
            .frames
            .iter()
            .rposition(|f| matches!(f, Frame::Range { .. } | Frame::Single { .. }));
        let outer = &self.frames[..innermost.map_or(0, |k| k + 1)];
        let mut agents = vec![LEAGUE.to_string()];
        let mut blocks = Vec::new();
        let mut unnamed_loop = false;
        let mut scope = 0;
        for f in outer {
            match f {
                Frame::Range {
                    agent,
                    zero_to,
                    scope: s,
                    ..
                } => {
                    agents.push(agent.clone());
                    if let Some(c) = zero_to {
                        blocks.push((agent.clone(), c.clone()));
                    }
                    scope = *s;
                }
                Frame::Single { scope: s, .. } => scope = *s,
                Frame::Loop { agent: Some(a), .. } => agents.push(a.clone()),
                Frame::Loop { agent: None, .. } => unnamed_loop = true,
                Frame::Varying => {}
            }
        }
        let (threads, lanes) = self.covered();
        let (index, witness) = self.resolve(index);
        TeamAccess {
            index,
            witness,
            agents,
            blocks,
            covered: threads && lanes,
            scope,
            unnamed_loop,
        }
    }

    /// `e` with the league rank as [`LEAGUE`], agents by their agent names and immutable locals
    /// by their values (`None` when it names a local with no such value), and the (use, binding)
    /// pairs of the locals it resolved.
    fn resolve(&self, e: &Expr) -> (Option<Expr>, Vec<(syn::Ident, syn::Ident)>) {
        struct Resolve<'a> {
            ctx: &'a TeamCtx,
            ok: bool,
            witness: Vec<(syn::Ident, syn::Ident)>,
        }
        impl VisitMut for Resolve<'_> {
            fn visit_expr_mut(&mut self, e: &mut Expr) {
                if self.ctx.is_league_rank(e) {
                    *e = name_expr(LEAGUE);
                    return;
                }
                if let Some(name) = ident_of(e)
                    && let Some(l) = self.ctx.local(&name)
                {
                    if let (Expr::Path(p), Some(b)) = (strip(e), &l.binding)
                        && let Some(seg) = p.path.segments.first()
                    {
                        self.witness.push((seg.ident.clone(), b.clone()));
                    }
                    match (&l.agent, &l.value) {
                        (Some(a), _) => *e = name_expr(a),
                        (None, Some(v)) => {
                            self.witness.extend(l.witness.iter().cloned());
                            *e = syn::parse_quote!((#v));
                        }
                        (None, None) => self.ok = false,
                    }
                    return;
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
        }
        let mut e = e.clone();
        let mut r = Resolve {
            ctx: self,
            ok: true,
            witness: Vec::new(),
        };
        r.visit_expr_mut(&mut e);
        (r.ok.then_some(e), r.witness)
    }

    /// `team.league_rank()`.
    fn is_league_rank(&self, e: &Expr) -> bool {
        matches!(strip(e), Expr::MethodCall(m)
            if m.method == "league_rank" && m.args.is_empty()
                && ident_of(&m.receiver).as_deref() == Some(self.name.as_str()))
    }

    fn fresh_agent(&mut self) -> String {
        self.next_id += 1;
        format!("__fk_a{}", self.next_id)
    }
}

fn name_expr(name: &str) -> Expr {
    let ident = syn::Ident::new(name, Span::call_site());
    syn::parse_quote!(#ident)
}

/// The team member's methods a kernel may call, and whether each synchronises the team.
const QUERIES: &[&str] = &[
    "league_rank",
    "league_size",
    "team_rank",
    "team_size",
    "vector_length",
];

impl Walker {
    /// The agents of an access here (team kernels only).
    pub(super) fn team_access(&self, index: &Expr) -> Option<TeamAccess> {
        self.team.as_ref().map(|t| t.access(index))
    }

    /// Records a binding of a team body (called by `bind`).
    pub(super) fn team_bind(&mut self, name: &str, span: Span, mutable: bool) {
        let depth = self.scopes.len();
        if let Some(t) = &mut self.team {
            t.locals.push((
                name.to_string(),
                depth,
                Local {
                    mutable,
                    binding: Some(syn::Ident::new(name, span)),
                    ..Local::default()
                },
            ));
        }
    }

    /// Forgets the bindings of scopes deeper than the current one.
    pub(super) fn team_prune(&mut self) {
        let depth = self.scopes.len();
        if let Some(t) = &mut self.team {
            t.locals.retain(|(_, d, _)| *d <= depth);
        }
    }

    /// After `let name = init;` (an immutable local): what the rules may know of it.
    pub(super) fn team_let(&mut self, name: &str, init: &Expr) {
        let uniform = self.team_uniform(init);
        let Some(t) = &mut self.team else { return };
        let (value, witness) = t.resolve(init);
        let at_team = t.at_team_level() && !t.varying();
        if let Some((_, _, l)) = t.locals.iter_mut().rev().find(|(n, _, _)| n == name)
            && !l.mutable
        {
            l.value = value;
            l.witness = witness;
            l.uniform = uniform && at_team;
        }
    }

    /// Whether every thread of the team computes `e` alike (conservatively).
    pub(super) fn team_uniform(&self, e: &Expr) -> bool {
        let Some(t) = &self.team else { return true };
        match strip(e) {
            Expr::Lit(_) => true,
            Expr::Path(_) => match ident_of(e) {
                Some(name) => match t.local(&name) {
                    Some(l) => l.uniform && !l.mutable,
                    None => self.team.as_ref().is_some_and(|t| t.name != name),
                },
                None => true,
            },
            Expr::Binary(b) => self.team_uniform(&b.left) && self.team_uniform(&b.right),
            Expr::Unary(u) => !matches!(u.op, UnOp::Deref(_)) && self.team_uniform(&u.expr),
            Expr::Cast(c) => self.team_uniform(&c.expr),
            Expr::Index(ix) => self.team_uniform(&ix.expr) && self.team_uniform(&ix.index),
            Expr::Tuple(tp) => tp.elems.iter().all(|e| self.team_uniform(e)),
            Expr::MethodCall(m) if ident_of(&m.receiver).as_deref() == Some(t.name.as_str()) => {
                ["league_rank", "league_size", "team_size", "vector_length"]
                    .contains(&m.method.to_string().as_str())
            }
            Expr::MethodCall(m) => {
                self.team_uniform(&m.receiver) && m.args.iter().all(|a| self.team_uniform(a))
            }
            Expr::Call(c) => c.args.iter().all(|a| self.team_uniform(a)),
            Expr::Field(f) => self.team_uniform(&f.base),
            _ => false,
        }
    }

    /// Walks `e` if it is a team construct (a nested range's pattern, `single`, a call of the team
    /// member); returns whether it was one.
    pub(super) fn team_construct(&mut self, e: &Expr) -> bool {
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
                self.team_collective(m.span(), "`team_broadcast`");
            }
            "team_scratch" | "thread_scratch" => self.err(
                m.span(),
                "scratch memory is not in team `kernel!`s yet; on the host spaces, write the team \
                 kernel as a plain closure",
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

    fn nested_range(&mut self, m: &syn::ExprMethodCall) {
        let (kind_name, ctor) = range_constructor(&m.receiver).expect("checked by the caller");
        let Some(kind) = RangeKind::of(&kind_name) else {
            self.err(
                m.receiver.span(),
                format!(
                    "`{kind_name}` is not in team `kernel!`s yet; use `TeamThreadRange`, \
                     `ThreadVectorRange` or `TeamVectorRange`"
                ),
            );
            return;
        };
        let pattern = m.method.to_string();
        let team = self
            .team
            .as_ref()
            .map(|t| t.name.clone())
            .unwrap_or_default();
        if ctor.args.len() != 3 || ident_of(&ctor.args[0]).as_deref() != Some(team.as_str()) {
            self.err(
                ctor.span(),
                format!("a nested range is `{kind_name}::new({team}, begin, end)`"),
            );
            return;
        }
        let (begin, end) = (&ctor.args[1], &ctor.args[2]);
        self.expr(begin);
        self.expr(end);
        let what = format!("`{kind_name}`");
        self.nesting(m.span(), &what, kind == RangeKind::ThreadVector);
        let params = match pattern.as_str() {
            "parallel_for" => 1,
            "parallel_reduce" => 2,
            _ => 3,
        };
        let wanted_args = if params == 1 { 1 } else { 2 };
        if m.args.len() != wanted_args {
            let form = match params {
                1 => "`.parallel_for(|i| ..)`",
                2 => "`.parallel_reduce(|i, acc| .., Sum::new())`",
                _ => "`.parallel_scan(|i, partial, is_final| .., Sum::new())`",
            };
            self.err(m.span(), format!("a nested {pattern} is {form}"));
            return;
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
            return;
        };
        if closure.inputs.len() != params {
            self.err(
                closure.span(),
                format!("this closure takes {params} parameter(s) for a nested {pattern}"),
            );
            return;
        }
        let zero_to = match (literal_zero(begin), ident_of(end)) {
            (true, Some(c)) if !self.is_local(&c) => Some(c),
            _ => None,
        };
        self.team_closure(closure, |w, names| {
            let agent = w.team.as_mut().map(|t| t.fresh_agent()).unwrap_or_default();
            if let Some(t) = &mut w.team
                && let Some((_, _, l)) = t.locals.iter_mut().rev().find(|(n, _, _)| *n == names[0])
            {
                l.agent = Some(agent.clone());
            }
            let scope = w.team.as_mut().map_or(0, |t| {
                t.next_id += 1;
                t.next_id
            });
            Frame::Range {
                kind,
                agent,
                zero_to,
                scope,
            }
        });
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
        self.team_closure(closure, |w, _| {
            let scope = w.team.as_mut().map_or(0, |t| {
                t.next_id += 1;
                t.next_id
            });
            Frame::Single { per_team, scope }
        });
    }

    /// Walks a construct's closure: binds its parameters (the first is the index, a second and
    /// third of a reduction or scan are its accumulator and flag), pushes the frame `frame` makes
    /// from the parameter names, and walks the body.
    fn team_closure(
        &mut self,
        closure: &ExprClosure,
        frame: impl FnOnce(&mut Walker, &[String]) -> Frame,
    ) {
        if closure.asyncness.is_some() || closure.constness.is_some() {
            self.err(closure.span(), "a team construct takes a plain closure");
        }
        self.scopes.push(Default::default());
        let mut names = Vec::new();
        for (k, p) in closure.inputs.iter().enumerate() {
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
        if names.len() >= 2 {
            self.params.remove(&names[1]);
        }
        self.scopes.pop();
        self.team_prune();
    }

    /// Walks a condition or loop bound at the current point and then `inner`; at team level a
    /// condition that is not uniform makes `inner` varying.
    pub(super) fn team_control(&mut self, cond: Option<&Expr>, inner: impl FnOnce(&mut Walker)) {
        let varying = match (&self.team, cond) {
            (Some(t), Some(c)) => t.at_team_level() && !self.team_uniform(c),
            _ => false,
        };
        if varying && let Some(t) = &mut self.team {
            t.frames.push(Frame::Varying);
        }
        inner(self);
        if varying && let Some(t) = &mut self.team {
            t.frames.pop();
        }
    }

    /// Walks a loop's body in a loop frame; `var` is a `for` loop's variable (already bound).
    pub(super) fn team_loop(
        &mut self,
        var: Option<&str>,
        span: Span,
        body: impl FnOnce(&mut Walker),
    ) {
        if self.team.is_none() {
            body(self);
            return;
        }
        let agent = var.map(|v| {
            let t = self.team.as_mut().expect("team");
            let a = t.fresh_agent();
            let uniform = t.at_team_level() && !t.varying();
            if let Some((_, _, l)) = t.locals.iter_mut().rev().find(|(n, _, _)| n == v) {
                l.agent = Some(a.clone());
                l.uniform = uniform;
            }
            a
        });
        if let Some(t) = &mut self.team {
            t.frames.push(Frame::Loop {
                agent,
                collective: false,
                jumps: false,
            });
        }
        body(self);
        if let Some(t) = &mut self.team
            && let Some(Frame::Loop {
                collective: true,
                jumps: true,
                ..
            }) = t.frames.pop()
        {
            self.err(
                span,
                "this loop contains a collective of the whole team and a `break` or `continue`; \
                 every thread must run the same iterations of it, so it may not leave them early",
            );
        }
    }

    /// A `break` or `continue` (team kernels: marks the innermost loop).
    pub(super) fn team_jump(&mut self) {
        if let Some(t) = &mut self.team
            && let Some(Frame::Loop { jumps, .. }) = t
                .frames
                .iter_mut()
                .rev()
                .find(|f| matches!(f, Frame::Loop { .. }))
        {
            *jumps = true;
        }
    }

    /// A `return` in a team kernel: not allowed (threads that return would miss the team's later
    /// collectives).
    pub(super) fn team_return(&mut self, span: Span) -> bool {
        if self.team.is_some() {
            self.err(
                span,
                "a team kernel cannot `return`: the team's threads must all reach its collectives \
                 (write the rest of the body under an `if` instead)",
            );
            return true;
        }
        false
    }

    /// An update of the team reduction's accumulator (`*acc += v`): its scope must be run by one
    /// thread and lane, or a team would count the contribution once per thread and lane on a GPU
    /// and once on the host spaces.
    pub(super) fn team_acc_update(&mut self, name: &str, span: Span) {
        let Some(t) = &self.team else { return };
        if t.acc.as_deref() != Some(name) {
            return;
        }
        let (threads, lanes) = t.covered();
        if !(threads && lanes) {
            self.err(
                span,
                format!(
                    "the team reduction's accumulator `{name}` is updated here by every {} of the \
                     team; contribute inside `single(PerTeam(team), || ..)` (once per team), or \
                     where one thread and lane runs the code (a `TeamVectorRange`, or a \
                     `ThreadVectorRange` or `single(PerThread(..))` inside a `TeamThreadRange`)",
                    if threads { "vector lane" } else { "thread" }
                ),
            );
        }
    }

    /// An assignment to the local `name` inside a team construct's closure: allowed only for
    /// locals of the closure itself (a `single`'s closure runs on one thread, whose copy of an
    /// outer local would then differ from the others').
    pub(super) fn team_local_assign(&mut self, name: &str, span: Span) {
        let Some(&base) = self.closure_bases.last() else {
            return;
        };
        let depth = self.scopes.iter().rposition(|s| s.contains(name));
        if depth.is_some_and(|d| d + 1 < base) {
            self.err(
                span,
                format!(
                    "`{name}` belongs to the code around this team construct, which cannot change \
                     it (on a GPU, one thread's copy would change and the others' would not); give \
                     the value back instead: `let {name} = single(PerTeam(team), || ..);`"
                ),
            );
        }
    }

    /// A use of the team member other than a method call or a construct's first argument.
    pub(super) fn team_value_use(&mut self, name: &str, span: Span) -> bool {
        if self.team.as_ref().is_some_and(|t| t.name == name) {
            self.err(
                span,
                format!(
                    "the team member `{name}` is used only as `{name}.method()` and as the first \
                     argument of a nested range or of `single`'s `PerTeam` / `PerThread`"
                ),
            );
            return true;
        }
        false
    }
}

/// `X::new(team, b, e)`: the type name and the call.
fn range_constructor(e: &Expr) -> Option<(String, &syn::ExprCall)> {
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
