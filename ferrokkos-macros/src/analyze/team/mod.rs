//! Team kernels (`kernel!(|team: &TeamMember| ..)`): the nested constructs the walk accepts, where
//! they may stand, and what each View access and accumulator update knows about who runs it.
//!
//! Agents. A team body runs on every thread and vector lane of every team. A statement runs once
//! per *agent* of its scope: the league rank, the index of each enclosing nested range and the
//! variable of each enclosing `for` loop outside the innermost range or `single` (unless every
//! range between the loop and the statement has bounds that name no local: then each index runs
//! on the same worker in every iteration, and the loop tells no concurrent agents apart). A write is
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
use syn::visit_mut::VisitMut;
use syn::{Expr, UnOp};

use super::{Walker, ident_of, strip};

mod constructs;
mod scratch;
pub use scratch::{ScratchAccess, ScratchDecl, team_scratch_rules};

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
            "TeamThreadRange" | "TeamThreadMDRange" => Some(RangeKind::TeamThread),
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
        /// The agent names of its index's coordinates (several for a `TeamThreadMDRange`).
        agents: Vec<String>,
        /// `Some(c)` when the range is `0..c` for a launch constant `c`.
        zero_to: Option<String>,
        /// Its bounds name no local of the body (literals, captures, constants): the same in
        /// every iteration of a loop around it, so each index has the same worker in each.
        fixed: bool,
        scope: usize,
    },
    Single {
        per_team: bool,
        scope: usize,
    },
    /// The branch of `if team.team_rank() == 0` (at team level): one thread of each team runs
    /// it, and one lane of it where the launch has one vector lane per thread, which the kernel
    /// then asks of every launch ([`TeamCtx::one_lane`]).
    FirstThread {
        scope: usize,
    },
    /// A loop: its variable's agent name (`while` and `loop` get one with no variable), and the
    /// scope depth of its body's statements (a barrier there separates its iterations).
    Loop {
        agent: String,
        named: bool,
        body_depth: usize,
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
    /// A scratch View.
    scratch: bool,
}

