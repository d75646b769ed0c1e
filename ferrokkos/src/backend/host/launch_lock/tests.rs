//! The launch lock's record, the grace and the adoption of candidates, and the chains of
//! overlapping instances.

use super::*;

struct Fake {
    lock: LaunchLock,
    workers: Range<usize>,
}

impl Listed for Fake {
    fn launch_lock(&self) -> &LaunchLock {
        &self.lock
    }
    fn workers(&self) -> Range<usize> {
        self.workers.clone()
    }
}

fn fake(workers: Range<usize>) -> Arc<Fake> {
    Arc::new(Fake {
        lock: LaunchLock::default(),
        workers,
    })
}

/// Marks `f` as running a launch that began when the newest registered thread was `before`.
fn running(f: &Fake, before: u64) {
    f.lock.started_before.store(before, Ordering::Relaxed);
}

#[test]
fn a_launch_records_the_newest_thread_and_clears_it_at_the_end() {
    let lock = LaunchLock::default();
    let me = started::register();
    {
        let _launch = lock.enter(|_| unreachable!("uncontended")).unwrap();
        let recorded = lock.started_before.load(Ordering::Relaxed);
        assert!(recorded >= me, "{recorded} < {me}");
        assert_eq!(lock.owner_for(me), None, "the launching thread is older");
        assert_eq!(
            lock.owner_for(recorded + 1),
            Some(Owner {
                lock: &lock as *const LaunchLock as usize,
                started_before: recorded
            })
        );
    }
    assert_eq!(lock.started_before.load(Ordering::Relaxed), 0);
    assert_eq!(lock.owner_for(u64::MAX), None);
}

#[test]
fn a_thread_started_by_the_running_launch_is_adopted_after_the_grace_then_at_once() {
    let lock = Arc::new(LaunchLock::default());
    let launch = lock.enter(|_| None).unwrap();
    // Started after the launch began (the closure is what Serial passes).
    let inner = Arc::clone(&lock);
    let (first, second, fence) = std::thread::spawn(move || {
        let start = Instant::now();
        let entry = inner.enter(|me| inner.owner_for(me));
        let first = (entry.is_none(), start.elapsed());
        let start = Instant::now();
        let entry = inner.enter(|me| inner.owner_for(me));
        let second = (entry.is_none(), start.elapsed());
        let start = Instant::now();
        inner.wait_idle(|me| inner.owner_for(me));
        (first, second, start.elapsed())
    })
    .join()
    .unwrap();
    assert!(first.0 && second.0, "adopted: {first:?} {second:?}");
    assert!(first.1 >= ADOPTION_GRACE, "{first:?}");
    assert!(
        second.1 < ADOPTION_GRACE && fence < ADOPTION_GRACE,
        "{second:?} {fence:?}"
    );
    drop(launch);
}

#[test]
fn a_candidate_whose_launch_ends_within_the_grace_waits_for_it() {
    let lock = Arc::new(LaunchLock::default());
    let launch = lock.enter(|_| None).unwrap();
    let inner = Arc::clone(&lock);
    let candidate = std::thread::spawn(move || inner.enter(|me| inner.owner_for(me)).is_some());
    std::thread::sleep(ADOPTION_GRACE / 4);
    drop(launch);
    assert!(candidate.join().unwrap(), "took the lock after the launch");
}

#[test]
fn a_thread_that_is_no_candidate_waits_for_the_launch() {
    let lock = Arc::new(LaunchLock::default());
    let launch = lock.enter(|_| None).unwrap();
    let (inner, done) = (Arc::clone(&lock), Arc::new(AtomicU64::new(0)));
    let flag = Arc::clone(&done);
    let waiter = std::thread::spawn(move || {
        inner.wait_idle(|_| None);
        flag.store(1, Ordering::SeqCst);
    });
    std::thread::sleep(ADOPTION_GRACE * 2);
    assert_eq!(done.load(Ordering::SeqCst), 0, "waited for the launch");
    drop(launch);
    waiter.join().unwrap();
    assert_eq!(done.load(Ordering::SeqCst), 1);
}

#[test]
fn overlapping_running_instances_link_a_waiter_to_the_launch_that_started_it() {
    let instances = Instances::default();
    let (all, low, high, other) = (fake(0..4), fake(0..2), fake(2..4), fake(6..8));
    for f in [&all, &low, &high, &other] {
        instances.add(Arc::downgrade(&(Arc::clone(f) as Arc<dyn Listed>)));
    }
    let me = 100;
    let owner = |f: &Fake| f.lock.owner_for(me);
    // `high` runs a launch that began before thread 100; `all` runs one (waiting for `high`'s
    // workers) that began after it.
    running(&high, 50);
    running(&all, 200);
    assert_eq!(
        instances.owner_of_wait(me, &low.lock, &low.workers()),
        owner(&high),
        "low-all-high"
    );
    assert!(owner(&high).is_some());
    assert_eq!(
        instances.owner_of_wait(me, &high.lock, &high.workers()),
        owner(&high)
    );
    assert_eq!(
        instances.owner_of_wait(me, &other.lock, &other.workers()),
        None
    );
    // Without `all` running there is no chain from `low` to `high`.
    running(&all, 0);
    assert_eq!(instances.owner_of_wait(me, &low.lock, &low.workers()), None);
    // A thread registered before every launch is a candidate of none.
    running(&all, 200);
    assert_eq!(instances.owner_of_wait(10, &low.lock, &low.workers()), None);
    assert!(instances.any_owner_for(me) && !instances.any_owner_for(10));
}

#[test]
fn dropped_instances_leave_the_list() {
    let instances = Instances::default();
    let kept = fake(0..1);
    instances.add(Arc::downgrade(&(Arc::clone(&kept) as Arc<dyn Listed>)));
    for _ in 0..10 {
        let gone = fake(0..1);
        instances.add(Arc::downgrade(&(gone as Arc<dyn Listed>)));
    }
    assert_eq!(instances.lock().len(), 2, "pruned at each registration");
    assert_eq!(instances.alive().len(), 1);
}
