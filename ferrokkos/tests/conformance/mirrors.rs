//! Mirrors against Kokkos' documented semantics (the mirror tests of Kokkos' TestViewAPI):
//! `create_mirror` always allocates (label `<label>_mirror`, compact strides in the source's memory
//! order), `create_mirror_view` is the View itself when it is already in the host's space, and values
//! round-trip between a space and its mirrors.

use ferrokkos::prelude::*;
use ferrokkos::traits::Layout;
use ferrokkos::{
    HostSpace, Result, create_mirror, create_mirror_in, create_mirror_view_and_copy,
    create_mirror_view_in,
};

use crate::common::{self, indices};
use crate::spaces::SView;

/// A value that encodes the multi-index (never zero).
pub fn code<const R: usize>(index: [usize; R]) -> i64 {
    index.iter().fold(1, |acc, &i| acc * 10 + i as i64)
}

/// Writes [`code`] of its index into every element of `v`.
pub fn fill_codes<L: Layout, const R: usize>(v: &View<i64, R, L>) -> Result<()> {
    let mut g = v.host_mut()?;
    for i in indices(v.extents()) {
        g[i] = code(i);
    }
    Ok(())
}

fn mirrors_round_trip<S: Launch>(exec: &S) -> Result<()> {
    let n = 1000;
    let v = SView::<S, f64, 2, LayoutLeft>::new("field", [n, 3])?;
    let m = create_mirror_view(&v)?;
    type Mirror<S> = <<S as ExecutionSpace>::MemorySpace as MemorySpace>::HostMirror;
    let same = <S::MemorySpace as MemorySpace>::NAME == <Mirror<S> as MemorySpace>::NAME;
    assert_eq!(m.shares_allocation_with(&v), same, "{}", S::NAME);
    let want_label = if same { "field" } else { "field_mirror" };
    assert_eq!(
        (m.label(), m.extents(), m.strides()),
        (want_label, [n, 3], v.strides())
    );
    // Host values -> the space -> a kernel -> back.
    {
        let mut g = m.host_mut()?;
        for [i, j] in indices([n, 3]) {
            g[(i, j)] = (i * 3 + j) as f64;
        }
    }
    deep_copy(&v, &m)?;
    parallel_for(
        "update",
        MDRangePolicy::new(exec, [0, 0], [n, 3])?,
        kernel!(|(i, j): (usize, usize)| v[(i, j)] = v[(i, j)] * 2.0 + 1.0),
    )?;
    // A fresh mirror (always a new allocation) sees the update; so does the first after a copy.
    let fresh = create_mirror(&v)?;
    assert!(!fresh.shares_allocation_with(&v));
    deep_copy(&fresh, &v)?;
    deep_copy(&m, &v)?;
    let want: Vec<f64> = (0..3 * n).map(|k| k as f64 * 2.0 + 1.0).collect();
    assert_eq!(fresh.to_vec()?, want);
    assert_eq!(m.to_vec()?, want);
    Ok(())
}
per_space!(mirrors_round_trip, mirrors_round_trip);

/// A staging mirror (`MemorySpace::HostStaging`) is the View itself in host memory, and pinned
/// host memory for device memory; values round-trip through it.
fn staging_mirrors_round_trip<S: Launch>(exec: &S) -> Result<()> {
    type Staging<S> = <<S as ExecutionSpace>::MemorySpace as MemorySpace>::HostStaging;
    let v = SView::<S, f64, 1, LayoutRight>::new("halo", [300])?;
    let m = create_mirror_view_in(Staging::<S>::default(), &v)?;
    let space = <S::MemorySpace as MemorySpace>::NAME;
    let (want, shared) = match space {
        "CudaSpace" => ("CudaHostPinnedSpace", false),
        other => (other, true),
    };
    assert_eq!(<Staging<S> as MemorySpace>::NAME, want, "{}", S::NAME);
    assert_eq!(m.shares_allocation_with(&v), shared, "{}", S::NAME);
    m.host_mut()?
        .as_mut_slice()
        .unwrap()
        .iter_mut()
        .enumerate()
        .for_each(|(i, x)| *x = i as f64);
    deep_copy(&v, &m)?;
    parallel_for(
        "negate",
        RangePolicy::new(exec, 0, 300)?,
        kernel!(|i| v[i] = -v[i]),
    )?;
    deep_copy(&m, &v)?;
    let want: Vec<f64> = (0..300).map(|i| -(i as f64)).collect();
    assert_eq!(m.to_vec()?, want);
    Ok(())
}

per_space!(staging_mirrors_round_trip, staging_mirrors_round_trip);

/// Whether Views of `S`'s memory space are host memory (their host mirrors are the Views).
fn space_is_host<S: Launch>() -> bool {
    <S::MemorySpace as MemorySpace>::NAME == <HostSpace as MemorySpace>::NAME
}

