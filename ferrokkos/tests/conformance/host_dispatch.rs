//! Host-only dispatch: patterns nested inside a Threads or Serial kernel run inline, closures that
//! own their guards release them when the launch ends, concurrent launches on overlapping
//! instances, `parallel_mut` accessors and host guards, and kernels that panic (out-of-bounds
//! writes and reads through an accessor name the View; the pool stays usable).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};

use ferrokkos::BorrowKind;
use ferrokkos::prelude::*;
use ferrokkos::traits::HostExecutionSpace;

use crate::common;
use crate::range::{red, visit_each_once};

#[test]
fn nested_parallel_patterns_inside_a_threads_kernel_run_inline() {
    common::runtime();
    let exec = Threads::default_instance().unwrap();
    let (rows, cols) = (37, 53);
    let sums = View::<u64, 1>::new("row_sums", [rows]).unwrap();
    let inner_calls = AtomicU64::new(0);
    {
        // SAFETY: outer iteration r writes sums[r] only.
        let out = unsafe { sums.parallel_mut().unwrap() };
        parallel_for(
            "outer",
            RangePolicy::new(&exec, 0, rows).unwrap(),
            |r: usize| {
                let inner = RangePolicy::new(&exec, 0, cols).unwrap();
                parallel_for("inner_for", inner.clone(), |_: usize| {
                    inner_calls.fetch_add(1, Ordering::Relaxed);
                })
                .unwrap();
                let inner = inner.schedule(Schedule::Dynamic).chunk_size(4).unwrap();
                let s = red(inner, Sum::new(), |c: usize, a: &mut u64| {
                    *a += (r * 1000 + c) as u64
                });
                out.set(r, s);
            },
        )
        .unwrap();
    }
    let expected: Vec<u64> = (0..rows)
        .map(|r| (0..cols).map(|c| (r * 1000 + c) as u64).sum())
        .collect();
    assert_eq!(sums.to_vec().unwrap(), expected);
    assert_eq!(inner_calls.load(Ordering::Relaxed), (rows * cols) as u64);
}

#[test]
fn threads_dispatch_inside_a_serial_kernel_runs_inline() {
    common::runtime();
    let (serial, threads) = (
        Serial::default_instance().unwrap(),
        Threads::default_instance().unwrap(),
    );
    let outer = RangePolicy::new(&serial, 0, 10).unwrap();
    let inner = RangePolicy::new(&threads, 0, 100).unwrap();
    let total = red(outer, Sum::new(), |r: usize, a: &mut u64| {
        let k = |c: usize, b: &mut u64| *b += (r * c) as u64;
        *a += red(inner.clone(), Sum::new(), k);
    });
    assert_eq!(total, 45 * 4950);
}

#[test]
fn move_kernels_release_their_guards_when_the_launch_ends() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        let x = View::<f64, 1>::new("move_x", [500]).unwrap();
        let y = View::<f64, 1>::new("move_y", [500]).unwrap();
        deep_copy(&x, 2.0).unwrap();
        // SAFETY: iteration i writes y[i] only.
        let (xr, yw) = (x.host().unwrap(), unsafe { y.parallel_mut().unwrap() });
        let p = RangePolicy::new(exec, 0, 500).unwrap();
        parallel_for("triad", p.clone(), move |i: usize| {
            yw.set(i, 3.0 * xr[i] + i as f64)
        })
        .unwrap();
        // The kernel owned both guards: both Views can be borrowed exclusively again.
        drop((x.host_mut().unwrap(), y.host_mut().unwrap()));
        let expected: Vec<f64> = (0..500).map(|i| 6.0 + i as f64).collect();
        assert_eq!(y.to_vec().unwrap(), expected);
        let yr = y.host().unwrap();
        let s = red(p, Sum::new(), move |i: usize, a: &mut f64| *a += yr[i]);
        assert_eq!(s, expected.iter().sum::<f64>());
        assert!(y.host_mut().is_ok());
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

#[test]
fn concurrent_launches_on_overlapping_instances_from_several_threads_are_correct() {
    common::runtime();
    let exec = Threads::default_instance().unwrap();
    // One partition with every thread: a second instance over the same workers.
    let whole = ferrokkos::partition_space_with_weights(&exec, &[1.0]).unwrap();
    assert_eq!(whole[0].concurrency(), exec.concurrency());
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let exec = [&exec, &whole[0]][t as usize % 2].clone();
            s.spawn(move || {
                for round in 0..50u64 {
                    let n = 1000 + t * 100 + round;
                    let schedule = [Schedule::Static, Schedule::Dynamic][round as usize % 2];
                    let p = RangePolicy::new(&exec, 0, n).unwrap().schedule(schedule);
                    let sum = red(p, Sum::new(), |i: u64, a: &mut u64| *a += i);
                    assert_eq!(sum, n * (n - 1) / 2, "thread {t} round {round}");
                }
            });
        }
    });
}

