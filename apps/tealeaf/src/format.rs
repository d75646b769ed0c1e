//! Numbers printed as TeaLeaf prints them (C's `%.Ne`: a signed, two-digit-at-least exponent).

/// `value` in scientific notation with `digits` after the point, as C's `%.{digits}e`
/// (`1.575508418327929e+02`).
pub fn sci(value: f64, digits: usize) -> String {
    let text = format!("{value:.digits$e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) => {
            let (sign, magnitude) = match exponent.strip_prefix('-') {
                Some(m) => ('-', m),
                None => ('+', exponent),
            };
            format!("{mantissa}e{sign}{magnitude:0>2}")
        }
        // inf and NaN have no exponent.
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::sci;

    #[test]
    fn like_c() {
        assert_eq!(sci(157.55084183279294, 15), "1.575508418327929e+02");
        assert_eq!(sci(8.754551e-33, 6), "8.754551e-33");
        assert_eq!(sci(0.0, 3), "0.000e+00");
        assert_eq!(sci(-1.5e-300, 2), "-1.50e-300");
        assert_eq!(sci(f64::NAN, 3), "NaN");
    }
}
