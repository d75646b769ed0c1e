//! The measurements: Kokkos' three figures for each launch kind, taken for ferrokkos and for rayon,
//! and the check that the kernels computed what they should.

use std::hint::black_box;
use std::time::{Duration, Instant};

use ferrokkos::traits::HostExecutionSpace;
use ferrokkos::{
    HostSpace, LayoutRight, ParallelMut, RangePolicy, View, parallel_for, parallel_reduce,
};

use crate::Failure;

/// Launches of each kind before its timed loops (as in Kokkos' benchmark).
pub const WARM_UP: usize = 4;

/// Kokkos' K: how many entries of the captured array the body uses.
pub(super) const K: usize = 1;

/// The launch kinds, in the order they run and are reported.
pub const PATTERNS: [&str; 3] = ["parallel_for", "parallel_reduce", "parallel_reduce(view)"];

/// Kokkos' three figures for one launch kind, in microseconds per launch.
#[derive(Clone, Copy, Debug)]
pub struct Figures {
    /// M launches / M.
    pub dispatch: f64,
    /// (M launches + one fence) / M.
    pub throughput: f64,
    /// M x (launch + fence) / M.
    pub latency: f64,
}

/// The figures of the three launch kinds, in [`PATTERNS`] order.
pub type Kinds = [Figures; 3];

/// The accessor through which the kernels update the View `a`.
type Acc<'a> = ParallelMut<'a, f64, 1, LayoutRight, HostSpace>;

/// The functor's array: `values[0] = 1` (so that `a(i)` counts the launches times `i`), the others
/// arbitrary. Opaque to the optimizer, as the members of Kokkos' functor are.
pub(super) fn values<const V: usize>() -> [f64; V] {
    let mut values = [0.0; V];
    for (j, v) in values.iter_mut().enumerate() {
        *v = if j == 0 { 1.0 } else { 0.5 + j as f64 };
    }
    black_box(values)
}

/// Kokkos' loop body, `for j in 0..K { a(i) += 1.0 * i * values[j] }`; returns `a(i)`, which the
/// reduce kernels add to their sum. The kernels are `move` closures built at each launch, holding a
/// copy of `values` (so they are as big as Kokkos' functor), `k` and an accessor of `a`, as a Kokkos
/// launch copies its functor with its View. (Built in place: a helper returning the closure cost one
/// more copy of the array per launch.)
#[inline(always)]
pub(super) fn update<const V: usize>(a: &Acc<'_>, values: &[f64; V], k: usize, i: usize) -> f64 {
    for v in values.iter().take(k) {
        a.set(i, a.get(i) + 1.0 * i as f64 * v);
    }
    a.get(i)
}

/// Kokkos' measurement of one launch kind: 4 warm-up launches and a fence, then M launches timed
/// without and with the trailing fence, then M launches each followed by a fence.
pub(super) fn measure<E>(
    m: usize,
    mut launch: impl FnMut() -> Result<(), E>,
    mut fence: impl FnMut() -> Result<(), E>,
) -> Result<Figures, E> {
    for _ in 0..WARM_UP {
        launch()?;
    }
    fence()?;
    let start = Instant::now();
    for _ in 0..m {
        launch()?;
    }
    let dispatch = start.elapsed();
    fence()?;
    let throughput = start.elapsed();
    let start = Instant::now();
    for _ in 0..m {
        launch()?;
        fence()?;
    }
    let latency = start.elapsed();
    fence()?;
    let per_launch = |t: Duration| t.as_secs_f64() * 1e6 / m as f64;
    Ok(Figures {
        dispatch: per_launch(dispatch),
        throughput: per_launch(throughput),
        latency: per_launch(latency),
    })
}

/// The figure-by-figure medians of several measurements of `N` rows (NaN where there are none).
pub(super) fn medians<const N: usize>(all: &[[Figures; N]]) -> [Figures; N] {
    let median = |f: &dyn Fn(&[Figures; N]) -> f64| {
        let mut v: Vec<f64> = all.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
    };
    std::array::from_fn(|k| Figures {
        dispatch: median(&|x| x[k].dispatch),
        throughput: median(&|x| x[k].throughput),
        latency: median(&|x| x[k].latency),
    })
}

/// Checks the state after each launch kind: `a(i)` must equal (launches so far) x `i`, and a
/// reduction must have returned the sum of `a` as a sequential loop computes it.
pub(super) struct Check<'v> {
    /// The View the kernels update (on a device: a host View the caller copies the array into
    /// before each check).
    a: &'v View<f64, 1>,
    /// `ferrokkos`, `rayon` or `raw CUDA`.
    implementation: &'static str,
    /// The capture size in bytes, for the message.
    capture: usize,
    /// Launches of one kind: warm-up and the two timed loops.
    per_kind: usize,
    /// Launches so far.
    launches: usize,
}

impl<'v> Check<'v> {
    /// A check of `a`, updated by `m` timed launches per kind.
    pub(super) fn new(
        a: &'v View<f64, 1>,
        implementation: &'static str,
        capture: usize,
        m: usize,
    ) -> Self {
        Check {
            a,
            implementation,
            capture,
            per_kind: WARM_UP + 2 * m,
            launches: 0,
        }
    }

