//! End to end: `ferrokkos stream --only Copies --compare` (ferrokkos' deep_copy against memcpy and
//! fill peers) runs and validates on the host spaces, and the deep_copy kernels stay out of
//! BabelStream's default run and of `--only All`; a bad selection is a usage error (exit status 2),
//! and Cuda without a usable GPU fails cleanly (exit status 1, with the reason).

mod common;

use common::{ferrokkos, text};

/// Runs `ferrokkos stream ARGS`, checks that it succeeded, and returns its standard output.
fn stream(args: &[&str]) -> String {
    let out = ferrokkos(&[&["stream"][..], args].concat());
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{args:?}: {stdout}\n{stderr}");
    stdout
}

/// The lines of `stdout` that start with the row label `kernel` (a word of its own).
fn rows(stdout: &str, kernel: &str) -> usize {
    stdout
        .lines()
        .filter(|l| l.split_whitespace().next() == Some(kernel))
        .count()
}

/// DeepCopy and Fill have a row in every implementation's table and in the comparison, and every
/// implementation validates.
fn copies_validate_and_compare(space: &str, extra: &[&str]) {
    let stdout = stream(
        &[
            &["--only", "Copies", "--compare", "-s", "10007", "-n", "3"][..],
            &["--space", space],
            extra,
        ]
        .concat(),
    );
    let implementations = stdout.matches("Implementation: ").count();
    assert!(implementations >= 2, "{stdout}");
    for kernel in ["DeepCopy", "Fill"] {
        // One row per table, one in the comparison.
        assert_eq!(rows(&stdout, kernel), implementations + 1, "{stdout}");
    }
    assert_eq!(rows(&stdout, "Copy"), 0, "{stdout}");
    assert_eq!(
        stdout.matches("Validation: passed").count(),
        implementations,
        "{stdout}"
    );
    assert!(!stdout.contains("Validation FAILED"), "{stdout}");
    for peer in ["plain loop", "vs rayon best"] {
        assert!(stdout.contains(peer), "no {peer:?} in:\n{stdout}");
    }
}

#[test]
fn copies_on_serial_validate_and_compare() {
    copies_validate_and_compare("serial", &[]);
}

#[test]
fn copies_on_threads_validate_and_compare() {
    copies_validate_and_compare("threads", &[]);
    copies_validate_and_compare("threads", &["--float"]);
}

/// DeepCopy alone leaves c = a, which validation checks (after Copies, Fill has overwritten c).
#[test]
fn deep_copy_alone_validates_its_copy() {
    let stdout = stream(&[
        "--only",
        "DeepCopy",
        "--compare",
        "-s",
        "4099",
        "-n",
        "2",
        "--space",
        "threads",
    ]);
    assert!(!stdout.contains("Validation FAILED"), "{stdout}");
    assert_eq!(rows(&stdout, "Fill"), 0, "{stdout}");
    assert!(rows(&stdout, "DeepCopy") >= 3, "{stdout}");
}

/// Fill moves one array: its CSV row counts 1 x 8 bytes per element.
#[test]
fn fill_writes_one_array() {
    let stdout = stream(&["--only", "fill", "--csv", "-s", "1000", "-n", "2"]);
    let row = stdout.lines().nth(1).unwrap_or_default();
    let fields: Vec<&str> = row.split(',').collect();
    assert_eq!(fields[..4], ["Fill", "2", "1000", "8"], "{stdout}");
    let (rate, min): (f64, f64) = (fields[4].parse().unwrap(), fields[5].parse().unwrap());
    let bytes = rate * 1e6 * min;
    assert!((bytes - 8000.0).abs() < 1.0, "{bytes} bytes: {stdout}");
}

#[test]
fn babelstream_selections_leave_the_deep_copy_kernels_out() {
    for args in [&[][..], &["--only", "All"]] {
        let stdout = stream(&[args, &["-s", "1000", "-n", "2", "--space", "serial"]].concat());
        assert_eq!(
            rows(&stdout, "DeepCopy") + rows(&stdout, "Fill"),
            0,
            "{stdout}"
        );
        assert_eq!(rows(&stdout, "Copy"), 1, "{stdout}");
    }
}

