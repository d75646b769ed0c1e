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
use crate::options::Options;
use layout::{MAX_WIDTH, MIN_WIDTH};
use trace::Trace;

/// `ferrokkos timeline --help`.
const USAGE: &str = "\
usage: ferrokkos timeline TRACE.json [-o OUT.png] [--width W] [--from US] [--to US]

Draws a Chrome trace (the JSON that FERROKKOS_TRACE=TRACE.json writes; also what Perfetto and
chrome://tracing open) as a PNG picture: a row per lane (thread, execution space instance, profile
section) with its spans as rectangles coloured by category (kernel, copy, fill, fence, region,
section, other), spans within spans one level down, instants as diamonds, the counters (memory in
use per memory space) as step lines in a panel below, and a time axis.

options:
  -o, --output OUT.png     the picture (default: TRACE with the extension .png)
  --width W                its width in pixels (default 1600, 470 to 32768); its height follows
                           from the number of lanes
  --from US                start the picture at US microseconds of trace time (default: 0)
  --to US                  end it at US microseconds (default: the end of the last event)
  -h, --help               this text";

/// The default `--width`.
const DEFAULT_WIDTH: u32 = 1600;

/// The command's options.
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

impl Config {
    /// Parses the options; `None` for `--help`.
    fn parse(args: &[String]) -> Result<Option<Config>, String> {
        let mut options = Options::new("timeline", args);
        let (mut trace, mut output, mut width) = (None, None, DEFAULT_WIDTH);
        let (mut from, mut to) = (None, None);
        while let Some(name) = options.next_name() {
            match name.as_str() {
                "-h" | "--help" => return Ok(None),
                "-o" | "--output" => output = Some(PathBuf::from(options.value::<String>(&name)?)),
                "--width" => width = options.value(&name)?,
                "--from" => from = Some(time(&mut options, &name)?),
                "--to" => to = Some(time(&mut options, &name)?),
                option if option.starts_with('-') && option.len() > 1 => {
                    return Err(options.unknown(option));
                }
                path if trace.is_none() => trace = Some(PathBuf::from(path)),
                path => {
                    return Err(format!(
                        "timeline: one trace file only, got a second: {path:?}"
                    ));
                }
            }
        }
        let trace = trace.ok_or("timeline: which trace? (ferrokkos timeline TRACE.json)")?;
        if !(MIN_WIDTH..=MAX_WIDTH).contains(&width) {
            return Err(format!(
                "timeline: --width must be {MIN_WIDTH} to {MAX_WIDTH}, got {width}"
            ));
        }
        if let (Some(from), Some(to)) = (from, to)
            && from >= to
        {
            return Err(format!(
                "timeline: --from ({from}) must be less than --to ({to})"
            ));
        }
        let output = output.unwrap_or_else(|| trace.with_extension("png"));
        if output == trace {
            return Err(format!(
                "timeline: the picture would overwrite the trace {}; name one with -o",
                trace.display()
            ));
        }
        Ok(Some(Config {
            trace,
            output,
            width,
            from,
            to,
        }))
    }
}

/// The value of the time option `name`: a finite number of microseconds.
fn time(options: &mut Options, name: &str) -> Result<f64, String> {
    let value: f64 = options.value(name)?;
    if value.is_finite() {
        Ok(value)
    } else {
        Err(format!(
            "timeline: {name} needs a finite number of microseconds, got {value}"
        ))
    }
}

/// Reads the trace at `path`; an error names the path and what was wrong.
fn load(path: &Path) -> Result<Trace, Failure> {
    let fail = |what: String| Failure::Run(format!("{}: {what}", path.display()));
    let json = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
    let events = parse::parse_events(&json).map_err(fail)?;
    Trace::from_events(events).map_err(fail)
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

/// Runs `ferrokkos timeline` with the options `args`.
pub fn main(args: &[String]) -> Result<(), Failure> {
    let Some(config) = Config::parse(args).map_err(Failure::Usage)? else {
        println!("{USAGE}");
        return Ok(());
    };
    let trace = load(&config.trace)?;
    let name = match &trace.process {
        Some(process) => process.clone(),
        None => config.trace.display().to_string(),
    };
    let window = window(&trace, config.from, config.to);
    let picture = render::render(&trace, &name, config.width, window)
        .map_err(|e| Failure::Run(format!("{}: {e}", config.trace.display())))?;
    png_file::write_png(&config.output, &picture)
        .map_err(|e| Failure::Run(format!("{}: {e}", config.output.display())))?;
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
