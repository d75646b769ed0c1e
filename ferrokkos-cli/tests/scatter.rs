//! End to end: `ferrokkos scatter --compare` runs the histogram and the deposition through a
//! ScatterView, atomics and the plain-Rust peer on the host spaces, checks that all agree, and
//! prints each one's time over the ScatterView's; a zero count is a usage error.

mod common;

use common::{ferrokkos, ratio, text};

#[test]
fn scatter_compares_every_way_on_serial_and_threads() {
    for (space, peer) in [("serial", "Rust loop"), ("threads", "rayon fold/reduce")] {
        let out = ferrokkos(&[
            "scatter",
            "--space",
            space,
            "-n",
            "20000",
            "--bins",
            "64",
            "--grid",
            "16",
            "--runs",
            "2",
            "--compare",
        ]);
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{space}: {stdout}\n{stderr}");
        assert!(
            stdout.contains("n = 20000, 64 bins, 16 x 16 grid, 2 runs"),
            "{stdout}"
        );
        for workload in ["histogram", "deposit"] {
            assert_eq!(
                ratio(&stdout, workload, "ferrokkos ScatterView"),
                1.0,
                "{stdout}"
            );
            for other in ["ferrokkos atomics", "ferrokkos UniqueToken rows", peer] {
                let r = ratio(&stdout, workload, other);
                assert!(
                    r.is_finite() && r > 0.0,
                    "{space} {workload} {other}: {stdout}"
                );
            }
        }
    }
}

#[test]
fn scatter_refuses_an_empty_histogram() {
    let out = ferrokkos(&["scatter", "--bins", "0"]);
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
}
