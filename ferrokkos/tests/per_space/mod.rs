//! Running one generic test body on every execution space, and comparing results across spaces.
//!
//! - [`per_space!`]`(name, body)`: `body` is `fn body<S: Launch>(exec: &S) -> Result<()>`;
//!   the macro makes a module `name` with the tests `name::serial` and `name::threads` (run
//!   everywhere) and `name::cuda` (ignored without a GPU), each calling `body::<S>` with the
//!   default instance of its space.
//! - [`differential!`]`(inputs, run, reference)`, inside a module of one test case: its functions
//!   `inputs(seed) -> In` (deterministic inputs, made on the host), `run::<S>(exec, &In) ->
//!   Result<Outputs>` (the kernels on `S`, results read back) and `reference(&In) -> Outputs`
//!   (plain Rust) give the tests `serial` (Serial against the reference: exact), `threads`
//!   (Threads against the reference: float reductions within rounding) and `cuda` (Cuda against
//!   Serial, with the tolerances each output column declares; ignored without a GPU). Each runs
//!   every seed of [`SEEDS`].
//!
//! The file that uses them declares `mod common;` and `#[macro_use] mod per_space;` (the macros
//! name `crate::common` and `crate::per_space`).
#![allow(dead_code)]

use ferrokkos::RegularLayout;
use ferrokkos::prelude::*;
use ferrokkos::{Element, Layout, Result};

/// The seeds every differential test runs with.
pub const SEEDS: [u64; 3] = [1, 42, 0x5eed];

/// Generates `name::serial`, `name::threads` and `name::cuda` (ignored without a GPU), each calling
/// `body::<Space>(&Space::default_instance()?)`.
#[allow(unused_macros)]
macro_rules! per_space {
    ($name:ident, $body:ident) => {
        mod $name {
            use ::ferrokkos::ExecutionSpace as _;

            #[test]
            fn serial() -> ::ferrokkos::Result<()> {
                $crate::common::runtime();
                super::$body::<::ferrokkos::Serial>(&::ferrokkos::Serial::default_instance()?)
            }

            #[test]
            fn threads() -> ::ferrokkos::Result<()> {
                $crate::common::runtime();
                super::$body::<::ferrokkos::Threads>(&::ferrokkos::Threads::default_instance()?)
            }

            #[test]
            #[ignore = "needs a CUDA GPU"]
            fn cuda() -> ::ferrokkos::Result<()> {
                $crate::common::runtime();
                super::$body::<::ferrokkos::Cuda>(&::ferrokkos::Cuda::default_instance()?)
            }
        }
    };
}

/// Generates the tests `serial`, `threads` (against the plain Rust reference) and `cuda` (against
/// Serial; ignored without a GPU) in the current module, from its functions `inputs`, `run` and
/// `reference`. See the module documentation.
#[allow(unused_macros)]
macro_rules! differential {
    ($inputs:ident, $run:ident, $reference:ident) => {
        #[test]
        fn serial() -> ::ferrokkos::Result<()> {
            $crate::common::runtime();
            let exec = <::ferrokkos::Serial as ::ferrokkos::ExecutionSpace>::default_instance()?;
            for seed in $crate::per_space::SEEDS {
                let input = $inputs(seed);
                let got = $run(&exec, &input)?;
                let want = $reference(&input);
                got.check(
                    &want,
                    $crate::per_space::Mode::Exact,
                    &format!("Serial, seed {seed}"),
                );
            }
            Ok(())
        }

        #[test]
        fn threads() -> ::ferrokkos::Result<()> {
            $crate::common::runtime();
            let exec = <::ferrokkos::Threads as ::ferrokkos::ExecutionSpace>::default_instance()?;
            for seed in $crate::per_space::SEEDS {
                let input = $inputs(seed);
                let got = $run(&exec, &input)?;
                let want = $reference(&input);
                got.check(
                    &want,
                    $crate::per_space::Mode::Reassociated,
                    &format!("Threads, seed {seed}"),
                );
            }
            Ok(())
        }

        #[test]
        #[ignore = "needs a CUDA GPU"]
        fn cuda() -> ::ferrokkos::Result<()> {
            $crate::common::runtime();
            let serial = <::ferrokkos::Serial as ::ferrokkos::ExecutionSpace>::default_instance()?;
            let cuda = <::ferrokkos::Cuda as ::ferrokkos::ExecutionSpace>::default_instance()?;
            for seed in $crate::per_space::SEEDS {
                let input = $inputs(seed);
                let want = $run(&serial, &input)?;
                let got = $run(&cuda, &input)?;
                got.check(
                    &want,
                    $crate::per_space::Mode::Device,
                    &format!("Cuda vs Serial, seed {seed}"),
                );
            }
            Ok(())
        }
    };
}

/// The Cuda default instance (panics without a GPU).
pub fn cuda() -> Cuda {
    crate::common::runtime();
    Cuda::default_instance().expect("a CUDA GPU")
}

