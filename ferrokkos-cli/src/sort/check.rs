//! The keys' generator and the check of a sort's output: the keys in order and a permutation of
//! the input; for pairs, each value the original index of its key, every index once, and, for a
//! stable sort, equal keys in input order (increasing values).

use super::Sorted;
use crate::Failure;

/// One step of splitmix64 (Steele, Lea and Flood; the seeding generator of the xoshiro family):
/// advances `state` and returns its next output.
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A fingerprint of the multiset of `keys`: the wrapping sum of a 64-bit hash of each, the same
/// for every order of the same keys, and different (but for a 2^-64 chance) for other keys.
fn fingerprint(keys: &[u32]) -> u64 {
    keys.iter().fold(0u64, |sum, &k| {
        let mut state = u64::from(k);
        sum.wrapping_add(splitmix64(&mut state))
    })
}

/// The first index `i` with `keys[i] > keys[i + 1]`, if any.
fn first_out_of_order(keys: &[u32]) -> Option<usize> {
    keys.windows(2).position(|w| w[0] > w[1])
}

/// Checks the output of `name` (stable or not) against the unsorted keys `original`.
pub fn check(name: &str, stable: bool, original: &[u32], out: &Sorted) -> Result<(), Failure> {
    let wrong = |what: String| Err(Failure::Run(format!("sort: {name}: {what}")));
    let keys = &out.keys;
    if keys.len() != original.len() {
        return wrong(format!("{} keys out of {}", keys.len(), original.len()));
    }
    if let Some(i) = first_out_of_order(keys) {
        return wrong(format!(
            "keys out of order: [{i}] = {} > [{}] = {}",
            keys[i],
            i + 1,
            keys[i + 1]
        ));
    }
    match &out.values {
        None if fingerprint(keys) != fingerprint(original) => {
            wrong("the keys are not a permutation of the input".into())
        }
        None => Ok(()),
        Some(values) => check_values(original, keys, values, stable).or_else(wrong),
    }
}

/// For sorted pairs (`keys` in order): every value an index of `original` once, the key beside it
/// the original key at that index, and, if `stable`, increasing values under equal keys.
fn check_values(
    original: &[u32],
    keys: &[u32],
    values: &[u32],
    stable: bool,
) -> Result<(), String> {
    if values.len() != keys.len() {
        return Err(format!("{} values for {} keys", values.len(), keys.len()));
    }
    let mut seen = vec![false; original.len()];
    for (i, (&k, &v)) in keys.iter().zip(values).enumerate() {
        let at = v as usize;
        match seen.get_mut(at) {
            None => return Err(format!("value [{i}] = {v} is no index of the input")),
            Some(true) => return Err(format!("value [{i}] = {v} appears twice")),
            Some(s) => *s = true,
        }
        if original[at] != k {
            return Err(format!(
                "key [{i}] = {k} beside value {v}, whose key was {}",
                original[at]
            ));
        }
    }
    if stable {
        let unstable =
            (1..keys.len()).find(|&i| keys[i - 1] == keys[i] && values[i - 1] > values[i]);
        if let Some(i) = unstable {
            return Err(format!(
                "not stable: equal keys {} with values [{}] = {} > [{i}] = {}",
                keys[i],
                i - 1,
                values[i - 1],
                values[i]
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message of a failed check.
    fn failure(stable: bool, original: &[u32], keys: &[u32], values: Option<&[u32]>) -> String {
        let out = Sorted {
            keys: keys.to_vec(),
            values: values.map(<[u32]>::to_vec),
        };
        match check("t", stable, original, &out) {
            Err(Failure::Run(msg)) => msg,
            other => panic!("{keys:?} {values:?}: {other:?}"),
        }
    }

    #[test]
    fn splitmix64_gives_its_reference_outputs() {
        // The first outputs from seed 1234567 of the reference implementation (Vigna's C).
        let mut state = 1_234_567;
        assert_eq!(splitmix64(&mut state), 6_457_827_717_110_365_317);
        assert_eq!(splitmix64(&mut state), 3_203_168_211_198_807_973);
    }

    #[test]
    fn sorted_keys_and_stable_pairs_pass() {
        let original = [5, 3, 5, 0];
        let ok = |stable, keys: &[u32], values: Option<&[u32]>| {
            let out = Sorted {
                keys: keys.to_vec(),
                values: values.map(<[u32]>::to_vec),
            };
            check("t", stable, &original, &out).is_ok()
        };
        assert!(ok(true, &[0, 3, 5, 5], None));
        assert!(ok(true, &[0, 3, 5, 5], Some(&[3, 1, 0, 2])));
        assert!(ok(false, &[0, 3, 5, 5], Some(&[3, 1, 2, 0])));
    }

    #[test]
    fn wrong_outputs_fail_with_why() {
        let original = [5, 3, 5, 0];
        let e = failure(true, &original, &[0, 5, 3, 5], None);
        assert_eq!(e, "sort: t: keys out of order: [1] = 5 > [2] = 3");
        let e = failure(true, &original, &[0, 3, 3, 5], None);
        assert!(e.contains("not a permutation"), "{e}");
        let e = failure(true, &original, &[0, 3, 5], None);
        assert!(e.contains("3 keys out of 4"), "{e}");
        let e = failure(true, &original, &[0, 3, 5, 5], Some(&[3, 1, 2, 0]));
        assert!(e.contains("not stable: equal keys 5"), "{e}");
        let e = failure(false, &original, &[0, 3, 5, 5], Some(&[3, 1, 0, 0]));
        assert!(e.contains("value [3] = 0 appears twice"), "{e}");
        let e = failure(false, &original, &[0, 3, 5, 5], Some(&[3, 1, 0, 9]));
        assert!(e.contains("no index"), "{e}");
        let e = failure(false, &original, &[0, 3, 5, 5], Some(&[3, 0, 1, 2]));
        assert!(
            e.contains("key [1] = 3 beside value 0, whose key was 5"),
            "{e}"
        );
    }
}
