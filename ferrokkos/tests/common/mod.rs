//! Helpers shared by the integration tests.
//!
//! Each test binary uses only some of these helpers.
#![allow(dead_code)]

pub mod child;
pub mod tools;

use std::sync::OnceLock;

use ferrokkos::{InitSettings, Runtime};

/// The panic message of `f`, which must panic (a host kernel's out-of-bounds access, say).
pub fn panic_message(f: impl FnOnce() -> ferrokkos::Result<()>) -> String {
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
        .expect_err("the launch must panic");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// Initializes ferrokkos once for this test process. Tests of one binary run on several threads and
/// `initialize` may be called only once per process, so the runtime lives (never finalized) in a static.
/// Threads has 2 threads; the other settings come from the environment (CI runs the conformance
/// tests again with `FERROKKOS_WIDE_VECTORS=0`).
pub fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        let settings = InitSettings::from_env().expect("the FERROKKOS_ variables are invalid");
        ferrokkos::initialize(settings.num_threads(2)).expect("ferrokkos::initialize failed")
    })
}

/// Every multi-index of the box `extents`, the last index fastest (row-major order).
pub fn indices<const R: usize>(extents: [usize; R]) -> Vec<[usize; R]> {
    let count: usize = extents.iter().product();
    let mut out = Vec::with_capacity(count);
    for n in 0..count {
        let mut rest = n;
        let mut index = [0; R];
        for r in (0..R).rev() {
            index[r] = rest % extents[r];
            rest /= extents[r];
        }
        out.push(index);
    }
    out
}

/// The position of `index` in the row-major order of the box `extents`.
pub fn row_major<const R: usize>(index: [usize; R], extents: [usize; R]) -> usize {
    index
        .iter()
        .zip(&extents)
        .fold(0, |acc, (&i, &e)| acc * e + i)
}

/// The memory offset of `index` with these strides.
pub fn offset<const R: usize>(index: [usize; R], strides: [usize; R]) -> usize {
    index.iter().zip(&strides).map(|(i, s)| i * s).sum()
}

/// Row-major compact strides (LayoutRight), computed independently of the library.
pub fn right_strides<const R: usize>(extents: [usize; R]) -> [usize; R] {
    std::array::from_fn(|r| extents[r + 1..].iter().product())
}

/// Column-major compact strides (LayoutLeft), computed independently of the library.
pub fn left_strides<const R: usize>(extents: [usize; R]) -> [usize; R] {
    std::array::from_fn(|r| extents[..r].iter().product())
}

/// Row-major strides of a box whose every extent is padded by `pad` (a non-contiguous layout).
pub fn padded_right_strides<const R: usize>(extents: [usize; R], pad: usize) -> [usize; R] {
    std::array::from_fn(|r| extents[r + 1..].iter().map(|e| e + pad).product())
}

/// Column-major strides of a box whose every extent is padded by `pad`.
pub fn padded_left_strides<const R: usize>(extents: [usize; R], pad: usize) -> [usize; R] {
    std::array::from_fn(|r| extents[..r].iter().map(|e| e + pad).product())
}

/// The span (one past the largest offset) of a box with these extents and strides.
pub fn span<const R: usize>(extents: [usize; R], strides: [usize; R]) -> usize {
    if extents.contains(&0) {
        0
    } else {
        1 + extents
            .iter()
            .zip(&strides)
            .map(|(e, s)| (e - 1) * s)
            .sum::<usize>()
    }
}

/// Checks that `r` is the borrow conflict on `label`: `requested` refused while `held` is alive.
pub fn conflict<T>(
    r: ferrokkos::Result<T>,
    label: &str,
    requested: ferrokkos::BorrowKind,
    held: ferrokkos::BorrowKind,
) {
    match r.err().expect("expected a borrow conflict") {
        ferrokkos::Error::Borrow {
            label: l,
            requested: q,
            held: h,
        } => {
            assert_eq!((l.as_str(), q, h), (label, requested, held));
        }
        other => panic!("unexpected error {other}"),
    }
}

/// A chunk size larger than every range the tests use.
pub const HUGE_CHUNK: usize = 1 << 20;

