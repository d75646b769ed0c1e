//! The peers `--compare` measures ferrokkos against on the host spaces: a plain serial loop over
//! `Vec`s, and rayon. DeepCopy's peers are `copy_from_slice` (a `memcpy`) and Fill's `fill`, on one
//! thread or on one contiguous chunk per rayon thread.

use super::float::StreamFloat;
use super::kernel::{FILL, Kernel, SCALAR, START_A, START_B, START_C};
use super::{ArrayCheck, Implementation};
use crate::Failure;

/// BabelStream written as plain Rust loops on one thread (the compiler vectorizes them).
pub struct PlainLoop<T> {
    /// Array a.
    a: Vec<T>,
    /// Array b.
    b: Vec<T>,
    /// Array c.
    c: Vec<T>,
}

impl<T: StreamFloat> PlainLoop<T> {
    /// The arrays, initialized by writing every element. (Not `vec![0.0; n]`: that is calloc's
    /// untouched zero pages, which all map one shared physical page, so a kernel that only reads
    /// such an array, as Triad reads `c` when it runs alone, would read it from cache.)
    pub fn new(n: usize) -> Self {
        let init = |v: f64| {
            let mut array = Vec::with_capacity(n);
            array.resize(n, T::of(v));
            array
        };
        PlainLoop {
            a: init(START_A),
            b: init(START_B),
            c: init(START_C),
        }
    }
}

impl<T: StreamFloat> Implementation<T> for PlainLoop<T> {
    fn name(&self) -> String {
        "plain serial loop".into()
    }

    fn short_name(&self) -> &'static str {
        "plain loop"
    }

    fn run(&mut self, kernel: Kernel) -> Result<Option<T>, Failure> {
        let s = T::of(SCALAR);
        let (a, b, c) = (&mut self.a, &mut self.b, &mut self.c);
        match kernel {
            Kernel::Copy => c.iter_mut().zip(a.iter()).for_each(|(c, a)| *c = *a),
            Kernel::Mul => b.iter_mut().zip(c.iter()).for_each(|(b, c)| *b = s * *c),
            Kernel::Add => c
                .iter_mut()
                .zip(a.iter().zip(b.iter()))
                .for_each(|(c, (a, b))| *c = *a + *b),
            Kernel::Triad => a
                .iter_mut()
                .zip(b.iter().zip(c.iter()))
                .for_each(|(a, (b, c))| *a = *b + s * *c),
            Kernel::Nstream => a
                .iter_mut()
                .zip(b.iter().zip(c.iter()))
                .for_each(|(a, (b, c))| *a += *b + s * *c),
            Kernel::Dot => {
                let mut sum = T::ZERO;
                for (a, b) in a.iter().zip(b.iter()) {
                    sum += *a * *b;
                }
                return Ok(Some(sum));
            }
            Kernel::DeepCopy => c.copy_from_slice(a),
            Kernel::Fill => c.fill(T::of(FILL)),
        }
        Ok(None)
    }

    fn arrays(&self, check: &mut ArrayCheck<'_, T>) -> Result<(), Failure> {
        check(&self.a, &self.b, &self.c);
        Ok(())
    }
}

/// BabelStream written with rayon's parallel iterators on a pool of the same size as ferrokkos'.
#[cfg(feature = "peers")]
pub struct Rayon<T> {
    /// The pool the kernels run on.
    pool: rayon::ThreadPool,
    /// Array a.
    a: Vec<T>,
    /// Array b.
    b: Vec<T>,
    /// Array c.
    c: Vec<T>,
}

#[cfg(feature = "peers")]
impl<T: StreamFloat> Rayon<T> {
    /// A pool of `threads` threads and the arrays, initialized in parallel (first touch).
    pub fn new(n: usize, threads: usize) -> Result<Self, String> {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| format!("could not start the rayon pool: {e}"))?;
        let init = |v: T| pool.install(|| (0..n).into_par_iter().map(|_| v).collect::<Vec<T>>());
        let (a, b, c) = (
            init(T::of(START_A)),
            init(T::of(START_B)),
            init(T::of(START_C)),
        );
        Ok(Rayon { pool, a, b, c })
    }
}

#[cfg(feature = "peers")]
impl<T: StreamFloat> Implementation<T> for Rayon<T> {
    fn name(&self) -> String {
        format!("rayon ({} threads)", self.pool.current_num_threads())
    }

    fn short_name(&self) -> &'static str {
        "rayon"
    }

    fn run(&mut self, kernel: Kernel) -> Result<Option<T>, Failure> {
        use rayon::prelude::*;
        let s = T::of(SCALAR);
        let (a, b, c) = (&mut self.a, &mut self.b, &mut self.c);
        // DeepCopy and Fill: one contiguous chunk per thread, each a `memcpy` or a `fill`.
        let chunk = c.len().div_ceil(self.pool.current_num_threads()).max(1);
        Ok(self.pool.install(|| match kernel {
            Kernel::Copy => {
                c.par_iter_mut()
                    .zip(a.par_iter())
                    .for_each(|(c, a)| *c = *a);
                None
            }
            Kernel::Mul => {
                b.par_iter_mut()
                    .zip(c.par_iter())
                    .for_each(|(b, c)| *b = s * *c);
                None
            }
            Kernel::Add => {
                c.par_iter_mut()
                    .zip(a.par_iter().zip(b.par_iter()))
                    .for_each(|(c, (a, b))| *c = *a + *b);
                None
            }
            Kernel::Triad => {
                a.par_iter_mut()
                    .zip(b.par_iter().zip(c.par_iter()))
                    .for_each(|(a, (b, c))| *a = *b + s * *c);
                None
            }
            Kernel::Nstream => {
                a.par_iter_mut()
                    .zip(b.par_iter().zip(c.par_iter()))
                    .for_each(|(a, (b, c))| *a += *b + s * *c);
                None
            }
            Kernel::Dot => Some(a.par_iter().zip(b.par_iter()).map(|(a, b)| *a * *b).sum()),
            Kernel::DeepCopy => {
                c.par_chunks_mut(chunk)
                    .zip(a.par_chunks(chunk))
                    .for_each(|(c, a)| c.copy_from_slice(a));
                None
            }
            Kernel::Fill => {
                let value = T::of(FILL);
                c.par_chunks_mut(chunk).for_each(|c| c.fill(value));
                None
            }
        }))
    }

    fn arrays(&self, check: &mut ArrayCheck<'_, T>) -> Result<(), Failure> {
        check(&self.a, &self.b, &self.c);
        Ok(())
    }
}
