//! `partition_space` on every space: at least one partition is required (Kokkos' rule), every
//! weight must be finite and positive, and a valid request gives one instance per weight; a bad
//! request is an `Err` naming what was wrong, never an empty list.

use ferrokkos::prelude::*;
use ferrokkos::{Error, Result, partition_space, partition_space_with_weights};

/// The message of `r`'s `InvalidArgument` error from `partition_space` (panics on anything else).
fn refusal<T>(r: Result<Vec<T>>, what: &str) -> String {
    match r {
        Err(Error::InvalidArgument {
            operation: "partition_space",
            reason,
        }) => reason,
        Err(other) => panic!("{what}: unexpected error {other}"),
        Ok(parts) => panic!("{what}: accepted, {} instances", parts.len()),
    }
}

fn no_partitions_is_an_error<S: Launch>(exec: &S) -> Result<()> {
    let none = refusal(partition_space_with_weights(exec, &[]), "no weights");
    assert_eq!(
        none,
        "no partitions were requested (no weights); at least one is required"
    );
    let zero = refusal(partition_space(exec, 0), "zero partitions");
    assert_eq!(zero, none);
    // One partition is fine.
    assert_eq!(partition_space(exec, 1)?.len(), 1);
    Ok(())
}
per_space!(no_partitions_is_an_error, no_partitions_is_an_error);

fn weights_that_are_not_finite_and_positive_are_errors<S: Launch>(exec: &S) -> Result<()> {
    let cases: [(&[f64], &str); 7] = [
        (&[1.0, -2.0], "weight 1 is -2"),
        (&[f64::NAN], "weight 0 is NaN"),
        (&[2.0, f64::INFINITY], "weight 1 is inf"),
        (&[f64::NEG_INFINITY, 1.0], "weight 0 is -inf"),
        (&[0.0, 0.0, 0.0], "weight 0 is 0"),
        (&[1.0, 0.0], "weight 1 is 0"),
        (&[-0.0], "weight 0 is -0"),
    ];
    for (weights, named) in cases {
        let reason = refusal(
            partition_space_with_weights(exec, weights),
            &format!("{weights:?}"),
        );
        assert_eq!(
            reason,
            format!("{named}; every weight must be finite and positive"),
            "{weights:?}"
        );
    }
    Ok(())
}
per_space!(
    weights_that_are_not_finite_and_positive_are_errors,
    weights_that_are_not_finite_and_positive_are_errors
);

fn valid_weights_give_one_instance_each<S: Launch>(exec: &S) -> Result<()> {
    let parts = partition_space_with_weights(exec, &[1.0, 3.0, f64::MAX])?;
    assert_eq!(parts.len(), 3);
    let total: usize = parts.iter().map(|p| p.concurrency()).sum();
    assert!(
        parts.iter().all(|p| p.concurrency() >= 1) && total >= 3,
        "{:?}",
        parts.iter().map(|p| p.concurrency()).collect::<Vec<_>>()
    );
    let ids: std::collections::HashSet<u32> = parts.iter().map(|p| p.instance_id()).collect();
    assert_eq!(ids.len(), 3, "distinct instances");
    Ok(())
}
per_space!(
    valid_weights_give_one_instance_each,
    valid_weights_give_one_instance_each
);
