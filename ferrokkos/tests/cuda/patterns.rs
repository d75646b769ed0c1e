//! Launches on the GPU: the device and its instances, every pattern (for, reduce of every kind,
//! f64 sums against Serial, scans, MDRange in both orders, tiles as blocks), captures beyond the
//! kernel parameter limit.

use ferrokkos::prelude::*;
use ferrokkos::{Cuda, CudaSpace};

use crate::{Dev1, cuda};

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
    // Instances: each new one has a larger number, encoded in its device id with the device.
    let parts = ferrokkos::partition_space_with_weights(&exec, &[1.0, 3.0]).unwrap();
    assert_eq!(parts.len(), 2);
    // (Other tests may make instances in between: the numbers only grow.)
    assert!(parts[1].instance_id() > parts[0].instance_id());
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

/// The number of values the reductions run over.
const N: usize = 1_000_000;

/// The values the reductions run over, `((i * 7919) % 10007) - 5000` for `i` below [`N`] (both
/// signs, repeated values), on the device and read back to the host.
fn values(exec: &Cuda) -> (Dev1<i64>, Vec<i64>) {
    let v = Dev1::<i64>::new("v", [N]).unwrap();
    parallel_for(
        "init",
        RangePolicy::new(exec, 0, N).unwrap(),
        kernel!(|i| v[i] = ((i * 7919) % 10007) as i64 - 5000),
    )
    .unwrap();
    let host = create_mirror_view(&v).unwrap();
    deep_copy(&host, &v).unwrap();
    let h = host.to_vec().unwrap();
    (v, h)
}

/// One GPU test per reduction: `$body` reduces the device values `$v` over `$policy` (all of
/// them) on `$exec` and compares with the host's copy `$h` of the same values.
macro_rules! reduction_tests {
    ($($name:ident($exec:ident, $policy:ident, $v:ident, $h:ident) $body:block)*) => {
        $(
            #[test]
            #[ignore = "needs a CUDA GPU"]
            fn $name() {
                let $exec = cuda();
                let ($v, $h) = values(&$exec);
                let $policy = RangePolicy::new(&$exec, 0, N).unwrap();
                $body
            }
        )*
    };
}

reduction_tests! {
    a_sum_matches_the_host(exec, policy, v, h) {
        let sum: i64 =
            parallel_reduce("sum", policy, kernel!(|i, acc: &mut i64| *acc += v[i]), Sum::new())
                .unwrap();
        assert_eq!(sum, h.iter().sum::<i64>());
    }

    a_max_matches_the_host(exec, policy, v, h) {
        let max: i64 =
            parallel_reduce("max", policy, kernel!(|i, m: &mut i64| *m = (*m).max(v[i])), Max::new())
                .unwrap();
        assert_eq!(max, *h.iter().max().unwrap());
    }

    a_min_loc_finds_a_place_of_the_minimum(exec, policy, v, h) {
        let loc = parallel_reduce(
            "minloc",
            policy,
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
    }

    a_tuple_of_reducers_matches_the_host(exec, policy, v, h) {
        let (s, c) = parallel_reduce(
            "tuple",
            policy,
            kernel!(|i, s: &mut i64, c: &mut u32| {
                *s += v[i];
                if v[i] > 0 {
                    *c += 1;
                }
            }),
            (Sum::<i64>::new(), Sum::<u32>::new()),
        )
        .unwrap();
        assert_eq!(s, h.iter().sum::<i64>());
        assert_eq!(c as usize, h.iter().filter(|x| **x > 0).count());
    }

    a_sum_into_a_host_scalar_matches_the_host(exec, policy, v, h) {
        let mut total = 0i64;
        parallel_reduce("into", policy, kernel!(|i, acc: &mut i64| *acc += v[i]), &mut total)
            .unwrap();
        assert_eq!(total, h.iter().sum::<i64>());
    }

    a_sum_into_a_device_view_is_read_back_by_deep_copy(exec, policy, v, h) {
        // Asynchronous: the result stays on the device until deep_copy.
        let dev_total = View::<i64, 0, LayoutRight, CudaSpace>::new("total", []).unwrap();
        parallel_reduce(
            "into view",
            policy,
            kernel!(|i, acc: &mut i64| *acc += v[i]),
            &dev_total,
        )
        .unwrap();
        let mut back = 0i64;
        deep_copy(&mut back, &dev_total).unwrap();
        assert_eq!(back, h.iter().sum::<i64>());
    }

    a_sum_over_an_empty_range_is_zero(exec, policy, v, h) {
        let _ = (policy, h);
        let empty: i64 = parallel_reduce(
            "empty",
            RangePolicy::new(&exec, 5, 5).unwrap(),
            kernel!(|i, acc: &mut i64| *acc += v[i]),
            Sum::new(),
        )
        .unwrap();
        assert_eq!(empty, 0);
    }
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

/// A scan of `n` values `i % 13` on the GPU gives their exclusive prefix sums and their total.
fn scan_gives_the_prefix_sums_and_the_total(n: usize) {
    let exec = cuda();
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

/// One GPU test of [`scan_gives_the_prefix_sums_and_the_total`] per length.
macro_rules! scan_tests {
    ($($name:ident: $n:expr;)*) => {
        $(
            #[test]
            #[ignore = "needs a CUDA GPU"]
            fn $name() {
                scan_gives_the_prefix_sums_and_the_total($n);
            }
        )*
    };
}

scan_tests! {
    a_scan_of_one_value_is_zero_and_its_total_the_value: 1;
    a_scan_within_one_warp_gives_the_prefix_sums: 7;
    a_scan_within_one_block_gives_the_prefix_sums: 1000;
    a_scan_of_whole_blocks_gives_the_prefix_sums: 1 << 20;
    a_scan_ending_in_a_partial_block_gives_the_prefix_sums: 3_000_017;
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
