//! Bounds proved at launch on the host spaces (`kernel/bounds.rs`): a `kernel!` whose View accesses
//! are affine in the iteration index runs its proven body (no bounds check per access) on the part
//! of the launch's box where every such access stays inside its View, and its checked body on the
//! rest. Both give the same results; an out-of-bounds access still panics naming the View, whether
//! it lies outside the proven part or is one the proof does not cover (an index read from a View, a
//! captured array).

use ferrokkos::Result;
use ferrokkos::prelude::*;
use ferrokkos::traits::{HostExecutionSpace, Launch};

use crate::common::{self, panic_message};

/// Copies `values` into the contiguous View `v`.
fn fill<T: ferrokkos::traits::Element, const R: usize>(v: &View<T, R>, values: &[T]) -> Result<()> {
    let mut g = v.host_mut()?;
    g.as_mut_slice()
        .expect("contiguous")
        .copy_from_slice(values);
    Ok(())
}

/// A field with a different value at each point.
fn field(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|p| ((p * 7919) % 1009) as f64 * 0.25 - 100.0)
        .collect()
}

/// The 9-point stencil over the interior of an `n` x `n` field, in plain Rust (same operation
/// order as the kernel).
fn stencil_reference(u: &[f64], n: usize) -> Vec<f64> {
    let mut v = vec![0.0; n * n];
    let at = |i: usize, j: usize| u[i * n + j];
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            v[i * n + j] = 0.5 * at(i, j)
                + 0.0625 * (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1))
                + 0.03125
                    * (at(i - 1, j - 1) + at(i - 1, j + 1) + at(i + 1, j - 1) + at(i + 1, j + 1));
        }
    }
    v
}

fn stencil_matches_plain_rust<S: HostExecutionSpace>(exec: &S) -> Result<()> {
    let n = 37;
    let host = field(n);
    let u = View::<f64, 2>::new("u", [n, n])?;
    let v = View::<f64, 2>::new("v", [n, n])?;
    fill(&u, &host)?;
    let last = n as i64 - 1;
    let policy = MDRangePolicy::new(exec, [1, 1], [last, last])?;
    let stencil = kernel!(|(i, j)| {
        v[(i, j)] = 0.5 * u[(i, j)]
            + 0.0625 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)])
            + 0.03125
                * (u[(i - 1, j - 1)] + u[(i - 1, j + 1)] + u[(i + 1, j - 1)] + u[(i + 1, j + 1)]);
    });
    // The interior is proved; one more row would reach row n.
    let (l, e) = (1i128, last as i128);
    let interior = vec![(l, e), (l, e)];
    assert_eq!(
        stencil.proven_box_over(&interior, 64),
        Some(interior.clone())
    );
    assert_eq!(
        stencil.proven_box_over(&[(0, e + 1), (l, e)], 64),
        Some(interior.clone())
    );
    parallel_for("stencil", policy.clone(), &stencil)?;
    let expected = stencil_reference(&host, n);
    assert_eq!(v.to_vec()?, expected, "on {}", S::NAME);
    // A reduction over the same box, reading its neighbours.
    let total = parallel_reduce(
        "neighbour sum",
        policy,
        kernel!(|(i, j), acc| *acc += u[(i - 1, j + 1)] - u[(i + 1, j - 1)]),
        Sum::new(),
    )?;
    let mut want = 0.0;
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            want += host[(i - 1) * n + j + 1] - host[(i + 1) * n + j - 1];
        }
    }
    assert!(
        (total - want).abs() <= 1e-9 * want.abs().max(1.0),
        "{total} vs {want} on {}",
        S::NAME
    );
    Ok(())
}

#[test]
fn a_proven_stencil_matches_plain_rust() {
    common::runtime();
    stencil_matches_plain_rust(&Serial::default_instance().unwrap()).unwrap();
    stencil_matches_plain_rust(&Threads::default_instance().unwrap()).unwrap();
}

