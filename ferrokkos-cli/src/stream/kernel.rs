//! The benchmark's kernels, their byte counts, and the analytic ("gold") results BabelStream checks.
//!
//! Besides BabelStream's six, two kernels measure ferrokkos' `deep_copy` (the "Copies" selection):
//! DeepCopy (`c = a`, View to View) and Fill (`c = FILL`, a value into a View). They are in no
//! BabelStream selection ("Classic", "All"), so BabelStream's output stays as it was.

use super::float::StreamFloat;

/// One of BabelStream's kernels, in the order BabelStream runs them, or one of the two `deep_copy`
/// kernels (after them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// `c = a`
    Copy,
    /// `b = s * c`
    Mul,
    /// `c = a + b`
    Add,
    /// `a = b + s * c`
    Triad,
    /// `sum(a * b)`
    Dot,
    /// `a += b + s * c`
    Nstream,
    /// `c = a`, as `deep_copy(&c, &a)` (not one of BabelStream's).
    DeepCopy,
    /// `c = FILL`, as `deep_copy(&c, FILL)` (not one of BabelStream's).
    Fill,
}

/// BabelStream's kernels, in run order (its `bench` array; the selection "All").
pub const ALL: [Kernel; 6] = [
    Kernel::Copy,
    Kernel::Mul,
    Kernel::Add,
    Kernel::Triad,
    Kernel::Dot,
    Kernel::Nstream,
];

/// The `deep_copy` kernels, in run order (the selection "Copies").
pub const COPIES: [Kernel; 2] = [Kernel::DeepCopy, Kernel::Fill];

/// BabelStream's start value of `a`.
pub const START_A: f64 = 0.1;
/// Start value of `b`.
pub const START_B: f64 = 0.2;
/// Start value of `c`.
pub const START_C: f64 = 0.0;
/// The scalar `s`.
pub const SCALAR: f64 = 0.4;
/// The value Fill writes into `c`.
pub const FILL: f64 = 0.3;

impl Kernel {
    /// BabelStream's label.
    pub fn label(self) -> &'static str {
        match self {
            Kernel::Copy => "Copy",
            Kernel::Mul => "Mul",
            Kernel::Add => "Add",
            Kernel::Triad => "Triad",
            Kernel::Dot => "Dot",
            Kernel::Nstream => "Nstream",
            Kernel::DeepCopy => "DeepCopy",
            Kernel::Fill => "Fill",
        }
    }

    /// How many arrays' worth of elements the kernel moves (bytes = weight x sizeof(T) x N).
    pub fn weight(self) -> usize {
        match self {
            Kernel::Fill => 1,
            Kernel::Copy | Kernel::Mul | Kernel::Dot | Kernel::DeepCopy => 2,
            Kernel::Add | Kernel::Triad => 3,
            Kernel::Nstream => 4,
        }
    }

    /// Whether BabelStream runs it by default (its "Classic" five).
    pub fn classic(self) -> bool {
        ALL.contains(&self) && self != Kernel::Nstream
    }

    /// The kernel named `name` (case-insensitive), or the selections "All" (BabelStream's six),
    /// "Classic" (its first five) and "Copies" (DeepCopy and Fill).
    pub fn parse_selection(name: &str) -> Option<Vec<Kernel>> {
        match name.to_ascii_lowercase().as_str() {
            "all" => Some(ALL.to_vec()),
            "classic" => Some(ALL.into_iter().filter(|k| k.classic()).collect()),
            "copies" => Some(COPIES.to_vec()),
            lower => ALL
                .into_iter()
                .chain(COPIES)
                .find(|k| k.label().to_ascii_lowercase() == lower)
                .map(|k| vec![k]),
        }
    }
}

/// The values every element of a, b, c (and the dot result) must hold after `reps` repetitions of
/// `kernels`, replayed on scalars as BabelStream does.
#[derive(Debug, Clone, Copy)]
pub struct Gold<T> {
    /// Every element of `a`.
    pub a: T,
    /// Every element of `b`.
    pub b: T,
    /// Every element of `c`.
    pub c: T,
    /// The last dot product.
    pub sum: T,
}

impl<T: StreamFloat> Gold<T> {
    /// Replays the kernels on one element.
    pub fn after(kernels: &[Kernel], reps: usize, n: usize) -> Gold<T> {
        let s = T::of(SCALAR);
        let mut g = Gold {
            a: T::of(START_A),
            b: T::of(START_B),
            c: T::of(START_C),
            sum: T::ZERO,
        };
        for _ in 0..reps {
            for k in kernels {
                match k {
                    Kernel::Copy | Kernel::DeepCopy => g.c = g.a,
                    Kernel::Mul => g.b = s * g.c,
                    Kernel::Add => g.c = g.a + g.b,
                    Kernel::Triad => g.a = g.b + s * g.c,
                    Kernel::Dot => g.sum = g.a * g.b * T::of(n as f64),
                    Kernel::Nstream => g.a += g.b + s * g.c,
                    Kernel::Fill => g.c = T::of(FILL),
                }
            }
        }
        g
    }
}
