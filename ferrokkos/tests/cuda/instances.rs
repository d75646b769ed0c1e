//! Instances on the GPU: work on shared Views ordered across instances, and threads creating and
//! dropping partitioned instances concurrently (the seed test: 16 threads x 1000 rounds, captures
//! of 8 B .. 32 KiB).

use ferrokkos::Cuda;
use ferrokkos::prelude::*;

use crate::{Dev1, cuda};

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
