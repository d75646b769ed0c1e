//! Halo updates (TeaLeaf's `local_halos`): on a face at the domain's boundary the halo mirrors
//! the interior, the first halo cell taking the first interior cell's value, the second the
//! second's, and so on to the depth asked for. Left and right go first over every row, then
//! bottom and top over every column, halo columns included, so the corners come along. (The
//! two faces of a direction read interior cells only, so they share a launch; the overlap check
//! of that launch needs the interior to be at least `depth` cells wide.)

use ferrokkos::prelude::*;

use crate::Space;
use crate::chunk::{Chunk, Face, Field};
use crate::exchange::During;
use crate::profile::Phase;

/// The fields TeaLeaf exchanges, in its order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldId {
    /// `density`.
    Density,
    /// `energy0`.
    Energy0,
    /// `energy` (TeaLeaf's energy1).
    Energy1,
    /// `u`.
    U,
    /// `p`.
    P,
    /// `sd`.
    Sd,
}

impl<S: Space> Chunk<S> {
    /// The View of a field.
    pub fn field(&self, id: FieldId) -> &Field<S> {
        match id {
            FieldId::Density => &self.density,
            FieldId::Energy0 => &self.energy0,
            FieldId::Energy1 => &self.energy,
            FieldId::U => &self.u,
            FieldId::P => &self.p,
            FieldId::Sd => &self.sd,
        }
    }

    /// Updates the halos of `fields` to `depth` cells (at most the chunk's halo depth): first
    /// the exchange with the neighbouring chunks, then the reflection at the domain's boundary
    /// (TeaLeaf's `halo_update_driver`), whose sides cover the halo rows the exchange filled.
    pub fn update_halo(&self, fields: &[FieldId], depth: usize) -> crate::Result<()> {
        self.update_halo_during(fields, depth, None)
    }

    /// [`Chunk::update_halo`], launching `during` while the exchange's messages travel (see
    /// [`Chunk::exchange_halos`]).
    pub fn update_halo_during(
        &self,
        fields: &[FieldId],
        depth: usize,
        during: During<'_>,
    ) -> crate::Result<()> {
        if fields.is_empty() {
            return match during {
                Some(work) => work(),
                None => Ok(()),
            };
        }
        self.exchange_halos(fields, depth, during)?;
        self.timed("local_halos", Phase::Halo, || {
            for &id in fields {
                self.reflect(self.field(id), depth)?;
            }
            Ok(())
        })
    }

    /// The reflective halo of one field, face by face.
    fn reflect(&self, f: &Field<S>, depth: usize) -> ferrokkos::Result<()> {
        let (x, y, hd) = (self.x as i64, self.y as i64, self.halo_depth as i64);
        let (rows, columns) = (self.y, self.x);
        // Each iteration `(row, m)` or `(m, column)` copies the m-th interior cell from the face
        // into the m-th halo cell.
        let (left, right) = (self.is_external(Face::Left), self.is_external(Face::Right));
        let (bottom, top) = (self.is_external(Face::Bottom), self.is_external(Face::Top));
        // The sides are `depth` columns of `rows` cells: walked column by column (the row index
        // fastest), so that a host launch runs `depth` lines of `rows` cells rather than `rows`
        // lines of `depth`, whose per-line set-up cost 10 times the copies on 250 x 250.
        let sides = self.cells((0, 0), (rows, depth))?.iterate(Iterate::Left);
        let ends = self.cells((0, 0), (depth, columns))?;
        // Both faces of a direction in one launch where both are on the boundary (one chunk).
        if left && right {
            self.launch.for_each(
                "update_left_right",
                sides.clone(),
                kernel!(|(j, m)| {
                    f[(j, hd - 1 - m)] = f[(j, hd + m)];
                    f[(j, x - hd + m)] = f[(j, x - hd - 1 - m)];
                }),
            )?;
        } else if left {
            self.launch.for_each(
                "update_left",
                sides.clone(),
                kernel!(|(j, m)| f[(j, hd - 1 - m)] = f[(j, hd + m)]),
            )?;
        } else if right {
            self.launch.for_each(
                "update_right",
                sides.clone(),
                kernel!(|(j, m)| f[(j, x - hd + m)] = f[(j, x - hd - 1 - m)]),
            )?;
        }
        if bottom && top {
            self.launch.for_each(
                "update_bottom_top",
                ends.clone(),
                kernel!(|(m, k)| {
                    f[(hd - 1 - m, k)] = f[(hd + m, k)];
                    f[(y - hd + m, k)] = f[(y - hd - 1 - m, k)];
                }),
            )?;
        } else if bottom {
            self.launch.for_each(
                "update_bottom",
                ends.clone(),
                kernel!(|(m, k)| f[(hd - 1 - m, k)] = f[(hd + m, k)]),
            )?;
        } else if top {
            self.launch.for_each(
                "update_top",
                ends.clone(),
                kernel!(|(m, k)| f[(y - hd + m, k)] = f[(y - hd - 1 - m, k)]),
            )?;
        }
        Ok(())
    }
}
