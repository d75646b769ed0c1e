//! Run-time soundness: what safe code cannot turn into a hang or into invalid values.
//!
//! - `View::with_slice` never hangs: a guard the lending thread still holds when the lend ends (a
//!   guard of a clone kept or forgotten), or one taken on a thread that has exited without dropping
//!   it, aborts the process with a message naming the View, since returning would let it alias the
//!   caller's memory; a guard held briefly by another thread, or moved from an exited thread to a
//!   live one that drops it, is waited for.
//! - Dropping (or finalizing) the `Runtime` inside a kernel does not deadlock: finalize happens once
//!   the outermost launch has returned.
//! - A View of `bool` or `char` allocated without initializing holds valid values (zeros).
//!
//! Scenarios that abort or finalize run in a child process (this test binary, re-run with
//! `FERROKKOS_SCENARIO` naming the scenario), with a time limit, so that a hang fails the test.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ferrokkos::prelude::*;
use ferrokkos::{Error, kernel, view_alloc};

/// The variable that selects the scenario a child runs.
const SCENARIO: &str = "FERROKKOS_SCENARIO";

/// Whether this process runs under valgrind (which preloads its own libraries into the program).
fn under_valgrind() -> bool {
    std::env::var("LD_PRELOAD").is_ok_and(|p| p.contains("vgpreload"))
}

/// Runs `scenario` in a child process; its exit status and its output (stdout and stderr). Fails if
/// the child runs longer than 120 s (a hang; valgrind makes a child slow).
fn child(scenario: &str) -> (std::process::ExitStatus, String) {
    child_within(scenario, Duration::from_secs(120))
}

/// [`child`] with a time limit of `limit` (ten times that under valgrind), after which the child is
/// killed and the test fails.
fn child_within(scenario: &str, limit: Duration) -> (std::process::ExitStatus, String) {
    let limit = if under_valgrind() { limit * 10 } else { limit };
    use std::io::Read;
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "scenario_entry",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(SCENARIO, scenario)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read both streams as they come, so that a child writing much (under valgrind) never blocks.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = r.read_to_string(&mut text);
            text
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            let _ = child.wait();
            let text = format!("{}{}", out.join().unwrap(), err.join().unwrap());
            panic!("scenario {scenario} hung (killed after {limit:?}):\n{text}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let text = format!("{}{}", out.join().unwrap(), err.join().unwrap());
    (status, text)
}

/// Whether `status` is an abort (SIGABRT on Unix).
fn aborted(status: std::process::ExitStatus) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal() == Some(6)
    }
    #[cfg(not(unix))]
    {
        !status.success()
    }
}

/// The child's entry: runs the scenario named by `FERROKKOS_SCENARIO` (nothing without it).
#[test]
fn scenario_entry() {
    let Ok(scenario) = std::env::var(SCENARIO) else {
        return;
    };
    match scenario.as_str() {
        "slice-forgotten-guard" => slice_forgotten_guard(),
        "slice-kept-guard" => slice_kept_guard(),
        "slice-guard-of-exited-thread" => slice_guard_of_exited_thread(),
        "slice-guard-moved-from-exited-thread" => slice_guard_moved_from_exited_thread(),
        "finalize-in-threads-kernel" => finalize_in_kernel(true),
        "finalize-in-serial-kernel" => finalize_in_kernel(false),
        other => panic!("unknown scenario {other}"),
    }
}

/// The closure keeps a clone of the lent View and forgets a guard of it.
fn slice_forgotten_guard() {
    let _rt = ferrokkos::initialize(InitSettings::new()).unwrap();
    let mut data = vec![1.0f64; 8];
    let mut kept = None;
    View::<f64, 1>::with_slice("lent", &mut data, [8], |v| {
        let clone = v.clone();
        std::mem::forget(clone.host().unwrap());
        kept = Some(clone);
    })
    .unwrap();
    println!("with_slice returned while a guard was forgotten");
}

/// The closure returns a guard of a leaked clone (a live guard that outlives the lend).
fn slice_kept_guard() {
    let _rt = ferrokkos::initialize(InitSettings::new()).unwrap();
    let mut data = vec![2.0f64; 8];
    let guard = View::<f64, 1>::with_slice("lent", &mut data, [8], |v| {
        let leaked: &'static View<f64, 1> = Box::leak(Box::new(v.clone()));
        leaked.host().unwrap()
    })
    .unwrap();
    println!("with_slice returned with a live guard: {}", guard[0]);
}

