//! Element access on the host: guards, `get` / `set`, `to_vec` and every index form, elements of
//! array, `bool` and `char` type, bounds errors and panics, borrow conflicts between guards (through
//! clones and subviews too), and Views on other threads.

use std::panic::{AssertUnwindSafe, catch_unwind};

use ferrokkos::{
    ALL, BorrowKind, Error, HostSpace, LayoutLeft, LayoutRight, LayoutStride, Result, View, subview,
};

use crate::common::{self, conflict};

#[test]
fn rank_0_view_holds_one_element() -> Result<()> {
    common::runtime();
    let v = View::<f64, 0>::new("scalar", [])?;
    assert_eq!(
        (v.size(), v.span(), v.extent(0), v.extents()),
        (1, 1, 1, [])
    );
    v.set((), 2.5)?;
    assert_eq!(v.get([])?, 2.5);
    assert_eq!(v.host()?[()], 2.5);
    v.host_mut()?[()] += 1.0;
    assert_eq!(v.to_vec()?, [3.5]);
    Ok(())
}

#[test]
fn views_of_array_bool_and_char_elements_start_zeroed() -> Result<()> {
    common::runtime();
    let v = View::<[f32; 3], 1>::new("vec3", [4])?;
    assert_eq!(v.to_vec()?, vec![[0.0; 3]; 4]);
    v.set(2, [1.0, 2.0, 3.0])?;
    assert_eq!(v.get(2)?, [1.0, 2.0, 3.0]);
    assert_eq!(View::<bool, 2>::new("b", [2, 2])?.to_vec()?, [false; 4]);
    assert_eq!(View::<char, 1>::new("c", [3])?.to_vec()?, ['\0'; 3]);
    Ok(())
}

#[test]
fn guards_accept_every_index_form() -> Result<()> {
    common::runtime();
    let v1 = View::<i64, 1>::new("v1", [5])?;
    let v2 = View::<i64, 2, LayoutLeft>::new("v2", [2, 3])?;
    let v3 = View::<i64, 3>::new("v3", [2, 3, 4])?;
    let v8 = View::<i64, 8>::new("v8", [2; 8])?;
    {
        let mut g1 = v1.host_mut()?;
        g1[3] = 30;
        g1[[4]] = 40;
        let mut g2 = v2.host_mut()?;
        g2[(1, 2)] = 12;
        g2[[0, 1]] = 1;
        let mut g3 = v3.host_mut()?;
        g3[(1, 2, 3)] = 123;
        let mut g8 = v8.host_mut()?;
        g8[(1, 1, 1, 1, 1, 1, 1, 1)] = 255;
        g8[[1, 0, 1, 0, 1, 0, 1, 0]] = 170;
        assert_eq!(
            (g1[3], g1[[4]], g2[(1, 2)], g3[[1, 2, 3]]),
            (30, 40, 12, 123)
        );
    }
    let (g1, g2, g3, g8) = (v1.host()?, v2.host()?, v3.host()?, v8.host()?);
    assert_eq!((g1[3], g1[[4]], g1[0]), (30, 40, 0));
    assert_eq!((g2[[1, 2]], g2[(0, 1)], g2[(1, 1)]), (12, 1, 0));
    assert_eq!(g3[(1, 2, 3)], 123);
    assert_eq!(g8[[1; 8]], 255);
    assert_eq!(g8[(1, 0, 1, 0, 1, 0, 1, 0)], 170);
    // Memory positions: LayoutLeft (1, 2) is offset 1 + 2 * 2 = 5; rank-8 all-ones is 255.
    assert_eq!(g2.as_slice().unwrap()[5], 12);
    assert_eq!(g8.as_slice().unwrap()[255], 255);
    assert_eq!(g8.as_slice().unwrap()[0b1010_1010], 170);
    Ok(())
}

#[test]
fn get_and_set_accept_every_index_form() -> Result<()> {
    common::runtime();
    let v = View::<u16, 3, LayoutLeft>::new("gs", [2, 3, 4])?;
    v.set((1, 2, 3), 7)?;
    v.set([0, 1, 2], 8)?;
    assert_eq!(
        (v.get([1, 2, 3])?, v.get((0, 1, 2))?, v.get((1, 1, 1))?),
        (7, 8, 0)
    );
    let r = View::<u16, 1>::new("r", [3])?;
    r.set(1, 4)?;
    r.set([2], 5)?;
    assert_eq!(r.to_vec()?, [0, 4, 5]);
    // to_vec is row-major whatever the layout: (1, 2, 3) is the last element.
    let all = v.to_vec()?;
    assert_eq!((all[23], all[4 + 2], all.len()), (7, 8, 24));
    Ok(())
}

#[test]
fn to_vec_is_row_major_for_every_layout() -> Result<()> {
    common::runtime();
    let r = View::<i32, 2>::new("r", [2, 3])?;
    let l = View::<i32, 2, LayoutLeft>::new("l", [2, 3])?;
    let s = View::<i32, 2, LayoutStride>::new_strided("s", [2, 3], [1, 5])?;
    for (i, j) in [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)] {
        let x = (10 * i + j) as i32;
        r.set((i, j), x)?;
        l.set((i, j), x)?;
        s.set((i, j), x)?;
    }
    let expected = [0, 1, 2, 10, 11, 12];
    assert_eq!(
        (r.to_vec()?, l.to_vec()?, s.to_vec()?),
        (expected.to_vec(), expected.to_vec(), expected.to_vec())
    );
    assert_eq!(l.host()?.as_slice().unwrap(), [0, 10, 1, 11, 2, 12]);
    assert_eq!(
        s.host()?.as_slice(),
        None,
        "a strided View with holes has no slice"
    );
    Ok(())
}

