//! The vector instructions host kernels are compiled for, chosen when the program runs.
//!
//! A Rust binary built for the default x86-64 target may use SSE2 only, so a vectorized loop
//! does two `f64`s per instruction even on a CPU that could do four. The host drivers' loops
//! (see [`wide_or_plain!`]) are therefore compiled twice: once for the build's target and once
//! with AVX2 and FMA enabled ("wide"), and every call picks the wide copy where the CPU has those
//! instructions and the runtime's settings allow it (`InitSettings::wide_vectors`).
//!
//! Both copies compute the same bits: Rust never contracts a multiply and an add into an FMA nor
//! reassociates floating-point operations, whatever the target features, so the wider vectors
//! only change how many lanes each instruction works on (a reduction's grouping is fixed by the
//! drivers, see `point.rs`, not by the vector width).
//!
//! Invariant: the wide copy is called only when [`wide`] is true, and [`wide`] is true only on a
//! CPU that reported AVX2 and FMA at run time.

use std::sync::atomic::{AtomicBool, Ordering};

/// Whether the runtime's settings allow the wide copies (set when the host backend starts).
static ALLOWED: AtomicBool = AtomicBool::new(true);

/// Allows or forbids the wide copies from now on (`InitSettings::wide_vectors`). Either choice is
/// sound: [`wide`] also asks the CPU.
pub(super) fn allow(on: bool) {
    ALLOWED.store(on, Ordering::Relaxed);
}

/// Whether this CPU has the instructions the wide copies are compiled for.
fn cpu_has_wide() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // The standard library caches the answer: after the first call this is two loads.
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether a host loop should run its wide copy: the settings allow it and the CPU has AVX2 and
/// FMA.
#[inline]
pub(super) fn wide() -> bool {
    ALLOWED.load(Ordering::Relaxed) && cpu_has_wide()
}

/// The vector instructions that Serial and Threads kernels run with now: `"avx2+fma"` where the
/// CPU has them and [`InitSettings::wide_vectors`](crate::InitSettings::wide_vectors) is on (the
/// default), else `"baseline"` (what the program was built for).
///
/// ```
/// let _rt = ferrokkos::initialize(ferrokkos::InitSettings::new())?;
/// let isa = ferrokkos::host_vector_instructions();
/// assert!(isa == "avx2+fma" || isa == "baseline");
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn host_vector_instructions() -> &'static str {
    if wide() { "avx2+fma" } else { "baseline" }
}

/// Defines a host driver loop `fn $name[generics](args) where [bounds] { body }` (generics and
/// bounds in brackets, the `where` part optional) that is compiled twice, for the build's target
/// and with AVX2 and FMA, and runs the wide copy where [`wide`] says so. Both copies take their arguments as the loop does
/// (the kernel by `&K`, so that its captures stay in registers; see `range.rs`), and neither is
/// inlined into its caller.
///
/// In each copy the body sees a constant `WIDE` (true in the wide one). A body that hands a
/// closure to a generic helper should pass it on as a const parameter (as `walk` does): otherwise
/// both copies call one instance of the closure, which the compiler then no longer inlines into
/// either (two callers, a large body), and the loop loses its vectorization.
macro_rules! wide_or_plain {
    (
        $(#[$attr:meta])*
        fn $name:ident[$($gen:tt)*]($($arg:ident: $ty:ty),* $(,)?)
        $(where [$($bound:tt)*])? $body:block
    ) => {
        $(#[$attr])*
        #[inline(never)]
        fn $name<$($gen)*>($($arg: $ty),*) $(where $($bound)*)? {
            #[cfg(target_arch = "x86_64")]
            {
                /// The same loop, compiled with AVX2 and FMA.
                #[target_feature(enable = "avx2,fma")]
                #[inline(never)]
                fn wide<$($gen)*>($($arg: $ty),*) $(where $($bound)*)? {
                    #[allow(dead_code)]
                    const WIDE: bool = true;
                    $body
                }

                if $crate::backend::host::isa::wide() {
                    // SAFETY: `wide()` is true only where the CPU reported AVX2 and FMA at run
                    // time, the features `wide` is compiled with; nothing else differs.
                    return unsafe { wide($($arg),*) };
                }
            }
            #[allow(dead_code)]
            const WIDE: bool = false;
            $body
        }
    };
}

pub(super) use wide_or_plain;

#[cfg(test)]
mod tests {
    use super::*;

    wide_or_plain! {
        /// A dot product with eight independent partial sums, as the chunked reductions do.
        fn dot[](a: &[f64], b: &[f64], out: &mut [f64; 8]) {
            for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
                for ((o, x), y) in out.iter_mut().zip(x).zip(y) {
                    *o += x * y + 0.1 * x;
                }
            }
        }
    }

    #[test]
    fn the_wide_and_the_plain_copy_give_the_same_bits() {
        let a: Vec<f64> = (0..4096).map(|i| (i as f64).sin() * 1e3).collect();
        let b: Vec<f64> = (0..4096).map(|i| (i as f64 * 0.37).cos() / 7.0).collect();
        let mut expected = [0.0f64; 8];
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            expected[i % 8] += x * y + 0.1 * x;
        }
        let run = |on: bool| {
            allow(on);
            let picked = host_vector_instructions();
            let mut out = [0.0; 8];
            dot(&a, &b, &mut out);
            (picked, out.map(f64::to_bits))
        };
        // Only this test forbids the wide copies; a runtime starting meanwhile may allow them
        // again, so the plain run's choice is not asserted.
        let (plain, wide) = (run(false), run(true));
        assert_eq!(plain.1, expected.map(f64::to_bits));
        let wide_name = if cpu_has_wide() {
            "avx2+fma"
        } else {
            "baseline"
        };
        assert_eq!(wide, (wide_name, expected.map(f64::to_bits)));
    }
}
