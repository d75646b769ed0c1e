//! The halo exchange with neighbouring chunks (TeaLeaf's `remote_halo_driver`): for each face
//! with a neighbour, kernels pack the fields' edge cells into a buffer, the buffers travel
//! through [`Comms::exchange`](crate::comms::Comms::exchange), and kernels unpack what arrived
//! into the halo. Left and right go first, over every row (halo rows included); then bottom
//! and top, over every column, so the corner cells come along with the second exchange.
//!
//! A buffer is a rank-3 View `[field, row, layer]` (left, right) or `[field, layer, column]`
//! (bottom, top) in the chunk's memory space; each field's pack writes its own `field` slice.
//! Messages leave from the buffers' staging mirrors (`MemorySpace::HostStaging`): on a host
//! space the mirror is the buffer itself and the copies do nothing; on a GPU it is pinned host
//! memory, and `deep_copy` stages the buffers through it (waiting for the pack).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use ferrokkos::nccl::{NcclComm, NcclOp, NcclTransfer};
use ferrokkos::prelude::*;
use ferrokkos::{MemorySpace, create_mirror_view_in, deep_copy_async};

use crate::Space;
use crate::TeaError;
use crate::chunk::{Chunk, Face, Field, Line};
use crate::comms::Message;
use crate::halo::FieldId;
use crate::profile::Phase;

/// A halo buffer in the chunk's memory space.
pub type Buffer<S> = View<f64, 3, LayoutRight, <S as ExecutionSpace>::MemorySpace>;

/// The host memory a halo buffer is staged through.
pub type Staging<S> = <<S as ExecutionSpace>::MemorySpace as MemorySpace>::HostStaging;

/// A halo buffer's staging mirror.
pub type HostBuffer<S> = View<f64, 3, LayoutRight, Staging<S>>;

/// The buffers of one face for one shape of exchange.
pub struct FaceBuffers<S: Space> {
    send: Buffer<S>,
    recv: Buffer<S>,
    send_host: HostBuffer<S>,
    recv_host: HostBuffer<S>,
}

/// Which buffers: the face, the number of fields and the depth.
type Shape = (Face, usize, usize);

/// The chunk's halo buffers, by face, number of fields and depth, made on first use.
pub struct Buffers<S: Space> {
    made: RefCell<HashMap<Shape, Rc<FaceBuffers<S>>>>,
}

impl<S: Space> Default for Buffers<S> {
    fn default() -> Buffers<S> {
        Buffers {
            made: RefCell::new(HashMap::new()),
        }
    }
}

/// What a pack or unpack kernel needs: the chunk's columns and rows, halo included, its halo
/// depth, the layers moved, and the policies over the sides' and the ends' layers.
struct Frame<S: Space> {
    x: i64,
    y: i64,
    hd: i64,
    d: i64,
    sides: MDRangePolicy<S, 2>,
    ends: MDRangePolicy<S, 2>,
}

/// The tags TeaLeaf gives a face's messages: (sent, received). What goes right arrives from the
/// left with the same tag.
fn tags(face: Face) -> (i32, i32) {
    match face {
        Face::Left | Face::Bottom => (0, 1),
        Face::Right | Face::Top => (1, 0),
    }
}

/// Device work to launch while the first messages of an exchange travel; it must not touch
/// the exchanged fields' halos or the cells packed.
pub type During<'a> = Option<Box<dyn FnOnce() -> crate::Result<()> + 'a>>;

impl<S: Space> Chunk<S> {
    /// Exchanges the halos of `fields` to `depth` cells with every neighbour; `during` is
    /// launched once the first direction's buffers are packed and on their way to the host, so
    /// that the GPU runs it while the messages travel (it runs anyway, also without
    /// neighbours).
    pub fn exchange_halos(
        &self,
        fields: &[FieldId],
        depth: usize,
        during: During<'_>,
    ) -> crate::Result<()> {
        let views: Vec<&Field<S>> = fields.iter().map(|&id| self.field(id)).collect();
        self.exchange_fields(&views, depth, during)
    }

