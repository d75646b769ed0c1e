//! One iteration of a host launch, in the checked or the proven form of its body (see
//! `kernel/bounds.rs`), and the cut of a run of items into the parts before, inside and after the
//! launch's proven box.

use std::ops::Range;

use crate::dispatch::{ForKernel, ReduceKernel};

/// What a driver does at one iteration index `A`. `proven` may be true only for indices of the
/// box where the launch proved the body's accesses in bounds (`ForKernel::proven_box`): the
/// drivers pass it from [`each_run`] alone.
pub(super) trait Point<A> {
    fn at(&mut self, index: A, proven: bool);
}

/// A `parallel_for` kernel at one index.
pub(super) struct ForPoint<'a, K>(pub(super) &'a K);

impl<A, K: ForKernel<A>> Point<A> for ForPoint<'_, K> {
    #[inline(always)]
    fn at(&mut self, index: A, proven: bool) {
        if proven {
            // SAFETY: `proven` is true only for indices of the box where the launch proved the
            // body's accesses in bounds (the trait's contract, kept by `each_run`).
            unsafe { self.0.apply_in_bounds(index) }
        } else {
            self.0.apply(index)
        }
    }
}

/// A `parallel_reduce` kernel at one index, into `acc`.
pub(super) struct ReducePoint<'a, K, V>(pub(super) &'a K, pub(super) &'a mut V);

impl<A, V, K: ReduceKernel<A, V>> Point<A> for ReducePoint<'_, K, V> {
    #[inline(always)]
    fn at(&mut self, index: A, proven: bool) {
        if proven {
            // SAFETY: as for `ForPoint`.
            unsafe { self.0.apply_in_bounds(index, self.1) }
        } else {
            self.0.apply(index, self.1)
        }
    }
}

/// The offsets of `xs` (from `base` along one coordinate) whose coordinate `base + x` lies in
/// `[lo, hi)`.
#[inline(always)]
pub(super) fn part_in(xs: &Range<u64>, base: i128, (lo, hi): (i128, i128)) -> Range<u64> {
    let at = |v: i128| (v - base).clamp(xs.start as i128, xs.end as i128) as u64;
    let start = at(lo);
    start..at(hi).max(start)
}

/// Calls `point.at(index(x), proven)` for every `x` of `xs`, with `proven` true exactly for the
/// `x` of `inside` (a part of `xs` whose indices lie in the launch's proven box): three counted
/// loops, each calling `point` with a constant flag, so that each form of the body is inlined once.
#[inline(always)]
pub(super) fn each_run<A>(
    xs: Range<u64>,
    inside: Range<u64>,
    point: &mut impl Point<A>,
    mut index: impl FnMut(u64) -> A,
) {
    debug_assert!(xs.start <= inside.start && inside.end <= xs.end);
    for (run, proven) in [
        (xs.start..inside.start, false),
        (inside.clone(), true),
        (inside.end..xs.end, false),
    ] {
        if proven {
            for x in run {
                point.at(index(x), true);
            }
        } else {
            for x in run {
                point.at(index(x), false);
            }
        }
    }
}