/// A thread the closure starts takes a guard of a clone, forgets it and exits.
fn slice_guard_of_exited_thread() {
    let _rt = ferrokkos::initialize(InitSettings::new()).unwrap();
    let mut data = vec![1.0f64; 8];
    View::<f64, 1>::with_slice("lent by an exited thread", &mut data, [8], |v| {
        let clone = v.clone();
        std::thread::spawn(move || {
            std::mem::forget(clone.host_mut().unwrap());
        })
        .join()
        .unwrap();
        eprintln!("the thread that forgot its guard has exited");
    })
    .unwrap();
    println!("with_slice returned while a guard of an exited thread was forgotten");
}

/// A thread the closure starts takes a guard, hands it to a live thread that drops it 200 ms later,
/// and exits before that. (The clone the guard borrows lives outside the lend, so that nothing
/// leaks under valgrind.)
fn slice_guard_moved_from_exited_thread() {
    let _rt = ferrokkos::initialize(InitSettings::new()).unwrap();
    let mut data = vec![4u32; 8];
    let holder = std::sync::OnceLock::new();
    std::thread::scope(|s| {
        let (send, receive) = std::sync::mpsc::channel();
        let keeper = s.spawn(move || {
            let mut guard: ferrokkos::HostMut<'_, u32, 1, LayoutRight, HostSpace> =
                receive.recv().unwrap();
            std::thread::sleep(Duration::from_millis(200));
            guard[3] = 9;
        });
        View::<u32, 1>::with_slice("moved guard", &mut data, [8], |v| {
            let clone: &View<u32, 1> = holder.get_or_init(|| v.clone());
            std::thread::scope(|t| {
                t.spawn(|| send.send(clone.host_mut().unwrap()).unwrap());
            });
        })
        .unwrap();
        keeper.join().unwrap();
    });
    assert_eq!(data, [4, 4, 4, 9, 4, 4, 4, 4]);
    println!("with_slice returned once the moved guard was dropped");
}

/// Drops the runtime from inside a kernel (on Threads, possibly on a pool worker).
fn finalize_in_kernel(threads: bool) {
    let rt = std::sync::Mutex::new(Some(
        ferrokkos::initialize(InitSettings::new().num_threads(2)).unwrap(),
    ));
    let y = View::<u32, 1>::new("y", [4]).unwrap();
    let result = {
        // SAFETY: iteration i writes y[i] only.
        let out = unsafe { y.parallel_mut().unwrap() };
        let body = |i: usize| {
            out.set(i, 1);
            drop(rt.lock().unwrap().take());
        };
        if threads {
            parallel_for(
                "drop",
                RangePolicy::new(&Threads::default_instance().unwrap(), 0, 4).unwrap(),
                body,
            )
        } else {
            parallel_for(
                "drop",
                RangePolicy::new(&Serial::default_instance().unwrap(), 0, 4).unwrap(),
                body,
            )
        }
    };
    result.unwrap();
    assert!(ferrokkos::is_finalized(), "finalized after the launch");
    assert_eq!(y.to_vec().unwrap(), vec![1; 4]);
    let e = View::<f64, 1>::new("after", [1]).unwrap_err();
    assert!(matches!(e, Error::Finalized { .. }), "{e}");
    println!("finalized after the launch returned");
}

#[test]
fn with_slice_aborts_rather_than_hangs_on_a_forgotten_guard() {
    let (status, text) = child("slice-forgotten-guard");
    assert!(aborted(status), "{status}: {text}");
    assert!(
        text.contains("View \"lent\" lent by View::with_slice still has a guard of this thread"),
        "{text}"
    );
    assert!(!text.contains("with_slice returned"), "{text}");
}

#[test]
fn with_slice_aborts_rather_than_return_a_live_guard() {
    let (status, text) = child("slice-kept-guard");
    assert!(aborted(status), "{status}: {text}");
    assert!(!text.contains("with_slice returned"), "{text}");
}

