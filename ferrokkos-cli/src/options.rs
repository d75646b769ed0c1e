//! A small parser for the options of the benchmark commands (`-s 1024`, `--only=triad`, flags).

/// The arguments after the command name, consumed one option at a time.
pub struct Options {
    command: &'static str,
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
