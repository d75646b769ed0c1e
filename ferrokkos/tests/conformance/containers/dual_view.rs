//! DualView: a View in a space and its host mirror, synced only when a side is stale; reading a
//! stale side or modifying both sides is an `Err` naming the DualView and the sync to call.

use crate::spaces::download;
use ferrokkos::prelude::*;
use ferrokkos::{DualView, Error, Result, kernel};

fn host_and_device_sides_follow_modify_and_sync<S: Launch>(exec: &S) -> Result<()> {
    let n = 64usize;
    let mut dv = DualView::<f64, 1, LayoutRight, S::MemorySpace>::new("dv", [n])?;
    let shared = !<S::MemorySpace as MemorySpace>::HOST_ACCESSIBLE;
    assert_eq!(dv.is_shared(), !shared);
    assert!(!dv.need_sync_host() && !dv.need_sync_device());
    {
        let host = dv.modify_host()?;
        let mut g = host.host_mut()?;
        for i in 0..n {
            g[i] = i as f64;
        }
    }
    // A separate device side is stale until synced; reading it is an error naming the fix.
    if dv.is_shared() {
        assert!(!dv.need_sync_device());
    } else {
        assert!(dv.need_sync_device());
        match dv.view_device() {
            Err(Error::DualViewStale { label, stale, .. }) => {
                assert_eq!((label.as_str(), stale), ("dv", "device"));
            }
            other => panic!("expected DualViewStale, got {:?}", other.map(|_| ())),
        }
        let e = dv
            .modify_device()
            .map(|_| ())
            .expect_err("the host side has unsynced changes");
        assert!(e.to_string().contains("call sync_device() first"), "{e}");
        // A sync in the wrong direction copies nothing and forgets nothing.
        dv.sync_host()?;
        assert!(dv.need_sync_device() && dv.view_device().is_err());
    }
    dv.sync_device()?;
    assert!(!dv.need_sync_device());
    let x = dv.modify_device()?.clone();
    parallel_for(
        "triple",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| x[i] = 3.0 * x[i] + 1.0),
    )?;
    exec.fence("triple")?;
    assert_eq!(dv.need_sync_host(), !dv.is_shared());
    if !dv.is_shared() {
        assert!(dv.view_host().is_err());
    }
    dv.sync_host()?;
    let want: Vec<f64> = (0..n).map(|i| 3.0 * i as f64 + 1.0).collect();
    assert_eq!(dv.view_host()?.to_vec()?, want);
    assert_eq!(download(dv.view_device()?)?, want);
    // A sync with nothing to copy changes nothing; clear_sync_state forgets a modification.
    dv.sync_device()?;
    dv.modify_host()?;
    dv.clear_sync_state();
    assert!(!dv.need_sync_device());
    Ok(())
}

per_space!(
    host_and_device_sides_follow_modify_and_sync,
    host_and_device_sides_follow_modify_and_sync
);

fn resize_keeps_values_and_realloc_zeroes<S: Launch>(_exec: &S) -> Result<()> {
    let mut dv = DualView::<i32, 2, LayoutRight, S::MemorySpace>::new("grid", [2, 3])?;
    {
        let mut g = dv.modify_host()?.host_mut()?;
        for i in 0..2 {
            for j in 0..3 {
                g[(i, j)] = (10 * i + j) as i32;
            }
        }
    }
    dv.resize([3, 2])?;
    assert_eq!(dv.extents(), [3, 2]);
    assert!(!dv.need_sync_host() && !dv.need_sync_device());
    assert_eq!(dv.view_host()?.to_vec()?, vec![0, 1, 10, 11, 0, 0]);
    assert_eq!(download(dv.view_device()?)?, vec![0, 1, 10, 11, 0, 0]);
    dv.realloc([4, 1])?;
    assert_eq!(dv.view_host()?.to_vec()?, vec![0; 4]);
    assert_eq!(dv.label(), "grid");
    Ok(())
}

per_space!(
    resize_keeps_values_and_realloc_zeroes,
    resize_keeps_values_and_realloc_zeroes
);
