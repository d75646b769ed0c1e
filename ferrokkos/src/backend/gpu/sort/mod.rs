//! The GPU's sort: [`GpuSort`], a GPU backend's `DeviceSort`, queues a stable radix sort
//! (`source.rs`) on one of its instances, written once over the driver traits. [`plan`] lays out the
//! temporaries (one buffer, freed in the stream's order); the Views are borrowed for the queued
//! work, ordered after the work of other instances that uses them, and stamped, as a kernel's are.

pub(crate) mod plan;
pub(crate) mod source;

#[cfg(feature = "cuda")]
mod run;

#[cfg(feature = "cuda")]
pub(crate) use run::GpuSort;

#[cfg(all(test, feature = "cuda"))]
mod tests;
