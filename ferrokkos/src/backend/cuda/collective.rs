//! Collectives and messages between GPUs through NCCL, in stream order on a [`Cuda`] instance:
//! [`NcclComm::all_reduce`] and [`NcclComm::exchange`] are queued like a kernel, so the host
//! need not wait between a kernel that reduces into a View, the sum over the ranks, and the
//! kernel that reads it.
//!
//! Each operation takes the borrows of the Views it uses (shared for what it sends, exclusive
//! for what it writes) for the time it is queued, orders itself after the work of other
//! instances that uses them, and stamps them, so that host access and other instances wait for
//! it, exactly as for a kernel or an asynchronous `deep_copy`.
//!
//! NCCL matches the operations of the ranks by their order: like MPI, every rank of a
//! communicator must queue the same collectives in the same order with the same element
//! counts, and each send must meet a receive of the same count on its peer. ferrokkos checks
//! what one rank can check (contiguous device Views, peers in range, no View both received into
//! and used by another transfer of the exchange); a mismatch between the programs of two ranks
//! hangs the streams or exchanges wrong values, as with MPI.

use std::any::Any;
use std::sync::Arc;

use super::backend::CudaShared;
use super::driver::{PointerKind, pointer_kind};
use super::instance::Cuda;
use super::nccl::{self, DataType, ID_BYTES, RawComm, RedOp};
use crate::backend::gpu::copy::Borrows;
use crate::error::{Error, Result};
use crate::space::{Allocation, ExecutionSpace, MemorySpace};
use crate::view::{Element, Layout, View};

mod sealed {
    #[diagnostic::on_unimplemented(
        message = "`NcclType` is sealed: NCCL moves and reduces `i32`, `u32`, `i64`, `u64`, `f32` \
                   and `f64`, not `{Self}`",
        note = "copy the values into a View of one of those types first"
    )]
    pub trait Sealed {}
}

/// An element type NCCL moves and reduces: `i32`, `u32`, `i64`, `u64`, `f32`, `f64`. Sealed.
pub trait NcclType: Element + sealed::Sealed {
    /// NCCL's type for it.
    #[doc(hidden)]
    const DATA_TYPE: DataType;
}

macro_rules! nccl_types {
    ($($t:ty => $d:ident),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl NcclType for $t {
            const DATA_TYPE: DataType = DataType::$d;
        }
    )*};
}

nccl_types!(i32 => I32, u32 => U32, i64 => I64, u64 => U64, f32 => F32, f64 => F64);

/// The reduction of [`NcclComm::all_reduce`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NcclOp {
    /// The sum over the ranks.
    Sum,
    /// The product.
    Prod,
    /// The largest value.
    Max,
    /// The smallest value.
    Min,
}

impl NcclOp {
    fn raw(self) -> RedOp {
        match self {
            NcclOp::Sum => RedOp::Sum,
            NcclOp::Prod => RedOp::Prod,
            NcclOp::Max => RedOp::Max,
            NcclOp::Min => RedOp::Min,
        }
    }
}

/// The id that names a communicator to every rank (`ncclUniqueId`): one rank makes it with
/// [`NcclId::new`], sends its [`bytes`](NcclId::to_bytes) to the others (with MPI's broadcast,
/// say), and each rank passes it to [`NcclComm::new`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct NcclId {
    bytes: [u8; ID_BYTES],
}

impl std::fmt::Debug for NcclId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NcclId").finish_non_exhaustive()
    }
}

impl NcclId {
    /// A new id (`ncclGetUniqueId`). An error names the missing library when NCCL cannot be
    /// loaded.
    pub fn new() -> Result<NcclId> {
        Ok(NcclId {
            bytes: nccl::unique_id()?,
        })
    }

    /// The id's bytes, to send to the other ranks.
    pub fn to_bytes(&self) -> [u8; ID_BYTES] {
        self.bytes
    }

    /// The id whose bytes another rank sent.
    pub fn from_bytes(bytes: [u8; ID_BYTES]) -> NcclId {
        NcclId { bytes }
    }
}

