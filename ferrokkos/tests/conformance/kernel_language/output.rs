//! Output and aborts in kernels: `print!` / `println!` / `eprint!` / `eprintln!` (Kokkos'
//! `printf`) run on every space with Rust's own macro on the host and one C `printf` with the
//! equivalent conversions on the GPU (the C++ text is checked exactly, and compiled by NVRTC and
//! hiprtc); `panic!("message")` (Kokkos' `abort`) unwinds out of a launch on the host spaces with
//! its message. The GPU's side of a panic (an `Err` at the next wait) is in `tests/cuda/fault.rs`.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::common::{check_device_code, runtime};
use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Result, Serial, Threads, kernel};

/// A `#[device]` function that reports a bad argument before going on.
#[ferrokkos::device]
fn checked_sqrt(x: f64) -> f64 {
    if x < 0.0 {
        panic!("checked_sqrt: negative argument");
    }
    x.sqrt()
}

/// A `#[device]` function whose panic names its argument.
#[ferrokkos::device]
fn checked_log(x: f64) -> f64 {
    if x <= 0.0 {
        panic!("checked_log: {} is not positive", x);
    }
    x.ln()
}

/// A kernel that prints (one line per iteration, of every kind of scalar) computes what the same
/// kernel without the print does: printing changes no value.
fn printing_kernels_compute_their_values<S: Launch>(exec: &S) -> Result<()> {
    let n = 4;
    let x = upload::<S, f64>("x", &[0.5, 1.0, 2.5, -4.0])?;
    let y = SView::<S, f64, 1>::new("y", [n])?;
    parallel_for(
        "printing",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let v = x[i] * 2.0;
            let big = v > 1.0;
            println!("i={} v={:.3} big={} bits={:x}", i, v, big, i as u8);
            eprint!("{i}:{v:?}|");
            y[i] = v;
        }),
    )?;
    assert_eq!(download(&y)?, vec![1.0, 2.0, 5.0, -8.0]);
    Ok(())
}

per_space!(
    printing_kernels_compute_their_values,
    printing_kernels_compute_their_values
);

