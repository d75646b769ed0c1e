//! [`Timer`]: wall-clock seconds since a start point (Kokkos' `Timer`).

use std::time::Instant;

/// Seconds elapsed since the timer was made or last [`reset`](Timer::reset) (Kokkos' `Timer`).
///
/// It reads the monotonic clock ([`std::time::Instant`]), so the seconds never decrease, and needs
/// no running ferrokkos. It measures the host's time: fence a GPU instance before reading it to
/// time the instance's work.
///
/// ```
/// use ferrokkos::prelude::*;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let v = View::<f64, 1>::new("v", [1 << 16])?;
/// let mut timer = Timer::new();
/// parallel_for("fill", RangePolicy::new(&exec, 0, 1 << 16)?, kernel!(|i| v[i] = i as f64))?;
/// exec.fence("fill done")?;
/// let fill = timer.seconds();
/// timer.reset(); // start again from now
/// assert!(fill >= 0.0 && timer.seconds() >= 0.0);
/// println!("fill took {fill:.6} s");
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Timer {
    start: Instant,
}

impl Timer {
    /// A timer started now.
    pub fn new() -> Self {
        Timer {
            start: Instant::now(),
        }
    }

    /// Seconds elapsed since the timer was made or last reset.
    pub fn seconds(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Starts the timer again from now.
    pub fn reset(&mut self) {
        self.start = Instant::now();
    }
}

impl Default for Timer {
    /// A timer started now (as [`Timer::new`]).
    fn default() -> Self {
        Timer::new()
    }
}

#[cfg(test)]
mod tests {
    use super::Timer;

    #[test]
    fn seconds_never_decrease() {
        let t = Timer::new();
        let mut last = t.seconds();
        assert!(last >= 0.0);
        for _ in 0..1000 {
            let now = t.seconds();
            assert!(now >= last, "{now} after {last}");
            last = now;
        }
    }

    #[test]
    fn reset_starts_again_from_now() {
        let mut t = Timer::new();
        std::thread::sleep(std::time::Duration::from_millis(1));
        let middle = Timer::new(); // started after `t`
        std::thread::sleep(std::time::Duration::from_millis(1));
        t.reset(); // now `t` started after `middle`
        assert!(t.start > middle.start);
        let (reset, older) = (t.seconds(), middle.seconds());
        assert!(0.0 <= reset && reset <= older, "{reset} vs {older}");
    }

    #[test]
    fn a_later_timer_reads_no_more_than_an_earlier_one() {
        let first = Timer::default();
        let second = Timer::new();
        let (b, a) = (second.seconds(), first.seconds());
        assert!(b <= a, "{b} > {a}");
    }
}
