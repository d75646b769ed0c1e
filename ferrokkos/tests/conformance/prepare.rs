//! Ahead-of-time compilation ([`Prepare`]): kernels prepared for their policies run as launched
//! kernels do; on Cuda each prepared entry is the one the launch looks up (a launch then compiles
//! nothing, and a preparation after a launch finds every entry loaded); host spaces compile
//! nothing; a reducer without a device form is an `Err` naming the launch and the reducer.

use ferrokkos::prelude::*;
use ferrokkos::{Custom, Error, Prepare, Result, parallel_scan_with};

use crate::spaces::{SView, download, upload};

/// The compilations a preparation of `n` kernels needs on `S`: one each on Cuda, none on a host.
fn jobs<S: Launch>(n: usize) -> usize {
    if S::NAME == "Cuda" { n } else { 0 }
}

fn prepared_kernels_give_the_launched_results<S: Launch>(exec: &S) -> Result<()> {
    let n = 1000usize;
    let data: Vec<f64> = (0..n).map(|i| (i % 17) as f64 - 8.0).collect();
    let x = upload::<S, f64>("x", &data)?;
    let y = SView::<S, f64, 1>::new("y", [n])?;
    let a = SView::<S, i64, 2>::new("a", [30, 40])?;
    let b = SView::<S, i64, 2>::new("b", [30, 40])?;
    let policy = RangePolicy::new(exec, 0, n)?;
    let md = MDRangePolicy::new(exec, [0i64, 0], [30, 40])?;
    let tiled = MDRangePolicy::new(exec, [0i64, 0], [30, 40])?.tile_sizes([8, 8])?;
    // Large enough to travel through device memory (the by-pointer variant of the entry).
    let table = [0.5f64; 9000];

    let axpy = kernel!(|i| y[i] = 2.0 * x[i] + table[i % 9000]);
    let dot = kernel!(|i, acc: &mut f64| *acc += x[i] * x[i]);
    let running_max = kernel!(|i, m: &mut f64, _last: bool| *m = m.max(x[i]));
    let count = kernel!(|i, c: &mut u64, _last: bool| *c += (x[i] > 0.0) as u64);
    let fill = kernel!(|(i, j)| a[(i, j)] = 100 * i + j);
    let fill_tiled = kernel!(|(i, j)| b[(i, j)] = 100 * i + j);
    let md_sum = kernel!(|(i, j), acc: &mut i64| *acc += (i + 1) * j);

    let mut prep = Prepare::new();
    prep.parallel_for("axpy", &policy, &axpy)?
        .parallel_reduce("dot", &policy, &dot, Sum::<f64>::new())?
        .parallel_scan_with("running max", &policy, &running_max, &Max::<f64>::new())?
        .parallel_scan("count", &policy, &count)?
        .parallel_for("fill", &md, &fill)?
        .parallel_for("fill tiled", &tiled, &fill_tiled)?;
    let mut md_total = 0i64;
    prep.parallel_reduce("md sum", &md, &md_sum, &mut md_total)?;
    assert_eq!(prep.len(), jobs::<S>(7));
    let report = prep.compile()?;
    assert!(prep.is_empty());
    assert_eq!(report.jobs, jobs::<S>(7));
    assert_eq!(
        report.compiled + report.from_disk + report.already_loaded,
        report.jobs,
        "{report:?}"
    );
    // Preparing again finds every entry loaded.
    let again = prep
        .parallel_for("axpy", &policy, &axpy)?
        .parallel_reduce("dot", &policy, &dot, Sum::<f64>::new())?
        .compile()?;
    assert_eq!(again.already_loaded, jobs::<S>(2), "{again:?}");

    parallel_for("axpy", policy.clone(), axpy)?;
    let expect_y: Vec<f64> = data.iter().map(|v| 2.0 * v + 0.5).collect();
    assert_eq!(download(&y)?, expect_y);
    let d = parallel_reduce("dot", policy.clone(), dot, Sum::new())?;
    assert_eq!(d, data.iter().map(|v| v * v).sum::<f64>());
    let m = parallel_scan_with("running max", policy.clone(), running_max, Max::new())?;
    assert_eq!(m, 8.0);
    let c: u64 = parallel_scan("count", policy, count)?;
    assert_eq!(c, data.iter().filter(|v| **v > 0.0).count() as u64);
    parallel_for("fill", md.clone(), fill)?;
    parallel_for("fill tiled", tiled, fill_tiled)?;
    let expect_a: Vec<i64> = (0..30)
        .flat_map(|i| (0..40).map(move |j| 100 * i + j))
        .collect();
    assert_eq!(download(&a)?, expect_a);
    assert_eq!(download(&b)?, expect_a);
    parallel_reduce("md sum", md, md_sum, &mut md_total)?;
    let expect_sum: i64 = (0..30i64)
        .flat_map(|i| (0..40i64).map(move |j| (i + 1) * j))
        .sum();
    assert_eq!(md_total, expect_sum);
    Ok(())
}
per_space!(
    prepared_kernels_give_the_launched_results,
    prepared_kernels_give_the_launched_results
);

