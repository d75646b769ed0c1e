//! Team kernels in the typed shadow: the team member, the nested ranges and their patterns,
//! `single`, barriers and broadcasts, written as C++ over the device header's `fk::Team` and its
//! collectives (`backend/gpu/codegen/device/team.cuh`).
//!
//! Mapping (the same for every GPU backend that has the header's team part): each thread of the
//! block is lane `lane()` of team thread `rank()`. A nested range walks its iterations as a count
//! from its begin: `TeamThreadRange` hands them out over the team's threads (every lane of a
//! thread runs the thread's iterations), `ThreadVectorRange` over one thread's lanes and
//! `TeamVectorRange` over every lane of every thread. A reduction or scan over a range joins the
//! threads' (or lanes') partial values with the matching collective; a scan walks contiguous runs
//! of iterations per thread (or lane), so that joins keep the iteration order.
//!
//! Invariant: `kernel!` lets only the constructs that every thread of their scope reaches call a
//! collective (team-level ones in team-uniform control flow, no collective inside a vector range
//! or `single`), which is what the header's collectives require.

use super::super::builder::{self, prec};
use super::super::device_reducer::NestedReducer;
use super::super::expr::Expr;
use super::super::ty::DeviceScalar;
use super::super::value::DeviceValue;
use super::super::view_expr::ViewExpr;
use super::Mut;
use super::control::DeviceInt;
use crate::layout::LayoutRight;

/// The team member of a team kernel in its shadow: the name of the `const fk::Team&` parameter.
#[derive(Clone, Copy, Debug)]
pub struct TeamShadow {
    name: Expr<()>,
}

impl TeamShadow {
    /// The member whose C++ parameter is `name`.
    pub(crate) fn named(name: &str) -> TeamShadow {
        TeamShadow {
            name: Expr::name(name),
        }
    }

    fn text(self) -> String {
        self.name.text()
    }

    fn usize_of(self, member: &str) -> Expr<usize> {
        Expr::new(format!("(usize){}.{member}", self.text()), prec::UNARY)
    }

    /// `team.league_rank()`.
    pub fn league_rank(self) -> Expr<usize> {
        self.usize_of("league_rank")
    }

    /// `team.league_size()`.
    pub fn league_size(self) -> Expr<usize> {
        self.usize_of("league_size")
    }

    /// `team.team_rank()`.
    pub fn team_rank(self) -> Expr<usize> {
        self.usize_of("rank()")
    }

    /// `team.team_size()`.
    pub fn team_size(self) -> Expr<usize> {
        self.usize_of("team_size")
    }

    /// `team.vector_length()`.
    pub fn vector_length(self) -> Expr<usize> {
        self.usize_of("vector_length")
    }

    /// `team.team_barrier()`.
    pub fn team_barrier(self) {
        builder::line("fk::team_barrier();");
    }

    /// `team.team_broadcast(value, source)`: `value` as team thread `source` has it.
    pub fn team_broadcast<T: DeviceValue>(self, value: Expr<T>, source: Expr<usize>) -> Expr<T> {
        let t = builder::fresh_temp("fk_bcast");
        builder::line(format!(
            "const {} {t} = fk::team_broadcast({}, {}, (u64)({}));",
            T::cxx_name(),
            self.text(),
            value.text(),
            source.text()
        ));
        Expr::name(&t)
    }
}

/// Which threads a nested range's iterations are spread over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeKind {
    /// `TeamThreadRange`: the team's threads.
    TeamThread,
    /// `ThreadVectorRange`: one thread's vector lanes.
    ThreadVector,
    /// `TeamVectorRange`: every lane of every thread.
    TeamVector,
}

impl RangeKind {
    /// This thread's position among the range's workers, and their number (C++ `u64`s).
    fn worker(self, team: TeamShadow) -> (String, String) {
        let t = team.text();
        match self {
            RangeKind::TeamThread => (format!("(u64){t}.rank()"), format!("(u64){t}.team_size")),
            RangeKind::ThreadVector => (
                format!("(u64){t}.lane()"),
                format!("(u64){t}.vector_length"),
            ),
            RangeKind::TeamVector => (
                format!("((u64){t}.rank() * {t}.vector_length + {t}.lane())"),
                format!("((u64){t}.team_size * {t}.vector_length)"),
            ),
        }
    }

