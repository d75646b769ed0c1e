//! The timed repetitions of one implementation of a benchmark (`spmv`, `stencil`) and their
//! summary: the fastest one and the median one.

/// The seconds of each timed repetition of one implementation.
#[derive(Debug, Clone, Default)]
pub struct Times(pub Vec<f64>);

impl Times {
    /// The fastest repetition.
    pub fn best(&self) -> f64 {
        self.0.iter().copied().fold(f64::INFINITY, f64::min)
    }

    /// The median repetition: a typical one, robust to the outliers of a shared machine.
    pub fn median(&self) -> f64 {
        let mut sorted = self.0.clone();
        sorted.sort_by(f64::total_cmp);
        match sorted.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => sorted[n / 2],
            n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
        }
    }
}

/// `seconds` as the CSV output prints it: rounded to whole nanoseconds, the resolution of the
/// clock, so that the shortest decimal that reads back as the value stops there (`0.000000576`,
/// not the `0.0000005760000000000001` an average or a median of two repetitions can give).
pub fn csv_seconds(seconds: f64) -> f64 {
    (seconds * 1e9).round() / 1e9
}

/// A rate as the CSV output prints it: rounded to three decimals of its unit (MB/s, GB/s), far
/// below what repetitions agree to, for the same reason as [`csv_seconds`].
pub fn csv_rate(rate: f64) -> f64 {
    (rate * 1e3).round() / 1e3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_numbers_print_without_rounding_noise() {
        let avg = (5.76e-7 + 5.76e-7 + 5.77e-7) / 3.0;
        assert_eq!(format!("{}", csv_seconds(avg)), "0.000000576");
        assert_eq!(format!("{}", csv_seconds(0.1 + 0.2)), "0.3");
        assert_eq!(format!("{}", csv_rate(8000.0 / 3.0)), "2666.667");
        assert_eq!(csv_seconds(2.5), 2.5);
    }

    #[test]
    fn best_and_median() {
        let t = Times(vec![3.0, 1.0, 2.0, 10.0]);
        assert_eq!((t.best(), t.median()), (1.0, 2.5));
        assert_eq!(Times(vec![5.0, 4.0, 6.0]).median(), 5.0);
        assert!(Times::default().median().is_nan());
    }
}
