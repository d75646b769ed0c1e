//! Checking an implementation's y against the serial reference.

/// The largest relative error an implementation's y may have.
pub const TOLERANCE: f64 = 1e-12;

/// How the relative error is measured, as printed.
pub const ERROR_FORMULA: &str = "max_i |y_i - ref_i| / max_i |ref_i|";

/// The relative error of `y` against `reference`: `max_i |y_i - ref_i| / max_i |ref_i|` (the
/// max-norm error relative to the reference's max norm, so that rows whose terms cancel do not
/// count more than the others). Infinite when an element is NaN (never written: implementations'
/// y start as NaN) or the lengths differ.
pub fn relative_error(y: &[f64], reference: &[f64]) -> f64 {
    if y.len() != reference.len() {
        return f64::INFINITY;
    }
    let scale = reference
        .iter()
        .fold(0.0f64, |m, r| m.max(r.abs()))
        .max(f64::MIN_POSITIVE);
    let mut worst = 0.0f64;
    for (v, r) in y.iter().zip(reference) {
        let e = (v - r).abs();
        if e.is_nan() {
            return f64::INFINITY;
        }
        worst = worst.max(e);
    }
    worst / scale
}

/// Whether an error is within [`TOLERANCE`].
pub fn passes(error: f64) -> bool {
    error <= TOLERANCE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_are_relative_to_the_largest_reference_element() {
        let r = [4.0, -2.0, 0.0];
        assert_eq!(relative_error(&r, &r), 0.0);
        assert_eq!(relative_error(&[4.0, -2.0, 1e-3], &r), 1e-3 / 4.0);
        assert!(passes(relative_error(&[4.0, -2.0, 1e-12], &r)));
        assert!(!passes(relative_error(&[4.0, -2.0, 1e-11], &r)));
    }

    #[test]
    fn nan_and_a_wrong_length_fail() {
        let r = [1.0, 2.0];
        assert_eq!(relative_error(&[1.0, f64::NAN], &r), f64::INFINITY);
        assert_eq!(relative_error(&[1.0], &r), f64::INFINITY);
        assert!(!passes(f64::INFINITY) && !passes(f64::NAN));
    }
}
