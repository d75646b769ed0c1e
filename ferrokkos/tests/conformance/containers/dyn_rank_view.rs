//! DynRankView: its rank is chosen at run time; a View of that rank shares its elements (another
//! rank is an error), extents past the rank are 1, and it copies between spaces. On every space,
//! against plain Rust.

use crate::spaces::download;
use ferrokkos::prelude::*;
use ferrokkos::{DynRankView, Error, Result, kernel};

type SDyn<S, L = LayoutRight> = DynRankView<f64, L, <S as ExecutionSpace>::MemorySpace>;

/// A rank chosen at run time; a kernel fills it through `view::<3>()`; the host reads it back
/// through a mirror, by `get` with as many indices as the rank.
fn a_runtime_rank_is_filled_through_its_typed_view<S: Launch>(exec: &S) -> Result<()> {
    let shape: Vec<usize> = "2 3 4".split(' ').map(|t| t.parse().unwrap()).collect();
    let d = SDyn::<S>::new("field", &shape)?;
    assert_eq!((d.rank(), d.extents(), d.size()), (3, &[2, 3, 4][..], 24));
    assert_eq!((d.extent(2), d.extent(3), d.extent(6)), (4, 1, 1));
    let e = d.view::<2>().unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
    assert!(e.to_string().contains("\"field\" has rank 3"), "{e}");
    let a = d.view::<3>()?;
    parallel_for(
        "fill",
        MDRangePolicy::new(exec, [0, 0, 0], [2, 3, 4])?,
        kernel!(|(i, j, k)| a[(i, j, k)] = (100 * i + 10 * j + k) as f64),
    )?;
    let want: Vec<f64> = (0..2)
        .flat_map(|i| (0..3).flat_map(move |j| (0..4).map(move |k| (100 * i + 10 * j + k) as f64)))
        .collect();
    assert_eq!(download(&a)?, want);
    let m = d.create_mirror_view()?;
    m.deep_copy_from(&d)?;
    assert_eq!(m.get(&[1, 2, 3])?, 123.0);
    assert!(m.get(&[1, 2]).is_err());
    assert!(m.get(&[2, 0, 0]).is_err());
    m.set(&[0, 0, 1], -1.0)?;
    d.deep_copy_from(&m)?;
    assert_eq!(download(&a)?[1], -1.0);
    Ok(())
}

per_space!(
    a_runtime_rank_is_filled_through_its_typed_view,
    a_runtime_rank_is_filled_through_its_typed_view
);

/// LayoutLeft keeps Fortran order through `get`, a View made elsewhere becomes a DynRankView
/// sharing it, rank 0 holds one element, and more than 7 extents are refused.
#[test]
fn layouts_views_and_rank_limits() -> Result<()> {
    crate::common::runtime();
    let d = DynRankView::<f64, LayoutLeft>::new("left", &[2, 3])?;
    let v = d.view::<2>()?;
    v.set((1, 2), 5.0)?;
    assert_eq!(v.as_ptr(), d.view::<2>()?.as_ptr());
    assert_eq!(d.get(&[1, 2])?, 5.0);
    assert_eq!(v.to_vec()?, [0.0, 0.0, 0.0, 0.0, 0.0, 5.0]);
    let w = View::<i32, 4>::new("w", [1, 2, 1, 2])?;
    w.set((0, 1, 0, 1), 7)?;
    let from = DynRankView::from_view(&w)?;
    assert_eq!((from.rank(), from.get(&[0, 1, 0, 1])?), (4, 7));
    let m = View::<i32, 2>::new("m", [4, 4])?;
    let block = ferrokkos::subview(&m, (1..3, 1..3))?;
    let e = DynRankView::from_view(&block).unwrap_err();
    assert!(e.to_string().contains("contiguous"), "{e}");
    let zero = DynRankView::<u8>::new("scalar", &[])?;
    assert_eq!((zero.rank(), zero.size()), (0, 1));
    zero.set(&[], 9)?;
    assert_eq!(zero.view::<0>()?.get(())?, 9);
    let e = DynRankView::<u8>::new("deep", &[1; 8]).unwrap_err();
    assert!(e.to_string().contains("at most 7"), "{e}");
    let other = DynRankView::<f64, LayoutLeft>::new("other", &[3, 2])?;
    let e = other.deep_copy_from(&d).unwrap_err();
    assert!(
        e.to_string()
            .contains("destination \"other\" has extents [3, 2], source \"left\" has [2, 3]"),
        "{e}"
    );
    Ok(())
}

/// `resize` keeps the values at the indices both shapes have (a rank change included) and zeroes
/// the rest, in new memory (another handle keeps the old elements); `realloc` keeps none; both
/// refuse more than 7 extents. On every space, read back through a mirror.
fn resize_keeps_the_common_box<S: Launch>(exec: &S) -> Result<()> {
    let mut d = SDyn::<S, LayoutLeft>::new("grow", &[3, 4])?;
    let a = d.view::<2>()?;
    parallel_for(
        "fill",
        MDRangePolicy::new(exec, [0, 0], [3, 4])?,
        kernel!(|(i, j)| a[(i, j)] = (10 * i + j + 1) as f64),
    )?;
    let old = d.clone();
    d.resize(&[5, 2])?;
    assert_eq!((d.rank(), d.extents()), (2, &[5, 2][..]));
    let m = d.create_mirror_view()?;
    m.deep_copy_from(&d)?;
    for i in 0..5 {
        for j in 0..2 {
            let want = if i < 3 { (10 * i + j + 1) as f64 } else { 0.0 };
            assert_eq!(m.get(&[i, j])?, want, "({i}, {j})");
        }
    }
    let o = old.create_mirror_view()?;
    o.deep_copy_from(&old)?;
    assert_eq!((old.extents(), o.get(&[2, 3])?), (&[3, 4][..], 24.0));
    // Rank 2 to rank 3: the values sit at k = 0.
    d.resize(&[5, 2, 2])?;
    let m = d.create_mirror_view()?;
    m.deep_copy_from(&d)?;
    assert_eq!((m.get(&[1, 1, 0])?, m.get(&[1, 1, 1])?), (12.0, 0.0));
    d.realloc(&[2])?;
    let m = d.create_mirror_view()?;
    m.deep_copy_from(&d)?;
    assert_eq!((d.rank(), m.get(&[1])?), (1, 0.0));
    let e = d.resize(&[1; 8]).unwrap_err();
    assert!(e.to_string().contains("\"grow\": 8 extents"), "{e}");
    assert!(d.realloc(&[1; 8]).is_err());
    Ok(())
}

per_space!(resize_keeps_the_common_box, resize_keeps_the_common_box);
