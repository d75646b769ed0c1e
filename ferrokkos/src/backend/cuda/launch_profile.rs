//! A breakdown of the host time of one `parallel_for` launch on Cuda into its steps, printed by an
//! ignored test on the GPU machine (`cargo test --lib launch_profile -- --ignored --nocapture`).
//! It guides the work on launch latency; it asserts nothing about time.

use std::time::Instant;

use super::instance::Cuda;
use crate::backend::gpu::codegen::{self, DevicePattern, UnitOptions};
use crate::backend::gpu::kernels::{JitKey, Wanted};
use crate::kernel::{DeviceKernel, ParamWriter, Slot};
use crate::policy::{Iterate, RangePolicy};
use crate::prelude::*;
use crate::view::kernel_access::{LaunchBorrows, Reach};

/// Times `f` over `m` calls, in nanoseconds per call.
fn per_call(m: usize, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..m {
        f();
    }
    start.elapsed().as_nanos() as f64 / m as f64
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn launch_steps() {
    crate::backend::test_runtime();
    let exec = Cuda::default_instance().unwrap();
    let a = View::<f64, 1, LayoutRight, CudaSpace>::new("a", [1]).unwrap();
    let values = [1.0f64; 200];
    let k = 1usize;
    let kernel = crate::kernel!(|i| {
        for j in 0..k {
            a[i] += 1.0 * i as f64 * values[j];
        }
    });
    let m = 20000;
    let policy = || RangePolicy::new(&exec, 0, 1).unwrap();
    // Warm up (compiles).
    for _ in 0..10 {
        parallel_for("p", policy(), &kernel).unwrap();
    }
    exec.fence("p").unwrap();
    let full = per_call(m, || parallel_for("p", policy(), &kernel).unwrap());
    exec.fence("p").unwrap();
    let dk: &dyn DeviceKernel = &kernel;
    let what = || String::from("profile");
    let borrows = per_call(m, || {
        let b = LaunchBorrows::take(
            |f| dk.device_accesses(f),
            dk.device_is_unsafe(),
            Reach::Device,
            &what,
        )
        .unwrap();
        drop(b);
    });
    let shared = exec.shared();
    let wanted = Wanted {
        key: JitKey {
            kernel: dk.device_key(),
            reducer: "",
            variant: 1 << 3,
        },
        extra: None,
        shared_per_thread: 0,
    };
    let lookup = lookup_time(&exec, dk, wanted, m);
    let (mut params, mut slots) = (Vec::new(), Vec::new());
    let pack = per_call(m, || {
        params.clear();
        slots.clear();
        let mut w = ParamWriter::with_slots(&mut params, &mut slots);
        w.push(0usize);
        w.push(1u64);
        dk.pack_captures(&mut w);
    });
    let alloc = a.allocation();
    let submit = per_call(m, || {
        let mut sub = exec.queue().begin();
        sub.order_after(alloc, true, &what).unwrap();
        sub.finish(std::iter::once(&**alloc));
    });
    let loaded = shared
        .kernels
        .get(&shared.ctx, &shared.info, wanted, || {
            unreachable!("loaded above")
        })
        .unwrap();
    let raw = raw_launch_time(&exec, &loaded.main, &params, &slots, m);
    exec.fence("p").unwrap();
    println!(
        "host ns per call: full parallel_for {full:.0}; steps: borrows {borrows:.0}, kernel lookup \
         {lookup:.0}, packing {pack:.0}, submission (order + stamp) {submit:.0}, bare \
         cuLaunchKernel {raw:.0}; sum of steps {:.0}",
        borrows + lookup + pack + submit + raw
    );
}

/// The time of a kernel cache lookup (a hit) of `wanted`.
fn lookup_time(exec: &Cuda, dk: &dyn DeviceKernel, wanted: Wanted, m: usize) -> f64 {
    let shared = exec.shared();
    per_call(m, || {
        let unit = || {
            codegen::translation_unit(
                &dk.device_body(&[]),
                &DevicePattern::For {
                    iterate: Iterate::Right,
                },
                UnitOptions {
                    index32: true,
                    captures_by_pointer: false,
                    fused_join: true,
                    tiled: false,
                    unsafe_aliasing: false,
                    finalize: false,
                    proven: false,
                },
            )
        };
        std::hint::black_box(
            shared
                .kernels
                .get(&shared.ctx, &shared.info, wanted, unit)
                .unwrap(),
        );
    })
}

/// The time of a bare launch of `main` with the packed `params` and `slots`.
fn raw_launch_time(
    exec: &Cuda,
    main: &super::driver::Function,
    params: &[u8],
    slots: &[Slot],
    m: usize,
) -> f64 {
    let stream = exec.queue().stream();
    per_call(m, || {
        let mut pointers = [std::ptr::null_mut::<std::ffi::c_void>(); 8];
        for (p, s) in pointers.iter_mut().zip(slots) {
            *p = match *s {
                Slot::At(at) => params[at as usize..].as_ptr().cast_mut().cast(),
                Slot::External(ptr) => ptr.cast_mut().cast(),
            };
        }
        // SAFETY: the parameters were packed for this kernel above; `a` is alive and only this
        // test uses it.
        unsafe {
            super::driver::launch_with_pointers(
                main,
                1,
                32,
                0,
                stream,
                &mut pointers[..slots.len()],
                String::new,
            )
            .unwrap()
        };
    })
}
