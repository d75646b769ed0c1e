//! End to end: `ferrokkos sort --compare` on the host spaces sorts keys, pairs and keys by a
//! comparator with ferrokkos and with the rayon (std) peers, checks every result, and prints each
//! one's time over ferrokkos' of its kind; `--no-comparator` leaves the comparator's rows out.

mod common;

use common::{ferrokkos, text};

/// The last column (time over ferrokkos') of the first row whose name starts with `name`.
fn ratio_of(stdout: &str, name: &str) -> f64 {
    let row = stdout
        .lines()
        .find(|l| l.trim_start().starts_with(name))
        .unwrap_or_else(|| panic!("no row {name}: {stdout}"));
    row.split_whitespace().last().unwrap().parse().unwrap()
}

#[test]
fn sort_compares_every_kind_on_serial_and_threads() {
    for (space, name, peers) in [
        (
            "serial",
            "Serial",
            ["std sort_unstable", "std sort_by_key", "std sort_by"],
        ),
        (
            "threads",
            "Threads",
            [
                "rayon par_sort_unstable",
                "rayon par_sort_by_key",
                "rayon par_sort_by",
            ],
        ),
    ] {
        let args = [
            "sort",
            "--space",
            space,
            "-n",
            "30000",
            "--runs",
            "2",
            "--compare",
        ];
        let out = ferrokkos(&args);
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{space}: {stdout}\n{stderr}");
        assert!(
            stdout.contains("n = 30000 uniform random u32 keys"),
            "{stdout}"
        );
        for (kind, peer) in ["sort", "sort_by_key", "sort_with (a < b)"]
            .iter()
            .zip(peers)
        {
            let ours = format!("ferrokkos {name} {kind} (");
            assert_eq!(ratio_of(&stdout, &ours), 1.0, "{stdout}");
            let r = ratio_of(&stdout, peer);
            assert!(r.is_finite() && r > 0.0, "{space} {peer}: {stdout}");
        }
    }
    let out = ferrokkos(&[
        "sort",
        "--space",
        "serial",
        "-n",
        "1000",
        "--runs",
        "1",
        "--no-comparator",
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains(" sort_by_key ("), "{stdout}");
    assert!(!stdout.contains("sort_with"), "{stdout}");
}