    /// The collective that joins the workers' values of reducer `r`, every worker getting the join.
    fn reduce(self, r: &str, team: TeamShadow, v: &str) -> String {
        let f = match self {
            RangeKind::TeamThread => "team_thread_reduce",
            RangeKind::ThreadVector => "vector_reduce",
            RangeKind::TeamVector => "team_vector_reduce",
        };
        format!("fk::{f}<{r}>({}, {v})", team.text())
    }

    /// The collective exclusive scan of the workers' values (each worker its prefix; `total` the
    /// join of all).
    fn exclusive_scan(self, r: &str, team: TeamShadow, v: &str, total: &str) -> String {
        let t = team.text();
        match self {
            RangeKind::TeamThread => {
                format!("fk::team_thread_exclusive_scan<{r}>({t}, {v}, {total})")
            }
            RangeKind::ThreadVector => format!("fk::vector_exclusive_scan<{r}>({t}, {v}, {total})"),
            // Every lane a worker: the team scan over a team whose threads have one lane each.
            RangeKind::TeamVector => format!(
                "fk::team_thread_exclusive_scan<{r}>(fk::Team{{{t}.league_rank, {t}.league_size, \
                 {t}.team_size * {t}.vector_length, 1u}}, {v}, {total})"
            ),
        }
    }
}

/// Opens a block with the range's bounds and its iteration count (`u64`, 0 when `end <= begin`);
/// returns the names of the begin and the count.
fn open_range<I: DeviceInt>(name: &str, begin: Expr<I>, end: Expr<I>) -> (String, String) {
    let ty = I::CXX;
    let b = builder::fresh_name(&format!("{name}_begin"));
    let e = builder::fresh_name(&format!("{name}_end"));
    let n = builder::fresh_name(&format!("{name}_count"));
    builder::line("{");
    builder::indent(1);
    builder::line(format!("const {ty} {b} = {};", begin.text()));
    builder::line(format!("const {ty} {e} = {};", end.text()));
    builder::line(format!(
        "const u64 {n} = {b} < {e} ? (u64){e} - (u64){b} : (u64)0;"
    ));
    (b, n)
}

fn close_range() {
    builder::indent(-1);
    builder::line("}");
}

/// A loop over the iterations `[lo, hi)` of the count, calling `body` with the index.
fn iterations<I: DeviceInt>(
    name: &str,
    begin: &str,
    lo: &str,
    hi: &str,
    step: &str,
    body: impl FnOnce(Expr<I>),
) {
    let ty = I::CXX;
    let k = builder::fresh_name(&format!("{name}_k"));
    let var = builder::fresh_name(name);
    builder::line(format!(
        "for (u64 {k} = {lo}; {k} < {hi}; {k} += {step}) {{"
    ));
    builder::indent(1);
    builder::line(format!("const {ty} {var} = ({ty})((u64){begin} + {k});"));
    body(Expr::name(&var));
    builder::indent(-1);
    builder::line("}");
}

/// `X::new(team, begin, end).parallel_for(|i| body)`.
pub fn range_for<I: DeviceInt>(
    kind: RangeKind,
    team: TeamShadow,
    name: &str,
    begin: Expr<I>,
    end: Expr<I>,
    body: impl FnOnce(Expr<I>),
) {
    let (b, n) = open_range(name, begin, end);
    let (first, step) = kind.worker(team);
    iterations(name, &b, &first, &n, &step, body);
    close_range();
}