/// Every schedule / chunk-size configuration of `begin..end` on `exec` (static and dynamic; no chunk,
/// 1, 7 and one larger than the range), each with a description for assertion messages.
pub fn policy_configs<S: ferrokkos::traits::HostExecutionSpace, I: ferrokkos::traits::IndexType>(
    exec: &S,
    begin: I,
    end: I,
) -> Vec<(String, ferrokkos::RangePolicy<S, I>)> {
    use ferrokkos::{RangePolicy, Schedule};
    let base = RangePolicy::new(exec, begin, end).unwrap();
    let mut out = Vec::new();
    for schedule in [Schedule::Static, Schedule::Dynamic] {
        let p = base.clone().schedule(schedule);
        out.push((format!("{} {schedule:?} no chunk", S::NAME), p.clone()));
        for chunk in [1, 7, HUGE_CHUNK] {
            let c = p.clone().chunk_size(chunk).unwrap();
            out.push((format!("{} {schedule:?} chunk {chunk}", S::NAME), c));
        }
    }
    out
}

/// Compiles a kernel's translation unit with NVRTC for sm_80 and sm_90, and its HIP translation
/// with hiprtc for gfx90a (each skipped, with a message, when its compiler is missing, unless
/// `FERROKKOS_REQUIRE_NVRTC=1` / `FERROKKOS_REQUIRE_HIPRTC=1`). Panics with the compiler's log and
/// the generated code if it does not compile.
pub fn check_device_code(tu: &ferrokkos::codegen::TranslationUnit) {
    if ferrokkos::nvrtc::require_or_skip() {
        for arch in [80, 90] {
            match tu.compile_cubin(arch) {
                Ok(cubin) => assert!(
                    cubin.image.starts_with(b"\x7fELF"),
                    "{}: not an ELF image",
                    tu.entry
                ),
                Err(e) => panic!("{e}\n--- generated code ---\n{}", tu.generated()),
            }
        }
    }
    if ferrokkos::hiprtc::require_or_skip() {
        match tu.compile_hip("gfx90a") {
            Ok(object) => assert!(
                object.image.starts_with(b"\x7fELF"),
                "{}: not an ELF code object",
                tu.entry
            ),
            Err(e) => panic!(
                "{e}\n--- generated code (HIP) ---\n{}",
                tu.to_hip().generated()
            ),
        }
    }
}

/// A small deterministic random number generator (xorshift64*), for differential tests.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value but 0 works).
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A float uniform in `[lo, hi)`.
    pub fn f64_in(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }
}

/// The default Threads instance of the test runtime.
pub fn threads() -> ferrokkos::Threads {
    runtime();
    <ferrokkos::Threads as ferrokkos::ExecutionSpace>::default_instance().unwrap()
}

/// A rank-1 View labelled `label` holding `data`.
pub fn view_from<T: ferrokkos::traits::Element>(
    label: &str,
    data: &[T],
) -> ferrokkos::Result<ferrokkos::View<T, 1>> {
    runtime();
    let v = ferrokkos::View::<T, 1>::new(label, [data.len()])?;
    {
        let mut g = v.host_mut()?;
        for (k, x) in data.iter().enumerate() {
            g[k] = *x;
        }
    }
    Ok(v)
}

/// A rank-1 View of `n` random values in [-10, 10), and the values.
pub fn random_view(
    label: &str,
    rng: &mut Rng,
    n: usize,
) -> ferrokkos::Result<(ferrokkos::View<f64, 1>, Vec<f64>)> {
    let data: Vec<f64> = (0..n).map(|_| rng.f64_in(-10.0, 10.0)).collect();
    Ok((view_from(label, &data)?, data))
}

/// The row-major `n` x `m` View holding `flat` (a `kernel!` copy).
pub fn unflatten(
    label: &str,
    flat: &ferrokkos::View<f64, 1>,
    n: usize,
    m: usize,
) -> ferrokkos::Result<ferrokkos::View<f64, 2>> {
    use ferrokkos::prelude::*;
    let u = View::<f64, 2>::new(label, [n, m])?;
    parallel_for(
        "unflatten",
        MDRangePolicy::new(&threads(), [0, 0], [n, m])?,
        kernel!(|(i, j): (usize, usize)| u[(i, j)] = flat[i * u.extent(1) + j]),
    )?;
    Ok(u)
}
