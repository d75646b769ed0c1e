//! `ferrokkos latency` with `kernel!`s: Kokkos' launches written as `kernel!`s capturing the
//! `[f64; V]` array and a View in the space's memory (on Cuda, where closures cannot run, and on the
//! host spaces with `--kernels`), and on Cuda with the `peers` feature the raw CUDA launches they
//! are compared with, measured in the same run, block by block.

use std::hint::black_box;
use std::time::Instant;

use ferrokkos::traits::Launch;
use ferrokkos::{
    Cuda, ExecutionSpace, LayoutRight, RangePolicy, View, create_mirror_view, deep_copy, kernel,
    parallel_for, parallel_reduce,
};

use super::measure::{Check, Implementation, K, Kinds, SETTLE, measure, medians, values};
use super::report::{Block, Report};
use super::{Config, Measured};
use crate::Failure;

/// ferrokkos launching `kernel!`s on an instance of `S`.
pub struct FerrokkosKernels<'e, S>(pub &'e S);

/// A View in the memory space of `S` (CudaSpace on Cuda).
type SpaceView<S, const R: usize> = View<f64, R, LayoutRight, <S as ExecutionSpace>::MemorySpace>;

/// Copies the array `a` into the host View `host` (for [`Check`]).
fn download<S: Launch>(host: &View<f64, 1>, a: &SpaceView<S, 1>) -> Result<(), Failure> {
    Ok(deep_copy(host, a)?)
}

impl<S: Launch> Implementation for FerrokkosKernels<'_, S> {
    /// Launches a small kernel, each followed by a fence, for [`SETTLE`]: compiles it, and brings
    /// the GPU out of its idle clocks before the first measurement.
    fn settle(&self) -> Result<(), Failure> {
        let exec = self.0;
        let x = SpaceView::<S, 1>::new("latency_settle", [1024])?;
        let k = kernel!(|i| x[i] = i as f64);
        let start = Instant::now();
        while start.elapsed() < SETTLE {
            parallel_for("latency_settle", RangePolicy::new(exec, 0, 1024)?, &k)?;
            exec.fence("latency_settle")?;
        }
        Ok(())
    }

    fn kinds<const V: usize>(&self, n: usize, m: usize) -> Result<Kinds, Failure> {
        let exec = self.0;
        let a = SpaceView::<S, 1>::new("A", [n])?;
        let v_result = SpaceView::<S, 0>::new("result", [])?;
        let host_a = View::<f64, 1>::new("A (host copy)", [n])?;
        let host_result = create_mirror_view(&v_result)?;
        let mut result = 0.0;
        let (values, k) = (values::<V>(), black_box(K));
        let policy = || RangePolicy::new(exec, 0, n);
        let fence = || exec.fence("latency");
        let mut check = Check::new(&host_a, "ferrokkos", V * 8, m);

        // The kernels are built once and launched by reference, as Kokkos' benchmark launches one
        // functor object: each launch packs their captures (the array, the View, k) into its
        // parameters, as a Kokkos launch copies its functor.
        let for_kernel = kernel!(|i| {
            for j in 0..k {
                a[i] += 1.0 * i as f64 * values[j];
            }
        });
        let reduce_kernel = kernel!(|i, lsum: &mut f64| {
            for j in 0..k {
                a[i] += 1.0 * i as f64 * values[j];
            }
            *lsum += a[i];
        });

        let launch = || parallel_for("latency_for", policy()?, &for_kernel);
        let for_ = measure(m, launch, fence)?;
        download::<S>(&host_a, &a)?;
        check.kind_done(0, None)?;
        let launch = || {
            parallel_reduce("latency_reduce", policy()?, &reduce_kernel, &mut result)?;
            Ok(())
        };
        let reduce = measure(m, launch, fence)?;
        download::<S>(&host_a, &a)?;
        check.kind_done(1, Some(result))?;
        let launch =
            || parallel_reduce("latency_reduce_view", policy()?, &reduce_kernel, &v_result);
        let reduce_view = measure(m, launch, fence)?;
        download::<S>(&host_a, &a)?;
        deep_copy(&host_result, &v_result)?;
        check.kind_done(2, Some(host_result.get(())?))?;
        Ok([for_, reduce, reduce_view])
    }
}

