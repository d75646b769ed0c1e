//! The host peers of `ferrokkos sort --compare`, from a rayon pool of as many threads as the space
//! (std's sorts on the calling thread for Serial): `par_sort_unstable` of a `Vec<u32>` (rayon's
//! parallel pattern-defeating quicksort), `par_sort_by_key` (a stable parallel merge sort) and
//! `par_sort_unstable_by_key` of a `Vec<(u32, u32)>` by its first field, and `par_sort_by` (the
//! same merge sort, with a comparator) of a `Vec<u32>`. The stable one is the fair peer of
//! `sort_by_key`, which is stable; the unstable one is the fastest rayon has; `par_sort_by` is the
//! peer of `sort_with`.

use std::sync::Arc;

use super::Sorter;

/// The peers for a space of `threads` threads (one: on the calling thread, without rayon), each
/// sorting its copy of `original` (`par_sort_by` only if `comparator`); or why they were not
/// built.
pub fn peers(
    threads: usize,
    original: &Arc<Vec<u32>>,
    comparator: bool,
) -> Result<Vec<Box<dyn Sorter>>, String> {
    #[cfg(feature = "peers")]
    {
        imp::peers(threads, original, comparator)
            .map_err(|why| format!("rayon peers skipped: {why}"))
    }
    #[cfg(not(feature = "peers"))]
    {
        let _ = (threads, original, comparator);
        Err("rayon peers skipped: they need ferrokkos-cli built with the `peers` feature".into())
    }
}

#[cfg(feature = "peers")]
mod imp {
    use std::sync::Arc;

    use rayon::ThreadPool;
    use rayon::prelude::*;

    use super::super::{Kind, Sorted, Sorter};
    use crate::Failure;

    /// "(16 threads)" for a pool, "(1 thread)" without one.
    fn threads(pool: &Option<Arc<ThreadPool>>) -> String {
        let n = pool.as_ref().map_or(1, |p| p.current_num_threads());
        format!("({})", crate::spaces::count(n, "thread"))
    }

    /// `par_sort_unstable` of a `Vec<u32>` (`sort_unstable` without a pool), or, `by_comparator`,
    /// `par_sort_by(|a, b| a.cmp(b))` (`sort_by`).
    struct Keys {
        /// The pool that sorts, or none for the calling thread.
        pool: Option<Arc<ThreadPool>>,
        /// Whether the stable sort with a comparator is used.
        by_comparator: bool,
        /// The unsorted keys.
        original: Arc<Vec<u32>>,
        /// The keys that are sorted.
        keys: Vec<u32>,
    }

    impl Sorter for Keys {
        fn name(&self) -> String {
            let call = match (self.pool.is_some(), self.by_comparator) {
                (true, false) => "rayon par_sort_unstable",
                (true, true) => "rayon par_sort_by(|a, b| a.cmp(b)), stable",
                (false, false) => "std sort_unstable",
                (false, true) => "std sort_by(|a, b| a.cmp(b)), stable",
            };
            format!("{call} {}", threads(&self.pool))
        }
        fn kind(&self) -> Kind {
            if self.by_comparator {
                Kind::Comparator
            } else {
                Kind::Keys
            }
        }
        fn stable(&self) -> bool {
            self.by_comparator
        }
        fn restore(&mut self) -> Result<(), Failure> {
            self.keys.copy_from_slice(&self.original);
            Ok(())
        }
        // The comparator form on purpose: it is the peer of a sort by a comparator.
        #[allow(clippy::unnecessary_sort_by)]
        fn sort(&mut self) -> Result<(), Failure> {
            let keys = &mut self.keys;
            match (&self.pool, self.by_comparator) {
                (Some(p), false) => p.install(|| keys.par_sort_unstable()),
                (Some(p), true) => p.install(|| keys.par_sort_by(|a, b| a.cmp(b))),
                (None, false) => keys.sort_unstable(),
                (None, true) => keys.sort_by(|a, b| a.cmp(b)),
            }
            Ok(())
        }
        fn sorted(&self) -> Result<Sorted, Failure> {
            Ok(Sorted {
                keys: self.keys.clone(),
                values: None,
            })
        }
    }

    /// `par_sort_by_key` (stable) or `par_sort_unstable_by_key` of a `Vec<(u32, u32)>` by its
    /// first field (std's `sort_by_key` or `sort_unstable_by_key` without a pool).
    struct Pairs {
        /// The pool that sorts, or none for the calling thread.
        pool: Option<Arc<ThreadPool>>,
        /// Whether the stable sort is used.
        stable: bool,
        /// The unsorted keys (the values are their indices).
        original: Arc<Vec<u32>>,
        /// The pairs that are sorted.
        pairs: Vec<(u32, u32)>,
    }

    impl Sorter for Pairs {
        fn name(&self) -> String {
            let call = match (self.pool.is_some(), self.stable) {
                (true, true) => "rayon par_sort_by_key",
                (true, false) => "rayon par_sort_unstable_by_key",
                (false, true) => "std sort_by_key",
                (false, false) => "std sort_unstable_by_key",
            };
            let how = if self.stable { "stable" } else { "unstable" };
            format!("{call} of (u32, u32), {how} {}", threads(&self.pool))
        }
        fn kind(&self) -> Kind {
            Kind::Pairs
        }
        fn stable(&self) -> bool {
            self.stable
        }
        fn restore(&mut self) -> Result<(), Failure> {
            for (i, (pair, &k)) in self.pairs.iter_mut().zip(self.original.iter()).enumerate() {
                *pair = (k, i as u32);
            }
            Ok(())
        }
        fn sort(&mut self) -> Result<(), Failure> {
            let pairs = &mut self.pairs;
            match (&self.pool, self.stable) {
                (Some(p), true) => p.install(|| pairs.par_sort_by_key(|e| e.0)),
                (Some(p), false) => p.install(|| pairs.par_sort_unstable_by_key(|e| e.0)),
                (None, true) => pairs.sort_by_key(|e| e.0),
                (None, false) => pairs.sort_unstable_by_key(|e| e.0),
            }
            Ok(())
        }
        fn sorted(&self) -> Result<Sorted, Failure> {
            let (keys, values) = self.pairs.iter().copied().unzip();
            Ok(Sorted {
                keys,
                values: Some(values),
            })
        }
    }

    /// See [`super::peers`].
    pub fn peers(
        threads: usize,
        original: &Arc<Vec<u32>>,
        comparator: bool,
    ) -> Result<Vec<Box<dyn Sorter>>, String> {
        let pool = if threads > 1 {
            Some(Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|e| format!("starting rayon's pool of {threads} threads: {e}"))?,
            ))
        } else {
            None
        };
        let n = original.len();
        let mut peers: Vec<Box<dyn Sorter>> = vec![Box::new(Keys {
            pool: pool.clone(),
            by_comparator: false,
            original: Arc::clone(original),
            keys: vec![0; n],
        })];
        for stable in [true, false] {
            peers.push(Box::new(Pairs {
                pool: pool.clone(),
                stable,
                original: Arc::clone(original),
                pairs: vec![(0, 0); n],
            }));
        }
        if comparator {
            peers.push(Box::new(Keys {
                pool: pool.clone(),
                by_comparator: true,
                original: Arc::clone(original),
                keys: vec![0; n],
            }));
        }
        Ok(peers)
    }
}
