//! The device rows of `deep_copy` (DESIGN.md decision 9; the table is in `view/deep_copy.rs`):
//! copies and fills that involve memory a GPU reaches, carried out on one of its instances'
//! streams, written once over the driver traits.
//!
//! Where each side's memory really is comes from the driver's pointer attributes
//! (`Driver::pointer_kind`), not from the View's declared space: an unmanaged View over a `Vec`
//! (pageable memory, which the device cannot address) is filled and copied on the host side of the
//! transfer, whatever space it claims. [`plan`] chooses the method from the kinds; `transfer.rs`
//! and `fill.rs` carry it out.

pub(crate) mod plan;

// The runtime over the driver traits is built where a driver is (as in `super`).
#[cfg(feature = "cuda")]
mod borrows;
#[cfg(feature = "cuda")]
mod copies;
#[cfg(feature = "cuda")]
mod fill;
#[cfg(feature = "cuda")]
mod host;
#[cfg(feature = "cuda")]
mod transfer;
#[cfg(feature = "cuda")]
mod work;

#[cfg(feature = "cuda")]
pub(crate) use borrows::Borrows;
#[cfg(feature = "cuda")]
pub(crate) use copies::GpuCopies;