    /// [`Chunk::exchange_halos`] of fields given as Views (CG's second direction buffer has
    /// no [`FieldId`]).
    pub fn exchange_fields(
        &self,
        fields: &[&Field<S>],
        depth: usize,
        mut during: During<'_>,
    ) -> crate::Result<()> {
        self.exchange_directions(fields, depth, &mut during, &mut None)?;
        match during {
            Some(work) => work(),
            None => Ok(()),
        }
    }

    /// [`Chunk::exchange_fields`], and where the ranks talk through NCCL and this chunk has a
    /// neighbour, `sum` (one value on the device) summed over the ranks in the same NCCL group
    /// as the first messages. Returns whether it was summed (if not, the caller sums it).
    pub fn exchange_fields_summing(
        &self,
        fields: &[&Field<S>],
        depth: usize,
        sum: &Line<S>,
    ) -> crate::Result<bool> {
        let mut sum = Some(sum);
        self.exchange_directions(fields, depth, &mut None, &mut sum)?;
        Ok(sum.is_none())
    }

    /// The exchange left and right, then bottom and top (see the module documentation).
    fn exchange_directions(
        &self,
        fields: &[&Field<S>],
        depth: usize,
        during: &mut During<'_>,
        sum: &mut Option<&Line<S>>,
    ) -> crate::Result<()> {
        for pair in [[Face::Left, Face::Right], [Face::Bottom, Face::Top]] {
            self.exchange_pair(pair, fields, depth, during, sum)?;
        }
        Ok(())
    }

    /// The buffers of `face` for `n` fields of `depth` layers.
    fn face_buffers(
        &self,
        face: Face,
        n: usize,
        depth: usize,
    ) -> crate::Result<Rc<FaceBuffers<S>>> {
        if let Some(b) = self.buffers.made.borrow().get(&(face, n, depth)) {
            return Ok(b.clone());
        }
        let shape = match face {
            Face::Left | Face::Right => [n, self.y, depth],
            Face::Bottom | Face::Top => [n, depth, self.x],
        };
        let name = format!("{face:?}").to_lowercase();
        let send = Buffer::<S>::new(format!("{name}_send"), shape)?;
        let recv = Buffer::<S>::new(format!("{name}_recv"), shape)?;
        let b = Rc::new(FaceBuffers {
            send_host: create_mirror_view_in(Staging::<S>::default(), &send)?,
            recv_host: create_mirror_view_in(Staging::<S>::default(), &recv)?,
            send,
            recv,
        });
        self.buffers
            .made
            .borrow_mut()
            .insert((face, n, depth), b.clone());
        Ok(b)
    }

    /// The exchange across the two faces of one direction.
    fn exchange_pair(
        &self,
        pair: [Face; 2],
        fields: &[&Field<S>],
        depth: usize,
        during: &mut During<'_>,
        sum: &mut Option<&Line<S>>,
    ) -> crate::Result<()> {
        let faces: Vec<(Face, usize)> = pair
            .into_iter()
            .filter_map(|f| self.neighbours[f as usize].map(|n| (f, n)))
            .collect();
        if faces.is_empty() || fields.is_empty() {
            return Ok(());
        }
        let distinct = faces.len() < 2 || faces[0].1 != faces[1].1;
        if let (Some(nccl), true, [Face::Bottom, Face::Top]) = (&self.nccl, distinct, pair)
            && !self.launch.is_preparing()
        {
            return self.send_recv_rows_on_device(nccl, &faces, fields, depth, during, sum.take());
        }
        let mut buffers = Vec::with_capacity(faces.len());
        for &(face, _) in &faces {
            buffers.push(self.face_buffers(face, fields.len(), depth)?);
        }
        self.timed("pack_halos", Phase::Halo, || {
            for (&(face, _), b) in faces.iter().zip(&buffers) {
                for (slot, f) in fields.iter().enumerate() {
                    self.pack(face, f, &b.send, slot as i64, depth)?;
                }
            }
            Ok(())
        })?;
        if self.launch.is_preparing() {
            if let Some(work) = during.take() {
                work()?;
            }
        } else if let (Some(nccl), true) = (&self.nccl, distinct) {
            self.send_recv_on_device(nccl, &faces, &buffers, during, sum.take())?;
        } else {
            self.send_recv(&faces, &buffers, during)?;
        }
        self.timed("unpack_halos", Phase::Halo, || {
            for (&(face, _), b) in faces.iter().zip(&buffers) {
                for (slot, f) in fields.iter().enumerate() {
                    self.unpack(face, f, &b.recv, slot as i64, depth)?;
                }
            }
            Ok(())
        })
    }

