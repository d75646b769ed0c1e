//! The command line of `ferrokkos`, declared with clap's derive API: the commands (each command's
//! options live in its module, as its `Args`), the value parsers their options share, and the
//! top-level help with the runtime options and variables that every command honours.
//!
//! The runtime options (`--kokkos-num-threads=N`, ...) are taken out of the command line by
//! [`ferrokkos::InitSettings::from_args`] before clap sees it; [`parse`] parses what remains.

use std::fmt::Display;

use clap::builder::{StringValueParser, TypedValueParser};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use ferrokkos::SpaceChoice;

/// `ferrokkos help`, after the commands: the runtime options and the environment variables.
const RUNTIME_HELP: &str = "\
Runtime options (any command; each also read from the environment variable in brackets):
  --kokkos-num-threads=N           threads of the Threads space, the calling thread included
                                   (FERROKKOS_NUM_THREADS, KOKKOS_NUM_THREADS; default: all
                                   hardware threads of this process)
  --ferrokkos-pin-threads          pin the pool's workers to cores (FERROKKOS_PIN_THREADS=1)
  --kokkos-device-id=N             the GPU to use (FERROKKOS_DEVICE, KOKKOS_DEVICE_ID; default 0)
  --kokkos-map-device-id-by=mpi_rank
                                   one GPU per MPI rank on the node, by local rank
  --kokkos-tools-libs=PATH         load a Kokkos Tools library (KOKKOS_TOOLS_LIBS)
  --kokkos-tools-args=ARGS         arguments for that library (KOKKOS_TOOLS_ARGS)
  --ferrokkos-tools-optional       a tool library that does not load is a warning, not an error
                                   (FERROKKOS_TOOLS_OPTIONAL=1)
  --ferrokkos-trace=FILE.json      write a Chrome trace of the run (FERROKKOS_TRACE)
  --kokkos-disable-warnings        no warnings on stderr, e.g. for more threads than cores
                                   (KOKKOS_DISABLE_WARNINGS=1)

Environment only:
  FERROKKOS_DISABLE_CUDA=1         start without the Cuda backend even with a GPU
  FERROKKOS_CACHE_DIR=DIR          where compiled GPU kernels are kept (off: no disk cache;
                                   default $XDG_CACHE_HOME/ferrokkos or ~/.cache/ferrokkos)
  FERROKKOS_STREAMING_STORES=0     no non-temporal stores in large host copies and fills
  FERROKKOS_WIDE_VECTORS=0         host kernels without AVX2, in the build's instructions only
  FERROKKOS_CUDA_BLOCK=B           threads per block of GPU range kernels (tuning; default 256)
  FERROKKOS_CUDA_MAX_WAVES=W       cap GPU grids at W waves of blocks (tuning)

Each command's options: ferrokkos <command> --help (or ferrokkos help <command>).";

/// `ferrokkos info --help`.
const INFO_ABOUT: &str = "\
Prints the version, the execution spaces with their concurrency, the vector instructions of host
kernels, the CUDA device (or why Cuda is not available here) and the memory spaces with their
accounting. Takes no options but the runtime's (ferrokkos help).";

