//! The host peers of `ferrokkos random --compare`, both filling chunks of 64Ki elements with
//! `random::<f64>()` from a rayon pool of as many threads as the space (in order on one thread for
//! Serial): the `rand` crate's per-thread generator (`rand::rng()`, ChaCha12 reseeded from the
//! system), and its `SmallRng` (xoshiro256++), one per chunk seeded from the chunk's number.

use super::Fill;
#[cfg(feature = "peers")]
use crate::Failure;

/// The elements of one chunk (one generator).
#[cfg(feature = "peers")]
const CHUNK: usize = 1 << 16;

/// Which of rand's generators a peer uses.
#[cfg(feature = "peers")]
#[derive(Clone, Copy)]
enum Kind {
    /// `rand::rng()`: the calling thread's generator.
    ThreadRng,
    /// `SmallRng::seed_from_u64(chunk)`.
    SmallRng,
}

#[cfg(feature = "peers")]
struct RandPeer {
    kind: Kind,
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
    out: Vec<f64>,
}

#[cfg(feature = "peers")]
impl RandPeer {
    fn chunk(kind: Kind, k: usize, c: &mut [f64]) {
        use rand::{Rng, SeedableRng};
        match kind {
            Kind::ThreadRng => {
                let mut rng = rand::rng();
                for e in c {
                    *e = rng.random::<f64>();
                }
            }
            Kind::SmallRng => {
                let mut rng = rand::rngs::SmallRng::seed_from_u64(k as u64);
                for e in c {
                    *e = rng.random::<f64>();
                }
            }
        }
    }
}

#[cfg(feature = "peers")]
impl Fill for RandPeer {
    fn name(&self) -> String {
        let what = match self.kind {
            Kind::ThreadRng => "rand rand::rng() (ChaCha12) per thread",
            Kind::SmallRng => "rand SmallRng (xoshiro256++) per chunk",
        };
        match &self.pool {
            Some(p) => format!("{what} (rayon, {} threads)", p.current_num_threads()),
            None => format!("{what} (1 thread)"),
        }
    }
    fn fill(&mut self) -> Result<(), Failure> {
        use rayon::prelude::*;
        let (out, kind) = (&mut self.out, self.kind);
        match &self.pool {
            Some(p) => p.install(|| {
                out.par_chunks_mut(CHUNK)
                    .enumerate()
                    .for_each(|(k, c)| RandPeer::chunk(kind, k, c))
            }),
            None => out
                .chunks_mut(CHUNK)
                .enumerate()
                .for_each(|(k, c)| RandPeer::chunk(kind, k, c)),
        }
        Ok(())
    }
    fn numbers(&self) -> Result<Vec<f64>, Failure> {
        Ok(self.out.clone())
    }
}

/// The peers for a space of `threads` threads (one: in order, without rayon), filling `n`
/// numbers each.
pub fn peers(threads: usize, n: usize) -> Result<Vec<Box<dyn Fill>>, String> {
    #[cfg(feature = "peers")]
    {
        let pool = if threads > 1 {
            Some(std::sync::Arc::new(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|e| format!("starting rayon's pool of {threads} threads: {e}"))?,
            ))
        } else {
            None
        };
        Ok([Kind::ThreadRng, Kind::SmallRng]
            .into_iter()
            .map(|kind| {
                Box::new(RandPeer {
                    kind,
                    pool: pool.clone(),
                    out: vec![0.0; n],
                }) as Box<dyn Fill>
            })
            .collect())
    }
    #[cfg(not(feature = "peers"))]
    {
        let _ = (threads, n);
        Err("the host peer needs ferrokkos-cli built with the `peers` feature".into())
    }
}