    /// Sends the packed buffers to the neighbours of `faces` and receives theirs. The copies
    /// to and from the staging buffers are queued on the chunk's instance: taking the staged
    /// buffers' guards waits for their copies only, not for `during`, queued after them.
    fn send_recv(
        &self,
        faces: &[(Face, usize)],
        buffers: &[Rc<FaceBuffers<S>>],
        during: &mut During<'_>,
    ) -> crate::Result<()> {
        self.timed("send_recv_halos", Phase::Comms, || {
            for b in buffers {
                deep_copy_async(&self.exec, &b.send_host, &b.send)?;
            }
            if let Some(work) = during.take() {
                work()?;
            }
            let sent = buffers
                .iter()
                .map(|b| b.send_host.host())
                .collect::<ferrokkos::Result<Vec<_>>>()?;
            let mut received = buffers
                .iter()
                .map(|b| b.recv_host.host_mut())
                .collect::<ferrokkos::Result<Vec<_>>>()?;
            let mut messages = Vec::with_capacity(faces.len());
            for ((&(face, neighbour), s), r) in faces.iter().zip(&sent).zip(&mut received) {
                let (send_tag, recv_tag) = tags(face);
                let not_contiguous =
                    || TeaError::Comms(format!("the {face:?} halo buffer is not contiguous"));
                messages.push(Message {
                    neighbour,
                    send_tag,
                    recv_tag,
                    send: s.as_slice().ok_or_else(not_contiguous)?,
                    recv: r.as_mut_slice().ok_or_else(not_contiguous)?,
                });
            }
            self.comms.exchange(&mut messages)?;
            drop(messages);
            drop((sent, received));
            for b in buffers {
                deep_copy_async(&self.exec, &b.recv, &b.recv_host)?;
            }
            Ok(())
        })
    }

    /// Sends the packed buffers to the neighbours of `faces` and receives theirs through NCCL,
    /// device buffer to device buffer, queued on the chunk's instance between the packs and
    /// the unpacks: the host does not wait. NCCL matches a rank's messages to one peer by
    /// their order (it has no tags), so the caller sends through it only where the faces have
    /// different neighbours. `sum`, if given, is summed over the ranks in the same group.
    fn send_recv_on_device(
        &self,
        nccl: &NcclComm,
        faces: &[(Face, usize)],
        buffers: &[Rc<FaceBuffers<S>>],
        during: &mut During<'_>,
        sum: Option<&Line<S>>,
    ) -> crate::Result<()> {
        self.timed("send_recv_halos", Phase::Comms, || {
            let mut transfers = Vec::with_capacity(2 * faces.len() + 1);
            if let Some(line) = sum {
                transfers.push(NcclTransfer::all_reduce(line, NcclOp::Sum));
            }
            for (&(_, neighbour), b) in faces.iter().zip(buffers) {
                transfers.push(NcclTransfer::send(neighbour, &b.send));
                transfers.push(NcclTransfer::receive(neighbour, &b.recv));
            }
            nccl.exchange(&self.exec, &transfers)?;
            match during.take() {
                Some(work) => work(),
                None => Ok(()),
            }
        })
    }