/// Launch first, then prepare the same kernels over the same policies: on Cuda every entry is the
/// one the launch loaded (the preparation compiles nothing), so a prepared kernel's first launch
/// compiles nothing either.
fn preparation_after_a_launch_finds_the_launched_entries<S: Launch>(exec: &S) -> Result<()> {
    let n = 3000usize;
    let x = upload::<S, f64>("x", &vec![1.0; n])?;
    let y = SView::<S, f64, 1>::new("y", [n])?;
    let a = SView::<S, f64, 3>::new("a", [5, 6, 7])?;
    let table = [0.25f64; 9000];
    let policy = RangePolicy::new(exec, 0, n)?;
    let md = MDRangePolicy::new(exec, [0i64, 0, 0], [5, 6, 7])?.iterate(Iterate::Left);
    let tiled = MDRangePolicy::new(exec, [0i64, 0, 0], [5, 6, 7])?.tile_sizes([2, 3, 4])?;

    // Each call gives the same kernel (one kernel! site): once launched, once prepared.
    let shift = || kernel!(|i| y[i] = x[i] + table[i % 9000]);
    let sum = || kernel!(|i, acc: &mut f64| *acc += y[i]);
    let prefix = || kernel!(|i, p: &mut f64, _last: bool| *p += x[i]);
    let fill = || kernel!(|(i, j, k)| a[(i, j, k)] = (i + j + k) as f64);
    let fill2 = || kernel!(|(i, j, k)| a[(i, j, k)] += 1.0);
    let total = || kernel!(|(i, j, k), acc: &mut f64| *acc += a[(i, j, k)]);

    let mut prep = Prepare::new();
    parallel_for("shift", policy.clone(), shift())?;
    prep.parallel_for("shift", &policy, &shift())?;
    let s = parallel_reduce("sum", policy.clone(), sum(), Sum::new())?;
    assert_eq!(s, 3750.0);
    prep.parallel_reduce("sum", &policy, &sum(), Sum::<f64>::new())?;
    let p: f64 = parallel_scan("prefix", policy.clone(), prefix())?;
    assert_eq!(p, 3000.0);
    prep.parallel_scan("prefix", &policy, &prefix())?;
    parallel_for("fill", md.clone(), fill())?;
    prep.parallel_for("fill", &md, &fill())?;
    parallel_for("fill2", tiled.clone(), fill2())?;
    prep.parallel_for("fill2", &tiled, &fill2())?;
    let t = parallel_reduce("total", md.clone(), total(), Sum::new())?;
    let expect: f64 = (0..5)
        .flat_map(|i| (0..6).flat_map(move |j| (0..7).map(move |k| (i + j + k + 1) as f64)))
        .sum();
    assert_eq!(t, expect);
    prep.parallel_reduce("total", &md, &total(), Sum::<f64>::new())?;
    let report = prep.compile()?;
    assert_eq!(report.jobs, jobs::<S>(6));
    assert_eq!(report.already_loaded, jobs::<S>(6), "{report:?}");
    assert_eq!(report.compiled + report.from_disk, 0, "{report:?}");
    Ok(())
}
per_space!(
    preparation_after_a_launch_finds_the_launched_entries,
    preparation_after_a_launch_finds_the_launched_entries
);

/// Nothing to compile: an empty range prepares nothing (its launch compiles nothing either).
fn empty_policies_prepare_nothing<S: Launch>(exec: &S) -> Result<()> {
    let y = SView::<S, f64, 1>::new("y", [4])?;
    let policy = RangePolicy::new(exec, 2, 2)?;
    let set = kernel!(|i| y[i] = 1.0);
    let report = Prepare::new()
        .parallel_for("nothing", &policy, &set)?
        .compile()?;
    assert_eq!((report.jobs, report.threads), (0, 0));
    Ok(())
}
per_space!(
    empty_policies_prepare_nothing,
    empty_policies_prepare_nothing
);

/// A reducer without a device form cannot be prepared for Cuda: the `Err` names the launch and the
/// reducer, as the launch's does.
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_custom_reducer_cannot_be_prepared_for_cuda() -> Result<()> {
    crate::common::runtime();
    let exec = Cuda::default_instance()?;
    let policy = RangePolicy::new(&exec, 0, 10)?;
    let k = kernel!(|i, acc: &mut f64| *acc += i as f64);
    let err = Prepare::new()
        .parallel_reduce(
            "custom",
            &policy,
            &k,
            Custom::new(|| 0.0f64, |d: &mut f64, s: &f64| *d += *s),
        )
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::Unsupported { .. }), "{err:?}");
    assert!(
        text.contains("parallel_reduce \"custom\" on Cuda") && text.contains("Custom"),
        "{text}"
    );
    Ok(())
}