/// The C `printf` of each conversion: 64-bit integers through `%lld` / `%llu`, `bool` as
/// `true` / `false`, floats through `%g` (`{}`), `%.3f` (`{:.3}`), Rust's `{:?}` point and `{:e}`
/// exponent, integers' bits in their own width (`{:x}`), flags and widths, and `%` escaped.
#[test]
fn println_becomes_one_printf_with_rusts_conversions() -> Result<()> {
    runtime();
    let out = View::<f64, 1>::new("out", [8])?;
    let k = kernel!(|i| {
        let v = out[i];
        let small = i as i8 - 3;
        let ok = v > 0.0;
        println!("100% i={} v={:.3} ok={}", i, v, ok);
        print!(
            "{:?} {:e} {:.2E} {:x} {:X} {:o}",
            v, v, v, small, i as u32, i
        );
        eprintln!("[{:>6}] [{:<4}] [{:+08.2}] [{:5}] {{x}}", i, small, v, ok);
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    for want in [
        r#"printf("100%% i=%llu v=%.3f ok=%s\n", (unsigned long long)(i), (f64)(v), fk::fmt_bool(ok));"#,
        concat!(
            r#"printf("%g%s %g%.*s%.*d %.2f%.*s%.*d %llx %llX %llo", (f64)(v), "#,
            r#"fk::fmt_point((f64)(v)), fk::fmt_mantissa((f64)(v), -1), fk::fmt_finite((f64)(v)), "#,
            r#""e", fk::fmt_finite((f64)(v)), fk::fmt_exponent((f64)(v), -1), "#,
            r#"fk::fmt_mantissa((f64)(v), 2), fk::fmt_finite((f64)(v)), "E", "#,
            r#"fk::fmt_finite((f64)(v)), fk::fmt_exponent((f64)(v), 2), "#,
            r#"(unsigned long long)(u8)(small), (unsigned long long)(u32)(u32(i)), "#,
            r#"(unsigned long long)(u64)(i));"#
        ),
        concat!(
            r#"printf("[%6llu] [%-4lld] [%+08.2f] [%-5s] {x}\n", (unsigned long long)(i), "#,
            r#"(long long)(small), (f64)(v), fk::fmt_bool(ok));"#
        ),
    ] {
        assert!(text.contains(want), "missing\n{want}\nin\n{text}");
    }
    check_device_code(&tu);
    Ok(())
}

/// `panic!` on the GPU records its message and ends the iteration in a kernel; in a `#[device]`
/// function the thread goes on (the function still returns its value). Both compile.
#[test]
fn panic_records_its_message_on_the_gpu() -> Result<()> {
    runtime();
    let y = View::<f64, 1>::new("y", [8])?;
    let k = kernel!(|i| {
        if i == 3 {
            panic!("bad \"row\" 3: 100%\n");
        }
        y[i] = checked_sqrt(i as f64);
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(
        text.contains("fk::detail::panic_fault(\"bad \\\"row\\\" 3: 100%\\n\");\n")
            && text.contains("return;"),
        "{text}"
    );
    assert!(
        text.contains("fk::detail::panic_fault(\"checked_sqrt: negative argument\");"),
        "{text}"
    );
    check_device_code(&tu);
    Ok(())
}

/// The panic of a kernel on a host space: its payload, as `catch_unwind` sees it.
fn panic_message<S: Launch>(exec: &S) -> String {
    let y = SView::<S, f64, 1>::new("y", [100]).expect("a View");
    let caught = catch_unwind(AssertUnwindSafe(|| {
        parallel_for(
            "aborting",
            RangePolicy::new(exec, 0, 100).expect("a policy"),
            kernel!(|i| {
                if i == 57 {
                    panic!("row 57 is singular");
                }
                y[i] = 1.0;
            }),
        )
    }));
    let payload = caught.expect_err("the kernel's panic unwinds out of the launch");
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// On Serial, `panic!` in a kernel is Rust's panic, with its message.
#[test]
fn panic_in_a_kernel_unwinds_on_serial() -> Result<()> {
    runtime();
    assert_eq!(
        panic_message(&Serial::default_instance()?),
        "row 57 is singular"
    );
    Ok(())
}

/// On Threads, the panic of a pool worker's iteration reaches the caller with its message, and
/// the pool runs the next launch.
#[test]
fn panic_in_a_kernel_unwinds_on_threads_and_the_pool_goes_on() -> Result<()> {
    runtime();
    let exec = Threads::default_instance()?;
    assert!(
        panic_message(&exec).contains("row 57 is singular"),
        "the panic's message is kept"
    );
    let y = SView::<Threads, u64, 1>::new("y", [1000])?;
    parallel_for(
        "after",
        RangePolicy::new(&exec, 0, 1000)?,
        kernel!(|i| y[i] = i as u64),
    )?;
    assert_eq!(download(&y)?, (0..1000).collect::<Vec<u64>>());
    Ok(())
}

/// The payload of a kernel's panic with arguments (`panic!` with a format) or Kokkos' spelling
/// (`abort("..")`), as `catch_unwind` sees it.
fn formatted_panic_message<S: Launch>(exec: &S, spelling: u8) -> String {
    let x = upload::<S, f64>("x", &[0.5, 1.0, 2.5, -4.25]).expect("a View");
    let n = 4usize;
    let caught = catch_unwind(AssertUnwindSafe(|| {
        parallel_for(
            "aborting",
            RangePolicy::new(exec, 0, n).expect("a policy"),
            kernel!(|i| {
                if x[i] < 0.0 {
                    if spelling == 0 {
                        panic!(
                            "row {} of {n}: {:>8.2} ({:?}, {:x})",
                            i,
                            x[i],
                            x[i] < 0.0,
                            i as u8
                        );
                    } else {
                        abort("a negative {entry}");
                    }
                }
            }),
        )
    }));
    let payload = caught.expect_err("the kernel's panic unwinds out of the launch");
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// On Serial and Threads, `panic!` with arguments is Rust's panic with its formatted message, and
/// `abort("..")` (Kokkos' spelling) panics with its text (braces are text there).
#[test]
fn formatted_panics_and_aborts_unwind_with_their_messages_on_the_host_spaces() -> Result<()> {
    runtime();
    let serial = Serial::default_instance()?;
    let threads = Threads::default_instance()?;
    let want = format!("row {} of {}: {:>8.2} ({:?}, {:x})", 3, 4, -4.25, true, 3u8);
    assert_eq!(want, "row 3 of 4:    -4.25 (true, 3)");
    assert_eq!(formatted_panic_message(&serial, 0), want);
    assert_eq!(formatted_panic_message(&threads, 0), want);
    assert_eq!(formatted_panic_message(&serial, 1), "a negative {entry}");
    assert_eq!(formatted_panic_message(&threads, 1), "a negative {entry}");
    Ok(())
}

/// A user's own diverging `abort(&str)`: what a kernel's `mine::abort("..")` calls on the host.
mod mine {
    pub fn abort(message: &str) -> ! {
        panic!("own: {message}")
    }
}

#[test]
fn abort_calls_the_function_its_path_names_on_the_host() -> Result<()> {
    runtime();
    let exec = Serial::default_instance()?;
    let caught = catch_unwind(AssertUnwindSafe(|| {
        parallel_for(
            "aborting",
            RangePolicy::new(&exec, 0, 4).expect("a policy"),
            kernel!(|i| {
                if i == 2 {
                    mine::abort("stop");
                }
            }),
        )
    }));
    let payload = caught.expect_err("the kernel aborted");
    assert_eq!(
        payload.downcast_ref::<String>().map(String::as_str),
        Some("own: stop")
    );
    Ok(())
}

/// On the GPU, `panic!` with arguments records a template and the arguments' bits (the host
/// writes the message with Rust's formatting); `abort("..")` records its text as `panic!` does.
#[test]
fn formatted_panics_record_a_template_and_the_values_on_the_gpu() -> Result<()> {
    runtime();
    let y = View::<f32, 1>::new("y", [8])?;
    let k = kernel!(|i| {
        let v = y[i];
        if v < 0.0 {
            panic!("row {i}: {:+.3e} is {}, {:?} [{{}}]", v, v < -1.0, v);
        }
        if v > 100.0 {
            ferrokkos::abort("too {large}");
        }
        y[i] = v * 2.0 + checked_log(v as f64) as f32;
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    for want in [
        "fk::detail::panic_fault_args(\"row \\0013u8\\002: \\0010f4+.3e\\002 is \\0011b1\\002, \\0012f4?\\002 [{}]\", 4u, fk_panic_args);",
        "fk::detail::panic_bits(",
        "fk::detail::panic_fault(\"too {large}\");",
        "fk::detail::panic_fault_args(\"checked_log: \\0010f8\\002 is not positive\", 1u, fk_panic_args); }",
    ] {
        assert!(text.contains(want), "missing\n{want}\nin\n{text}");
    }
    check_device_code(&tu);
    Ok(())
}
