//! Progress of long work on standard error: a bar that counts a benchmark's repetitions or rows,
//! drawn only when standard error is a terminal and `--quiet` was not given, and cleared when the
//! work is done, so that piped and captured output never holds any of it.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// `--quiet`: no progress at all.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Turns progress off (`--quiet`) or back on.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether progress is drawn: standard error is a terminal and `--quiet` was not given.
fn shown() -> bool {
    !QUIET.load(Ordering::Relaxed) && std::io::stderr().is_terminal()
}

/// A count of `total` steps of `what`, drawn while it lives (where [`shown`]) and cleared when
/// dropped.
pub struct Progress(Option<ProgressBar>);

impl Progress {
    /// Starts counting `total` steps of `what` ("stream: repetitions").
    pub fn new(what: &str, total: u64) -> Progress {
        if !shown() {
            return Progress(None);
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({elapsed})")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(what.to_string());
        Progress(Some(bar))
    }

    /// One more step done.
    pub fn step(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }

    /// Whether this count is drawn.
    #[cfg(test)]
    pub fn is_shown(&self) -> bool {
        self.0.is_some()
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_draws_nothing() {
        set_quiet(true);
        let progress = Progress::new("test", 3);
        progress.step();
        assert!(!progress.is_shown());
        set_quiet(false);
    }
}