/// A View of `S`'s memory space, copied to a new host View (Kokkos' main use of
/// `create_mirror_view_and_copy`, written as users write it in space-generic code).
fn to_host<S: Launch>(
    v: &View<f64, 1, LayoutRight, S::MemorySpace>,
) -> Result<View<f64, 1, LayoutRight, HostSpace>> {
    create_mirror_view_and_copy(HostSpace, v)
}

/// `create_mirror_view_and_copy(HostSpace, &v)` brings a View of any space to the host after a
/// kernel wrote it: the View itself when it is host memory, else a new `_mirror` holding its values.
fn mirror_view_and_copy_to_the_host<S: Launch>(exec: &S) -> Result<()> {
    let n = 777;
    let v = SView::<S, f64, 1>::new("computed", [n])?;
    parallel_for(
        "ramp",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| v[i] = i as f64 * 0.5 - 3.0),
    )?;
    let h = to_host::<S>(&v)?;
    let host = space_is_host::<S>();
    assert_eq!(h.shares_allocation_with(&v), host, "{}", S::NAME);
    let label = if host { "computed" } else { "computed_mirror" };
    assert_eq!((h.label(), h.extents()), (label, [n]));
    let want: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 3.0).collect();
    assert_eq!(h.to_vec()?, want);
    // A strided source (a column) of a rank-2 View comes back compact, with its own values.
    let m = SView::<S, i64, 2>::new("matrix", [6, 5])?;
    parallel_for(
        "codes",
        MDRangePolicy::new(exec, [0, 0], [6, 5])?,
        kernel!(|(i, j): (usize, usize)| m[(i, j)] = (10 * i + j) as i64),
    )?;
    let column = subview(&m, (ALL, 3))?;
    let hc = create_mirror_view_and_copy(HostSpace, &column)?;
    assert_eq!(hc.extents(), [6]);
    assert_eq!(hc.to_vec()?, [3, 13, 23, 33, 43, 53]);
    Ok(())
}
per_space!(
    mirror_view_and_copy_to_the_host,
    mirror_view_and_copy_to_the_host
);

/// `create_mirror_view_and_copy(space, &host)` takes host data to any space (the View itself when
/// the space is HostSpace), where a kernel uses it; `create_mirror_view_in` and `create_mirror_in`
/// go both ways too.
fn mirrors_from_the_host_to_the_space<S: Launch>(exec: &S) -> Result<()> {
    let host = View::<i64, 2, LayoutLeft>::new("codes", [4, 7])?;
    fill_codes(&host)?;
    let d = create_mirror_view_and_copy(S::MemorySpace::default(), &host)?;
    let same = space_is_host::<S>();
    assert_eq!(d.shares_allocation_with(&host), same, "{}", S::NAME);
    assert_eq!((d.extents(), d.strides()), ([4, 7], [1, 4]));
    parallel_for(
        "negate",
        MDRangePolicy::new(exec, [0, 0], [4, 7])?,
        kernel!(|(i, j): (usize, usize)| d[(i, j)] = -d[(i, j)]),
    )?;
    let back = create_mirror_view_and_copy(HostSpace, &d)?;
    let want: Vec<i64> = indices([4, 7]).into_iter().map(|i| -code(i)).collect();
    assert_eq!(back.to_vec()?, want);
    // The view forms with an explicit space: shared when already there, else new and not copied.
    let mv = create_mirror_view_in(S::MemorySpace::default(), &host)?;
    assert_eq!(mv.shares_allocation_with(&host), same);
    let fresh = create_mirror_in(S::MemorySpace::default(), &host)?;
    assert!(!fresh.shares_allocation_with(&host));
    assert_eq!(fresh.label(), "codes_mirror");
    let mut zero = create_mirror_view_and_copy(HostSpace, &fresh)?.to_vec()?;
    zero.dedup();
    assert_eq!(zero, [0], "a new mirror is not a copy of the contents");
    Ok(())
}
per_space!(
    mirrors_from_the_host_to_the_space,
    mirrors_from_the_host_to_the_space
);

#[test]
fn create_mirror_allocates_a_new_view_with_the_same_shape() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2>::new("a", [3, 4])?;
    fill_codes(&a)?;
    let m: View<i64, 2, LayoutRight, HostSpace> = create_mirror(&a)?;
    assert!(!m.shares_allocation_with(&a));
    assert_ne!(m.as_ptr(), a.as_ptr());
    assert_eq!(
        (m.label(), m.extents(), m.strides()),
        ("a_mirror", [3, 4], [4, 1])
    );
    assert_eq!(
        m.to_vec()?,
        [0; 12],
        "a mirror is not a copy of the contents"
    );
    assert_eq!(a.use_count(), 1);
    deep_copy(&m, &a)?;
    m.set((0, 0), -1)?;
    assert_eq!(
        (a.get((0, 0))?, m.get((2, 3))?),
        (code([0, 0]), code([2, 3]))
    );

    let l = View::<f32, 3, LayoutLeft>::new("l", [2, 3, 4])?;
    let ml: View<f32, 3, LayoutLeft> = create_mirror(&l)?;
    assert_eq!(
        (ml.label(), ml.strides(), ml.as_ptr() as usize % 64),
        ("l_mirror", [1, 2, 6], 0)
    );
    let z = View::<f64, 0>::new("z", [])?;
    assert_eq!(create_mirror(&z)?.label(), "z_mirror");
    Ok(())
}

