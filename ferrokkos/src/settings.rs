//! [`InitSettings`]: what [`crate::initialize`] sets up, from code, the environment or the command line.

use crate::error::{Error, Result};

/// The settings of one ferrokkos runtime.
///
/// Build them in code, read them from the environment ([`InitSettings::from_env`]) or from the command
/// line ([`InitSettings::from_args`], which reads the environment first and lets arguments override it,
/// as Kokkos does).
///
/// | setting | environment | command line |
/// |---|---|---|
/// | number of threads of the Threads space | `FERROKKOS_NUM_THREADS` (alias `KOKKOS_NUM_THREADS`) | `--kokkos-num-threads=N` |
/// | pin the pool's workers to cores | `FERROKKOS_PIN_THREADS=1` | `--ferrokkos-pin-threads` |
/// | no non-temporal stores in large host copies and fills | `FERROKKOS_STREAMING_STORES=0` | |
/// | host kernels with the build's vector instructions only | `FERROKKOS_WIDE_VECTORS=0` | |
/// | no warnings on standard error (e.g. more threads than cores) | `KOKKOS_DISABLE_WARNINGS=1` | `--kokkos-disable-warnings` |
/// | GPU number | `FERROKKOS_DEVICE` (alias `KOKKOS_DEVICE_ID`) | `--kokkos-device-id=N` |
/// | Kokkos Tools library | `KOKKOS_TOOLS_LIBS` (deprecated `KOKKOS_PROFILE_LIBRARY`) | `--kokkos-tools-libs=PATH` |
/// | arguments for the tool | `KOKKOS_TOOLS_ARGS` | `--kokkos-tools-args="..."` |
/// | go on without a tool library that does not load (a warning) | `FERROKKOS_TOOLS_OPTIONAL=1` | `--ferrokkos-tools-optional` |
/// | Chrome trace of the run | `FERROKKOS_TRACE=path.json` | `--ferrokkos-trace=path.json` |
///
/// ```
/// use ferrokkos::InitSettings;
/// let (settings, rest) =
///     InitSettings::from_args(["prog", "--kokkos-num-threads=3", "-s", "100"]).unwrap();
/// assert_eq!(settings.threads(), Some(3));
/// assert_eq!(rest, ["prog", "-s", "100"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InitSettings {
    num_threads: Option<usize>,
    pin_threads: bool,
    no_streaming_stores: bool,
    no_wide_vectors: bool,
    device_id: Option<usize>,
    map_device_by_rank: bool,
    disable_cuda: bool,
    disable_warnings: bool,
    tools_libs: Option<String>,
    tools_optional: bool,
    tools_args: Option<String>,
    trace: Option<std::path::PathBuf>,
    program: Option<String>,
}

/// Environment variables for the thread count, in order of precedence.
const THREAD_VARS: [&str; 2] = ["FERROKKOS_NUM_THREADS", "KOKKOS_NUM_THREADS"];
const DEVICE_VARS: [&str; 2] = ["FERROKKOS_DEVICE", "KOKKOS_DEVICE_ID"];
/// The variables MPI launchers set to a process's rank on its node, in the order they are read.
const LOCAL_RANK_VARS: [&str; 3] = [
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "MV2_COMM_WORLD_LOCAL_RANK",
    "SLURM_LOCALID",
];

impl InitSettings {
    /// Defaults: as many threads as the process may use, no pinning. Reads nothing from the environment.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the number of threads of the Threads space (the calling thread counts as one of them).
    pub fn num_threads(mut self, n: usize) -> Self {
        self.num_threads = Some(n);
        self
    }

    /// Pins the pool's worker threads to cores (worker `k` to core `k`, counting the caller as 0).
    pub fn pin_threads(mut self, pin: bool) -> Self {
        self.pin_threads = pin;
        self
    }

    /// Whether host `deep_copy` may write large Views with non-temporal (streaming) stores, which
    /// bypass the caches (default: yes, on x86-64, for Views larger than the last-level cache;
    /// `FERROKKOS_STREAMING_STORES=0` turns them off). Only the speed changes.
    pub fn streaming_stores(mut self, on: bool) -> Self {
        self.no_streaming_stores = !on;
        self
    }

