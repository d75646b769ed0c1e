//! Threads that a host kernel starts (`std::thread::scope` in a kernel body, which joins them before
//! the body returns) are treated as part of that kernel, after a grace of 100 ms (once per thread
//! and kernel): a fence of the running instance returns, a launch on it (or on an instance that
//! needs its workers) runs inline, `ferrokkos::fence` does not wait for it, and dropping the
//! `Runtime` finalizes once the kernel's launch has returned. Before, each of these waited for the
//! kernel, which waited for the thread: a deadlock.
//!
//! Each scenario runs in a child process (`initialize` is once per process; finalize ends it) with a
//! time limit, so that a deadlock fails the test instead of hanging the suite. Kernels run over two
//! iterations, each starting a thread, so that on Threads a pool worker starts one too.

mod common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::child::{is_child, run_child_within};
use ferrokkos::prelude::*;
use ferrokkos::traits::HostExecutionSpace;
use ferrokkos::{Runtime, kernel, partition_space};

/// How long a scenario may take before it counts as a deadlock.
const LIMIT: Duration = Duration::from_secs(20);

/// Runs `action(iteration)` on a thread that the kernel body starts (and joins), in a kernel of two
/// iterations on `exec`; returns once the kernel has.
fn from_a_kernel_thread<S: HostExecutionSpace>(exec: &S, action: &(dyn Fn(usize) + Sync)) {
    let joined = AtomicUsize::new(0);
    parallel_for(
        "starts a thread",
        RangePolicy::new(exec, 0, 2).unwrap(),
        |i: usize| {
            std::thread::scope(|s| {
                s.spawn(|| action(i));
            });
            joined.fetch_add(1, Ordering::Relaxed);
        },
    )
    .unwrap();
    assert_eq!(
        joined.into_inner(),
        2,
        "both iterations joined their thread"
    );
}

fn runtime() -> Runtime {
    ferrokkos::initialize(InitSettings::new().num_threads(2)).unwrap()
}