/// `X::new(team, begin, end).parallel_reduce(|i, acc| body, reducer)`: the join over the range's
/// iterations, in every worker of the range.
pub fn range_reduce<I: DeviceInt, R: NestedReducer>(
    kind: RangeKind,
    team: TeamShadow,
    name: &str,
    begin: Expr<I>,
    end: Expr<I>,
    body: impl FnOnce(Expr<I>, Expr<Mut<R::Value>>),
    reducer: R,
) -> Expr<R::Value> {
    let _ = reducer;
    let (r, value) = R::names();
    let acc = builder::fresh_temp("fk_nested");
    builder::line(format!("{value} {acc} = {r}::identity();"));
    let (b, n) = open_range(name, begin, end);
    let (first, step) = kind.worker(team);
    iterations(name, &b, &first, &n, &step, |i| body(i, Expr::name(&acc)));
    close_range();
    builder::line(format!("{acc} = {};", kind.reduce(&r, team, &acc)));
    Expr::name(&acc)
}

/// `X::new(team, begin, end).parallel_scan(|i, partial, is_final| body, reducer)`: each worker
/// walks a contiguous run of the iterations twice (its contributions, then with its exact prefix);
/// returns the total in every worker.
pub fn range_scan<I: DeviceInt, R: NestedReducer>(
    kind: RangeKind,
    team: TeamShadow,
    name: &str,
    begin: Expr<I>,
    end: Expr<I>,
    body: impl Fn(Expr<I>, Expr<Mut<R::Value>>, Expr<bool>),
    reducer: R,
) -> Expr<R::Value> {
    let _ = reducer;
    let (r, value) = R::names();
    let total = builder::fresh_temp("fk_scan_total");
    builder::line(format!("{value} {total};"));
    let (b, n) = open_range(name, begin, end);
    let (me, workers) = kind.worker(team);
    let per = builder::fresh_temp("fk_per");
    let lo = builder::fresh_temp("fk_lo");
    let hi = builder::fresh_temp("fk_hi");
    builder::line(format!(
        "const u64 {per} = ({n} + {workers} - 1) / {workers};"
    ));
    builder::line(format!(
        "const u64 {lo} = {me} * {per} < {n} ? {me} * {per} : {n};"
    ));
    builder::line(format!(
        "const u64 {hi} = {lo} + {per} < {n} ? {lo} + {per} : {n};"
    ));
    let run = builder::fresh_temp("fk_run");
    builder::line(format!("{value} {run} = {r}::identity();"));
    iterations(name, &b, &lo, &hi, "1", |i| {
        body(
            i,
            Expr::name(&run),
            Expr::new("false".into(), prec::PRIMARY),
        )
    });
    builder::line(format!(
        "const {value} {run}_before = {};",
        kind.exclusive_scan(&r, team, &run, &total)
    ));
    builder::line(format!("{run} = {run}_before;"));
    iterations(name, &b, &lo, &hi, "1", |i| {
        body(i, Expr::name(&run), Expr::new("true".into(), prec::PRIMARY))
    });
    close_range();
    Expr::name(&total)
}

/// Opens the block of a `TeamThreadMDRange` over `extents` (its count the product, walked by the
/// team's threads) and declares the coordinates of iteration `k` (the last fastest); returns the
/// coordinates' names.
fn md_iterations(
    team: TeamShadow,
    names: &[&str],
    extents: &[Expr<usize>],
    body: impl FnOnce(&[String]),
) {
    builder::line("{");
    builder::indent(1);
    let e: Vec<String> = names
        .iter()
        .zip(extents)
        .map(|(n, x)| {
            let v = builder::fresh_name(&format!("{n}_extent"));
            builder::line(format!("const u64 {v} = (u64)({});", x.text()));
            v
        })
        .collect();
    let n = builder::fresh_name("fk_md_count");
    builder::line(format!("const u64 {n} = {};", e.join(" * ")));
    let k = builder::fresh_name("fk_md_k");
    let (first, step) = RangeKind::TeamThread.worker(team);
    builder::line(format!(
        "for (u64 {k} = {first}; {k} < {n}; {k} += {step}) {{"
    ));
    builder::indent(1);
    let vars: Vec<String> = names.iter().map(|n| builder::fresh_name(n)).collect();
    for (d, var) in vars.iter().enumerate() {
        let inner: Vec<&str> = e[d + 1..].iter().map(String::as_str).collect();
        let below = if inner.is_empty() {
            k.clone()
        } else {
            format!("{k} / ({})", inner.join(" * "))
        };
        let value = if d == 0 {
            below
        } else {
            format!("({below}) % {}", e[d])
        };
        builder::line(format!("const usize {var} = (usize)({value});"));
    }
    body(&vars);
    builder::indent(-1);
    builder::line("}");
    builder::indent(-1);
    builder::line("}");
}