    /// Whether host kernels (Serial and Threads) may run a copy of their loops compiled with AVX2
    /// and FMA where the CPU has them (default: yes, on x86-64; `FERROKKOS_WIDE_VECTORS=0` turns it
    /// off, leaving the instructions the program was built for). Only the speed changes: both
    /// copies compute the same bits.
    pub fn wide_vectors(mut self, on: bool) -> Self {
        self.no_wide_vectors = !on;
        self
    }

    /// Uses GPU number `id` (Kokkos' `--kokkos-device-id`); an id the machine does not have is an
    /// error at initialize.
    pub fn device_id(mut self, id: usize) -> Self {
        self.device_id = Some(id);
        self
    }

    /// Chooses the GPU by the process's rank on its node (Kokkos'
    /// `--kokkos-map-device-id-by=mpi_rank`): rank modulo the number of GPUs, the rank read from
    /// `OMPI_COMM_WORLD_LOCAL_RANK`, `MV2_COMM_WORLD_LOCAL_RANK` or `SLURM_LOCALID`. An explicit
    /// [`InitSettings::device_id`] wins.
    pub fn map_device_id_by_mpi_rank(mut self, on: bool) -> Self {
        self.map_device_by_rank = on;
        self
    }

    /// Starts without the Cuda backend even when a GPU is present (`FERROKKOS_DISABLE_CUDA=1`).
    pub fn disable_cuda(mut self, off: bool) -> Self {
        self.disable_cuda = off;
        self
    }

    /// Silences the warnings initialize prints on standard error, such as a thread count above the
    /// hardware threads this process may use (Kokkos' `--kokkos-disable-warnings`,
    /// `KOKKOS_DISABLE_WARNINGS=1`). Errors are still errors.
    pub fn disable_warnings(mut self, off: bool) -> Self {
        self.disable_warnings = off;
        self
    }

    /// Loads the Kokkos Tools library at `path` at initialize (Kokkos' `--kokkos-tools-libs`). As in
    /// Kokkos, a `;`-separated list loads its first entry. A path that cannot be loaded as a Kokkos
    /// Tools library makes [`crate::initialize`] fail with [`Error::ToolLibrary`] (a run asked to be
    /// profiled does not silently run unprofiled; Kokkos warns and goes on instead); to go on
    /// without the tool, initialize again with [`InitSettings::without_tools`], or ask for
    /// Kokkos' behaviour with [`InitSettings::tools_optional`].
    pub fn tools_libs(mut self, path: impl Into<String>) -> Self {
        self.tools_libs = Some(path.into());
        self
    }

    /// With `true`, a tool library that cannot be loaded is a warning on standard error (the
    /// same text as the error) and the run goes on without it, as in Kokkos
    /// (`FERROKKOS_TOOLS_OPTIONAL=1`, `--ferrokkos-tools-optional`). Default: an error.
    pub fn tools_optional(mut self, optional: bool) -> Self {
        self.tools_optional = optional;
        self
    }

    /// Whether a tool library that does not load is only a warning
    /// ([`InitSettings::tools_optional`]).
    pub fn tools_are_optional(&self) -> bool {
        self.tools_optional
    }

    /// The arguments passed to the tool's `kokkosp_parse_args`, split on white space (Kokkos'
    /// `--kokkos-tools-args`).
    pub fn tools_args(mut self, args: impl Into<String>) -> Self {
        self.tools_args = Some(args.into());
        self
    }

    /// Writes a Chrome trace of the run (kernels, copies, fills, fences, regions, memory) to `path`
    /// (`FERROKKOS_TRACE`); `ferrokkos timeline path` draws it.
    pub fn trace(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.trace = Some(path.into());
        self
    }

    /// The same settings with no tool library, tool arguments or trace.
    pub fn without_tools(mut self) -> Self {
        self.tools_libs = None;
        self.tools_args = None;
        self.trace = None;
        self
    }

    /// The Kokkos Tools library to load: the first entry of the `;`-separated list, if any.
    pub fn tools_library(&self) -> Option<&str> {
        let libs = self.tools_libs.as_deref()?;
        Some(libs.split(';').next().unwrap_or(libs))
    }

