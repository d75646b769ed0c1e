//! The Cuda peer of `ferrokkos sort --compare`: CUB's `cub::DeviceRadixSort::SortKeys` and
//! `SortPairs`, and `cub::DeviceMergeSort::SortKeys` with a less-than functor, in a small CUDA C++ program (`imp::SOURCE`) that is written into a temporary
//! directory, compiled there by nvcc (`-O3 -std=c++17 -arch=native`, or without `-arch` if that
//! fails) and run on the same GPU as ferrokkos. It sorts the same keys (splitmix64 from the same
//! seed) and the same pairs, times each sort call alone with CUDA events after one warm-up,
//! checks the results on the host, and prints its best and median times, which become rows of the
//! report. No nvcc, a failed compilation or a failed run skip the peer with the reason; a
//! wrong result is a failure.

use super::Row;
use crate::Failure;

/// The peer's rows (keys, pairs, then the merge sort if `comparator`) for `n` keys and `runs`
/// timed runs of keys from `seed`; `Ok(Err(why))` when it was skipped (a line saying why), `Err`
/// when it gave a wrong result.
pub fn rows(
    n: usize,
    runs: usize,
    seed: u64,
    comparator: bool,
) -> Result<Result<Vec<Row>, String>, Failure> {
    #[cfg(feature = "peers")]
    {
        Ok(imp::rows(n, runs, seed, comparator)?.map_err(|why| format!("CUB peer skipped: {why}")))
    }
    #[cfg(not(feature = "peers"))]
    {
        let _ = (n, runs, seed, comparator);
        Ok(Err(
            "CUB peer skipped: it needs ferrokkos-cli built with the `peers` feature".into(),
        ))
    }
}

#[cfg(feature = "peers")]
mod imp {
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};
    use std::time::{SystemTime, UNIX_EPOCH};

    use super::super::{Kind, Row};
    use crate::Failure;
    use crate::progress::Progress;

    /// The peer's CUDA C++ source.
    pub const SOURCE: &str = r##"// The CUB peer of `ferrokkos sort --compare`, written out and compiled with nvcc by the
// ferrokkos command. Usage: cub_sort N RUNS SEED DEVICE MERGE. Sorts N uniform random u32 keys
// (splitmix64 from SEED, as ferrokkos generates them) with cub::DeviceRadixSort::SortKeys, then N
// (key, original index) pairs with SortPairs, then (MERGE = 1) the keys with
// cub::DeviceMergeSort::SortKeys and a less-than functor, on GPU DEVICE: one warm-up, then RUNS runs timed with
// events around the sort call alone, the input restored with cudaMemcpy before each (not timed);
// temporary storage allocated once. Checks each result on the host and prints "keys BEST MEDIAN",
// "pairs BEST MEDIAN" and "merge BEST MEDIAN" (seconds). Exit status: 0; 1 on a CUDA error; 2 on a wrong result.
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using u32 = std::uint32_t;
using u64 = std::uint64_t;

// Ends the program with status 1 on a CUDA error, naming the call.
#define CHECK(call)                                                        \
  do {                                                                     \
    cudaError_t err_ = (call);                                             \
    if (err_ != cudaSuccess) {                                             \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err_));   \
      std::exit(1);                                                        \
    }                                                                      \
  } while (0)

// One step of splitmix64: advances state, returns its next output.
static u64 splitmix64(u64 &state) {
  u64 z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The wrapping sum of a hash of each key: the same for every order of the same keys.
static u64 fingerprint(const std::vector<u32> &keys) {
  u64 sum = 0;
  for (u32 k : keys) {
    u64 s = k;
    sum += splitmix64(s);
  }
  return sum;
}

// A wrong result: says what and where, ends with status 2.
[[noreturn]] static void wrong(const char *what, std::size_t i) {
  std::fprintf(stderr, "wrong result: %s at index %zu\n", what, i);
  std::exit(2);
}

// The n elements at d, copied to the host.
static std::vector<u32> download(const u32 *d, u32 n) {
  std::vector<u32> h(n);
  CHECK(cudaMemcpy(h.data(), d, std::size_t(n) * sizeof(u32), cudaMemcpyDeviceToHost));
  return h;
}

// Sorted keys: in order, and a permutation of the input.
static void check_keys(const std::vector<u32> &original, const std::vector<u32> &keys) {
  for (std::size_t i = 1; i < keys.size(); ++i)
    if (keys[i - 1] > keys[i]) wrong("SortKeys: keys out of order", i);
  if (fingerprint(keys) != fingerprint(original))
    wrong("SortKeys: the keys are not a permutation of the input", 0);
}

// The merge sort's comparator.
struct Less {
  __device__ bool operator()(const u32 &a, const u32 &b) const { return a < b; }
};

// Sorted pairs: keys in order, every index once, each beside its own key, stable.
static void check_pairs(const std::vector<u32> &original, const std::vector<u32> &keys,
                        const std::vector<u32> &values) {
  std::vector<char> seen(original.size(), 0);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const u32 v = values[i];
    if (i > 0 && keys[i - 1] > keys[i]) wrong("SortPairs: keys out of order", i);
    if (v >= original.size() || seen[v]) wrong("SortPairs: the values are no permutation", i);
    seen[v] = 1;
    if (original[v] != keys[i]) wrong("SortPairs: a value beside another key than its own", i);
    if (i > 0 && keys[i - 1] == keys[i] && values[i - 1] > values[i])
      wrong("SortPairs: not stable", i);
  }
}

