//! `ferrokkos timeline`: draws a Chrome trace file (what `FERROKKOS_TRACE` writes, what Perfetto
//! and chrome://tracing open) as a PNG picture: one row per lane (a thread, an execution space
//! instance, a profile section) with its spans coloured by category and nested spans one level
//! down, instants as markers, the counters (memory in use per space) as step lines below, and a
//! time axis.

mod axis;
mod category;
mod counters;
mod font;
mod header;
mod lanes;
mod layout;
mod nesting;
mod painter;
mod palette;
mod parse;
mod png_file;
mod render;
#[cfg(test)]
mod tests;
mod ticks;
mod trace;
mod units;

use std::path::{Path, PathBuf};

use crate::Failure;
use crate::cli::integer;
use crate::progress::Progress;
use layout::{MAX_WIDTH, MIN_WIDTH};
use trace::Trace;

/// `ferrokkos timeline --help`: what the command does, before the options.
pub const LONG_ABOUT: &str = "\
Draws a Chrome trace (the JSON that FERROKKOS_TRACE=TRACE.json writes; also what Perfetto and
chrome://tracing open) as a PNG picture: a row per lane (thread, execution space instance, profile
section) with its spans as rectangles coloured by category (kernel, copy, fill, fence, region,
section, other), spans within spans one level down, instants as diamonds, the counters (memory in
use per memory space) as step lines in a panel below, and a time axis.";

/// The default `--width`.
const DEFAULT_WIDTH: u32 = 1600;

/// The options of `ferrokkos timeline`, as clap parses them.
#[derive(Debug, clap::Args)]
#[command(args_override_self = true)]
pub struct Args {
    /// the trace (what FERROKKOS_TRACE=TRACE.json writes)
    #[arg(value_name = "TRACE.json")]
    trace: PathBuf,
    /// the picture (default: TRACE with the extension .png)
    #[arg(short = 'o', long, value_name = "OUT.png")]
    output: Option<PathBuf>,
    /// its width in pixels (470 to 32768); its height follows from the number
    /// of lanes
    #[arg(
        long,
        value_name = "W",
        default_value_t = DEFAULT_WIDTH,
        value_parser = integer::<u32>(MIN_WIDTH.into(), MAX_WIDTH.into()),
        allow_negative_numbers = true,
        verbatim_doc_comment
    )]
    width: u32,
    /// start the picture at US microseconds of trace time (default: 0)
    #[arg(long, value_name = "US", value_parser = microseconds, allow_negative_numbers = true)]
    from: Option<f64>,
    /// end it at US microseconds (default: the end of the last event)
    #[arg(long, value_name = "US", value_parser = microseconds, allow_negative_numbers = true)]
    to: Option<f64>,
}

/// The value of `--from` or `--to`: a finite number of microseconds.
fn microseconds(text: &str) -> Result<f64, String> {
    text.parse::<f64>()
        .ok()
        .filter(|us| us.is_finite())
        .ok_or_else(|| "expected a finite number of microseconds".into())
}

/// The command's options, checked against each other.
#[derive(Debug, PartialEq)]
struct Config {
    /// The trace file.
    trace: PathBuf,
    /// `-o`: the picture.
    output: PathBuf,
    /// `--width`.
    width: u32,
    /// `--from`, microseconds.
    from: Option<f64>,
    /// `--to`, microseconds.
    to: Option<f64>,
}

impl TryFrom<Args> for Config {
    type Error = String;

    /// The options, unless they contradict each other: a window that ends before it starts, a
    /// picture that would overwrite the trace.
    fn try_from(args: Args) -> Result<Config, String> {
        let Args {
            trace,
            output,
            width,
            from,
            to,
        } = args;
        if let (Some(from), Some(to)) = (from, to)
            && from >= to
        {
            return Err(format!("--from ({from}) must be less than --to ({to})"));
        }
        let output = output.unwrap_or_else(|| trace.with_extension("png"));
        if output == trace {
            return Err(format!(
                "the picture would overwrite the trace {}; name one with -o",
                trace.display()
            ));
        }
        Ok(Config {
            trace,
            output,
            width,
            from,
            to,
        })
    }
}

