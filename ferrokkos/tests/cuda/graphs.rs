//! Graphs on Cuda (what the generic bodies in the conformance binary do not reach): the race
//! check between unordered nodes, work a graph cannot hold, independent reductions with scratch
//! of their own, by-pointer captures and team kernels recorded, order with other instances, and
//! the driver objects a graph holds.

use ferrokkos::prelude::*;
use ferrokkos::{Cuda, CudaHostPinnedSpace, CudaSpace, Graph, LayoutRight, View, deep_copy_async};

use crate::{Dev1, cuda};

fn read<T: ferrokkos::traits::Element, const R: usize>(
    v: &View<T, R, LayoutRight, CudaSpace>,
) -> Vec<T> {
    let m = create_mirror_view(v).unwrap();
    deep_copy(&m, v).unwrap();
    m.to_vec().unwrap()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn unordered_nodes_writing_one_view_are_a_graph_race() {
    let exec = cuda();
    let x = Dev1::<f64>::new("field", [100]).unwrap();
    let graph = create_graph(&exec, |root| {
        root.then_parallel_for(
            "first",
            RangePolicy::new(&exec, 0, 100)?,
            kernel!(|i| x[i] = 1.0),
        );
        root.then_parallel_reduce(
            "second",
            RangePolicy::new(&exec, 0, 100)?,
            kernel!(|i, acc: &mut f64| *acc += x[i]),
            View::<f64, 0, LayoutRight, CudaSpace>::new("s", [])?,
        );
        Ok(())
    })
    .unwrap();
    let err = graph.instantiate().unwrap_err();
    assert_eq!(
        err.to_string(),
        "graph on Cuda: nodes \"first\" and \"second\" both use View \"field\" and \"first\" \
         writes it, but no dependency orders them; make one come after the other (`then_*` on \
         it, or `when_all`)"
    );
    // Two readers need no order.
    let readers = create_graph(&exec, |root| {
        for label in ["r1", "r2"] {
            root.then_parallel_reduce(
                label,
                RangePolicy::new(&exec, 0, 100)?,
                kernel!(|i, acc: &mut f64| *acc += x[i]),
                View::<f64, 0, LayoutRight, CudaSpace>::new(label, [])?,
            );
        }
        Ok(())
    })
    .unwrap();
    readers.submit().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn work_that_returns_to_the_host_cannot_be_recorded() {
    let exec = cuda();
    let x = Dev1::<f64>::new("x", [10]).unwrap();
    let graph = Graph::capture(&exec, "host value", move |e: &Cuda| {
        let x = x.clone();
        let s: f64 = parallel_reduce(
            "to host",
            RangePolicy::new(e, 0, 10)?,
            kernel!(|i, acc: &mut f64| *acc += x[i]),
            Sum::new(),
        )?;
        assert_eq!(s, 0.0, "never reached");
        Ok(())
    })
    .unwrap();
    let err = graph.instantiate().unwrap_err();
    assert!(
        err.to_string().starts_with(
            "parallel_reduce \"to host\" on Cuda: in a graph, a reduction writes its result into \
             a rank-0 View the GPU reaches"
        ),
        "{err}"
    );
    // A copy into pageable host memory is refused too.
    let d = Dev1::<f64>::new("d", [10]).unwrap();
    let h = View::<f64, 1>::new("h", [10]).unwrap();
    let copy = create_graph(&exec, |root| {
        root.then_deep_copy(h.clone(), d.clone());
        Ok(())
    })
    .unwrap();
    let err = copy.submit().unwrap_err();
    assert!(
        err.to_string()
            .contains("a graph holds only copies and fills the GPU"),
        "{err}"
    );
    // The instance still works afterwards.
    let p = View::<f64, 1, LayoutRight, CudaHostPinnedSpace>::new("p", [10]).unwrap();
    let ok = create_graph(&exec, |root| {
        root.then_fill(d.clone(), 4.0)
            .then_deep_copy(p.clone(), d.clone());
        Ok(())
    })
    .unwrap();
    ok.submit().unwrap();
    exec.fence("graph").unwrap();
    assert_eq!(p.to_vec().unwrap(), vec![4.0; 10]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn independent_reductions_keep_scratch_of_their_own() {
    let exec = cuda();
    let n = 1 << 20;
    let x = Dev1::<f64>::new("x", [n]).unwrap();
    parallel_for(
        "x",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| x[i] = (i % 7) as f64),
    )
    .unwrap();
    let results: Vec<View<f64, 0, LayoutRight, CudaSpace>> = (0..6)
        .map(|k| View::new(format!("r{k}").as_str(), []).unwrap())
        .collect();
    let graph = create_graph(&exec, |root| {
        for (k, r) in results.iter().enumerate() {
            let scale = (k + 1) as f64;
            root.then_parallel_reduce(
                "sum",
                RangePolicy::new(&exec, 0, n)?,
                kernel!(|i, acc: &mut f64| *acc += scale * x[i]),
                r.clone(),
            );
        }
        Ok(())
    })
    .unwrap();
    let base: f64 = (0..n).map(|i| (i % 7) as f64).sum();
    for _ in 0..5 {
        graph.submit().unwrap();
        for (k, r) in results.iter().enumerate() {
            assert_eq!(read(r), [base * (k + 1) as f64], "result {k}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn large_captures_and_team_scratch_are_kept_by_the_graph() {
    let exec = cuda();
    let out = Dev1::<f64>::new("out", [64]).unwrap();
    let mut big = [0.0f64; 5000]; // 40000 bytes: passed through device memory
    for (k, v) in big.iter_mut().enumerate() {
        *v = k as f64;
    }
    let league = 100usize;
    let teams = View::<u64, 1, LayoutRight, CudaSpace>::new("teams", [league]).unwrap();
    let graph = create_graph(&exec, |root| {
        let first = root.then_parallel_for(
            "big",
            RangePolicy::new(&exec, 0, 64)?,
            kernel!(|i| out[i] = big[i * 70] + big[4999]),
        );
        let policy = TeamPolicy::new(&exec, league, 32)?.set_scratch_size(1, PerTeam(4096))?;
        first.then_parallel_for(
            "teams",
            policy,
            kernel!(|team: &TeamMember| {
                let lr = team.league_rank();
                single(PerTeam(team), || teams[lr] = lr as u64 + 1);
            }),
        );
        Ok(())
    })
    .unwrap();
    for _ in 0..2 {
        graph.submit().unwrap();
    }
    assert_eq!(read(&out)[63], 63.0 * 70.0 + 4999.0);
    let t = read(&teams);
    assert_eq!(t, (1..=league as u64).collect::<Vec<_>>());
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn other_instances_order_after_a_submitted_graph() {
    let exec = cuda();
    let other = Cuda::new_instance().unwrap();
    let n = 1 << 22;
    let x = Dev1::<f64>::new("x", [n]).unwrap();
    let y = Dev1::<f64>::new("y", [n]).unwrap();
    let graph = create_graph(&exec, |root| {
        let mut node = root.then_fill(x.clone(), 0.0);
        for _ in 0..10 {
            node = node.then_parallel_for(
                "inc",
                RangePolicy::new(&exec, 0, n)?,
                kernel!(|i| x[i] += 1.0),
            );
        }
        Ok(())
    })
    .unwrap();
    graph.submit().unwrap();
    // On another instance, without a fence: ordered after the graph by the View's stamp.
    parallel_for(
        "copy",
        RangePolicy::new(&other, 0, n).unwrap(),
        kernel!(|i| y[i] = x[i]),
    )
    .unwrap();
    let got = read(&y);
    assert!(got.iter().all(|v| *v == 10.0), "{:?}", &got[..4]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_dropped_graph_gives_its_driver_objects_back() {
    let exec = cuda();
    let x = Dev1::<f64>::new("x", [10]).unwrap();
    let before = Cuda::live_handles();
    {
        let graph = create_graph(&exec, |root| {
            root.then_fill(x.clone(), 1.0);
            Ok(())
        })
        .unwrap();
        graph.submit().unwrap();
        let during = Cuda::live_handles();
        assert_eq!(during.graphs, before.graphs + 1, "the executable graph");
        assert_eq!(during.streams, before.streams + 1, "the recording stream");
    }
    let after = Cuda::live_handles();
    assert_eq!(
        (after.graphs, after.streams),
        (before.graphs, before.streams)
    );
    assert_eq!(read(&x), vec![1.0; 10]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_graph_submits_on_another_instance() {
    let exec = cuda();
    let other = Cuda::new_instance().unwrap();
    let x = Dev1::<i32>::new("x", [256]).unwrap();
    let graph = create_graph(&exec, |root| {
        root.then_parallel_for(
            "inc",
            RangePolicy::new(&exec, 0, 256)?,
            kernel!(|i| x[i] += 1),
        );
        Ok(())
    })
    .unwrap();
    graph.submit().unwrap();
    graph.submit_on(&other).unwrap();
    graph.submit().unwrap();
    // A graph's launches are ordered after each other wherever they are submitted.
    assert_eq!(read(&x), vec![3; 256]);
    graph.space().fence("graph").unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_recording_instance_kept_past_its_recording_runs_nothing() {
    use std::sync::{Arc, Mutex};
    let exec = cuda();
    let kept: Arc<Mutex<Option<Cuda>>> = Arc::new(Mutex::new(None));
    let x = Dev1::<f64>::new("x", [16]).unwrap();
    let graph = {
        let (kept, x, outer) = (Arc::clone(&kept), x.clone(), exec.clone());
        Graph::capture(&exec, "keep", move |e: &Cuda| {
            *kept.lock().unwrap() = Some(e.clone());
            // Fencing a recording instance is refused (its work runs at submit).
            assert!(e.fence("inside").is_err());
            // Work on another instance would run now, outside the graph: refused.
            let y = x.clone();
            let err = parallel_for(
                "outside",
                RangePolicy::new(&outer, 0, 16)?,
                kernel!(|i| y[i] = 9.0),
            )
            .unwrap_err();
            assert!(
                err.to_string()
                    .contains("this thread is recording a graph node"),
                "{err}"
            );
            let x = x.clone();
            parallel_for("set", RangePolicy::new(e, 0, 16)?, kernel!(|i| x[i] = 2.0))
        })
        .unwrap()
    };
    graph.instantiate().unwrap();
    let recorder = kept.lock().unwrap().take().expect("the closure ran");
    let err = parallel_for(
        "late",
        RangePolicy::new(&recorder, 0, 16).unwrap(),
        kernel!(|i| x[i] = 5.0),
    )
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("this is a graph's recording instance, which takes work only while"),
        "{err}"
    );
    assert!(deep_copy_async(&recorder, &x, 7.0).is_err());
    // Nothing ran: not the late launch, and not the graph before its submit.
    assert_eq!(read(&x), vec![0.0; 16]);
    graph.submit().unwrap();
    assert_eq!(read(&x), vec![2.0; 16]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_panic_while_recording_leaves_the_thread_able_to_launch() {
    let exec = cuda();
    let x = Dev1::<f64>::new("x", [8]).unwrap();
    let graph = Graph::capture(&exec, "panics", |_e: &Cuda| -> ferrokkos::Result<()> {
        panic!("inside a capture")
    })
    .unwrap();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| graph.instantiate()));
    assert!(caught.is_err(), "the closure's panic reaches the caller");
    // The thread is no longer recording: a launch on an ordinary instance runs.
    parallel_for(
        "after",
        RangePolicy::new(&exec, 0, 8).unwrap(),
        kernel!(|i| x[i] = 3.0),
    )
    .unwrap();
    assert_eq!(read(&x), vec![3.0; 8]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_host_reads_each_replays_copy_while_later_replays_are_queued() {
    // A graph that copies its result into pinned host memory marks each replay: the host's
    // read of one replay's copy waits for that replay, and the values are that replay's own,
    // while the replays queued after it keep overwriting the device View.
    let exec = cuda();
    let d = Dev1::<f64>::new("d", [4]).unwrap();
    let hosts: Vec<View<f64, 1, LayoutRight, CudaHostPinnedSpace>> = (0..2)
        .map(|i| View::new(format!("h{i}"), [4]).unwrap())
        .collect();
    let graphs: Vec<Graph<Cuda>> = hosts
        .iter()
        .map(|h| {
            create_graph(&exec, |root| {
                root.then_parallel_for(
                    "count",
                    RangePolicy::new(&exec, 0, 4)?,
                    kernel!(|i| d[i] += 1.0),
                )
                .then_deep_copy(h.clone(), d.clone());
                Ok(())
            })
            .unwrap()
        })
        .collect();
    for g in &graphs {
        g.instantiate().unwrap();
    }
    for round in 0..20usize {
        graphs[round % 2].submit().unwrap();
        if round > 0 {
            // Replay `round - 1` added 1 `round` times in all.
            let seen = hosts[(round - 1) % 2].host().unwrap()[3];
            assert_eq!(seen, round as f64, "round {round}");
        }
    }
    assert_eq!(read(&d), vec![20.0; 4]);
}

/// A fence of the whole device (and a graph dropped) on one thread while another records graphs:
/// such a wait takes in every stream, a capturing one too, so it waits for the capture instead of
/// invalidating it (`CUDA_ERROR_STREAM_CAPTURE_INVALIDATED` at the recording's next launch).
#[test]
#[ignore = "needs a CUDA GPU"]
fn waits_for_the_whole_device_leave_recordings_on_other_threads_valid() {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let exec = cuda();
    let stop = AtomicBool::new(false);
    let fences = AtomicUsize::new(0);
    let y = Dev1::<f64>::new("y", [256]).unwrap();
    let total = View::<f64, 0, LayoutRight, CudaSpace>::new("total", []).unwrap();
    std::thread::scope(|s| {
        s.spawn(|| {
            while !stop.load(Ordering::Acquire) {
                ferrokkos::fence("the whole device").unwrap();
                fences.fetch_add(1, Ordering::Relaxed);
            }
        });
        for _ in 0..200 {
            let graph = create_graph(&exec, |root| {
                root.then_parallel_for(
                    "y",
                    RangePolicy::new(&exec, 0, 256)?,
                    kernel!(|i| y[i] = i as f64),
                )
                .then_parallel_reduce(
                    "total",
                    RangePolicy::new(&exec, 0, 256)?,
                    kernel!(|i, acc: &mut f64| *acc += y[i]),
                    total.clone(),
                );
                Ok(())
            })
            .unwrap();
            graph.instantiate().unwrap();
            graph.submit().unwrap();
        }
        stop.store(true, Ordering::Release);
    });
    assert!(fences.load(Ordering::Relaxed) > 0);
    assert_eq!(read(&total), vec![(0..256).sum::<usize>() as f64]);
}
