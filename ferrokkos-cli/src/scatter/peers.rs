//! The host peers of `ferrokkos scatter --compare`: the same workloads in plain Rust, a loop on one
//! thread (Serial's peer) or rayon's `fold` of per-thread arrays then `reduce` (Threads' peer, on
//! as many threads as the space).

use super::cases::{SALT_X, SALT_Y, bin, coordinate};

/// How a peer runs: in order on this thread, or on a rayon pool.
pub enum Peer {
    InOrder,
    #[cfg(feature = "peers")]
    Rayon(rayon::ThreadPool),
}

impl Peer {
    /// The peer of a space of `threads` threads (`serial`: the loop).
    pub fn new(serial: bool, threads: usize) -> Result<Peer, String> {
        if serial {
            return Ok(Peer::InOrder);
        }
        #[cfg(feature = "peers")]
        {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map(Peer::Rayon)
                .map_err(|e| format!("starting rayon's pool of {threads} threads: {e}"))
        }
        #[cfg(not(feature = "peers"))]
        {
            let _ = threads;
            Err("the threads peer needs ferrokkos-cli built with the `peers` feature".into())
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Peer::InOrder => "Rust loop",
            #[cfg(feature = "peers")]
            Peer::Rayon(_) => "rayon fold/reduce",
        }
    }

    /// `n` keys counted into `bins` bins.
    pub fn histogram(&self, n: usize, bins: usize) -> Vec<u32> {
        let add = |mut h: Vec<u32>, i: usize| {
            h[bin(i, bins)] += 1;
            h
        };
        match self {
            Peer::InOrder => (0..n).fold(vec![0; bins], add),
            #[cfg(feature = "peers")]
            Peer::Rayon(pool) => pool.install(|| {
                use rayon::prelude::*;
                (0..n)
                    .into_par_iter()
                    .fold(|| vec![0; bins], add)
                    .reduce(|| vec![0; bins], merge)
            }),
        }
    }

    /// `n` particles deposited on an `m` x `m` grid (row-major).
    pub fn deposit(&self, n: usize, m: usize) -> Vec<f64> {
        let add = |mut g: Vec<f64>, p: usize| {
            let (x, y) = (coordinate(p, m, SALT_X), coordinate(p, m, SALT_Y));
            let (i, j) = (x as usize, y as usize);
            let (fx, fy) = (x - i as f64, y - j as f64);
            g[i * m + j] += (1.0 - fx) * (1.0 - fy);
            g[(i + 1) * m + j] += fx * (1.0 - fy);
            g[i * m + j + 1] += (1.0 - fx) * fy;
            g[(i + 1) * m + j + 1] += fx * fy;
            g
        };
        match self {
            Peer::InOrder => (0..n).fold(vec![0.0; m * m], add),
            #[cfg(feature = "peers")]
            Peer::Rayon(pool) => pool.install(|| {
                use rayon::prelude::*;
                (0..n)
                    .into_par_iter()
                    .fold(|| vec![0.0; m * m], add)
                    .reduce(|| vec![0.0; m * m], merge)
            }),
        }
    }
}

/// `a + b`, element by element.
#[cfg(feature = "peers")]
fn merge<T: Copy + std::ops::AddAssign>(mut a: Vec<T>, b: Vec<T>) -> Vec<T> {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
    a
}
