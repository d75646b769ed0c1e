//! The runtime's life: before initialize, while running, after finalize. Initialize may be called once
//! per process, so this file holds a single test that walks through the whole life in order.

use std::sync::{Arc, Mutex};

use ferrokkos::{
    Error, ExecutionSpace, HostSpace, InitSettings, MemorySpace, Serial, Threads, View,
};

#[test]
fn runtime_lifecycle_from_before_initialize_to_after_finalize() {
    // Before initialize: nothing works, every error says so.
    assert!(!ferrokkos::is_initialized());
    assert!(!ferrokkos::is_finalized());
    let e = View::<f64, 1>::new("early", [4]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "allocating View \"early\" in HostSpace requires ferrokkos to be initialized: call \
         ferrokkos::initialize first"
    );
    let e = Threads::default_instance().unwrap_err();
    assert!(matches!(e, Error::NotInitialized { .. }), "{e}");
    assert!(ferrokkos::push_finalize_hook(|| {}).is_err());
    assert!(ferrokkos::fence("early").is_err());

    // Running.
    let rt = ferrokkos::initialize(InitSettings::new().num_threads(3)).unwrap();
    assert!(ferrokkos::is_initialized());
    assert!(!ferrokkos::is_finalized());
    assert_eq!(ferrokkos::settings().unwrap().threads(), Some(3));
    let e = ferrokkos::initialize(InitSettings::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ferrokkos is already initialized: initialize may be called once per process"
    );

    // Hooks run last-registered first, before the backends shut down (they can still use ferrokkos).
    let order = Arc::new(Mutex::new(Vec::new()));
    for n in 1..=3 {
        let order = Arc::clone(&order);
        ferrokkos::push_finalize_hook(move || {
            let usable = View::<i32, 1>::new("in hook", [1]).is_ok();
            order.lock().unwrap().push((n, usable));
        })
        .unwrap();
    }

    let survivor = View::<i32, 1>::new("survivor", [3]).unwrap();
    survivor.set(1, 42).unwrap();
    let threads = Threads::default_instance().unwrap();
    let serial = Serial::default_instance().unwrap();
    assert_eq!(threads.concurrency(), 3);
    threads.fence("before finalize").unwrap();
    serial.fence("before finalize").unwrap();
    ferrokkos::fence("global").unwrap();
    assert_eq!(HostSpace.stats().unwrap().live_bytes, 12);

    rt.finalize().unwrap();
    assert_eq!(*order.lock().unwrap(), [(3, true), (2, true), (1, true)]);

    // After finalize: no new Views, instances or fences; a View that outlived finalize still holds its
    // own memory, which it frees when dropped.
    assert!(!ferrokkos::is_initialized());
    assert!(ferrokkos::is_finalized());
    let e = View::<f64, 1>::new("late", [4]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "allocating View \"late\" in HostSpace is not possible: ferrokkos has been finalized"
    );
    assert!(matches!(
        Serial::default_instance(),
        Err(Error::Finalized { .. })
    ));
    assert!(matches!(
        threads.fence("after"),
        Err(Error::Finalized { .. })
    ));
    assert!(matches!(
        serial.fence("after"),
        Err(Error::Finalized { .. })
    ));
    assert!(matches!(
        ferrokkos::partition_space(&threads, 2),
        Err(Error::Finalized { .. })
    ));
    assert!(matches!(HostSpace.stats(), Err(Error::Finalized { .. })));
    assert_eq!(survivor.to_vec().unwrap(), [0, 42, 0]);
    drop(survivor);

    let e = ferrokkos::initialize(InitSettings::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "ferrokkos cannot be initialized again after it was finalized"
    );
}