    /// The bottom and top exchange through NCCL without packing: `depth` whole rows of a
    /// field are contiguous, so each message goes from the field's edge rows straight into
    /// the neighbour's halo rows (a send and a receive per field and face, in the fields'
    /// order, which the neighbour's exchange shares), in one NCCL group with `sum`, if given.
    fn send_recv_rows_on_device(
        &self,
        nccl: &NcclComm,
        faces: &[(Face, usize)],
        fields: &[&Field<S>],
        depth: usize,
        during: &mut During<'_>,
        sum: Option<&Line<S>>,
    ) -> crate::Result<()> {
        let (hd, y) = (self.halo_depth, self.y);
        self.timed("send_recv_halos", Phase::Comms, || {
            let mut rows = Vec::with_capacity(faces.len() * fields.len());
            for &(face, neighbour) in faces {
                let (send, recv) = match face {
                    Face::Bottom => (hd..hd + depth, hd - depth..hd),
                    Face::Top => (y - hd - depth..y - hd, y - hd..y - hd + depth),
                    Face::Left | Face::Right => {
                        return Err(TeaError::Comms(format!(
                            "the {face:?} halo's columns are not contiguous rows"
                        )));
                    }
                };
                for f in fields {
                    let sent = subview(*f, (send.clone(), ALL))?;
                    let received = subview(*f, (recv.clone(), ALL))?;
                    rows.push((neighbour, sent, received));
                }
            }
            let mut transfers = Vec::with_capacity(2 * rows.len() + 1);
            if let Some(line) = sum {
                transfers.push(NcclTransfer::all_reduce(line, NcclOp::Sum));
            }
            for (neighbour, sent, received) in &rows {
                transfers.push(NcclTransfer::send(*neighbour, sent));
                transfers.push(NcclTransfer::receive(*neighbour, received));
            }
            nccl.exchange(&self.exec, &transfers)?;
            match during.take() {
                Some(work) => work(),
                None => Ok(()),
            }
        })
    }

    /// The extents and the policies a pack or unpack of `depth` layers uses.
    fn frame(&self, depth: usize) -> ferrokkos::Result<Frame<S>> {
        Ok(Frame {
            x: self.x as i64,
            y: self.y as i64,
            hd: self.halo_depth as i64,
            d: depth as i64,
            // `depth` columns of every row, the row index fastest (as the reflection's sides).
            sides: self.cells((0, 0), (self.y, depth))?.iterate(Iterate::Left),
            ends: self.cells((0, 0), (depth, self.x))?,
        })
    }

    /// Copies the `depth` interior layers of `f` at `face` into slice `c` of `buf`.
    fn pack(
        &self,
        face: Face,
        f: &Field<S>,
        buf: &Buffer<S>,
        c: i64,
        depth: usize,
    ) -> ferrokkos::Result<()> {
        let Frame {
            x,
            y,
            hd,
            d,
            sides,
            ends,
        } = self.frame(depth)?;
        match face {
            Face::Left => self.launch.for_each(
                "pack_left",
                sides,
                kernel!(|(j, m)| buf[(c, j, m)] = f[(j, hd + m)]),
            ),
            Face::Right => self.launch.for_each(
                "pack_right",
                sides,
                kernel!(|(j, m)| buf[(c, j, m)] = f[(j, x - hd - d + m)]),
            ),
            Face::Bottom => self.launch.for_each(
                "pack_bottom",
                ends,
                kernel!(|(m, k)| buf[(c, m, k)] = f[(hd + m, k)]),
            ),
            Face::Top => self.launch.for_each(
                "pack_top",
                ends,
                kernel!(|(m, k)| buf[(c, m, k)] = f[(y - hd - d + m, k)]),
            ),
        }
    }

    /// Copies slice `c` of `buf` into the `depth` halo layers of `f` at `face`.
    fn unpack(
        &self,
        face: Face,
        f: &Field<S>,
        buf: &Buffer<S>,
        c: i64,
        depth: usize,
    ) -> ferrokkos::Result<()> {
        let Frame {
            x,
            y,
            hd,
            d,
            sides,
            ends,
        } = self.frame(depth)?;
        match face {
            Face::Left => self.launch.for_each(
                "unpack_left",
                sides,
                kernel!(|(j, m)| f[(j, hd - d + m)] = buf[(c, j, m)]),
            ),
            Face::Right => self.launch.for_each(
                "unpack_right",
                sides,
                kernel!(|(j, m)| f[(j, x - hd + m)] = buf[(c, j, m)]),
            ),
            Face::Bottom => self.launch.for_each(
                "unpack_bottom",
                ends,
                kernel!(|(m, k)| f[(hd - d + m, k)] = buf[(c, m, k)]),
            ),
            Face::Top => self.launch.for_each(
                "unpack_top",
                ends,
                kernel!(|(m, k)| f[(y - hd + m, k)] = buf[(c, m, k)]),
            ),
        }
    }
}