/// A rank-1 View of `S`'s memory space holding `data` (copied from a host View).
pub fn upload<S: Launch, T: Element>(
    label: &str,
    data: &[T],
) -> Result<View<T, 1, LayoutRight, S::MemorySpace>> {
    let host = crate::common::view_from(label, data)?;
    let v = View::<T, 1, LayoutRight, S::MemorySpace>::new(label, [data.len()])?;
    deep_copy(&v, &host)?;
    Ok(v)
}

/// A View of `S`'s memory space with extents `extents` and layout `L`, holding `data` in row-major
/// order (written into a host mirror, then copied).
pub fn upload_nd<S: Launch, T: Element, const R: usize, L: RegularLayout>(
    label: &str,
    extents: [usize; R],
    data: &[T],
) -> Result<View<T, R, L, S::MemorySpace>> {
    let v = View::<T, R, L, S::MemorySpace>::new(label, extents)?;
    let m = create_mirror_view(&v)?;
    {
        let mut g = m.host_mut()?;
        for (n, i) in crate::common::indices(extents).into_iter().enumerate() {
            g[i] = data[n];
        }
    }
    deep_copy(&v, &m)?;
    Ok(v)
}

/// The elements of `v` in row-major order, read back through a host mirror.
pub fn download<T: Element, const R: usize, L: Layout, M: MemorySpace>(
    v: &View<T, R, L, M>,
) -> Result<Vec<T>> {
    let m = create_mirror_view(v)?;
    deep_copy(&m, v)?;
    m.to_vec()
}

/// How two sets of outputs are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Serial against plain Rust: the same operations in the same order, so every value is equal
    /// (floats bit for bit; any NaN equals any NaN).
    Exact,
    /// Threads against plain Rust: reductions of floats are joined in another order, so their
    /// columns ([`Float::Sum`]) agree within 1e-12 relative; everything else is exact.
    Reassociated,
    /// Cuda against Serial: reductions within 1e-12 relative, transcendental functions within the
    /// ulp bound each column declares ([`Float::Ulps`]), `min` / `max` of zeros of either sign; the
    /// rest is exact.
    Device,
}

/// How a float column may differ between spaces.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Float {
    /// Exact IEEE operations (`+ - * / %`, `sqrt`, `floor`, casts, ...): the same bits everywhere.
    Exact,
    /// `min` / `max` (and what is computed from them): the same value, but `min(0.0, -0.0)` may
    /// have either sign (Rust leaves it unspecified; CUDA's `fmin` picks `-0.0`).
    MinMax,
    /// A transcendental function: exact on the host spaces (the same libm); on the GPU, CUDA's math
    /// library, which may differ from Rust's (glibc's) by this many units in the last place.
    Ulps(u32),
    /// The result of a reduction or scan of floats: exact on Serial, within `1e-12 * scale`
    /// elsewhere, where `scale` is the sum of the magnitudes of the terms (the size of the rounding
    /// error any summation order may make; for positive terms, the result itself).
    Sum { scale: f64 },
    /// The result of a computation that feeds transcendental functions back into themselves (an
    /// iteration): exact on the host spaces; on the GPU, the few-ulp differences of each step grow,
    /// so within `rel * max(|value|, 1)`.
    Iterated { rel: f64 },
}

/// The values of one output column.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// Integers of any primitive type, widened.
    Int(Vec<i128>),
    /// Booleans.
    Bool(Vec<bool>),
    /// `f32` values and how they may differ.
    F32(Vec<f32>, Float),
    /// `f64` values and how they may differ.
    F64(Vec<f64>, Float),
}

/// The named output columns of a differential test.
#[derive(Debug, Clone, Default)]
pub struct Outputs(pub Vec<(String, Values)>);

/// Values that make an exact output column.
pub trait Column {
    /// The column.
    fn column(self) -> Values;
}

macro_rules! int_column {
    ($($t:ty),*) => {$(
        impl Column for Vec<$t> {
            fn column(self) -> Values {
                Values::Int(self.into_iter().map(|x| x as i128).collect())
            }
        }
    )*};
}

int_column!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl Column for Vec<bool> {
    fn column(self) -> Values {
        Values::Bool(self)
    }
}

impl Column for Vec<f32> {
    fn column(self) -> Values {
        Values::F32(self, Float::Exact)
    }
}

impl Column for Vec<f64> {
    fn column(self) -> Values {
        Values::F64(self, Float::Exact)
    }
}

impl Outputs {
    /// No columns yet.
    pub fn new() -> Self {
        Outputs(Vec::new())
    }

    /// Adds an exact column.
    pub fn put(&mut self, name: impl Into<String>, values: impl Column) -> &mut Self {
        self.0.push((name.into(), values.column()));
        self
    }

    /// Adds an `f32` column that may differ as `kind` says.
    pub fn put_f32(&mut self, name: impl Into<String>, values: Vec<f32>, kind: Float) -> &mut Self {
        self.0.push((name.into(), Values::F32(values, kind)));
        self
    }