/// Reads the trace at `path`; an error names the path and what was wrong.
/// A trace that ends early (its program stopped before closing it) is drawn from the events
/// before the cut, with a warning on standard error that says where and how much was dropped.
/// `progress` (which says that the file is read) says which step runs (a large trace takes seconds: about 4 s for 170 MB).
fn load(path: &Path, progress: &Progress) -> Result<Trace, Failure> {
    let fail = |what: String| Failure::Run(format!("{}: {what}", path.display()));
    let json = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
    progress.say(&format!(
        "timeline: parsing {} ({})",
        path.display(),
        megabytes(json.len())
    ));
    let parsed = parse::parse_events(&json).map_err(fail)?;
    drop(json);
    if let Some(cut) = &parsed.cut {
        progress.suspend(|| eprintln!("{}", cut_warning(path, cut, parsed.events.len())));
    }
    progress.say(&format!(
        "timeline: sorting {} events into lanes",
        parsed.events.len()
    ));
    Trace::from_events(parsed.events).map_err(fail)
}

/// `bytes` as the progress line gives a file's size: `172.9 MB`.
fn megabytes(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// The warning for a trace cut at `cut` with `kept` complete events before.
fn cut_warning(path: &Path, cut: &parse::Cut, kept: usize) -> String {
    let dropped = match cut.dropped_bytes {
        0 => "the list of events is not closed".to_string(),
        n => format!("the {n} bytes of the incomplete event there are dropped"),
    };
    format!(
        "timeline: warning: {} ends early, at line {} (its program stopped before closing the \
         trace): drawing the {kept} complete events before; {dropped}",
        path.display(),
        cut.line
    )
}

/// The warning for a window (`--from` / `--to`, in µs) that holds none of the trace's spans and
/// instants, or `None`.
fn empty_window_warning(trace: &Trace, (from, to): (f64, f64)) -> Option<String> {
    let inside = |start: f64, end: f64| end >= from && start <= to;
    let shown = trace.lanes.iter().any(|l| {
        l.spans.iter().any(|s| inside(s.start, s.end))
            || l.instants.iter().any(|i| inside(i.time, i.time))
    });
    let (first, last) = trace.extent()?;
    (!shown).then(|| {
        format!(
            "timeline: warning: the window from {from} to {to} us holds no span or instant; the \
             trace's events run from {first} to {last} us"
        )
    })
}

/// The time window to draw: the options', else from 0 (or the first event, if earlier) to the
/// end of the last event; never empty.
fn window(trace: &Trace, from: Option<f64>, to: Option<f64>) -> (f64, f64) {
    let (first, last) = trace.extent().unwrap_or((0.0, 0.0));
    let from = from.unwrap_or(first.min(0.0));
    let to = to.unwrap_or(last);
    if to > from {
        (from, to)
    } else {
        (from, from + 1000.0)
    }
}

/// Runs `ferrokkos timeline` with its options.
pub fn main(args: Args) -> Result<(), Failure> {
    let config = Config::try_from(args)
        .map_err(|e| Failure::Usage(crate::cli::usage_error("timeline", e)))?;
    let progress = Progress::spinner(&format!("timeline: reading {}", config.trace.display()));
    let trace = load(&config.trace, &progress)?;
    let name = match &trace.process {
        Some(process) => process.clone(),
        None => config.trace.display().to_string(),
    };
    let window = window(&trace, config.from, config.to);
    progress.say(&format!("timeline: drawing {}", config.output.display()));
    let picture = render::render(&trace, &name, config.width, window)
        .map_err(|e| Failure::Run(format!("{}: {e}", config.trace.display())))?;
    png_file::write_png(&config.output, &picture)
        .map_err(|e| Failure::Run(format!("{}: {e}", config.output.display())))?;
    drop(progress);
    if (config.from.is_some() || config.to.is_some())
        && let Some(warning) = empty_window_warning(&trace, window)
    {
        eprintln!("{warning}");
    }
    println!(
        "timeline: wrote {} ({} x {} pixels, {} lanes, {} spans)",
        config.output.display(),
        picture.width,
        picture.height,
        trace.lanes.len(),
        picture.spans
    );
    Ok(())
}
