//! Custom reductions on every space: `#[device] impl DeviceJoin for T` gives a device value its
//! identity and join, and `Join<T>` reduces with them (Range and MDRange reductions, scans, and
//! inside a tuple of reducers); the generated C++ defines the reducer struct after the device
//! functions it calls, once, and compiles with NVRTC.

use crate::common::check_device_code;
use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::{TranslationUnit, UnitOptions};
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
/// commute (order matters), so the block says so and every space joins in index order.
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
    const COMMUTATIVE: bool = false;
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
/// One value's contribution to [`Gaps`].
#[ferrokkos::device]
fn gap(v: f64) -> Gaps {
    Gaps {
        first: v,
        last: v,
        widest: 0.0,
        n: 1,
    }
}

/// A 2x2 matrix of integers modulo a prime, joined by the matrix product: associative, not
/// commutative, and exact (so any misordering shows).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
pub struct Mat2 {
    a: u64,
    b: u64,
    c: u64,
    d: u64,
}

#[ferrokkos::device]
impl DeviceJoin for Mat2 {
    const COMMUTATIVE: bool = false;
    fn identity() -> Mat2 {
        Mat2 {
            a: 1,
            b: 0,
            c: 0,
            d: 1,
        }
    }
    fn join(self, o: Mat2) -> Mat2 {
        Mat2 {
            a: (self.a * o.a + self.b * o.c) % 1_000_003,
            b: (self.a * o.b + self.b * o.d) % 1_000_003,
            c: (self.c * o.a + self.d * o.c) % 1_000_003,
            d: (self.c * o.b + self.d * o.d) % 1_000_003,
        }
    }
}

/// Iteration `i`'s matrix: no two neighbours commute.
#[ferrokkos::device]
fn step(i: u64) -> Mat2 {
    Mat2 {
        a: 1,
        b: i % 1000 + 1,
        c: i % 7,
        d: 1,
    }
}

/// The product of the matrices of `range`, in order.
fn product(range: std::ops::Range<u64>) -> Mat2 {
    range.fold(Mat2::identity(), |m, i| m.join(step(i)))
}

/// A join that does not commute gives the sequential fold on every space, the GPU's many blocks
/// included (a million iterations; each thread joins a contiguous run, the blocks in order), over
/// ranges with an offset, MDRanges in both walk orders, and in a tuple next to a commuting one.
fn non_commuting_joins_match_the_sequential_fold<S: Launch>(exec: &S) -> Result<()> {
    for n in [0usize, 1, 7, 1000, 1_000_003] {
        let m = parallel_reduce(
            "matrix product",
            RangePolicy::new(exec, 5, 5 + n)?,
            kernel!(|i, acc: &mut Mat2| *acc = acc.join(step(i as u64))),
            Join::<Mat2>::new(),
        )?;
        assert_eq!(m, product(5..5 + n as u64), "{} n = {n}", S::NAME);

        let values = data(n);
        let x = upload::<S, f64>("x", &values)?;
        let (gaps, span) = parallel_reduce(
            "gaps and span",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i, g: &mut Gaps, s: &mut Span| {
                *g = g.join(gap(x[i]));
                *s = s.join(one(x[i]));
            }),
            (Join::<Gaps>::new(), Join::<Span>::new()),
        )?;
        let want = values.iter().fold(Gaps::identity(), |a, v| a.join(gap(*v)));
        assert_eq!(gaps, want, "{} n = {n}", S::NAME);
        assert_eq!(span.n, n as u64);
    }
    let (rows, cols) = (301i64, 173i64);
    let right = parallel_reduce(
        "md product",
        MDRangePolicy::new(exec, [0, 0], [rows, cols])?,
        kernel!(|(i, j), acc: &mut Mat2| *acc = acc.join(step((i * cols + j) as u64))),
        Join::<Mat2>::new(),
    )?;
    assert_eq!(right, product(0..(rows * cols) as u64), "{}", S::NAME);
    // Iterate::Left walks the first index fastest: point (i, j) is number j * rows + i.
    let left = parallel_reduce(
        "md product, left",
        MDRangePolicy::new(exec, [0, 0], [rows, cols])?.iterate(Iterate::Left),
        kernel!(|(i, j), acc: &mut Mat2| *acc = acc.join(step((j * rows + i) as u64))),
        Join::<Mat2>::new(),
    )?;
    assert_eq!(left, product(0..(rows * cols) as u64), "{}", S::NAME);
    Ok(())
}

per_space!(
    non_commuting_joins_match_the_sequential_fold,
    non_commuting_joins_match_the_sequential_fold
);

/// In a league of teams, one contribution per team (its league rank's matrix, in a
/// `single(PerTeam)`) joins in league order on every space, over more teams than the GPU has
/// blocks at once.
fn non_commuting_joins_over_a_league_follow_the_league_order<S: Launch>(exec: &S) -> Result<()> {
    for league in [1usize, 37, 5000] {
        let m = parallel_reduce(
            "league product",
            TeamPolicy::new(exec, league, AUTO)?,
            kernel!(|team: &TeamMember, acc: &mut Mat2| {
                let lr = team.league_rank();
                single(PerTeam(team), || {
                    *acc = acc.join(step(lr as u64));
                });
            }),
            Join::<Mat2>::new(),
        )?;
        assert_eq!(m, product(0..league as u64), "{} league {league}", S::NAME);
    }
    Ok(())
}

