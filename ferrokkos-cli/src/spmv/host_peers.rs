//! The peers `--compare` measures ferrokkos against on the host spaces: the plain serial loop the
//! reference is computed with, and rayon.

use std::sync::Arc;

use super::Implementation;
use super::matrix::Csr;
use crate::Failure;

/// y = A x as a plain Rust loop over the rows on one thread: the reference's own code, timed.
pub struct PlainLoop {
    /// The host matrix (shared with the reference).
    a: Arc<Csr>,
    /// The input vector (shared with the reference).
    x: Arc<Vec<f64>>,
    /// The output vector.
    y: Vec<f64>,
}

impl PlainLoop {
    /// The loop over `a` and `x`, with y filled with NaN.
    pub fn new(a: Arc<Csr>, x: Arc<Vec<f64>>) -> Self {
        let y = vec![f64::NAN; a.rows()];
        PlainLoop { a, x, y }
    }
}

impl Implementation for PlainLoop {
    fn name(&self) -> String {
        "plain serial loop (the reference's code)".into()
    }

    fn short_name(&self) -> &'static str {
        "plain loop"
    }

    fn run(&mut self) -> Result<(), Failure> {
        self.a.multiply(&self.x, &mut self.y);
        Ok(())
    }

    fn result(&self) -> Result<Vec<f64>, Failure> {
        Ok(self.y.clone())
    }
}

/// The rows rayon's `par_chunks_mut` hands out at a time (as many as a ferrokkos team owns).
#[cfg(feature = "peers")]
pub const RAYON_ROWS_PER_CHUNK: usize = super::ferrokkos_team::HOST_ROWS_PER_TEAM;

/// y = A x with rayon: `par_chunks_mut` of y by blocks of [`RAYON_ROWS_PER_CHUNK`] rows, each
/// block's rows one after the other, on a pool as large as ferrokkos' Threads.
#[cfg(feature = "peers")]
pub struct Rayon {
    /// The pool the products run on.
    pool: rayon::ThreadPool,
    /// Row offsets.
    row_ptr: Vec<u32>,
    /// Column indices.
    col: Vec<u32>,
    /// Values.
    val: Vec<f64>,
    /// The input vector.
    x: Vec<f64>,
    /// The output vector.
    y: Vec<f64>,
}

#[cfg(feature = "peers")]
impl Rayon {
    /// A pool of `threads` threads and copies of the matrix and x made on it (so that each page is
    /// first touched by a pool thread), y filled with NaN.
    pub fn new(a: &Csr, x: &[f64], threads: usize) -> Result<Self, Failure> {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Failure::Run(format!("spmv: could not start the rayon pool: {e}")))?;
        let (row_ptr, col, val, x, y) = pool.install(|| {
            (
                a.row_ptr.par_iter().copied().collect(),
                a.col.par_iter().copied().collect(),
                a.val.par_iter().copied().collect(),
                x.par_iter().copied().collect(),
                (0..a.rows()).into_par_iter().map(|_| f64::NAN).collect(),
            )
        });
        Ok(Rayon {
            pool,
            row_ptr,
            col,
            val,
            x,
            y,
        })
    }
}

#[cfg(feature = "peers")]
impl Implementation for Rayon {
    fn name(&self) -> String {
        format!(
            "rayon, par_chunks_mut of {RAYON_ROWS_PER_CHUNK} rows ({} threads)",
            self.pool.current_num_threads()
        )
    }

    fn short_name(&self) -> &'static str {
        "rayon"
    }

    fn run(&mut self) -> Result<(), Failure> {
        use rayon::prelude::*;
        let (row_ptr, col, val, x) = (&self.row_ptr[..], &self.col[..], &self.val[..], &self.x[..]);
        let y = &mut self.y[..];
        self.pool.install(|| {
            y.par_chunks_mut(RAYON_ROWS_PER_CHUNK)
                .enumerate()
                .for_each(|(block, rows)| {
                    let first = block * RAYON_ROWS_PER_CHUNK;
                    for (r, yi) in rows.iter_mut().enumerate() {
                        *yi = super::matrix::row_times(row_ptr, col, val, first + r, x);
                    }
                });
        });
        Ok(())
    }

    fn result(&self) -> Result<Vec<f64>, Failure> {
        Ok(self.y.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_peers_match_the_reference() {
        let a = Csr::laplacian_3d(9).unwrap();
        let x = a.input().unwrap();
        let want = a.reference(&x).unwrap();
        let mut plain = PlainLoop::new(Arc::new(a.clone()), Arc::new(x.clone()));
        assert!(plain.result().unwrap().iter().all(|v| v.is_nan()));
        plain.run().unwrap();
        assert_eq!(plain.result().unwrap(), want);
        #[cfg(feature = "peers")]
        {
            let mut r = Rayon::new(&a, &x, 2).unwrap();
            r.run().unwrap();
            assert_eq!(r.result().unwrap(), want);
        }
    }
}
