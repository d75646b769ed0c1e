//! How the outputs of a differential test are compared: named columns of values, each saying how
//! its floats may differ between spaces, checked under the mode of the space's line in
//! `for_each_space!`.

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
