//! The device half of the equivalence, ahead of the CUDA backend: the generated translation units of
//! representative kernels (for, reduce, scan; Range and MDRange) are compiled by NVRTC for the GPU's
//! architecture, loaded with the driver API and launched by hand, and their results must equal the
//! host kernels' results. Needs a CUDA GPU (ignored elsewhere).

use std::collections::HashMap;
use std::sync::Arc;

use crate::common::{Rng, random_view, runtime, unflatten};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Result, kernel};

/// A View descriptor as the device header lays it out: pointer, extents, strides.
#[repr(C)]
#[derive(Clone, Copy)]
struct Desc<const R: usize> {
    data: u64,
    extent: [u64; R],
    stride: [u64; R],
}

// SAFETY: a plain #[repr(C)] struct of 64-bit integers, matching `fk::View<T, R, L>`'s layout.
unsafe impl<const R: usize> cudarc::driver::DeviceRepr for Desc<R> {}

/// A kernel argument by name.
enum Arg<'a> {
    Usize(usize),
    U64(u64),
    I64(i64),
    F64(f64),
    U32(u32),
    Bool(bool),
    Desc1(Desc<1>),
    Desc2(Desc<2>),
    SliceF64(&'a CudaSlice<f64>),
    SliceU32(&'a CudaSlice<u32>),
    Weights([f64; 3]),
}

struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    arch: u32,
}

fn gpu() -> Gpu {
    // SAFETY: only checks whether libcuda can be loaded.
    assert!(
        unsafe { cudarc::driver::sys::is_culib_present() },
        "no CUDA driver library"
    );
    let ctx = CudaContext::new(0).expect("CUDA context");
    let (major, minor) = ctx.compute_capability().unwrap();
    let stream = ctx.default_stream();
    Gpu {
        ctx,
        stream,
        arch: (major * 10 + minor) as u32,
    }
}

