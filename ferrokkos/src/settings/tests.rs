//! Tests of `settings.rs`.

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
    let e = InitSettings::from_lookup(env(&[("FERROKKOS_DEVICE", "0"), ("KOKKOS_DEVICE_ID", "1")]))
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

#[test]
fn streaming_stores_are_on_by_default_and_turned_off_by_the_environment_or_in_code() {
    assert!(InitSettings::new().uses_streaming_stores());
    assert!(
        !InitSettings::new()
            .streaming_stores(false)
            .uses_streaming_stores()
    );
    let off = InitSettings::from_lookup(env(&[("FERROKKOS_STREAMING_STORES", "0")])).unwrap();
    assert!(!off.uses_streaming_stores());
    let on = InitSettings::from_lookup(env(&[("FERROKKOS_STREAMING_STORES", "on")])).unwrap();
    assert!(on.uses_streaming_stores());
    let e = InitSettings::from_lookup(env(&[("FERROKKOS_STREAMING_STORES", "fast")])).unwrap_err();
    assert!(
        e.to_string()
            .contains("FERROKKOS_STREAMING_STORES=\"fast\""),
        "{e}"
    );
}

#[test]
fn wide_vectors_are_on_by_default_and_turned_off_by_the_environment_or_in_code() {
    assert!(InitSettings::new().uses_wide_vectors());
    assert!(!InitSettings::new().wide_vectors(false).uses_wide_vectors());
    let off = InitSettings::from_lookup(env(&[("FERROKKOS_WIDE_VECTORS", "0")])).unwrap();
    assert!(!off.uses_wide_vectors());
    let on = InitSettings::from_lookup(env(&[("FERROKKOS_WIDE_VECTORS", "1")])).unwrap();
    assert!(on.uses_wide_vectors());
    let e = InitSettings::from_lookup(env(&[("FERROKKOS_WIDE_VECTORS", "maybe")])).unwrap_err();
    assert!(
        e.to_string().contains("FERROKKOS_WIDE_VECTORS=\"maybe\""),
        "{e}"
    );
}

#[test]
fn more_threads_than_hardware_warns_unless_warnings_are_disabled() {
    let many = InitSettings::new().num_threads(64);
    let warning = many.oversubscription_warning(2).expect("a warning");
    assert!(warning.contains("64 threads"), "{warning}");
    assert!(warning.contains("2 hardware threads"), "{warning}");
    assert!(warning.contains("--kokkos-disable-warnings"), "{warning}");
    assert_eq!(many.oversubscription_warning(64), None);
    assert_eq!(InitSettings::new().oversubscription_warning(1), None);
    assert_eq!(
        many.clone()
            .disable_warnings(true)
            .oversubscription_warning(2),
        None
    );
    let (flag, rest) = InitSettings::from_args(["prog", "--kokkos-disable-warnings", "x"]).unwrap();
    assert!(flag.warnings_disabled());
    assert_eq!(rest, ["prog", "x"]);
    let from_env = InitSettings::from_lookup(env(&[("KOKKOS_DISABLE_WARNINGS", "1")])).unwrap();
    assert!(from_env.warnings_disabled());
    assert!(!InitSettings::new().warnings_disabled());
}

#[test]
fn tools_are_required_by_default_and_made_optional_by_flag_variable_or_code() {
    assert!(!InitSettings::new().tools_are_optional());
    assert!(
        InitSettings::new()
            .tools_optional(true)
            .tools_are_optional()
    );
    let (flag, rest) =
        InitSettings::from_args(["prog", "--ferrokkos-tools-optional", "-x"]).unwrap();
    assert!(flag.tools_are_optional());
    assert_eq!(rest, ["prog", "-x"]);
    let from_env = InitSettings::from_lookup(env(&[("FERROKKOS_TOOLS_OPTIONAL", "yes")])).unwrap();
    assert!(from_env.tools_are_optional());
    let e = InitSettings::from_lookup(env(&[("FERROKKOS_TOOLS_OPTIONAL", "perhaps")])).unwrap_err();
    assert!(e.to_string().contains("FERROKKOS_TOOLS_OPTIONAL"), "{e}");
}
