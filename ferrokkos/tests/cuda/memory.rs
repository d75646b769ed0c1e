//! Memory on the GPU: deep_copy between layouts and subviews (the copy kernel), fills (memset or
//! the fill kernel), unmanaged Views over `Vec` and calloc memory in every space, managed and
//! pinned memory shared with the host, Views a space cannot reach refused at launch, asynchronous
//! copies into pinned and pageable memory, and resize of device Views.

use ferrokkos::prelude::*;
use ferrokkos::{CudaHostPinnedSpace, CudaSpace, CudaUVMSpace, deep_copy_async};

use crate::{Dev1, cuda};

#[test]
#[ignore = "needs a CUDA GPU"]
fn copies_between_layouts_and_subviews_use_the_copy_kernel() {
    let exec = cuda();
    let right = View::<f32, 2, LayoutRight, CudaSpace>::new("right", [37, 19]).unwrap();
    parallel_for(
        "fill",
        MDRangePolicy::new(&exec, [0, 0], [37, 19]).unwrap(),
        kernel!(|(i, j)| right[(i, j)] = (i * 100 + j) as f32),
    )
    .unwrap();
    let left = View::<f32, 2, LayoutLeft, CudaSpace>::new("left", [37, 19]).unwrap();
    deep_copy(&left, &right).unwrap();
    let h = View::<f32, 2, LayoutLeft>::new("h", [37, 19]).unwrap();
    deep_copy(&h, &left).unwrap();
    assert_eq!(h.get((36, 18)).unwrap(), 3618.0);
    assert_eq!(h.get((5, 7)).unwrap(), 507.0);
    // A strided column of a device View into a contiguous host View (pageable destination).
    let col = subview(&right, (ALL, 3)).unwrap();
    let hc = View::<f32, 1>::new("hc", [37]).unwrap();
    deep_copy(&hc, &col).unwrap();
    assert_eq!(hc.get(10).unwrap(), 1003.0);
    // And back: a host View into a strided device column (pageable source).
    deep_copy(&hc, -1.0f32).unwrap();
    deep_copy(&col, &hc).unwrap();
    let hr = View::<f32, 2>::new("hr", [37, 19]).unwrap();
    deep_copy(&hr, &right).unwrap();
    assert_eq!(hr.get((10, 3)).unwrap(), -1.0);
    assert_eq!(hr.get((10, 4)).unwrap(), 1004.0);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn fills_use_memset_or_the_fill_kernel_and_keep_the_rest() {
    cuda();
    let v = Dev1::<f64>::new("v", [1000]).unwrap();
    for value in [0.0, 7.0, -2.5] {
        deep_copy(&v, value).unwrap();
        let h = create_mirror_view(&v).unwrap();
        deep_copy(&h, &v).unwrap();
        assert!(h.to_vec().unwrap().iter().all(|x| *x == value), "{value}");
    }
    let b = Dev1::<u8>::new("b", [333]).unwrap();
    deep_copy(&b, 9u8).unwrap();
    let mut last = 0u8;
    deep_copy(&mut last, &subview(&b, 332).unwrap()).unwrap();
    assert_eq!(last, 9);
    // A strided fill leaves the other column alone.
    let m = View::<i32, 2, LayoutRight, CudaSpace>::new("m", [50, 2]).unwrap();
    deep_copy(&subview(&m, (ALL, 1)).unwrap(), 5).unwrap();
    let h = View::<i32, 2>::new("h", [50, 2]).unwrap();
    deep_copy(&h, &m).unwrap();
    assert_eq!((h.get((49, 0)).unwrap(), h.get((49, 1)).unwrap()), (0, 5));
}

/// Fills and copies an unmanaged View of space `M` over `memory` (host memory the device may not
/// reach), checking every element.
fn unmanaged_fill_and_copy<M: MemorySpace>(memory: *mut f64, n: usize) {
    // SAFETY: `memory` holds `n` f64 and outlives the View, which is dropped at the end.
    let v =
        unsafe { View::<f64, 1, LayoutRight, M>::from_raw_parts("wrapped", memory, [n]) }.unwrap();
    for value in [0.0, 7.0] {
        deep_copy(&v, value).unwrap();
        // SAFETY: the fill completed (deep_copy waits) and nothing else uses the memory.
        let s = unsafe { std::slice::from_raw_parts(memory, n) };
        assert!(s.iter().all(|x| *x == value), "{} fill {value}", M::NAME);
    }
    let d = Dev1::<f64>::new("d", [n]).unwrap();
    deep_copy(&d, 3.0).unwrap();
    deep_copy(&v, &d).unwrap();
    // SAFETY: as above.
    let s = unsafe { std::slice::from_raw_parts(memory, n) };
    assert!(s.iter().all(|x| *x == 3.0), "{} copy", M::NAME);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn unmanaged_views_over_vec_and_calloc_memory_fill_in_every_space() {
    cuda();
    let n = 4099;
    let mut vec = vec![1.0f64; n];
    unmanaged_fill_and_copy::<HostSpace>(vec.as_mut_ptr(), n);
    unmanaged_fill_and_copy::<CudaSpace>(vec.as_mut_ptr(), n);
    unmanaged_fill_and_copy::<CudaUVMSpace>(vec.as_mut_ptr(), n);
    unmanaged_fill_and_copy::<CudaHostPinnedSpace>(vec.as_mut_ptr(), n);
    let layout = std::alloc::Layout::array::<f64>(n).unwrap();
    // SAFETY: a non-zero layout; freed below.
    let raw = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<f64>();
    assert!(!raw.is_null());
    unmanaged_fill_and_copy::<CudaSpace>(raw, n);
    unmanaged_fill_and_copy::<CudaUVMSpace>(raw, n);
    // SAFETY: allocated above with this layout; the Views over it are gone.
    unsafe { std::alloc::dealloc(raw.cast(), layout) };
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn managed_and_pinned_views_are_shared_with_the_host() {
    let exec = cuda();
    let u = View::<f64, 1, LayoutRight, CudaUVMSpace>::new("u", [1000]).unwrap();
    let p = View::<f64, 1, LayoutRight, CudaHostPinnedSpace>::new("p", [1000]).unwrap();
    u.host_mut().unwrap()[5] = 2.0;
    parallel_for(
        "touch",
        RangePolicy::new(&exec, 0, 1000).unwrap(),
        kernel!(|i| p[i] = u[i] + i as f64),
    )
    .unwrap();
    // Host access waits for the kernel.
    assert_eq!(p.get(5).unwrap(), 7.0);
    assert_eq!(p.get(999).unwrap(), 999.0);
    // Threads may run kernels over managed memory too.
    let t = Threads::default_instance().unwrap();
    let s: f64 = parallel_reduce(
        "host sum",
        RangePolicy::new(&t, 0, 1000).unwrap(),
        kernel!(|i, acc: &mut f64| *acc += p[i]),
        Sum::new(),
    )
    .unwrap();
    assert_eq!(s, 2.0 + 999.0 * 1000.0 / 2.0);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn device_memory_is_refused_to_host_kernels_and_host_memory_to_the_gpu() {
    let exec = cuda();
    let d = Dev1::<f64>::new("dev", [10]).unwrap();
    let serial = Serial::default_instance().unwrap();
    let e = parallel_for(
        "host",
        RangePolicy::new(&serial, 0, 10).unwrap(),
        kernel!(|i| d[i] = 1.0),
    )
    .unwrap_err();
    assert!(e.to_string().contains("View \"dev\" in CudaSpace"), "{e}");
    let h = View::<f64, 1>::new("hostonly", [10]).unwrap();
    let e = parallel_for(
        "gpu",
        RangePolicy::new(&exec, 0, 10).unwrap(),
        kernel!(|i| h[i] = 1.0),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("View \"hostonly\" in HostSpace"),
        "{e}"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn async_copies_into_pinned_memory_return_before_the_copy_ends() {
    let exec = cuda();
    let n = 1 << 26; // 512 MiB of f64
    let d = Dev1::<f64>::new(view_alloc("big").without_initializing(), [n]).unwrap();
    // A pinned mirror of the device View, as a Kokkos user would make one for overlapping copies.
    let pinned = ferrokkos::create_mirror_view_in(CudaHostPinnedSpace, &d).unwrap();
    assert_eq!(pinned.label(), "big_mirror");
    let pageable = View::<f64, 1>::new(view_alloc("pageable").without_initializing(), [n]).unwrap();
    deep_copy(&d, 1.5).unwrap();
    let start = std::time::Instant::now();
    deep_copy_async(&exec, &pinned, &d).unwrap();
    let returned = start.elapsed();
    exec.fence("copy").unwrap();
    let done = start.elapsed();
    let start = std::time::Instant::now();
    deep_copy_async(&exec, &pageable, &d).unwrap();
    let pageable_returned = start.elapsed();
    exec.fence("copy").unwrap();
    let pageable_done = start.elapsed();
    println!(
        "512 MiB D->H: pinned returned after {returned:?}, done after {done:?}; pageable returned \
         after {pageable_returned:?}, done after {pageable_done:?}"
    );
    assert!(returned * 4 < done, "pinned: {returned:?} vs {done:?}");
    assert!(
        pageable_returned * 10 >= pageable_done * 9,
        "pageable: {pageable_returned:?}"
    );
    assert_eq!(pinned.get(n - 1).unwrap(), 1.5);
    assert_eq!(pageable.get(n - 1).unwrap(), 1.5);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn device_views_resize_keeping_the_common_box() {
    let exec = cuda();
    let mut m = View::<i32, 2, LayoutRight, CudaSpace>::new("m", [3, 4]).unwrap();
    parallel_for(
        "fill",
        MDRangePolicy::new(&exec, [0, 0], [3, 4]).unwrap(),
        kernel!(|(i, j)| m[(i, j)] = (10 * i + j) as i32),
    )
    .unwrap();
    ferrokkos::resize(&mut m, [4, 2]).unwrap();
    assert_eq!(m.label(), "m");
    let h = create_mirror_view(&m).unwrap();
    deep_copy(&h, &m).unwrap();
    assert_eq!(h.to_vec().unwrap(), [0, 1, 10, 11, 20, 21, 0, 0]);
}
