//! Progress of long work on standard error: a bar that counts a benchmark's repetitions or rows,
//! a spinner for work of unknown length (reading a large trace), and a spinner while the GPU's
//! kernels compile on a first run ([`CompileWatch`]). All of it is drawn only when standard error
//! is a terminal and `--quiet` was not given, and cleared when the work is done, so that piped and
//! captured output never holds any of it. The bars share one [`MultiProgress`], so a compilation's
//! spinner and a benchmark's bar are drawn on lines of their own.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

use ferrokkos::profiling::{CompileEvent, CompileStage, compile_events};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

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

/// The lines every bar and spinner of this process is drawn on.
fn lines() -> &'static MultiProgress {
    static LINES: OnceLock<MultiProgress> = OnceLock::new();
    LINES.get_or_init(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()))
}

/// A spinner that turns on its own while `message` holds, added to [`lines`].
fn spinner(message: String) -> ProgressBar {
    let bar = lines().add(ProgressBar::new_spinner());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        bar.set_style(style);
    }
    bar.set_message(message);
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
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
        let bar = lines().add(ProgressBar::new(total));
        if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({elapsed})")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(what.to_string());
        Progress(Some(bar))
    }

    /// A spinner saying `what` is under way, for work whose length is not known.
    pub fn spinner(what: &str) -> Progress {
        Progress(shown().then(|| spinner(what.to_string())))
    }

    /// Says what is under way now.
    pub fn say(&self, what: &str) {
        if let Some(bar) = &self.0 {
            bar.set_message(what.to_string());
        }
    }

    /// Runs `f` (which prints a line on standard error) with the progress lines hidden, so that
    /// the line is not drawn over.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.0 {
            Some(_) => lines().suspend(f),
            None => f(),
        }
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

/// While it lives (where progress is [`shown`]), a spinner on its own line whenever the library
/// compiles GPU kernels (NVRTC, on a first run or after the disk cache was cleared): a program that
/// is silent for seconds before its first result says why. The spinner runs on a thread of its own
/// that reads `ferrokkos::profiling::compile_events`, waking every 25 ms to see whether it should
/// stop; dropping this stops and joins it (so a command ends at most 25 ms later than without).
pub struct CompileWatch(Option<(Arc<AtomicBool>, JoinHandle<()>)>);

impl CompileWatch {
    /// Starts watching, where progress is shown.
    pub fn start() -> CompileWatch {
        if !shown() {
            return CompileWatch(None);
        }
        let events = compile_events();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let watcher = std::thread::Builder::new()
            .name("compile progress".into())
            .spawn(move || {
                let mut state = Compiling::default();
                while !stopped.load(Ordering::Relaxed) {
                    match events.recv_timeout(Duration::from_millis(25)) {
                        Ok(event) => state.see(&event),
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                }
                state.clear();
            });
        CompileWatch(watcher.ok().map(|handle| (stop, handle)))
    }
}

impl Drop for CompileWatch {
    fn drop(&mut self) {
        if let Some((stop, handle)) = self.0.take() {
            stop.store(true, Ordering::Relaxed);
            let _ = handle.join();
        }
    }
}

/// What the compile spinner shows: the compilations under way and those done.
#[derive(Default)]
struct Compiling {
    /// Compilations started and not yet ended.
    running: usize,
    /// Compilations ended (finished or failed).
    done: usize,
    /// The spinner, while a compilation runs.
    bar: Option<ProgressBar>,
}

impl Compiling {
    /// Takes one event into account and redraws.
    fn see(&mut self, event: &CompileEvent) {
        match event.stage {
            CompileStage::Started => self.running += 1,
            _ => {
                self.running = self.running.saturating_sub(1);
                self.done += 1;
            }
        }
        if self.running == 0 {
            self.clear();
            return;
        }
        let message = self.message(&event.target);
        match &self.bar {
            Some(bar) => bar.set_message(message),
            None => self.bar = Some(spinner(message)),
        }
    }

    /// The spinner's line.
    fn message(&self, target: &str) -> String {
        let done = match self.done {
            0 => String::new(),
            n => format!(", {n} done"),
        };
        format!(
            "compiling GPU kernels for {target} with NVRTC: {} under way{done} (first run only; \
             later runs load them from the disk cache)",
            self.running
        )
    }

    /// Removes the spinner.
    fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
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

    #[test]
    fn the_compile_line_counts_compilations_under_way_and_done() {
        let event = |stage| CompileEvent {
            program: "k.cu".into(),
            target: "sm_90".into(),
            stage,
        };
        let mut state = Compiling::default();
        state.see(&event(CompileStage::Started));
        state.see(&event(CompileStage::Started));
        assert_eq!((state.running, state.done), (2, 0));
        assert!(state.message("sm_90").starts_with(
            "compiling GPU kernels for sm_90 with NVRTC: 2 under way (first run only"
        ));
        let elapsed = Duration::from_millis(5);
        state.see(&event(CompileStage::Finished { elapsed }));
        assert!(state.message("sm_90").contains(": 1 under way, 1 done ("));
        state.see(&event(CompileStage::Failed { elapsed }));
        assert_eq!((state.running, state.done), (0, 2));
        assert!(state.bar.is_none(), "nothing under way: no spinner");
    }

    #[test]
    fn quiet_watches_no_compilation() {
        set_quiet(true);
        assert!(CompileWatch::start().0.is_none());
        set_quiet(false);
    }
}