/// The parameter names of `entry`, in order, read from the unit's `extern "C"` line.
fn param_names(tu: &TranslationUnit, entry: &str) -> Vec<String> {
    let line = tu
        .generated()
        .lines()
        .find(|l| l.contains(&format!("void {entry}(")))
        .unwrap_or_else(|| panic!("no entry {entry}"));
    let inside = &line[line.find('(').unwrap() + 1..line.rfind(')').unwrap()];
    // Split at the commas outside template brackets; a parameter's name is its last word.
    let (mut params, mut depth, mut start) = (Vec::new(), 0, 0);
    for (k, c) in inside.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ',' if depth == 0 => {
                params.push(&inside[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    params.push(&inside[start..]);
    params
        .iter()
        .map(|p| p.trim().rsplit(' ').next().unwrap().to_string())
        .collect()
}

impl Gpu {
    fn slice_f64(&self, v: &View<f64, 1>) -> CudaSlice<f64> {
        self.stream.clone_htod(&v.to_vec().unwrap()).unwrap()
    }

    fn desc1<T>(&self, s: &CudaSlice<T>) -> Desc<1> {
        let (ptr, _sync) = s.device_ptr(&self.stream);
        Desc {
            data: ptr,
            extent: [s.len() as u64],
            stride: [1],
        }
    }

    /// Launches `entry` of the compiled `tu` with the arguments found by name in `args`.
    fn launch(
        &self,
        tu: &TranslationUnit,
        entry: &str,
        cfg: LaunchConfig,
        args: &HashMap<&str, Arg<'_>>,
    ) {
        let cubin = tu
            .compile_cubin(self.arch)
            .unwrap_or_else(|e| panic!("{e}"));
        let module = self
            .ctx
            .load_module(cudarc::nvrtc::Ptx::from_binary(cubin.image))
            .unwrap();
        let f = module.load_function(entry).unwrap();
        let names = param_names(tu, entry);
        let mut b = self.stream.launch_builder(&f);
        for n in &names {
            match args
                .get(n.as_str())
                .unwrap_or_else(|| panic!("no argument {n} for {entry}"))
            {
                Arg::Usize(v) => b.arg(v),
                Arg::U64(v) => b.arg(v),
                Arg::I64(v) => b.arg(v),
                Arg::F64(v) => b.arg(v),
                Arg::U32(v) => b.arg(v),
                Arg::Bool(v) => b.arg(v),
                Arg::Desc1(v) => b.arg(v),
                Arg::Desc2(v) => b.arg(v),
                Arg::SliceF64(v) => b.arg(*v),
                Arg::SliceU32(v) => b.arg(*v),
                Arg::Weights(v) => b.arg(v),
            };
        }
        // SAFETY: the arguments match the entry's parameters by name and type (checked by the
        // host-side construction above); the buffers outlive the launch (synchronized below).
        unsafe { b.launch(cfg) }.unwrap();
        self.stream.synchronize().unwrap();
    }
}

fn cfg(blocks: u32, threads: u32, shared: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: shared,
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn axpy_on_the_gpu_equals_the_host() -> Result<()> {
    let g = gpu();
    let mut rng = Rng::new(7);
    let n = 1_000_003;
    let (x, y) = (
        random_view("x", &mut rng, n)?.0,
        random_view("y", &mut rng, n)?.0,
    );
    let a = 0.75;
    let k = kernel!(|i| y[i] = a * x[i] + y[i]);
    let (dx, dy) = (g.slice_f64(&x), g.slice_f64(&y));
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let args = HashMap::from([
        ("fk_begin", Arg::Usize(0)),
        ("fk_count", Arg::U64(n as u64)),
        ("a", Arg::F64(a)),
        ("x", Arg::Desc1(g.desc1(&dx))),
        ("y", Arg::Desc1(g.desc1(&dy))),
    ]);
    g.launch(&tu, &tu.entry, cfg(264, 256, 0), &args);
    let device: Vec<f64> = g.stream.clone_dtoh(&dy).unwrap();
    parallel_for(
        "axpy",
        RangePolicy::new(&Threads::default_instance()?, 0, n)?,
        &k,
    )?;
    let host = y.to_vec()?;
    assert!(
        host.iter()
            .zip(&device)
            .all(|(h, d)| h.to_bits() == d.to_bits()),
        "axpy differs"
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn dot_on_the_gpu_equals_the_host_up_to_rounding() -> Result<()> {
    let g = gpu();
    let mut rng = Rng::new(8);
    let n = 2_000_001;
    let (x, y) = (
        random_view("x", &mut rng, n)?.0,
        random_view("y", &mut rng, n)?.0,
    );
    let k = kernel!(|i, acc| *acc += x[i] * y[i]);
    let (dx, dy) = (g.slice_f64(&x), g.slice_f64(&y));
    let tu = TranslationUnit::reduce_kernel::<Sum<f64>, _>(&k, Iterate::Right);
    let blocks = 300u32;
    let partials = g.stream.alloc_zeros::<f64>(blocks as usize).unwrap();
    let result = g.stream.alloc_zeros::<f64>(1).unwrap();
    let join = format!("{}_join", tu.entry);
    // The reduction: one partial per block, then the join.
    let run = || {
        let args = HashMap::from([
            ("fk_begin", Arg::Usize(0)),
            ("fk_count", Arg::U64(n as u64)),
            ("fk_partials", Arg::SliceF64(&partials)),
            ("x", Arg::Desc1(g.desc1(&dx))),
            ("y", Arg::Desc1(g.desc1(&dy))),
        ]);
        g.launch(&tu, &tu.entry, cfg(blocks, 256, 256 * 8), &args);
        let args = HashMap::from([
            ("fk_n", Arg::U32(blocks)),
            ("fk_partials", Arg::SliceF64(&partials)),
            ("fk_result", Arg::SliceF64(&result)),
        ]);
        g.launch(&tu, &join, cfg(1, 128, 128 * 8), &args);
        g.stream.clone_dtoh(&result).unwrap()[0]
    };
    let device = run();
    let mut host = 0.0;
    parallel_reduce(
        "dot",
        RangePolicy::new(&Serial::default_instance()?, 0, n)?,
        &k,
        &mut host,
    )?;
    assert!(
        (device - host).abs() <= 1e-9 * host.abs().max(1.0),
        "device {device}, host {host}"
    );
    // Deterministic: a second launch gives the same bits.
    assert_eq!(device.to_bits(), run().to_bits());
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn scan_on_the_gpu_equals_the_host() -> Result<()> {
    runtime();
    let g = gpu();
    let mut rng = Rng::new(9);
    let n = 1_234_567usize;
    let counts = View::<u32, 1>::new("counts", [n])?;
    {
        let mut c = counts.host_mut()?;
        for k in 0..n {
            c[k] = (rng.next_u64() % 17) as u32;
        }
    }
    let offsets = View::<u32, 1>::new("offsets", [n])?;
    let k = kernel!(|i, partial, is_final| {
        if is_final {
            offsets[i] = *partial;
        }
        *partial += counts[i];
    });
    let tu = TranslationUnit::scan_kernel::<Sum<u32>, _>(&k);
    let dc: CudaSlice<u32> = g.stream.clone_htod(&counts.to_vec()?).unwrap();
    let doff: CudaSlice<u32> = g.stream.alloc_zeros(n).unwrap();
    let blocks = 97u32;
    let per_block = (n as u64).div_ceil(blocks as u64);
    let totals = g.stream.alloc_zeros::<u32>(blocks as usize).unwrap();
    let total = g.stream.alloc_zeros::<u32>(1).unwrap();
    let pass = |final_pass: bool| {
        let args = HashMap::from([
            ("fk_begin", Arg::Usize(0)),
            ("fk_count", Arg::U64(n as u64)),
            ("fk_per_block", Arg::U64(per_block)),
            ("fk_block_totals", Arg::SliceU32(&totals)),
            ("fk_block_prefix", Arg::SliceU32(&totals)),
            ("fk_final_pass", Arg::Bool(final_pass)),
            ("counts", Arg::Desc1(g.desc1(&dc))),
            ("offsets", Arg::Desc1(g.desc1(&doff))),
        ]);
        g.launch(&tu, &tu.entry, cfg(blocks, 256, 256 * 4), &args);
    };
    pass(false);
    let args = HashMap::from([
        ("fk_n", Arg::U32(blocks)),
        ("fk_totals", Arg::SliceU32(&totals)),
        ("fk_total", Arg::SliceU32(&total)),
    ]);
    g.launch(&tu, &format!("{}_prefix", tu.entry), cfg(1, 1, 0), &args);
    pass(true);
    let device: Vec<u32> = g.stream.clone_dtoh(&doff).unwrap();
    let device_total = g.stream.clone_dtoh(&total).unwrap()[0];
    let host_total: u32 = parallel_scan(
        "scan",
        RangePolicy::new(&Threads::default_instance()?, 0, n)?,
        &k,
    )?;
    assert_eq!(device_total, host_total);
    assert!(device == offsets.to_vec()?, "scan offsets differ");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn md_range_stencil_on_the_gpu_equals_the_host() -> Result<()> {
    runtime();
    let g = gpu();
    let mut rng = Rng::new(10);
    let (n, m) = (301usize, 517usize);
    let flat = random_view("flat", &mut rng, n * m)?.0;
    let u = unflatten("u", &flat, n, m)?;
    let out = View::<f64, 2>::new("out", [n, m])?;
    let k = kernel!(|(i, j)| {
        let ni = u.extent(0) as i64;
        let nj = u.extent(1) as i64;
        if i == 0 || j == 0 || i == ni - 1 || j == nj - 1 {
            out[(i, j)] = u[(i, j)];
        } else {
            out[(i, j)] = 0.25 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)]);
        }
    });
    let du = g.slice_f64(&flat);
    let dout = g.stream.alloc_zeros::<f64>(n * m).unwrap();
    let desc2 = |s: &CudaSlice<f64>| {
        let (ptr, _sync) = s.device_ptr(&g.stream);
        Desc {
            data: ptr,
            extent: [n as u64, m as u64],
            stride: [m as u64, 1],
        }
    };
    for iterate in [Iterate::Right, Iterate::Left] {
        let tu = TranslationUnit::for_kernel(&k, iterate);
        let args = HashMap::from([
            ("fk_lower0", Arg::I64(0)),
            ("fk_lower1", Arg::I64(0)),
            ("fk_count", Arg::U64((n * m) as u64)),
            ("fk_extent0", Arg::U64(n as u64)),
            ("fk_extent1", Arg::U64(m as u64)),
            ("u", Arg::Desc2(desc2(&du))),
            ("out", Arg::Desc2(desc2(&dout))),
        ]);
        g.launch(&tu, &tu.entry, cfg(200, 128, 0), &args);
        let device: Vec<f64> = g.stream.clone_dtoh(&dout).unwrap();
        parallel_for(
            "stencil",
            MDRangePolicy::new(&Threads::default_instance()?, [0, 0], [n as i64, m as i64])?,
            &k,
        )?;
        let host = out.host()?;
        for i in 0..n {
            for j in 0..m {
                assert_eq!(
                    device[i * m + j].to_bits(),
                    host[(i, j)].to_bits(),
                    "({i}, {j}) {iterate:?}"
                );
            }
        }
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_captured_array_reaches_the_gpu() -> Result<()> {
    let g = gpu();
    let mut rng = Rng::new(11);
    let n = 100_003;
    let x = random_view("x", &mut rng, n)?.0;
    let y = View::<f64, 1>::new("y", [n])?;
    let w = [0.25, 0.5, 0.25];
    let k = kernel!(|i| {
        let last = x.extent(0) - 1;
        let l = if i > 0 { i - 1 } else { 0 };
        let r = if i < last { i + 1 } else { last };
        y[i] = w[0] * x[l] + w[1] * x[i] + w[2] * x[r];
    });
    let (dx, dy) = (g.slice_f64(&x), g.stream.alloc_zeros::<f64>(n).unwrap());
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    assert!(
        tu.generated().contains("const fk::Array<f64, 3> w"),
        "{}",
        tu.generated()
    );
    let args = HashMap::from([
        ("fk_begin", Arg::Usize(0)),
        ("fk_count", Arg::U64(n as u64)),
        ("w", Arg::Weights(w)),
        ("x", Arg::Desc1(g.desc1(&dx))),
        ("y", Arg::Desc1(g.desc1(&dy))),
    ]);
    g.launch(&tu, &tu.entry, cfg(128, 256, 0), &args);
    let device: Vec<f64> = g.stream.clone_dtoh(&dy).unwrap();
    parallel_for(
        "smooth",
        RangePolicy::new(&Threads::default_instance()?, 0, n)?,
        &k,
    )?;
    let host = y.to_vec()?;
    assert!(
        host.iter()
            .zip(&device)
            .all(|(h, d)| h.to_bits() == d.to_bits()),
        "smoothing differs"
    );
    Ok(())
}
