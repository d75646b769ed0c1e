//! Build script of ferrokkos-cli: with the `peers` feature, compiles the OpenMP peers of
//! `stream --compare` and `stencil --compare` (the C in `csrc/`) with the system's C compiler and
//! links its OpenMP runtime.
//!
//! Flags: `-O3 -fopenmp -ffp-contract=off` (no fused multiply-adds, since rustc never fuses them:
//! the stencil's fields must match ferrokkos' bit for bit), plus `-march=X` when the Rust code is
//! built for a CPU (`-C target-cpu=X` in the RUSTFLAGS, `native` included). The compiler and flags are
//! passed to the program as `FERROKKOS_OPENMP_FLAGS`, for the peers' names.
//!
//! A missing OpenMP-capable C compiler (or runtime library) does not fail the build: the script
//! sets the cfg `ferrokkos_no_openmp`, warns, and passes the reason as `FERROKKOS_OPENMP_MISSING`,
//! which `--compare` prints instead of the OpenMP ratios.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(ferrokkos_no_openmp)");
    println!("cargo::rerun-if-changed=build.rs");
    #[cfg(feature = "peers")]
    openmp::build();
}

/// The OpenMP peers' C kernels (only with the `peers` feature, which brings the `cc` crate).
#[cfg(feature = "peers")]
mod openmp {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// The C sources of the peers, in `csrc/`.
    const SOURCES: [&str; 3] = ["omp_alloc.c", "stream_omp.c", "stencil_omp.c"];

    /// A program that needs `-fopenmp` to compile: `omp.h`, a parallel region, a reduction.
    const PROBE: &str = "\
#include <omp.h>
int ferrokkos_openmp_probe(int threads) {
    int n = 0;
#pragma omp parallel num_threads(threads) reduction(+ : n)
    n += omp_get_thread_num() >= 0;
    return n;
}
";

    /// Probes the compiler, then compiles the peers and links the OpenMP runtime; or, when the
    /// compiler cannot, sets `ferrokkos_no_openmp` and says why.
    pub fn build() {
        println!("cargo::rerun-if-changed=csrc");
        // The CPU the Rust code is built for (`-C target-cpu=X`, the last one given): the C gets
        // `-march=X` (`native`, `x86-64-v3`, `sapphirerapids`: gcc and rustc share these names).
        let target_cpu = std::env::var("CARGO_ENCODED_RUSTFLAGS")
            .unwrap_or_default()
            .split('\x1f')
            .flat_map(|f| f.split_whitespace())
            .filter_map(|f| {
                f.strip_prefix("-C")
                    .unwrap_or(f)
                    .strip_prefix("target-cpu=")
            })
            .next_back()
            .map(|cpu| format!("-march={cpu}"));
        let mut flags = vec!["-O3", "-fopenmp", "-ffp-contract=off"];
        if let Some(march) = &target_cpu {
            flags.push(march);
        }
        let mut build = cc::Build::new();
        build.opt_level(3);
        for flag in &flags[1..] {
            build.flag(flag);
        }
        // Working out the compiler here, on the Build that emits Cargo metadata, prints the
        // rerun-if-env-changed lines of the variables that choose it (CC, CFLAGS...), so that a
        // new compiler is probed again even when the probe fails.
        let compiler = match build.try_get_compiler() {
            Ok(compiler) => compiler,
            Err(e) => return skip(&format!("no C compiler found ({e})")),
        };
        match probe(&build, &compiler) {
            Ok(runtime) => {
                let sources = Path::new("csrc");
                build
                    .files(SOURCES.iter().map(|f| sources.join(f)))
                    .include(sources);
                if let Err(e) = build.try_compile("ferrokkos_openmp_peers") {
                    // The probe compiled with these flags, so this is a fault of the sources.
                    panic!("the OpenMP peers (csrc/) do not compile: {e}");
                }
                if let Some(dir) = runtime.dir {
                    println!("cargo::rustc-link-search=native={}", dir.display());
                }
                println!("cargo::rustc-link-lib=dylib={}", runtime.name);
                println!(
                    "cargo::rustc-env=FERROKKOS_OPENMP_FLAGS={} {}",
                    describe(&compiler),
                    flags.join(" ")
                );
            }
            Err(why) => skip(&why),
        }
    }

