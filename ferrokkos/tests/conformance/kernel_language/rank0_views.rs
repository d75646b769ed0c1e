//! Rank-0 Views in kernels (Kokkos' `View<double>`, a device-side scalar): `s[()]` reads the one
//! element anywhere; a kernel writes it from a launch of one iteration (checked at launch: more is
//! `Error::KernelSharedWrite`, and the View keeps its value), with an atomic from any launch, or as
//! a `parallel_reduce`'s target; the C++ compiles with NVRTC and hiprtc.

use crate::common::check_device_code;
use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Error, Result, kernel};

/// A one-iteration kernel writes the scalar (reading it first), and a later kernel reads it in
/// every iteration.
fn a_one_iteration_kernel_writes_what_every_iteration_reads<S: Launch>(exec: &S) -> Result<()> {
    let s = SView::<S, f64, 0>::new("s", [])?;
    deep_copy(&s, 1.5)?;
    let x = SView::<S, f64, 1>::new("x", [100])?;
    parallel_for(
        "set",
        RangePolicy::new(exec, 7, 8)?,
        kernel!(|i| {
            s[()] = 2.0 * s[()] + i as f64;
        }),
    )?;
    parallel_for(
        "spread",
        RangePolicy::new(exec, 0, 100)?,
        kernel!(|i| {
            x[i] = s[()] * i as f64;
        }),
    )?;
    assert_eq!(download(&s)?, vec![10.0]);
    assert_eq!(
        download(&x)?,
        (0..100).map(|i| 10.0 * i as f64).collect::<Vec<_>>()
    );
    // An MDRange of one point writes it too.
    parallel_for(
        "set_md",
        MDRangePolicy::new(exec, [3, -4], [4, -3])?,
        kernel!(|(i, j)| {
            s[()] = (i * 10 + j) as f64;
        }),
    )?;
    assert_eq!(download(&s)?, vec![26.0]);
    Ok(())
}

per_space!(
    a_one_iteration_kernel_writes_what_every_iteration_reads,
    a_one_iteration_kernel_writes_what_every_iteration_reads
);

/// A launch of more iterations is refused before any runs: the scalar keeps its value.
fn a_wider_launch_writing_the_scalar_is_refused<S: Launch>(exec: &S) -> Result<()> {
    let s = SView::<S, i32, 0>::new("s", [])?;
    deep_copy(&s, 5)?;
    let e = parallel_for(
        "wide",
        RangePolicy::new(exec, 0, 3)?,
        kernel!(|i| {
            s[()] = i as i32;
        }),
    )
    .unwrap_err();
    assert!(
        matches!(
            &e,
            Error::KernelSharedWrite {
                view: "s",
                access: "s[()]",
                iterations: 3,
                ..
            }
        ),
        "{e}"
    );
    let e = parallel_for(
        "wide_md",
        MDRangePolicy::new(exec, [0, 0], [2, 1])?,
        kernel!(|(i, j)| {
            s[()] = (i + j) as i32;
        }),
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::KernelSharedWrite { iterations: 2, .. }),
        "{e}"
    );
    assert_eq!(download(&s)?, vec![5]);
    // An empty launch writes nothing and is not refused.
    parallel_for(
        "empty",
        RangePolicy::new(exec, 4, 4)?,
        kernel!(|i| {
            s[()] = i as i32;
        }),
    )?;
    assert_eq!(download(&s)?, vec![5]);
    Ok(())
}

per_space!(
    a_wider_launch_writing_the_scalar_is_refused,
    a_wider_launch_writing_the_scalar_is_refused
);

/// Every iteration updates the scalar atomically, and a reduction delivers into one.
fn atomics_and_reductions_reach_the_scalar_from_any_launch<S: Launch>(exec: &S) -> Result<()> {
    let count = SView::<S, u64, 0>::new("count", [])?;
    let top = SView::<S, i64, 0>::new("top", [])?;
    deep_copy(&top, i64::MIN)?;
    let v = upload::<S, i64>(
        "v",
        &(0..500).map(|k| (k * 37) % 501 - 250).collect::<Vec<_>>(),
    )?;
    parallel_for(
        "tally",
        RangePolicy::new(exec, 0, 500)?,
        kernel!(|i| {
            count.atomic_add((), 1);
            top.atomic_max((), v[i]);
        }),
    )?;
    let sum = SView::<S, i64, 0>::new("sum", [])?;
    parallel_reduce(
        "sum",
        RangePolicy::new(exec, 0, 500)?,
        kernel!(|i, acc: &mut i64| {
            *acc += v[i] + top[()];
        }),
        &sum,
    )?;
    exec.fence("rank0")?;
    let host: Vec<i64> = download(&v)?;
    let max = *host.iter().max().expect("values");
    assert_eq!(download(&count)?, vec![500]);
    assert_eq!(download(&top)?, vec![max]);
    assert_eq!(download(&sum)?, vec![host.iter().sum::<i64>() + 500 * max]);
    Ok(())
}

per_space!(
    atomics_and_reductions_reach_the_scalar_from_any_launch,
    atomics_and_reductions_reach_the_scalar_from_any_launch
);

#[test]
fn a_rank0_access_is_the_views_call_without_coordinates() -> Result<()> {
    crate::common::runtime();
    let s = View::<f64, 0>::new("s", [])?;
    let t = View::<f64, 0>::new("t", [])?;
    let x = View::<f64, 1>::new("x", [4])?;
    let k = kernel!(|i| {
        x[i] = s[()] + 1.0;
        t.atomic_add((), 0.5);
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(text.contains("s(fk_proven) + 1.0"), "{text}");
    assert!(text.contains("fk::atomic_add(&t(), 0.5)"), "{text}");
    check_device_code(&tu);
    let w = View::<i32, 0>::new("w", [])?;
    let k = kernel!(|i| {
        w[()] = w[()] + i as i32;
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    assert!(
        tu.generated().contains("w(fk_proven) = "),
        "{}",
        tu.generated()
    );
    check_device_code(&tu);
    Ok(())
}

/// A team kernel writes the scalar in `single(PerTeam)` (after a team reduction) in a league of
/// one team; a larger league is refused before anything runs.
fn a_single_team_writes_the_scalar_in_single<S: Launch>(exec: &S) -> Result<()> {
    let s = SView::<S, u64, 0>::new("s", [])?;
    let n = 300u64;
    let k = kernel!(|team: &TeamMember| {
        let total = TeamThreadRange::new(team, 0, n)
            .parallel_reduce(|i, t: &mut u64| *t += i * i, Sum::new());
        single(PerTeam(team), || s[()] = total + 1);
    });
    parallel_for("one_team", TeamPolicy::new(exec, 1, AUTO)?, &k)?;
    assert_eq!(download(&s)?, vec![(0..n).map(|i| i * i).sum::<u64>() + 1]);
    let e = parallel_for("two_teams", TeamPolicy::new(exec, 2, AUTO)?, &k).unwrap_err();
    assert!(
        matches!(&e, Error::Policy { .. }) && e.to_string().contains("this one has 2"),
        "{e}"
    );
    Ok(())
}

per_space!(
    a_single_team_writes_the_scalar_in_single,
    a_single_team_writes_the_scalar_in_single
);