per_space!(
    non_commuting_joins_over_a_league_follow_the_league_order,
    non_commuting_joins_over_a_league_follow_the_league_order
);

/// A mean as (sum, count) whose final step divides (Kokkos' `final`); an empty reduction stays
/// (0, 0).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
pub struct Mean {
    sum: f64,
    n: f64,
}

#[ferrokkos::device]
impl DeviceJoin for Mean {
    fn identity() -> Mean {
        Mean { sum: 0.0, n: 0.0 }
    }
    fn join(self, o: Mean) -> Mean {
        Mean {
            sum: self.sum + o.sum,
            n: self.n + o.n,
        }
    }
    fn finalize(self) -> Mean {
        if self.n == 0.0 {
            self
        } else {
            Mean {
                sum: self.sum / self.n,
                n: self.n,
            }
        }
    }
}

/// The final step applies once, to a value returned to the host, to one stored into a `&mut`
/// place, to a tuple's member, and (on the GPU, by the device) to a result written into a device
/// rank-0 View, over ranges and leagues. The values are whole numbers, so every order of the sums
/// is exact.
fn a_final_step_applies_once_wherever_the_result_goes<S: Launch>(exec: &S) -> Result<()> {
    for n in [0usize, 1, 1000, 100_003] {
        let values: Vec<f64> = (0..n).map(|i| ((i * 7919) % 1000) as f64).collect();
        let x = upload::<S, f64>("x", &values)?;
        let sum: f64 = values.iter().sum();
        let want = Mean { sum, n: n as f64 }.finalize();
        let policy = RangePolicy::new(exec, 0, n)?;
        let mean = parallel_reduce(
            "mean",
            policy.clone(),
            kernel!(|i, acc: &mut Mean| *acc = acc.join(Mean { sum: x[i], n: 1.0 })),
            Join::<Mean>::new(),
        )?;
        assert_eq!(mean, want, "{} n = {n}", S::NAME);

        let out = SView::<S, Mean, 0>::new("mean", [])?;
        parallel_reduce(
            "mean into a View",
            policy.clone(),
            kernel!(|i, acc: &mut Mean| *acc = acc.join(Mean { sum: x[i], n: 1.0 })),
            Join::<Mean>::new().into_result(&out),
        )?;
        assert_eq!(download(&out)?, vec![want], "{} n = {n}", S::NAME);

        let mut stored = Mean::identity();
        let (m, total) = parallel_reduce(
            "mean and sum",
            policy,
            kernel!(|i, acc: &mut Mean, s: &mut f64| {
                *acc = acc.join(Mean { sum: x[i], n: 1.0 });
                *s += x[i];
            }),
            (Join::<Mean>::new(), Sum::<f64>::new()),
        )?;
        assert_eq!((m, total), (want, sum), "{} n = {n}", S::NAME);
        parallel_reduce(
            "mean into a value",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i, acc: &mut Mean| *acc = acc.join(Mean { sum: x[i], n: 1.0 })),
            Join::<Mean>::new().into_result(&mut stored),
        )?;
        assert_eq!(stored, want, "{} n = {n}", S::NAME);
    }
    // A league of teams, one contribution per team, into a value and into a device View.
    let league = 300usize;
    let want = Mean {
        sum: (0..league).sum::<usize>() as f64 / league as f64,
        n: league as f64,
    };
    let out = SView::<S, Mean, 0>::new("team mean", [])?;
    let team_kernel = || {
        kernel!(|team: &TeamMember, acc: &mut Mean| {
            let lr = team.league_rank();
            single(PerTeam(team), || {
                *acc = acc.join(Mean {
                    sum: lr as f64,
                    n: 1.0,
                });
            });
        })
    };
    let policy = TeamPolicy::new(exec, league, AUTO)?;
    let m = parallel_reduce(
        "team mean",
        policy.clone(),
        team_kernel(),
        Join::<Mean>::new(),
    )?;
    assert_eq!(m, want, "{}", S::NAME);
    parallel_reduce(
        "team mean into a View",
        policy,
        team_kernel(),
        Join::<Mean>::new().into_result(&out),
    )?;
    assert_eq!(download(&out)?, vec![want], "{}", S::NAME);
    Ok(())
}

per_space!(
    a_final_step_applies_once_wherever_the_result_goes,
    a_final_step_applies_once_wherever_the_result_goes
);

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

