//! No leaks: a counting global allocator shows that initialize .. finalize, with Views, subviews,
//! mirrors, copies, partitions, parallel patterns and fences in between, leaves zero live bytes behind (the Kokkos 4.6
//! Serial singleton leaked 216 bytes, kokkos#8041).
//!
//! A plain `main` (harness = false): the test harness's own threads would disturb the count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

use ferrokkos::codegen::TranslationUnit;
use ferrokkos::{
    ALL, ExecutionSpace, InitSettings, LayoutLeft, MDRangePolicy, RangePolicy, Schedule, Serial,
    Sum, Threads, View, create_mirror, deep_copy, parallel_for, parallel_reduce, parallel_scan,
    partition_space, resize, subview,
};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator and only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::SeqCst);
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::SeqCst);
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size as isize - layout.size() as isize, Ordering::SeqCst);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

fn work() -> ferrokkos::Result<()> {
    let rt = ferrokkos::initialize(InitSettings::new().num_threads(3))?;
    ferrokkos::push_finalize_hook(|| {})?;
    let serial = Serial::default_instance()?;
    let threads = Threads::default_instance()?;
    let parts = partition_space(&threads, 2)?;
    let mut a = View::<f64, 2>::new("a", [64, 32])?;
    deep_copy(&a, 1.5)?;
    let column = subview(&a, (ALL, 3))?;
    let left = View::<f64, 2, LayoutLeft>::new("left", [64, 32])?;
    deep_copy(&left, &a)?;
    let mirror = create_mirror(&column)?;
    deep_copy(&mirror, &column)?;
    resize(&mut a, [10, 10])?;
    let mut data = vec![0i32; 16];
    View::<i32, 1>::with_slice("wrapped", &mut data, [16], |v| deep_copy(v, 7))??;
    // The patterns: per-thread and per-chunk partials, a two-pass scan, an MDRange policy.
    let dynamic = RangePolicy::new(&threads, 0, 1000)?
        .schedule(Schedule::Dynamic)
        .chunk_size(3)?;
    let s = parallel_reduce(
        "leak check",
        dynamic,
        |i: usize, acc: &mut u64| *acc += i as u64,
        Sum::new(),
    )?;
    let t = parallel_scan(
        "leak check",
        RangePolicy::new(&threads, 0, 1000)?,
        |i: usize, p: &mut u64, _: bool| *p += i as u64,
    )?;
    let md = MDRangePolicy::new(&parts[1], [0, 0], [8, 8])?;
    parallel_for("leak check", md, |(_, _): (i64, i64)| {})?;
    assert_eq!((s, t), (499500, 499500));
    // kernel!: captures, launch-time borrows, and the generation of its CUDA C++ (thread-local
    // emission state, cleared after each run of the shadow).
    let out = View::<f64, 1>::new("out", [64])?;
    let k = ferrokkos::kernel!(|i| out[i] = column[i] * 2.0);
    parallel_for("leak check kernel", RangePolicy::new(&threads, 0, 64)?, &k)?;
    let unit = TranslationUnit::for_kernel(&k, ferrokkos::Iterate::Right);
    assert!(
        unit.generated()
            .contains("out(fk_proven, i) = column(fk_proven, i) * 2.0;")
    );
    drop((k, unit, out));
    serial.fence("leak check")?;
    threads.fence("leak check")?;
    for p in &parts {
        p.fence("leak check")?;
    }
    drop((a, column, left, mirror, parts, serial, threads));
    rt.finalize()
}

fn main() {
    // Warm up what the standard library allocates once per process (stdout's buffer, thread
    // bookkeeping), so that only ferrokkos is measured.
    println!("leak check with a counting allocator");
    std::thread::spawn(|| {}).join().unwrap();
    let _ = std::thread::available_parallelism();

    let before_live = LIVE.load(Ordering::SeqCst);
    let before_count = ALLOCATIONS.load(Ordering::SeqCst);
    work().expect("ferrokkos work failed");
    let leaked = LIVE.load(Ordering::SeqCst) - before_live;
    let allocations = ALLOCATIONS.load(Ordering::SeqCst) - before_count;
    println!("{allocations} allocations during the run, {leaked} bytes still live after finalize");
    assert!(
        allocations > 10,
        "the run should have allocated ({allocations} allocations)"
    );
    assert_eq!(leaked, 0, "ferrokkos leaked {leaked} bytes");
    println!("test result: ok. zero bytes leaked");
}