// Prints "KIND BEST MEDIAN" of the times t (seconds).
static void print_times(const char *kind, std::vector<double> t) {
  std::sort(t.begin(), t.end());
  const std::size_t m = t.size();
  const double median = m % 2 ? t[m / 2] : (t[m / 2 - 1] + t[m / 2]) / 2;
  std::printf("%s %.9e %.9e\n", kind, t[0], median);
}

// One warm-up and runs timed calls of sort (which returns a cudaError_t), each after restore
// (not timed), with events around the call alone on the default stream.
template <class Restore, class Sort>
static std::vector<double> timed(int runs, Restore restore, Sort sort) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<double> t;
  for (int r = 0; r <= runs; ++r) {
    restore();
    CHECK(cudaEventRecord(start));
    CHECK(sort());
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (r > 0) t.push_back(ms * 1e-3);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return t;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s N RUNS SEED DEVICE MERGE\n", argv[0]);
    return 1;
  }
  const u32 n = u32(std::strtoull(argv[1], nullptr, 10));
  const int runs = std::atoi(argv[2]);
  u64 state = std::strtoull(argv[3], nullptr, 10);
  CHECK(cudaSetDevice(std::atoi(argv[4])));
  std::vector<u32> original(n), indices(n);
  for (u32 i = 0; i < n; ++i) {
    original[i] = u32(splitmix64(state) >> 32);
    indices[i] = i;
  }
  const std::size_t bytes = std::size_t(n) * sizeof(u32);
  u32 *keys_original, *values_original, *keys_in, *keys_out, *values_in, *values_out;
  for (u32 **p : {&keys_original, &values_original, &keys_in, &keys_out, &values_in, &values_out})
    CHECK(cudaMalloc(p, bytes));
  CHECK(cudaMemcpy(keys_original, original.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(values_original, indices.data(), bytes, cudaMemcpyHostToDevice));
  std::size_t keys_bytes = 0, pairs_bytes = 0;
  CHECK(cub::DeviceRadixSort::SortKeys(nullptr, keys_bytes, keys_in, keys_out, n));
  CHECK(cub::DeviceRadixSort::SortPairs(nullptr, pairs_bytes, keys_in, keys_out, values_in,
                                        values_out, n));
  const std::size_t temp_bytes = std::max(keys_bytes, pairs_bytes);
  void *temp = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes));
  auto restore = [&] {
    CHECK(cudaMemcpy(keys_in, keys_original, bytes, cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpy(values_in, values_original, bytes, cudaMemcpyDeviceToDevice));
  };
  const std::vector<double> keys_times = timed(runs, restore, [&] {
    std::size_t b = temp_bytes;
    return cub::DeviceRadixSort::SortKeys(temp, b, keys_in, keys_out, n);
  });
  check_keys(original, download(keys_out, n));
  print_times("keys", keys_times);
  const std::vector<double> pairs_times = timed(runs, restore, [&] {
    std::size_t b = temp_bytes;
    return cub::DeviceRadixSort::SortPairs(temp, b, keys_in, keys_out, values_in, values_out, n);
  });
  check_pairs(original, download(keys_out, n), download(values_out, n));
  print_times("pairs", pairs_times);
  if (std::atoi(argv[5]) == 1) {
    std::size_t merge_bytes = 0;
    CHECK(cub::DeviceMergeSort::SortKeys(nullptr, merge_bytes, keys_in, n, Less()));
    void *merge_temp = nullptr;
    CHECK(cudaMalloc(&merge_temp, merge_bytes));
    const std::vector<double> merge_times = timed(runs, restore, [&] {
      std::size_t b = merge_bytes;
      return cub::DeviceMergeSort::SortKeys(merge_temp, b, keys_in, n, Less());
    });
    check_keys(original, download(keys_in, n));
    print_times("merge", merge_times);
    CHECK(cudaFree(merge_temp));
  }
  for (void *p : {(void *)keys_original, (void *)values_original, (void *)keys_in,
                  (void *)keys_out, (void *)values_in, (void *)values_out, temp})
    CHECK(cudaFree(p));
  return 0;
}
"##;

    /// The nvcc found first in `$CUDA_HOME/bin`, `/usr/local/cuda/bin`, then PATH's directories,
    /// or why none was.
    fn find_nvcc() -> Result<PathBuf, String> {
        let cuda_home = std::env::var_os("CUDA_HOME").filter(|h| !h.is_empty());
        let path = std::env::var_os("PATH").unwrap_or_default();
        let found = cuda_home
            .iter()
            .map(|h| Path::new(h).join("bin"))
            .chain([PathBuf::from("/usr/local/cuda/bin")])
            .chain(std::env::split_paths(&path))
            .map(|dir| dir.join("nvcc"))
            .find(|nvcc| nvcc.is_file());
        found.ok_or_else(|| {
            let home = match &cuda_home {
                Some(h) => format!("{}/bin", Path::new(h).display()),
                None => "$CUDA_HOME/bin (CUDA_HOME unset)".into(),
            };
            format!("no nvcc found (looked in {home}, /usr/local/cuda/bin and PATH)")
        })
    }

    /// "CUDA 13.0", from `nvcc --version` ("Cuda compilation tools, release 13.0, V13.0.48").
    fn cuda_version(nvcc: &Path) -> String {
        let out = Command::new(nvcc).arg("--version").output();
        let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        text.ok()
            .and_then(|t| {
                let release = t.split("release ").nth(1)?;
                Some(format!("CUDA {}", release.split(',').next()?.trim()))
            })
            .unwrap_or_else(|| "CUDA, version unknown".into())
    }

    /// A new directory in the system's temporary directory, removed with its files when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        /// Creates `ferrokkos-sort-cub-PID-NANOS`.
        fn new() -> Result<TempDir, String> {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let name = format!("ferrokkos-sort-cub-{}-{nanos}", std::process::id());
            let dir = std::env::temp_dir().join(name);
            std::fs::create_dir(&dir)
                .map_err(|e| format!("creating the directory {}: {e}", dir.display()))?;
            Ok(TempDir(dir))
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            // Nothing better to do than to leave it for the system's cleaning.
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// The last lines of a program's standard error (or output), for a message.
    fn tail(bytes: &[u8]) -> String {
        let text = String::from_utf8_lossy(bytes);
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let last = &lines[lines.len().saturating_sub(8)..];
        if last.is_empty() {
            "(no output)".into()
        } else {
            last.join("\n    ")
        }
    }

    /// How a finished program ended, for a message: `exit status: 1; stderr: ...` (the end of
    /// the error output).
    fn ended(out: &Output) -> String {
        format!("{}; stderr: {}", out.status, tail(&out.stderr))
    }

    /// Writes the source into `dir` and compiles it with `nvcc`, with `-arch=native` then, if that
    /// fails, without: the program, and whether `-arch=native` was dropped.
    fn compile(nvcc: &Path, dir: &Path) -> Result<(PathBuf, bool), String> {
        let source = dir.join("cub_sort.cu");
        let exe = dir.join("cub_sort");
        std::fs::write(&source, SOURCE)
            .map_err(|e| format!("writing {}: {e}", source.display()))?;
        let _spinner = Progress::spinner("sort: compiling the CUB peer with nvcc");
        let mut why = String::new();
        for (flags, dropped) in [(&["-arch=native"][..], false), (&[][..], true)] {
            let out = Command::new(nvcc)
                .args(["-O3", "-std=c++17"])
                .args(flags)
                .arg("-o")
                .arg(&exe)
                .arg(&source)
                .output()
                .map_err(|e| format!("starting {}: {e}", nvcc.display()))?;
            if out.status.success() {
                return Ok((exe, dropped));
            }
            why = ended(&out);
        }
        Err(format!("nvcc failed ({why})"))
    }

    /// The best and median seconds of the `keys` and `pairs` lines of the program's output, and
    /// of its `merge` line if it has one.
    fn parse(stdout: &str) -> Option<Times> {
        let line = |kind: &str| {
            stdout.lines().find_map(|l| {
                let mut words = l.split_whitespace();
                if words.next()? != kind {
                    return None;
                }
                let best = words.next()?.parse().ok()?;
                Some((best, words.next()?.parse().ok()?))
            })
        };
        Some(Times {
            keys: line("keys")?,
            pairs: line("pairs")?,
            merge: line("merge"),
        })
    }

    /// The program's (best, median) seconds.
    #[derive(Debug, PartialEq)]
    struct Times {
        keys: (f64, f64),
        pairs: (f64, f64),
        merge: Option<(f64, f64)>,
    }

    /// Runs the program for `n` keys, `runs` runs, `seed` on the GPU `device`, the merge sort too
    /// if `merge`: its times, or why it did not run (`Ok(Err)`), or its wrong result (`Err`).
    fn execute(
        exe: &Path,
        n: usize,
        runs: usize,
        seed: u64,
        device: usize,
        merge: bool,
    ) -> Result<Result<Times, String>, Failure> {
        let _spinner = Progress::spinner("sort: running the CUB peer");
        let out = Command::new(exe)
            .args([n, runs].map(|a| a.to_string()))
            .args([seed.to_string(), device.to_string()])
            .arg(if merge { "1" } else { "0" })
            .output();
        let out = match out {
            Ok(out) => out,
            Err(e) => return Ok(Err(format!("starting {}: {e}", exe.display()))),
        };
        if out.status.code() == Some(2) {
            return Err(Failure::Run(format!(
                "sort: CUB peer: {}",
                tail(&out.stderr)
            )));
        }
        if !out.status.success() {
            return Ok(Err(format!("its run failed ({})", ended(&out))));
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        Ok(parse(&stdout).ok_or_else(|| format!("unexpected output: {}", tail(&out.stdout))))
    }

    /// See [`super::rows`]; the reason of a skip without its "CUB peer skipped: ".
    pub fn rows(
        n: usize,
        runs: usize,
        seed: u64,
        comparator: bool,
    ) -> Result<Result<Vec<Row>, String>, Failure> {
        let prepared = (|| {
            let nvcc = find_nvcc()?;
            let device = ferrokkos::Cuda::device()
                .map_err(|e| e.to_string())?
                .ordinal;
            let dir = TempDir::new()?;
            let (exe, dropped) = compile(&nvcc, &dir.0)?;
            Ok::<_, String>((cuda_version(&nvcc), device, dir, exe, dropped))
        })();
        let (version, device, _dir, exe, dropped) = match prepared {
            Ok(p) => p,
            Err(why) => return Ok(Err(why)),
        };
        let times = match execute(&exe, n, runs, seed, device, comparator)? {
            Ok(times) => times,
            Err(why) => return Ok(Err(why)),
        };
        let how = if dropped {
            format!("{version}, nvcc without -arch=native")
        } else {
            format!("{version}, nvcc -arch=native")
        };
        let row = |name: &str, kind, (best, median): (f64, f64)| Row {
            name: format!("CUB {name} ({how})"),
            kind,
            best,
            median,
        };
        let mut rows = vec![
            row("DeviceRadixSort::SortKeys", Kind::Keys, times.keys),
            row(
                "DeviceRadixSort::SortPairs, stable",
                Kind::Pairs,
                times.pairs,
            ),
        ];
        if let Some(merge) = times.merge {
            rows.push(row(
                "DeviceMergeSort::SortKeys (a < b)",
                Kind::Comparator,
                merge,
            ));
        }
        Ok(Ok(rows))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn the_output_parses_into_keys_pairs_and_merge() {
            let out = "keys 1.5e-03 2.0e-03\npairs 3.000000000e-03 4.0e-03\n";
            let want = Times {
                keys: (1.5e-3, 2e-3),
                pairs: (3e-3, 4e-3),
                merge: None,
            };
            assert_eq!(parse(out), Some(want));
            let with_merge = format!("{out}merge 5e-3 6e-3\n");
            assert_eq!(parse(&with_merge).unwrap().merge, Some((5e-3, 6e-3)));
            assert_eq!(parse("pairs 1 2\n"), None);
            assert_eq!(parse("keys 1\npairs 1 2\n"), None);
        }

        /// The whole peer where nvcc and a GPU are (device 0): compiled, run for a small n, its
        /// output parsed. Slow (nvcc compiles CUB's radix sort for 20 s or so), hence ignored;
        /// `cargo test -p ferrokkos-cli -- --ignored cub` on a GPU machine.
        #[test]
        #[ignore = "compiles CUB with nvcc and runs it on a GPU"]
        fn the_peer_compiles_runs_and_parses_on_a_gpu() {
            let nvcc = find_nvcc().expect("nvcc");
            let dir = TempDir::new().unwrap();
            let (exe, dropped) = compile(&nvcc, &dir.0).unwrap();
            assert!(!dropped, "-arch=native failed");
            let times = execute(&exe, 300_000, 2, 7, 0, true).unwrap().unwrap();
            for t in [times.keys, times.pairs, times.merge.unwrap()] {
                assert!(t.0 > 0.0 && t.0 <= t.1, "{times:?}");
            }
            let version = cuda_version(&nvcc);
            assert!(version.starts_with("CUDA 1"), "{version}");
            let path = dir.0.clone();
            drop(dir);
            assert!(!path.exists(), "{}", path.display());
        }

        #[test]
        fn tails_keep_the_last_lines() {
            let text: String = (0..20).map(|i| format!("line {i}\n")).collect();
            let t = tail(text.as_bytes());
            assert!(t.starts_with("line 12\n    line 13"), "{t}");
            assert!(t.ends_with("line 19"), "{t}");
            assert_eq!(tail(b"\n  \n"), "(no output)");
        }
    }
}
