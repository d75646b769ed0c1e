use super::*;

fn bounds(ranges: &[(i128, i128)]) -> Bounds<'_> {
    Bounds { ranges, bits: 64 }
}

fn overlap(a: Vec<Coord>, b: Option<Vec<Coord>>) -> Vec<Overlap> {
    vec![Overlap {
        view: "y",
        first: ("y[a]", a),
        second: b.map(|b| ("y[b]", b)),
    }]
}

fn what() -> String {
    "parallel_for \"t\" on Serial".to_string()
}

#[test]
fn a_shifted_copy_is_disjoint_exactly_when_the_shift_reaches_past_the_range() {
    // y[i + n] = y[i] over i in 0..n: reads [0, n), writes [n, 2n).
    let n = 100;
    let o = overlap(
        vec![Coord::param(0, 1, n)],
        Some(vec![Coord::param(0, 1, 0)]),
    );
    assert!(check(&o, bounds(&[(0, n)]), &what).is_ok());
    // One more iteration and iteration n reads what iteration 0 wrote.
    let e = check(&o, bounds(&[(0, n + 1)]), &what).unwrap_err();
    assert!(
        matches!(&e, Error::KernelOverlap { first, second, .. } if *first == "y[a]" && *second == "y[b]"),
        "{e}"
    );
    // An empty range proves nothing and needs nothing.
    assert!(check(&o, bounds(&[(5, 5)]), &what).is_ok());
}

#[test]
fn a_halo_column_is_disjoint_from_the_interior_column_it_copies() {
    // f[(i, 0)] = f[(i, last)]: the second coordinates are 0 and last.
    let o = overlap(
        vec![Coord::param(0, 1, 0), Coord::fixed(0, 64)],
        Some(vec![Coord::param(0, 1, 0), Coord::fixed(64, 64)]),
    );
    assert!(check(&o, bounds(&[(1, 65)]), &what).is_ok());
    let same = overlap(
        vec![Coord::param(0, 1, 0), Coord::fixed(3, 64)],
        Some(vec![Coord::param(0, 1, 1), Coord::fixed(3, 64)]),
    );
    assert!(check(&same, bounds(&[(0, 10)]), &what).is_err());
}

#[test]
fn lattices_apart_are_disjoint_whatever_the_range() {
    // Red-black in 1D: write y[2k], read y[2k + 1] (and y[2k - 1]).
    let o = overlap(
        vec![Coord::param(0, 2, 0)],
        Some(vec![Coord::param(0, 2, 1)]),
    );
    assert!(check(&o, bounds(&[(1, 1000)]), &what).is_ok());
    let o = overlap(
        vec![Coord::param(0, 2, 0)],
        Some(vec![Coord::param(0, 2, -1)]),
    );
    assert!(check(&o, bounds(&[(1, 1000)]), &what).is_ok());
    // Same parity: 2k and 2k + 2 meet.
    let o = overlap(
        vec![Coord::param(0, 2, 0)],
        Some(vec![Coord::param(0, 2, 2)]),
    );
    assert!(check(&o, bounds(&[(0, 1000)]), &what).is_err());
    // A fixed element off the lattice: 3k never equals 7 + 3m + 1.
    let o = overlap(vec![Coord::param(0, 3, 0)], Some(vec![Coord::fixed(7, 64)]));
    assert!(check(&o, bounds(&[(0, 1000)]), &what).is_ok());
}

#[test]
fn a_transposed_write_overlaps_on_a_square_and_not_on_disjoint_boxes() {
    // a[(i, j)] and a[(j, i)].
    let o = overlap(
        vec![Coord::param(0, 1, 0), Coord::param(1, 1, 0)],
        Some(vec![Coord::param(1, 1, 0), Coord::param(0, 1, 0)]),
    );
    assert!(check(&o, bounds(&[(0, 4), (0, 4)]), &what).is_err());
    assert!(check(&o, bounds(&[(0, 4), (10, 14)]), &what).is_ok());
}