/// A fence of the instance whose kernel started the thread.
fn fence_of_the_running_instance<S: HostExecutionSpace>() {
    let _rt = runtime();
    let exec = S::default_instance().unwrap();
    let fenced = AtomicUsize::new(0);
    from_a_kernel_thread(&exec, &|_| {
        exec.fence("from a kernel's thread").unwrap();
        fenced.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(fenced.into_inner(), 2);
    // Outside the kernel the fence works as before.
    exec.fence("after").unwrap();
    println!("scenario done");
}

/// Launches (a parallel_for and a parallel_reduce) on the instance whose kernel started the thread.
fn launch_on_the_running_instance<S: HostExecutionSpace>() {
    let _rt = runtime();
    let exec = S::default_instance().unwrap();
    let ys = [
        View::<u64, 1>::new("y0", [8]).unwrap(),
        View::<u64, 1>::new("y1", [8]).unwrap(),
    ];
    let sums = Mutex::new(Vec::new());
    from_a_kernel_thread(&exec, &|i| {
        let y = ys[i].clone();
        let c = 10 * (i as u64 + 1);
        parallel_for(
            "nested for",
            RangePolicy::new(&exec, 0, 8).unwrap(),
            kernel!(|j| y[j] = c + j as u64),
        )
        .unwrap();
        let sum: u64 = parallel_reduce(
            "nested reduce",
            RangePolicy::new(&exec, 0, 8).unwrap(),
            kernel!(|j, acc| *acc += y[j]),
            Sum::new(),
        )
        .unwrap();
        sums.lock().unwrap().push((i, sum));
    });
    for (i, y) in ys.iter().enumerate() {
        let c = 10 * (i as u64 + 1);
        assert_eq!(
            y.to_vec().unwrap(),
            (0..8).map(|j| c + j).collect::<Vec<_>>()
        );
    }
    let mut sums = sums.into_inner().unwrap();
    sums.sort_unstable();
    assert_eq!(sums, [(0, 8 * 10 + 28), (1, 8 * 20 + 28)]);
    println!("scenario done");
}

/// The global fence.
fn global_fence<S: HostExecutionSpace>() {
    let _rt = runtime();
    let exec = S::default_instance().unwrap();
    let fenced = AtomicUsize::new(0);
    from_a_kernel_thread(&exec, &|_| {
        ferrokkos::fence("global, from a kernel's thread").unwrap();
        fenced.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(fenced.into_inner(), 2);
    println!("scenario done");
}

/// Dropping the Runtime: finalize happens once the kernel's launch has returned.
fn drop_the_runtime<S: HostExecutionSpace>() {
    let rt = Mutex::new(Some(runtime()));
    let exec = S::default_instance().unwrap();
    let y = View::<u32, 1>::new("y", [2]).unwrap();
    {
        // SAFETY: iteration i writes y[i] only.
        let out = unsafe { y.parallel_mut().unwrap() };
        let joined = AtomicUsize::new(0);
        parallel_for(
            "drops the runtime",
            RangePolicy::new(&exec, 0, 2).unwrap(),
            |i: usize| {
                std::thread::scope(|s| {
                    s.spawn(|| drop(rt.lock().unwrap().take()));
                });
                assert!(!ferrokkos::is_finalized(), "not during the kernel");
                out.set(i, 1);
                joined.fetch_add(1, Ordering::Relaxed);
            },
        )
        .unwrap();
        assert_eq!(joined.into_inner(), 2);
    }
    assert!(rt.lock().unwrap().is_none(), "dropped");
    assert!(ferrokkos::is_finalized(), "finalized after the launch");
    assert_eq!(y.to_vec().unwrap(), [1, 1]);
    assert!(matches!(
        View::<f64, 1>::new("after", [1]),
        Err(ferrokkos::Error::Finalized { .. })
    ));
    println!("scenario done");
}

/// On Threads: a launch and a fence on the default instance, from a thread that a kernel on a
/// partition over the same workers started (the launch would wait for the workers, not the lock).
fn launch_on_an_overlapping_instance() {
    let _rt = runtime();
    let all = Threads::default_instance().unwrap();
    let part = partition_space(&all, 1).unwrap().remove(0);
    assert_eq!(part.concurrency(), all.concurrency());
    let sums = Mutex::new(Vec::new());
    from_a_kernel_thread(&part, &|_| {
        all.fence("the whole pool, from a kernel's thread").unwrap();
        let sum: u64 = parallel_reduce(
            "on the whole pool",
            RangePolicy::new(&all, 0, 100u64).unwrap(),
            |j: u64, acc: &mut u64| *acc += j,
            Sum::new(),
        )
        .unwrap();
        sums.lock().unwrap().push(sum);
    });
    assert_eq!(sums.into_inner().unwrap(), [4950, 4950]);
    println!("scenario done");
}

/// In the parent: runs test `name` as a child within [`LIMIT`] and checks it finished its scenario.
/// In the child: runs `scenario`.
fn scenario(name: &str, scenario: fn()) {
    if is_child() {
        scenario();
        return;
    }
    let out = run_child_within(name, &[], LIMIT);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("scenario done"), "{stdout}");
}

#[test]
fn a_fence_of_a_serial_instance_from_a_thread_its_kernel_started_returns() {
    scenario(
        "a_fence_of_a_serial_instance_from_a_thread_its_kernel_started_returns",
        fence_of_the_running_instance::<Serial>,
    );
}

#[test]
fn a_fence_of_a_threads_instance_from_a_thread_its_kernel_started_returns() {
    scenario(
        "a_fence_of_a_threads_instance_from_a_thread_its_kernel_started_returns",
        fence_of_the_running_instance::<Threads>,
    );
}

#[test]
fn a_launch_on_a_serial_instance_from_a_thread_its_kernel_started_runs_inline() {
    scenario(
        "a_launch_on_a_serial_instance_from_a_thread_its_kernel_started_runs_inline",
        launch_on_the_running_instance::<Serial>,
    );
}

#[test]
fn a_launch_on_a_threads_instance_from_a_thread_its_kernel_started_runs_inline() {
    scenario(
        "a_launch_on_a_threads_instance_from_a_thread_its_kernel_started_runs_inline",
        launch_on_the_running_instance::<Threads>,
    );
}

#[test]
fn the_global_fence_from_a_thread_a_serial_kernel_started_returns() {
    scenario(
        "the_global_fence_from_a_thread_a_serial_kernel_started_returns",
        global_fence::<Serial>,
    );
}

#[test]
fn the_global_fence_from_a_thread_a_threads_kernel_started_returns() {
    scenario(
        "the_global_fence_from_a_thread_a_threads_kernel_started_returns",
        global_fence::<Threads>,
    );
}

#[test]
fn dropping_the_runtime_on_a_thread_a_serial_kernel_started_finalizes_after_the_kernel() {
    scenario(
        "dropping_the_runtime_on_a_thread_a_serial_kernel_started_finalizes_after_the_kernel",
        drop_the_runtime::<Serial>,
    );
}

#[test]
fn dropping_the_runtime_on_a_thread_a_threads_kernel_started_finalizes_after_the_kernel() {
    scenario(
        "dropping_the_runtime_on_a_thread_a_threads_kernel_started_finalizes_after_the_kernel",
        drop_the_runtime::<Threads>,
    );
}

#[test]
fn a_launch_needing_the_workers_of_the_kernel_that_started_the_thread_runs_inline() {
    scenario(
        "a_launch_needing_the_workers_of_the_kernel_that_started_the_thread_runs_inline",
        launch_on_an_overlapping_instance,
    );
}