    /// Builds without the OpenMP peers: sets `ferrokkos_no_openmp`, warns, and passes `why` (one
    /// line) to the program.
    fn skip(why: &str) {
        let why = why.replace(['\n', '\r'], " ");
        println!("cargo::rustc-cfg=ferrokkos_no_openmp");
        println!("cargo::warning=the OpenMP peers are not built: {why}");
        println!("cargo::rustc-env=FERROKKOS_OPENMP_MISSING={why}");
    }

    /// The OpenMP runtime library to link.
    struct Runtime {
        /// Its name for `-l` (`gomp`, `omp`, `iomp5`).
        name: &'static str,
        /// The folder the compiler found it in (`None`: the linker's default search).
        dir: Option<PathBuf>,
    }

    /// Compiles [`PROBE`] with `build`'s compiler and flags and finds the OpenMP runtime library
    /// the compiler uses; the error says what failed, in one line.
    fn probe(build: &cc::Build, compiler: &cc::Tool) -> Result<Runtime, String> {
        let out = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
        let probe = out.join("ferrokkos_openmp_probe.c");
        std::fs::write(&probe, PROBE).map_err(|e| format!("cannot write {probe:?}: {e}"))?;
        let mut probe_build = build.clone();
        probe_build
            .file(&probe)
            .cargo_metadata(false)
            .cargo_warnings(false)
            .warnings(false);
        if let Err(e) = probe_build.try_compile("ferrokkos_openmp_probe") {
            let first = e.to_string().lines().next().unwrap_or_default().to_string();
            return Err(format!(
                "{} cannot compile an OpenMP program with -fopenmp ({first})",
                compiler.path().display()
            ));
        }
        // GCC's runtime is libgomp; clang's is usually libomp (LLVM), sometimes libgomp or Intel's.
        let candidates: &[&'static str] = if compiler.is_like_clang() {
            &["omp", "gomp", "iomp5"]
        } else {
            &["gomp"]
        };
        for &name in candidates {
            if let Some(path) = library_path(compiler, name) {
                return Ok(Runtime {
                    name,
                    dir: path.parent().map(Path::to_path_buf),
                });
            }
        }
        Err(format!(
            "{} compiles OpenMP but its runtime library (lib{}.so) was not found",
            compiler.path().display(),
            candidates.join(".so, lib")
        ))
    }

    /// Where the compiler would link `lib{name}.so` from (`-print-file-name`): `None` when it does
    /// not know the library (it then prints the bare name back).
    fn library_path(compiler: &cc::Tool, name: &str) -> Option<PathBuf> {
        let output = Command::new(compiler.path())
            .arg(format!("-print-file-name=lib{name}.so"))
            .output()
            .ok()?;
        let text = String::from_utf8(output.stdout).ok()?;
        let path = PathBuf::from(text.trim());
        (output.status.success() && path.is_absolute() && path.exists()).then_some(path)
    }

    /// The compiler's family and version, e.g. `gcc 12.2.0` (its file name when the family is not
    /// known).
    fn describe(compiler: &cc::Tool) -> String {
        let (family, version_flag) = if compiler.is_like_clang() {
            ("clang", "-dumpversion")
        } else if compiler.is_like_gnu() {
            ("gcc", "-dumpfullversion")
        } else {
            return compiler
                .path()
                .file_name()
                .map_or_else(|| "cc".into(), |f| f.to_string_lossy().into_owned());
        };
        let version = Command::new(compiler.path())
            .arg(version_flag)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty());
        match version {
            Some(v) => format!("{family} {v}"),
            None => family.to_string(),
        }
    }
}