macro_rules! md_range {
    ($for:ident, $reduce:ident, $r:literal, $($k:tt)+) => {
        #[doc = concat!("`TeamThreadMDRange::new(team, [..; ", stringify!($r), "]).parallel_for(|(i, ..)| body)`.")]
        pub fn $for(
            team: TeamShadow,
            names: [&str; $r],
            extents: [Expr<usize>; $r],
            body: impl FnOnce(($(md_range!(@ty $k),)+)),
        ) {
            md_iterations(team, &names, &extents, |v| body(($(Expr::name(&v[$k]),)+)));
        }

        #[doc = concat!("`TeamThreadMDRange::new(team, [..; ", stringify!($r), "]).parallel_reduce(|(i, ..), acc| body, reducer)`: the join in every thread.")]
        pub fn $reduce<R: NestedReducer>(
            team: TeamShadow,
            names: [&str; $r],
            extents: [Expr<usize>; $r],
            body: impl FnOnce(($(md_range!(@ty $k),)+), Expr<Mut<R::Value>>),
            reducer: R,
        ) -> Expr<R::Value> {
            let _ = reducer;
            let (r, value) = R::names();
            let acc = builder::fresh_temp("fk_nested");
            builder::line(format!("{value} {acc} = {r}::identity();"));
            md_iterations(team, &names, &extents, |v| {
                body(($(Expr::name(&v[$k]),)+), Expr::name(&acc))
            });
            builder::line(format!("{acc} = {};", RangeKind::TeamThread.reduce(&r, team, &acc)));
            Expr::name(&acc)
        }
    };
    (@ty $k:tt) => { Expr<usize> };
}

md_range!(md_range_for2, md_range_reduce2, 2, 0 1);
md_range!(md_range_for3, md_range_reduce3, 3, 0 1 2);

/// What `single` gives back: nothing, or a value that every thread of the scope receives (sealed).
pub trait SingleValue: crate::seal::SealedShadow + Sized {
    /// Emits `if (chosen) { f }` and hands the value to the scope with `broadcast` (a C++ function
    /// of the team, the value and the source).
    fn single(team: TeamShadow, chosen: &str, broadcast: &str, f: impl FnOnce() -> Self) -> Self;
}

impl SingleValue for () {
    fn single(_: TeamShadow, chosen: &str, _: &str, f: impl FnOnce()) {
        builder::line(format!("if ({chosen}) {{"));
        builder::indent(1);
        f();
        builder::indent(-1);
        builder::line("}");
    }
}

impl<T: DeviceValue> SingleValue for Expr<T> {
    fn single(team: TeamShadow, chosen: &str, broadcast: &str, f: impl FnOnce() -> Self) -> Self {
        let t = builder::fresh_temp("fk_single");
        builder::line(format!("{} {t};", T::cxx_name()));
        builder::line(format!("if ({chosen}) {{"));
        builder::indent(1);
        let v = f();
        builder::line(format!("{t} = {};", v.text()));
        builder::indent(-1);
        builder::line("}");
        builder::line(format!("{t} = {broadcast}({}, {t}, 0u);", team.text()));
        Expr::name(&t)
    }
}

/// `single(PerTeam(team), f)`: thread 0's lane 0 runs `f`; its value goes to every thread.
pub fn single_team<T: SingleValue>(team: TeamShadow, f: impl FnOnce() -> T) -> T {
    let t = team.text();
    T::single(
        team,
        &format!("{t}.rank() == 0u && {t}.lane() == 0u"),
        "fk::team_broadcast",
        f,
    )
}