fn shifted_and_reversed_maps<S: HostExecutionSpace>(exec: &S) -> Result<()> {
    let n = 50usize;
    let x = View::<f64, 1>::new("x", [n])?;
    let y = View::<f64, 2>::new("y", [n, 1])?;
    fill(&x, &(0..n).map(|k| k as f64).collect::<Vec<_>>())?;
    // Negative lower bounds: i + 2 over -2..n-2; reversed: n - 1 - k over 0..n.
    parallel_for(
        "shift",
        MDRangePolicy::new(exec, [-2i64, 0], [n as i64 - 2, 1])?,
        kernel!(|(i, j)| y[(i + 2, j)] = x[i + 2] + j as f64),
    )?;
    assert_eq!(y.to_vec()?, x.to_vec()?, "on {}", S::NAME);
    let last = n - 1;
    let reversed = parallel_reduce(
        "reversed",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|k, acc| *acc += x[last - k] * k as f64),
        Sum::new(),
    )?;
    let want: f64 = (0..n).map(|k| (last - k) as f64 * k as f64).sum();
    assert_eq!(reversed, want, "on {}", S::NAME);
    Ok(())
}

#[test]
fn shifted_and_reversed_index_maps_give_the_same_results() {
    common::runtime();
    shifted_and_reversed_maps(&Serial::default_instance().unwrap()).unwrap();
    shifted_and_reversed_maps(&Threads::default_instance().unwrap()).unwrap();
}

fn boundary_conditions_by_if<S: HostExecutionSpace>(exec: &S) -> Result<()> {
    // The whole box, with the boundary handled by `if` (Kokkos' usual style): the interior is
    // proven, the boundary rows and columns run checked; the result is the same.
    let n = 29usize;
    let host = field(n);
    let u = View::<f64, 2>::new("u", [n, n])?;
    let v = View::<f64, 2>::new("v", [n, n])?;
    fill(&u, &host)?;
    let last = n as i64 - 1;
    let step = kernel!(|(i, j)| {
        if i == 0 || j == 0 || i == last || j == last {
            v[(i, j)] = u[(i, j)];
        } else {
            v[(i, j)] = 0.25 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)]);
        }
    });
    let e = n as i128;
    assert_eq!(
        step.proven_box_over(&[(0, e), (0, e)], 64),
        Some(vec![(1, e - 1), (1, e - 1)])
    );
    for iterate in [Iterate::Right, Iterate::Left] {
        let policy = MDRangePolicy::new(exec, [0, 0], [n as i64, n as i64])?
            .tile_sizes([5, 7])?
            .iterate(iterate);
        parallel_for("step", policy, &step)?;
        let mut want = host.clone();
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                want[i * n + j] = 0.25
                    * (host[(i - 1) * n + j]
                        + host[(i + 1) * n + j]
                        + host[i * n + j - 1]
                        + host[i * n + j + 1]);
            }
        }
        assert_eq!(v.to_vec()?, want, "{iterate:?} on {}", S::NAME);
    }
    // A range that starts below the proven part and ends above it.
    let x = View::<f64, 1>::new("x", [n])?;
    let y = View::<f64, 1>::new("y", [n])?;
    fill(&x, &host[..n])?;
    let smooth = kernel!(|k: usize| {
        if k == 0 || k + 1 == n {
            y[k] = x[k];
        } else {
            y[k] = x[k - 1] + x[k + 1];
        }
    });
    assert_eq!(
        smooth.proven_box_over(&[(0, e)], 64),
        Some(vec![(1, e - 1)])
    );
    parallel_for("smooth", RangePolicy::new(exec, 0, n)?, &smooth)?;
    let mut want = host[..n].to_vec();
    for k in 1..n - 1 {
        want[k] = host[k - 1] + host[k + 1];
    }
    assert_eq!(y.to_vec()?, want, "on {}", S::NAME);
    Ok(())
}

#[test]
fn boundary_conditions_by_if_prove_the_interior_and_match_plain_rust() {
    common::runtime();
    boundary_conditions_by_if(&Serial::default_instance().unwrap()).unwrap();
    boundary_conditions_by_if(&Threads::default_instance().unwrap()).unwrap();
}

fn box_outside_panics<S: HostExecutionSpace>(exec: &S) -> String {
    let u = View::<f64, 2>::new("u reach", [8, 8]).unwrap();
    let v = View::<f64, 2>::new("v reach", [8, 8]).unwrap();
    // Row 0 reads row -1: the proof fails, the checked body panics there.
    let reach = kernel!(|(i, j)| v[(i, j)] = u[(i - 1, j)]);
    // Rows 1.. are proven; row 0 runs checked and panics.
    assert_eq!(
        reach.proven_box_over(&[(0, 8), (0, 8)], 64),
        Some(vec![(1, 8), (0, 8)])
    );
    panic_message(|| parallel_for("reach", MDRangePolicy::new(exec, [0, 0], [8, 8])?, &reach))
}