#[test]
fn unknown_kernels_name_the_selections() {
    common::usage_errors(
        "stream",
        &[
            (
                &["--only", "memset"],
                "invalid value 'memset' for '--only <NAME>'",
            ),
            (&["--only", "copy,fill"], "invalid value 'copy,fill'"),
            (&["-o"], "a value is required for '--only <NAME>'"),
        ],
    );
    let out = ferrokkos(&["stream", "--only", "memset"]);
    let (_, stderr) = text(&out);
    let choices = "[possible values: Copy, Mul, Add, Triad, Dot, Nstream, Classic, All, \
                   DeepCopy, Fill, Copies]";
    assert!(stderr.contains(choices), "{stderr}");
}

/// A size or a repetition count out of range is a usage error of `stream` that says what the
/// option takes and shows `stream`'s usage, not the top-level one.
#[test]
fn bad_sizes_say_what_is_expected() {
    for bad in ["-5", "0"] {
        let out = ferrokkos(&["stream", "-s", bad]);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "-s {bad}: {stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        let says = format!(
            "error: invalid value '{bad}' for '--arraysize <N>': expected a positive integer\n"
        );
        assert!(stderr.starts_with(&says), "-s {bad}: {stderr}");
        assert!(
            stderr.contains("\n\nUsage: ferrokkos stream [OPTIONS]\n"),
            "{stderr}"
        );
        assert!(
            !stderr.contains("Usage: ferrokkos [OPTIONS] [COMMAND]"),
            "{stderr}"
        );
        assert!(!stderr.contains("Commands:"), "{stderr}");
    }
    common::usage_errors(
        "stream",
        &[
            (
                &["-s", "ten"],
                "'--arraysize <N>': expected a positive integer",
            ),
            (
                &["--arraysize=-1"],
                "'--arraysize <N>': expected a positive integer",
            ),
            (
                &["-n", "1"],
                "'--numtimes <N>': expected an integer, 2 or more",
            ),
            (&["--numtimes", "-2"], "expected an integer, 2 or more"),
            (
                &["--space", "gpu"],
                "[possible values: serial, threads, cuda]",
            ),
            (&["--space"], "a value is required for '--space <NAME>'"),
            (&["--bogus"], "unexpected argument '--bogus'"),
        ],
    );
}

#[test]
fn help_describes_the_benchmark_and_every_option() {
    let out = ferrokkos(&["stream", "--help"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.starts_with("BabelStream (Copy c=a, Mul b=s*c"),
        "{stdout}"
    );
    assert!(
        stdout.contains("Usage: ferrokkos stream [OPTIONS]"),
        "{stdout}"
    );
    for option in [
        "-s, --arraysize <N>",
        "[default: 33554432]",
        "-n, --numtimes <N>",
        "[default: 100]",
        "--float",
        "-o, --only <NAME>",
        "--space <NAME>",
        "--compare",
        "--csv",
        "--mibibytes",
        "-h, --help",
    ] {
        assert!(stdout.contains(option), "no {option:?} in:\n{stdout}");
    }
}

#[test]
fn copies_on_cuda_without_a_gpu_fail_with_the_reason() {
    common::fails_without_cuda(&["stream", "--space", "cuda", "--only", "Copies", "--compare"]);
}

/// The CSV's numbers carry no rounding noise: times stop at nanoseconds, rates at three
/// decimals (an average of repetitions printed in full would show 16 or 17 digits).
#[test]
fn csv_numbers_are_short() {
    let stdout = stream(&["--csv", "-s", "1000", "-n", "5", "--space", "serial"]);
    for row in stdout.lines().skip(1) {
        for field in row.split(',').skip(4) {
            let digits = field
                .trim_start_matches(['0', '.'])
                .chars()
                .filter(char::is_ascii_digit)
                .count();
            assert!(digits <= 13, "{field} in {row}");
            let _: f64 = field.parse().unwrap();
        }
    }
}
