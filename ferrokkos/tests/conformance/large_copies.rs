//! Large host copies and fills: split over the Threads instance's threads from 128 KiB and written
//! with streaming stores from half the last-level cache. Every element of the destination range
//! gets its value, at any alignment of either side, for element sizes that divide a cache line and
//! sizes that do not, and nothing outside the range is written; on the default instance, a Serial
//! instance and a partition of Threads.

use ferrokkos::prelude::*;
use ferrokkos::traits::Element;
use ferrokkos::{Result, Serial, Threads, deep_copy_async, partition_space};

use crate::common;

/// Element counts of f64 around the parallel threshold (128 KiB) and past any last-level cache
/// (72 MiB, so the streaming path runs on the machines we know).
const SIZES: [usize; 4] = [1000, (128 << 10) / 8 + 5, (1 << 20) + 7, (9 << 20) + 1];

/// A View of `n + 2 * pad` distinct values.
fn distinct_view(label: &str, n: usize, pad: usize, seed: u64) -> Result<View<u64, 1>> {
    let v = View::<u64, 1>::new(label, [n + 2 * pad])?;
    {
        let mut host = v.host_mut()?;
        let s = host.as_mut_slice().expect("a new View is contiguous");
        for (k, x) in s.iter_mut().enumerate() {
            *x = (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed;
        }
    }
    Ok(v)
}

/// Copies `[src_at, src_at + n)` of one View into `[dst_at, dst_at + n)` of another through
/// `copy`, then checks every element of the destination View.
fn check_copy(
    n: usize,
    src_at: usize,
    dst_at: usize,
    copy: impl Fn(&View<u64, 1>, &View<u64, 1>) -> Result<()>,
) -> Result<()> {
    let src = distinct_view("large_src", n, 3, 1)?;
    let dst = distinct_view("large_dst", n, 3, 2)?;
    let before = dst.to_vec()?;
    let from = subview(&src, (src_at..src_at + n,))?;
    let into = subview(&dst, (dst_at..dst_at + n,))?;
    copy(&into, &from)?;
    let (s, d) = (src.to_vec()?, dst.to_vec()?);
    for (k, &got) in d.iter().enumerate() {
        let want = if (dst_at..dst_at + n).contains(&k) {
            s[k - dst_at + src_at]
        } else {
            before[k]
        };
        assert_eq!(
            got, want,
            "n {n}, src at {src_at}, dst at {dst_at}: element {k}"
        );
    }
    Ok(())
}

#[test]
fn large_copies_copy_every_element_at_every_alignment() -> Result<()> {
    common::runtime();
    for n in SIZES {
        let offsets: &[(usize, usize)] = if n == SIZES[3] {
            &[(1, 0), (2, 5)]
        } else {
            &[(0, 0), (1, 0), (0, 3), (2, 5)]
        };
        for &(src_at, dst_at) in offsets {
            check_copy(n, src_at, dst_at, |d, s| deep_copy(d, s))?;
        }
    }
    Ok(())
}

/// The default Serial instance and two halves of the default Threads instance.
fn other_instances() -> Result<(Serial, Vec<Threads>)> {
    common::runtime();
    Ok((
        Serial::default_instance()?,
        partition_space(&common::threads(), 2)?,
    ))
}

#[test]
fn large_copies_on_a_serial_instance_and_a_partition_copy_every_element() -> Result<()> {
    let (serial, parts) = other_instances()?;
    for n in [SIZES[2], SIZES[3]] {
        check_copy(n, 1, 2, |d, s| deep_copy_async(&serial, d, s))?;
        check_copy(n, 3, 0, |d, s| deep_copy_async(&parts[1], d, s))?;
    }
    Ok(())
}

/// Fills `[at, at + n)` of an `n + 2 * 3` View of `T` with `value` and checks every element.
fn check_fill<T: Element + PartialEq + std::fmt::Debug>(
    n: usize,
    at: usize,
    value: T,
    zero: T,
) -> Result<()> {
    let v = View::<T, 1>::new("large_fill", [n + 6])?;
    deep_copy(&subview(&v, (at..at + n,))?, value)?;
    let got = v.to_vec()?;
    for (k, g) in got.iter().enumerate() {
        let want = if (at..at + n).contains(&k) {
            value
        } else {
            zero
        };
        assert_eq!(
            *g,
            want,
            "fill of {n} x {} at {at}: element {k}",
            std::any::type_name::<T>()
        );
    }
    Ok(())
}

#[test]
fn large_fills_write_every_element_of_every_size() -> Result<()> {
    common::runtime();
    for n in SIZES {
        let offsets: &[usize] = if n == SIZES[3] { &[1] } else { &[0, 1, 5] };
        for &at in offsets {
            check_fill::<f64>(n, at, -1.25, 0.0)?;
            check_fill::<u8>(n * 8, at, 0xa5, 0)?;
            check_fill::<[f32; 3]>(n * 2 / 3, at, [1.5, -2.0, 3.25], [0.0; 3])?;
            check_fill::<[u64; 5]>(n / 5, at, [1, 2, 3, 4, u64::MAX], [0; 5])?;
        }
    }
    Ok(())
}

#[test]
fn large_fills_on_a_serial_instance_and_a_partition_write_every_element() -> Result<()> {
    let (serial, parts) = other_instances()?;
    let n = SIZES[3];
    let v = View::<i32, 1>::new("large_fill_async", [n])?;
    deep_copy_async(&serial, &v, 7)?;
    assert!(v.to_vec()?.iter().all(|&x| x == 7));
    deep_copy_async(&parts[0], &v, -3)?;
    assert!(v.to_vec()?.iter().all(|&x| x == -3));
    Ok(())
}

#[test]
fn large_copies_inside_a_host_kernel_run_where_the_kernel_runs() -> Result<()> {
    common::runtime();
    let n = 1 << 18;
    let src: Vec<View<u64, 1>> = (0..4)
        .map(|k| distinct_view("kernel_src", n, 0, k))
        .collect::<Result<_>>()?;
    let dst: Vec<View<u64, 1>> = (0..4)
        .map(|_| View::<u64, 1>::new("kernel_dst", [n]))
        .collect::<Result<_>>()?;
    parallel_for(
        "copies_in_a_kernel",
        RangePolicy::new(&common::threads(), 0, 4)?,
        |i: usize| {
            deep_copy(&dst[i], &src[i]).expect("copy inside a kernel");
            deep_copy(&src[i], 0).expect("fill inside a kernel");
        },
    )?;
    for k in 0..4 {
        assert_eq!(
            dst[k].to_vec()?,
            distinct_view("want", n, 0, k as u64)?.to_vec()?
        );
        assert!(src[k].to_vec()?.iter().all(|&x| x == 0));
    }
    Ok(())
}