#[test]
fn a_box_reaching_outside_the_view_still_panics_naming_it() {
    common::runtime();
    for msg in [
        box_outside_panics(&Serial::default_instance().unwrap()),
        box_outside_panics(&Threads::default_instance().unwrap()),
    ] {
        assert_eq!(
            msg,
            "index [18446744073709551615, 0] is out of bounds for View \"u reach\" with extents \
             [8, 8]"
        );
    }
}

fn unproven_access_panics<S: HostExecutionSpace>(exec: &S) -> String {
    let x = View::<f64, 1>::new("x gather", [4]).unwrap();
    let y = View::<f64, 1>::new("y gather", [4]).unwrap();
    let k = View::<usize, 1>::new("k gather", [4]).unwrap();
    fill(&k, &[0, 1, 2, 4]).unwrap();
    // y[i], x[i] and k[i] are proved; x[k[i]] is not, and k[3] = 4 is outside x.
    let gather = kernel!(|i| y[i] = x[i] + x[k[i]]);
    assert_eq!(gather.proven_box_over(&[(0, 4)], 64), Some(vec![(0, 4)]));
    panic_message(|| parallel_for("gather", RangePolicy::new(exec, 0, 4)?, &gather))
}

#[test]
fn an_access_the_proof_does_not_cover_keeps_its_check() {
    common::runtime();
    for msg in [
        unproven_access_panics(&Serial::default_instance().unwrap()),
        unproven_access_panics(&Threads::default_instance().unwrap()),
    ] {
        assert_eq!(
            msg,
            "index [4] is out of bounds for View \"x gather\" with extents [4]"
        );
    }
}

fn array_access_panics<S: HostExecutionSpace>(exec: &S) -> String {
    let y = View::<f64, 1>::new("y array", [4]).unwrap();
    let w = [1.0, 2.0, 3.0];
    // y[i] is proved over 0..4; the captured array is not a View and keeps its check.
    let copy = kernel!(|i| y[i] = w[i]);
    assert_eq!(copy.proven_box_over(&[(0, 4)], 64), Some(vec![(0, 4)]));
    panic_message(|| parallel_for("array", RangePolicy::new(exec, 0, 4)?, &copy))
}

#[test]
fn a_captured_array_keeps_its_check_in_a_proven_launch() {
    common::runtime();
    let msg = array_access_panics(&Serial::default_instance().unwrap());
    assert!(msg.contains("index 3"), "{msg}");
    let msg = array_access_panics(&Threads::default_instance().unwrap());
    assert!(msg.contains("index 3"), "{msg}");
}

fn huge_coefficient_panics<S: HostExecutionSpace>(exec: &S) -> String {
    let x = View::<f64, 1>::new("x huge", [4]).unwrap();
    let y = View::<f64, 1>::new("y huge", [2]).unwrap();
    // The coefficient 2^63 does not fit the launch's i64 maps: the access stays checked.
    let k = kernel!(|i| y[i] = x[4294967296 * (2147483648 * i)]);
    assert_eq!(k.proven_box_over(&[(0, 2)], 64), Some(vec![(0, 2)]));
    panic_message(|| parallel_for("huge", RangePolicy::new(exec, 0, 2)?, &k))
}

#[test]
fn a_coefficient_too_large_for_the_maps_keeps_its_check() {
    common::runtime();
    for msg in [
        huge_coefficient_panics(&Serial::default_instance().unwrap()),
        huge_coefficient_panics(&Threads::default_instance().unwrap()),
    ] {
        assert!(msg.contains("out of bounds for View \"x huge\""), "{msg}");
    }
}

#[test]
fn literal_coordinates_are_proved_only_below_128() {
    common::runtime();
    // A literal coordinate's type comes from its use and may be as narrow as i8, where a value of
    // 128 or more wraps to a negative one: only smaller literals are proved.
    let u = View::<f64, 2>::new("u literal", [300, 4]).unwrap();
    let v = View::<f64, 1>::new("v literal", [4]).unwrap();
    let low = kernel!(|j| v[j] = u[(127, j)]);
    assert_eq!(low.proven_box_over(&[(0, 4)], 64), Some(vec![(0, 4)]));
    let high = kernel!(|j| v[j] = u[(128, j)] + u[(100 + 100, j)]);
    assert_eq!(high.proven_box_over(&[(0, 4)], 64), None);
    // Unproved, the launch still runs (checked) and reads the right elements.
    u.set((200, 1), 2.5).unwrap();
    u.set((128, 1), 1.0).unwrap();
    let exec = Serial::default_instance().unwrap();
    parallel_for("high", RangePolicy::new(&exec, 0, 4).unwrap(), &high).unwrap();
    assert_eq!(v.to_vec().unwrap(), vec![0.0, 3.5, 0.0, 0.0]);
}