#[test]
fn parallel_mut_while_a_host_guard_is_alive_is_a_borrow_error() {
    common::runtime();
    let v = View::<f64, 1>::new("guarded", [8]).unwrap();
    {
        let _reader = v.host().unwrap();
        // SAFETY: the accessor is never used.
        let r = unsafe { v.parallel_mut() };
        common::conflict(r, "guarded", BorrowKind::Exclusive, BorrowKind::Shared);
    }
    {
        let _writer = v.host_mut().unwrap();
        // SAFETY: the accessor is never used.
        let r = unsafe { v.parallel_mut() };
        common::conflict(r, "guarded", BorrowKind::Exclusive, BorrowKind::Exclusive);
    }
    // SAFETY: the accessor is never used.
    let pm = unsafe { v.parallel_mut() }.unwrap();
    common::conflict(
        v.host(),
        "guarded",
        BorrowKind::Shared,
        BorrowKind::Exclusive,
    );
    drop(pm);
    assert!(v.host().is_ok());
}

/// A kernel writing one past the end of View "oob" on `exec` panics with the label in the message.
fn out_of_bounds_panics<S: HostExecutionSpace>(exec: &S) {
    let v = View::<u32, 1>::new("oob", [10]).unwrap();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: iteration i writes element i only.
        let out = unsafe { v.parallel_mut().unwrap() };
        parallel_for("oob", RangePolicy::new(exec, 0, 11).unwrap(), |i: usize| {
            out.set(i, 1)
        })
    }));
    let payload = outcome.expect_err("an out-of-bounds write must panic");
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert_eq!(
        msg,
        "index [10] is out of bounds for View \"oob\" with extents [10]",
        "on {}",
        S::NAME
    );
    // The accessor's borrow was released while unwinding, and the in-bounds writes happened.
    assert_eq!(v.to_vec().unwrap(), vec![1; 10]);
}

#[test]
fn out_of_bounds_write_through_parallel_mut_panics_with_the_label() {
    common::runtime();
    out_of_bounds_panics(&Serial::default_instance().unwrap());
    out_of_bounds_panics(&Threads::default_instance().unwrap());
    // The pool still works after a kernel panicked.
    visit_each_once(&Threads::default_instance().unwrap(), 0, 100);
}

/// A reduction on Threads steals parts of other threads' blocks, and a block's owner waits for
/// its parts' results: a kernel that panics in any part re-raises the panic instead of leaving the
/// owner waiting, and the pool still works afterwards.
#[test]
fn a_reduction_whose_kernel_panics_on_threads_re_raises_without_hanging() {
    common::runtime();
    let exec = Threads::default_instance().unwrap();
    for bad in [0, 17, 499, 500, 999] {
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            parallel_reduce(
                "boom",
                RangePolicy::new(&exec, 0, 1000).unwrap(),
                |i: usize, acc: &mut u64| {
                    if i == bad {
                        panic!("boom at {i}");
                    }
                    *acc += i as u64;
                },
                Sum::new(),
            )
        }));
        let payload = outcome.expect_err("the kernel's panic is re-raised");
        assert_eq!(
            payload.downcast_ref::<String>().map(String::as_str),
            Some(format!("boom at {bad}").as_str())
        );
    }
    let p = RangePolicy::new(&exec, 0, 1000).unwrap();
    let sum = parallel_reduce(
        "sum",
        p,
        |i: usize, acc: &mut u64| *acc += i as u64,
        Sum::new(),
    );
    assert_eq!(sum.unwrap(), 499_500);
}

#[test]
#[should_panic(expected = "out of bounds for View \"oob2\"")]
fn out_of_bounds_read_through_parallel_mut_panics() {
    common::runtime();
    let v = View::<u32, 2>::new("oob2", [3, 4]).unwrap();
    // SAFETY: reads only.
    let a = unsafe { v.parallel_mut().unwrap() };
    let p = RangePolicy::new(&Threads::default_instance().unwrap(), 0, 4).unwrap();
    parallel_for("oob2", p, |i: usize| {
        let _ = a.get((i, i));
    })
    .unwrap();
}