/// How many times each (loop length, capture size), and each graph row, is measured, alternating
/// ferrokkos and the raw peer; the tables show the medians.
pub(super) const ROUNDS: usize = 5;

/// Measures every loop length and capture size on `exec`, with the raw CUDA peer right after
/// ferrokkos for each (so both see the same device state), then prints the results.
pub fn run(exec: &Cuda, config: &Config) -> Result<(), Failure> {
    let device = Cuda::device()?;
    let plan = config.plan();
    let ferrokkos = FerrokkosKernels(exec);
    #[cfg(feature = "peers")]
    let raw = super::raw::RawCuda::new(&device)?;
    ferrokkos.settle()?;

    /// One capture size: `V` doubles, ferrokkos and the raw peer alternately, [`ROUNDS`] times;
    /// each figure is the median of its rounds (the device's clocks and the host's scheduling drift
    /// over a run, and alternating exposes both sides to the drift alike).
    fn one<const V: usize>(
        ferrokkos: &FerrokkosKernels<'_, Cuda>,
        #[cfg(feature = "peers")] raw: &super::raw::RawCuda,
        n: usize,
        m: usize,
    ) -> Result<(Measured, Option<Kinds>), Failure> {
        let mut ours = Vec::new();
        #[cfg(feature = "peers")]
        let mut theirs = Vec::new();
        for _ in 0..ROUNDS {
            ours.push(ferrokkos.kinds::<V>(n, m)?);
            #[cfg(feature = "peers")]
            theirs.push(raw.kinds::<V>(n, m)?);
        }
        #[cfg(feature = "peers")]
        let peer = theirs
            .iter()
            .copied()
            .collect::<Option<Vec<Kinds>>>()
            .map(|all| medians(&all));
        #[cfg(not(feature = "peers"))]
        let peer = None;
        Ok(((n, m, V * std::mem::size_of::<f64>(), medians(&ours)), peer))
    }

    let mut all = Vec::new();
    for &(n, m) in &plan {
        #[cfg(feature = "peers")]
        {
            all.push(one::<1>(&ferrokkos, &raw, n, m)?);
            all.push(one::<200>(&ferrokkos, &raw, n, m)?);
            all.push(one::<3000>(&ferrokkos, &raw, n, m)?);
        }
        #[cfg(not(feature = "peers"))]
        {
            all.push(one::<1>(&ferrokkos, n, m)?);
            all.push(one::<200>(&ferrokkos, n, m)?);
            all.push(one::<3000>(&ferrokkos, n, m)?);
        }
    }

    let (major, minor) = device.compute_capability;
    let name = format!(
        "{} (sm_{major}{minor}, {} SMs, device id 0x{:08x})",
        device.name,
        device.multiprocessors,
        exec.device_id()
    );
    let report = Report::device(
        config.csv,
        cfg!(feature = "peers"),
        Cuda::NAME,
        exec.concurrency(),
        name,
    );
    report.header();
    for ((n, m, capture, ferrokkos), peer) in all {
        report.block(&Block {
            n,
            capture,
            m,
            ferrokkos,
            peer,
        });
    }
    if !config.no_graphs {
        #[cfg(feature = "peers")]
        {
            let mut raw = super::graph_raw::RawGraphs::new(&device)?;
            super::graph::run(exec, config.m, &report, &mut |m| raw.round(m).map(Some))?;
        }
        #[cfg(not(feature = "peers"))]
        super::graph::run(exec, config.m, &report, &mut |_| Ok(None))?;
    }
    Ok(())
}
