//! One iteration of a host launch, in the checked or the proven form of its body (see
//! `kernel/bounds.rs`), and the cut of a run of items into the parts before, inside and after the
//! launch's proven box.

use std::mem::MaybeUninit;
use std::ops::Range;

use crate::dispatch::{ForKernel, ReduceKernel};
use crate::reducer::Reducer;

/// What a driver does at one iteration index `A`. `proven` may be true only for indices of the
/// box where the launch proved the body's accesses in bounds (`ForKernel::proven_box`): the
/// drivers pass it from [`each_run`] alone.
pub(super) trait Point<A> {
    fn at(&mut self, index: A, proven: bool);

    /// Calls `at(index(x), true)` for every `x` of `xs`, in order. `xs` must lie in the launch's
    /// proven box, as for `at`.
    #[inline(always)]
    fn proven_run(&mut self, xs: Range<u64>, mut index: impl FnMut(u64) -> A) {
        for x in xs {
            self.at(index(x), true);
        }
    }
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

/// A `parallel_reduce` kernel at one index, into `acc`; with `N > 0`, proven runs go in chunks of
/// up to `N` points ([`ReducePoint::proven_run`]).
pub(super) struct ReducePoint<'a, K, Rd: Reducer, const N: usize> {
    kernel: &'a K,
    reducer: &'a Rd,
    acc: &'a mut Rd::Value,
}

/// Points per chunk of a proven run of a reduction, where [`chunked`] (a chunk of `f64`s is 2 KiB).
pub(super) const CHUNK: usize = 128;

/// The blocks a chunk's partial results are joined in ([`ReducePoint::proven_run`]).
const BLOCKS: usize = 8;

/// Whether the proven runs of a reduction into values of type `V` go in chunks: small values
/// without drop glue (numbers, small tuples and structs of numbers). Drivers pick `N` by it:
/// [`CHUNK`] if so, else 0.
pub(super) const fn chunked<V>() -> bool {
    !std::mem::needs_drop::<V>() && std::mem::size_of::<V>() <= 32
}

impl<'a, K, Rd: Reducer, const N: usize> ReducePoint<'a, K, Rd, N> {
    pub(super) fn new(kernel: &'a K, reducer: &'a Rd, acc: &'a mut Rd::Value) -> Self {
        ReducePoint {
            kernel,
            reducer,
            acc,
        }
    }
}

impl<A, Rd: Reducer, K: ReduceKernel<A, Rd::Value>, const N: usize> Point<A>
    for ReducePoint<'_, K, Rd, N>
{
    #[inline(always)]
    fn at(&mut self, index: A, proven: bool) {
        if proven {
            // SAFETY: as for `ForPoint`.
            unsafe { self.kernel.apply_in_bounds(index, self.acc) }
        } else {
            self.kernel.apply(index, self.acc)
        }
    }

    /// Runs the points in chunks of up to `N`, each in two loops. First every point of the chunk
    /// contributes to a partial result of its own, starting at the identity: no point waits for
    /// another's update of one accumulator, so the compiler vectorizes this loop as it does a
    /// `parallel_for` body (with run-time overlap checks of the Views, once per chunk). Then the
    /// partial results are joined: the chunk is cut into [`BLOCKS`] contiguous blocks, each joined
    /// left to right into its own value (the blocks side by side, so the joins form `BLOCKS`
    /// independent chains instead of one), and the blocks' values, then the points left over, are
    /// joined into the accumulator in order. So contributions are only regrouped, never reordered
    /// (the reducer's join need only be associative), and the grouping depends only on where the
    /// run starts and ends: the same launch on the same number of threads gives the same bits.
    /// Without this, each point's update of the accumulator waits for the previous one and the
    /// body stays scalar (rustc does not vectorize an ordered floating-point reduction).
    #[inline(always)]
    fn proven_run(&mut self, xs: Range<u64>, mut index: impl FnMut(u64) -> A) {
        if N == 0 {
            for x in xs {
                self.at(index(x), true);
            }
            return;
        }
        let (kernel, reducer) = (self.kernel, self.reducer);
        // The partial results of a chunk, in a local array of their own (nothing else can point
        // into it, so the compiler needs no overlap check against it), written before being read.
        let mut buf: [MaybeUninit<Rd::Value>; N] = [const { MaybeUninit::uninit() }; N];
        let mut x = xs.start;
        while x < xs.end {
            let m = (xs.end - x).min(N as u64) as usize;
            for (l, slot) in buf[..m].iter_mut().enumerate() {
                let part = slot.write(reducer.init());
                // SAFETY: `x + l < xs.end`, and `xs` lies in the proven box (the caller's
                // contract, as for `at`).
                unsafe { kernel.apply_in_bounds(index(x + l as u64), part) }
            }
            // SAFETY: the loop above wrote each of the first `m` elements (`MaybeUninit<V>` has
            // the layout of `V`).
            let parts: &[Rd::Value] = unsafe { &*(&raw const buf[..m] as *const [Rd::Value]) };
            let per = m / BLOCKS;
            let (whole, rest) = parts.split_at(per * BLOCKS);
            let blocks: [&[Rd::Value]; BLOCKS] =
                std::array::from_fn(|b| &whole[b * per..(b + 1) * per]);
            let mut sums: [Rd::Value; BLOCKS] = std::array::from_fn(|_| reducer.init());
            for i in 0..per {
                for (sum, block) in sums.iter_mut().zip(&blocks) {
                    reducer.join(sum, &block[i]);
                }
            }
            for part in sums.iter().chain(rest) {
                reducer.join(self.acc, part);
            }
            x += m as u64;
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
            point.proven_run(run, &mut index);
        } else {
            for x in run {
                point.at(index(x), false);
            }
        }
    }
}