/// `single(PerThread(team), f)`: each thread's lane 0 runs `f`; its value goes to the thread's
/// lanes.
pub fn single_thread<T: SingleValue>(team: TeamShadow, f: impl FnOnce() -> T) -> T {
    let t = team.text();
    T::single(
        team,
        &format!("{t}.lane() == 0u"),
        "fk::vector_broadcast",
        f,
    )
}

/// The element types of scratch Views in team kernels: primitive numbers, every bit pattern of
/// which is a value (scratch memory holds what earlier work left there). Sealed.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the element of a scratch View",
    label = "not a primitive number",
    note = "scratch memory holds what earlier work left there, so a scratch View holds only types \
            every bit pattern of which is a value: f32, f64, i8 to i64, isize, u8 to u64, usize \
            (a flag can be a `u8`)"
)]
pub trait ScratchValue: DeviceScalar + crate::view::Element + Copy + scratch_seal::Sealed {}

mod scratch_seal {
    /// Implemented by the scratch value types only.
    #[diagnostic::on_unimplemented(
        message = "`ScratchValue` is sealed: a scratch View holds primitive numbers only",
        label = "`{Self}` cannot be the element of a scratch View",
        note = "scratch memory holds what earlier work left there, so its elements are types every \
                bit pattern of which is a value: f32, f64, i8 to i64, isize, u8 to u64, usize"
    )]
    pub trait Sealed {}
}

macro_rules! scratch_values {
    ($($t:ty)*) => {$(
        impl scratch_seal::Sealed for $t {}
        impl ScratchValue for $t {}
    )*};
}

scratch_values!(f32 f64 i8 i16 i32 i64 isize u8 u16 u32 u64 usize);

thread_local! {
    /// The C++ expression of the next free byte of each scratch part (`[level][per thread]`) in
    /// the team body being emitted (reset by [`reset_scratch`]).
    static NEXT: std::cell::RefCell<[[String; 2]; 2]> = std::cell::RefCell::new(Default::default());
}

/// Starts a team body's emission: no scratch View carved yet.
pub(crate) fn reset_scratch() {
    NEXT.with(|n| *n.borrow_mut() = Default::default());
}

/// `team.team_scratch(level).view::<T, R>(extents)` (or `thread_scratch` with `per_thread`): the
/// next part of the level's team (or thread) scratch, as a right-layout View. Views start at
/// multiples of 8 bytes in declaration order, as on the host.
pub fn scratch_view<T: ScratchValue, const R: usize>(
    team: TeamShadow,
    level: usize,
    per_thread: bool,
    name: &str,
    extents: [Expr<usize>; R],
) -> ViewExpr<T, R, LayoutRight> {
    let level = level.min(1);
    let t = team.text();
    let base = if per_thread {
        format!("{t}.thread_scratch[{level}]")
    } else {
        format!("{t}.team_scratch[{level}]")
    };
    let at = NEXT.with(|n| n.borrow()[level][per_thread as usize].clone());
    let at = if at.is_empty() {
        "(u64)0".to_string()
    } else {
        at
    };
    let dims: Vec<String> = extents
        .iter()
        .map(|e| format!("(usize)({})", e.text()))
        .collect();
    let var = builder::fresh_name(name);
    let ty = <T as DeviceScalar>::CXX;
    builder::line(format!(
        "const fk::View<{ty}, {R}, fk::LayoutRight> {var} = fk::scratch_view<{ty}, {R}>({base}, {at}, {});",
        dims.join(", ")
    ));
    let end = builder::fresh_temp(&format!("{name}_end"));
    builder::line(format!(
        "const u64 {end} = {at} + ((u64)sizeof({ty}) * {} + 7) / 8 * 8;",
        dims.iter()
            .map(|d| format!("(u64){d}"))
            .collect::<Vec<_>>()
            .join(" * ")
    ));
    NEXT.with(|n| n.borrow_mut()[level][per_thread as usize] = end);
    ViewExpr::new(&var)
}