/// The whole command line, after the runtime options.
#[derive(Debug, Parser)]
#[command(
    name = "ferrokkos",
    bin_name = "ferrokkos",
    version,
    about = "ferrokkos, the Kokkos programming model in Rust: its information and benchmarks",
    after_help = RUNTIME_HELP
)]
pub struct Cli {
    /// no progress on stderr (it is drawn only on a terminal anyway)
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// The command; without one, `ferrokkos` prints its help.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// version, execution spaces, thread count, CUDA device and memory spaces of this process
    #[command(long_about = INFO_ABOUT)]
    Info,
    /// BabelStream memory bandwidth benchmark on serial, threads or cuda
    #[command(long_about = crate::stream::LONG_ABOUT)]
    Stream(crate::stream::Args),
    /// CSR sparse matrix-vector product (3D Laplacian) on serial, threads or cuda
    #[command(long_about = crate::spmv::LONG_ABOUT)]
    Spmv(crate::spmv::Args),
    /// histogram and particle deposition through a ScatterView, atomics and (host) rayon
    #[command(long_about = crate::scatter::LONG_ABOUT)]
    Scatter(crate::scatter::Args),
    /// concurrent inserts and lookups into an UnorderedMap, a hand-written table and (host) dashmap
    #[command(long_about = crate::map::LONG_ABOUT)]
    Map(crate::map::Args),
    /// fill_random with Kokkos' random pools, against cuRAND (cuda) and rand's SmallRng (host)
    #[command(long_about = crate::random::LONG_ABOUT)]
    Random(crate::random::Args),
    /// sort and sort_by_key of u32 keys, against CUB's radix sort (cuda) and rayon's sorts (host)
    #[command(long_about = crate::sort::LONG_ABOUT)]
    Sort(crate::sort::Args),
    /// 2D 9-point stencil sweep and matrix-free CG (MDRangePolicy) on serial, threads or cuda
    #[command(long_about = crate::stencil::LONG_ABOUT)]
    Stencil(crate::stencil::Args),
    /// launch latency of parallel_for / parallel_reduce and graphs on serial, threads or cuda
    #[command(long_about = crate::latency::LONG_ABOUT)]
    Latency(crate::latency::Args),
    /// draw a Chrome trace file (FERROKKOS_TRACE) as a PNG picture
    #[command(long_about = crate::timeline::LONG_ABOUT)]
    Timeline(crate::timeline::Args),
    /// the version (also --version, -V)
    Version,
    /// print a shell completion script (bash, zsh, fish, elvish, powershell) on standard output
    #[command(long_about = COMPLETIONS_ABOUT)]
    Completions {
        /// the shell to complete for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// The long help of `ferrokkos completions`.
const COMPLETIONS_ABOUT: &str = "Prints a completion script for SHELL on standard output, \
generated from the same definitions as the help, so it completes every command and option. For \
bash: `ferrokkos completions bash > ~/.local/share/bash-completion/completions/ferrokkos`; for \
zsh: `ferrokkos completions zsh > ~/.zfunc/_ferrokkos` (with ~/.zfunc on fpath); for fish: \
`ferrokkos completions fish > ~/.config/fish/completions/ferrokkos.fish`. The Kokkos options \
(--kokkos-num-threads=N, ...) are not completed: every command takes them before clap parses.";

/// Writes the completion script of `shell` for the whole command line to `out`.
pub fn completions(shell: clap_complete::Shell, out: &mut dyn std::io::Write) {
    clap_complete::generate(shell, &mut Cli::command(), "ferrokkos", out);
}

/// Parses the command line `args`: the program's name, then the arguments that
/// [`ferrokkos::InitSettings::from_args`] left. A usage error shows the usage of the command it
/// concerns (clap's errors about a value do not by themselves).
pub fn parse<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    Cli::try_parse_from(&args).map_err(|mut e| {
        if e.use_stderr() && e.get(ContextKind::Usage).is_none() {
            let command = args.get(1).and_then(|a| a.to_str());
            e.insert(ContextKind::Usage, ContextValue::StyledStr(usage(command)));
        }
        e
    })
}

/// `Usage: ferrokkos COMMAND [OPTIONS]` for the command named `command`, or the top-level usage
/// when it names none.
fn usage(command: Option<&str>) -> clap::builder::StyledStr {
    let mut cli = Cli::command();
    cli.build();
    match command.and_then(|name| cli.find_subcommand_mut(name)) {
        Some(sub) => sub.render_usage(),
        None => cli.render_usage(),
    }
}

/// A usage error of `command` found after parsing (options that contradict each other): the
/// message, that command's usage and where to find its help, exit status 2 like clap's own.
pub fn usage_error(command: &str, message: impl Display) -> clap::Error {
    let mut cli = Cli::command();
    cli.build();
    match cli.find_subcommand_mut(command) {
        Some(sub) => sub.error(ErrorKind::ValueValidation, message),
        None => cli.error(ErrorKind::ValueValidation, message),
    }
}

/// The top-level help, as `ferrokkos help` prints it.
pub fn help() -> String {
    Cli::command().render_help().to_string()
}

/// The execution space of a benchmark (`--space`, any case); without the option a benchmark runs
/// on [`SpaceChoice::Best`] (Cuda when the process has a GPU, else Threads).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Space {
    /// The Serial space.
    Serial,
    /// The Threads space.
    Threads,
    /// The Cuda space.
    Cuda,
}

/// The `--space` option of every benchmark (flattened into each command's `Args`).
#[derive(Debug, Clone, clap::Args)]
pub struct SpaceArg {
    /// serial, threads or cuda (default: cuda when the process has a GPU, else
    /// threads)
    #[arg(
        long,
        value_name = "NAME",
        ignore_case = true,
        hide_possible_values = true,
        verbatim_doc_comment
    )]
    pub space: Option<Space>,
}

/// The space `space` chooses: the one named, else the best one.
pub fn space_choice(SpaceArg { space }: SpaceArg) -> SpaceChoice {
    match space {
        None => SpaceChoice::Best,
        Some(Space::Serial) => SpaceChoice::Serial,
        Some(Space::Threads) => SpaceChoice::Threads,
        Some(Space::Cuda) => SpaceChoice::Cuda,
    }
}

/// A value parser for an integer from `min` to `max` (`u64::MAX`: no upper bound) of type `T`,
/// whose error says which integers it takes: "expected a positive integer", "expected an
/// integer, 2 or more", "expected an integer from 1 to 674".
pub fn integer<T>(min: u64, max: u64) -> impl TypedValueParser<Value = T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    StringValueParser::new().try_map(move |text: String| {
        text.parse::<u64>()
            .ok()
            .filter(|v| (min..=max).contains(v))
            .and_then(|v| T::try_from(v).ok())
            .ok_or_else(|| format!("expected {}", integers(min, max)))
    })
}

