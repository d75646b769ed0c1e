//! NCCL on one GPU: a communicator of one rank, whose all-reduce and exchange with itself are
//! queued in order with the kernels around them, and the Views NCCL cannot move refused with
//! errors that name them. (Two ranks on two GPUs are exercised by TeaLeaf under MPI.)

use ferrokkos::nccl::{NcclComm, NcclId, NcclOp, NcclTransfer};
use ferrokkos::prelude::*;
use ferrokkos::{CudaHostPinnedSpace, CudaSpace, Error};

use crate::{Dev1, cuda};

/// A device View's elements, copied to the host (after the work queued on it).
fn on_host<T: ferrokkos::traits::Element, const R: usize>(
    v: &View<T, R, LayoutRight, CudaSpace>,
) -> Vec<T> {
    let h = create_mirror_view(v).unwrap();
    deep_copy(&h, v).unwrap();
    h.to_vec().unwrap()
}

/// The communicator of a single rank on the test GPU.
fn solo(exec: &ferrokkos::Cuda) -> NcclComm {
    let id = NcclId::new().expect("libnccl on the GPU machine");
    NcclComm::new(exec, &id, 0, 1).unwrap()
}

#[test]
fn an_id_is_made_or_the_missing_library_is_named() {
    match NcclId::new() {
        Ok(id) => {
            assert!(NcclComm::is_available());
            assert_eq!(NcclId::from_bytes(id.to_bytes()), id);
        }
        Err(e) => {
            assert!(!NcclComm::is_available());
            assert!(e.to_string().contains("libnccl"), "{e}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn an_all_reduce_is_queued_between_the_kernels_that_write_and_read_it() {
    let exec = cuda();
    let comm = solo(&exec);
    assert_eq!((comm.rank(), comm.ranks()), (0, 1));
    let sums = Dev1::<f64>::new("sums", [2]).unwrap();
    let out = Dev1::<f64>::new("out", [1]).unwrap();
    for round in 0..50 {
        let r = round as f64;
        parallel_for(
            "write",
            RangePolicy::new(&exec, 0, 2).unwrap(),
            kernel!(|i| sums[i] = r + i as f64),
        )
        .unwrap();
        comm.all_reduce(&exec, &sums, NcclOp::Sum).unwrap();
        comm.all_reduce(&exec, &sums, NcclOp::Max).unwrap();
        parallel_for(
            "read",
            RangePolicy::new(&exec, 0, 1).unwrap(),
            kernel!(|i| out[i] = sums[i] * 10.0 + sums[i + 1]),
        )
        .unwrap();
        // The host reads after the queued work, without a fence of its own.
        assert_eq!(on_host(&out), [r * 10.0 + r + 1.0], "round {round}");
    }
    let counts = View::<i64, 1, LayoutRight, CudaSpace>::new("counts", [3]).unwrap();
    deep_copy(&counts, 7i64).unwrap();
    comm.all_reduce(&exec, &counts, NcclOp::Prod).unwrap();
    assert_eq!(on_host(&counts), [7, 7, 7]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn an_exchange_with_itself_moves_the_views_in_order() {
    let exec = cuda();
    let comm = solo(&exec);
    let send = View::<f32, 2, LayoutRight, CudaSpace>::new("send", [3, 4]).unwrap();
    let recv = View::<f32, 2, LayoutRight, CudaSpace>::new("recv", [3, 4]).unwrap();
    parallel_for(
        "fill",
        MDRangePolicy::new(&exec, [0, 0], [3, 4]).unwrap(),
        kernel!(|(i, j)| send[(i, j)] = (i * 10 + j) as f32),
    )
    .unwrap();
    comm.exchange(
        &exec,
        &[
            NcclTransfer::send(0, &send),
            NcclTransfer::receive(0, &recv),
        ],
    )
    .unwrap();
    let got = on_host(&recv);
    assert_eq!((got[11], got[4], got[0]), (23.0, 10.0, 0.0));
    // A sum and the messages beside it in one group, between two kernels.
    let total = Dev1::<f64>::new("total", [1]).unwrap();
    parallel_reduce(
        "local sum",
        MDRangePolicy::new(&exec, [0, 0], [3, 4]).unwrap(),
        kernel!(|(i, j), acc: &mut f64| *acc += send[(i, j)] as f64),
        subview(&total, (0,)).unwrap(),
    )
    .unwrap();
    parallel_for(
        "scale",
        MDRangePolicy::new(&exec, [0, 0], [3, 4]).unwrap(),
        kernel!(|(i, j)| send[(i, j)] *= 2.0),
    )
    .unwrap();
    comm.exchange(
        &exec,
        &[
            NcclTransfer::all_reduce(&total, NcclOp::Sum),
            NcclTransfer::send(0, &send),
            NcclTransfer::receive(0, &recv),
        ],
    )
    .unwrap();
    assert_eq!(
        on_host(&total),
        [(0..3).map(|i| 40.0 * i as f64 + 6.0).sum::<f64>()]
    );
    assert_eq!(on_host(&recv)[11], 46.0);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn views_nccl_cannot_move_are_refused_by_name() {
    let exec = cuda();
    let comm = solo(&exec);
    let grid = View::<f64, 2, LayoutRight, CudaSpace>::new("grid", [4, 4]).unwrap();
    let column = subview(&grid, (ALL, 1)).unwrap();
    let e = comm.all_reduce(&exec, &column, NcclOp::Sum).unwrap_err();
    assert!(
        matches!(e, Error::Unsupported { .. }) && e.to_string().contains("\"grid\""),
        "{e}"
    );
    let pinned = View::<f64, 1, LayoutRight, CudaHostPinnedSpace>::new("pinned", [4]).unwrap();
    let e = comm.all_reduce(&exec, &pinned, NcclOp::Sum).unwrap_err();
    assert!(e.to_string().contains("\"pinned\""), "{e}");
    let host = View::<f64, 1>::new("host", [4]).unwrap();
    let e = comm.all_reduce(&exec, &host, NcclOp::Sum).unwrap_err();
    assert!(e.to_string().contains("\"host\""), "{e}");
    // A peer out of range, a View received into and sent, a View reduced and sent.
    let a = Dev1::<f64>::new("a", [4]).unwrap();
    let e = comm
        .exchange(&exec, &[NcclTransfer::send(1, &a)])
        .unwrap_err();
    assert!(e.to_string().contains("rank 1 of 1"), "{e}");
    let e = comm
        .exchange(
            &exec,
            &[NcclTransfer::receive(0, &a), NcclTransfer::send(0, &a)],
        )
        .unwrap_err();
    assert!(
        e.to_string().contains("\"a\"") && e.to_string().contains("race"),
        "{e}"
    );
    let e = comm
        .exchange(
            &exec,
            &[
                NcclTransfer::send(0, &a),
                NcclTransfer::all_reduce(&a, NcclOp::Max),
            ],
        )
        .unwrap_err();
    assert!(e.to_string().contains("race"), "{e}");
    // Overlapping parts of one allocation are refused, disjoint ones allowed.
    let (lo, mid, hi) = (
        subview(&a, 0..2).unwrap(),
        subview(&a, 1..3).unwrap(),
        subview(&a, 2..4).unwrap(),
    );
    let e = comm
        .exchange(
            &exec,
            &[NcclTransfer::send(0, &lo), NcclTransfer::receive(0, &mid)],
        )
        .unwrap_err();
    assert!(e.to_string().contains("race"), "{e}");
    deep_copy(&lo, 5.0).unwrap();
    comm.exchange(
        &exec,
        &[NcclTransfer::send(0, &lo), NcclTransfer::receive(0, &hi)],
    )
    .unwrap();
    assert_eq!(on_host(&a), [5.0, 5.0, 5.0, 5.0]);
    // A host guard keeps the operation out.
    let m = View::<f64, 1, LayoutRight, ferrokkos::CudaUVMSpace>::new("managed", [2]).unwrap();
    let guard = m.host_mut().unwrap();
    let e = comm.all_reduce(&exec, &m, NcclOp::Sum).unwrap_err();
    assert!(matches!(e, Error::Borrow { .. }), "{e}");
    drop(guard);
    comm.all_reduce(&exec, &m, NcclOp::Sum).unwrap();
    // On a host space there is nothing to queue NCCL's work on.
    let serial = Serial::default_instance().unwrap();
    let e = comm.all_reduce(&serial, &a, NcclOp::Sum).unwrap_err();
    assert!(e.to_string().contains("Cuda instance"), "{e}");
}