#[test]
fn forged_bounds_entries_only_narrow_the_proof() {
    use ferrokkos::__private::{InBounds, OverlapCoord};
    common::runtime();
    let x = View::<f64, 1>::new("x forged", [4]).unwrap();
    let y = View::<f64, 1>::new("y forged", [4]).unwrap();
    let forged = || InBounds {
        view: "x",
        map: vec![OverlapCoord::param(0, 1, 0)],
    };
    // x[i + 10] fits nowhere in 0..4: an entry claiming x[i] does not widen the proof.
    let far = kernel!(|i| y[i] = x[i + 10]).with_bounds(vec![forged()]);
    assert_eq!(far.proven_box_over(&[(0, 4)], 64), None);
    // A kernel with nothing to prove has no unchecked accesses: an entry that makes a launch run
    // its proven form runs the checked body, which still panics.
    let all = kernel!(|_i, acc| {
        for j in 0..5usize {
            *acc += x[j];
        }
    })
    .with_bounds(vec![forged()]);
    assert_eq!(all.proven_box_over(&[(0, 4)], 64), Some(vec![(0, 4)]));
    let exec = Serial::default_instance().unwrap();
    let msg = panic_message(|| {
        parallel_reduce(
            "all",
            RangePolicy::new(&exec, 0, 4)?,
            &all,
            Sum::<f64>::new(),
        )
        .map(|_| ())
    });
    assert_eq!(
        msg,
        "index [4] is out of bounds for View \"x forged\" with extents [4]"
    );
}

/// Parameters reached through a `Deref` that gives another place on every call.
struct Params {
    offset: usize,
}

/// Gives `first` on the first call and `later` on every other.
struct Flip {
    calls: std::cell::Cell<u32>,
    first: Params,
    later: Params,
}

impl std::ops::Deref for Flip {
    type Target = Params;
    fn deref(&self) -> &Params {
        let k = self.calls.get();
        self.calls.set(k + 1);
        if k == 0 { &self.first } else { &self.later }
    }
}

/// A field path (`p.offset`) is evaluated once: the kernel's capture, the launch's bounds proof and
/// its overlap check all use the value it gave, even when a `Deref` on the way gives another
/// place on each call (here 2^26, then 0: a proof made with 0 would have let the unchecked body
/// write 2^26 elements past `y`).
#[test]
fn a_field_path_is_evaluated_once_for_the_capture_and_the_proof() {
    common::runtime();
    let exec = Serial::default_instance().unwrap();
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let p = Flip {
        calls: std::cell::Cell::new(0),
        first: Params { offset: 1 << 26 },
        later: Params { offset: 0 },
    };
    let message = panic_message(|| {
        parallel_for(
            "flip",
            RangePolicy::new(&exec, 0, 4)?,
            kernel!(|i| y[i + p.offset] = 1.0),
        )
    });
    assert!(
        message.contains("index [67108864] is out of bounds for View \"y\" with extents [4]"),
        "{message}"
    );
    assert_eq!(p.calls.get(), 1);
    assert_eq!(y.to_vec().unwrap(), vec![0.0; 4]);
}

/// The 5-point Laplacian of `u` at `(i, j)`, read by a `#[device]` function (its reads composed with
/// a call's arguments join the kernel's device proof).
#[device]
fn laplacian(u: &View<f64, 2>, i: i64, j: i64) -> f64 {
    u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)] - 4.0 * u[(i, j)]
}