#[test]
fn get_and_set_out_of_bounds_return_out_of_bounds() -> Result<()> {
    common::runtime();
    let v = View::<f64, 2>::new("b", [2, 3])?;
    let e = v.get((2, 0)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "index [2, 0] is out of bounds for View \"b\" with extents [2, 3]"
    );
    let e = v.set([1, 3], 1.0).unwrap_err();
    let want = (vec![1, 3], vec![2, 3]);
    assert!(matches!(e, Error::OutOfBounds { label, index, extents }
        if label == "b" && (index.clone(), extents.clone()) == want));
    assert_eq!(
        v.to_vec()?,
        [0.0; 6],
        "an out-of-bounds set wrote something"
    );
    let s = subview(&v, (ALL, 1..3))?;
    assert_eq!(
        s.get((0, 2)).unwrap_err().to_string(),
        "index [0, 2] is out of bounds for View \"b\" with extents [2, 2]"
    );
    Ok(())
}

#[test]
fn guard_index_out_of_bounds_panics_naming_label_index_and_extents() -> Result<()> {
    common::runtime();
    let v = View::<i32, 2>::new("g", [2, 3])?;
    let payload = catch_unwind(AssertUnwindSafe(|| {
        let g = v.host().unwrap();
        g[(0, 3)]
    }))
    .unwrap_err();
    let msg = payload
        .downcast_ref::<String>()
        .expect("a formatted message");
    assert_eq!(
        msg,
        "index [0, 3] is out of bounds for View \"g\" with extents [2, 3]"
    );
    // The guard was released during unwinding.
    v.host_mut()?[(1, 2)] = 5;
    assert_eq!(v.get((1, 2))?, 5);
    Ok(())
}

#[test]
#[should_panic(expected = "index [4] is out of bounds for View \"w\" with extents [4]")]
fn writing_through_a_guard_out_of_bounds_panics() {
    common::runtime();
    let v = View::<i32, 1, LayoutLeft>::new("w", [4]).unwrap();
    let mut g = v.host_mut().unwrap();
    g[4] = 1;
}

const READ: BorrowKind = BorrowKind::Shared;
const WRITE: BorrowKind = BorrowKind::Exclusive;

#[test]
fn writing_while_a_reader_is_alive_is_a_borrow_error() -> Result<()> {
    common::runtime();
    let v = View::<f64, 1>::new("rw", [4])?;
    let r1 = v.host()?;
    let r2 = v.host()?; // readers coexist
    let e = v.host_mut().err().unwrap();
    assert_eq!(
        e.to_string(),
        "View \"rw\" cannot be borrowed exclusive (write) on the host: it is already borrowed \
         shared (read)"
    );
    conflict(v.set(0, 1.0), "rw", WRITE, READ);
    assert_eq!(v.get(0)?, 0.0, "reading while reading is fine");
    drop(r1);
    conflict(v.host_mut(), "rw", WRITE, READ);
    drop(r2);
    v.set(0, 1.0)?;
    assert_eq!(v.get(0)?, 1.0);
    Ok(())
}

#[test]
fn reading_while_a_writer_is_alive_is_a_borrow_error() -> Result<()> {
    common::runtime();
    let v = View::<f64, 1>::new("wr", [4])?;
    let w = v.host_mut()?;
    let e = v.host().err().unwrap();
    assert_eq!(
        e.to_string(),
        "View \"wr\" cannot be borrowed shared (read) on the host: it is already borrowed \
         exclusive (write)"
    );
    conflict(v.get(1), "wr", READ, WRITE);
    conflict(v.to_vec(), "wr", READ, WRITE);
    conflict(v.host_mut(), "wr", WRITE, WRITE);
    drop(w);
    assert_eq!(v.to_vec()?, [0.0; 4]);
    Ok(())
}

#[test]
fn borrow_conflicts_reach_through_clones_and_subviews() -> Result<()> {
    common::runtime();
    let v = View::<i32, 2>::new("parent", [3, 4])?;
    let clone = v.clone();
    let row: View<i32, 1, LayoutRight> = subview(&v, (2, ALL))?;
    {
        let _w = clone.host_mut()?;
        conflict(v.get((0, 0)), "parent", READ, WRITE);
        conflict(row.host(), "parent", READ, WRITE);
    }
    {
        let _r = row.host()?;
        conflict(v.set((0, 0), 1), "parent", WRITE, READ);
        conflict(clone.host_mut(), "parent", WRITE, READ);
        // A different allocation is not affected.
        View::<i32, 2>::new("parent", [3, 4])?.set((0, 0), 1)?;
    }
    row.set(1, 9)?;
    assert_eq!(v.get((2, 1))?, 9);
    Ok(())
}

#[test]
fn views_are_send_and_sync_and_work_on_other_threads() -> Result<()> {
    common::runtime();
    fn send_sync<T: Send + Sync>() {}
    send_sync::<View<f64, 2>>();
    send_sync::<View<i32, 3, LayoutLeft>>();
    send_sync::<View<[f32; 3], 1, LayoutStride, HostSpace>>();
    let v = View::<u64, 1>::new("moved", [100])?;
    let alias = v.clone();
    let t = std::thread::spawn(move || -> Result<View<u64, 1>> {
        {
            let mut g = v.host_mut()?;
            for i in 0..100 {
                g[i] = i as u64 * 3;
            }
        }
        Ok(v)
    });
    let back = t.join().unwrap()?;
    assert!(back.shares_allocation_with(&alias));
    assert_eq!(alias.get(99)?, 297);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| assert_eq!(alias.host().unwrap().as_slice().unwrap()[10], 30));
        }
    });
    Ok(())
}
