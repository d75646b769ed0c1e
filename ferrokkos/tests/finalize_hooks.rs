//! A panicking finalize hook does not stop finalize: the other hooks run, the backends shut down, and
//! finalize reports the panic. One test per file: initialize may be called once per process.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ferrokkos::{Error, InitSettings};

#[test]
fn a_panicking_hook_is_reported_after_every_hook_ran() {
    let rt = ferrokkos::initialize(InitSettings::new().num_threads(2)).unwrap();
    let ran = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&ran);
    ferrokkos::push_finalize_hook(move || {
        counter.fetch_add(1, Ordering::SeqCst);
    })
    .unwrap();
    ferrokkos::push_finalize_hook(|| panic!("hook exploded")).unwrap();
    let counter = Arc::clone(&ran);
    ferrokkos::push_finalize_hook(move || {
        // A hook may register another; it runs too.
        let counter = Arc::clone(&counter);
        ferrokkos::push_finalize_hook(move || {
            counter.fetch_add(10, Ordering::SeqCst);
        })
        .unwrap();
    })
    .unwrap();

    let e = rt.finalize().unwrap_err();
    assert!(matches!(e, Error::FinalizeHook { count: 1, .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "finalize: 1 finalize hook(s) panicked; first: hook exploded"
    );
    assert_eq!(ran.load(Ordering::SeqCst), 11);
    assert!(ferrokkos::is_finalized());
}
