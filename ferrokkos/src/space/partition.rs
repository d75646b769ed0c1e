//! `partition_space`: split an execution space instance into several, by weights.

use super::execution::ExecutionSpace;
use crate::error::{Error, Result};

/// Splits `exec` into `n` instances with equal shares of its resources (Kokkos'
/// `partition_space(exec, 1, 1, ...)`).
///
/// On Threads the instances get disjoint sets of the pool's workers (the thread that dispatches to an
/// instance always takes part in its work); on Serial they are new Serial instances. `n == 0` is an
/// [`Error::InvalidArgument`]: Kokkos requires at least one partition.
///
/// ```
/// use ferrokkos::{ExecutionSpace, InitSettings, Threads, partition_space};
/// let _rt = ferrokkos::initialize(InitSettings::new().num_threads(4))?;
/// let parts = partition_space(&Threads::default_instance()?, 2)?;
/// assert_eq!(parts.iter().map(|p| p.concurrency()).collect::<Vec<_>>(), [2, 2]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn partition_space<E: ExecutionSpace>(exec: &E, n: usize) -> Result<Vec<E>> {
    exec.partition(&vec![1.0; n])
}

/// Splits `exec` into `weights.len()` instances whose shares of its resources are proportional to the
/// weights.
///
/// Errors ([`Error::InvalidArgument`]): no weights (Kokkos requires at least one partition), or a
/// weight that is not finite and positive (negative, zero, NaN or infinite), naming it.
pub fn partition_space_with_weights<E: ExecutionSpace>(
    exec: &E,
    weights: &[f64],
) -> Result<Vec<E>> {
    exec.partition(weights)
}

/// Shares `total` units among `weights`: each share is at least 1 (when `weights.len() <= total`, the
/// shares sum to `total`; otherwise every share is 1), the rest is distributed by largest remainder.
///
/// Every space's `partition` checks its weights here: no weights, or a weight that is not finite and
/// positive, is an [`Error::InvalidArgument`] saying which.
pub(crate) fn split_concurrency(total: usize, weights: &[f64]) -> Result<Vec<usize>> {
    if weights.is_empty() {
        return Err(Error::InvalidArgument {
            operation: "partition_space",
            reason: "no partitions were requested (no weights); at least one is required".into(),
        });
    }
    if let Some((i, w)) = weights
        .iter()
        .enumerate()
        .find(|(_, w)| !(w.is_finite() && **w > 0.0))
    {
        return Err(Error::InvalidArgument {
            operation: "partition_space",
            reason: format!("weight {i} is {w}; every weight must be finite and positive"),
        });
    }
    let n = weights.len();
    if n >= total {
        return Ok(vec![1; n]);
    }
    // Proportional shares, at least 1 each; then fix the sum one unit at a time, where the rounding
    // error is largest. The weights are scaled by the largest first, so their sum cannot overflow.
    let largest = weights.iter().fold(0.0f64, |m, &w| m.max(w));
    let sum: f64 = weights.iter().map(|w| w / largest).sum();
    let exact: Vec<f64> = weights
        .iter()
        .map(|w| total as f64 * (w / largest) / sum)
        .collect();
    let mut shares: Vec<usize> = exact.iter().map(|x| (x.floor() as usize).max(1)).collect();
    let error = |shares: &[usize], i: usize| exact[i] - shares[i] as f64;
    let mut assigned: usize = shares.iter().sum();
    while assigned < total {
        let i = (0..n).fold(0, |best, i| {
            if error(&shares, i) > error(&shares, best) {
                i
            } else {
                best
            }
        });
        shares[i] += 1;
        assigned += 1;
    }
    while assigned > total {
        // The shares sum to more than n here, so one of them exceeds 1.
        let Some(i) = (0..n)
            .filter(|&i| shares[i] > 1)
            .fold(None, |best: Option<usize>, i| match best {
                Some(b) if error(&shares, b) <= error(&shares, i) => Some(b),
                _ => Some(i),
            })
        else {
            break;
        };
        shares[i] -= 1;
        assigned -= 1;
    }
    Ok(shares)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_weights_split_evenly_with_the_remainder_first() {
        assert_eq!(split_concurrency(8, &[1.0; 2]).unwrap(), [4, 4]);
        assert_eq!(split_concurrency(7, &[1.0; 3]).unwrap(), [3, 2, 2]);
        assert_eq!(split_concurrency(2, &[1.0; 2]).unwrap(), [1, 1]);
    }

    #[test]
    fn weights_set_the_proportions() {
        assert_eq!(split_concurrency(10, &[1.0, 3.0]).unwrap(), [3, 7]);
        assert_eq!(split_concurrency(16, &[1.0, 1.0, 2.0]).unwrap(), [4, 4, 8]);
        assert_eq!(split_concurrency(4, &[1.0, 3.0]).unwrap(), [1, 3]);
        assert_eq!(split_concurrency(3, &[1.0, 100.0]).unwrap(), [1, 2]);
        assert_eq!(split_concurrency(4, &[1.0, 1.0, 100.0]).unwrap(), [1, 1, 2]);
    }

    #[test]
    fn more_parts_than_units_gives_one_each() {
        assert_eq!(split_concurrency(2, &[1.0; 5]).unwrap(), [1; 5]);
    }

    #[test]
    fn no_weights_is_an_error() {
        for total in [1, 3] {
            let e = split_concurrency(total, &[]).unwrap_err();
            assert_eq!(
                e.to_string(),
                "partition_space: no partitions were requested (no weights); at least one is \
                 required"
            );
        }
    }

    #[test]
    fn huge_weights_do_not_overflow_their_sum() {
        assert_eq!(split_concurrency(8, &[f64::MAX; 2]).unwrap(), [4, 4]);
        assert_eq!(
            split_concurrency(4, &[f64::MAX, f64::MAX / 3.0]).unwrap(),
            [3, 1]
        );
    }

    #[test]
    fn bad_weights_are_an_error_naming_the_weight() {
        let e = split_concurrency(4, &[1.0, -2.0]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "partition_space: weight 1 is -2; every weight must be finite and positive"
        );
        for (weights, named) in [
            (&[f64::NAN][..], "weight 0 is NaN"),
            (&[1.0, f64::INFINITY], "weight 1 is inf"),
            (&[f64::NEG_INFINITY], "weight 0 is -inf"),
            (&[0.0, 0.0], "weight 0 is 0"),
            (&[2.0, -0.0], "weight 1 is -0"),
        ] {
            let e = split_concurrency(4, weights).unwrap_err().to_string();
            assert!(e.contains(named), "{weights:?}: {e}");
        }
    }
}
