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
}

/// Environment variables for the thread count, in order of precedence.
const THREAD_VARS: [&str; 2] = ["FERROKKOS_NUM_THREADS", "KOKKOS_NUM_THREADS"];

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
        if let Some(value) = lookup("FERROKKOS_PIN_THREADS") {
            settings.pin_threads = parse_bool("FERROKKOS_PIN_THREADS", &value)?;
        }
        Ok(settings)
    }

    fn apply_args(&mut self, args: impl Iterator<Item = String>) -> Result<Vec<String>> {
        let mut rest = Vec::new();
        let mut args = args.peekable();
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
                                 --kokkos-num-threads=N"
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
}