#[test]
fn with_slice_aborts_soon_on_a_guard_forgotten_by_a_thread_that_exited() {
    let start = Instant::now();
    let (status, text) = child_within("slice-guard-of-exited-thread", Duration::from_secs(20));
    assert!(aborted(status), "{status}: {text}");
    assert!(
        text.contains("the thread that forgot its guard has exited"),
        "{text}"
    );
    assert!(
        text.contains(
            "View \"lent by an exited thread\" lent by View::with_slice still has a guard taken \
             on a thread that has exited and was never dropped"
        ),
        "{text}"
    );
    assert!(!text.contains("with_slice returned"), "{text}");
    // About a second of grace, not the 10 s of a waiting message.
    assert!(!text.contains("has waited"), "{text}");
    if !under_valgrind() {
        assert!(
            start.elapsed() < Duration::from_secs(8),
            "{:?}",
            start.elapsed()
        );
    }
}

#[test]
fn with_slice_waits_for_a_guard_moved_from_an_exited_thread_to_a_live_one() {
    let (status, text) = child_within(
        "slice-guard-moved-from-exited-thread",
        Duration::from_secs(20),
    );
    assert!(status.success(), "{status}: {text}");
    assert!(
        text.contains("with_slice returned once the moved guard was dropped"),
        "{text}"
    );
}

#[test]
fn dropping_the_runtime_inside_a_threads_kernel_finalizes_after_the_launch() {
    let (status, text) = child("finalize-in-threads-kernel");
    assert!(status.success(), "{status}: {text}");
    assert!(
        text.contains("finalized after the launch returned"),
        "{text}"
    );
}

#[test]
fn dropping_the_runtime_inside_a_serial_kernel_finalizes_after_the_launch() {
    let (status, text) = child("finalize-in-serial-kernel");
    assert!(status.success(), "{status}: {text}");
    assert!(
        text.contains("finalized after the launch returned"),
        "{text}"
    );
}

/// The in-process scenarios share one runtime (initialize is once per process).
fn runtime() {
    static RT: std::sync::OnceLock<ferrokkos::Runtime> = std::sync::OnceLock::new();
    RT.get_or_init(|| ferrokkos::initialize(InitSettings::new().num_threads(2)).unwrap());
}

#[test]
fn with_slice_waits_for_a_guard_another_thread_drops() {
    if std::env::var(SCENARIO).is_ok() {
        return;
    }
    runtime();
    let mut data = vec![3u32; 16];
    let (taken_tx, taken_rx) = std::sync::mpsc::channel();
    let start = Instant::now();
    let handle = View::<u32, 1>::with_slice("shared", &mut data, [16], |v| {
        let clone = v.clone();
        let handle = std::thread::spawn(move || {
            let g = clone.host().unwrap();
            taken_tx.send(()).unwrap();
            std::thread::sleep(Duration::from_millis(50));
            let first = g[0];
            drop(g);
            (first, clone)
        });
        taken_rx.recv().unwrap();
        handle
    })
    .unwrap();
    assert!(start.elapsed() >= Duration::from_millis(40));
    let (first, clone) = handle.join().unwrap();
    assert_eq!(first, 3);
    assert!(matches!(clone.host(), Err(Error::Expired { .. })));
    assert_eq!(data, vec![3; 16]);
}

#[test]
fn views_of_bool_and_char_are_zeroed_even_without_initializing() {
    if std::env::var(SCENARIO).is_ok() {
        return;
    }
    runtime();
    let b = View::<bool, 1>::new(view_alloc("b").without_initializing(), [1000]).unwrap();
    assert!(b.to_vec().unwrap().iter().all(|x| !x));
    let c = View::<[char; 2], 1>::new(view_alloc("c").without_initializing(), [100]).unwrap();
    assert!(c.to_vec().unwrap().iter().all(|x| *x == ['\0'; 2]));
    // A kernel on Threads still writes them.
    let exec = Threads::default_instance().unwrap();
    parallel_for(
        "flags",
        RangePolicy::new(&exec, 0, 1000).unwrap(),
        kernel!(|i| b[i] = i % 2 == 0),
    )
    .unwrap();
    assert!(b.get(10).unwrap() && !b.get(11).unwrap());
}