/// The integers from `min` to `max`, in words.
fn integers(min: u64, max: u64) -> String {
    match (min, max) {
        (0, u64::MAX) => "a non-negative integer".into(),
        (1, u64::MAX) => "a positive integer".into(),
        (_, u64::MAX) => format!("an integer, {min} or more"),
        _ => format!("an integer from {min} to {max}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The message of a usage error, as printed.
    fn message(args: &[&str]) -> String {
        match parse(std::iter::once("ferrokkos").chain(args.iter().copied())) {
            Ok(cli) => panic!("{args:?} parsed: {cli:?}"),
            Err(e) => {
                assert_eq!(e.exit_code(), 2, "{e}");
                e.to_string()
            }
        }
    }

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn integers_name_their_range() {
        let p = integer::<usize>(2, u64::MAX);
        let cmd = clap::Command::new("t");
        let check = |text: &str| p.parse_ref(&cmd, None, std::ffi::OsStr::new(text));
        assert_eq!(check("2").unwrap(), 2);
        assert_eq!(check("18446744073709551615").unwrap(), usize::MAX);
        for bad in ["1", "0", "-5", "x", "", "18446744073709551616"] {
            let e = check(bad).unwrap_err().to_string();
            assert!(e.contains("expected an integer, 2 or more"), "{bad:?}: {e}");
        }
        assert_eq!(integers(1, u64::MAX), "a positive integer");
        assert_eq!(integers(0, u64::MAX), "a non-negative integer");
        assert_eq!(integers(470, 32768), "an integer from 470 to 32768");
        let small = integer::<u8>(0, 1000);
        let e = small.parse_ref(&cmd, None, std::ffi::OsStr::new("300"));
        assert!(e.is_err(), "300 is no u8");
    }

    #[test]
    fn spaces_parse_in_any_case_and_default_to_the_best_one() {
        for (name, choice) in [
            ("serial", SpaceChoice::Serial),
            ("Threads", SpaceChoice::Threads),
            ("CUDA", SpaceChoice::Cuda),
            ("cuda", SpaceChoice::Cuda),
        ] {
            let space = Space::from_str(name, true).unwrap();
            assert_eq!(
                space_choice(SpaceArg { space: Some(space) }),
                choice,
                "{name}"
            );
        }
        assert_eq!(space_choice(SpaceArg { space: None }), SpaceChoice::Best);
        for bad in ["gpu", "best", "default", "", "cuda0", "openmp"] {
            assert!(Space::from_str(bad, true).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn usage_errors_show_the_usage_of_their_command() {
        let e = message(&["stream", "-s", "0"]);
        assert!(e.contains("expected a positive integer"), "{e}");
        assert!(e.contains("Usage: ferrokkos stream [OPTIONS]"), "{e}");
        let e = message(&["spmv", "--space", "gpu"]);
        assert!(
            e.contains("[possible values: serial, threads, cuda]"),
            "{e}"
        );
        assert!(e.contains("Usage: ferrokkos spmv [OPTIONS]"), "{e}");
        let e = message(&["bogus"]);
        assert!(e.contains("unrecognized subcommand 'bogus'"), "{e}");
        assert!(e.contains("Usage: ferrokkos [OPTIONS] [COMMAND]"), "{e}");
        let e = usage_error("timeline", "two traces");
        assert_eq!(e.exit_code(), 2);
        let e = e.to_string();
        assert!(e.starts_with("error: two traces"), "{e}");
        assert!(e.contains("Usage: ferrokkos timeline"), "{e}");
    }

    #[test]
    fn info_and_version_take_no_options() {
        let cli = parse(["ferrokkos", "info"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Info)));
        let cli = parse(["ferrokkos", "version"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Version)));
        assert!(parse(["ferrokkos"]).unwrap().command.is_none());
        let e = message(&["info", "--bogus"]);
        assert!(e.contains("unexpected argument '--bogus'"), "{e}");
        assert!(e.contains("Usage: ferrokkos info"), "{e}");
        let e = message(&["info", "extra"]);
        assert!(e.contains("unexpected argument 'extra'"), "{e}");
    }

    #[test]
    fn the_help_lists_the_commands_and_the_runtime_options() {
        let help = help();
        for command in [
            "info", "stream", "spmv", "scatter", "stencil", "latency", "timeline", "version",
            "help",
        ] {
            assert!(
                help.contains(&format!("\n  {command} ")),
                "{command}: {help}"
            );
        }
        assert!(help.contains("--kokkos-num-threads=N"), "{help}");
        assert!(help.contains("FERROKKOS_CUDA_MAX_WAVES=W"), "{help}");
    }
}
