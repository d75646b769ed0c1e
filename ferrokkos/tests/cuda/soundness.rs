//! Soundness on the GPU: device memory allocated without initializing never holds invalid values of
//! `bool` or `char`, and an unmanaged View whose memory the GPU cannot reach (a host `Vec` declared
//! in CudaSpace) is refused by a kernel launch with an error instead of faulting the device. Every
//! test needs a CUDA GPU and is ignored elsewhere.

use ferrokkos::prelude::*;
use ferrokkos::{Cuda, Error, deep_copy_async, view_alloc};

use crate::{Dev1, cuda};

/// The bytes of a host View's elements.
fn bytes<T: ferrokkos::traits::Element>(v: &View<T, 1>) -> Vec<u8> {
    let n = v.size() * std::mem::size_of::<T>();
    let guard = v.host().unwrap();
    let first: &T = &guard[0];
    // SAFETY: the guard holds the allocation's shared borrow; its `n` bytes are initialized (they
    // were copied from the device) and read as plain bytes, valid for any pattern.
    unsafe { std::slice::from_raw_parts((first as *const T).cast::<u8>(), n) }.to_vec()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn bool_and_char_views_without_initializing_hold_zeros_on_the_device() {
    let exec = cuda();
    let n = 1 << 20;
    for round in 0..3 {
        // Leave non-zero bytes in the device pool, where the next allocation will likely come from.
        let junk = Dev1::<u32>::new("junk", [n]).unwrap();
        deep_copy(&junk, 0xFFFF_FFFFu32).unwrap();
        exec.fence("junk").unwrap();
        drop(junk);
        let b = Dev1::<bool>::new(view_alloc("b").without_initializing(), [4 * n]).unwrap();
        let h = View::<bool, 1>::new("h", [4 * n]).unwrap();
        deep_copy(&h, &b).unwrap();
        assert!(
            bytes(&h).iter().all(|x| *x == 0),
            "round {round}: bool bytes"
        );
        drop(b);
        let c = Dev1::<char>::new(view_alloc("c").without_initializing(), [n]).unwrap();
        let h = View::<char, 1>::new("h", [n]).unwrap();
        deep_copy(&h, &c).unwrap();
        assert!(
            bytes(&h).iter().all(|x| *x == 0),
            "round {round}: char bytes"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_cuda_space_view_over_a_host_vec_is_refused_by_a_launch_and_the_device_stays_usable() {
    let exec = cuda();
    let n = 1000;
    let mut host = vec![1.0f64; n];
    let launched = Dev1::<f64>::with_slice("wrapped", &mut host, [n], |w| {
        let e = parallel_for(
            "on host memory",
            RangePolicy::new(&exec, 0, n).unwrap(),
            kernel!(|i| w[i] = 2.0),
        )
        .unwrap_err();
        // deep_copy still works on it (the pointer kind decides, not the declared space).
        deep_copy(w, 3.0).unwrap();
        e
    })
    .unwrap();
    assert!(matches!(launched, Error::Unsupported { .. }), "{launched}");
    let text = launched.to_string();
    assert!(
        text.contains("View \"wrapped\" in CudaSpace but wraps host memory"),
        "{text}"
    );
    assert_eq!(host, vec![3.0; n]);
    // The context is fine: a kernel on real device memory runs and is right.
    let y = Dev1::<f64>::new("y", [n]).unwrap();
    parallel_for(
        "after",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| y[i] = i as f64),
    )
    .unwrap();
    let m = create_mirror_view(&y).unwrap();
    deep_copy(&m, &y).unwrap();
    assert_eq!(m.get(n - 1).unwrap(), (n - 1) as f64);
    exec.fence("after").unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_reduction_into_an_unmanaged_view_over_host_memory_comes_back_through_the_host() {
    let exec = cuda();
    let x = Dev1::<f64>::new("x", [100]).unwrap();
    deep_copy(&x, 0.5).unwrap();
    let mut slot = [0.0f64];
    View::<f64, 0, LayoutRight, CudaUVMSpace>::with_slice("result", &mut slot, [], |r| {
        parallel_reduce(
            "sum",
            RangePolicy::new(&exec, 0, 100).unwrap(),
            kernel!(|i, acc| *acc += x[i]),
            r,
        )
        .unwrap();
        exec.fence("sum").unwrap();
    })
    .unwrap();
    assert_eq!(slot[0], 50.0);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_host_accessible_space_over_device_memory_is_refused_at_creation() {
    let _exec = cuda();
    let d = Dev1::<f64>::new("d", [16]).unwrap();
    // SAFETY: the pointer and extents describe `d`'s memory, which outlives the attempt.
    let e = unsafe {
        View::<f64, 1, LayoutRight, CudaUVMSpace>::from_raw_parts("uvm", d.as_mut_ptr(), [16])
    }
    .unwrap_err();
    assert!(matches!(e, Error::InvalidView { .. }), "{e}");
    assert!(
        e.to_string()
            .contains("device memory the host cannot access"),
        "{e}"
    );
    // Over pinned memory it is fine, and a kernel can write it.
    let p = View::<f64, 1, LayoutRight, CudaHostPinnedSpace>::new("p", [16]).unwrap();
    // SAFETY: as above, `p`'s memory.
    let w = unsafe {
        View::<f64, 1, LayoutRight, CudaUVMSpace>::from_raw_parts(
            "over pinned",
            p.as_mut_ptr(),
            [16],
        )
    }
    .unwrap();
    let exec = Cuda::default_instance().unwrap();
    parallel_for(
        "pinned",
        RangePolicy::new(&exec, 0, 16).unwrap(),
        kernel!(|i| w[i] = 4.0),
    )
    .unwrap();
    exec.fence("pinned").unwrap();
    assert_eq!(p.to_vec().unwrap(), vec![4.0; 16]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_host_write_waits_for_every_instance_still_reading_the_view() {
    let exec = cuda();
    let parts = ferrokkos::partition_space(&exec, 2).unwrap();
    let n = 1 << 22;
    let x = View::<f64, 1, LayoutRight, CudaUVMSpace>::new("x", [n]).unwrap();
    deep_copy(&x, 1.0).unwrap();
    exec.fence("x").unwrap();
    let slow = Dev1::<f64>::new("slow", [n]).unwrap();
    let quick = Dev1::<f64>::new("quick", [n]).unwrap();
    let rounds = 400usize;
    // Two readers of `x` on two instances; the first runs far longer than the second.
    parallel_for(
        "slow reader",
        RangePolicy::new(&parts[0], 0, n).unwrap(),
        kernel!(|i| {
            let mut s = 0.0;
            for r in 0..rounds {
                s += x[(i + r) % n];
            }
            slow[i] = s;
        }),
    )
    .unwrap();
    parallel_for(
        "quick reader",
        RangePolicy::new(&parts[1], 0, n).unwrap(),
        kernel!(|i| quick[i] = 3.0 * x[i]),
    )
    .unwrap();
    // The exclusive guard must wait for both readers before the host overwrites `x`.
    x.host_mut().unwrap().fill(-1.0);
    for p in &parts {
        p.fence("readers").unwrap();
    }
    let m = create_mirror_view(&slow).unwrap();
    deep_copy(&m, &slow).unwrap();
    assert!(m.to_vec().unwrap().iter().all(|v| *v == rounds as f64));
    deep_copy(&m, &quick).unwrap();
    assert!(m.to_vec().unwrap().iter().all(|v| *v == 3.0));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn an_unsafe_kernel_reads_what_it_wrote_through_an_alias() {
    // Read-only captures load through the read-only cache, which may not see the kernel's own
    // writes; a kernel with `unsafe` may alias a read-only capture with a written one, so its
    // read-only Views load as written ones do.
    let exec = cuda();
    let n = 4096;
    let x = Dev1::<f64>::new("x", [n]).unwrap();
    let z = Dev1::<f64>::new("z", [n]).unwrap();
    let y = x.clone();
    // SAFETY (the author's): iteration i touches element i of x (through y and x) and of z only.
    let k = kernel!(|i| unsafe {
        y[i] = 1.0 + i as f64;
        z[i] = x[i] * 2.0;
    });
    for _ in 0..3 {
        parallel_for("alias", RangePolicy::new(&exec, 0, n).unwrap(), &k).unwrap();
    }
    let expected: Vec<f64> = (0..n).map(|i| 2.0 * (1.0 + i as f64)).collect();
    let host = View::<f64, 1>::new("z host", [n]).unwrap();
    deep_copy(&host, &z).unwrap();
    assert_eq!(host.to_vec().unwrap(), expected);
    // Without `unsafe`, the same aliasing is refused at launch.
    let refused = parallel_for(
        "alias",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| {
            y[i] = 1.0;
            z[i] = x[i];
        }),
    );
    assert!(
        matches!(refused, Err(Error::KernelAlias { .. })),
        "{refused:?}"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_staged_copy_is_read_back_while_later_kernels_overwrite_its_source() {
    // The host's wait for an asynchronous copy into pinned memory waits for that copy alone (an
    // event after it), not for the kernels queued behind it; what it reads is the copy's data.
    let exec = cuda();
    let n = 1 << 20;
    let src = Dev1::<f64>::new("src", [n]).unwrap();
    let staged = View::<f64, 1, LayoutRight, CudaHostPinnedSpace>::new("staged", [n]).unwrap();
    for round in 0..4 {
        let value = round as f64;
        parallel_for(
            "fill",
            RangePolicy::new(&exec, 0, n).unwrap(),
            kernel!(|i| src[i] = value + i as f64),
        )
        .unwrap();
        deep_copy_async(&exec, &staged, &src).unwrap();
        for _ in 0..8 {
            parallel_for(
                "overwrite",
                RangePolicy::new(&exec, 0, n).unwrap(),
                kernel!(|i| src[i] = -1.0 - src[i] * 0.5),
            )
            .unwrap();
        }
        let host = staged.host().unwrap();
        assert!(
            (0..n).all(|i| host[i] == value + i as f64),
            "round {round}: the staged copy holds other values"
        );
    }
    exec.fence("staged").unwrap();
}
