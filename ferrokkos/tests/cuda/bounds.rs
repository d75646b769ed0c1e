//! Out-of-bounds indexing in device code: the host body panics (Rust's bounds checks); on the GPU the
//! access reaches no memory (a write is dropped, a read gives zero) and the next wait for the device
//! returns `Error::DeviceOutOfBounds` naming the kernel, the index and the extents (a `panic!`:
//! `Error::KernelAbort` with its message). The device stays
//! usable. Every test needs a CUDA GPU and is ignored elsewhere.

//!
//! The fault record belongs to the process's device context, so a fault in one test could surface
//! at another test's fence (of this file or of any other module of this binary): each test runs
//! alone in a child process of its own.

use ferrokkos::prelude::*;
use ferrokkos::{Cuda, DeviceTarget, Error};

use crate::common::child::in_own_process;
use crate::{Dev1, cuda};

/// The device View's elements.
fn host_copy<T: ferrokkos::traits::Element + Default>(v: &Dev1<T>) -> Vec<T> {
    let m = create_mirror_view(v).unwrap();
    deep_copy(&m, v).unwrap();
    m.to_vec().unwrap()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_write_past_the_end_is_dropped_and_reported_at_the_fence() {
    if !in_own_process(
        module_path!(),
        "a_write_past_the_end_is_dropped_and_reported_at_the_fence",
    ) {
        return;
    }
    let exec = cuda();
    let n = 1000;
    let y = Dev1::<f64>::new("y", [n]).unwrap();
    // A neighbour allocated right after `y`: the dropped writes must not land there.
    let z = Dev1::<f64>::new("z", [n]).unwrap();
    parallel_for(
        "past the end",
        RangePolicy::new(&exec, 0, n + 64).unwrap(),
        kernel!(|i| y[i] = 1.0),
    )
    .unwrap();
    let e = exec.fence("after").unwrap_err();
    match &e {
        Error::DeviceOutOfBounds {
            kernel,
            target,
            index,
            extents,
            count,
            ..
        } => {
            assert!(kernel.contains(file!()), "{e}");
            assert_eq!(*target, DeviceTarget::View);
            assert_eq!(&extents[..], &[n as u64]);
            assert!(index[0] >= n as u64 && index[0] < n as u64 + 64, "{e}");
            assert_eq!(*count, 64);
        }
        other => panic!("expected DeviceOutOfBounds, got {other}"),
    }
    assert!(
        e.to_string().contains("parallel_for \"past the end\""),
        "{e}"
    );
    // Reported once; the device is still usable and the in-bounds writes happened.
    exec.fence("again").unwrap();
    assert_eq!(host_copy(&y), vec![1.0; n]);
    assert_eq!(host_copy(&z), vec![0.0; n]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn reads_out_of_bounds_give_zero_and_fail_the_reduction() {
    if !in_own_process(
        module_path!(),
        "reads_out_of_bounds_give_zero_and_fail_the_reduction",
    ) {
        return;
    }
    let exec = cuda();
    let n = 256;
    let x = Dev1::<f64>::new("x", [n]).unwrap();
    deep_copy(&x, 2.0).unwrap();
    let e = parallel_reduce(
        "sum past the end",
        RangePolicy::new(&exec, 0, n + 1).unwrap(),
        kernel!(|i, acc: &mut f64| *acc += x[i]),
        Sum::new(),
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::DeviceOutOfBounds { index, .. } if index[..] == [n as u64]),
        "{e}"
    );
    // A shifted read in a parallel_for: the last element reads zero.
    let y = Dev1::<f64>::new("y", [n]).unwrap();
    parallel_for(
        "shifted",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| y[i] = x[i + 1] + 1.0),
    )
    .unwrap();
    assert!(matches!(
        exec.fence("shifted").unwrap_err(),
        Error::DeviceOutOfBounds { .. }
    ));
    let got = host_copy(&y);
    assert_eq!(got[n - 1], 1.0);
    assert!(got[..n - 1].iter().all(|v| *v == 3.0));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn multidimensional_views_and_captured_arrays_are_checked_per_dimension() {
    if !in_own_process(
        module_path!(),
        "multidimensional_views_and_captured_arrays_are_checked_per_dimension",
    ) {
        return;
    }
    let exec = cuda();
    let a = View::<i32, 2, LayoutRight, CudaSpace>::new("a", [4, 8]).unwrap();
    // Columns 0..9 of a 4 x 8 View: the column index is out of bounds (the flat offset would not
    // be, except on the last row).
    parallel_for(
        "wide",
        MDRangePolicy::new(&exec, [0, 0], [4, 9]).unwrap(),
        kernel!(|(i, j)| a[(i, j)] = (10 * i + j) as i32),
    )
    .unwrap();
    match exec.fence("wide").unwrap_err() {
        Error::DeviceOutOfBounds {
            index,
            extents,
            count,
            ..
        } => {
            assert_eq!(&extents[..], &[4, 8]);
            assert_eq!(index[1], 8);
            assert_eq!(count, 4);
        }
        other => panic!("{other}"),
    }
    let m = create_mirror_view(&a).unwrap();
    deep_copy(&m, &a).unwrap();
    for i in 0..4 {
        for j in 0..8 {
            assert_eq!(m.get((i, j)).unwrap(), (10 * i + j) as i32, "({i}, {j})");
        }
    }
    let values = [1.0f64, 2.0, 3.0];
    let y = Dev1::<f64>::new("y", [5]).unwrap();
    parallel_for(
        "array",
        RangePolicy::new(&exec, 0, 5).unwrap(),
        kernel!(|i| y[i] = values[i]),
    )
    .unwrap();
    match exec.fence("array").unwrap_err() {
        Error::DeviceOutOfBounds {
            target, extents, ..
        } => {
            assert_eq!(target, DeviceTarget::Array);
            assert_eq!(&extents[..], &[3]);
        }
        other => panic!("{other}"),
    }
    assert_eq!(host_copy(&y), vec![1.0, 2.0, 3.0, 0.0, 0.0]);
    // A component of a View's array element past the array's length: the write is dropped.
    let v = Dev1::<[f64; 3]>::new("v", [4]).unwrap();
    parallel_for(
        "component",
        RangePolicy::new(&exec, 0, 4).unwrap(),
        kernel!(|i| {
            v[i][i] = 1.0 + i as f64;
        }),
    )
    .unwrap();
    match exec.fence("component").unwrap_err() {
        Error::DeviceOutOfBounds {
            target,
            index,
            extents,
            count,
            ..
        } => {
            assert_eq!(target, DeviceTarget::Array);
            assert_eq!((&index[..], &extents[..], count), (&[3][..], &[3][..], 1));
        }
        other => panic!("{other}"),
    }
    let m = create_mirror_view(&v).unwrap();
    deep_copy(&m, &v).unwrap();
    let want = [[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0], [0.0; 3]];
    for (i, w) in want.iter().enumerate() {
        assert_eq!(m.get(i).unwrap(), *w, "element {i}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_fault_on_another_instance_is_reported_by_the_global_fence() {
    if !in_own_process(
        module_path!(),
        "a_fault_on_another_instance_is_reported_by_the_global_fence",
    ) {
        return;
    }
    let exec = cuda();
    let other = Cuda::new_instance().unwrap();
    let y = Dev1::<u32>::new("y", [10]).unwrap();
    parallel_for(
        "elsewhere",
        RangePolicy::new(&other, 0, 11).unwrap(),
        kernel!(|i| y[i] = 7),
    )
    .unwrap();
    assert!(matches!(
        ferrokkos::fence("global").unwrap_err(),
        Error::DeviceOutOfBounds { .. }
    ));
    other.fence("clean").unwrap();
    exec.fence("clean").unwrap();
    assert_eq!(host_copy(&y), vec![7; 10]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn integer_division_by_zero_gives_zero_and_is_reported() {
    if !in_own_process(
        module_path!(),
        "integer_division_by_zero_gives_zero_and_is_reported",
    ) {
        return;
    }
    let exec = cuda();
    let n = 64;
    let d = Dev1::<i32>::new("d", [n]).unwrap();
    let q = Dev1::<i32>::new("q", [n]).unwrap();
    // d[i] = i % 4: every fourth divisor is zero; i32::MIN / -1 overflows too.
    parallel_for(
        "divisors",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| d[i] = (i % 4) as i32),
    )
    .unwrap();
    exec.fence("divisors").unwrap();
    parallel_for(
        "divide",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| {
            let a = if i == 1 { i32::MIN } else { 100 };
            let b = if i == 1 { -1 } else { d[i] };
            q[i] = a / b + a % b;
        }),
    )
    .unwrap();
    match exec.fence("divide").unwrap_err() {
        Error::DeviceArithmetic { kernel, count, .. } => {
            assert!(kernel.contains(file!()), "{kernel}");
            // 16 zero divisors and MIN / -1, each divided and taken modulo.
            assert_eq!(count, 2 * 17);
        }
        other => panic!("{other}"),
    }
    let got = host_copy(&q);
    assert_eq!(got[0], 0);
    assert_eq!(got[1], 0);
    assert_eq!(got[2], 50);
    assert_eq!(got[3], 33 + 1);
    // `try_into().unwrap()` where Rust panics: a fault, and 0.
    let c = Dev1::<u8>::new("c", [n]).unwrap();
    parallel_for(
        "narrow",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| {
            let wide: i64 = (i as i64) * 10 - 20;
            c[i] = wide.try_into().unwrap();
        }),
    )
    .unwrap();
    match exec.fence("narrow").unwrap_err() {
        Error::DeviceArithmetic { kernel, count, .. } => {
            assert!(kernel.contains(file!()), "{kernel}");
            // Negative for i < 2, above 255 for i > 27.
            assert_eq!(count, 2 + (n as u64 - 28));
        }
        other => panic!("{other}"),
    }
    let got = host_copy(&c);
    assert_eq!((got[0], got[2], got[27], got[28]), (0, 0, 250, 0));
    // Signed overflow wraps (as a Rust release build) instead of being undefined.
    let w = Dev1::<i32>::new("w", [1]).unwrap();
    let (big, low) = (i32::MAX, i32::MIN);
    parallel_for(
        "wrap",
        RangePolicy::new(&exec, 0, 1).unwrap(),
        kernel!(|i| w[i] = big + (i as i32 + 1) - -low),
    )
    .unwrap();
    exec.fence("wrap").unwrap();
    assert_eq!(
        host_copy(&w)[0],
        i32::MAX
            .wrapping_add(1)
            .wrapping_sub(i32::MIN.wrapping_neg())
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn an_extent_of_a_dimension_the_view_lacks_is_reported() {
    if !in_own_process(
        module_path!(),
        "an_extent_of_a_dimension_the_view_lacks_is_reported",
    ) {
        return;
    }
    let exec = cuda();
    let a = View::<f64, 2, LayoutRight, CudaSpace>::new("a", [3, 5]).unwrap();
    let e = Dev1::<usize>::new("e", [3]).unwrap();
    parallel_for(
        "extents",
        RangePolicy::new(&exec, 0, 3).unwrap(),
        kernel!(|i| e[i] = a.extent(i)),
    )
    .unwrap();
    match exec.fence("extents").unwrap_err() {
        Error::DeviceOutOfBounds {
            target,
            index,
            extents,
            ..
        } => {
            assert_eq!(target, DeviceTarget::Dimension);
            assert_eq!((&index[..], &extents[..]), (&[2u64][..], &[2u64][..]));
        }
        other => panic!("{other}"),
    }
    assert_eq!(host_copy(&e), vec![3, 5, 0]);
}

/// A subview's range bounds its accesses on the device as on the host: `row[3]` of the range
/// `1..4` is reported with the subview's extent and reaches no memory, though `a[(j, 4)]` exists.
#[test]
#[ignore = "needs a CUDA GPU"]
fn an_index_past_a_subview_range_is_reported_and_dropped() {
    if !in_own_process(
        module_path!(),
        "an_index_past_a_subview_range_is_reported_and_dropped",
    ) {
        return;
    }
    let exec = cuda();
    let a = View::<f64, 2, LayoutRight, CudaSpace>::new("a", [4, 8]).unwrap();
    parallel_for(
        "range",
        MDRangePolicy::<_, 2, usize>::new(&exec, [0, 0], [4, 4]).unwrap(),
        kernel!(|(j, i): (usize, usize)| {
            let row = subview(&a, (j, 1..4));
            row[i] = 1.0;
        }),
    )
    .unwrap();
    match exec.fence("range").unwrap_err() {
        Error::DeviceOutOfBounds {
            target,
            index,
            extents,
            count,
            ..
        } => {
            assert_eq!(target, DeviceTarget::SubviewRange);
            assert_eq!((&index[..], &extents[..]), (&[3u64][..], &[3u64][..]));
            assert_eq!(count, 4);
        }
        other => panic!("{other}"),
    }
    let m = create_mirror_view(&a).unwrap();
    deep_copy(&m, &a).unwrap();
    let want: Vec<f64> = (0..32)
        .map(|k| if (1..4).contains(&(k % 8)) { 1.0 } else { 0.0 })
        .collect();
    assert_eq!(m.to_vec().unwrap(), want);
}

/// Kernels prepared together compile as one program; a fault in one of them names that kernel,
/// and the others run as if compiled alone.
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_fault_in_a_kernel_prepared_with_others_names_that_kernel() {
    if !in_own_process(
        module_path!(),
        "a_fault_in_a_kernel_prepared_with_others_names_that_kernel",
    ) {
        return;
    }
    let exec = cuda();
    let n = 100;
    let x = Dev1::<f64>::new("x", [n]).unwrap();
    let y = Dev1::<f64>::new("y", [n]).unwrap();
    let first = kernel!(|i| x[i] = 2.0);
    let faulty_line = line!() + 1;
    let faulty = kernel!(|i| y[i] = 3.0);
    let total = kernel!(|i, acc: &mut f64| *acc += x[i]);
    let fine = RangePolicy::new(&exec, 0, n).unwrap();
    let past = RangePolicy::new(&exec, 0, n + 5).unwrap();
    let report = Prepare::new()
        .parallel_for("first", &fine, &first)
        .unwrap()
        .parallel_for("faulty", &past, &faulty)
        .unwrap()
        .parallel_reduce("total", &fine, &total, Sum::<f64>::new())
        .unwrap()
        .compile()
        .unwrap();
    assert_eq!(report.batches, 1, "{report:?}");
    assert_eq!(report.compiled + report.from_disk, 3, "{report:?}");
    let stats = Cuda::jit_stats().unwrap();
    parallel_for("first", fine.clone(), &first).unwrap();
    let sum: f64 = parallel_reduce("total", fine, &total, Sum::new()).unwrap();
    assert_eq!(sum, 2.0 * n as f64);
    parallel_for("faulty", past, &faulty).unwrap();
    // The launches found their code loaded.
    assert_eq!(Cuda::jit_stats().unwrap().compiled, stats.compiled);
    let e = exec.fence("after").unwrap_err();
    match &e {
        Error::DeviceOutOfBounds { kernel, count, .. } => {
            assert!(
                kernel.contains(&format!("{}:{faulty_line}:", file!())),
                "{e}"
            );
            assert_eq!(*count, 5);
        }
        other => panic!("expected DeviceOutOfBounds, got {other}"),
    }
    assert_eq!(host_copy(&y), vec![3.0; n]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_panic_is_reported_with_its_message_and_the_device_goes_on() {
    if !in_own_process(
        module_path!(),
        "a_panic_is_reported_with_its_message_and_the_device_goes_on",
    ) {
        return;
    }
    let exec = cuda();
    let n = 1000;
    let y = Dev1::<f64>::new("y", [n]).unwrap();
    parallel_for(
        "aborting",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| {
            if i % 100 == 7 {
                println!("row {} is singular", i);
                panic!("a singular row");
            }
            y[i] = 1.0;
        }),
    )
    .unwrap();
    let e = exec.fence("after").unwrap_err();
    match &e {
        Error::KernelAbort {
            kernel,
            message,
            count,
            ..
        } => {
            assert!(kernel.contains(file!()), "{e}");
            assert_eq!(message, "a singular row");
            assert_eq!(*count, 10);
        }
        other => panic!("expected KernelAbort, got {other}"),
    }
    assert!(e.to_string().contains("parallel_for \"aborting\""), "{e}");
    assert!(e.to_string().contains("a singular row"), "{e}");
    // Reported once; each panicking iteration ended there, the others ran, and the device is
    // still usable.
    exec.fence("again").unwrap();
    let want: Vec<f64> = (0..n)
        .map(|i| if i % 100 == 7 { 0.0 } else { 1.0 })
        .collect();
    assert_eq!(host_copy(&y), want);
    parallel_for(
        "after the panic",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| y[i] = 2.0),
    )
    .unwrap();
    exec.fence("the next launch").unwrap();
    assert_eq!(host_copy(&y), vec![2.0; n]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_formatted_panic_is_reported_with_rusts_text_and_abort_with_its_message() {
    if !in_own_process(
        module_path!(),
        "a_formatted_panic_is_reported_with_rusts_text_and_abort_with_its_message",
    ) {
        return;
    }
    let exec = cuda();
    let n = 64;
    let y = Dev1::<f64>::new("y", [n]).unwrap();
    let bad = 37usize;
    let scale = -2.5f32;
    parallel_for(
        "formatted",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| {
            if i == bad {
                panic!(
                    "row {i} of {}: {:>9.3} {:e} {:?} {} {:x} {:+05}",
                    n,
                    scale * 2.0,
                    1500.0f64,
                    0.1f32,
                    i > 3,
                    -1i8,
                    7i64
                );
            }
            y[i] = 1.0;
        }),
    )
    .unwrap();
    let e = exec.fence("after").unwrap_err();
    let want = format!(
        "row {} of {}: {:>9.3} {:e} {:?} {} {:x} {:+05}",
        bad,
        n,
        scale * 2.0,
        1500.0f64,
        0.1f32,
        true,
        -1i8,
        7i64
    );
    match &e {
        Error::KernelAbort { message, count, .. } => {
            assert_eq!(message, &want);
            assert_eq!(*count, 1);
        }
        other => panic!("expected KernelAbort, got {other}"),
    }
    parallel_for(
        "aborting",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| {
            if i == bad {
                ferrokkos::abort("singular {matrix}");
            }
            y[i] = 2.0;
        }),
    )
    .unwrap();
    match exec.fence("after abort").unwrap_err() {
        Error::KernelAbort { message, .. } => assert_eq!(message, "singular {matrix}"),
        other => panic!("expected KernelAbort, got {other}"),
    }
    let want: Vec<f64> = (0..n).map(|i| if i == bad { 0.0 } else { 2.0 }).collect();
    assert_eq!(host_copy(&y), want);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn an_atomic_division_by_zero_stores_zero_and_is_reported() {
    if !in_own_process(
        module_path!(),
        "an_atomic_division_by_zero_stores_zero_and_is_reported",
    ) {
        return;
    }
    let exec = cuda();
    let n = 8;
    let h = Dev1::<i16>::new("h", [n]).unwrap();
    parallel_for(
        "fill",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| h[i] = 100),
    )
    .unwrap();
    exec.fence("fill").unwrap();
    // Every odd element is divided by zero (a fault, and 0 stored), every even one by 7.
    parallel_for(
        "atomic_divide",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| h.atomic_div(i, if i % 2 == 1 { 0 } else { 7 })),
    )
    .unwrap();
    match exec.fence("atomic_divide").unwrap_err() {
        Error::DeviceArithmetic { kernel, count, .. } => {
            assert!(kernel.contains(file!()), "{kernel}");
            assert_eq!(count, n as u64 / 2);
        }
        other => panic!("{other}"),
    }
    assert_eq!(host_copy(&h), vec![14, 0, 14, 0, 14, 0, 14, 0]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_kernel_proved_for_one_box_is_checked_in_a_box_it_leaves() {
    if !in_own_process(
        module_path!(),
        "a_kernel_proved_for_one_box_is_checked_in_a_box_it_leaves",
    ) {
        return;
    }
    let exec = cuda();
    let n = 1000;
    let x = Dev1::<f64>::new("x", [n]).unwrap();
    let y = Dev1::<f64>::new("y", [n]).unwrap();
    parallel_for(
        "fill x",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| x[i] = 1.0 + i as f64),
    )
    .unwrap();
    let shift = kernel!(|i| y[i] = x[i + 1]);
    // Proved over [0, n - 1): the unchecked entry.
    parallel_for("shift", RangePolicy::new(&exec, 0, n - 1).unwrap(), &shift).unwrap();
    exec.fence("proved").unwrap();
    let expect: Vec<f64> = (0..n)
        .map(|i| if i + 1 < n { 2.0 + i as f64 } else { 0.0 })
        .collect();
    assert_eq!(host_copy(&y), expect);
    // Over [0, n): x[n] is outside, so the launch runs the checked entry, which drops the read
    // (zero) and reports it.
    parallel_for("shift all", RangePolicy::new(&exec, 0, n).unwrap(), &shift).unwrap();
    let e = exec.fence("checked").unwrap_err();
    match &e {
        Error::DeviceOutOfBounds {
            target,
            index,
            extents,
            count,
            ..
        } => {
            assert_eq!(*target, DeviceTarget::View);
            assert_eq!(
                (&index[..], &extents[..]),
                (&[n as u64][..], &[n as u64][..])
            );
            assert_eq!(*count, 1);
        }
        other => panic!("expected DeviceOutOfBounds, got {other}"),
    }
    assert!(e.to_string().contains("parallel_for \"shift all\""), "{e}");
    let mut expect = expect;
    expect[n - 1] = 0.0;
    assert_eq!(host_copy(&y), expect);
    // Proved again: the unchecked entry, no fault.
    parallel_for("shift", RangePolicy::new(&exec, 0, n - 1).unwrap(), &shift).unwrap();
    exec.fence("proved again").unwrap();
    // The same through a `#[device]` function's read: proved over [0, n - 1), checked over
    // [0, n), where its read of x[n] is dropped and reported.
    let through = kernel!(|i| y[i] = next(&x, i));
    parallel_for("next", RangePolicy::new(&exec, 0, n - 1).unwrap(), &through).unwrap();
    exec.fence("next proved").unwrap();
    parallel_for("next all", RangePolicy::new(&exec, 0, n).unwrap(), &through).unwrap();
    let e = exec.fence("next checked").unwrap_err();
    assert!(
        matches!(&e, Error::DeviceOutOfBounds { index, count: 1, .. } if index[..] == [n as u64]),
        "{e}"
    );
    assert!(e.to_string().contains("parallel_for \"next all\""), "{e}");
    assert_eq!(host_copy(&y), expect);
}

/// The element after `i`.
#[device]
fn next(x: &View<f64, 1>, i: usize) -> f64 {
    x[i + 1]
}