/// What a team body's `let` tells of its local (see [`Walker::team_let_facts`]).
pub struct LetFacts {
    value: Option<Expr>,
    witness: Vec<(syn::Ident, syn::Ident)>,
    uniform: bool,
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
    /// The scratch Views the body declares, in order.
    pub scratch: Vec<ScratchDecl>,
    /// Their accesses, with the phase each is in.
    pub scratch_accesses: Vec<ScratchAccess>,
    /// The current phase (team-level `team_barrier`s start new ones) and the phases merged into
    /// each (union-find parents).
    phase: usize,
    phase_parent: Vec<usize>,
    /// The agents of loops whose body has a team barrier among its statements: two iterations
    /// never run at once, so their variables distinguish no concurrent agents.
    pub separated: std::collections::HashSet<String>,
    /// The body has an `if team.team_rank() == 0` branch: each launch must have one vector lane
    /// per thread (Kokkos' tutorials write it for `single(PerTeam)`).
    pub one_lane: bool,
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
    /// One lane of each team thread runs it (what a thread's own scratch needs).
    pub lanes_covered: bool,
    /// The innermost range or `single` around the access (0: the team level).
    pub scope: usize,
    /// The agents of enclosing `while` and `loop` loops: iterations with no index the rules can
    /// tell apart (harmless only when a barrier separates them, see [`TeamCtx::separated`]).
    pub unnamed_loops: Vec<String>,
    /// Each identifier of the index the rules resolved to a local, with that local's binding:
    /// the expansion checks that each use resolves to that binding (see `kernel/generate.rs`), as a
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
            scratch: Vec::new(),
            scratch_accesses: Vec::new(),
            phase: 0,
            phase_parent: vec![0],
            separated: Default::default(),
            one_lane: false,
        }
    }

    /// `a` without the agents of loops a barrier separates (see [`TeamCtx::separated`]).
    pub fn settle(&self, a: &mut TeamAccess) {
        a.agents.retain(|g| !self.separated.contains(g));
        a.unnamed_loops.retain(|g| !self.separated.contains(g));
    }

    /// The representative of `phase` after the merges.
    pub fn phase_of(&self, mut phase: usize) -> usize {
        while self.phase_parent[phase] != phase {
            phase = self.phase_parent[phase];
        }
        phase
    }

    /// A team-level barrier: a new phase begins.
    fn next_phase(&mut self) {
        self.phase = self.phase_parent.len();
        self.phase_parent.push(self.phase);
    }

    /// Control flow that may or may not pass the barriers between `entry` and the current phase
    /// (a branch, a loop's iterations): the phases are one.
    fn merge_phases(&mut self, entry: usize) {
        let (a, b) = (self.phase_of(entry), self.phase_of(self.phase));
        if a != b {
            self.phase_parent[b] = a;
        }
    }

    /// Whether `name` is a scratch View of the body (not shadowed by a later local).
    pub fn is_scratch(&self, name: &str) -> bool {
        self.local(name).is_some_and(|l| l.scratch)
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
                Frame::FirstThread { .. } => {
                    threads = true;
                    lanes = true;
                }
                _ => {}
            }
        }
        (threads, lanes)
    }

    /// The agents of the current point, per the module documentation.
    fn access(&self, index: &Expr) -> TeamAccess {
        let innermost = self.frames.iter().rposition(|f| {
            matches!(
                f,
                Frame::Range { .. } | Frame::Single { .. } | Frame::FirstThread { .. }
            )
        });
        let outer = &self.frames[..innermost.map_or(0, |k| k + 1)];
        // A loop around ranges of fixed bounds (and `single`s) runs each index on the same worker
        // in every iteration: its variable tells no two concurrent agents apart.
        let settled: Vec<bool> = (0..outer.len())
            .map(|k| {
                outer[k + 1..]
                    .iter()
                    .all(|f| !matches!(f, Frame::Range { fixed: false, .. }))
            })
            .collect();
        let mut agents = vec![LEAGUE.to_string()];
        let mut blocks = Vec::new();
        let mut unnamed_loops = Vec::new();
        let mut scope = 0;
        for (f, settled) in outer.iter().zip(settled) {
            match f {
                Frame::Range {
                    agents: mine,
                    zero_to,
                    scope: s,
                    ..
                } => {
                    agents.extend(mine.iter().cloned());
                    if let (Some(c), [agent]) = (zero_to, mine.as_slice()) {
                        blocks.push((agent.clone(), c.clone()));
                    }
                    scope = *s;
                }
                Frame::Single { scope: s, .. } | Frame::FirstThread { scope: s } => scope = *s,
                Frame::Loop { named: true, .. } if settled => {}
                Frame::Loop {
                    agent, named: true, ..
                } => agents.push(agent.clone()),
                Frame::Loop { agent, .. } => unnamed_loops.push(agent.clone()),
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
            lanes_covered: lanes,
            scope,
            unnamed_loops,
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

    /// What the rules may know of a local initialized with `init` (resolved where `init` is, so
    /// before the `let` binds its names): see [`Walker::team_let_apply`].
    pub(super) fn team_let_facts(&self, init: &Expr) -> Option<LetFacts> {
        let uniform = self.team_uniform(init);
        let t = self.team.as_ref()?;
        let (value, witness) = t.resolve(init);
        let at_team = t.at_team_level() && !t.varying();
        Some(LetFacts {
            value,
            witness,
            uniform: uniform && at_team,
        })
    }

    /// After `let name = init;` (an immutable local) with `facts` from
    /// [`Walker::team_let_facts`]: what the rules may know of it.
    pub(super) fn team_let_apply(&mut self, name: &str, facts: Option<LetFacts>) {
        let (Some(t), Some(f)) = (&mut self.team, facts) else {
            return;
        };
        if let Some((_, _, l)) = t.locals.iter_mut().rev().find(|(n, _, _)| n == name)
            && !l.mutable
        {
            l.value = f.value;
            l.witness = f.witness;
            l.uniform = f.uniform;
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
                // A broadcast's result is the source thread's value on every thread.
                [
                    "league_rank",
                    "league_size",
                    "team_size",
                    "vector_length",
                    "team_broadcast",
                ]
                .contains(&m.method.to_string().as_str())
            }
            // The result of a reduction or scan over the team's threads is the same on every
            // thread (a vector range's is per thread).
            Expr::MethodCall(m)
                if ["parallel_reduce", "parallel_scan"]
                    .contains(&m.method.to_string().as_str()) =>
            {
                constructs::range_constructor(&m.receiver)
                    .and_then(|(kind, _)| RangeKind::of(&kind))
                    .is_some_and(RangeKind::covers_threads)
            }
            // `single(PerTeam(team), ..)` gives its closure's value to every thread.
            Expr::Call(c) if constructs::is_single_per_team(c, &t.name) => true,
            // An atomic's result depends on what other threads did before it.
            Expr::MethodCall(m) if crate::subset::atomic_arity(&m.method.to_string()).is_some() => {
                false
            }
            Expr::MethodCall(m) => {
                self.team_uniform(&m.receiver) && m.args.iter().all(|a| self.team_uniform(a))
            }
            Expr::Call(c) => c.args.iter().all(|a| self.team_uniform(a)),
            Expr::Field(f) => self.team_uniform(&f.base),
            _ => false,
        }
    }

    /// A scope for the branch of `if team.team_rank() == 0` (or `0 == team.team_rank()`) at team
    /// level, where `team` is the kernel's team member: one thread of the team runs it (see
    /// [`Frame::FirstThread`]); the kernel then asks each launch for one vector lane per thread.
    pub(in crate::analyze) fn first_thread(&mut self, cond: &Expr) -> Option<usize> {
        let t = self.team.as_mut()?;
        let Expr::Binary(b) = strip(cond) else {
            return None;
        };
        let is_rank = |e: &Expr| {
            matches!(strip(e), Expr::MethodCall(m)
                if m.method == "team_rank"
                    && m.args.is_empty()
                    && ident_of(strip(&m.receiver)).is_some_and(|n| n == t.name && t.local(&n).is_none()))
        };
        let is_zero = |e: &Expr| {
            matches!(strip(e), Expr::Lit(l)
                if matches!(&l.lit, syn::Lit::Int(i) if i.base10_digits() == "0"))
        };
        let first = matches!(b.op, syn::BinOp::Eq(_))
            && ((is_rank(&b.left) && is_zero(&b.right)) || (is_zero(&b.left) && is_rank(&b.right)));
        if !first || !t.at_team_level() {
            return None;
        }
        t.one_lane = true;
        t.next_id += 1;
        Some(t.next_id)
    }

    /// Walks `inner` in the scope [`Walker::first_thread`] gave, if any.
    pub(in crate::analyze) fn in_first_thread(
        &mut self,
        scope: Option<usize>,
        inner: impl FnOnce(&mut Walker),
    ) {
        let Some(scope) = scope else {
            return inner(self);
        };
        if let Some(t) = &mut self.team {
            t.frames.push(Frame::FirstThread { scope });
        }
        inner(self);
        if let Some(t) = &mut self.team {
            t.frames.pop();
        }
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
        let entry = self.team.as_ref().map(|t| t.phase);
        inner(self);
        if let (Some(t), Some(entry)) = (&mut self.team, entry) {
            t.merge_phases(entry);
        }
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
        let body_depth = self.scopes.len() + 1;
        let t = self.team.as_mut().expect("team");
        let agent = t.fresh_agent();
        if let Some(v) = var {
            let uniform = t.at_team_level() && !t.varying();
            if let Some((_, _, l)) = t.locals.iter_mut().rev().find(|(n, _, _)| n == v) {
                l.agent = Some(agent.clone());
                l.uniform = uniform;
            }
        }
        t.frames.push(Frame::Loop {
            agent,
            named: var.is_some(),
            body_depth,
            collective: false,
            jumps: false,
        });
        let entry = self.team.as_ref().map(|t| t.phase);
        body(self);
        if let (Some(t), Some(entry)) = (&mut self.team, entry) {
            t.merge_phases(entry);
        }
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
