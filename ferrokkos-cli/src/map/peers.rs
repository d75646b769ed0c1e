//! The host peers of `ferrokkos map --compare`: the same inserts and lookups with std's `HashMap`
//! on one thread (Serial's peer) or with dashmap's sharded concurrent map from a rayon pool of as
//! many threads as the space (Threads' peer).

use std::collections::HashMap;

use super::cases::{key, probe, value};

/// A host peer and its table.
pub enum Peer {
    InOrder(HashMap<u64, u64>),
    #[cfg(feature = "peers")]
    Sharded(rayon::ThreadPool, dashmap::DashMap<u64, u64>),
}

impl Peer {
    /// The peer of a space of `threads` threads (`serial`: std's `HashMap`), for `distinct` keys.
    pub fn new(serial: bool, threads: usize, distinct: usize) -> Result<Peer, String> {
        if serial {
            return Ok(Peer::InOrder(HashMap::with_capacity(distinct)));
        }
        #[cfg(feature = "peers")]
        {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| format!("starting rayon's pool of {threads} threads: {e}"))?;
            Ok(Peer::Sharded(
                pool,
                dashmap::DashMap::with_capacity(distinct),
            ))
        }
        #[cfg(not(feature = "peers"))]
        {
            let _ = threads;
            Err("the threads peer needs ferrokkos-cli built with the `peers` feature".into())
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Peer::InOrder(_) => "std HashMap",
            #[cfg(feature = "peers")]
            Peer::Sharded(..) => "dashmap (rayon)",
        }
    }

    /// Empties the table (not timed).
    pub fn clear(&mut self) {
        match self {
            Peer::InOrder(m) => m.clear(),
            #[cfg(feature = "peers")]
            Peer::Sharded(_, m) => m.clear(),
        }
    }

    /// `n` inserts of keys among `distinct`.
    pub fn insert(&mut self, n: usize, distinct: usize) {
        match self {
            Peer::InOrder(m) => {
                for i in 0..n {
                    let k = key(i, distinct);
                    m.entry(k).or_insert(value(k));
                }
            }
            #[cfg(feature = "peers")]
            Peer::Sharded(pool, m) => {
                use rayon::prelude::*;
                pool.install(|| {
                    (0..n).into_par_iter().for_each(|i| {
                        let k = key(i, distinct);
                        m.entry(k).or_insert(value(k));
                    })
                });
            }
        }
    }

    /// `n` lookups: the sum of the values found.
    pub fn lookup(&self, n: usize, distinct: usize) -> u64 {
        match self {
            Peer::InOrder(m) => (0..n)
                .filter_map(|i| m.get(&probe(i, distinct)).copied())
                .fold(0u64, u64::wrapping_add),
            #[cfg(feature = "peers")]
            Peer::Sharded(pool, m) => {
                use rayon::prelude::*;
                pool.install(|| {
                    (0..n)
                        .into_par_iter()
                        .filter_map(|i| m.get(&probe(i, distinct)).map(|v| *v))
                        .reduce(|| 0, u64::wrapping_add)
                })
            }
        }
    }
}
