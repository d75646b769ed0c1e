//! [`Custom`]: a reducer from an identity, a join and an optional final step.

use super::Reducer;

/// A reducer built from closures (Kokkos' custom reducer: `init`, `join`, optional `final`).
///
/// ```
/// use ferrokkos::prelude::*;
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// // The mean of 1..=100 as (sum, count), divided at the end.
/// let mean = Custom::new(|| (0.0, 0u32), |d: &mut (f64, u32), s: &(f64, u32)| {
///         d.0 += s.0;
///         d.1 += s.1;
///     })
///     .with_final(|v: &mut (f64, u32)| v.0 /= v.1 as f64);
/// let (avg, n) = parallel_reduce("mean", RangePolicy::new(&exec, 1, 101)?,
///     |i: usize, acc: &mut (f64, u32)| { acc.0 += i as f64; acc.1 += 1; }, mean)?;
/// assert_eq!((avg, n), (50.5, 100));
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[derive(Clone)]
pub struct Custom<Init, Join, Final = fn(&mut ())> {
    init: Init,
    join: Join,
    finish: Option<Final>,
}

impl<V, Init, Join> Custom<Init, Join, fn(&mut V)>
where
    V: Clone + Send + Sync,
    Init: Fn() -> V + Sync,
    Join: Fn(&mut V, &V) + Sync,
{
    /// A reducer whose identity is `init()` and whose join is `join(dst, src)`. The join must be
    /// associative and `init()` its identity; results are then independent of how the work is split.
    pub fn new(init: Init, join: Join) -> Self {
        Custom {
            init,
            join,
            finish: None,
        }
    }
}

impl<Init, Join, Final> Custom<Init, Join, Final> {
    /// Adds a step applied once to the joined result (Kokkos' `final`).
    pub fn with_final<V, F: Fn(&mut V) + Sync>(self, finish: F) -> Custom<Init, Join, F> {
        Custom {
            init: self.init,
            join: self.join,
            finish: Some(finish),
        }
    }
}

impl<Init, Join, Final> std::fmt::Debug for Custom<Init, Join, Final> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Custom")
            .field("has_final", &self.finish.is_some())
            .finish_non_exhaustive()
    }
}

impl<V, Init, Join, Final> Reducer for Custom<Init, Join, Final>
where
    V: Clone + Send + Sync,
    Init: Fn() -> V + Sync,
    Join: Fn(&mut V, &V) + Sync,
    Final: Fn(&mut V) + Sync,
{
    type Value = V;
    #[inline(always)]
    fn init(&self) -> V {
        (self.init)()
    }
    #[inline(always)]
    fn join(&self, dst: &mut V, src: &V) {
        (self.join)(dst, src)
    }
    fn finalize(&self, value: &mut V) {
        if let Some(f) = &self.finish {
            f(value)
        }
    }
}
