//! The patterns on a GPU space: `parallel_for`, `parallel_reduce` and `parallel_scan` over Range
//! and MDRange policies, built on [`super::launch`] (TeamPolicy's are in `team/launch.rs`). A
//! backend's `LaunchRange` and `LaunchMDRange` call them.

use std::any::type_name;

use super::driver::Driver;
use super::instance::Instance;
use super::launch::{self, Kind, Space, describe, device, launch};
use super::reduce::{no_device_form, read_value, reduce_with, reducer_cxx};
use super::space::GpuSpace;

use crate::dispatch::{ForFunctor, Job, ReduceFunctor, Request, RequestPattern, ScanFunctor};
use crate::error::Result;
use crate::kernel::{DeviceKernel, ParamWriter};
use crate::policy::{IndexTuple, IndexType, Iterate, MDRangePolicy, RangePolicy};
use crate::reducer::{ReduceTarget, Reducer};
use crate::seal::Token;
use crate::space::tool_site;
use crate::tools::{Pattern, profiled};

/// Runs one pattern's launch on `exec`: inside the tools' begin and end of `pattern` (named
/// `label`, or `functor`, the functor's type, when the label is empty), with the launch's
/// description for errors and the functor's device translation (`kernel`).
pub(crate) fn entered<'k, S: GpuSpace, R>(
    exec: &S,
    pattern: Pattern,
    label: &str,
    functor: &'static str,
    kernel: impl FnOnce() -> Option<&'k dyn DeviceKernel>,
    body: impl FnOnce(&dyn Fn() -> String, &'k dyn DeviceKernel) -> Result<R>,
) -> Result<R> {
    profiled(pattern, tool_site(exec), label, functor, || {
        let what = describe(S::NAME, pattern.name(), label);
        let dk = device(kernel(), &what)?;
        body(&what, dk)
    })
}

/// The launch parameters of a range: its first index and its length.
fn range_writer<I: IndexType>(begin: I, count: u64) -> impl Fn(&mut ParamWriter<'_>) {
    move |w: &mut ParamWriter<'_>| {
        w.push(begin);
        w.push(count);
    }
}

/// The iteration space of a launch without tiles, over the iteration box `proof` (per index
/// coordinate `[begin, end)`, an index type of so many bits).
fn untiled<'a>(
    count: u64,
    iterate: Iterate,
    max_extent: u64,
    write: &'a dyn Fn(&mut ParamWriter<'_>),
    label: &'a str,
    proof: (&'a [(i128, i128)], u32),
) -> Space<'a> {
    Space {
        count,
        iterate,
        max_extent,
        write,
        label,
        tiles: None,
        team: None,
        proof: Some(proof),
    }
}

/// The iteration box of a range.
fn range_box<S: GpuSpace, I: IndexType>(p: &RangePolicy<S, I>) -> [(i128, i128); 1] {
    [(p.begin().to_i128(), p.end().to_i128())]
}

/// The iteration box of a multidimensional range.
fn md_box<S: GpuSpace, const R: usize, I: IndexType>(
    p: &MDRangePolicy<S, R, I>,
) -> [(i128, i128); R]
where
    [I; R]: IndexTuple<I>,
{
    let (lo, hi) = (p.lower(), p.upper());
    std::array::from_fn(|d| (lo[d].to_i128(), hi[d].to_i128()))
}

/// `parallel_for` over a range.
pub(crate) fn range_for<S: GpuSpace, I: IndexType, K: ForFunctor<I>>(
    policy: RangePolicy<S, I>,
    label: &str,
    kernel: K,
) -> Result<()> {
    entered(
        policy.space(),
        Pattern::For,
        label,
        type_name::<K>(),
        || kernel.device_kernel(Token::new()),
        |what, dk| {
            let (begin, count) = (policy.begin(), policy.len());
            if count == 0 {
                return Ok(());
            }
            let write = range_writer(begin, count);
            let bx = range_box(&policy);
            let space = untiled(count, Iterate::Right, count, &write, label, (&bx, I::BITS));
            launch(
                policy.space().gpu_instance(),
                what,
                dk,
                Kind::For,
                "",
                space,
                None,
            )
            .map(drop)
        },
    )
}

/// `parallel_reduce` over a range.
pub(crate) fn range_reduce<S: GpuSpace, I, K, T>(
    policy: RangePolicy<S, I>,
    label: &str,
    kernel: K,
    target: T,
) -> Result<T::Output>
where
    I: IndexType,
    T: ReduceTarget,
    K: ReduceFunctor<I, <T::Reducer as Reducer>::Value>,
{
    entered(
        policy.space(),
        Pattern::Reduce,
        label,
        type_name::<K>(),
        || kernel.device_kernel(Token::new()),
        |what, dk| {
            let (begin, count) = (policy.begin(), policy.len());
            let write = range_writer(begin, count);
            let bx = range_box(&policy);
            let space = untiled(count, Iterate::Right, count, &write, label, (&bx, I::BITS));
            reduce_with(policy.space().gpu_instance(), what, dk, target, space)
        },
    )
}

