//! A simple profiler: wallclock per kernel function and per phase of the run (start-up, solve,
//! halo exchange, field summary), printed at the end with `profiler_on` or `--profile`.
//!
//! Launches on Cuda are asynchronous, so while profiling each timed call ends with a fence of
//! the chunk's instance (without profiling nothing is fenced, and nothing is timed but steps).

use std::time::Instant;

/// The phases the run's time is split into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Allocation, mesh and state set-up, kernel preparation, the first halo exchange.
    StartUp,
    /// The solvers' kernels (initialisation, iterations, residual, finalisation).
    Solve,
    /// Reflective halo updates.
    Halo,
    /// Field summaries (reductions over the mesh).
    Summary,
    /// Talking to the other ranks: global sums and halo messages (the packing is `Halo`).
    Comms,
}

impl Phase {
    /// Every phase, in print order.
    pub const ALL: [Phase; 5] = [
        Phase::StartUp,
        Phase::Solve,
        Phase::Halo,
        Phase::Summary,
        Phase::Comms,
    ];

    /// The phase's name.
    pub fn name(self) -> &'static str {
        match self {
            Phase::StartUp => "start-up",
            Phase::Solve => "solve",
            Phase::Halo => "halo",
            Phase::Summary => "summary",
            Phase::Comms => "comms",
        }
    }
}

/// The time of one named kernel function.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The kernel function (TeaLeaf's names).
    pub name: &'static str,
    /// Its phase.
    pub phase: Phase,
    /// How often it ran.
    pub calls: usize,
    /// Its total wallclock in seconds.
    pub seconds: f64,
}

/// The profile of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// Whether calls are timed (and fenced).
    pub enabled: bool,
    /// One entry per kernel function, in order of first call.
    pub entries: Vec<Entry>,
}

impl Profile {
    /// A profile that times when `enabled`.
    pub fn new(enabled: bool) -> Profile {
        Profile {
            enabled,
            entries: Vec::new(),
        }
    }

    /// Adds `seconds` to the entry `name`.
    pub fn record(&mut self, name: &'static str, phase: Phase, seconds: f64) {
        match self.entries.iter_mut().find(|e| e.name == name) {
            Some(e) => {
                e.calls += 1;
                e.seconds += seconds;
            }
            None => self.entries.push(Entry {
                name,
                phase,
                calls: 1,
                seconds,
            }),
        }
    }

    /// The total seconds of a phase.
    pub fn phase_seconds(&self, phase: Phase) -> f64 {
        self.entries
            .iter()
            .filter(|e| e.phase == phase)
            .fold(0.0, |total, e| total + e.seconds)
    }

    /// The table printed at the end of a profiled run.
    pub fn report(&self, wallclock: f64) -> String {
        let mut out = String::new();
        out += "\n -------------------------------------------------------------\n";
        out += "\n Profiling Results:\n\n";
        out += &format!(
            " {:<30}{:>8}{:>20}\n",
            "Kernel Name", "Calls", "Runtime (s)"
        );
        for e in &self.entries {
            out += &format!(" {:<30}{:>8}{:>20.3}\n", e.name, e.calls, e.seconds);
        }
        out += &format!("\n {:<30}{:>28}\n", "Phase", "Runtime (s)");
        for phase in Phase::ALL {
            out += &format!(" {:<30}{:>28.3}\n", phase.name(), self.phase_seconds(phase));
        }
        out += &format!(" {:<30}{:>28.3}\n", "wallclock (steps)", wallclock);
        out += "\n -------------------------------------------------------------\n";
        out
    }
}

/// A started timer; [`Timer::seconds`] is the time since.
#[derive(Clone, Copy, Debug)]
pub struct Timer(Instant);

impl Timer {
    /// Starts a timer.
    pub fn start() -> Timer {
        Timer(Instant::now())
    }

    /// Seconds since the start.
    pub fn seconds(&self) -> f64 {
        self.0.elapsed().as_secs_f64()
    }
}