/// The device proof (`Kernel::with_device_bounds`): a launch whose whole box keeps every affine
/// access inside its View runs the entry whose accesses skip their checks, any other launch of the
/// same kernel the checked one. On every space the results are the plain loops' (on the host the
/// device proof is not used; on a GPU both entries run here).
fn device_proof_per_launch<S: Launch>(exec: &S) -> Result<()> {
    use crate::spaces::{SView, download, upload_nd};
    let n = 37;
    let host = field(n);
    let u = upload_nd::<S, f64, 2, LayoutRight>("u", [n, n], &host)?;
    let v = SView::<S, f64, 2>::new("v", [n, n])?;
    let stencil = kernel!(|(i, j)| {
        v[(i, j)] = 0.5 * u[(i, j)]
            + 0.0625 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)])
            + 0.03125
                * (u[(i - 1, j - 1)] + u[(i - 1, j + 1)] + u[(i + 1, j - 1)] + u[(i + 1, j + 1)]);
    });
    let e = n as i128 - 1;
    assert!(stencil.device_proven_over(&[(1, e), (1, e)], 64));
    assert!(!stencil.device_proven_over(&[(0, e), (1, e)], 64));
    assert!(!stencil.device_proven_over(&[(1, e), (1, e + 1)], 64));
    let last = n as i64 - 1;
    parallel_for(
        "stencil",
        MDRangePolicy::new(exec, [1, 1], [last, last])?,
        &stencil,
    )?;
    assert_eq!(download(&v)?, stencil_reference(&host, n), "on {}", S::NAME);
    // A reduction proved over its box.
    let neighbours = kernel!(|(i, j), acc| *acc += u[(i - 1, j + 1)] - u[(i + 1, j - 1)]);
    assert!(neighbours.device_proven_over(&[(1, e), (1, e)], 64));
    let total = parallel_reduce(
        "neighbours",
        MDRangePolicy::new(exec, [1, 1], [last, last])?,
        &neighbours,
        Sum::new(),
    )?;
    let at = |i: usize, j: usize| host[i * n + j];
    let mut expected = 0.0;
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            expected += at(i - 1, j + 1) - at(i + 1, j - 1);
        }
    }
    assert!(
        (total - expected).abs() <= 1e-9 * expected.abs().max(1.0),
        "{total} against {expected} on {}",
        S::NAME
    );
    // A `#[device]` function's reads, composed with the call's arguments.
    let lap = kernel!(|(i, j)| v[(i, j)] = laplacian(&u, i, j));
    assert!(lap.device_proven_over(&[(1, e), (1, e)], 64));
    assert!(!lap.device_proven_over(&[(1, e), (0, e)], 64));
    parallel_for(
        "laplacian",
        MDRangePolicy::new(exec, [1, 1], [last, last])?,
        &lap,
    )?;
    let got = download(&v)?;
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            let want = at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) - 4.0 * at(i, j);
            assert_eq!(got[i * n + j], want, "({i}, {j}) on {}", S::NAME);
        }
    }
    // A range kernel: its own index and a shifted one, proved over `[0, n - 1)` only.
    let x = crate::spaces::upload::<S, f64>("x", &host[..n])?;
    let y = SView::<S, f64, 1>::new("y", [n])?;
    let shift = kernel!(|i| y[i] = x[i] + 2.0 * x[i + 1]);
    assert!(shift.device_proven_over(&[(0, e)], 64));
    assert!(!shift.device_proven_over(&[(0, e + 1)], 64));
    parallel_for("shift", RangePolicy::new(exec, 0, n - 1)?, &shift)?;
    let got = download(&y)?;
    for i in 0..n - 1 {
        assert_eq!(got[i], host[i] + 2.0 * host[i + 1], "y[{i}] on {}", S::NAME);
    }
    assert_eq!(got[n - 1], 0.0);
    Ok(())
}
per_space!(
    a_device_proof_holds_per_launch_and_results_match,
    device_proof_per_launch
);

/// The unit of a proven launch declares `fk_proven` an `fk::Proof<true>`, a checked one an
/// `fk::Proof<false>`; both compile (NVRTC, hiprtc).
#[test]
fn proven_and_checked_units_compile() {
    use ferrokkos::codegen::{TranslationUnit, UnitOptions};
    common::runtime();
    let n = 8;
    let u = View::<f64, 2>::new("u", [n, n]).unwrap();
    let v = View::<f64, 2>::new("v", [n, n]).unwrap();
    let k = kernel!(|(i, j)| v[(i, j)] = u[(i - 1, j)] + u[(i, j + 1)]);
    for proven in [false, true] {
        let options = UnitOptions {
            proven,
            ..UnitOptions::default()
        };
        let tu = TranslationUnit::for_kernel_with(&k, Iterate::Right, options);
        let text = tu.generated();
        assert!(
            text.contains(&format!("constexpr fk::Proof<{proven}> fk_proven{{}};")),
            "{text}"
        );
        assert!(
            text.contains("v(fk_proven, i, j) = u(fk_proven, fk::wrapping_sub(i, 1LL), j)"),
            "{text}"
        );
        common::check_device_code(&tu);
    }
}
