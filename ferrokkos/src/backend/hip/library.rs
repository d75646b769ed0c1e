//! Loading a ROCm library at run time (libloading), as the CUDA backend loads libcuda and NVRTC:
//! the first of a list of file names that loads and exports every function a module calls. Each
//! module (`hiprtc.rs`, `runtime_api.rs`) keeps its own table of functions and names; the loading
//! and its error text are here.

use libloading::Library;

use crate::error::{BackendError, Error, Result};

/// The first of `names` for which `load` succeeds, or why none did: each name with its failure,
/// then `fix` (what to install). `what` says what the library had to export (`hiprtc's
/// functions`).
pub(super) fn first_of<T>(
    names: &[&str],
    what: &str,
    fix: &str,
    load: impl Fn(&str) -> std::result::Result<T, String>,
) -> std::result::Result<T, String> {
    let mut why = Vec::new();
    for name in names {
        match load(name) {
            Ok(loaded) => return Ok(loaded),
            Err(e) => why.push(format!("{name}: {e}")),
        }
    }
    Err(format!(
        "none of {names:?} loaded with {what} ({}); {fix}",
        why.join("; ")
    ))
}

/// The library `api` holds (the answer of [`first_of`], kept for the process), or
/// [`BackendError::LibraryMissing`] naming `library` with why none loaded.
pub(super) fn loaded<T>(
    api: &'static std::result::Result<T, String>,
    library: &'static str,
) -> Result<&'static T> {
    api.as_ref().map_err(|hint| {
        Error::Backend(BackendError::LibraryMissing {
            library,
            hint: hint.clone(),
        })
    })
}

/// Opens `name` through the dynamic loader's search (`LD_LIBRARY_PATH`, the runpath, the system
/// directories, where ROCm's installer registers `/opt/rocm/lib`), or an absolute path.
pub(super) fn open(name: &str) -> std::result::Result<Library, String> {
    // SAFETY: loading runs the library's initializers; ROCm's libraries (libamdhip64, libhiprtc)
    // have no preconditions on them (the same trust as loading libcuda or libnvrtc).
    unsafe { Library::new(name) }.map_err(|e| match std::error::Error::source(&e) {
        // libloading's text is "dlopen failed"; the loader's own says why.
        Some(why) => format!("{e}: {why}"),
        None => e.to_string(),
    })
}

/// The function `symbol` (its C name, without NUL) of `library`, as the pointer type `F`, or
/// "does not export <symbol>".
///
/// # Safety
///
/// `F` must be the `unsafe extern "C" fn` type of the symbol's C declaration, and the pointer must
/// not be called after `library` is dropped.
pub(super) unsafe fn function<F: Copy>(
    library: &Library,
    symbol: &[u8],
) -> std::result::Result<F, String> {
    // SAFETY: the caller promises that `F` is the symbol's type.
    unsafe { library.get::<F>(symbol) }
        .map(|f| *f)
        .map_err(|_| format!("does not export {}", String::from_utf8_lossy(symbol)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn when_no_name_loads_the_error_gives_each_failure_and_the_fix() {
        let e = first_of(
            &["liba.so", "libb.so"],
            "its functions",
            "install it",
            |name| Err::<(), _>(format!("{name} missing")),
        )
        .unwrap_err();
        assert_eq!(
            e,
            "none of [\"liba.so\", \"libb.so\"] loaded with its functions (liba.so: liba.so \
             missing; libb.so: libb.so missing); install it"
        );
        let second = first_of(&["liba.so", "libb.so"], "", "", |name| match name {
            "libb.so" => Ok(2),
            _ => Err("no".into()),
        });
        assert_eq!(second, Ok(2));
    }

    #[test]
    fn a_library_that_is_not_there_or_lacks_a_symbol_says_so() {
        let e = open("libferrokkos-no-such-library.so").unwrap_err();
        assert!(e.contains("libferrokkos-no-such-library.so"), "{e}");
        // The C library is always there, and exports no `fk_missing`.
        let libc = open("libc.so.6").expect("libc loads");
        // SAFETY: the pointer type is never called (the lookup fails).
        let missing = unsafe { function::<unsafe extern "C" fn()>(&libc, b"fk_missing") };
        assert_eq!(missing.unwrap_err(), "does not export fk_missing");
    }
}
