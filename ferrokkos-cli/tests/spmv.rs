//! End to end: `ferrokkos spmv` runs and validates every implementation on the host spaces, bad
//! sizes are usage errors (exit status 2), and Cuda without a usable GPU fails cleanly (exit
//! status 1, with the reason).

mod common;

use std::process::Output;

use common::text;

/// Runs `ferrokkos spmv ARGS` on two threads.
fn spmv(args: &[&str]) -> Output {
    common::ferrokkos(&[&["spmv"][..], args].concat())
}

#[test]
fn threads_with_peers_validate_and_compare() {
    let out = spmv(&[
        "--space",
        "threads",
        "--compare",
        "--size",
        "12",
        "--runs",
        "3",
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    for line in [
        "ferrokkos range",
        "ferrokkos team",
        "plain loop",
        "rayon",
        "Validation: passed",
        "Comparison: peer time / ferrokkos time",
        "nnz*(8+4) + (rows+1)*4 + rows*8*2",
        "1728 rows, 11232 nonzeros",
    ] {
        assert!(stdout.contains(line), "no {line:?} in:\n{stdout}");
    }
}

#[test]
fn serial_without_peers_runs_both_ferrokkos_lines() {
    let out = spmv(&["--space", "serial", "--size", "7", "--runs", "2"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("ferrokkos Serial RangePolicy"), "{stdout}");
    assert!(stdout.contains("ferrokkos Serial TeamPolicy"), "{stdout}");
    assert!(
        !stdout.contains("rayon") && !stdout.contains("Comparison"),
        "{stdout}"
    );
    assert!(stdout.contains("Validation: passed"), "{stdout}");
}

#[test]
fn bad_sizes_and_runs_are_usage_errors() {
    let size = "'--size <N>': expected an integer from 1 to 674";
    common::usage_errors(
        "spmv",
        &[
            (&["--size", "0"], size),
            (&["--size", "675"], size),
            (&["--size", "-1"], size),
            (&["--size", "lots"], size),
            (
                &["--runs", "0"],
                "'--runs <K>': expected a positive integer",
            ),
            (
                &["--space", "gpu"],
                "[possible values: serial, threads, cuda]",
            ),
            (&["--bogus"], "unexpected argument '--bogus'"),
        ],
    );
}

#[test]
fn cuda_without_a_gpu_fails_with_the_reason() {
    common::fails_without_cuda(&["spmv", "--space", "cuda", "--compare", "--size", "4"]);
}