/// One rank's NCCL communicator, on the Cuda device of this process. Its operations are queued
/// on the [`Cuda`] instance given to each, in order with the kernels queued there.
///
/// It is neither `Send` nor `Sync`: NCCL does not allow two threads to queue operations on one
/// communicator at once. Dropping it waits for the device's work, then destroys it.
///
/// ```no_run
/// use ferrokkos::prelude::*;
/// use ferrokkos::nccl::{NcclComm, NcclId, NcclOp};
/// use ferrokkos::{Cuda, CudaSpace};
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Cuda::default_instance()?;
/// // One rank: with MPI, rank 0 makes the id and broadcasts its bytes.
/// let comm = NcclComm::new(&exec, &NcclId::new()?, 0, 1)?;
/// let sum = View::<f64, 1, LayoutRight, CudaSpace>::new("sum", [1])?;
/// parallel_reduce("local", RangePolicy::new(&exec, 0, 100)?,
///     kernel!(|i, acc: &mut f64| *acc += i as f64), ferrokkos::subview(&sum, (0,))?)?;
/// comm.all_reduce(&exec, &sum, NcclOp::Sum)?;
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct NcclComm {
    raw: RawComm,
    rank: usize,
    ranks: usize,
    shared: Arc<CudaShared>,
}

impl std::fmt::Debug for NcclComm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NcclComm")
            .field("rank", &self.rank)
            .field("ranks", &self.ranks)
            .finish_non_exhaustive()
    }
}

/// The Cuda instance `exec` is, or an error naming the space that is not.
fn cuda_of<'e, E: ExecutionSpace>(exec: &'e E, what: &dyn Fn() -> String) -> Result<&'e Cuda> {
    (exec as &dyn Any)
        .downcast_ref::<Cuda>()
        .ok_or_else(|| Error::Unsupported {
            what: what(),
            reason: format!(
                "NCCL queues its work on a Cuda instance, not on {}",
                E::NAME
            ),
        })
}

/// One View of an operation, type-erased: its allocation, label, first element and size.
#[derive(Clone, Copy)]
struct Part<'a> {
    alloc: &'a Arc<Allocation>,
    label: &'a str,
    ptr: *const u8,
    count: usize,
    contiguous: bool,
    data_type: DataType,
}

impl<'a> Part<'a> {
    fn of<T: NcclType, const R: usize, L: Layout, M: MemorySpace>(
        view: &'a View<T, R, L, M>,
    ) -> Part<'a> {
        Part {
            alloc: view.allocation(),
            label: view.label(),
            ptr: view.as_ptr().cast(),
            count: view.size(),
            contiguous: view.span_is_contiguous(),
            data_type: T::DATA_TYPE,
        }
    }

    /// Whether the elements of the two Views share a byte (`size`: each one's element size).
    fn overlaps(&self, other: &Part<'_>, size: usize, other_size: usize) -> bool {
        let (a, b) = (self.ptr as usize, other.ptr as usize);
        let (a_end, b_end) = (a + self.count * size, b + other.count * other_size);
        self.count > 0 && other.count > 0 && a < b_end && b < a_end
    }

    /// Refuses a View NCCL cannot use: not contiguous, or not in device memory.
    fn check(&self, what: &dyn Fn() -> String) -> Result<()> {
        let refuse = |reason: String| Error::Unsupported {
            what: what(),
            reason: format!("View \"{}\": {reason}", self.label),
        };
        if !self.contiguous {
            return Err(refuse(
                "NCCL moves one contiguous block; this View's elements are strided".into(),
            ));
        }
        match pointer_kind(self.ptr)? {
            PointerKind::Device | PointerKind::Managed => Ok(()),
            other => Err(refuse(format!(
                "NCCL moves device memory (CudaSpace, CudaUVMSpace); this View is in {other:?} \
                 memory"
            ))),
        }
    }
}

/// What a [`NcclTransfer`] does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Send(usize),
    Receive(usize),
    AllReduce(NcclOp),
}

/// One operation of an [`NcclComm::exchange`]: a View sent to a peer, received from one, or
/// reduced in place over the ranks.
#[derive(Clone, Copy)]
pub struct NcclTransfer<'a> {
    kind: Kind,
    part: Part<'a>,
}

impl std::fmt::Debug for NcclTransfer<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NcclTransfer")
            .field("kind", &self.kind)
            .field("view", &self.part.label)
            .field("count", &self.part.count)
            .finish()
    }
}

impl NcclTransfer<'_> {
    /// Whether it writes its View.
    fn writes(&self) -> bool {
        !matches!(self.kind, Kind::Send(_))
    }
}