/// A reducer's final step is in its struct (a tuple's calls its members'), and the entry applies
/// it before writing the result only when asked (`UnitOptions::finalize`: a result that stays in a
/// device View); a non-commuting join's entries walk contiguous runs, in 64 bits, and a league's
/// joins its blocks' values after each league rank. NVRTC compiles each.
#[test]
fn final_steps_and_ordered_walks_are_in_the_generated_code_and_compile() -> Result<()> {
    crate::common::runtime();
    let x = View::<f64, 1>::new("x", [4])?;
    let fused = UnitOptions {
        fused_join: true,
        ..UnitOptions::default()
    };
    let to_place = UnitOptions {
        finalize: true,
        ..fused
    };
    let mean = kernel!(|i, acc: &mut Mean| *acc = acc.join(Mean { sum: x[i], n: 1.0 }));
    let back = TranslationUnit::reduce_kernel_with::<Join<Mean>, _>(&mean, Iterate::Right, fused);
    assert!(
        back.generated()
            .contains("void finalize(value_type& v) { v = Mean_finalize_fn(v); }")
    );
    assert!(!back.generated().contains("fk_reducer::finalize(fk_acc)"));
    let placed =
        TranslationUnit::reduce_kernel_with::<Join<Mean>, _>(&mean, Iterate::Right, to_place);
    assert!(
        placed
            .generated()
            .contains("fk_reducer::finalize(fk_acc); *fk_result = fk_acc;")
    );
    check_device_code(&placed);
    // The separate `_join` entry finalizes too.
    let unfused = UnitOptions {
        finalize: true,
        ..UnitOptions::default()
    };
    let join = TranslationUnit::reduce_kernel_with::<Join<Mean>, _>(&mean, Iterate::Right, unfused);
    assert!(
        join.generated()
            .contains("{ fk_reducer::finalize(fk_acc); *fk_result = fk_acc; }")
    );
    check_device_code(&join);
    let pair = kernel!(|i, acc: &mut Mean, s: &mut f64| {
        *acc = acc.join(Mean { sum: x[i], n: 1.0 });
        *s += x[i];
    });
    let tuple = TranslationUnit::reduce_kernel_with::<(Join<Mean>, Sum<f64>), _>(
        &pair,
        Iterate::Right,
        to_place,
    );
    let text = tuple.generated();
    assert!(
        text.contains("::finalize(v.v0);") && !text.contains("::finalize(v.v1);"),
        "{text}"
    );
    assert!(text.contains("fk_reducer::finalize(fk_acc);"), "{text}");
    check_device_code(&tuple);
    // A reducer without a final step has nothing to apply, even when asked.
    let span = kernel!(|i, acc: &mut Span| *acc = acc.join(one(x[i])));
    let plain =
        TranslationUnit::reduce_kernel_with::<Join<Span>, _>(&span, Iterate::Right, to_place);
    assert!(
        !plain.generated().contains("finalize"),
        "{}",
        plain.generated()
    );

    let index32 = UnitOptions {
        index32: true,
        ..fused
    };
    let range = kernel!(|i, acc: &mut Mat2| *acc = acc.join(step(i as u64)));
    let ordered =
        TranslationUnit::reduce_kernel_with::<Join<Mat2>, _>(&range, Iterate::Right, index32);
    let text = ordered.generated();
    assert!(
        text.contains("thread g walks the g-th contiguous run"),
        "{text}"
    );
    assert!(
        text.contains("for (u64 fk_k = fk_lo; fk_k < fk_hi; ++fk_k)"),
        "{text}"
    );
    assert!(!text.contains("fk_k += "), "{text}");
    check_device_code(&ordered);
    let (rows, cols) = (3i64, 5i64);
    let md = kernel!(|(i, j), acc: &mut Mat2| *acc = acc.join(step((j * rows + i + cols) as u64)));
    let md_unit = TranslationUnit::reduce_kernel_with::<Join<Mat2>, _>(&md, Iterate::Left, index32);
    assert!(md_unit.generated().contains("contiguous run"));
    check_device_code(&md_unit);
    // A commuting join keeps the grid-stride walk.
    let commuting =
        TranslationUnit::reduce_kernel_with::<Join<Span>, _>(&span, Iterate::Right, index32);
    assert!(!commuting.generated().contains("contiguous run"));

    let league = kernel!(|team: &TeamMember, acc: &mut Mat2| {
        let lr = team.league_rank();
        single(PerTeam(team), || {
            *acc = acc.join(step(lr as u64));
        });
    });
    let team = TranslationUnit::team_reduce_kernel_with::<Join<Mat2>>(&league, fused);
    let text = team.generated();
    assert!(
        text.contains("if (threadIdx.x == 0) fk_reducer::join(fk_ordered, fk_acc);"),
        "{text}"
    );
    assert!(!text.contains("fk_l += gridDim.x"), "{text}");
    check_device_code(&team);
    let team_mean = kernel!(|team: &TeamMember, acc: &mut Mean| {
        let lr = team.league_rank();
        single(PerTeam(team), || {
            *acc = acc.join(Mean {
                sum: lr as f64,
                n: 1.0,
            });
        });
    });
    let team = TranslationUnit::team_reduce_kernel_with::<Join<Mean>>(&team_mean, to_place);
    assert!(team.generated().contains("fk_reducer::finalize(fk_acc);"));
    check_device_code(&team);
    Ok(())
}
