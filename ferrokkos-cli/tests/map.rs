//! End to end: `ferrokkos map --compare` inserts and looks up keys in an UnorderedMap, a
//! hand-written table and the host peer on the host spaces, checks that their lookup sums agree,
//! and prints each one's time over the UnorderedMap's; zero distinct keys is a usage error.

mod common;

use common::{ferrokkos, ratio, text};

#[test]
fn map_compares_every_way_on_serial_and_threads() {
    for (space, peer) in [("serial", "std HashMap"), ("threads", "dashmap (rayon)")] {
        let out = ferrokkos(&[
            "map",
            "--space",
            space,
            "-n",
            "30000",
            "--distinct",
            "5000",
            "--runs",
            "2",
            "--compare",
        ]);
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{space}: {stdout}\n{stderr}");
        assert!(
            stdout.contains("n = 30000, 5000 distinct keys, 16384 slots, 2 runs"),
            "{stdout}"
        );
        for phase in ["insert", "lookup"] {
            assert_eq!(
                ratio(&stdout, phase, "ferrokkos UnorderedMap"),
                1.0,
                "{stdout}"
            );
            for other in ["ferrokkos hand-written table", peer] {
                let r = ratio(&stdout, phase, other);
                assert!(
                    r.is_finite() && r > 0.0,
                    "{space} {phase} {other}: {stdout}"
                );
            }
        }
    }
}

#[test]
fn map_refuses_zero_distinct_keys() {
    let out = ferrokkos(&["map", "--distinct", "0"]);
    assert_eq!(out.status.code(), Some(2), "{:?}", text(&out));
}