/// `parallel_scan` over a range; returns the total.
pub(crate) fn range_scan<S: GpuSpace, I, K, Rd>(
    policy: RangePolicy<S, I>,
    label: &str,
    kernel: K,
    reducer: Rd,
) -> Result<Rd::Value>
where
    I: IndexType,
    Rd: Reducer,
    K: ScanFunctor<I, Rd::Value>,
{
    entered(
        policy.space(),
        Pattern::Scan,
        label,
        type_name::<K>(),
        || kernel.device_kernel(Token::new()),
        |what, dk| {
            let cxx = reducer_cxx::<Rd>(what)?;
            let (begin, count) = (policy.begin(), policy.len());
            let mut total = if count == 0 {
                reducer.init()
            } else {
                let write = range_writer(begin, count);
                let bx = range_box(&policy);
                let space = untiled(count, Iterate::Right, count, &write, label, (&bx, I::BITS));
                let done = launch(
                    policy.space().gpu_instance(),
                    what,
                    dk,
                    Kind::Scan(&cxx),
                    std::any::type_name::<Rd>(),
                    space,
                    None,
                )?;
                read_value::<Rd, _>(done, cxx.size, what)?
            };
            reducer.finalize(&mut total);
            Ok(total)
        },
    )
}

/// The launch parameters of a multidimensional range: the lower bounds, the point count and the
/// extents.
fn md_writer<const R: usize, I: IndexType>(
    lower: [I; R],
    count: u64,
    extents: [u64; R],
) -> impl Fn(&mut ParamWriter<'_>) {
    move |w: &mut ParamWriter<'_>| {
        for l in lower {
            w.push(l);
        }
        w.push(count);
        for e in extents {
            w.push(e);
        }
    }
}

/// The most points a tile may have to become one block (the most threads a block may have on
/// CUDA and HIP).
const MAX_TILE_POINTS: u64 = 1024;

/// The policy's tile sizes, if set and at most [`MAX_TILE_POINTS`] points per tile (larger tiles
/// run untiled).
fn md_tiles<S: GpuSpace, const R: usize, I>(policy: &MDRangePolicy<S, R, I>) -> Option<[u64; R]>
where
    I: IndexType,
    [I; R]: IndexTuple<I>,
{
    policy.explicit_tiles().filter(|t| {
        t.iter()
            .try_fold(1u64, |n, s| n.checked_mul(*s))
            .is_some_and(|points| points <= MAX_TILE_POINTS)
    })
}

/// The iteration space of a multidimensional `parallel_for` with the tiles `tiles`.
fn md_for_space<'a, S: GpuSpace, const R: usize, I>(
    policy: &MDRangePolicy<S, R, I>,
    tiles: Option<[u64; R]>,
    write: &'a dyn Fn(&mut ParamWriter<'_>),
    label: &'a str,
    bx: &'a [(i128, i128)],
) -> Space<'a>
where
    I: IndexType,
    [I; R]: IndexTuple<I>,
{
    let extents = policy.extents();
    Space {
        count: policy.len(),
        iterate: policy.get_iterate(),
        max_extent: extents.iter().copied().max().unwrap_or(0),
        write,
        label,
        tiles: tiles.map(|t| {
            let points = t.iter().product::<u64>() as u32;
            let count = extents
                .iter()
                .zip(&t)
                .map(|(e, s)| e.div_ceil(*s))
                .product::<u64>();
            (points, count)
        }),
        team: None,
        proof: Some((bx, I::BITS)),
    }
}

/// The iteration space of a multidimensional reduction.
fn md_reduce_space<'a, S: GpuSpace, const R: usize, I>(
    policy: &MDRangePolicy<S, R, I>,
    write: &'a dyn Fn(&mut ParamWriter<'_>),
    label: &'a str,
    bx: &'a [(i128, i128)],
) -> Space<'a>
where
    I: IndexType,
    [I; R]: IndexTuple<I>,
{
    let max_extent = policy.extents().iter().copied().max().unwrap_or(0);
    let (count, iterate) = (policy.len(), policy.get_iterate());
    untiled(count, iterate, max_extent, write, label, (bx, I::BITS))
}

