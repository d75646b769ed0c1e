//! Tests of `runtime_api.rs`. The pure ones run everywhere; those that ask the library need
//! `libamdhip64` (no GPU) and are skipped without it, unless `FERROKKOS_REQUIRE_HIPRTC=1` (the
//! same packages as hiprtc) makes its absence a failure.

use super::*;
use std::collections::HashMap;

/// `true` when libamdhip64 is loaded; `false`, after saying why, when the test should be skipped.
fn library_or_skip() -> bool {
    match api() {
        Ok(_) => true,
        Err(hint) if std::env::var("FERROKKOS_REQUIRE_HIPRTC").is_ok_and(|v| v.trim() == "1") => {
            panic!("FERROKKOS_REQUIRE_HIPRTC=1 is set but libamdhip64 is not usable: {hint}")
        }
        Err(hint) => {
            eprintln!("skipped: libamdhip64 is not usable ({hint})");
            false
        }
    }
}

#[test]
fn the_librarys_error_names_agree_with_the_table() {
    if !library_or_skip() {
        return;
    }
    for (code, name) in NAMES {
        assert_eq!(error_name(code), name, "error {code}");
    }
    // A number the library does not know.
    assert_eq!(error_name(12_345), "hipErrorUnknown");
}

#[test]
fn without_the_library_names_come_from_the_table_or_the_number() {
    assert_eq!(table_name(NO_DEVICE), Some("hipErrorNoDevice"));
    assert_eq!(table_name(700), Some("hipErrorIllegalAddress"));
    assert_eq!(table_name(12_345), None);
}

#[test]
fn a_failed_call_is_an_error_naming_the_call_the_error_and_what_was_done() {
    assert!(check(0, "hipMalloc", || unreachable!()).is_ok());
    let e = check(2, "hipMalloc", || {
        "allocating View \"x\" in HipSpace".into()
    })
    .unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Backend(BackendError::Hip {
                call: "hipMalloc",
                code: 2,
                ..
            })
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "allocating View \"x\" in HipSpace: hipMalloc failed with hipErrorOutOfMemory (error 2): \
         the GPU's memory is exhausted: free Views, or allocate fewer or smaller ones"
    );
    // An error with no known fix has no hint.
    let e = check(600, "hipStreamQuery", || "polling".into()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "polling: hipStreamQuery failed with hipErrorNotReady (error 600)"
    );
}

#[test]
fn errors_with_a_known_fix_say_what_to_check() {
    assert!(
        hint(NO_DEVICE).contains("/dev/kfd") && hint(NO_DEVICE).contains("HIP_VISIBLE_DEVICES")
    );
    assert!(hint(209).contains("xnack") && hint(200) == hint(209));
    assert!(hint(700).contains("faulted") && hint(719) == hint(700));
    assert!(hint(101).contains("renumber"));
    assert_eq!(hint(1), "");
}

/// This machine has no AMD GPU: the runtime answers `hipErrorNoDevice`, which is a count of 0,
/// not an error; the versions answer without a GPU (ROCm 5.2 here: 5.2.x).
#[test]
fn without_an_amd_gpu_the_device_count_is_zero_and_the_versions_answer() {
    if !library_or_skip() {
        return;
    }
    let (runtime, driver) = versions().unwrap();
    assert!(runtime >= 50_000_000, "runtime version {runtime}");
    assert!(driver >= 50_000_000, "driver version {driver}");
    if std::path::Path::new("/dev/kfd").exists() {
        eprintln!("this machine has /dev/kfd: an AMD GPU may be present, the count is not checked");
        return;
    }
    assert_eq!(device_count().unwrap(), 0);
}

#[test]
fn a_missing_device_is_an_error_naming_the_ordinal_the_count_and_the_visibility_variables() {
    let vars: HashMap<&str, &str> = [("HIP_VISIBLE_DEVICES", "1,3")].into();
    let var = |name: &str| vars.get(name).map(|v| v.to_string());
    assert_eq!(check_device(1, 2, var).unwrap(), 1);
    let e = check_device(2, 2, var).unwrap_err();
    assert!(
        matches!(&e, Error::Unavailable { space: "HIP", .. }),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(
        text.contains(
            "there is no AMD GPU 2: the HIP runtime sees 2 AMD GPU(s) (valid ordinals 0..2)"
        ),
        "{text}"
    );
    assert!(text.contains("set: HIP_VISIBLE_DEVICES=\"1,3\""), "{text}");
    let text = check_device(0, 0, |_| None).unwrap_err().to_string();
    assert!(text.contains("the HIP runtime sees no AMD GPU"), "{text}");
    assert!(
        text.contains(
            "none of ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES is set"
        ),
        "{text}"
    );
}
