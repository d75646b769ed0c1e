//! Custom reductions on every space: `#[device] impl DeviceJoin for T` gives a device value its
//! identity and join, and `Join<T>` reduces with them (Range and MDRange reductions, scans, and
//! inside a tuple of reducers); the generated C++ defines the reducer struct after the device
//! functions it calls, once, and compiles with NVRTC.

use crate::common::check_device_code;
use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{DeviceJoin, DeviceValue, Join, Result, kernel};

/// The lowest and highest value seen and how many values: a join that is not a sum.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
pub struct Span {
    lo: f64,
    hi: f64,
    n: u64,
}

#[ferrokkos::device]
impl DeviceJoin for Span {
    fn identity() -> Span {
        Span {
            lo: f64::MAX,
            hi: f64::MIN,
            n: 0,
        }
    }
    fn join(self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
            n: self.n + other.n,
        }
    }
}

/// A value of one number.
#[ferrokkos::device]
fn one(v: f64) -> Span {
    Span { lo: v, hi: v, n: 1 }
}

/// The largest gap between consecutive values, with the first and last value: a join that does not
/// commute (order matters). The host spaces join partial results in index order, so it matches a
/// sequential fold there; the GPU combines in any order (a join must commute to run there).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
pub struct Gaps {
    first: f64,
    last: f64,
    widest: f64,
    n: u64,
}

#[ferrokkos::device]
impl DeviceJoin for Gaps {
    fn identity() -> Gaps {
        Gaps {
            first: 0.0,
            last: 0.0,
            widest: 0.0,
            n: 0,
        }
    }
    fn join(self, other: Gaps) -> Gaps {
        if self.n == 0 {
            other
        } else if other.n == 0 {
            self
        } else {
            let between = (other.first - self.last).abs();
            Gaps {
                first: self.first,
                last: other.last,
                widest: self.widest.max(other.widest).max(between),
                n: self.n + other.n,
            }
        }
    }
}

fn data(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| ((i * 7919) % 1000) as f64 / 10.0 - 30.0)
        .collect()
}

fn custom_device_reducers_match_a_sequential_fold<S: Launch>(exec: &S) -> Result<()> {
    for n in [0usize, 1, 7, 1000, 100_003] {
        let values = data(n);
        let x = upload::<S, f64>("x", &values)?;
        let policy = RangePolicy::new(exec, 0, n)?;
        let span = parallel_reduce(
            "span",
            policy.clone(),
            kernel!(|i, acc: &mut Span| *acc = acc.join(one(x[i]))),
            Join::<Span>::new(),
        )?;
        let want = values.iter().fold(Span::identity(), |a, v| a.join(one(*v)));
        assert_eq!(span, want, "n = {n}");

        // In a tuple of reducers, next to a built-in one.
        let (s, total) = parallel_reduce(
            "span and sum",
            policy,
            kernel!(|i, acc: &mut Span, sum: &mut f64| {
                *acc = acc.join(one(x[i]));
                *sum += x[i];
            }),
            (Join::<Span>::new(), Sum::<f64>::new()),
        )?;
        assert_eq!(s, span);
        let want: f64 = values.iter().sum();
        assert!(
            (total - want).abs() <= 1e-9 * want.abs().max(1.0),
            "{total} {want}"
        );
    }
    Ok(())
}
/// On the host spaces partial results are joined in index order: a join that does not commute
/// matches the sequential fold.
#[test]
fn host_spaces_join_custom_partials_in_index_order() -> Result<()> {
    crate::common::runtime();
    fn check<S: ferrokkos::traits::HostExecutionSpace + Launch>(exec: &S) -> Result<()> {
        for n in [0usize, 1, 7, 1000, 100_003] {
            let values = data(n);
            let x = upload::<S, f64>("x", &values)?;
            let gaps = parallel_reduce(
                "gaps",
                RangePolicy::new(exec, 0, n)?,
                kernel!(|i, acc: &mut Gaps| {
                    let v = x[i];
                    *acc = acc.join(Gaps {
                        first: v,
                        last: v,
                        widest: 0.0,
                        n: 1,
                    });
                }),
                Join::<Gaps>::new(),
            )?;
            let want = values.iter().fold(Gaps::identity(), |a, v| {
                a.join(Gaps {
                    first: *v,
                    last: *v,
                    widest: 0.0,
                    n: 1,
                })
            });
            assert_eq!(gaps, want, "{} n = {n}", S::NAME);
        }
        Ok(())
    }
    check(&Serial::default_instance()?)?;
    check(&Threads::default_instance()?)
}