/// `parallel_for` over a multidimensional range. With tile sizes set on the policy (at most 1024
/// points per tile), each tile is one block and its points are the block's threads, the fastest
/// dimension of the walk order first (Kokkos' mapping); without, the points are numbered in the
/// walk order and handed out grid-stride (consecutive threads take consecutive points of the
/// fastest dimension), which needs no tuning.
pub(crate) fn md_for<S: GpuSpace, const R: usize, I, K>(
    policy: MDRangePolicy<S, R, I>,
    label: &str,
    kernel: K,
) -> Result<()>
where
    I: IndexType,
    [I; R]: IndexTuple<I>,
    K: ForFunctor<<[I; R] as IndexTuple<I>>::Tuple>,
{
    entered(
        policy.space(),
        Pattern::For,
        label,
        type_name::<K>(),
        || kernel.device_kernel(Token::new()),
        |what, dk| {
            let count = policy.len();
            if count == 0 {
                return Ok(());
            }
            let tiles = md_tiles(&policy);
            let plain = md_writer(policy.lower(), count, policy.extents());
            let write = |w: &mut ParamWriter<'_>| {
                plain(w);
                if let Some(t) = tiles {
                    for size in t {
                        w.push(size);
                    }
                }
            };
            let bx = md_box(&policy);
            let space = md_for_space(&policy, tiles, &write, label, &bx);
            launch(
                policy.space().gpu_instance(),
                what,
                dk,
                Kind::For,
                "",
                space,
                None,
            )
            .map(drop)
        },
    )
}

/// `parallel_reduce` over a multidimensional range.
pub(crate) fn md_reduce<S: GpuSpace, const R: usize, I, K, T>(
    policy: MDRangePolicy<S, R, I>,
    label: &str,
    kernel: K,
    target: T,
) -> Result<T::Output>
where
    I: IndexType,
    [I; R]: IndexTuple<I>,
    T: ReduceTarget,
    K: ReduceFunctor<<[I; R] as IndexTuple<I>>::Tuple, <T::Reducer as Reducer>::Value>,
{
    entered(
        policy.space(),
        Pattern::Reduce,
        label,
        type_name::<K>(),
        || kernel.device_kernel(Token::new()),
        |what, dk| {
            let write = md_writer(policy.lower(), policy.len(), policy.extents());
            let bx = md_box(&policy);
            let space = md_reduce_space(&policy, &write, label, &bx);
            reduce_with(policy.space().gpu_instance(), what, dk, target, space)
        },
    )
}

/// The job that compiles, ahead of time, what a launch of `request` over `policy` needs (see
/// [`crate::Prepare`]).
pub(crate) fn prepare_range<S: GpuSpace, I: IndexType>(
    policy: &RangePolicy<S, I>,
    request: Request<'_>,
) -> Result<Option<Job>> {
    let count = policy.len();
    let bx = range_box(policy);
    let space = untiled(
        count,
        Iterate::Right,
        count,
        &|_| {},
        request.label,
        (&bx, I::BITS),
    );
    prepare(policy.space().gpu_instance(), &request, count, &space)
}

/// As [`prepare_range`], over a multidimensional range.
pub(crate) fn prepare_md<S: GpuSpace, const R: usize, I>(
    policy: &MDRangePolicy<S, R, I>,
    request: Request<'_>,
) -> Result<Option<Job>>
where
    I: IndexType,
    [I; R]: IndexTuple<I>,
{
    let label = request.label;
    let bx = md_box(policy);
    let space = match request.pattern {
        RequestPattern::For => md_for_space(policy, md_tiles(policy), &|_| {}, label, &bx),
        _ => md_reduce_space(policy, &|_| {}, label, &bx),
    };
    prepare(
        policy.space().gpu_instance(),
        &request,
        policy.len(),
        &space,
    )
}

/// The job that compiles what a launch of `request` over `space` (of `count` iterations) needs,
/// or `None` where the launch would compile nothing (no iterations).
fn prepare<D: Driver>(
    inst: &Instance<D>,
    request: &Request<'_>,
    count: u64,
    space: &Space<'_>,
) -> Result<Option<Job>> {
    let name = match request.pattern {
        RequestPattern::For => "parallel_for",
        RequestPattern::Reduce(_) => "parallel_reduce",
        RequestPattern::Scan(_) => "parallel_scan",
    };
    let what = describe(D::SPACE, name, request.label);
    let dk = device(request.kernel, &what)?;
    if count == 0 {
        return Ok(None);
    }
    let job = match request.pattern {
        RequestPattern::For => launch::prepare(inst, &what, dk, Kind::For, "", space)?,
        RequestPattern::Reduce(r) | RequestPattern::Scan(r) => {
            let cxx = (r.cxx)(Token::new()).ok_or_else(|| no_device_form(&what, r.name))?;
            let kind = match request.pattern {
                RequestPattern::Scan(_) => Kind::Scan(&cxx),
                _ => Kind::Reduce(&cxx),
            };
            launch::prepare(inst, &what, dk, kind, r.name, space)?
        }
    };
    Ok(Some(job))
}