    /// Checks the state after the launch kind `kind` (an index into [`PATTERNS`]), which returned
    /// `reduced` if it is a reduction.
    pub(super) fn kind_done(&mut self, kind: usize, reduced: Option<f64>) -> Result<(), Failure> {
        self.launches += self.per_kind;
        let a = self.a.host()?;
        let n = self.a.extent(0);
        let wrong = |what: String| {
            Failure::Run(format!(
                "latency: {} {} (N = {n}, capture {} B) computed a wrong result: {what}",
                self.implementation, PATTERNS[kind], self.capture
            ))
        };
        let mut sum = 0.0;
        for i in 0..n {
            let (got, want) = (a[i], self.launches as f64 * i as f64);
            if !close(got, want) {
                return Err(wrong(format!("a({i}) = {got}, expected {want}")));
            }
            sum += got;
        }
        match reduced {
            Some(r) if !close(r, sum) => Err(wrong(format!("the sum is {r}, expected {sum}"))),
            _ => Ok(()),
        }
    }
}

/// Whether `got` is finite and equal to `want` up to rounding (the values are integers, so the
/// figures are exact unless they pass 2^53).
fn close(got: f64, want: f64) -> bool {
    got.is_finite() && (got - want).abs() <= 1e-12 * want.abs().max(1.0)
}

/// Untimed launches before the first measurement of an implementation. Right after a pool starts
/// (or wakes from a long idle), the OS may run its workers on the caller's core until its load
/// balancer moves them, and each launch then costs a scheduler time slice (about 150 us here, for the
/// first tens of milliseconds); the first measured kind would report that instead of the steady state.
pub const SETTLE: Duration = Duration::from_millis(100);

/// A runtime whose launches are measured: ferrokkos, or rayon with `--compare`.
pub trait Implementation {
    /// Launches an empty loop on every thread for [`SETTLE`], untimed.
    fn settle(&self) -> Result<(), Failure>;

    /// Measures the three launch kinds: loop length `n`, a kernel capturing `V` doubles, `m`
    /// launches per timed loop; checks the results.
    fn kinds<const V: usize>(&self, n: usize, m: usize) -> Result<Kinds, Failure>;
}

/// ferrokkos on the execution-space instance `S`.
pub struct Ferrokkos<'e, S>(pub &'e S);

impl<S: HostExecutionSpace> Implementation for Ferrokkos<'_, S> {
    fn settle(&self) -> Result<(), Failure> {
        let start = Instant::now();
        while start.elapsed() < SETTLE {
            let policy = RangePolicy::new(self.0, 0, self.0.concurrency())?;
            parallel_for("latency_settle", policy, |i: usize| {
                black_box(i);
            })?;
        }
        Ok(())
    }

    fn kinds<const V: usize>(&self, n: usize, m: usize) -> Result<Kinds, Failure> {
        let exec = self.0;
        let a = View::<f64, 1>::new("A", [n])?;
        let v_result = View::<f64, 0>::new("result", [])?;
        let mut result = 0.0;
        let (values, k) = (values::<V>(), black_box(K));
        let policy = || RangePolicy::new(exec, 0, n);
        let fence = || exec.fence("latency");
        let mut check = Check::new(&a, "ferrokkos", V * 8, m);

        let launch = || {
            // SAFETY: iteration i of the kernel reads and writes a(i) only.
            let acc = unsafe { a.parallel_mut()? };
            parallel_for("latency_for", policy()?, move |i: usize| {
                update(&acc, &values, k, i);
            })
        };
        let for_ = measure(m, launch, fence)?;
        check.kind_done(0, None)?;
        let launch = || {
            // SAFETY: iteration i of the kernel reads and writes a(i) only.
            let acc = unsafe { a.parallel_mut()? };
            // Built in the call, as the parallel_for's closure: a `let` first costs one more
            // copy of the array per launch.
            parallel_reduce(
                "latency_reduce",
                policy()?,
                move |i: usize, lsum: &mut f64| *lsum += update(&acc, &values, k, i),
                &mut result,
            )
        };
        let reduce = measure(m, launch, fence)?;
        check.kind_done(1, Some(result))?;
        let launch = || {
            // SAFETY: iteration i of the kernel reads and writes a(i) only.
            let acc = unsafe { a.parallel_mut()? };
            // Built in the call, as the parallel_for's closure: a `let` first costs one more
            // copy of the array per launch.
            parallel_reduce(
                "latency_reduce_view",
                policy()?,
                move |i: usize, lsum: &mut f64| *lsum += update(&acc, &values, k, i),
                &v_result,
            )
        };
        let reduce_view = measure(m, launch, fence)?;
        check.kind_done(2, Some(v_result.get(())?))?;
        Ok([for_, reduce, reduce_view])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_are_taken_figure_by_figure() {
        let f = |d: f64, t: f64, l: f64| Figures {
            dispatch: d,
            throughput: t,
            latency: l,
        };
        let all = [[f(3.0, 1.0, 5.0)], [f(1.0, 2.0, 4.0)], [f(2.0, 3.0, 6.0)]];
        let [m] = medians(&all);
        assert_eq!((m.dispatch, m.throughput, m.latency), (2.0, 2.0, 5.0));
        let [none] = medians::<1>(&[]);
        assert!(none.dispatch.is_nan() && none.latency.is_nan());
    }

    #[test]
    fn close_accepts_rounding_only() {
        assert!(close(6e13, 6e13) && close(0.0, 0.0) && close(1e15 + 0.5, 1e15));
        assert!(!close(f64::NAN, 0.0) && !close(f64::INFINITY, f64::INFINITY));
        assert!(!close(1.0, 0.0) && !close(6e13 + 1e3, 6e13));
    }
}
