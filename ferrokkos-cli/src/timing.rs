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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_and_median() {
        let t = Times(vec![3.0, 1.0, 2.0, 10.0]);
        assert_eq!((t.best(), t.median()), (1.0, 2.5));
        assert_eq!(Times(vec![5.0, 4.0, 6.0]).median(), 5.0);
        assert!(Times::default().median().is_nan());
    }
}
