//! End to end: `ferrokkos stencil --compare` runs and validates ferrokkos and its peers on the host
//! spaces, `stream --compare` prints the OpenMP peer's ratios, bad options are usage errors (exit
//! status 2), and Cuda without a usable GPU fails cleanly (exit status 1, with the reason).

mod common;

use common::{ferrokkos, text};

/// Whether this build has the OpenMP peer (it prints a note in its place otherwise).
fn has_openmp(stdout: &str) -> bool {
    !stdout.contains("OpenMP peer skipped: ")
}

/// The comparison row of `kernel`: its two ratios per peer, as numbers.
fn ratios(stdout: &str, kernel: &str) -> Vec<f64> {
    let after = stdout.split("Comparison: ").nth(1).unwrap_or_default();
    let row = after
        .lines()
        .find(|l| l.starts_with(kernel))
        .unwrap_or_default();
    row.split_whitespace()
        .skip(1)
        .map(|r| r.trim_end_matches('x').parse().unwrap())
        .collect()
}

#[test]
fn stencil_peers_validate_and_compare_on_serial_and_threads() {
    for (space, rust_peer, threads) in [
        ("serial", "rust loops", "1 thread)"),
        ("threads", "rayon", "2 threads)"),
    ] {
        let out = ferrokkos(&[
            "stencil",
            "--space",
            space,
            "-n",
            "40",
            "--steps",
            "3",
            "--iters",
            "6",
            "--runs",
            "2",
            "--compare",
        ]);
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{space}: {stdout}\n{stderr}");
        for line in [
            "Grid: 40 x 40 interior cells and one halo layer: 42 x 42 f64",
            "kernel! over a rank-2 MDRangePolicy (",
            threads,
            rust_peer,
            "Validation: passed (every sweep's field equals ferrokkos' bit for bit",
            "Comparison: peer time / ferrokkos time",
        ] {
            assert!(stdout.contains(line), "{space}: no {line:?} in:\n{stdout}");
        }
        let peers = if has_openmp(&stdout) {
            assert!(stdout.contains("C + OpenMP ("), "{stdout}");
            2
        } else {
            1
        };
        for kernel in ["sweep", "cg", "tea"] {
            let r = ratios(&stdout, kernel);
            assert_eq!(r.len(), 2 * peers, "{kernel}: {r:?} in\n{stdout}");
            // (Printed to 3 decimals: a peer run while ferrokkos waited for a preempted thread
            // on a busy machine can show 0.000x.)
            assert!(r.iter().all(|&x| x >= 0.0 && x.is_finite()), "{r:?}");
        }
    }
}

#[test]
fn stencil_without_peers_times_ferrokkos_alone() {
    let out = ferrokkos(&[
        "stencil", "--space", "serial", "-n", "8", "--runs", "1", "--csv",
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let rows: Vec<&str> = stdout.lines().collect();
    assert_eq!(rows.len(), 4, "{stdout}");
    assert!(rows[0].starts_with("implementation,kernel,n,per_run,runs,"));
    assert!(rows[1].starts_with("ferrokkos,sweep,8,10,1,"), "{stdout}");
    assert!(rows[2].starts_with("ferrokkos,cg,8,20,1,"), "{stdout}");
    assert!(rows[3].starts_with("ferrokkos,tea,8,20,1,"), "{stdout}");
}

#[test]
fn stream_compare_prints_the_openmp_ratios() {
    let out = ferrokkos(&[
        "stream",
        "--space",
        "threads",
        "-s",
        "4096",
        "-n",
        "3",
        "--compare",
        "--float",
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    if has_openmp(&stdout) {
        assert!(stdout.contains("Implementation: C + OpenMP ("), "{stdout}");
        assert!(stdout.contains("; 2 threads)"), "{stdout}");
        assert!(stdout.contains("vs OpenMP best"), "{stdout}");
        assert!(!stdout.contains("Validation FAILED"), "{stdout}");
    } else {
        assert!(!stdout.contains("vs OpenMP"), "{stdout}");
    }
}

#[test]
fn bad_options_are_usage_errors() {
    common::usage_errors(
        "stencil",
        &[
            (
                &["-n", "0"],
                "'-n <N>': expected an integer from 1 to 1048576",
            ),
            (
                &["-n", "2000000"],
                "'-n <N>': expected an integer from 1 to 1048576",
            ),
            (
                &["--steps", "0"],
                "'--steps <S>': expected an integer from 1 to",
            ),
            (&["--iters", "x"], "invalid value 'x' for '--iters <I>'"),
            (&["--runs"], "a value is required for '--runs <R>'"),
            (
                &["--space", "gpu"],
                "[possible values: serial, threads, cuda]",
            ),
            (&["--kernel", "sweep"], "unexpected argument '--kernel'"),
        ],
    );
}

#[test]
fn cuda_without_a_gpu_fails_with_the_reason() {
    common::fails_without_cuda(&["stencil", "--space", "cuda", "--compare", "-n", "4"]);
}
