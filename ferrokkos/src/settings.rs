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
/// | GPU number | `FERROKKOS_DEVICE` (alias `KOKKOS_DEVICE_ID`) | `--kokkos-device-id=N` |
/// | Kokkos Tools library | `KOKKOS_TOOLS_LIBS` (deprecated `KOKKOS_PROFILE_LIBRARY`) | `--kokkos-tools-libs=PATH` |
/// | arguments for the tool | `KOKKOS_TOOLS_ARGS` | `--kokkos-tools-args="..."` |
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
    device_id: Option<usize>,
    map_device_by_rank: bool,
    disable_cuda: bool,
    tools_libs: Option<String>,
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

    /// Loads the Kokkos Tools library at `path` at initialize (Kokkos' `--kokkos-tools-libs`). As in
    /// Kokkos, a `;`-separated list loads its first entry. A path that cannot be loaded as a Kokkos
    /// Tools library makes [`crate::initialize`] fail with [`Error::ToolLibrary`]; to go on without
    /// the tool, initialize again with [`InitSettings::without_tools`].
    pub fn tools_libs(mut self, path: impl Into<String>) -> Self {
        self.tools_libs = Some(path.into());
        self
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
        if let Some(value) = lookup("FERROKKOS_PIN_THREADS") {
            settings.pin_threads = parse_bool("FERROKKOS_PIN_THREADS", &value)?;
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
            match name {
                "kokkos-num-threads" | "kokkos-threads" => {
                    let value = match inline {
                        Some(v) => v,
                        None => args.next().ok_or_else(|| Error::Setting {
                            name: format!("--{name}"),
                            value: String::new(),
                            reason: "expects a value, e.g. --kokkos-num-threads=4".into(),
                        })?,
                    };
                    self.num_threads = Some(parse_threads(&format!("--{name}"), &value)?);
                }
                "kokkos-device-id" => {
                    let value = match inline {
                        Some(v) => v,
                        None => args.next().ok_or_else(|| Error::Setting {
                            name: "--kokkos-device-id".into(),
                            value: String::new(),
                            reason: "expects a value, e.g. --kokkos-device-id=1".into(),
                        })?,
                    };
                    self.device_id = Some(parse_device("--kokkos-device-id", &value)?);
                }
                "kokkos-map-device-id-by" => match inline.as_deref() {
                    Some("mpi_rank") => self.map_device_by_rank = true,
                    other => {
                        return Err(Error::Setting {
                            name: "--kokkos-map-device-id-by".into(),
                            value: other.unwrap_or_default().to_string(),
                            reason: "supported: --kokkos-map-device-id-by=mpi_rank".into(),
                        });
                    }
                },
                "kokkos-tools-libs"
                | "kokkos-tools-library"
                | "kokkos-tools-args"
                | "ferrokkos-trace" => {
                    let value = match inline {
                        Some(v) => v,
                        None => args.next().ok_or_else(|| Error::Setting {
                            name: format!("--{name}"),
                            value: String::new(),
                            reason: format!("expects a value, e.g. --{name}=..."),
                        })?,
                    };
                    match name {
                        "kokkos-tools-args" => self.tools_args = Some(value),
                        "ferrokkos-trace" => self.trace = Some(value.into()),
                        _ => self.tools_libs = Some(value),
                    }
                }
                "ferrokkos-pin-threads" => {
                    self.pin_threads = match inline {
                        Some(v) => parse_bool("--ferrokkos-pin-threads", &v)?,
                        None => true,
                    };
                }
                _ if name.starts_with("kokkos-") => {
                    return Err(Error::Setting {
                        name: format!("--{name}"),
                        value: inline.unwrap_or_default(),
                        reason: "unknown or unsupported Kokkos option; supported: \
                                 --kokkos-num-threads=N, --kokkos-device-id=N, \
                                 --kokkos-map-device-id-by=mpi_rank, --kokkos-tools-libs=PATH, \
                                 --kokkos-tools-args=ARGS"
                            .into(),
                    });
                }
                _ => rest.push(arg),
            }
        }
        Ok(rest)
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
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn thread_count_comes_from_either_variable() {
        let s = InitSettings::from_lookup(env(&[("FERROKKOS_NUM_THREADS", "3")])).unwrap();
        assert_eq!(s.threads(), Some(3));
        let s = InitSettings::from_lookup(env(&[("KOKKOS_NUM_THREADS", "5")])).unwrap();
        assert_eq!(s.threads(), Some(5));
        let s = InitSettings::from_lookup(env(&[
            ("FERROKKOS_NUM_THREADS", "4"),
            ("KOKKOS_NUM_THREADS", "4"),
        ]))
        .unwrap();
        assert_eq!(s.threads(), Some(4));
        let s = InitSettings::from_lookup(env(&[])).unwrap();
        assert_eq!(s.threads(), None);
        assert!(s.effective_threads() >= 1);
    }

    #[test]
    fn conflicting_thread_variables_are_an_error_naming_both() {
        let e = InitSettings::from_lookup(env(&[
            ("FERROKKOS_NUM_THREADS", "2"),
            ("KOKKOS_NUM_THREADS", "8"),
        ]))
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid setting KOKKOS_NUM_THREADS=\"8\": conflicts with FERROKKOS_NUM_THREADS=\"2\"; \
             set only one of them"
        );
    }

    #[test]
    fn bad_thread_values_are_errors_naming_the_variable_and_value() {
        for bad in ["0", "-1", "two", ""] {
            let e = InitSettings::from_lookup(env(&[("FERROKKOS_NUM_THREADS", bad)])).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!(
                    "invalid setting FERROKKOS_NUM_THREADS={bad:?}: expected a positive integer \
                     number of threads"
                )
            );
        }
        let e = InitSettings::from_lookup(env(&[("FERROKKOS_PIN_THREADS", "maybe")])).unwrap_err();
        assert!(
            e.to_string().contains("FERROKKOS_PIN_THREADS=\"maybe\""),
            "{e}"
        );
    }

    #[test]
    fn kokkos_arguments_override_and_are_consumed() {
        let mut s = InitSettings::new().num_threads(7);
        let rest = s
            .apply_args(
                [
                    "prog",
                    "--kokkos-num-threads",
                    "2",
                    "--size",
                    "9",
                    "--ferrokkos-pin-threads",
                ]
                .into_iter()
                .map(String::from),
            )
            .unwrap();
        assert_eq!(s.threads(), Some(2));
        assert!(s.pins_threads());
        assert_eq!(rest, ["prog", "--size", "9"]);

        let mut s = InitSettings::new();
        s.apply_args(["--kokkos-threads=6".to_string()].into_iter())
            .unwrap();
        assert_eq!(s.threads(), Some(6));
    }

    #[test]
    fn bad_kokkos_arguments_are_errors() {
        let mut s = InitSettings::new();
        let e = s
            .apply_args(["--kokkos-num-threads=zero".to_string()].into_iter())
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid setting --kokkos-num-threads=\"zero\": expected a positive integer number of \
             threads"
        );
        let e = s
            .apply_args(["--kokkos-num-threads".to_string()].into_iter())
            .unwrap_err();
        assert!(e.to_string().contains("expects a value"), "{e}");
        let e = s
            .apply_args(["--kokkos-frobnicate=1".to_string()].into_iter())
            .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("invalid setting --kokkos-frobnicate=\"1\""),
            "{e}"
        );
    }

    #[test]
    fn device_comes_from_either_variable_or_the_command_line() {
        let s = InitSettings::from_lookup(env(&[("FERROKKOS_DEVICE", "1")])).unwrap();
        assert_eq!(s.requested_device(), Some(1));
        let s = InitSettings::from_lookup(env(&[("KOKKOS_DEVICE_ID", "2")])).unwrap();
        assert_eq!(s.requested_device(), Some(2));
        let e =
            InitSettings::from_lookup(env(&[("FERROKKOS_DEVICE", "0"), ("KOKKOS_DEVICE_ID", "1")]))
                .unwrap_err();
        assert!(
            e.to_string().contains("conflicts with FERROKKOS_DEVICE"),
            "{e}"
        );
        let mut s = InitSettings::new();
        let rest = s
            .apply_args(["--kokkos-device-id=3", "x"].into_iter().map(String::from))
            .unwrap();
        assert_eq!(
            (s.requested_device(), rest),
            (Some(3), vec!["x".to_string()])
        );
        let e = InitSettings::new()
            .apply_args(["--kokkos-map-device-id-by=random".to_string()].into_iter())
            .unwrap_err();
        assert!(e.to_string().contains("mpi_rank"), "{e}");
    }

    #[test]
    fn device_selection_prefers_the_id_then_the_local_rank() {
        let ranks = env(&[("SLURM_LOCALID", "5")]);
        let s = InitSettings::new().map_device_id_by_mpi_rank(true);
        assert_eq!(s.select_device_with(4, &ranks).unwrap(), 1);
        assert_eq!(
            s.clone()
                .device_id(2)
                .select_device_with(4, &ranks)
                .unwrap(),
            2
        );
        assert_eq!(
            InitSettings::new().select_device_with(4, &ranks).unwrap(),
            0
        );
        let e = InitSettings::new()
            .device_id(4)
            .select_device_with(4, &ranks)
            .unwrap_err();
        assert!(e.to_string().contains("4 CUDA device(s)"), "{e}");
        let bad = env(&[("OMPI_COMM_WORLD_LOCAL_RANK", "x")]);
        assert!(s.select_device_with(2, &bad).is_err());
    }

    #[test]
    fn tools_library_comes_from_either_variable_and_a_conflict_is_refused() {
        let s = InitSettings::from_lookup(env(&[("KOKKOS_TOOLS_LIBS", "/t/libkp.so")])).unwrap();
        assert_eq!(s.tools_library(), Some("/t/libkp.so"));
        let s = InitSettings::from_lookup(env(&[("KOKKOS_PROFILE_LIBRARY", "/t/old.so")])).unwrap();
        assert_eq!(s.tools_library(), Some("/t/old.so"));
        let same = env(&[
            ("KOKKOS_TOOLS_LIBS", "/t/a.so"),
            ("KOKKOS_PROFILE_LIBRARY", "/t/a.so"),
        ]);
        assert_eq!(
            InitSettings::from_lookup(same).unwrap().tools_library(),
            Some("/t/a.so")
        );
        let both = env(&[
            ("KOKKOS_TOOLS_LIBS", "/t/a.so"),
            ("KOKKOS_PROFILE_LIBRARY", "/t/b.so"),
        ]);
        let e = InitSettings::from_lookup(both).unwrap_err().to_string();
        assert_eq!(
            e,
            "invalid setting KOKKOS_PROFILE_LIBRARY=\"/t/b.so\": conflicts with \
             KOKKOS_TOOLS_LIBS=\"/t/a.so\"; KOKKOS_PROFILE_LIBRARY is deprecated: set only \
             KOKKOS_TOOLS_LIBS"
        );
        // A list loads its first entry, as in Kokkos; an empty value is no tool.
        let list = env(&[("KOKKOS_TOOLS_LIBS", "/t/a.so;/t/b.so")]);
        assert_eq!(
            InitSettings::from_lookup(list).unwrap().tools_library(),
            Some("/t/a.so")
        );
        let empty = env(&[("KOKKOS_TOOLS_LIBS", "")]);
        assert_eq!(
            InitSettings::from_lookup(empty).unwrap().tools_library(),
            None
        );
    }

    #[test]
    fn tool_arguments_split_on_white_space_and_the_command_line_overrides() {
        let s = InitSettings::from_lookup(env(&[("KOKKOS_TOOLS_ARGS", " -a  1\tb ")])).unwrap();
        assert_eq!(s.tools_arguments(), ["-a", "1", "b"]);
        let mut s = InitSettings::from_lookup(env(&[
            ("KOKKOS_TOOLS_LIBS", "/env.so"),
            ("FERROKKOS_TRACE", "/tmp/env.json"),
        ]))
        .unwrap();
        let rest = s
            .apply_args(
                [
                    "prog",
                    "--kokkos-tools-libs=/arg.so",
                    "--kokkos-tools-args",
                    "x y",
                    "--ferrokkos-trace=/tmp/t.json",
                    "data",
                ]
                .into_iter()
                .map(String::from),
            )
            .unwrap();
        assert_eq!(rest, ["prog", "data"]);
        assert_eq!(s.tools_library(), Some("/arg.so"));
        assert_eq!(s.tools_arguments(), ["x", "y"]);
        assert_eq!(s.trace_path(), Some(std::path::Path::new("/tmp/t.json")));
        assert_eq!(s.program_name(), "prog");
        let e = s
            .apply_args(["--kokkos-tools-libs"].into_iter().map(String::from))
            .unwrap_err();
        assert!(e.to_string().contains("expects a value"), "{e}");
        assert_eq!(s.clone().without_tools().tools_library(), None);
        assert_eq!(s.without_tools().trace_path(), None);
    }
}