per_space!(
    custom_device_reducers_match_a_sequential_fold,
    custom_device_reducers_match_a_sequential_fold
);

fn custom_device_reducers_in_md_ranges_and_scans<S: Launch>(exec: &S) -> Result<()> {
    let (rows, cols) = (37usize, 53usize);
    let values = data(rows * cols);
    let a = crate::spaces::upload_nd::<S, f64, 2, LayoutRight>("a", [rows, cols], &values)?;
    let span = parallel_reduce(
        "md span",
        MDRangePolicy::new(exec, [0, 0], [rows as i64, cols as i64])?,
        kernel!(|(i, j), acc: &mut Span| *acc = acc.join(one(a[(i, j)]))),
        Join::<Span>::new(),
    )?;
    let want = values.iter().fold(Span::identity(), |s, v| s.join(one(*v)));
    assert_eq!(span, want);

    // A scan with a custom join: the running span of each prefix.
    let n = values.len();
    let x = upload::<S, f64>("x", &values)?;
    let running = SView::<S, f64, 1>::new("running width", [n])?;
    let total = ferrokkos::parallel_scan_with(
        "running span",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i, partial: &mut Span, last: bool| {
            *partial = partial.join(one(x[i]));
            if last {
                running[i] = partial.hi - partial.lo;
            }
        }),
        Join::<Span>::new(),
    )?;
    assert_eq!(total, want);
    let mut acc = Span::identity();
    let widths: Vec<f64> = values
        .iter()
        .map(|v| {
            acc = acc.join(one(*v));
            acc.hi - acc.lo
        })
        .collect();
    assert_eq!(download(&running)?, widths);
    Ok(())
}
per_space!(
    custom_device_reducers_in_md_ranges_and_scans,
    custom_device_reducers_in_md_ranges_and_scans
);

/// The unit defines the value type, the C++ forms of `identity` and `join`, then the reducer struct
/// that calls them, each once (also when a tuple holds the reducer twice), and NVRTC compiles it.
#[test]
fn a_custom_device_reducer_is_defined_after_its_functions_and_compiles() -> Result<()> {
    crate::common::runtime();
    let x = View::<f64, 1>::new("x", [4])?;
    let k = kernel!(|i, acc: &mut Span| *acc = acc.join(one(x[i])));
    let tu = TranslationUnit::reduce_kernel::<Join<Span>, _>(&k, Iterate::Right);
    let text = tu.generated();
    let ty = text.find("struct Span {").expect("Span defined");
    let join = text
        .find("static __device__ Span Span_join_fn(")
        .expect("join defined");
    let reducer = text.find("struct FkJoin_").expect("reducer defined");
    assert!(ty < join && join < reducer, "{text}");
    assert_eq!(text.matches("struct FkJoin_").count(), 1, "{text}");
    check_device_code(&tu);

    let k2 = kernel!(|i, a: &mut Span, b: &mut Span| {
        *a = a.join(one(x[i]));
        *b = b.join(one(-x[i]));
    });
    let tu = TranslationUnit::reduce_kernel::<(Join<Span>, Join<Span>), _>(&k2, Iterate::Right);
    assert_eq!(tu.generated().matches("struct FkJoin_").count(), 1);
    check_device_code(&tu);

    let k3 = kernel!(|i, p: &mut Gaps, _last: bool| {
        *p = p.join(Gaps {
            first: x[i],
            last: x[i],
            widest: 0.0,
            n: 1,
        })
    });
    check_device_code(&TranslationUnit::scan_kernel::<Join<Gaps>, _>(&k3));
    Ok(())
}