    /// Adds an `f64` column that may differ as `kind` says.
    pub fn put_f64(&mut self, name: impl Into<String>, values: Vec<f64>, kind: Float) -> &mut Self {
        self.0.push((name.into(), Values::F64(values, kind)));
        self
    }

    /// Asserts that `self` (what a space computed) matches `want` under `mode`; `what` names the
    /// comparison in failure messages. Columns match by position and name.
    pub fn check(&self, want: &Outputs, mode: Mode, what: &str) {
        assert_eq!(
            self.0.iter().map(|c| &c.0).collect::<Vec<_>>(),
            want.0.iter().map(|c| &c.0).collect::<Vec<_>>(),
            "{what}: columns"
        );
        for ((name, got), (_, want)) in self.0.iter().zip(&want.0) {
            let what = format!("{what}, column {name}");
            match (got, want) {
                (Values::Int(g), Values::Int(w)) => {
                    assert_eq!(g.len(), w.len(), "{what}: length");
                    for (k, (g, w)) in g.iter().zip(w).enumerate() {
                        assert_eq!(g, w, "{what} at {k}");
                    }
                }
                (Values::Bool(g), Values::Bool(w)) => {
                    assert_eq!(g.len(), w.len(), "{what}: length");
                    for (k, (g, w)) in g.iter().zip(w).enumerate() {
                        assert_eq!(g, w, "{what} at {k}");
                    }
                }
                (Values::F32(g, kind), Values::F32(w, _)) => {
                    assert_eq!(g.len(), w.len(), "{what}: length");
                    for (k, (g, w)) in g.iter().zip(w).enumerate() {
                        let ok = float_ok(
                            *g as f64,
                            *w as f64,
                            ulps_f32(*g, *w),
                            *kind,
                            mode,
                            f32::EPSILON as f64,
                        );
                        assert!(ok, "{what} at {k}: {g:e} vs {w:e} ({kind:?}, {mode:?})");
                    }
                }
                (Values::F64(g, kind), Values::F64(w, _)) => {
                    assert_eq!(g.len(), w.len(), "{what}: length");
                    for (k, (g, w)) in g.iter().zip(w).enumerate() {
                        let ok = float_ok(*g, *w, ulps_f64(*g, *w), *kind, mode, f64::EPSILON);
                        assert!(ok, "{what} at {k}: {g:e} vs {w:e} ({kind:?}, {mode:?})");
                    }
                }
                _ => panic!("{what}: the columns hold different types"),
            }
        }
    }
}

/// Whether a float `got` matches `want` (`ulps` apart) for a column of `kind` under `mode`.
/// `eps` is the type's machine epsilon, for sums of `f32`.
fn float_ok(got: f64, want: f64, ulps: u64, kind: Float, mode: Mode, eps: f64) -> bool {
    if got.is_nan() || want.is_nan() {
        // Any NaN matches any NaN: the GPU's NaNs have the canonical payload, x86's another sign.
        return got.is_nan() && want.is_nan();
    }
    if got.to_bits() == want.to_bits() {
        return true;
    }
    match (kind, mode) {
        (_, Mode::Exact) | (Float::Exact, _) => false,
        (Float::MinMax | Float::Ulps(_) | Float::Iterated { .. }, Mode::Reassociated) => false,
        // Only the sign of a zero may differ.
        (Float::MinMax, Mode::Device) => got == want,
        (Float::Ulps(n), Mode::Device) => ulps <= n as u64,
        (Float::Iterated { rel }, Mode::Device) => (got - want).abs() <= rel * want.abs().max(1.0),
        (Float::Sum { scale }, _) => {
            // 1e-12 relative for f64; for f32 sums the same bound scaled to f32's precision.
            let rel = 1e-12 * eps / f64::EPSILON;
            (got - want).abs() <= rel * scale
        }
    }
}

/// How many representable `f64` values lie between `a` and `b` (0 when equal, zeros of both signs
/// included; large for NaN).
pub fn ulps_f64(a: f64, b: f64) -> u64 {
    if a == b {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let key = |x: f64| {
        let bits = x.to_bits() as i64;
        if bits < 0 { i64::MIN - bits } else { bits }
    };
    (key(a) as i128 - key(b) as i128).unsigned_abs() as u64
}

/// How many representable `f32` values lie between `a` and `b`.
pub fn ulps_f32(a: f32, b: f32) -> u64 {
    if a == b {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX;
    }
    let key = |x: f32| {
        let bits = x.to_bits() as i32;
        if bits < 0 {
            i32::MIN as i64 - bits as i64
        } else {
            bits as i64
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

/// Asserts `|got - want| <= 1e-12 * scale` (an f64 reduction computed in another order).
#[track_caller]
pub fn assert_sum_close(got: f64, want: f64, scale: f64, what: &str) {
    assert!(
        (got - want).abs() <= 1e-12 * scale,
        "{what}: {got:e} vs {want:e} (allowed {:e})",
        1e-12 * scale
    );
}