impl<'a> NcclTransfer<'a> {
    /// Sends every element of `view` (contiguous, in device memory) to rank `to`, which
    /// receives the same number of elements of the same type.
    pub fn send<T: NcclType, const R: usize, L: Layout, M: MemorySpace>(
        to: usize,
        view: &'a View<T, R, L, M>,
    ) -> NcclTransfer<'a> {
        NcclTransfer {
            kind: Kind::Send(to),
            part: Part::of(view),
        }
    }

    /// Receives into every element of `view` (contiguous, in device memory) what rank `from`
    /// sends.
    pub fn receive<T: NcclType, const R: usize, L: Layout, M: MemorySpace>(
        from: usize,
        view: &'a View<T, R, L, M>,
    ) -> NcclTransfer<'a> {
        NcclTransfer {
            kind: Kind::Receive(from),
            part: Part::of(view),
        }
    }

    /// Replaces every element of `view` (contiguous, in device memory) by its reduction over
    /// the ranks, as [`NcclComm::all_reduce`], within the exchange's group (so one launch of
    /// NCCL carries a sum and the messages beside it).
    pub fn all_reduce<T: NcclType, const R: usize, L: Layout, M: MemorySpace>(
        view: &'a View<T, R, L, M>,
        op: NcclOp,
    ) -> NcclTransfer<'a> {
        NcclTransfer {
            kind: Kind::AllReduce(op),
            part: Part::of(view),
        }
    }
}

/// The bytes of one element of `data_type`.
fn size_of_type(data_type: DataType) -> usize {
    match data_type {
        DataType::I32 | DataType::U32 | DataType::F32 => 4,
        DataType::I64 | DataType::U64 | DataType::F64 => 8,
    }
}

impl NcclComm {
    /// Whether NCCL can be loaded in this process.
    pub fn is_available() -> bool {
        nccl::is_available()
    }

    /// Joins the communicator `id` as rank `rank` of `ranks`, on the device of `exec` (a
    /// [`Cuda`] instance). Returns once every rank has joined, so every rank calls it.
    pub fn new<E: ExecutionSpace>(
        exec: &E,
        id: &NcclId,
        rank: usize,
        ranks: usize,
    ) -> Result<NcclComm> {
        let what = || format!("joining an NCCL communicator as rank {rank} of {ranks}");
        let cuda = cuda_of(exec, &what)?;
        if rank >= ranks {
            return Err(Error::InvalidArgument {
                operation: "NcclComm::new",
                reason: format!("rank {rank} is not below the number of ranks {ranks}"),
            });
        }
        let shared = Arc::clone(cuda.shared());
        shared.check_alive(what)?;
        shared.ctx.bind()?;
        let raw = RawComm::init(&id.bytes, rank, ranks, &what)?;
        Ok(NcclComm {
            raw,
            rank,
            ranks,
            shared,
        })
    }

    /// This rank, from 0.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks.
    pub fn ranks(&self) -> usize {
        self.ranks
    }

    /// Replaces every element of `view` (contiguous, in device memory) by its reduction over
    /// the ranks (`ncclAllReduce` in place), queued on `exec` after the work queued there
    /// before; the host does not wait. Every rank calls it with a View of the same size.
    pub fn all_reduce<E, T, const R: usize, L, M>(
        &self,
        exec: &E,
        view: &View<T, R, L, M>,
        op: NcclOp,
    ) -> Result<()>
    where
        E: ExecutionSpace,
        T: NcclType,
        L: Layout,
        M: MemorySpace,
    {
        self.exchange(exec, &[NcclTransfer::all_reduce(view, op)])
    }

