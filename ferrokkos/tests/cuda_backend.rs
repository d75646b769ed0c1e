//! The Cuda backend on a GPU: instances, memory spaces, launches of every pattern, deep_copy rows.
//! Every test needs a CUDA GPU and is ignored elsewhere.

mod common;

use ferrokkos::prelude::*;
use ferrokkos::{Cuda, CudaHostPinnedSpace, CudaSpace, CudaUVMSpace, deep_copy_async};

type Dev1<T> = View<T, 1, LayoutRight, CudaSpace>;

fn cuda() -> Cuda {
    common::runtime();
    Cuda::default_instance().expect("a CUDA GPU")
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_device_is_described() {
    let exec = cuda();
    let d = Cuda::device().unwrap();
    assert!(!d.name.is_empty());
    assert!(d.compute_capability.0 >= 7, "{d:?}");
    assert!(d.multiprocessors > 0 && d.memory_bytes > 0);
    assert!(exec.concurrency() >= 1024);
    assert_eq!(exec.name(), "Cuda");
    assert_eq!(exec.device_id() >> 24, 2);
    exec.fence("test").unwrap();
    ferrokkos::fence("global").unwrap();
    // Instances: each new one has the next number, encoded in its device id with the device.
    let parts = ferrokkos::partition_space_with_weights(&exec, &[1.0, 3.0]).unwrap();
    assert_eq!(parts.len(), 2);
    assert!(parts[1].instance_id() == parts[0].instance_id() + 1);
    assert_eq!(parts[0].device_id() & 0x1_ffff, parts[0].instance_id());
    assert_eq!((parts[0].device_id() >> 17) & 0x7f, d.ordinal as u32);
    let e = ferrokkos::partition_space_with_weights(&exec, &[1.0, -1.0]).unwrap_err();
    assert!(e.to_string().contains("weight 1 is -1"), "{e}");
    let other = Cuda::new_instance().unwrap();
    assert_ne!(other.instance_id(), exec.instance_id());
    other.fence("new instance").unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn axpy_on_device_memory_matches_the_host() {
    let exec = cuda();
    let n = 100_003;
    let x = Dev1::<f64>::new("x", [n]).unwrap();
    let y = Dev1::<f64>::new("y", [n]).unwrap();
    let a = 0.25;
    parallel_for(
        "init",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| {
            x[i] = i as f64 * 0.5;
            y[i] = 3.0 - i as f64;
        }),
    )
    .unwrap();
    parallel_for(
        "axpy",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| y[i] = a * x[i] + y[i]),
    )
    .unwrap();
    let host = View::<f64, 1>::new("host", [n]).unwrap();
    deep_copy(&host, &y).unwrap();
    let h = host.host().unwrap();
    for i in 0..n {
        assert_eq!(h[i], a * (i as f64 * 0.5) + (3.0 - i as f64), "at {i}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn reductions_of_every_kind_match_serial() {
    let exec = cuda();
    let n = 1_000_000usize;
    let v = Dev1::<i64>::new("v", [n]).unwrap();
    parallel_for(
        "init",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| v[i] = ((i * 7919) % 10007) as i64 - 5000),
    )
    .unwrap();
    let host = create_mirror_view(&v).unwrap();
    deep_copy(&host, &v).unwrap();
    let h = host.to_vec().unwrap();
    let sum: i64 = parallel_reduce(
        "sum",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i, acc: &mut i64| *acc += v[i]),
        Sum::new(),
    )
    .unwrap();
    assert_eq!(sum, h.iter().sum::<i64>());
    let max: i64 = parallel_reduce(
        "max",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i, m: &mut i64| *m = (*m).max(v[i])),
        Max::new(),
    )
    .unwrap();
    assert_eq!(max, *h.iter().max().unwrap());
    let loc = parallel_reduce(
        "minloc",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i, best: &mut ValLocScalar<i64, usize>| {
            if v[i] < best.val {
                best.val = v[i];
                best.loc = i;
            }
        }),
        MinLoc::<i64, usize>::new(),
    )
    .unwrap();
    let min = *h.iter().min().unwrap();
    assert_eq!(loc.val, min);
    assert_eq!(h[loc.loc], min);
    let (s, c) = parallel_reduce(
        "tuple",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i, s: &mut i64, c: &mut u32| {
            *s += v[i];
            if v[i] > 0 {
                *c += 1;
            }
        }),
        (Sum::<i64>::new(), Sum::<u32>::new()),
    )
    .unwrap();
    assert_eq!(s, sum);
    assert_eq!(c as usize, h.iter().filter(|x| **x > 0).count());
    let mut total = 0i64;
    parallel_reduce(
        "into",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i, acc: &mut i64| *acc += v[i]),
        &mut total,
    )
    .unwrap();
    assert_eq!(total, sum);
    // Into a device View: asynchronous, read back by deep_copy.
    let dev_total = View::<i64, 0, LayoutRight, CudaSpace>::new("total", []).unwrap();
    parallel_reduce(
        "into view",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i, acc: &mut i64| *acc += v[i]),
        &dev_total,
    )
    .unwrap();
    let mut back = 0i64;
    deep_copy(&mut back, &dev_total).unwrap();
    assert_eq!(back, sum);
    let empty: i64 = parallel_reduce(
        "empty",
        RangePolicy::new(&exec, 5, 5).unwrap(),
        kernel!(|i, acc: &mut i64| *acc += v[i]),
        Sum::new(),
    )
    .unwrap();
    assert_eq!(empty, 0);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn f64_sums_agree_with_serial_within_rounding() {
    let exec = cuda();
    let n = 3_000_001usize;
    let x = Dev1::<f64>::new("x", [n]).unwrap();
    parallel_for(
        "init",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| x[i] = 1.0 / (1.0 + i as f64)),
    )
    .unwrap();
    let dev: f64 = parallel_reduce(
        "sum",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i, acc: &mut f64| *acc += x[i]),
        Sum::new(),
    )
    .unwrap();
    let host: f64 = (0..n).map(|i| 1.0 / (1.0 + i as f64)).sum();
    assert!((dev - host).abs() <= 1e-12 * host.abs(), "{dev} vs {host}");
    let again: f64 = parallel_reduce(
        "sum",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i, acc: &mut f64| *acc += x[i]),
        Sum::new(),
    )
    .unwrap();
    assert_eq!(dev.to_bits(), again.to_bits(), "deterministic");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn scans_give_the_prefix_sums_and_the_total() {
    let exec = cuda();
    for n in [1usize, 7, 1000, 1 << 20, 3_000_017] {
        let v = Dev1::<u64>::new("v", [n]).unwrap();
        let out = Dev1::<u64>::new("out", [n]).unwrap();
        parallel_for(
            "init",
            RangePolicy::new(&exec, 0, n).unwrap(),
            kernel!(|i| v[i] = (i % 13) as u64),
        )
        .unwrap();
        let total: u64 = parallel_scan(
            "scan",
            RangePolicy::new(&exec, 0, n).unwrap(),
            kernel!(|i, partial: &mut u64, last: bool| {
                if last {
                    out[i] = *partial;
                }
                *partial += v[i];
            }),
        )
        .unwrap();
        let h = create_mirror_view(&out).unwrap();
        deep_copy(&h, &out).unwrap();
        let h = h.to_vec().unwrap();
        let mut run = 0u64;
        for (i, got) in h.iter().enumerate() {
            assert_eq!(*got, run, "n {n} at {i}");
            run += (i % 13) as u64;
        }
        assert_eq!(total, run, "n {n}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn md_range_fills_and_reduces_in_both_orders() {
    let exec = cuda();
    let a = View::<i64, 3, LayoutLeft, CudaSpace>::new("a", [5, 70, 33]).unwrap();
    for order in [Iterate::Left, Iterate::Right] {
        let policy = MDRangePolicy::new(&exec, [0, 0, 0], [5, 70, 33])
            .unwrap()
            .iterate(order);
        parallel_for(
            "fill",
            policy,
            kernel!(|(i, j, k)| a[(i, j, k)] = i * 10000 + j * 100 + k),
        )
        .unwrap();
        let policy = MDRangePolicy::new(&exec, [1, 2, 3], [5, 70, 33])
            .unwrap()
            .iterate(order);
        let s: i64 = parallel_reduce(
            "sum",
            policy,
            kernel!(|(i, j, k), acc: &mut i64| *acc += a[(i, j, k)]),
            Sum::new(),
        )
        .unwrap();
        let mut want = 0i64;
        for i in 1..5 {
            for j in 2..70 {
                for k in 3..33 {
                    want += i * 10000 + j * 100 + k;
                }
            }
        }
        assert_eq!(s, want, "{order:?}");
    }
    let h = View::<i64, 3>::new("h", [5, 70, 33]).unwrap();
    deep_copy(&h, &a).unwrap();
    assert_eq!(h.get((4, 69, 32)).unwrap(), 4 * 10000 + 69 * 100 + 32);
    assert_eq!(h.get((1, 2, 3)).unwrap(), 10000 + 200 + 3);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn copies_between_layouts_and_subviews_use_the_copy_kernel() {
    let exec = cuda();
    let right = View::<f32, 2, LayoutRight, CudaSpace>::new("right", [37, 19]).unwrap();
    parallel_for(
        "fill",
        MDRangePolicy::new(&exec, [0, 0], [37, 19]).unwrap(),
        kernel!(|(i, j)| right[(i, j)] = (i * 100 + j) as f32),
    )
    .unwrap();
    let left = View::<f32, 2, LayoutLeft, CudaSpace>::new("left", [37, 19]).unwrap();
    deep_copy(&left, &right).unwrap();
    let h = View::<f32, 2, LayoutLeft>::new("h", [37, 19]).unwrap();
    deep_copy(&h, &left).unwrap();
    assert_eq!(h.get((36, 18)).unwrap(), 3618.0);
    assert_eq!(h.get((5, 7)).unwrap(), 507.0);
    // A strided column of a device View into a contiguous host View (pageable destination).
    let col = subview(&right, (ALL, 3)).unwrap();
    let hc = View::<f32, 1>::new("hc", [37]).unwrap();
    deep_copy(&hc, &col).unwrap();
    assert_eq!(hc.get(10).unwrap(), 1003.0);
    // And back: a host View into a strided device column (pageable source).
    deep_copy(&hc, -1.0f32).unwrap();
    deep_copy(&col, &hc).unwrap();
    let hr = View::<f32, 2>::new("hr", [37, 19]).unwrap();
    deep_copy(&hr, &right).unwrap();
    assert_eq!(hr.get((10, 3)).unwrap(), -1.0);
    assert_eq!(hr.get((10, 4)).unwrap(), 1004.0);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn fills_use_memset_or_the_fill_kernel_and_keep_the_rest() {
    cuda();
    let v = Dev1::<f64>::new("v", [1000]).unwrap();
    for value in [0.0, 7.0, -2.5] {
        deep_copy(&v, value).unwrap();
        let h = create_mirror_view(&v).unwrap();
        deep_copy(&h, &v).unwrap();
        assert!(h.to_vec().unwrap().iter().all(|x| *x == value), "{value}");
    }
    let b = Dev1::<u8>::new("b", [333]).unwrap();
    deep_copy(&b, 9u8).unwrap();
    let mut last = 0u8;
    deep_copy(&mut last, &subview(&b, 332).unwrap()).unwrap();
    assert_eq!(last, 9);
    // A strided fill leaves the other column alone.
    let m = View::<i32, 2, LayoutRight, CudaSpace>::new("m", [50, 2]).unwrap();
    deep_copy(&subview(&m, (ALL, 1)).unwrap(), 5).unwrap();
    let h = View::<i32, 2>::new("h", [50, 2]).unwrap();
    deep_copy(&h, &m).unwrap();
    assert_eq!((h.get((49, 0)).unwrap(), h.get((49, 1)).unwrap()), (0, 5));
}

/// Fills and copies an unmanaged View of space `M` over `memory` (host memory the device may not
/// reach), checking every element.
fn unmanaged_fill_and_copy<M: MemorySpace>(memory: *mut f64, n: usize) {
    // SAFETY: `memory` holds `n` f64 and outlives the View, which is dropped at the end.
    let v =
        unsafe { View::<f64, 1, LayoutRight, M>::from_raw_parts("wrapped", memory, [n]) }.unwrap();
    for value in [0.0, 7.0] {
        deep_copy(&v, value).unwrap();
        // SAFETY: the fill completed (deep_copy waits) and nothing else uses the memory.
        let s = unsafe { std::slice::from_raw_parts(memory, n) };
        assert!(s.iter().all(|x| *x == value), "{} fill {value}", M::NAME);
    }
    let d = Dev1::<f64>::new("d", [n]).unwrap();
    deep_copy(&d, 3.0).unwrap();
    deep_copy(&v, &d).unwrap();
    // SAFETY: as above.
    let s = unsafe { std::slice::from_raw_parts(memory, n) };
    assert!(s.iter().all(|x| *x == 3.0), "{} copy", M::NAME);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn unmanaged_views_over_vec_and_calloc_memory_fill_in_every_space() {
    cuda();
    let n = 4099;
    let mut vec = vec![1.0f64; n];
    unmanaged_fill_and_copy::<HostSpace>(vec.as_mut_ptr(), n);
    unmanaged_fill_and_copy::<CudaSpace>(vec.as_mut_ptr(), n);
    unmanaged_fill_and_copy::<CudaUVMSpace>(vec.as_mut_ptr(), n);
    unmanaged_fill_and_copy::<CudaHostPinnedSpace>(vec.as_mut_ptr(), n);
    let layout = std::alloc::Layout::array::<f64>(n).unwrap();
    // SAFETY: a non-zero layout; freed below.
    let raw = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<f64>();
    assert!(!raw.is_null());
    unmanaged_fill_and_copy::<CudaSpace>(raw, n);
    unmanaged_fill_and_copy::<CudaUVMSpace>(raw, n);
    // SAFETY: allocated above with this layout; the Views over it are gone.
    unsafe { std::alloc::dealloc(raw.cast(), layout) };
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn managed_and_pinned_views_are_shared_with_the_host() {
    let exec = cuda();
    let u = View::<f64, 1, LayoutRight, CudaUVMSpace>::new("u", [1000]).unwrap();
    let p = View::<f64, 1, LayoutRight, CudaHostPinnedSpace>::new("p", [1000]).unwrap();
    u.host_mut().unwrap()[5] = 2.0;
    parallel_for(
        "touch",
        RangePolicy::new(&exec, 0, 1000).unwrap(),
        kernel!(|i| p[i] = u[i] + i as f64),
    )
    .unwrap();
    // Host access waits for the kernel.
    assert_eq!(p.get(5).unwrap(), 7.0);
    assert_eq!(p.get(999).unwrap(), 999.0);
    // Threads may run kernels over managed memory too.
    let t = Threads::default_instance().unwrap();
    let s: f64 = parallel_reduce(
        "host sum",
        RangePolicy::new(&t, 0, 1000).unwrap(),
        kernel!(|i, acc: &mut f64| *acc += p[i]),
        Sum::new(),
    )
    .unwrap();
    assert_eq!(s, 2.0 + 999.0 * 1000.0 / 2.0);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn device_memory_is_refused_to_host_kernels_and_host_memory_to_the_gpu() {
    let exec = cuda();
    let d = Dev1::<f64>::new("dev", [10]).unwrap();
    let serial = Serial::default_instance().unwrap();
    let e = parallel_for(
        "host",
        RangePolicy::new(&serial, 0, 10).unwrap(),
        kernel!(|i| d[i] = 1.0),
    )
    .unwrap_err();
    assert!(e.to_string().contains("View \"dev\" in CudaSpace"), "{e}");
    let h = View::<f64, 1>::new("hostonly", [10]).unwrap();
    let e = parallel_for(
        "gpu",
        RangePolicy::new(&exec, 0, 10).unwrap(),
        kernel!(|i| h[i] = 1.0),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("View \"hostonly\" in HostSpace"),
        "{e}"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn captures_beyond_the_parameter_limit_go_through_device_memory() {
    let exec = cuda();
    let out = Dev1::<f64>::new("out", [64]).unwrap();
    let mut big = [0.0f64; 5000]; // 40000 bytes: more than 32764
    for (k, x) in big.iter_mut().enumerate() {
        *x = k as f64;
    }
    parallel_for(
        "big",
        RangePolicy::new(&exec, 0, 64).unwrap(),
        kernel!(|i| out[i] = big[i * 70] + big[4999]),
    )
    .unwrap();
    let h = create_mirror_view(&out).unwrap();
    deep_copy(&h, &out).unwrap();
    assert_eq!(h.get(63).unwrap(), 63.0 * 70.0 + 4999.0);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn instances_order_work_on_shared_views() {
    let exec = cuda();
    let parts = partition_space(&exec, 2).unwrap();
    let n = 1 << 22;
    let v = Dev1::<f64>::new("v", [n]).unwrap();
    for round in 0..20 {
        let (a, b) = (&parts[round % 2], &parts[(round + 1) % 2]);
        let r = round as f64;
        parallel_for(
            "write",
            RangePolicy::new(a, 0, n).unwrap(),
            kernel!(|i| v[i] = r + i as f64 * 0.0),
        )
        .unwrap();
        let s: f64 = parallel_reduce(
            "read",
            RangePolicy::new(b, 0, n).unwrap(),
            kernel!(|i, acc: &mut f64| *acc += v[i]),
            Sum::new(),
        )
        .unwrap();
        assert_eq!(s, r * n as f64, "round {round}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn async_copies_into_pinned_memory_return_before_the_copy_ends() {
    let exec = cuda();
    let n = 1 << 26; // 512 MiB of f64
    let d = Dev1::<f64>::new(view_alloc("big").without_initializing(), [n]).unwrap();
    // A pinned mirror of the device View, as a Kokkos user would make one for overlapping copies.
    let pinned = ferrokkos::create_mirror_view_in(CudaHostPinnedSpace, &d).unwrap();
    assert_eq!(pinned.label(), "big_mirror");
    let pageable = View::<f64, 1>::new(view_alloc("pageable").without_initializing(), [n]).unwrap();
    deep_copy(&d, 1.5).unwrap();
    let start = std::time::Instant::now();
    deep_copy_async(&exec, &pinned, &d).unwrap();
    let returned = start.elapsed();
    exec.fence("copy").unwrap();
    let done = start.elapsed();
    let start = std::time::Instant::now();
    deep_copy_async(&exec, &pageable, &d).unwrap();
    let pageable_returned = start.elapsed();
    exec.fence("copy").unwrap();
    let pageable_done = start.elapsed();
    println!(
        "512 MiB D->H: pinned returned after {returned:?}, done after {done:?}; pageable returned \
         after {pageable_returned:?}, done after {pageable_done:?}"
    );
    assert!(returned * 4 < done, "pinned: {returned:?} vs {done:?}");
    assert!(
        pageable_returned * 10 >= pageable_done * 9,
        "pageable: {pageable_returned:?}"
    );
    assert_eq!(pinned.get(n - 1).unwrap(), 1.5);
    assert_eq!(pageable.get(n - 1).unwrap(), 1.5);
}

/// A launch with captures of `bytes` bytes (an array of f64) writing `out`.
fn capture_launch<const N: usize>(exec: &Cuda, out: &Dev1<f64>, seed: f64) -> f64 {
    let mut values = [0.0f64; N];
    for (k, x) in values.iter_mut().enumerate() {
        *x = seed + k as f64;
    }
    let last = N - 1;
    parallel_for(
        "captures",
        RangePolicy::new(exec, 0, 1).unwrap(),
        kernel!(|i| out[i] = values[0] + values[last]),
    )
    .unwrap();
    values[0] + values[last]
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn threads_creating_and_dropping_partitioned_instances_see_exact_results() {
    let exec = cuda();
    let rounds: usize = std::env::var("FERROKKOS_SEED_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let start = std::time::Instant::now();
    std::thread::scope(|scope| {
        for t in 0..16 {
            let exec = exec.clone();
            scope.spawn(move || {
                let out = Dev1::<f64>::new("out", [1]).unwrap();
                for round in 0..rounds {
                    let parts = partition_space(&exec, 2).unwrap();
                    let seed = (t * rounds + round) as f64;
                    let mut want = Vec::new();
                    let mut got = Vec::new();
                    for p in &parts {
                        for k in 0..4 {
                            let w = match k {
                                0 => capture_launch::<1>(p, &out, seed),
                                1 => capture_launch::<128>(p, &out, seed),
                                2 => capture_launch::<1024>(p, &out, seed),
                                _ => capture_launch::<4096>(p, &out, seed),
                            };
                            let mut g = 0.0;
                            deep_copy(&mut g, &subview(&out, 0).unwrap()).unwrap();
                            want.push(w);
                            got.push(g);
                        }
                    }
                    drop(parts);
                    assert_eq!(got, want, "thread {t} round {round}");
                }
            });
        }
    });
    println!(
        "16 threads x {rounds} rounds of partition_space(2) with captures of 8 B, 1 KiB, 8 KiB and \
         32 KiB: exact, {:?}",
        start.elapsed()
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn device_views_resize_keeping_the_common_box() {
    let exec = cuda();
    let mut m = View::<i32, 2, LayoutRight, CudaSpace>::new("m", [3, 4]).unwrap();
    parallel_for(
        "fill",
        MDRangePolicy::new(&exec, [0, 0], [3, 4]).unwrap(),
        kernel!(|(i, j)| m[(i, j)] = (10 * i + j) as i32),
    )
    .unwrap();
    ferrokkos::resize(&mut m, [4, 2]).unwrap();
    assert_eq!(m.label(), "m");
    let h = create_mirror_view(&m).unwrap();
    deep_copy(&h, &m).unwrap();
    assert_eq!(h.to_vec().unwrap(), [0, 1, 10, 11, 20, 21, 0, 0]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn md_range_tiles_are_blocks_and_every_point_runs_once() {
    let exec = cuda();
    let (ni, nj, nk) = (7usize, 33usize, 19usize);
    let hits = View::<u32, 3, LayoutRight, CudaSpace>::new("hits", [ni, nj, nk]).unwrap();
    for (tiles, order) in [
        ([2, 8, 16], Iterate::Right),
        ([1, 4, 32], Iterate::Left),
        ([3, 5, 7], Iterate::Right),
    ] {
        deep_copy(&hits, 0u32).unwrap();
        let policy = MDRangePolicy::new(&exec, [1, 2, 3], [ni as i64, nj as i64, nk as i64])
            .unwrap()
            .tile_sizes(tiles)
            .unwrap()
            .iterate(order);
        parallel_for(
            "tiled",
            policy,
            kernel!(|(i, j, k)| hits[(i, j, k)] += 1 + (i * 10000 + j * 100 + k) as u32),
        )
        .unwrap();
        let h = View::<u32, 3>::new("h", [ni, nj, nk]).unwrap();
        deep_copy(&h, &hits).unwrap();
        let h = h.host().unwrap();
        for i in 0..ni {
            for j in 0..nj {
                for k in 0..nk {
                    let inside = i >= 1 && j >= 2 && k >= 3;
                    let want = if inside {
                        1 + (i * 10000 + j * 100 + k) as u32
                    } else {
                        0
                    };
                    assert_eq!(h[(i, j, k)], want, "{tiles:?} {order:?} at {i} {j} {k}");
                }
            }
        }
    }
}