#[test]
fn create_mirror_of_layout_stride_has_compact_strides_in_the_same_order() -> Result<()> {
    common::runtime();
    let padded_cols = View::<i64, 2, LayoutStride>::new_strided("pc", [3, 4], [1, 5])?;
    let m = create_mirror(&padded_cols)?;
    assert_eq!(
        (m.label(), m.extents(), m.strides()),
        ("pc_mirror", [3, 4], [1, 3])
    );
    assert!(m.span_is_contiguous());
    let padded_rows = View::<i64, 2, LayoutStride>::new_strided("pr", [3, 4], [8, 1])?;
    assert_eq!(create_mirror(&padded_rows)?.strides(), [4, 1]);
    let mixed = View::<i64, 3, LayoutStride>::new_strided("mixed", [2, 3, 4], [1, 10, 2])?;
    let mm: View<i64, 3, LayoutStride> = create_mirror_in(HostSpace, &mixed)?;
    assert_eq!((mm.strides(), mm.span()), ([1, 8, 2], 24));
    fill_codes(&mixed)?;
    deep_copy(&mm, &mixed)?;
    assert_eq!(mm.to_vec()?, mixed.to_vec()?);
    // A column of a row-major matrix mirrors to a compact rank-1 View.
    let a = View::<i64, 2>::new("a", [4, 5])?;
    let col = subview(&a, (ALL, 2))?;
    let mc: View<i64, 1, LayoutStride> = create_mirror(&col)?;
    assert_eq!(
        (mc.label(), mc.extents(), mc.strides()),
        ("a_mirror", [4], [1])
    );
    // A padded LayoutRight block mirrors to a compact LayoutRight View.
    let block = subview(&a, (1..3, 1..4))?;
    let mb: View<i64, 2, LayoutRight> = create_mirror(&block)?;
    assert_eq!((mb.strides(), mb.span_is_contiguous()), ([3, 1], true));
    Ok(())
}

#[test]
fn create_mirror_in_host_space_always_allocates() -> Result<()> {
    common::runtime();
    let a = View::<u8, 1, LayoutLeft>::new("bytes", [16])?;
    let m: View<u8, 1, LayoutLeft, HostSpace> = create_mirror_in(HostSpace, &a)?;
    assert!(!m.shares_allocation_with(&a));
    assert_eq!(
        (m.label(), m.extents(), m.is_managed()),
        ("bytes_mirror", [16], true)
    );
    Ok(())
}

#[test]
fn create_mirror_view_of_a_host_view_is_the_view_itself() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2, LayoutLeft>::new("host", [3, 2])?;
    let m: View<i64, 2, LayoutLeft> = create_mirror_view(&a)?;
    assert!(m.shares_allocation_with(&a));
    assert_eq!(
        (m.as_ptr(), m.label(), m.strides(), a.use_count()),
        (a.as_ptr(), "host", [1, 3], 2)
    );
    m.set((2, 1), 5)?;
    assert_eq!(a.get((2, 1))?, 5);
    let mi = create_mirror_view_in(HostSpace, &a)?;
    assert!(mi.shares_allocation_with(&a));
    assert_eq!(mi.label(), "host");
    let row = subview(&a, (1, ALL))?;
    let mr: View<i64, 1, LayoutStride> = create_mirror_view(&row)?;
    assert_eq!((mr.as_ptr(), mr.strides()), (row.as_ptr(), [3]));
    Ok(())
}

#[test]
fn create_mirror_view_and_copy_in_the_same_space_shares_the_allocation() -> Result<()> {
    common::runtime();
    let a = View::<i64, 3>::new("src", [2, 3, 4])?;
    fill_codes(&a)?;
    let m = create_mirror_view_and_copy(HostSpace, &a)?;
    assert!(m.shares_allocation_with(&a));
    assert_eq!((m.label(), m.to_vec()?), ("src", a.to_vec()?));
    let part = subview(&a, (1, ALL, 1..3))?;
    let mp = create_mirror_view_and_copy(HostSpace, &part)?;
    assert_eq!((mp.as_ptr(), mp.to_vec()?), (part.as_ptr(), part.to_vec()?));
    Ok(())
}
