//! Reduction targets on the host: a `&mut` scalar and a rank-0 host View (overwritten, as in
//! Kokkos), `into_result` into either (on an empty range too: the reducer's identity, for every
//! schedule), and a rank-0 View a host guard borrows (a borrow error). Known data and helpers shared
//! with `custom_reducers`.

use ferrokkos::BorrowKind;
use ferrokkos::prelude::*;
use ferrokkos::traits::ReduceTarget;
use ferrokkos::traits::{HostExecutionSpace, ReduceFunctor};

use crate::common;

pub const N: usize = 100;

/// Known data with tied extremes in different threads' shares: the minimum -1000 at 3 and 99 (the
/// last index), the maximum 1000 at 0, 50 and 77.
pub fn data() -> Vec<f64> {
    let mut x: Vec<f64> = (0..N).map(|i| ((i * 37) % 101) as f64 - 50.5).collect();
    x[3] = -1000.0;
    x[99] = -1000.0;
    for i in [0, 50, 77] {
        x[i] = 1000.0;
    }
    x
}

/// `parallel_reduce` over a clone of `p` into `target`, unwrapped.
pub fn red<S, T, K>(p: &RangePolicy<S>, target: T, kernel: K) -> T::Output
where
    S: HostExecutionSpace,
    T: ReduceTarget,
    K: ReduceFunctor<usize, <T::Reducer as Reducer>::Value>,
{
    parallel_reduce("reducers", p.clone(), kernel, target).unwrap()
}

/// A value and its location.
pub fn vl<T, I>(val: T, loc: I) -> ValLocScalar<T, I> {
    ValLocScalar { val, loc }
}

#[test]
fn reduce_into_scalar_and_rank0_view_and_result_places() {
    common::runtime();
    let threads = Threads::default_instance().unwrap();
    let x = data();
    let sum_x: f64 = x.iter().sum();
    let base = RangePolicy::new(&threads, 0, N).unwrap();
    let dynamic = base
        .clone()
        .schedule(Schedule::Dynamic)
        .chunk_size(7)
        .unwrap();
    for p in [base, dynamic] {
        let mut s = 1e6; // overwritten, as in Kokkos
        red(&p, &mut s, |i: usize, a: &mut f64| *a += x[i]);
        assert!((s - sum_x).abs() < 1e-9);
        let v0 = View::<f64, 0>::new("r", []).unwrap();
        v0.set((), 1e6).unwrap();
        red(&p, &v0, |i: usize, a: &mut f64| *a += x[i]);
        assert!((v0.get(()).unwrap() - sum_x).abs() < 1e-9);
        let mut m = 0.0;
        red(
            &p,
            Max::new().into_result(&mut m),
            |i: usize, a: &mut f64| *a = a.max(x[i]),
        );
        assert_eq!(m, 1000.0);
        let best = View::<f64, 0>::new("best", []).unwrap();
        red(
            &p,
            Min::new().into_result(&best),
            |i: usize, a: &mut f64| *a = a.min(x[i]),
        );
        assert_eq!(best.get(()).unwrap(), -1000.0);
        let mut loc = vl(0.0, 0);
        let kernel = |i: usize, a: &mut ValLocScalar<f64, usize>| {
            if x[i] < a.val {
                *a = vl(x[i], i);
            }
        };
        red(&p, MinLoc::new().into_result(&mut loc), kernel);
        assert_eq!(loc, vl(-1000.0, 3));
    }
    // An empty range writes the reducer's identity into the result's place.
    for (what, p) in common::policy_configs(&threads, 7usize, 7) {
        let never = |_: usize, _: &mut f64| panic!("{what}: a kernel ran on an empty range");
        let best = View::<f64, 0>::new("best", []).unwrap();
        best.set((), 42.0).unwrap();
        red(&p, Min::new().into_result(&best), never);
        assert_eq!(best.get(()).unwrap(), f64::MAX, "{what}");
        let mut m = 42.0;
        red(&p, Max::new().into_result(&mut m), never);
        assert_eq!(m, f64::MIN, "{what}: lowest finite, not -inf");
        let mut loc = vl(42.0, 0);
        let never_loc = |_: usize, _: &mut ValLocScalar<f64, usize>| panic!("{what}: a kernel ran");
        red(&p, MaxLoc::new().into_result(&mut loc), never_loc);
        assert_eq!(loc, vl(f64::MIN, usize::MAX), "{what}");
        let never_both =
            |_: usize, _: &mut MinMaxLocScalar<i8, usize>| panic!("{what}: a kernel ran");
        let both = red(&p, MinMaxLoc::new(), never_both);
        let found = (both.min_val, both.min_loc, both.max_val, both.max_loc);
        assert_eq!(found, (i8::MAX, usize::MAX, i8::MIN, usize::MAX), "{what}");
    }
}

#[test]
fn reduce_into_a_borrowed_rank0_view_is_a_borrow_error() {
    common::runtime();
    let exec = Serial::default_instance().unwrap();
    let v0 = View::<i64, 0>::new("busy", []).unwrap();
    let _reader = v0.host().unwrap();
    let p = RangePolicy::new(&exec, 0, 10).unwrap();
    let k = |i: usize, a: &mut i64| *a += i as i64;
    let r = parallel_reduce("busy", p.clone(), k, &v0);
    common::conflict(r, "busy", BorrowKind::Exclusive, BorrowKind::Shared);
    let r = parallel_reduce("busy", p, k, Max::new().into_result(&v0));
    common::conflict(r, "busy", BorrowKind::Exclusive, BorrowKind::Shared);
}