#[test]
fn indices_that_may_wrap_refuse_the_launch() {
    // 64-bit: beyond 2^63 the kernel's arithmetic wraps.
    let o = overlap(vec![Coord::param(0, 2, 0)], None);
    assert!(check(&o, bounds(&[(0, 1 << 20)]), &what).is_ok());
    assert!(check(&o, bounds(&[(0, 1i128 << 62)]), &what).is_ok());
    assert!(check(&o, bounds(&[(0, (1i128 << 62) + 1)]), &what).is_err());
    // 32-bit: negative values (a wrapped u32 could be in bounds) and values from 2^31 on.
    fn narrow(ranges: &[(i128, i128)]) -> Bounds<'_> {
        Bounds { ranges, bits: 32 }
    }
    let o = overlap(
        vec![Coord::param(0, 1, 5)],
        Some(vec![Coord::param(0, 1, -1)]),
    );
    assert!(check(&o, narrow(&[(0, 3)]), &what).is_err());
    assert!(check(&o, narrow(&[(1, 3)]), &what).is_ok());
    let o = overlap(
        vec![Coord::param(0, 1, 0)],
        Some(vec![Coord::fixed(1 << 31, 32)]),
    );
    assert!(check(&o, narrow(&[(0, 3)]), &what).is_err());
    // A coordinate with no known form constrains nothing: another coordinate must separate.
    let o = overlap(
        vec![Coord::param(0, 1, 0), Coord::Any],
        Some(vec![Coord::param(0, 1, 0), Coord::Any]),
    );
    assert!(check(&o, bounds(&[(0, 3)]), &what).is_err());
}

#[test]
fn a_rank0_write_needs_a_launch_of_one_iteration() {
    let o = vec![Overlap {
        view: "s",
        first: ("s[()]", vec![]),
        second: None,
    }];
    assert!(check(&o, bounds(&[(7, 8)]), &what).is_ok());
    assert!(check(&o, bounds(&[(3, 4), (-2, -1)]), &what).is_ok());
    // No iteration writes nothing.
    assert!(check(&o, bounds(&[(0, 0)]), &what).is_ok());
    let e = check(&o, bounds(&[(0, 2), (0, 3)]), &what).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::KernelSharedWrite {
                view: "s",
                access: "s[()]",
                iterations: 6,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "parallel_for \"t\" on Serial: the kernel writes rank-0 View `s` (`s[()]`), one element \
         for every iteration, but this launch has 6 iterations; write it from a policy of one \
         iteration, as a `parallel_reduce`'s target, or with an atomic (`s.atomic_add((), v)`)"
    );
}

#[test]
fn a_flat_index_is_injective_while_its_row_length_covers_the_inner_range() {
    // a[j * m + i] = .. over (j, i) in [0, 5) x [0, m).
    let m = 16;
    let o = vec![Overlap {
        view: "a",
        first: ("a[j * m + i]", vec![Coord::mixed(&[(0, m), (1, 1)], 0)]),
        second: None,
    }];
    assert!(check(&o, bounds(&[(0, 5), (0, m)]), &what).is_ok());
    // Shifted inner ranges of m points are fine too.
    assert!(check(&o, bounds(&[(2, 5), (3, m + 3)]), &what).is_ok());
    // One i too many and (j, m) meets (j + 1, 0).
    let e = check(&o, bounds(&[(0, 5), (0, m + 1)]), &what).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::KernelOverlap {
                first: "a[j * m + i]",
                ..
            }
        ) && e
            .to_string()
            .contains("needs `m` at least the number of `i`s"),
        "{e}"
    );
    // One row: any inner range.
    assert!(check(&o, bounds(&[(3, 4), (0, 1000)]), &what).is_ok());
    // Three coordinates: k * (n * m) + j * m + i, each coefficient beyond the span below it.
    let three = vec![Overlap {
        view: "a",
        first: ("a[..]", vec![Coord::mixed(&[(0, 60), (1, 10), (2, 1)], 7)]),
        second: None,
    }];
    assert!(check(&three, bounds(&[(0, 4), (0, 6), (0, 10)]), &what).is_ok());
    assert!(check(&three, bounds(&[(0, 4), (0, 7), (0, 10)]), &what).is_err());
    // A coefficient out of range makes the coordinate unknown.
    assert_eq!(Coord::mixed(&[(0, 1 << 62)], 0), Coord::Any);
    assert_eq!(Coord::mixed(&[(6, 1)], 0), Coord::Any);
}

#[test]
fn a_flat_index_that_would_wrap_is_refused() {
    let o = vec![Overlap {
        view: "a",
        first: (
            "a[j * m + i]",
            vec![Coord::mixed(&[(0, 1 << 40), (1, 1)], 0)],
        ),
        second: None,
    }];
    let narrow = Bounds {
        ranges: &[(0, 1 << 30), (0, 4)],
        bits: 64,
    };
    assert!(check(&o, narrow, &what).is_err());
    assert!(check(&o, bounds(&[(0, 1 << 20), (0, 4)]), &what).is_ok());
}