    /// Runs every transfer (sends, receives, all-reduces) as one NCCL group (so no send waits
    /// for a receive of the same exchange, and one launch of NCCL carries them all), queued on
    /// `exec` after the work queued there before. The elements a transfer writes (received
    /// into, reduced) may be used by no other transfer of the exchange (other parts of the
    /// same allocation may). The transfers to one peer are matched with the peer's in their
    /// order.
    pub fn exchange<E: ExecutionSpace>(
        &self,
        exec: &E,
        transfers: &[NcclTransfer<'_>],
    ) -> Result<()> {
        let what = || {
            let each: Vec<String> = transfers.iter().map(|t| format!("{:?}", t.kind)).collect();
            let views: Vec<&str> = transfers.iter().map(|t| t.part.label).collect();
            format!("NCCL exchange [{}] of Views {views:?}", each.join(", "))
        };
        let mut uses: Vec<(&Arc<Allocation>, bool)> = Vec::with_capacity(transfers.len());
        for (i, t) in transfers.iter().enumerate() {
            if let Kind::Send(peer) | Kind::Receive(peer) = t.kind
                && peer >= self.ranks
            {
                return Err(Error::InvalidArgument {
                    operation: "NcclComm::exchange",
                    reason: format!(
                        "transfer {i} (View \"{}\") names rank {peer} of {} ranks",
                        t.part.label, self.ranks
                    ),
                });
            }
            t.part.check(&what)?;
            let clash = transfers[..i].iter().find(|o| {
                (o.writes() || t.writes())
                    && o.part.overlaps(
                        &t.part,
                        size_of_type(o.part.data_type),
                        size_of_type(t.part.data_type),
                    )
            });
            if let Some(other) = clash {
                return Err(Error::InvalidArgument {
                    operation: "NcclComm::exchange",
                    reason: format!(
                        "View \"{}\" is written by one transfer and its elements are also used \
                         by another (View \"{}\") of the exchange (a race between the two)",
                        t.part.label, other.part.label
                    ),
                });
            }
            // One borrow per allocation: exclusive if any transfer writes it (its transfers
            // use disjoint elements, checked above).
            match uses.iter_mut().find(|(a, _)| Arc::ptr_eq(a, t.part.alloc)) {
                Some((_, writes)) => *writes |= t.writes(),
                None => uses.push((t.part.alloc, t.writes())),
            }
        }
        self.submit(exec, &uses, "exchange", &what, |stream| {
            nccl::group(&what, || {
                for t in transfers.iter().filter(|t| t.part.count > 0) {
                    let p = &t.part;
                    let ptr = p.ptr as u64;
                    let (n, ty) = (p.count, p.data_type);
                    // SAFETY: each View is contiguous device memory of `count` elements
                    // (checked); its allocation is borrowed while this is queued (exclusively
                    // where written, and then in no other transfer), and the submission orders
                    // the group after the work using them and stamps them. A peer is below
                    // `ranks`, which fits NCCL's int (checked when joining).
                    unsafe {
                        match t.kind {
                            Kind::Send(peer) | Kind::Receive(peer) => {
                                let receive = matches!(t.kind, Kind::Receive(_));
                                let peer = peer as i32;
                                self.raw
                                    .send_or_recv(receive, ptr, n, ty, peer, stream, &what)?
                            }
                            Kind::AllReduce(op) => {
                                self.raw.all_reduce(ptr, n, ty, op.raw(), stream, &what)?
                            }
                        }
                    }
                }
                Ok(())
            })
        })
    }

    /// Queues `enqueue` on `exec`'s stream with the borrows of `uses` (allocation, whether
    /// written), ordered after other instances' work on them and stamped after.
    fn submit<E: ExecutionSpace>(
        &self,
        exec: &E,
        uses: &[(&Arc<Allocation>, bool)],
        label: &str,
        what: &dyn Fn() -> String,
        enqueue: impl FnOnce(&super::driver::Stream) -> Result<()>,
    ) -> Result<()> {
        let cuda = cuda_of(exec, what)?;
        if !Arc::ptr_eq(cuda.shared(), &self.shared) {
            return Err(Error::Unsupported {
                what: what(),
                reason: "the instance belongs to another runtime than the communicator".into(),
            });
        }
        cuda.shared().check_alive(what)?;
        if cuda.queue().is_recording() {
            return Err(Error::Unsupported {
                what: what(),
                reason: "NCCL operations are not recorded into graphs; queue them on the \
                         instance itself"
                    .into(),
            });
        }
        let borrows = Borrows::take_each(uses)?;
        self.shared.ctx.bind()?;
        let mut sub = cuda.queue().begin_work(what)?;
        borrows.order(&mut sub, what)?;
        sub.note("nccl", label);
        sub.trace("comm", || format!("nccl {label}"), Vec::new);
        let queued = enqueue(sub.stream());
        // Stamped also on an error: part of a group may have been queued.
        sub.finish(borrows.allocs());
        queued
    }
}

impl Drop for NcclComm {
    fn drop(&mut self) {
        // The operations queued with this communicator must end before it is destroyed: wait
        // for the device (every instance's stream).
        let waited = self.shared.ctx.bind().and_then(|()| {
            self.shared
                .ctx
                .synchronize(|| "dropping an NCCL communicator".into())
        });
        if let Err(e) = waited {
            eprintln!("ferrokkos: {e}");
        }
    }
}
