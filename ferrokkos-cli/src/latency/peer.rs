//! The rayon peer of `--compare`: the same kernels, launched with rayon.

use std::hint::black_box;
use std::time::Instant;

use ferrokkos::View;
use rayon::prelude::*;

use super::measure::{Check, Implementation, K, Kinds, SETTLE, measure, update, values};
use crate::Failure;

/// A rayon pool with as many threads as the ferrokkos instance it is compared with.
pub struct Rayon(rayon::ThreadPool);

impl Rayon {
    /// A pool of `threads` rayon workers.
    pub fn new(threads: usize) -> Result<Rayon, Failure> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("rayon-{i}"))
            .build()
            .map(Rayon)
            .map_err(|e| Failure::Run(format!("latency: cannot start the rayon pool: {e}")))
    }
}

/// A launch is `pool.install` of a parallel iterator over `0..n`, from the benchmark's thread (which
/// is not one of the pool's). rayon has no fence, so its fence is nothing.
impl Implementation for Rayon {
    fn settle(&self) -> Result<(), Failure> {
        let threads = self.0.current_num_threads();
        let start = Instant::now();
        while start.elapsed() < SETTLE {
            self.0.install(|| {
                (0..threads).into_par_iter().for_each(|i| {
                    black_box(i);
                })
            });
        }
        Ok(())
    }

    fn kinds<const V: usize>(&self, n: usize, m: usize) -> Result<Kinds, Failure> {
        let pool = &self.0;
        let a = View::<f64, 1>::new("A (rayon)", [n])?;
        let mut result = 0.0;
        let mut cell = Box::new(0.0);
        let (values, k) = (values::<V>(), black_box(K));
        // A reduction: each iteration maps to its contribution, `a(i)` after the update; then a sum.
        let sum = || {
            // SAFETY: iteration i of the kernel reads and writes a(i) only.
            let acc = unsafe { a.parallel_mut()? };
            // Built in the call (a `let` first costs one more copy of the array per launch).
            Ok::<_, ferrokkos::Error>(
                (0..n)
                    .into_par_iter()
                    .map(move |i: usize| update(&acc, &values, k, i))
                    .sum::<f64>(),
            )
        };
        let fence = || Ok::<_, ferrokkos::Error>(());
        let mut check = Check::new(&a, "rayon", V * 8, m);

        let launch = || {
            pool.install(|| {
                // SAFETY: iteration i of the kernel reads and writes a(i) only.
                let acc = unsafe { a.parallel_mut()? };
                (0..n).into_par_iter().for_each(move |i: usize| {
                    update(&acc, &values, k, i);
                });
                Ok(())
            })
        };
        let for_ = measure(m, launch, fence)?;
        check.kind_done(0, None)?;
        let launch = || {
            result = pool.install(sum)?;
            Ok(())
        };
        let reduce = measure(m, launch, fence)?;
        check.kind_done(1, Some(result))?;
        let launch = || {
            // The result is stored in memory, as a reduction into a View stores it.
            *black_box(&mut *cell) = pool.install(sum)?;
            Ok(())
        };
        let reduce_view = measure(m, launch, fence)?;
        check.kind_done(2, Some(*cell))?;
        Ok([for_, reduce, reduce_view])
    }
}