    /// The arguments for the tool's `kokkosp_parse_args` (without the program name).
    pub fn tools_arguments(&self) -> Vec<String> {
        self.tools_args
            .as_deref()
            .map(|a| {
                a.split([' ', '\t'])
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Where the trace goes, if one was asked for.
    pub fn trace_path(&self) -> Option<&std::path::Path> {
        self.trace.as_deref()
    }

    /// The program's name (the first command-line argument given to [`InitSettings::from_args`],
    /// else the process's own `argv[0]`): `argv[0]` of `kokkosp_parse_args`.
    pub fn program_name(&self) -> String {
        self.program
            .clone()
            .or_else(|| std::env::args().next())
            .unwrap_or_else(|| "ferrokkos".to_string())
    }

    /// The requested GPU number, if any.
    pub fn requested_device(&self) -> Option<usize> {
        self.device_id
    }

    /// Whether the Cuda backend is disabled.
    pub fn cuda_disabled(&self) -> bool {
        self.disable_cuda
    }

    /// Whether initialize's warnings are silenced ([`InitSettings::disable_warnings`]).
    pub fn warnings_disabled(&self) -> bool {
        self.disable_warnings
    }

    /// The warning about oversubscription, when the requested thread count exceeds `hardware`,
    /// the hardware threads this process may use, and warnings are not silenced.
    pub(crate) fn oversubscription_warning(&self, hardware: usize) -> Option<String> {
        let n = self.num_threads?;
        (n > hardware && !self.disable_warnings).then(|| {
            format!(
                "warning: {n} threads asked for the Threads space, but this process may use \
                 {hardware} hardware thread{s}: threads will share cores and every parallel \
                 region waits for the slowest (--kokkos-disable-warnings or \
                 KOKKOS_DISABLE_WARNINGS=1 silences this)",
                s = if hardware == 1 { "" } else { "s" }
            )
        })
    }

    /// The GPU to use among `count`: the requested one (an error if `count` has no such device),
    /// else by local MPI rank when asked, else 0.
    pub fn select_device(&self, count: usize) -> Result<usize> {
        self.select_device_with(count, |name| std::env::var(name).ok())
    }

    fn select_device_with(
        &self,
        count: usize,
        lookup: impl Fn(&str) -> Option<String>,
    ) -> Result<usize> {
        if let Some(id) = self.device_id {
            if id >= count {
                return Err(Error::Setting {
                    name: "device id".into(),
                    value: id.to_string(),
                    reason: format!(
                        "this machine has {count} CUDA device(s), numbered from 0 (after \
                         CUDA_VISIBLE_DEVICES)"
                    ),
                });
            }
            return Ok(id);
        }
        if self.map_device_by_rank && count > 0 {
            for name in LOCAL_RANK_VARS {
                if let Some(value) = lookup(name) {
                    let rank = value.trim().parse::<usize>().map_err(|_| Error::Setting {
                        name: name.to_string(),
                        value: value.clone(),
                        reason: "expected the process's local rank, a non-negative integer".into(),
                    })?;
                    return Ok(rank % count);
                }
            }
        }
        Ok(0)
    }

    /// The requested number of threads, if one was set.
    pub fn threads(&self) -> Option<usize> {
        self.num_threads
    }

    /// Whether worker threads will be pinned.
    pub fn pins_threads(&self) -> bool {
        self.pin_threads
    }

    /// Whether large host copies and fills may use non-temporal stores
    /// ([`InitSettings::streaming_stores`]).
    pub fn uses_streaming_stores(&self) -> bool {
        !self.no_streaming_stores
    }

    /// Whether host kernels may use AVX2 and FMA where the CPU has them
    /// ([`InitSettings::wide_vectors`]).
    pub fn uses_wide_vectors(&self) -> bool {
        !self.no_wide_vectors
    }

    /// The thread count the runtime will use: the requested one, else what the OS allows this process.
    pub fn effective_threads(&self) -> usize {
        self.num_threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// Reads `FERROKKOS_NUM_THREADS` (or its alias `KOKKOS_NUM_THREADS`) and `FERROKKOS_PIN_THREADS`.
    ///
    /// A value that is not a positive integer, or both thread variables set to different values, is an
    /// [`Error::Setting`] naming the variable and its value.
    pub fn from_env() -> Result<Self> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Settings from the environment, then from Kokkos-style command-line arguments, which override it.
    ///
    /// Recognised: `--kokkos-num-threads=N` (also `--kokkos-num-threads N` and the deprecated
    /// `--kokkos-threads=N`) and `--ferrokkos-pin-threads`. Returns the settings and the arguments that
    /// were not consumed, in their order (the program name included, if it was given). Any other
    /// argument starting with `--kokkos-` is an [`Error::Setting`]: ferrokkos does not support it yet, and
    /// silently ignoring it would hide a mistake.
    pub fn from_args<I, S>(args: I) -> Result<(Self, Vec<String>)>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut settings = Self::from_env()?;
        let rest = settings.apply_args(args.into_iter().map(Into::into))?;
        Ok((settings, rest))
    }

    fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self> {
        let mut settings = Self::default();
        let mut found: Option<(&str, String, usize)> = None;
        for name in THREAD_VARS {
            let Some(value) = lookup(name) else { continue };
            let n = parse_threads(name, &value)?;
            match &found {
                Some((first, first_value, m)) if *m != n => {
                    return Err(Error::Setting {
                        name: name.to_string(),
                        value,
                        reason: format!(
                            "conflicts with {first}={first_value:?}; set only one of them"
                        ),
                    });
                }
                Some(_) => {}
                None => found = Some((name, value, n)),
            }
        }
        settings.num_threads = found.map(|(_, _, n)| n);
        let mut device: Option<(&str, String, usize)> = None;
        for name in DEVICE_VARS {
            let Some(value) = lookup(name) else { continue };
            let id = parse_device(name, &value)?;
            match &device {
                Some((first, first_value, d)) if *d != id => {
                    return Err(Error::Setting {
                        name: name.to_string(),
                        value,
                        reason: format!(
                            "conflicts with {first}={first_value:?}; set only one of them"
                        ),
                    });
                }
                Some(_) => {}
                None => device = Some((name, value, id)),
            }
        }
        settings.device_id = device.map(|(_, _, d)| d);
        if let Some(value) = lookup("FERROKKOS_DISABLE_CUDA") {
            settings.disable_cuda = parse_bool("FERROKKOS_DISABLE_CUDA", &value)?;
        }
        if let Some(value) = lookup("FERROKKOS_TOOLS_OPTIONAL") {
            settings.tools_optional = parse_bool("FERROKKOS_TOOLS_OPTIONAL", &value)?;
        }
        if let Some(value) = lookup("KOKKOS_DISABLE_WARNINGS") {
            settings.disable_warnings = parse_bool("KOKKOS_DISABLE_WARNINGS", &value)?;
        }
        if let Some(value) = lookup("FERROKKOS_PIN_THREADS") {
            settings.pin_threads = parse_bool("FERROKKOS_PIN_THREADS", &value)?;
        }
        if let Some(value) = lookup("FERROKKOS_STREAMING_STORES") {
            settings.no_streaming_stores = !parse_bool("FERROKKOS_STREAMING_STORES", &value)?;
        }
        if let Some(value) = lookup("FERROKKOS_WIDE_VECTORS") {
            settings.no_wide_vectors = !parse_bool("FERROKKOS_WIDE_VECTORS", &value)?;
        }
        settings.tools_libs = match (
            lookup("KOKKOS_TOOLS_LIBS"),
            lookup("KOKKOS_PROFILE_LIBRARY"),
        ) {
            (Some(libs), Some(old)) if libs != old => {
                return Err(Error::Setting {
                    name: "KOKKOS_PROFILE_LIBRARY".into(),
                    value: old,
                    reason: format!(
                        "conflicts with KOKKOS_TOOLS_LIBS={libs:?}; KOKKOS_PROFILE_LIBRARY is \
                         deprecated: set only KOKKOS_TOOLS_LIBS"
                    ),
                });
            }
            (Some(libs), _) => Some(libs),
            (None, old) => old,
        }
        .filter(|libs| !libs.is_empty());
        settings.tools_args = lookup("KOKKOS_TOOLS_ARGS");
        settings.trace = lookup("FERROKKOS_TRACE")
            .filter(|p| !p.is_empty())
            .map(Into::into);
        Ok(settings)
    }

    fn apply_args(&mut self, args: impl Iterator<Item = String>) -> Result<Vec<String>> {
        let mut rest = Vec::new();
        let mut args = args.peekable();
        if let Some(program) = args.peek()
            && !program.starts_with("--")
        {
            self.program = Some(program.clone());
        }
        while let Some(arg) = args.next() {
            let Some(flag) = arg.strip_prefix("--") else {
                rest.push(arg);
                continue;
            };
            let (name, inline) = match flag.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (flag, None),
            };
            if !self.apply_flag(name, inline, &mut args)? {
                rest.push(arg);
            }
        }
        Ok(rest)
    }

    /// Applies the flag `--name` (with its `=value` in `inline`, or else its value taken from
    /// `args` where it needs one). False for a flag that is not a Kokkos or ferrokkos option: it
    /// stays among the program's arguments.
    fn apply_flag(
        &mut self,
        name: &str,
        inline: Option<String>,
        args: &mut impl Iterator<Item = String>,
    ) -> Result<bool> {
        let flag = || format!("--{name}");
        match name {
            "kokkos-num-threads" | "kokkos-threads" => {
                let value = flag_value(&flag(), inline, args, "--kokkos-num-threads=4")?;
                self.num_threads = Some(parse_threads(&flag(), &value)?);
            }
            "kokkos-device-id" => {
                let value = flag_value(&flag(), inline, args, "--kokkos-device-id=1")?;
                self.device_id = Some(parse_device(&flag(), &value)?);
            }
            "kokkos-map-device-id-by" => match inline.as_deref() {
                Some("mpi_rank") => self.map_device_by_rank = true,
                other => {
                    return Err(Error::Setting {
                        name: flag(),
                        value: other.unwrap_or_default().to_string(),
                        reason: "supported: --kokkos-map-device-id-by=mpi_rank".into(),
                    });
                }
            },
            "kokkos-tools-libs"
            | "kokkos-tools-library"
            | "kokkos-tools-args"
            | "ferrokkos-trace" => {
                let value = flag_value(&flag(), inline, args, &format!("--{name}=..."))?;
                match name {
                    "kokkos-tools-args" => self.tools_args = Some(value),
                    "ferrokkos-trace" => self.trace = Some(value.into()),
                    _ => self.tools_libs = Some(value),
                }
            }
            "ferrokkos-tools-optional" => self.tools_optional = flag_bool(&flag(), inline)?,
            "kokkos-disable-warnings" => self.disable_warnings = flag_bool(&flag(), inline)?,
            "ferrokkos-pin-threads" => self.pin_threads = flag_bool(&flag(), inline)?,
            _ if name.starts_with("kokkos-") => {
                return Err(Error::Setting {
                    name: flag(),
                    value: inline.unwrap_or_default(),
                    reason: "unknown or unsupported Kokkos option; supported: \
                             --kokkos-num-threads=N, --kokkos-device-id=N, \
                             --kokkos-map-device-id-by=mpi_rank, --kokkos-tools-libs=PATH, \
                             --kokkos-tools-args=ARGS, --kokkos-disable-warnings"
                        .into(),
                });
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The value of the flag `flag`: the one after its `=`, or else the next argument.
fn flag_value(
    flag: &str,
    inline: Option<String>,
    args: &mut impl Iterator<Item = String>,
    example: &str,
) -> Result<String> {
    match inline {
        Some(value) => Ok(value),
        None => args.next().ok_or_else(|| Error::Setting {
            name: flag.to_string(),
            value: String::new(),
            reason: format!("expects a value, e.g. {example}"),
        }),
    }
}

/// The value of the switch `flag`: on when it has no `=value`.
fn flag_bool(flag: &str, inline: Option<String>) -> Result<bool> {
    match inline {
        Some(value) => parse_bool(flag, &value),
        None => Ok(true),
    }
}

fn parse_threads(name: &str, value: &str) -> Result<usize> {
    match value.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(Error::Setting {
            name: name.to_string(),
            value: value.to_string(),
            reason: "expected a positive integer number of threads".into(),
        }),
    }
}

fn parse_device(name: &str, value: &str) -> Result<usize> {
    value.trim().parse::<usize>().map_err(|_| Error::Setting {
        name: name.to_string(),
        value: value.to_string(),
        reason: "expected a device number (0, 1, ...)".into(),
    })
}

fn parse_bool(name: &str, value: &str) -> Result<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" | "" => Ok(false),
        _ => Err(Error::Setting {
            name: name.to_string(),
            value: value.to_string(),
            reason: "expected 1/0, true/false, yes/no or on/off".into(),
        }),
    }
}

#[cfg(test)]
mod tests;
