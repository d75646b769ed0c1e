//! A small parser for the options of the benchmark commands (`-s 1024`, `--only=triad`, flags).

/// The arguments after the command name, consumed one option at a time.
pub struct Options {
    /// The command, for messages.
    command: &'static str,
    /// The arguments not consumed yet.
    args: std::collections::VecDeque<String>,
}

impl Options {
    /// The arguments `args` of `command`.
    pub fn new(command: &'static str, args: &[String]) -> Options {
        Options {
            command,
            args: args.iter().cloned().collect(),
        }
    }

    /// The next option name (`-s`, `--only`), splitting `--name=value` so that the value comes next.
    pub fn next_name(&mut self) -> Option<String> {
        let arg = self.args.pop_front()?;
        if arg.starts_with("--")
            && let Some((name, value)) = arg.split_once('=')
        {
            self.args.push_front(value.to_string());
            return Some(name.to_string());
        }
        Some(arg)
    }

    /// The value of option `name`, parsed.
    pub fn value<T: std::str::FromStr>(&mut self, name: &str) -> Result<T, String> {
        let raw = self
            .args
            .pop_front()
            .ok_or_else(|| format!("{}: option {name} needs a value", self.command))?;
        raw.parse()
            .map_err(|_| format!("{}: invalid value {raw:?} for {name}", self.command))
    }

    /// The error for an option this command does not know.
    pub fn unknown(&self, name: &str) -> String {
        format!(
            "{}: unknown option {name:?} (try `ferrokkos {} --help`)",
            self.command, self.command
        )
    }
}

/// Parses the value of `--space` for `command`: `serial`, `threads` or `cuda` (any case). Anything
/// else is a usage error naming the three.
pub fn parse_space(command: &str, value: &str) -> Result<ferrokkos::SpaceChoice, String> {
    use ferrokkos::SpaceChoice;
    match value.parse::<SpaceChoice>() {
        Ok(choice @ (SpaceChoice::Serial | SpaceChoice::Threads | SpaceChoice::Cuda)) => Ok(choice),
        _ => Err(format!(
            "{command}: unknown space {value:?}; expected serial, threads or cuda"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrokkos::SpaceChoice;

    #[test]
    fn space_names_parse_in_any_case() {
        assert_eq!(parse_space("x", "serial"), Ok(SpaceChoice::Serial));
        assert_eq!(parse_space("x", "Threads"), Ok(SpaceChoice::Threads));
        assert_eq!(parse_space("x", "CUDA"), Ok(SpaceChoice::Cuda));
        assert_eq!(parse_space("x", "cuda"), Ok(SpaceChoice::Cuda));
    }

    #[test]
    fn other_space_names_are_errors_naming_the_choices() {
        for bad in ["gpu", "best", "default", "", "cuda0", "openmp"] {
            let e = parse_space("stream", bad).unwrap_err();
            assert!(
                e.starts_with("stream: unknown space") && e.ends_with("serial, threads or cuda"),
                "{bad:?}: {e}"
            );
        }
    }

    #[test]
    fn values_split_from_names() {
        let args: Vec<String> = ["--space=cuda", "-s", "8"].map(String::from).to_vec();
        let mut o = Options::new("stream", &args);
        assert_eq!(o.next_name().as_deref(), Some("--space"));
        assert_eq!(o.value::<String>("--space"), Ok("cuda".to_string()));
        assert_eq!(o.next_name().as_deref(), Some("-s"));
        assert_eq!(o.value::<usize>("-s"), Ok(8));
        assert_eq!(o.next_name(), None);
        assert!(o.value::<usize>("-s").is_err());
    }
}
